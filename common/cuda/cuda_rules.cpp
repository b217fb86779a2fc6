#include "cuda/cuda_rules.h"

namespace vmr_cuda {

std::string compute_mode_name(int mode) {
  switch (mode) {
    case kComputeModeDefault:
      return "DEFAULT";
    case kComputeModeProhibited:
      return "PROHIBITED";
    case kComputeModeExclusiveProcess:
      return "EXCLUSIVE_PROCESS";
    default:
      return "unknown (" + std::to_string(mode) + ")";
  }
}

vmr::Status context_refused(int device, int compute_mode, int ranks_on_device, int error,
                            const std::string& call_error) {
  if (error != kErrorDeviceUnavailable) return vmr::Status::fail(call_error);
  const std::string gpu = "device " + std::to_string(device) + " is in compute mode " + compute_mode_name(compute_mode);
  if (compute_mode == kComputeModeProhibited)
    return vmr::Status::skip(gpu + ": no process may create a context on it (nvidia-smi -c DEFAULT); " + call_error);
  if (compute_mode != kComputeModeExclusiveProcess) return vmr::Status::fail(call_error);
  if (ranks_on_device > 1)
    return vmr::Status::skip(gpu + " and this case puts " + std::to_string(ranks_on_device) +
                             " ranks (processes) on it: only one process may hold it (run the pair on two GPUs, "
                             "under MPS, or after nvidia-smi -c DEFAULT); " +
                             call_error);
  return vmr::Status::skip(gpu + " and another process holds it (a job on this node?); " + call_error);
}

}  // namespace vmr_cuda

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

vmr::Status context_refused(int device, int compute_mode, int processes, int error, const std::string& call_error) {
  const std::string gpu = "device " + std::to_string(device) + " is in compute mode " + compute_mode_name(compute_mode);
  // No context can exist there, whatever the driver answers (cuda.h documents CUDA_ERROR_UNKNOWN for a context
  // made on it, the runtime its "devices unavailable").
  if (compute_mode == kComputeModeProhibited)
    return vmr::Status::skip(gpu + ": no process may create a context on it (nvidia-smi -c DEFAULT); " + call_error);
  if (compute_mode != kComputeModeExclusiveProcess || error != kErrorDeviceUnavailable)
    return vmr::Status::fail(call_error);
  if (processes > 1)
    return vmr::Status::skip(gpu + " and this case needs it in " + std::to_string(processes) +
                             " processes at once: only one may hold it (run under MPS, or after nvidia-smi -c "
                             "DEFAULT); " +
                             call_error);
  // One process of ours on it and still refused: something else holds it. On an idle node (where a health check
  // runs) that is a GPU the next job cannot use either.
  return vmr::Status::fail(gpu +
                           " and another process holds it (a job, or a context a dead job left behind: "
                           "nvidia-smi --query-compute-apps=pid,process_name --format=csv names it); " +
                           call_error);
}

vmr::Status missing_kernel_image(int device, int major, int minor, int error, const std::string& call_error,
                                 const std::string& built) {
  if (error == 0) return vmr::Status::pass();
  if (error != kErrorNoKernelImageForDevice && error != kErrorUnsupportedPtxVersion)
    return vmr::Status::fail(call_error);
  const std::string sm = std::to_string(major) + std::to_string(minor);
  const std::string why = error == kErrorNoKernelImageForDevice
                              ? "this build has no code for sm_" + sm
                              : "this build's code for sm_" + sm + " is PTX newer than this driver compiles";
  return vmr::Status::skip("device " + std::to_string(device) + ": " + why + " (built for " +
                           (built.empty() ? std::string("nothing") : built) +
                           "): reconfigure with -DCMAKE_CUDA_ARCHITECTURES=" + sm +
                           " (or leave it unset: every architecture nvcc supports); " + call_error);
}

}  // namespace vmr_cuda

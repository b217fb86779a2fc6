// Decisions of the CUDA reference that need no GPU: plain C++ (no CUDA header), so the unit tests run each on the
// CPU. The numbers are the driver's own (cuda.h CUcomputemode, CUresult), stable across CUDA releases.
#pragma once

#include <string>

#include "harness/status.h"

namespace vmr_cuda {

// CU_DEVICE_ATTRIBUTE_COMPUTE_MODE values (nvidia-smi -c): DEFAULT 0, PROHIBITED 2, EXCLUSIVE_PROCESS 3; 1 was
// EXCLUSIVE_THREAD, gone since CUDA 8.
constexpr int kComputeModeDefault = 0, kComputeModeProhibited = 2, kComputeModeExclusiveProcess = 3;
// CUDA_ERROR_DEVICE_UNAVAILABLE and cudaErrorDevicesUnavailable: what a context refused by the compute mode reads.
constexpr int kErrorDeviceUnavailable = 46;

// "DEFAULT", "PROHIBITED", "EXCLUSIVE_PROCESS"; "unknown (N)" for another value.
std::string compute_mode_name(int mode);

// The verdict of a rank whose device refused it a context (cudaSetDevice or cudaFree(nullptr) answered `error`,
// `call_error` naming the call). A node whose GPUs are in EXCLUSIVE_PROCESS mode (common on clusters) lets one
// process hold each GPU: a same-GPU pair can never run there (unless MPS serves both ranks), and a pair of two GPUs
// cannot while a job holds one. PROHIBITED lets none. Both are SKIPs naming the mode, since nothing is wrong with
// VMem; any other refusal is the FAIL it was.
vmr::Status context_refused(int device, int compute_mode, int ranks_on_device, int error,
                            const std::string& call_error);

}  // namespace vmr_cuda

// Decisions of the CUDA reference that need no GPU: plain C++ (no CUDA header), so the unit tests run each on the
// CPU. The numbers are the driver's own (cuda.h CUcomputemode, CUresult), stable across CUDA releases.
#pragma once

#include <string>

#include "harness/status.h"

namespace vmr_cuda {

// CU_DEVICE_ATTRIBUTE_COMPUTE_MODE values (nvidia-smi -c): DEFAULT 0, PROHIBITED 2, EXCLUSIVE_PROCESS 3; 1, the old
// EXCLUSIVE_THREAD, is no longer in cuda.h (driver_types.h keeps cudaComputeModeExclusive = 1).
constexpr int kComputeModeDefault = 0, kComputeModeProhibited = 2, kComputeModeExclusiveProcess = 3;
// CUDA_ERROR_DEVICE_UNAVAILABLE and cudaErrorDevicesUnavailable: what a context refused by the compute mode reads.
constexpr int kErrorDeviceUnavailable = 46;
// cudaErrorNoKernelImageForDevice: the binary has neither code for the GPU's architecture nor PTX the driver can
// compile for it. cudaErrorUnsupportedPtxVersion: its only usable code is PTX newer than this driver compiles.
constexpr int kErrorNoKernelImageForDevice = 209, kErrorUnsupportedPtxVersion = 222;

// "DEFAULT", "PROHIBITED", "EXCLUSIVE_PROCESS"; "unknown (N)" for another value.
std::string compute_mode_name(int mode);

// The verdict of a process whose `device` refused it a context (cudaSetDevice or cudaFree(nullptr) answered
// `error`, `call_error` naming the call); `processes`: how many processes the case opens the device from (2 for a
// same-GPU pair, or for a rank that reaches its peer's GPU itself). Nodes whose GPUs are EXCLUSIVE_PROCESS (common on
// clusters) let one process hold each GPU, so such a case can never run there (unless MPS serves both): a SKIP naming
// the mode, as is any refusal on a PROHIBITED GPU. A GPU held by a process not of this case is a FAIL naming how to
// find the holder: on an idle node it is a GPU no job can use. Any other refusal stays the FAIL it was.
vmr::Status context_refused(int device, int compute_mode, int processes, int error, const std::string& call_error);

// Whether this binary can run a kernel on `device` of compute capability major.minor: `error` is what
// cudaFuncGetAttributes answered for one of its kernels (0: it has code), `call_error` that answer in words, `built`
// the targets it was compiled for (CMAKE_CUDA_ARCHITECTURES, ',' separated). No code for the GPU is the build's
// fault, never the node's: a SKIP naming the GPU's sm, the targets built and the flag that adds it; any other error
// a FAIL naming it.
vmr::Status missing_kernel_image(int device, int major, int minor, int error, const std::string& call_error,
                                 const std::string& built);

}  // namespace vmr_cuda

// GPU runtime errors as values, one source for HIP and CUDA:
// "hipMemSetAccess returned hipErrorInvalidValue (invalid argument)".
#pragma once

#if defined(__HIP__) || defined(__HIPCC__)
#include <hip/hip_runtime_api.h>
#define VMR_GPU(name) hip##name
#else
#include <cuda_runtime_api.h>
#define VMR_GPU(name) cuda##name
#endif

#include <string>

#include "status.h"

namespace vmr_gpu {

inline std::string gpu_error(const char* call, VMR_GPU(Error_t) e) {
  return std::string(call) + " returned " + VMR_GPU(GetErrorName)(e) + " (" + VMR_GPU(GetErrorString)(e) + ")";
}

inline vmr::Status gpu_check(const char* call, VMR_GPU(Error_t) e) {
  return e == VMR_GPU(Success) ? vmr::Status::pass() : vmr::Status::fail(gpu_error(call, e));
}

}  // namespace vmr_gpu

// Returns the failure of a runtime call from the enclosing Status function, naming the call:
// GPU_TRY(hipMemMap, va, size, 0, handle, 0).
#define GPU_TRY(call, ...) VMR_TRY(::vmr_gpu::gpu_check(#call, call(__VA_ARGS__)))

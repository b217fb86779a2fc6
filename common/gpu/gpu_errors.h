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

#include "harness/status.h"
#include "harness/text.h"

namespace vmr_gpu {

inline std::string gpu_error(std::string_view call, VMR_GPU(Error_t) e) {
  return std::string(call) + " returned " + VMR_GPU(GetErrorName)(e) + " (" + VMR_GPU(GetErrorString)(e) + ")";
}

inline vmr::Status gpu_check(std::string_view call, VMR_GPU(Error_t) e) {
  return e == VMR_GPU(Success) ? vmr::Status::pass() : vmr::Status::fail(gpu_error(vmr::call_name(call), e));
}

}  // namespace vmr_gpu

// Returns the failure of a runtime call from the enclosing Status function, naming the call:
// VMR_GPU_TRY(hipMemMap, va, size, 0, handle, 0). The same shape as VMR_HSA_TRY and VMR_CU_TRY.
#define VMR_GPU_TRY(call, ...) VMR_TRY(::vmr_gpu::gpu_check(#call, call(__VA_ARGS__)))

// vmr_gpu::finish for the CUDA reference: synchronise through the driver API, so that a kernel's fault reads
// CUDA_ERROR_ILLEGAL_ADDRESS, the driver's own name for it.
#include <cuda_runtime.h>

#include <string>

#include "cuda/cuda_api.h"
#include "gpu/gpu_errors.h"

namespace vmr_gpu {

vmr::Status finish(const char* what) {
  cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) return vmr::Status::fail(gpu_error(what, launch));
  CUresult r = vmr_cuda::api.cuCtxSynchronize();
  if (r == CUDA_SUCCESS) return vmr::Status::pass();
  return vmr::Status::fail(vmr_cuda::api.error(std::string("cuCtxSynchronize after ") + what, r));
}

}  // namespace vmr_gpu

// The CUDA driver API, resolved at run time. Binaries link cudart statically and never libcuda, so they start on
// machines without the NVIDIA driver (CI) and SKIP there naming it.
#pragma once

#include <cuda.h>

#include <string>

#include "status.h"

namespace vmr {

// Every driver entry point the suite calls; one list for the table and its loader.
#define VMR_CUDA_DRIVER_FUNCTIONS(X)                                                                     \
  X(cuGetErrorName) X(cuGetErrorString) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetAttribute)      \
  X(cuDeviceCanAccessPeer) X(cuDeviceGetP2PAttribute) X(cuDeviceGetUuid) X(cuCtxSynchronize)              \
  X(cuMemGetAllocationGranularity) X(cuMemCreate) X(cuMemRelease) X(cuMemAddressReserve) X(cuMemAddressFree) \
  X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess) X(cuMemExportToShareableHandle) X(cuMemImportFromShareableHandle) \
  X(cuMemcpyDtoD)

struct CudaDriver {
#define VMR_CU_FN(name) decltype(&::name) name = nullptr;
  VMR_CUDA_DRIVER_FUNCTIONS(VMR_CU_FN)
#undef VMR_CU_FN

  // "cuMemMap returned CUDA_ERROR_INVALID_VALUE (invalid argument)"
  std::string error(const char* call, CUresult r) const;
  Status check(const char* call, CUresult r) const {
    return r == CUDA_SUCCESS ? Status::pass() : Status::fail(error(call, r));
  }
};

// SKIP "no NVIDIA driver: ..." where libcuda.so.1 cannot be loaded; otherwise fills every entry point or fails
// naming the one the driver lacks.
Status load_cuda_driver(CudaDriver* d);

}  // namespace vmr

// Returns the failure of a CUresult-returning driver call from the enclosing Status function, naming the call.
#define CU_TRY(drv, call) VMR_TRY((drv).check(#call, (drv).call))

// The CUDA driver API, resolved at run time. Binaries link cudart statically and never libcuda, so they start on
// machines without the NVIDIA driver (CI) and SKIP there naming it.
#pragma once

#include <cuda.h>

#include <string>

#include "harness/status.h"
#include "harness/text.h"

namespace vmr_cuda {

using vmr::Status;

// Every driver entry point the suite calls; one list for the table and its loader.
#define VMR_CUDA_DRIVER_FUNCTIONS(X)        \
  X(cuGetErrorName)                         \
  X(cuGetErrorString)                       \
  X(cuDriverGetVersion)                     \
  X(cuDeviceGet)                            \
  X(cuDeviceGetAttribute)                   \
  X(cuDeviceCanAccessPeer)                  \
  X(cuDeviceGetP2PAttribute)                \
  X(cuDeviceGetUuid)                        \
  X(cuCtxSynchronize)                       \
  X(cuMemGetAllocationGranularity)          \
  X(cuMemCreate)                            \
  X(cuMemRelease)                           \
  X(cuMemAddressReserve)                    \
  X(cuMemAddressFree)                       \
  X(cuMemMap)                               \
  X(cuMemUnmap)                             \
  X(cuMemSetAccess)                         \
  X(cuMemGetAccess)                         \
  X(cuMemExportToShareableHandle)           \
  X(cuMemImportFromShareableHandle)         \
  X(cuMemGetAllocationPropertiesFromHandle) \
  X(cuPointerGetAttribute)                  \
  X(cuMemRetainAllocationHandle)            \
  X(cuMemcpyDtoD)

struct Api {
#define VMR_CU_FN(name) decltype(&::name) name = nullptr;
  VMR_CUDA_DRIVER_FUNCTIONS(VMR_CU_FN)
#undef VMR_CU_FN

  // "cuMemMap returned CUDA_ERROR_INVALID_VALUE (invalid argument)"
  std::string error(std::string_view call, CUresult r) const;
  Status check(std::string_view call, CUresult r) const {
    return r == CUDA_SUCCESS ? Status::pass() : Status::fail(error(vmr::call_name(call), r));
  }
};

// The table of this process (one rank per process), filled by load_api().
extern Api api;

// SKIP "no NVIDIA driver: ..." where libcuda.so.1 cannot be loaded; otherwise fills every entry point or SKIPs
// naming the one the driver lacks.
Status load_api();

}  // namespace vmr_cuda

// Returns the failure of a driver call from the enclosing Status function, naming the call:
// VMR_CU_TRY(api.cuMemMap, va, size, 0, handle, 0).
#define VMR_CU_TRY(call, ...) VMR_TRY(::vmr_cuda::api.check(#call, call(__VA_ARGS__)))

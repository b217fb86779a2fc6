#include <cuda_runtime.h>
#include <dlfcn.h>

#include "cuda/cuda_api.h"

namespace vmr_cuda {

Api api;

namespace {
// The driver API version whose signatures cuda.h declares for the names we use (the _v2 entry points).
constexpr unsigned kEntryPointVersion = 12000;

template <class Fn>
Status resolve(const char* name, Fn* out) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, kEntryPointVersion, cudaEnableDefault, &found);
  if (e != cudaSuccess)
    return Status::skip(std::string("cudaGetDriverEntryPointByVersion(") + name + ") returned " + cudaGetErrorName(e));
  if (found != cudaDriverEntryPointSuccess || !fn)
    return Status::skip(std::string("the NVIDIA driver has no ") + name + " (CUDA " +
                        std::to_string(kEntryPointVersion / 1000) + " driver API)");
  *out = reinterpret_cast<Fn>(fn);
  return Status::pass();
}
}  // namespace

std::string Api::error(std::string_view call, CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName) cuGetErrorName(r, &name);
  if (cuGetErrorString) cuGetErrorString(r, &text);
  return std::string(call) + " returned " + (name ? name : "CUresult " + std::to_string(int(r))) + " (" +
         (text ? text : "no description") + ")";
}

Status load_api() {
  // cudart would report a missing driver as "driver version is insufficient"; name the real cause.
  if (!dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) && !dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL))
    return Status::skip(std::string("no NVIDIA driver: ") + dlerror());
#define VMR_CU_LOAD(name) VMR_TRY(resolve(#name, &api.name));
  VMR_CUDA_DRIVER_FUNCTIONS(VMR_CU_LOAD)
#undef VMR_CU_LOAD
  return Status::pass();
}

}  // namespace vmr_cuda

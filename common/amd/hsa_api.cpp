#include "amd/hsa_api.h"

#include <dlfcn.h>

namespace vmr_hsa {

Api api;

namespace {

const char* status_name(hsa_status_t s) {
  switch (int(s)) {
    case HSA_STATUS_SUCCESS:
      return "HSA_STATUS_SUCCESS";
    case HSA_STATUS_INFO_BREAK:
      return "HSA_STATUS_INFO_BREAK";
    case HSA_STATUS_ERROR:
      return "HSA_STATUS_ERROR";
    case HSA_STATUS_ERROR_INVALID_ARGUMENT:
      return "HSA_STATUS_ERROR_INVALID_ARGUMENT";
    case HSA_STATUS_ERROR_INVALID_QUEUE_CREATION:
      return "HSA_STATUS_ERROR_INVALID_QUEUE_CREATION";
    case HSA_STATUS_ERROR_INVALID_ALLOCATION:
      return "HSA_STATUS_ERROR_INVALID_ALLOCATION";
    case HSA_STATUS_ERROR_INVALID_AGENT:
      return "HSA_STATUS_ERROR_INVALID_AGENT";
    case HSA_STATUS_ERROR_INVALID_REGION:
      return "HSA_STATUS_ERROR_INVALID_REGION";
    case HSA_STATUS_ERROR_OUT_OF_RESOURCES:
      return "HSA_STATUS_ERROR_OUT_OF_RESOURCES";
    case HSA_STATUS_ERROR_NOT_INITIALIZED:
      return "HSA_STATUS_ERROR_NOT_INITIALIZED";
    case HSA_STATUS_ERROR_INVALID_MEMORY_POOL:
      return "HSA_STATUS_ERROR_INVALID_MEMORY_POOL";
    case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION:
      return "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION";
    case HSA_STATUS_ERROR_MEMORY_FAULT:
      return "HSA_STATUS_ERROR_MEMORY_FAULT";
    case 47:
      return "HSA_STATUS_ERROR_NOT_SUPPORTED";  // named from interface 1.x of ROCm 6
    default:
      return "hsa_status_t";
  }
}

}  // namespace

std::string hsa_error(std::string_view call, hsa_status_t s) {
  const char* text = nullptr;
  if (hsa_status_string(s, &text) != HSA_STATUS_SUCCESS || !text) text = "no description";
  return std::string(call) + " returned " + status_name(s) + " (" + std::to_string(int(s)) + ": " + text + ")";
}

Status load_api() {
  // The process links libhsa-runtime64, so its exported symbols are in the global scope.
#define VMR_HSA_LOAD(name, ...)                                                 \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(RTLD_DEFAULT, #name));  \
  if (!api.name)                                                                \
    return Status::skip("this HSA runtime has no " #name                        \
                        ": the HSA virtual memory API needs ROCm 6.0 or later " \
                        "(HSA AMD interface 1.4)");
  VMR_HSA_VMEM_FUNCTIONS(VMR_HSA_LOAD)
#undef VMR_HSA_LOAD
#define VMR_HSA_LOAD_QUERY(name, ...) api.name = reinterpret_cast<decltype(api.name)>(dlsym(RTLD_DEFAULT, #name));
  VMR_HSA_VMEM_QUERIES(VMR_HSA_LOAD_QUERY)
#undef VMR_HSA_LOAD_QUERY
  return Status::pass();
}

}  // namespace vmr_hsa

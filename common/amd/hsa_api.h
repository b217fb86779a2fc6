// The HSA virtual-memory API (hsa_amd_vmem_*), resolved at run time.
//
// It arrived with HSA AMD interface 1.4 (ROCm 6.0). Debian's ROCm 5.2.3 header is interface 1.0 and lacks it, so
// where the header lacks them this file declares the missing types, exactly as the real header spells them; where
// the header has them, it uses the header's declarations and declares nothing again. Functions are always looked up
// at run time, so a binary built against any header starts everywhere and SKIPs on a runtime without them.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <string>

#include "harness/status.h"
#include "harness/text.h"

#define VMR_HSA_HEADER_HAS_VMEM (HSA_AMD_INTERFACE_VERSION_MAJOR > 1 || HSA_AMD_INTERFACE_VERSION_MINOR >= 4)
#if defined(VMR_EXPECT_HSA_VMEM_HEADER) && !VMR_HSA_HEADER_HAS_VMEM
#error "the build check meant to compile against an interface >= 1.4 header got an older one"
#endif

#if !VMR_HSA_HEADER_HAS_VMEM
extern "C" {
typedef struct hsa_amd_vmem_alloc_handle_s {
  uint64_t handle;
} hsa_amd_vmem_alloc_handle_t;

typedef enum { MEMORY_TYPE_NONE, MEMORY_TYPE_PINNED } hsa_amd_memory_type_t;

typedef struct hsa_amd_memory_access_desc_s {
  hsa_access_permission_t permissions;
  hsa_agent_t agent_handle;
} hsa_amd_memory_access_desc_t;
}
#endif

namespace vmr_hsa {

using vmr::Status;

// Values newer headers name and 5.2.3 does not (hsa.h's hsa_system_info_t, hsa_ext_amd.h's pool flags).
constexpr int kHsaSystemInfoDmabufSupported = 0x204;
constexpr int kHsaSystemInfoVirtualMemApiSupported = 0x205;
constexpr int kHsaSystemInfoXnackEnabled = 0x206;
constexpr int kHsaSystemInfoExtVersionMajor = 0x207;
constexpr int kHsaSystemInfoExtVersionMinor = 0x208;
constexpr uint32_t kPoolFlagExtendedScopeFineGrained = 8;  // interface 1.3

// One list: name, then the parameters as the real header declares them (used only where the header lacks them).
#define VMR_HSA_VMEM_FUNCTIONS(X)                                                                                    \
  X(hsa_amd_vmem_address_reserve, void** va, size_t size, uint64_t address, uint64_t flags)                          \
  X(hsa_amd_vmem_address_free, void* va, size_t size)                                                                \
  X(hsa_amd_vmem_handle_create, hsa_amd_memory_pool_t pool, size_t size, hsa_amd_memory_type_t type, uint64_t flags, \
    hsa_amd_vmem_alloc_handle_t* memory_handle)                                                                      \
  X(hsa_amd_vmem_handle_release, hsa_amd_vmem_alloc_handle_t memory_handle)                                          \
  X(hsa_amd_vmem_map, void* va, size_t size, size_t in_offset, hsa_amd_vmem_alloc_handle_t memory_handle,            \
    uint64_t flags)                                                                                                  \
  X(hsa_amd_vmem_unmap, void* va, size_t size)                                                                       \
  X(hsa_amd_vmem_set_access, void* va, size_t size, const hsa_amd_memory_access_desc_t* desc, size_t desc_cnt)       \
  X(hsa_amd_vmem_get_access, void* va, hsa_access_permission_t* perms, hsa_agent_t agent_handle)                     \
  X(hsa_amd_vmem_export_shareable_handle, int* dmabuf_fd, hsa_amd_vmem_alloc_handle_t handle, uint64_t flags)        \
  X(hsa_amd_vmem_import_shareable_handle, int dmabuf_fd, hsa_amd_vmem_alloc_handle_t* handle)

// Queries a case may ask and do without (null where the runtime lacks them; the case then says what it could not
// prove): the handle behind a mapped VA and the pool it was made from (ROCR 6.4.3 hsa_ext_amd.cpp:1412-1440).
#define VMR_HSA_VMEM_QUERIES(X)                                                               \
  X(hsa_amd_vmem_retain_alloc_handle, hsa_amd_vmem_alloc_handle_t* memory_handle, void* addr) \
  X(hsa_amd_vmem_get_alloc_properties_from_handle, hsa_amd_vmem_alloc_handle_t memory_handle, \
    hsa_amd_memory_pool_t* pool, hsa_amd_memory_type_t* type)

// hsa_amd_memory_pool_info_t's HSA_AMD_MEMORY_POOL_INFO_LOCATION (its answers: vmr_amd::PoolLocation; 6.4.3's
// hsa_ext_amd.h:1504-1577; 5.2.3's header names none of them).
constexpr int kPoolInfoLocation = 17;
template <class E>
constexpr auto header_pool_info_location(int) -> decltype(int(E::HSA_AMD_MEMORY_POOL_INFO_LOCATION)) {
  return int(E::HSA_AMD_MEMORY_POOL_INFO_LOCATION);
}
template <class E>
constexpr int header_pool_info_location(long) {
  return kPoolInfoLocation;
}
static_assert(header_pool_info_location<hsa_amd_memory_pool_info_t>(0) == kPoolInfoLocation,
              "HSA_AMD_MEMORY_POOL_INFO_LOCATION moved: update kPoolInfoLocation");

struct Api {
#if VMR_HSA_HEADER_HAS_VMEM
#define VMR_HSA_FN(name, ...) decltype(&::name) name = nullptr;
#else
#define VMR_HSA_FN(name, ...) hsa_status_t (*name)(__VA_ARGS__) = nullptr;
#endif
  VMR_HSA_VMEM_FUNCTIONS(VMR_HSA_FN)
  VMR_HSA_VMEM_QUERIES(VMR_HSA_FN)
#undef VMR_HSA_FN
};

// The table of this process (one rank per process), filled by load_api().
extern Api api;

// SKIP naming the first function this runtime lacks and the ROCm release that has it.
Status load_api();

// "hsa_amd_vmem_set_access returned HSA_STATUS_ERROR_INVALID_ALLOCATION (4099: ...)"
std::string hsa_error(std::string_view call, hsa_status_t s);
inline Status hsa_check(std::string_view call, hsa_status_t s) {
  return s == HSA_STATUS_SUCCESS ? Status::pass() : Status::fail(hsa_error(vmr::call_name(call), s));
}

}  // namespace vmr_hsa

// Returns the failure of an hsa_status_t-returning call from the enclosing Status function, naming the call:
// VMR_HSA_TRY(api.hsa_amd_vmem_map, va, size, 0, handle, 0) or VMR_HSA_TRY(hsa_init).
#define VMR_HSA_TRY(call, ...) VMR_TRY(::vmr_hsa::hsa_check(#call, call(__VA_ARGS__)))

// Build check only: an hsa_ext_amd.h of HSA AMD interface >= 1.4 (ROCm 6.0 and later), made from Debian's 1.0
// header plus the virtual memory API's declarations as ROCm's header states them. Compiling common/hsa_vmem_api.cpp
// against it proves the header-has-it path: nothing declared twice, and every table entry typed from the
// header's own declaration (decltype).
#pragma once
#include_next <hsa/hsa_ext_amd.h>

#undef HSA_AMD_INTERFACE_VERSION_MINOR
#define HSA_AMD_INTERFACE_VERSION_MINOR 16

#ifdef __cplusplus
extern "C" {
#endif
typedef enum { MEMORY_TYPE_NONE, MEMORY_TYPE_PINNED } hsa_amd_memory_type_t;
typedef struct hsa_amd_vmem_alloc_handle_s {
  uint64_t handle;
} hsa_amd_vmem_alloc_handle_t;
typedef struct hsa_amd_memory_access_desc_s {
  hsa_access_permission_t permissions;
  hsa_agent_t agent_handle;
} hsa_amd_memory_access_desc_t;
hsa_status_t HSA_API hsa_amd_vmem_address_reserve(void** va, size_t size, uint64_t address, uint64_t flags);
hsa_status_t HSA_API hsa_amd_vmem_address_free(void* va, size_t size);
hsa_status_t HSA_API hsa_amd_vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size, hsa_amd_memory_type_t type,
                                                uint64_t flags, hsa_amd_vmem_alloc_handle_t* memory_handle);
hsa_status_t HSA_API hsa_amd_vmem_handle_release(hsa_amd_vmem_alloc_handle_t memory_handle);
hsa_status_t HSA_API hsa_amd_vmem_map(void* va, size_t size, size_t in_offset,
                                      hsa_amd_vmem_alloc_handle_t memory_handle, uint64_t flags);
hsa_status_t HSA_API hsa_amd_vmem_unmap(void* va, size_t size);
hsa_status_t HSA_API hsa_amd_vmem_set_access(void* va, size_t size, const hsa_amd_memory_access_desc_t* desc,
                                             const size_t desc_cnt);
hsa_status_t HSA_API hsa_amd_vmem_export_shareable_handle(int* dmabuf_fd, hsa_amd_vmem_alloc_handle_t handle,
                                                          uint64_t flags);
hsa_status_t HSA_API hsa_amd_vmem_import_shareable_handle(int dmabuf_fd, hsa_amd_vmem_alloc_handle_t* handle);
#ifdef __cplusplus
}
#endif

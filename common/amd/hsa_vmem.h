// HSA virtual memory (hsa_amd_vmem_*, ROCm >= 6.0), one call per function through the run-time table of
// amd/hsa_api.h, and the owners of what each call creates, so that every handle, mapping and reservation is
// released on every path. The same vocabulary as vmr_hip (amd/hip_vmem.h) and vmr_cuda (cuda/cuda_vmem.h):
// Handle, Reservation, Mapping, Block; create, reserve, map, set_access, export_fd, import_block.
//
// Contracts (ROCR runtime.cpp): a handle's size is a multiple of the pool's RUNTIME_ALLOC_GRANULE; map takes the
// whole handle at offset 0; set_access must start at a mapping and cover no hole, and must list every agent that
// will touch the memory; unmap drops all access.
#pragma once

#include <vector>

#include "amd/hsa_api.h"
#include "gpu/vmem_owners.h"
#include "harness/scope_guard.h"

namespace vmr_hsa {

using u64 = unsigned long long;

// What the owners release with (gpu/vmem_owners.h).
struct Traits {
  using handle_type = hsa_amd_vmem_alloc_handle_t;
  using va_type = void*;
  static void release(handle_type h) { (void)api.hsa_amd_vmem_handle_release(h); }
  static void unmap(va_type va, size_t size) { (void)api.hsa_amd_vmem_unmap(va, size); }
  static void address_free(va_type va, size_t size) { (void)api.hsa_amd_vmem_address_free(va, size); }
};
using Handle = vmr_gpu::VmemHandle<Traits>;
using Reservation = vmr_gpu::VmemReservation<Traits>;
using Mapping = vmr_gpu::VmemMapping<Traits>;
using Block = vmr_gpu::VmemBlock<Traits>;

// MEMORY_TYPE_NONE: ordinary device memory of the pool's grain (the pool decides fine or coarse).
inline Status create(hsa_amd_memory_pool_t pool, size_t size, Handle* mem) {
  mem->reset();
  VMR_HSA_TRY(api.hsa_amd_vmem_handle_create, pool, size, MEMORY_TYPE_NONE, 0, &mem->h);
  mem->valid = true;
  return Status::pass();
}

inline Status reserve(size_t size, Reservation* r) {
  VMR_HSA_TRY(api.hsa_amd_vmem_address_reserve, &r->va, size, 0, 0);
  r->size = size;
  return Status::pass();
}

inline Status map(void* va, size_t size, const Handle& mem, Mapping* m) {
  VMR_HSA_TRY(api.hsa_amd_vmem_map, va, size, 0, mem.h, 0);
  m->va = va;
  m->size = size;
  return Status::pass();
}

// Read-write access for every agent listed on [va, va + size).
inline Status set_access(void* va, size_t size, const std::vector<hsa_agent_t>& agents) {
  std::vector<hsa_amd_memory_access_desc_t> desc;
  for (hsa_agent_t a : agents) {
    bool listed = false;
    for (const auto& d : desc) listed = listed || d.agent_handle.handle == a.handle;
    if (!listed) desc.push_back({HSA_ACCESS_PERMISSION_RW, a});
  }
  VMR_HSA_TRY(api.hsa_amd_vmem_set_access, va, size, desc.data(), desc.size());
  return Status::pass();
}

inline Status export_fd(const Handle& mem, vmr::UniqueFd* fd) {
  int raw = -1;
  VMR_HSA_TRY(api.hsa_amd_vmem_export_shareable_handle, &raw, mem.h, 0);
  fd->reset(raw);
  return Status::pass();
}

// HSA takes the dma-buf fd by value.
inline Status import_fd(int fd, Handle* mem) {
  mem->reset();
  VMR_HSA_TRY(api.hsa_amd_vmem_import_shareable_handle, fd, &mem->h);
  mem->valid = true;
  return Status::pass();
}

// Peer side: the owner's memory imported from its fd and mapped into our VA range (reserved here unless the block
// already has one, as on re-import), accessible to our agent.
inline Status import_block(hsa_agent_t agent, int fd, size_t size, Block* b) {
  VMR_TRY(import_fd(fd, &b->mem));
  if (!b->range.va) VMR_TRY(reserve(size, &b->range));
  VMR_TRY(map(b->range.va, size, b->mem, &b->map));
  return set_access(b->range.va, size, {agent});
}

}  // namespace vmr_hsa

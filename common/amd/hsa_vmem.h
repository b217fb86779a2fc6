// HSA virtual memory (hsa_amd_vmem_*, ROCm >= 6.0), one call per function through the run-time table of
// amd/hsa_api.h, and the owners of what each call creates, so that every handle, mapping and reservation is
// released on every path. The same vocabulary as vmr_hip (amd/hip_vmem.h) and vmr_cuda (cuda/cuda_vmem.h):
// Handle, Reservation, Mapping, Block; a Vmem whose create, reserve, map, set_access, grant_own, export_fd and
// import_fd the cases and gpu/vmem_share.h call.
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
  void release(handle_type h) const { (void)api.hsa_amd_vmem_handle_release(h); }
  void unmap(va_type va, size_t size) const { (void)api.hsa_amd_vmem_unmap(va, size); }
  void address_free(va_type va, size_t size) const { (void)api.hsa_amd_vmem_address_free(va, size); }
};
using Handle = vmr_gpu::VmemHandle<Traits>;
using Reservation = vmr_gpu::VmemReservation<Traits>;
using Mapping = vmr_gpu::VmemMapping<Traits>;
using Block = vmr_gpu::VmemBlock<Traits>;

// One rank's HSA calls: the pool it allocates from and its agent bound in, as the cases and the sharing step
// (gpu/vmem_share.h) make them. The grain is fixed at allocation: importers only map, so the exporter's pool
// decides what peers' atomics do.
struct Vmem {
  hsa_amd_memory_pool_t pool{};
  hsa_agent_t agent{};

  // MEMORY_TYPE_NONE: ordinary device memory of the pool's grain (the pool decides fine or coarse).
  Status create(size_t size, Handle* mem) const {
    mem->reset();
    VMR_HSA_TRY(api.hsa_amd_vmem_handle_create, pool, size, MEMORY_TYPE_NONE, 0, &mem->h);
    mem->valid = true;
    return Status::pass();
  }

  Status reserve(size_t size, Reservation* r) const {
    VMR_HSA_TRY(api.hsa_amd_vmem_address_reserve, &r->va, size, 0, 0);
    r->size = size;
    return Status::pass();
  }

  Status map(void* va, size_t size, const Handle& mem, Mapping* m) const {
    VMR_HSA_TRY(api.hsa_amd_vmem_map, va, size, 0, mem.h, 0);
    m->va = va;
    m->size = size;
    return Status::pass();
  }

  // Read-write access for every agent listed on [va, va + size).
  Status set_access(void* va, size_t size, const std::vector<hsa_agent_t>& agents) const {
    std::vector<hsa_amd_memory_access_desc_t> desc;
    for (hsa_agent_t a : agents) {
      bool listed = false;
      for (const auto& d : desc) listed = listed || d.agent_handle.handle == a.handle;
      if (!listed) desc.push_back({HSA_ACCESS_PERMISSION_RW, a});
    }
    VMR_HSA_TRY(api.hsa_amd_vmem_set_access, va, size, desc.data(), desc.size());
    return Status::pass();
  }
  Status grant_own(void* va, size_t size) const { return set_access(va, size, {agent}); }

  Status export_fd(const Handle& mem, vmr::UniqueFd* fd) const {
    int raw = -1;
    VMR_HSA_TRY(api.hsa_amd_vmem_export_shareable_handle, &raw, mem.h, 0);
    fd->reset(raw);
    return Status::pass();
  }

  // HSA takes the dma-buf fd by value.
  Status import_fd(int fd, Handle* mem) const {
    mem->reset();
    VMR_HSA_TRY(api.hsa_amd_vmem_import_shareable_handle, fd, &mem->h);
    mem->valid = true;
    return Status::pass();
  }
};

}  // namespace vmr_hsa

// The sharing step every two-process VMem case starts with, written once for the three backends: the owner's
// allocate-map-grant-export, and each peer's import-map-grant. `Vmem` is a backend's calls as one rank makes them
// (vmr_hip::Vmem, vmr_hsa::Vmem, vmr_cuda::Vmem: each call one API call, named in its backend's header):
//   create(size, Handle*)  reserve(size, Reservation*)  map(va, size, const Handle&, Mapping*)  grant_own(va, size)
//   export_fd(const Handle&, UniqueFd*)  import_fd(fd, Handle*)
// (gpu_host.h: its kernels, so this header is for the HIP and CUDA sources only)
// Each rank grants only its own device: an owner that also granted its peers' devices would import their P2P
// access in its own process (ROCR rocm-6.2.0 src/core/runtime/runtime.cpp:3213-3231), and a failure there would be
// blamed on the owner instead of on the peer's import.
#pragma once

#include <string>
#include <vector>

#include "gpu/gpu_host.h"
#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

namespace vmr_gpu {

// `size` bytes of the backend's memory, reserved, mapped, accessible to this rank's device.
template <class Vmem, class Block>
vmr::Status map_own(const Vmem& vmem, size_t size, Block* b) {
  VMR_TRY(vmem.create(size, &b->mem));
  VMR_TRY(vmem.reserve(size, &b->range));
  VMR_TRY(vmem.map(b->range.va, size, b->mem, &b->map));
  return vmem.grant_own(b->range.va, size);
}

// Owner: as map_own, exported as an fd.
template <class Vmem, class Block>
vmr::Status allocate_exported(const Vmem& vmem, size_t size, Block* b, vmr::UniqueFd* fd) {
  VMR_TRY(map_own(vmem, size, b));
  return vmem.export_fd(b->mem, fd);
}

// Peer: the owner's memory imported from its fd and mapped into this rank's range (reserved here unless the block
// already has one, as on re-import), accessible to this rank's device.
template <class Vmem, class Block>
vmr::Status import_block(const Vmem& vmem, int fd, size_t size, Block* b) {
  VMR_TRY(vmem.import_fd(fd, &b->mem));
  if (!b->range.va) VMR_TRY(vmem.reserve(size, &b->range));
  VMR_TRY(vmem.map(b->range.va, size, b->mem, &b->map));
  return vmem.grant_own(b->range.va, size);
}

// Owner, as allocate_exported, with the rank's pattern written over it and the checksum its peers' reads must match.
template <class Vmem, class Block>
vmr::Status owner_with_pattern(vmr::RankContext& ctx, const Vmem& vmem, size_t size, Block* own, vmr::UniqueFd* fd,
                               u64* sum) {
  VMR_TRY(allocate_exported(vmem, size, own, fd));
  VMR_TRY(fill_pattern(own->span(), ctx.rank(), "the owner's memory"));
  return checksum(own->span(), sum);
}

// Every rank sends `own_fd` to every other rank, and peers[j] becomes rank j's memory, imported; peers[self] stays
// empty.
template <class Vmem, class Block>
vmr::Status exchange(vmr::RankContext& ctx, const Vmem& vmem, const vmr::UniqueFd& own_fd, size_t size,
                     std::vector<Block>* peers) {
  *peers = std::vector<Block>(ctx.ranks());
  return ctx.mesh().share_fd(
      own_fd.get(), {}, [&](int j, int fd, const std::string&) { return import_block(vmem, fd, size, &(*peers)[j]); });
}

}  // namespace vmr_gpu

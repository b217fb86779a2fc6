// repro_hsa_fine_grained: VMem from the FINE-grained pool through the HSA API - the path that works (seed 000).
//
// hipMemCreate always takes the coarse-grained pool, and system-scope atomics on coarse memory imported by another
// process fault the GPU. Allocating with HSA directly, from the agent's fine-grained pool, is the workaround:
//   owner: hsa_amd_vmem_handle_create(fine pool) -> hsa_amd_vmem_address_reserve -> hsa_amd_vmem_map
//          -> hsa_amd_vmem_set_access (owner and every peer agent) -> hsa_amd_vmem_export_shareable_handle
//   peer:  receive the dma-buf fd (SCM_RIGHTS) -> hsa_amd_vmem_import_shareable_handle -> reserve -> map
//          -> set_access -> kernels read it and add into it at system scope
// The grain is fixed at allocation: importers only map, so the exporter's pool decides what peers' atomics do.
#include <hip/hip_runtime.h>

#include <string>
#include <vector>

#include "amd_rank_info.h"
#include "gpu_host.h"
#include "hsa_vmem_api.h"
#include "repro.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using namespace vmr_gpu;

vmr::HsaVmemApi hsa;  // one rank per process: the table is this rank's
vmr::AmdRank amd;

// --- HSA VMem building blocks: one call each, and the owner of what it creates --------------------------------

struct Handle {
  hsa_amd_vmem_alloc_handle_t h{};
  bool valid = false;
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() {
    if (valid) hsa.hsa_amd_vmem_handle_release(h);
  }
};

struct Reservation {
  void* va = nullptr;
  size_t size = 0;
  Reservation() = default;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() {
    if (va) hsa.hsa_amd_vmem_address_free(va, size);
  }
};

struct Mapping {
  void* va = nullptr;
  size_t size = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (va) hsa.hsa_amd_vmem_unmap(va, size);
  }
};

struct Block {  // destruction order: unmap, release, free the VA
  Reservation range;
  Handle mem;
  Mapping map;
  u64* ptr() const { return static_cast<u64*>(range.va); }
};

Status set_access(void* va, size_t size, const std::vector<hsa_agent_t>& agents) {
  std::vector<hsa_amd_memory_access_desc_t> desc;
  for (hsa_agent_t a : agents) {
    bool listed = false;
    for (const auto& d : desc) listed = listed || d.agent_handle.handle == a.handle;
    if (!listed) desc.push_back({HSA_ACCESS_PERMISSION_RW, a});
  }
  HSA_TRY(hsa.hsa_amd_vmem_set_access, va, size, desc.data(), desc.size());
  return Status::pass();
}

// Owner: fine-grained memory mapped into a VA of ours, accessible to every rank's agent, exported as a dma-buf fd.
Status allocate_exported(const vmr::PoolInfo& pool, size_t size, Block* b, UniqueFd* fd) {
  HSA_TRY(hsa.hsa_amd_vmem_handle_create, pool.pool, size, MEMORY_TYPE_NONE, 0, &b->mem.h);
  b->mem.valid = true;
  HSA_TRY(hsa.hsa_amd_vmem_address_reserve, &b->range.va, size, 0, 0);
  b->range.size = size;
  HSA_TRY(hsa.hsa_amd_vmem_map, b->range.va, size, 0, b->mem.h, 0);
  b->map.va = b->range.va;
  b->map.size = size;
  VMR_TRY(set_access(b->range.va, size, amd.agents));
  int raw = -1;
  HSA_TRY(hsa.hsa_amd_vmem_export_shareable_handle, &raw, b->mem.h, 0);
  fd->reset(raw);
  return Status::pass();
}

// Peer: the owner's memory imported from its fd, mapped into a VA of ours, accessible to our agent.
Status import_block(RankContext& ctx, int fd, size_t size, Block* b) {
  HSA_TRY(hsa.hsa_amd_vmem_import_shareable_handle, fd, &b->mem.h);
  b->mem.valid = true;
  HSA_TRY(hsa.hsa_amd_vmem_address_reserve, &b->range.va, size, 0, 0);
  b->range.size = size;
  HSA_TRY(hsa.hsa_amd_vmem_map, b->range.va, size, 0, b->mem.h, 0);
  b->map.va = b->range.va;
  b->map.size = size;
  return set_access(b->range.va, size, {amd.agents[ctx.rank()]});
}

Status exchange(RankContext& ctx, const UniqueFd& own_fd, size_t size, std::vector<Block>* peers) {
  *peers = std::vector<Block>(ctx.ranks());
  return ctx.mesh().share_fd(own_fd.get(), {}, [&](int j, int fd, const std::string&) {
    return import_block(ctx, fd, size, &(*peers)[j]);
  });
}

// The pool a case allocates from; every rank must have it, else all SKIP with the reason.
enum class Grain { Fine, ExtendedFine };

Status choose_pool(RankContext& ctx, Grain grain, vmr::PoolInfo* pool) {
  const auto& chosen = grain == Grain::Fine ? amd.pools.fine : amd.pools.ext_fine;
  Status mine = Status::pass();
  if (!chosen && grain == Grain::Fine)
    mine = Status::skip("device " + std::to_string(ctx.device()) +
                        " has no FINE_GRAINED global pool: it is visible only in an XGMI hive or with "
                        "HSA_FORCE_FINE_GRAIN_PCIE=1 (pools: " + vmr::describe_pools(amd.pools) + ")");
  if (!chosen && grain == Grain::ExtendedFine)
    mine = Status::skip("device " + std::to_string(ctx.device()) +
                        " has no EXTENDED_SCOPE_FINE_GRAINED pool (needs HSA AMD interface 1.3 and not gfx12)");
  VMR_TRY(ctx.agree(mine));
  *pool = *chosen;
  return Status::pass();
}

Status describe(RankContext& ctx) {
  VMR_TRY(vmr::describe_amd_rank(ctx, &amd));
  VMR_TRY(vmr::load_hsa_vmem_api(&hsa));
  bool vmem = false;
  if (hsa_system_get_info(static_cast<hsa_system_info_t>(vmr::kHsaSystemInfoVirtualMemApiSupported), &vmem) ==
          HSA_STATUS_SUCCESS && !vmem)
    return Status::skip("HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED is false (needs KFD ioctl 1.15 and a libdrm "
                        "with amdgpu_device_get_fd)");
  return Status::pass();
}

// --- cases ---------------------------------------------------------------------------------------------------------

constexpr size_t kReadBytes = size_t(64) << 20;

Status case_read(RankContext& ctx) {
  vmr::PoolInfo pool;
  VMR_TRY(choose_pool(ctx, Grain::Fine, &pool));
  const size_t size = round_up(kReadBytes, pool.granule), n = size / sizeof(u64);
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(pool, size, &own, &fd));
  k_fill_pattern<<<kBlocks, kThreads>>>(own.ptr(), n, u64(ctx.rank()));
  VMR_TRY(finish("k_fill_pattern"));
  u64 own_sum = 0;
  VMR_TRY(checksum(own.ptr(), size, &own_sum));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, fd, size, &peers));
  ctx.phase_done("exchange");
  std::vector<const u64*> peer_ptrs;
  for (const auto& b : peers) peer_ptrs.push_back(b.ptr());
  VMR_TRY(verify_peer_reads(ctx, peer_ptrs, n, own_sum));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass(std::to_string(size >> 20) + " MiB of fine-grained VMem of every rank read exactly by every peer");
}

Status atomics_from(RankContext& ctx, Grain grain, const char* pool_name) {
  vmr::PoolInfo pool;
  VMR_TRY(choose_pool(ctx, grain, &pool));
  AtomicsRound sys, dev;
  const size_t size = round_up(sys.counters * sizeof(u64), pool.granule);  // one granule in practice
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(pool, size, &own, &fd));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, fd, size, &peers));
  std::vector<u64*> peer_ptrs;
  for (const auto& b : peers) peer_ptrs.push_back(b.ptr());
  ctx.phase_done("exchange");

  // System scope drives the verdict; agent scope is information (seed 000).
  VMR_TRY(remote_atomics_round(ctx, own.ptr(), peer_ptrs, true, "system", &sys));
  ctx.phase_done("run");
  if (!sys.mismatch.empty()) return Status::fail(std::string("system-scope atomics on ") + pool_name + " VMem: " + sys.mismatch);
  double slowest = 0;
  VMR_TRY(ctx.max_over_ranks(sys.secs, &slowest));
  ctx.metric("remote_system_atomics_per_s",
             double(ctx.ranks()) * (ctx.ranks() - 1) * kBlocks * kThreads * sys.adds_per_thread / slowest, "ops/s");
  VMR_TRY(remote_atomics_round(ctx, own.ptr(), peer_ptrs, false, "agent", &dev));
  ctx.info("agent_scope_atomics", dev.mismatch.empty() ? "exact" : "not exact: " + dev.mismatch);
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("atomics-done"));
  return Status::pass(std::string("system-scope atomics into ") + pool_name + " VMem exact: " +
                      std::to_string(sys.expect) + " per counter; agent scope " +
                      (dev.mismatch.empty() ? "exact" : "NOT exact"));
}

Status case_atomics(RankContext& ctx) { return atomics_from(ctx, Grain::Fine, "fine-grained"); }
Status case_atomics_ext_fine(RankContext& ctx) {
  return atomics_from(ctx, Grain::ExtendedFine, "extended-scope fine-grained");
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::ReproBinary binary{
      "repro_hsa_fine_grained",
      {"hsa", describe},
      {
          {"read", "every peer reads each owner's fine-grained HSA VMem exactly (pattern and checksum)", case_read},
          {"atomics", "every peer adds into each owner's fine-grained HSA VMem at system scope; exact counts",
           case_atomics},
          {"atomics-ext-fine", "the same from the EXTENDED_SCOPE_FINE_GRAINED pool (what a fixed CLR uses for Uncached)",
           case_atomics_ext_fine},
      }};
  return vmr::repro_main(binary, argc, argv);
}

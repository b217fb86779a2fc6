// repro_hip_vmem_access: the 2026 regressions in how ROCm maps VMem and grants access to it, each a case with its
// CUDA twin in repro_cuda_vmm_access (the same case name and the same steps through the driver API).
//
//   grant-owner-first     one process, two GPUs: the owner's device granted first, another GPU after it, one
//                         hipMemSetAccess per device as XLA's allocator made them; from rocm-systems PR #6471 the
//                         peer's grant migrates the buffer and the owner keeps reading its old pages (rocm-systems
//                         PR #9908; worked around in openxla/xla PR #46576 by granting the owner last)
//   grant-owner-last      the same with the owner's device granted last: the workaround, which must read exactly
//   host-access-imported  hipMemSetAccess with a Host location, on this rank's own handle (the control) and on
//                         every handle it imported; the host then reads the owner's pattern: refused with
//                         hipErrorInvalidValue on imported handles only, on 7.15 nightlies (rocm-systems#11185)
//   imported-properties   hipMemGetAllocationPropertiesFromHandle on an imported handle must describe the owner's
//                         allocation as the owner's own handle does; CLR reports the importer's current device
//                         (hipamd-6.4.3 hip_vm.cpp:236-243; rocm-systems PR #11606)
//   pointer-info-imported hsa_amd_pointer_info on an imported mapping: a null dereference in the importer from
//                         rocm-systems PR #6471, whose imported handles have no region (fixed by PR #11449)
//   map-then-use          200 fresh 64 MiB maps, each written by a kernel right after set-access and checked by the
//                         next, the words that lost their stores counted (rocm-systems#11693: gfx1201, 7.2.1)
//   concurrent-map        threads of one process import, map, grant and read at the same time: ROCr's import took
//                         no lock against map and set-access (rocm-systems PR #3889; ROCm/mori PRs #455, #476)
//   set-access-sizes      allocations of the threads' sizes mapped one after another into one reservation, each
//                         granted on its own (rocm-systems#2516 and #2667; CLR 7.0 to 7.2 sums from the
//                         reservation's first mapping, fixed by PR #2451)
//   host-location         system memory as VMem (a Host location, asked: rocm-systems PRs #8971, #10020), exported
//                         and imported by every peer, which maps it twice: granted to its own GPU and to a second one
//                         (the owner's GPU where it differs, else its own again: the same GPU twice), each mapping
//                         read on the GPU it was granted to; the owner's memory must be system memory as ROCr records
//                         it (PR #10020 fixed Host going to the device allocator). Related, a different path: PR
//                         #10232 (legacy IPC import of system memory, hsa_amd_ipc_memory_attach, mapped on one node)
#include <hip/hip_runtime.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "amd/hip_rank.h"
#include "amd/hip_vmem.h"
#include "gpu/gpu_host.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"
#include "harness/threads.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using namespace vmr_gpu;
using vmr_hip::Block;

constexpr hipMemAllocationType kType = hipMemAllocationTypePinned;

using RankState = vmr_hip::RankState;  // what describe() learns once per rank and every case reads

Status describe(RankContext& ctx, RankState* state) { return vmr_hip::describe_rank(ctx, kType, state); }

// --- cases (line for line as repro/cuda_vmm_access.cu) -----------------------------------------------------------
// twin-begin(access): tests/twins.sh checks that these lines are repro/cuda_vmm_access.cu's cases but for API names.

constexpr size_t kAccessBytes = size_t(4) << 20;

// Each rank's own memory granted to its device and to the next rank's, one call per device in `owner_last`'s
// order. Both GPUs then write and read it through the same VA: a GPU left with stale pages reads what the
// other did not write (a check on one GPU alone would read back its own stale pages and pass).
Status grant_in_order(RankContext& ctx, const RankState& state, bool owner_last) {
  const int other = ctx.devices()[(ctx.rank() + 1) % ctx.ranks()];
  VMR_TRY(ctx.agree(other != ctx.device()
                        ? Status::pass()
                        : Status::skip("needs two different GPUs in --devices (each rank grants its own and the "
                                       "next rank's): only another GPU's attach of the memory moves it")));
  bool reachable = false;
  VMR_TRY(state.hip.peer_can_access(other, &reachable));
  VMR_TRY(ctx.agree(reachable ? Status::pass()
                              : Status::skip("GPU " + std::to_string(other) + " cannot access GPU " +
                                             std::to_string(ctx.device()) + "'s memory (no peer access)")));
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  VMR_TRY(state.hip.create(size, &own.mem));
  VMR_TRY(state.hip.reserve(size, &own.range));
  VMR_TRY(state.hip.map(own.range.va, size, own.mem, &own.map));
  const std::vector<int> order =
      owner_last ? std::vector<int>{other, ctx.device()} : std::vector<int>{ctx.device(), other};
  for (int d : order) VMR_TRY(state.hip.set_access(own.range.va, size, {d}));
  const std::string granted = "granted GPU " + std::to_string(order[0]) + ", then GPU " + std::to_string(order[1]);
  ctx.phase_done("setup");
  const int by_owner = ctx.rank(), by_other = ctx.ranks() + ctx.rank();  // two patterns no rank writes elsewhere
  VMR_TRY(fill_pattern(own.span(), by_owner, "the owner's memory"));
  {
    VMR_TRY(state.hip.use_device(other));
    vmr::ScopeExit back([&] { (void)state.hip.use_device(ctx.device()); });
    VMR_TRY(verify_pattern(own.span(), by_owner,
                           "GPU " + std::to_string(other) + " reading what the owner wrote (" + granted + ")"));
    VMR_TRY(fill_pattern(own.span(), by_other, "the owner's memory from GPU " + std::to_string(other)));
  }
  VMR_TRY(state.hip.use_device(ctx.device()));
  VMR_TRY(verify_pattern(own.span(), by_other,
                         "the owner reading what GPU " + std::to_string(other) + " wrote (" + granted + ")"));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("verified"));
  return Status::pass("each GPU read exactly what the other wrote through the owner's VA, " + granted);
}

Status case_grant_owner_first(RankContext& ctx, const RankState& state) { return grant_in_order(ctx, state, false); }
Status case_grant_owner_last(RankContext& ctx, const RankState& state) { return grant_in_order(ctx, state, true); }

Status case_host_access_imported(RankContext& ctx, const RankState& state) {
  VMR_TRY(ctx.agree(state.host_access_support()));
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.hip, size, &own, &fd));
  VMR_TRY(fill_pattern(own.span(), ctx.rank(), "the owner's memory"));
  // The control: a runtime that grants the host no access to device memory at all cannot show the regression.
  const Status local = state.hip.grant_host(own.range.va, size);
  VMR_TRY(ctx.agree(
      local.ok() ? Status::pass()
                 : Status::skip("no host access to device memory, not even on a local handle: " + local.detail)));
  VMR_TRY(host_verify_pattern(own.span(), ctx.rank(), "the host reading its own rank's memory"));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, fd, size, &peers));
  ctx.phase_done("exchange");
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    const Status imported = state.hip.grant_host(peers[j].range.va, size);
    if (!imported.ok())
      return Status::fail("host access to rank " + std::to_string(j) + "'s imported handle: " + imported.detail +
                          " (the same call on this rank's own handle succeeded)");
    VMR_TRY(
        host_verify_pattern(peers[j].span(), j, "the host reading rank " + std::to_string(j) + "'s imported memory"));
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass("host access granted on local and imported handles; the host read every owner's pattern exactly");
}

// Only the type and location are compared: what else an imported handle gets wrong (its size, rocm-systems PR
// #11606) stays inside the runtime (no property has a size), and the handle types are no property an import keeps
// (common/gpu/allocation_facts.h).
Status case_imported_properties(RankContext& ctx, const RankState& state) {
  // An owner on another GPU: the only way a wrong location id can show. Said first: the expected table reads it.
  bool other_gpu = false;
  for (int j = 0; j < ctx.ranks(); ++j) other_gpu = other_gpu || ctx.devices()[j] != ctx.device();
  ctx.info("owners_on_other_gpus", other_gpu ? "yes" : "no");
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.hip, size, &own, &fd));
  AllocationFacts mine;
  VMR_TRY(state.hip.properties(own.mem, &mine));
  std::vector<std::string> owners;
  VMR_TRY(ctx.mesh().all_gather(mine.placement(), &owners));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, fd, size, &peers));
  ctx.phase_done("exchange");
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    AllocationFacts theirs;
    VMR_TRY(state.hip.properties(peers[j].mem, &theirs));
    ctx.info("imported_handle_types_" + std::to_string(j), std::to_string(theirs.handle_types));
    if (theirs.placement() != owners[j])
      return Status::fail("hipMemGetAllocationPropertiesFromHandle on rank " + std::to_string(j) +
                          "'s imported handle says " + theirs.placement() +
                          "; on the owner's own handle: " + owners[j]);
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("asked"));
  return Status::pass("every imported handle describes its owner's allocation as the owner's handle does (" +
                      owners[ctx.rank()] + ")");
}

// ROCr's pointer query on an imported mapping: from rocm-systems PR #6471 an imported handle has no region, and
// hsa_amd_pointer_info read its owner through it (a null dereference in the importer; PR #11449).
Status case_pointer_info_imported(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.hip, size, &own, &fd));
  std::string mine;
  VMR_TRY(state.hip.pointer_query(own.range.va, &mine));
  ctx.info("pointer_query_own", mine);
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, fd, size, &peers));
  ctx.phase_done("exchange");
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    std::string theirs;
    VMR_TRY(state.hip.pointer_query(peers[j].range.va, &theirs));
    ctx.info("pointer_query_imported_" + std::to_string(j), theirs);
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("asked"));
  return Status::pass("the pointer query answered for this rank's own mapping (" + mine + ") and every imported one");
}

// The thread's reproducer: 200 fresh 64 MiB maps, each written by one kernel right after set-access and checked by
// the next.
constexpr int kFreshMaps = 200;
constexpr size_t kFreshMapBytes = size_t(64) << 20;

Status case_map_then_use(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kFreshMapBytes).bytes;
  ctx.phase_done("setup");
  int bad_maps = 0, first_bad_map = -1;
  u64 bad_words = 0;
  PatternCounter counter;  // one pair of result cells for every round
  VMR_TRY(counter.prepare());
  for (int i = 0; i < kFreshMaps; ++i) {
    Block b;
    VMR_TRY(state.hip.create(size, &b.mem));
    VMR_TRY(state.hip.reserve(size, &b.range));
    VMR_TRY(state.hip.map(b.range.va, size, b.mem, &b.map));
    VMR_TRY(state.hip.grant_own(b.range.va, size));
    VMR_TRY(start_fill_pattern(b.span(), i));  // at once: no delay after the grant
    // The count follows the fill in stream order, so one wait covers both: each wait for the device costs a time
    // slice when other processes share the GPU (a triage's other binaries).
    u64 bad = 0, first = 0;
    const std::string waited = "k_fill_pattern and k_verify_pattern on fresh map " + std::to_string(i);
    VMR_TRY(counter.count(b.span(), i, &bad, &first, waited.c_str()));
    if (bad == 0) continue;
    bad_words += bad;
    if (bad_maps++ == 0) first_bad_map = i;
  }
  ctx.phase_done("run");
  ctx.info("fresh_maps_corrupted", std::to_string(bad_maps) + " of " + std::to_string(kFreshMaps));
  VMR_TRY(ctx.mesh().barrier("used"));
  if (bad_maps)
    return Status::fail(std::to_string(bad_maps) + " of " + std::to_string(kFreshMaps) +
                        " fresh maps used at once lost stores: " + std::to_string(bad_words) +
                        " words differ from what the kernel wrote, first in map " + std::to_string(first_bad_map));
  return Status::pass(std::to_string(kFreshMaps) + " fresh maps of " + std::to_string(size >> 20) +
                      " MiB, each written by a kernel right after set-access, all read back exactly");
}

// Each thread imports its own one of the previous rank's allocations again and again, and maps, grants and reads
// it, while the other threads do the same: imports racing maps and set-access (ROCm/mori PR #476).
constexpr int kMapThreads = 8, kRoundsPerThread = 8;

Status import_rounds(const RankState& state, int fd, size_t size, int owner_tag) {
  VMR_TRY(state.hip.use_device(state.hip.device));
  for (int round = 0; round < kRoundsPerThread; ++round) {
    Block b;
    VMR_TRY(import_block(state.hip, fd, size, &b));
    VMR_TRY(verify_pattern(b.span(), owner_tag, "round " + std::to_string(round)));
  }
  return Status::pass();
}

Status case_concurrent_map(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  const int from = (ctx.rank() + ctx.ranks() - 1) % ctx.ranks();
  std::vector<Block> own(kMapThreads);
  std::vector<UniqueFd> received(kMapThreads);  // the previous rank's allocations, one per thread
  for (int t = 0; t < kMapThreads; ++t) {
    UniqueFd fd;
    VMR_TRY(allocate_exported(state.hip, size, &own[t], &fd));
    VMR_TRY(fill_pattern(own[t].span(), ctx.rank() * kMapThreads + t, "allocation " + std::to_string(t)));
    VMR_TRY(ctx.mesh().share_fd(fd.get(), {}, [&](int j, int peer_fd, const std::string&) {
      if (j != from) return Status::pass();
      received[t].reset(::dup(peer_fd));
      return received[t].valid() ? Status::pass() : Status::harness(vmr::errno_text("dup of the received fd"));
    }));
  }
  ctx.phase_done("setup");
  const Status rounds = vmr::on_threads(
      kMapThreads, [&](int t) { return import_rounds(state, received[t].get(), size, from * kMapThreads + t); });
  ctx.phase_done("run");
  VMR_TRY(ctx.agree(rounds));
  return Status::pass(std::to_string(kMapThreads) + " threads at once, each importing, mapping, granting and reading " +
                      "rank " + std::to_string(from) + "'s memory " + std::to_string(kRoundsPerThread) +
                      " times: every word exact");
}

// Allocations mapped one after another into one reservation and each granted on its own, not from the
// reservation's base, as a growing pool does: the sizes of rocm-systems#2516 (PR #2568's test) and of #2667.
const std::vector<std::vector<size_t>> kSizeSeries = {{2379776, 7864320, 6533120}, {4096, 8192, 16384}};

Status grant_series(const RankState& state, const std::vector<size_t>& wanted, std::string* done) {
  std::vector<size_t> sizes;
  size_t total = 0;
  for (size_t w : wanted) total += sizes.emplace_back(round_up(w, state.granule));
  vmr_hip::Reservation range;  // declared first: freed after every mapping and handle
  std::vector<vmr_hip::Handle> mems(sizes.size());
  std::vector<vmr_hip::Mapping> maps(sizes.size());
  VMR_TRY(state.hip.reserve(total, &range));
  size_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    VMR_TRY(state.hip.create(sizes[i], &mems[i]));
    VMR_TRY(state.hip.map(range.at(offset), sizes[i], mems[i], &maps[i]));
    const Status granted = state.hip.grant_own(range.at(offset), sizes[i]);
    if (!granted.ok())
      return {granted.verdict, "mapping " + std::to_string(i + 1) + " of " + std::to_string(sizes.size()) + " (" +
                                   std::to_string(sizes[i]) + " bytes at offset " + std::to_string(offset) +
                                   " of one reservation): " + granted.detail};
    VMR_TRY(write_and_check(maps[i].span(), int(i),
                            std::to_string(sizes[i]) + " bytes at offset " + std::to_string(offset)));
    offset += sizes[i];
  }
  std::vector<std::string> listed;
  for (size_t s : sizes) listed.push_back(std::to_string(s));
  *done = vmr::join(listed, " + ");
  return Status::pass();
}

Status case_set_access_sizes(RankContext& ctx, const RankState& state) {
  ctx.phase_done("setup");
  std::vector<std::string> series;
  for (const auto& wanted : kSizeSeries) {
    std::string done;
    VMR_TRY(grant_series(state, wanted, &done));
    series.push_back(done);
  }
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("granted"));
  return Status::pass("each mapping granted on its own and written and read whole, in reservations of " +
                      vmr::join(series, " and ") + " bytes");
}

// twin-end(access)

// The GPU a peer maps the imported system memory on a second time: the first rank's device that differs from this
// rank's (two GPUs), else this rank's own (the same GPU twice).
int second_gpu(const RankContext& ctx) {
  for (int d : ctx.devices())
    if (d != ctx.device()) return d;
  return ctx.device();
}

// Asked, never gated on a version (amd_rules.h host_location_build, host_location_refusal): a build whose headers
// name no Host location SKIPs saying so; a runtime that refuses the location (the granularity query or hipMemCreate)
// SKIPs with its answer; any other failure is the case's. What the memory is, ROCr's record of the handle's pool says
// (host_location_backing): device memory is a FAIL, no answer a fact saying it is not proven.
Status case_host_location(RankContext& ctx, const RankState& state) {
  ctx.info("host_location_header", std::string(vmr_hip::kHeaderNamesLocationHost ? "names" : "does not name") +
                                       " hipMemLocationTypeHost (HIP_VERSION " + std::to_string(HIP_VERSION) + ")");
  VMR_TRY(ctx.agree(vmr_amd::host_location_build(vmr_hip::kHeaderNamesLocationHost, HIP_VERSION)));
  vmr_hip::Vmem host = state.hip;
  host.host_location = true;
  size_t granule = 0;
  VMR_TRY(ctx.agree(vmr_amd::host_location_refusal(vmr_hip::granularity(ctx.device(), host.type, &granule, true))));
  ctx.info("host_location_granularity", std::to_string(granule));
  const size_t size = read_plan(granule, kAccessBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(ctx.agree(vmr_amd::host_location_refusal(host.create(size, &own.mem))));
  VMR_TRY(host.reserve(size, &own.range));
  VMR_TRY(host.map(own.range.va, size, own.mem, &own.map));
  VMR_TRY(host.grant_own(own.range.va, size));
  std::string why, backing;
  const Status system_memory = vmr_amd::host_location_backing(host.pool_location(own.range.va, &why), why, &backing);
  ctx.info("host_location_backing", backing);
  VMR_TRY(ctx.agree(system_memory));
  VMR_TRY(host.export_fd(own.mem, &fd));
  VMR_TRY(write_and_check(own.span(), ctx.rank(), "the owner's system memory, on its own GPU"));
  u64 own_sum = 0;
  VMR_TRY(checksum(own.span(), &own_sum));
  ctx.phase_done("setup");
  std::vector<Block> peers;  // mapped and granted on this rank's GPU
  VMR_TRY(exchange(ctx, state.hip, fd, size, &peers));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  // The second mapping of each import, granted to the second GPU only and read by a kernel there.
  const int second = second_gpu(ctx);
  vmr_hip::Vmem there = state.hip;
  there.device = second;
  vmr::ScopeExit back([&] { (void)state.hip.use_device(ctx.device()); });
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    Block again;
    VMR_TRY(state.hip.reserve(size, &again.range));
    VMR_TRY(state.hip.map(again.range.va, size, peers[j].mem, &again.map));
    VMR_TRY(there.grant_own(again.range.va, size));
    VMR_TRY(there.use_device(second));
    VMR_TRY(verify_pattern(again.span(), j,
                           "GPU " + std::to_string(second) + " reading rank " + std::to_string(j) +
                               "'s system memory through a second mapping of its import"));
    VMR_TRY(state.hip.use_device(ctx.device()));
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass("every owner's Host-location memory read exactly by every peer on GPU " +
                      std::to_string(ctx.device()) + " and, through a second mapping, on GPU " +
                      std::to_string(second) + (second == ctx.device() ? " (the same GPU twice)" : "") + "; this " +
                      "rank's: " + backing);
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      "repro_hip_vmem_access",
      "hip",
      describe,
      {
          {"grant-owner-first", "own memory granted to its GPU, then to another; each GPU reads what the other wrote",
           case_grant_owner_first},
          {"grant-owner-last", "the same, the owner's GPU granted last (XLA's workaround)", case_grant_owner_last},
          {"host-access-imported",
           "hipMemSetAccess with a Host location on a local, then an imported handle; the "
           "host reads the pattern",
           case_host_access_imported},
          {"imported-properties", "an imported handle's allocation type and location match the owner's handle's",
           case_imported_properties},
          {"pointer-info-imported", "the runtime's pointer query on this rank's own and on every imported mapping",
           case_pointer_info_imported},
          {"map-then-use",
           "200 fresh 64 MiB maps, each written by a kernel right after set-access; lost stores counted",
           case_map_then_use},
          {"concurrent-map", "8 threads import, map, set access and read the previous rank's memory at the same time",
           case_concurrent_map},
          {"set-access-sizes", "set-access over allocations of sizes that are not powers of two, all kept",
           case_set_access_sizes},
          {"host-location", "system memory as VMem, imported by every peer and read on two GPUs (or one GPU twice)",
           case_host_location},
      },
      vmr_amd::count_devices};
  return vmr::repro_main(binary, argc, argv);
}

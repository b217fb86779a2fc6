// repro_pow2_remap: the VA life cycle of iris's power-of-two VMem allocator on HIP (seed 001).
//
// One VA reservation holds power-of-two blocks, each backed by its own hipMemCreate memory. Freeing a block and
// reusing it means new physical memory at the same VA. What works on ROCm, and what does not:
//   remap                renew at reuse time: unmap + release the old memory, create + map new memory at the same
//                        VA, then hipMemSetAccess from the BASE over the cumulative mapped size        (works)
//   set-access-subrange  hipMemSetAccess on a whole block of 2 granules behind one of 1: ROCm 7.x compares the size
//                        with running sums of the reservation's mapping sizes and answers hipErrorInvalidValue
//                        when no sum fits (rocm-systems#2667, in some reservations only: the case tries 8)
//   set-access-hole      release memory at free time, leaving a hole, then set access from the base over the
//                        whole range: rejected - why the allocator renews memory at reuse time instead
//   peer-reimport        a peer holding the old mapping sees a new generation, drops the stale mapping,
//                        imports the new fd, maps, sets access; its adds must land in the new memory exactly
#include <hip/hip_runtime.h>

#include <array>
#include <string>
#include <vector>

#include "amd/hip_rank.h"
#include "amd/hip_vmem.h"
#include "gpu/gpu_host.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using namespace vmr_gpu;
using vmr_hip::Block;
using vmr_hip::Handle;
using vmr_hip::Mapping;
using vmr_hip::Reservation;

constexpr hipMemAllocationType kType = hipMemAllocationTypePinned;

using RankState = vmr_hip::RankState;  // what describe() learns once per rank and every case reads

Status describe(RankContext& ctx, RankState* state) { return vmr_hip::describe_rank(ctx, kType, state); }

// After hipMemSetAccess over a hole returned hipSuccess: the CUDA twin asks the driver's record of the access
// first (cuMemGetAccess). Here no step: ROCm refuses the call itself (hipErrorInvalidValue, expected/verdicts.md),
// and hipMemGetAccess's answer on a range with a hole is not read against the ROCm sources, so the writes decide.
Status blocks_beside_hole_granted(const RankState&, const Reservation&, size_t, int) { return Status::pass(); }

// --- cases (line for line as the pow2 cases of repro/cuda_vmm.cu) --------------------------------------------------
// twin-begin(pow2): tests/twins.sh checks that these lines are repro/cuda_vmm.cu's pow2 cases but for API names.

constexpr int kPow2Blocks = 4;

Status case_remap(RankContext& ctx, const RankState& state) {
  const size_t g = pow2_block_plan(state.granule).bytes;  // one block: one granule
  Reservation range;
  VMR_TRY(state.hip.reserve(kPow2Blocks * g, &range));
  Handle mem[kPow2Blocks];
  Mapping maps[kPow2Blocks];
  for (int b = 0; b < kPow2Blocks; ++b) {
    VMR_TRY(state.hip.create(g, &mem[b]));
    VMR_TRY(state.hip.map(range.at(b * g), g, mem[b], &maps[b]));
    VMR_TRY(state.hip.set_access(range.va, (b + 1) * g, {ctx.device()}));  // base VA, cumulative size
    VMR_TRY(write_and_check(maps[b].span(), b, "block " + std::to_string(b)));
  }
  ctx.phase_done("setup");

  const int reused = 2;
  VMR_TRY(state.hip.unmap(&maps[reused]));  // checked: new memory goes at this VA next
  mem[reused].reset();
  VMR_TRY(state.hip.create(g, &mem[reused]));
  VMR_TRY(state.hip.map(range.at(reused * g), g, mem[reused], &maps[reused]));
  VMR_TRY(state.hip.set_access(range.va, range.size, {ctx.device()}));
  ctx.phase_done("run");
  VMR_TRY(write_and_check(maps[reused].span(), 100 + ctx.rank(), "remapped block"));
  for (int b = 0; b < kPow2Blocks; ++b)
    if (b != reused) VMR_TRY(verify_pattern(maps[b].span(), b, "untouched block " + std::to_string(b)));
  ctx.phase_done("verify");
  return Status::pass(
      "block 2 of 4 renewed at the same VA (unmap, release, create, map, hipMemSetAccess from the "
      "base over the cumulative size); new data exact, other blocks intact");
}

// Blocks of unequal size, g then 2g: the sub-range (base + g, 2g) is one whole mapping whose size differs from the
// first. ROCm 7.x checks a hipMemSetAccess size against running sums of the reservation's mapping sizes, walked in
// an order that depends on where the runtime's objects lie (rocm-systems#2667: one reservation passes, the next
// does not), so the case keeps kSubrangeTries reservations alive at once and counts the refusals.
constexpr int kSubrangeTries = 8;

struct SubrangeTry {  // members in this order: destruction unmaps, releases, then frees the VA
  Reservation range;
  Handle mem[2];
  Mapping maps[2];
};

Status case_set_access_subrange(RankContext& ctx, const RankState& state) {
  const size_t g = state.granule, g2 = subrange_second_block_plan(g).bytes;
  std::array<SubrangeTry, kSubrangeTries> tries;
  std::vector<std::string> refused;
  std::string first_refusal;
  for (int t = 0; t < kSubrangeTries; ++t) {
    SubrangeTry& s = tries[t];
    VMR_TRY(state.hip.reserve(g + g2, &s.range));
    VMR_TRY(state.hip.create(g, &s.mem[0]));
    VMR_TRY(state.hip.map(s.range.va, g, s.mem[0], &s.maps[0]));
    VMR_TRY(state.hip.set_access(s.range.va, g, {ctx.device()}));
    VMR_TRY(state.hip.create(g2, &s.mem[1]));
    VMR_TRY(state.hip.map(s.range.at(g), g2, s.mem[1], &s.maps[1]));
    Status subrange = state.hip.set_access(s.range.at(g), g2, {ctx.device()});
    if (!subrange.ok()) {
      refused.push_back(std::to_string(t + 1));
      if (first_refusal.empty()) first_refusal = subrange.detail;
      continue;
    }
    VMR_TRY(write_and_check(s.maps[1].span(), 7, "the sub-range block of reservation " + std::to_string(t + 1)));
  }
  ctx.phase_done("run");
  if (!refused.empty())
    return Status::fail("hipMemSetAccess(base + granule, 2 granules) on the second block refused in " +
                        std::to_string(refused.size()) + " of " + std::to_string(kSubrangeTries) + " reservations (" +
                        vmr::join(refused, ",") + "): " + first_refusal);
  return Status::pass("hipMemSetAccess(base + granule, 2 granules) accepted in each of " +
                      std::to_string(kSubrangeTries) + " reservations alive at once; every block reads back exactly");
}

Status case_set_access_hole(RankContext& ctx, const RankState& state) {
  const size_t g = pow2_block_plan(state.granule).bytes;
  Reservation range;
  VMR_TRY(state.hip.reserve(3 * g, &range));
  Handle mem[2];
  Mapping maps[2];
  VMR_TRY(state.hip.create(g, &mem[0]));
  VMR_TRY(state.hip.map(range.va, g, mem[0], &maps[0]));
  VMR_TRY(state.hip.create(g, &mem[1]));
  VMR_TRY(state.hip.map(range.at(2 * g), g, mem[1], &maps[1]));  // the middle granule stays unmapped: a hole
  ctx.phase_done("setup");
  Status whole = state.hip.set_access(range.va, 3 * g, {ctx.device()});
  if (!whole.ok())
    return Status::fail("hipMemSetAccess(base, 3 granules) over a range whose middle granule is unmapped: " +
                        whole.detail);
  ctx.phase_done("run");
  // Accepted: the driver's own record of the access first, then both mapped blocks must really be usable.
  VMR_TRY(blocks_beside_hole_granted(state, range, g, ctx.device()));
  for (int m : {0, 1}) {
    const int b = 2 * m;  // blocks 0 and 2 of the range
    Status usable = write_and_check(maps[m].span(), b, "block " + std::to_string(b) + " beside the hole");
    if (!usable.ok())
      return Status::fail("hipMemSetAccess(base, 3 granules, middle one unmapped) returned hipSuccess, but block " +
                          std::to_string(b) + " is not accessible: " + usable.detail);
  }
  ctx.phase_done("verify");
  return Status::pass("hipMemSetAccess accepted a range with an unmapped hole; both mapped blocks read back exactly");
}

// The owner renews its block and bumps a generation; every peer notices, drops its stale mapping, imports the new
// fd, maps, sets access, and its adds must land in the owner's new memory exactly. Agent-scope adds: system-scope
// atomics on hipMemCreate memory are the fault repro_hip_vmem_pinned shows; this case isolates the life cycle.
constexpr u64 kCounters = 1024, kAddsPerThread = 64;

Status case_peer_reimport(RankContext& ctx, const RankState& state) {
  const size_t size = peer_reimport_plan(state.granule, kCounters).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.hip, size, &own, &fd));
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, fd, size, &peers));
  VMR_TRY(ctx.mesh().barrier("generation-1"));
  ctx.phase_done("setup");

  // Generation 2: the owner renews its block at the same VA and stamps word 0 with the generation.
  const u64 generation = 2;
  VMR_TRY(state.hip.unmap(&own.map));  // checked: new memory goes at this VA next
  own.mem.reset();
  VMR_TRY(state.hip.create(size, &own.mem));
  VMR_TRY(state.hip.map(own.range.va, size, own.mem, &own.map));
  VMR_TRY(state.hip.set_access(own.range.va, size, {ctx.device()}));
  VMR_TRY(zero_words(own.span(), 0, own.span().words));
  VMR_TRY(store_word(own.span(), 0, generation));
  VMR_TRY(state.hip.export_fd(own.mem, &fd));
  const std::string announced = "generation " + std::to_string(generation);
  VMR_TRY(ctx.mesh().share_fd(fd.get(), announced, [&](int j, int peer_fd, const std::string& note) {
    if (note != announced) return Status::harness("rank " + std::to_string(j) + " announced '" + note + "'");
    VMR_TRY(state.hip.unmap(&peers[j].map));  // the stale mapping goes (checked); the VA range stays ours
    VMR_TRY(import_block(state.hip, peer_fd, size, &peers[j]));
    // The new mapping must show the owner's stamp: a bounded wait, never a hung GPU.
    return wait_for_stamp(peers[j].span(), generation, "rank " + std::to_string(j) + "'s");
  }));
  VMR_TRY(ctx.mesh().barrier("reimported"));
  ctx.phase_done("exchange");

  for (int j = 0; j < ctx.ranks(); ++j)
    // twin-differs-next: agent scope here (system-scope atomics on hipMemCreate memory fault: repro_hip_vmem_pinned)
    if (j != ctx.rank()) VMR_TRY(add_into(peers[j].span(), 1, kCounters, kAddsPerThread, false));
  // twin-differs-next: the kernel of that scope
  VMR_TRY(finish("k_atomic_add_device into re-imported peer memory"));
  VMR_TRY(ctx.mesh().barrier("added"));
  ctx.phase_done("run");
  const u64 expect = expected_count(ctx.ranks() - 1, kAddsPerThread, kCounters);
  VMR_TRY(check_stamp_and_counters(own.span(), generation, kCounters, expect));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("verified"));
  return Status::pass(
      // twin-differs-next: says which scope
      "peers re-imported generation 2 at the same VA; their agent-scope adds reached the new "
      "memory exactly (" +
      std::to_string(expect) + " per counter)");
}

// twin-end(pow2)

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      "repro_pow2_remap",
      "hip",
      describe,
      {
          {"remap", "renew a block at the same VA, set access from the base over the cumulative size; data exact",
           case_remap},
          {"set-access-subrange",
           "hipMemSetAccess(base + g, 2g) on a second block twice the first's size (ROCm 7.0 to 7.2 reject it)",
           case_set_access_subrange},
          {"set-access-hole", "hipMemSetAccess from the base over a range with an unmapped hole", case_set_access_hole},
          {"peer-reimport", "owner renews its block, bumps the generation; peers re-import; adds land exactly",
           case_peer_reimport},
      },
      vmr_amd::count_devices};
  return vmr::repro_main(binary, argc, argv);
}

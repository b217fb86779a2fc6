// repro_cuda_vmm: the CUDA driver-API reference of the scenarios the ROCm reproducers run.
//
// Every rank owns VMem memory and is a peer of every other rank's:
//   owner: cuMemCreate (pinned, POSIX-fd handle type) -> cuMemAddressReserve -> cuMemMap
//          -> cuMemSetAccess (its own device) -> cuMemExportToShareableHandle
//   peer:  receive the fd (SCM_RIGHTS) -> cuMemImportFromShareableHandle -> reserve -> map -> set access
// then reads, system-scope atomics, and the power-of-two allocator's remap life cycle. A ROCm bug report is
// stronger when the same scenario, written the same way, passes here.
#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda/cuda_api.h"
#include "cuda/cuda_memory_meter.h"
#include "cuda/cuda_peer_bandwidth.h"
#include "cuda/cuda_rank.h"
#include "cuda/cuda_vmem.h"
#include "gpu/gpu_host.h"
#include "gpu/size_rounds.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"
#include "harness/open_fds.h"
#include "harness/read_direction.h"
#include "harness/text.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using namespace vmr_gpu;  // the shared kernels and host helpers: k_*, read_words, verify_pattern, ...
using vmr_cuda::api;
using vmr_cuda::Block;
using vmr_cuda::Handle;
using vmr_cuda::Mapping;
using vmr_cuda::MemoryMeter;
using vmr_cuda::peer_read_bandwidth;
using vmr_cuda::Reservation;

using RankState = vmr_cuda::RankState;  // what describe() learns once per rank and every case reads

Status describe(RankContext& ctx, RankState* state) { return vmr_cuda::describe_rank(ctx, state); }

// --- cases -----------------------------------------------------------------------------------------------------

constexpr size_t kReadBytes = size_t(256) << 20;

Status case_read(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kReadBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.cuda, size, &own, &fd));
  VMR_TRY(fill_pattern(own.span(), ctx.rank(), "the owner's memory"));
  u64 own_sum = 0;
  VMR_TRY(checksum(own.span(), &own_sum));
  ctx.phase_done("setup");

  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  ctx.phase_done("exchange");

  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  ctx.phase_done("verify");

  VMR_TRY(peer_read_bandwidth(ctx, spans_of(peers), size));  // one rank at a time: each figure one direction's
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("read-done"));  // owners keep their memory until every peer is done
  return Status::pass(std::to_string(size >> 20) +
                      " MiB of every rank read exactly by every peer (pattern and checksum)");
}

Status case_atomics(RankContext& ctx, const RankState& state) {
  AtomicsRound sys, dev;
  const size_t size = atomics_plan(state.granule, AtomicsRound::kCounters).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.cuda, size, &own, &fd));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  ctx.phase_done("exchange");

  // System scope drives the verdict.
  VMR_TRY(remote_atomics_round(ctx, own.span(), spans_of(peers), true, "system", &sys));
  ctx.phase_done("run");
  if (!sys.mismatch.empty()) return Status::fail("system-scope atomics: " + sys.mismatch);

  // Device scope: information only (over NVLink with native P2P atomics it is expected exact too).
  VMR_TRY(remote_atomics_round(ctx, own.span(), spans_of(peers), false, "device", &dev));
  ctx.info("device_scope_atomics", dev.mismatch.empty() ? "exact" : "not exact: " + dev.mismatch);
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("atomics-done"));
  return Status::pass("system scope: each of " + std::to_string(sys.counters) + " counters per rank holds exactly " +
                      std::to_string(sys.expect) + " (" + std::to_string(ctx.ranks() - 1) + " peers x " +
                      std::to_string(kBlocks * kThreads) + " threads x " + std::to_string(sys.adds_per_thread) +
                      " adds / counters); device scope " + (dev.mismatch.empty() ? "exact" : "NOT exact"));
}

// --- sizes past 2^31 and 2^32 bytes (gpu/size_plans.h size_sweep_plan; rocm-systems#4114, iris#532) ---------------

// One step of the sweep: the owner's step.plan.bytes exported, imported and mapped by every peer, read whole
// (pattern and checksum), the probe words either side of 2^31 and 2^32 bytes read and written back across the
// processes, and system-scope atomics across the highest boundary inside. Every failure names the step.
Status sweep_step(RankContext& ctx, const RankState& state, const SizeStep& step) {
  const size_t size = step.plan.bytes;
  const std::string problem = plan_problem(step.plan, state.granule);
  if (!problem.empty()) return Status::harness("suite bug: the " + step.label + " step's plan: " + problem);
  Block own;
  UniqueFd fd;
  u64 own_sum = 0;
  VMR_TRY(owner_with_pattern(ctx, state.cuda, size, &own, &fd, &own_sum));
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  VMR_TRY(probe_round(ctx, own.span(), spans_of(peers), step.probe_words));
  AtomicsRound round;
  VMR_TRY(atomics_across(ctx, own.span(), spans_of(peers), step, "remote_system_atomics_per_s_" + step.key, &round));
  ctx.info("size_sweep_" + step.key,
           std::to_string(size) + " bytes per rank: read exact, " + std::to_string(step.probe_words.size()) +
               " probe words to byte offset " + std::to_string(step.probe_words.back() * 8) + ", " +
               std::to_string(round.counters) + " counters from word " + std::to_string(step.counters_first) +
               " exact at " + std::to_string(round.expect));
  return ctx.mesh().barrier("step-" + step.key + "-done");  // owners keep their memory until every peer is done
}

Status case_size_sweep(RankContext& ctx, const RankState& state) {
  std::vector<std::string> passed, skipped;
  for (const SizeStep& step : size_sweep_plan(state.granule, AtomicsRound::kCounters)) {
    const Status fit = agree_fit(ctx, step.label, step.plan.bytes);
    if (fit.verdict == vmr::Verdict::Skip) {
      skipped.push_back(fit.detail);
      continue;
    }
    VMR_TRY(fit);
    const Status done = sweep_step(ctx, state, step);
    if (!done.ok()) return {done.verdict, step.label + " per rank: " + done.detail};
    VMR_TRY(ctx.mesh().barrier("step-" + step.key + "-released"));  // freed everywhere before the next plan
    ctx.phase_done("step-" + step.key);
    passed.push_back(step.label);
  }
  const std::string ran = passed.empty() ? "no step ran" : vmr::join(passed, ", ") + " per rank exact";
  if (!skipped.empty()) return Status::skip(vmr::join(skipped, "; ") + " (" + ran + ")");
  return Status::pass(ran +
                      ": exported, imported, mapped, read whole, probe words either side of 2^31 and 2^32 "
                      "bytes read and written back across processes, system-scope atomics across the highest "
                      "boundary");
}

// After cuMemSetAccess over a hole returned CUDA_SUCCESS: the access the driver keeps for the blocks either side
// (cuMemGetAccess). One it keeps without read-write is the defect, named without a write (on an H200 the driver gives
// the block past the hole flags 0 and a write there is CUDA_ERROR_ILLEGAL_ADDRESS, whose recovery took 0.4 s of a
// 1.5 s launch and leaves a context that serves no further case). The HIP twin has no such step.
Status blocks_beside_hole_granted(const RankState& state, const Reservation& range, size_t g, int device) {
  for (int b : {0, 2}) {
    unsigned long long flags = 0;
    VMR_TRY(state.cuda.access_of(range.at(size_t(b) * g), device, &flags));
    if (flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return Status::fail(
          "cuMemSetAccess(base, 3 granules, middle one unmapped) returned CUDA_SUCCESS, but "
          "cuMemGetAccess gives block " +
          std::to_string(b) + " flags " + std::to_string(flags) + " (read-write is " +
          std::to_string(int(CU_MEM_ACCESS_FLAGS_PROT_READWRITE)) + ")");
  }
  return Status::pass();
}

// --- the power-of-two allocator's VA life cycle (line for line as repro/pow2_remap.hip) ----------------------------
// twin-begin(pow2): tests/twins.sh checks that these lines are repro/pow2_remap.hip's cases but for API names.

constexpr int kPow2Blocks = 4;

Status case_remap(RankContext& ctx, const RankState& state) {
  const size_t g = pow2_block_plan(state.granule).bytes;  // one block: one granule
  Reservation range;
  VMR_TRY(state.cuda.reserve(kPow2Blocks * g, &range));
  Handle mem[kPow2Blocks];
  Mapping maps[kPow2Blocks];
  for (int b = 0; b < kPow2Blocks; ++b) {
    VMR_TRY(state.cuda.create(g, &mem[b]));
    VMR_TRY(state.cuda.map(range.at(b * g), g, mem[b], &maps[b]));
    VMR_TRY(state.cuda.set_access(range.va, (b + 1) * g, {ctx.device()}));  // base VA, cumulative size
    VMR_TRY(write_and_check(maps[b].span(), b, "block " + std::to_string(b)));
  }
  ctx.phase_done("setup");

  const int reused = 2;
  VMR_TRY(state.cuda.unmap(&maps[reused]));  // checked: new memory goes at this VA next
  mem[reused].reset();
  VMR_TRY(state.cuda.create(g, &mem[reused]));
  VMR_TRY(state.cuda.map(range.at(reused * g), g, mem[reused], &maps[reused]));
  VMR_TRY(state.cuda.set_access(range.va, range.size, {ctx.device()}));
  ctx.phase_done("run");
  VMR_TRY(write_and_check(maps[reused].span(), 100 + ctx.rank(), "remapped block"));
  for (int b = 0; b < kPow2Blocks; ++b)
    if (b != reused) VMR_TRY(verify_pattern(maps[b].span(), b, "untouched block " + std::to_string(b)));
  ctx.phase_done("verify");
  return Status::pass(
      "block 2 of 4 renewed at the same VA (unmap, release, create, map, cuMemSetAccess from the "
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
    VMR_TRY(state.cuda.reserve(g + g2, &s.range));
    VMR_TRY(state.cuda.create(g, &s.mem[0]));
    VMR_TRY(state.cuda.map(s.range.va, g, s.mem[0], &s.maps[0]));
    VMR_TRY(state.cuda.set_access(s.range.va, g, {ctx.device()}));
    VMR_TRY(state.cuda.create(g2, &s.mem[1]));
    VMR_TRY(state.cuda.map(s.range.at(g), g2, s.mem[1], &s.maps[1]));
    Status subrange = state.cuda.set_access(s.range.at(g), g2, {ctx.device()});
    if (!subrange.ok()) {
      refused.push_back(std::to_string(t + 1));
      if (first_refusal.empty()) first_refusal = subrange.detail;
      continue;
    }
    VMR_TRY(write_and_check(s.maps[1].span(), 7, "the sub-range block of reservation " + std::to_string(t + 1)));
  }
  ctx.phase_done("run");
  if (!refused.empty())
    return Status::fail("cuMemSetAccess(base + granule, 2 granules) on the second block refused in " +
                        std::to_string(refused.size()) + " of " + std::to_string(kSubrangeTries) + " reservations (" +
                        vmr::join(refused, ",") + "): " + first_refusal);
  return Status::pass("cuMemSetAccess(base + granule, 2 granules) accepted in each of " +
                      std::to_string(kSubrangeTries) + " reservations alive at once; every block reads back exactly");
}

Status case_set_access_hole(RankContext& ctx, const RankState& state) {
  const size_t g = pow2_block_plan(state.granule).bytes;
  Reservation range;
  VMR_TRY(state.cuda.reserve(3 * g, &range));
  Handle mem[2];
  Mapping maps[2];
  VMR_TRY(state.cuda.create(g, &mem[0]));
  VMR_TRY(state.cuda.map(range.va, g, mem[0], &maps[0]));
  VMR_TRY(state.cuda.create(g, &mem[1]));
  VMR_TRY(state.cuda.map(range.at(2 * g), g, mem[1], &maps[1]));  // the middle granule stays unmapped: a hole
  ctx.phase_done("setup");
  Status whole = state.cuda.set_access(range.va, 3 * g, {ctx.device()});
  if (!whole.ok())
    return Status::fail("cuMemSetAccess(base, 3 granules) over a range whose middle granule is unmapped: " +
                        whole.detail);
  ctx.phase_done("run");
  // Accepted: the driver's own record of the access first, then both mapped blocks must really be usable.
  VMR_TRY(blocks_beside_hole_granted(state, range, g, ctx.device()));
  for (int m : {0, 1}) {
    const int b = 2 * m;  // blocks 0 and 2 of the range
    Status usable = write_and_check(maps[m].span(), b, "block " + std::to_string(b) + " beside the hole");
    if (!usable.ok())
      return Status::fail("cuMemSetAccess(base, 3 granules, middle one unmapped) returned CUDA_SUCCESS, but block " +
                          std::to_string(b) + " is not accessible: " + usable.detail);
  }
  ctx.phase_done("verify");
  return Status::pass("cuMemSetAccess accepted a range with an unmapped hole; both mapped blocks read back exactly");
}

// The owner renews its block and bumps a generation; every peer notices, drops its stale mapping, imports the new
// fd, maps, sets access, and its atomics must land in the owner's new memory exactly.
constexpr u64 kCounters = 1024, kAddsPerThread = 64;

Status case_peer_reimport(RankContext& ctx, const RankState& state) {
  const size_t size = peer_reimport_plan(state.granule, kCounters).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.cuda, size, &own, &fd));
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  VMR_TRY(ctx.mesh().barrier("generation-1"));
  ctx.phase_done("setup");

  // Generation 2: the owner renews its block at the same VA and stamps word 0 with the generation.
  const u64 generation = 2;
  VMR_TRY(state.cuda.unmap(&own.map));  // checked: new memory goes at this VA next
  own.mem.reset();
  VMR_TRY(state.cuda.create(size, &own.mem));
  VMR_TRY(state.cuda.map(own.range.va, size, own.mem, &own.map));
  VMR_TRY(state.cuda.set_access(own.range.va, size, {ctx.device()}));
  VMR_TRY(zero_words(own.span(), 0, own.span().words));
  VMR_TRY(store_word(own.span(), 0, generation));
  VMR_TRY(state.cuda.export_fd(own.mem, &fd));
  const std::string announced = "generation " + std::to_string(generation);
  VMR_TRY(ctx.mesh().share_fd(fd.get(), announced, [&](int j, int peer_fd, const std::string& note) {
    if (note != announced) return Status::harness("rank " + std::to_string(j) + " announced '" + note + "'");
    VMR_TRY(state.cuda.unmap(&peers[j].map));  // the stale mapping goes (checked); the VA range stays ours
    VMR_TRY(import_block(state.cuda, peer_fd, size, &peers[j]));
    // The new mapping must show the owner's stamp: a bounded wait, never a hung GPU.
    return wait_for_stamp(peers[j].span(), generation, "rank " + std::to_string(j) + "'s");
  }));
  VMR_TRY(ctx.mesh().barrier("reimported"));
  ctx.phase_done("exchange");

  for (int j = 0; j < ctx.ranks(); ++j)
    // twin-differs-next: system scope here (the HIP twin uses agent scope: system scope faults there)
    if (j != ctx.rank()) VMR_TRY(add_into(peers[j].span(), 1, kCounters, kAddsPerThread, true));
  // twin-differs-next: the kernel of that scope
  VMR_TRY(finish("k_atomic_add_system into re-imported peer memory"));
  VMR_TRY(ctx.mesh().barrier("added"));
  ctx.phase_done("run");
  const u64 expect = expected_count(ctx.ranks() - 1, kAddsPerThread, kCounters);
  VMR_TRY(check_stamp_and_counters(own.span(), generation, kCounters, expect));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("verified"));
  return Status::pass(
      // twin-differs-next: says which scope
      "peers re-imported generation 2 at the same VA; their system-scope atomics reached the new "
      "memory exactly (" +
      std::to_string(expect) + " per counter)");
}

// twin-end(pow2)

// --- the 2026 regressions of HIP VMem IPC, as the driver API runs them (line for line as
// repro/hip_vmem_regressions.hip) -------------------------------------------------------------------------------
// twin-begin(regressions): tests/twins.sh checks that these lines are repro/hip_vmem_regressions.hip's cases but for
// API names.

constexpr size_t kRegressionBytes = size_t(4) << 20;

Status case_import_close_fd(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kRegressionBytes).bytes;
  Block own;
  UniqueFd fd;
  u64 own_sum = 0;
  VMR_TRY(owner_with_pattern(ctx, state.cuda, size, &own, &fd, &own_sum));
  ctx.phase_done("setup");
  std::vector<Block> peers(ctx.ranks());
  VMR_TRY(ctx.mesh().share_fd(fd.get(), {}, [&](int j, int peer_fd, const std::string&) {
    Block& b = peers[j];
    UniqueFd mine(::dup(peer_fd));  // the importer's own fd, as an application that received it holds it
    if (!mine.valid()) return Status::harness(vmr::errno_text("dup of the received fd"));
    VMR_TRY(state.cuda.import_fd(mine.get(), &b.mem));
    mine.reset();  // closed right after the import, before reserve, map and set access
    VMR_TRY(state.cuda.reserve(size, &b.range));
    VMR_TRY(state.cuda.map(b.range.va, size, b.mem, &b.map));
    return state.cuda.grant_own(b.range.va, size);
  }));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass(
      "each peer closed its fd right after cuMemImportFromShareableHandle, then mapped, set "
      "access and read the owner's pattern exactly");
}

Status case_reexport_after_close(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kRegressionBytes).bytes;
  Block own;
  UniqueFd first;
  u64 own_sum = 0;
  VMR_TRY(owner_with_pattern(ctx, state.cuda, size, &own, &first, &own_sum));
  first.reset();  // the first export's fd closed, as after a consumer that received it is done
  UniqueFd second;
  VMR_TRY(state.cuda.export_fd(own.mem, &second));  // the same allocation exported again
  if (::fcntl(second.get(), F_GETFD) < 0) {
    const std::string why = vmr::errno_text("fcntl");  // before anything else can change errno
    return Status::fail("the second cuMemExportToShareableHandle returned success, but its fd " +
                        std::to_string(second.get()) + " is not open (" + why +
                        "): the runtime handed out the descriptor closed after the first export");
  }
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, second, size, &peers));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass(
      "a second cuMemExportToShareableHandle after the first fd was closed gave an fd every peer "
      "imported and read exactly");
}

// Each cycle maps new memory into a reservation of its own, uses it, unmaps and releases it, and keeps the VA
// reserved, as an allocator that keeps its VA does; what the cycles leave behind is counted: this process's own
// device memory (gpu/process_memory.h decides which count may judge, and says which did) and open fds. (One
// reservation reused by every cycle would hide the 7.2 leak: each new map at the same VA replaces the mapping the last
// unmap left, freeing its memory.) VMR_SELFTEST_PLANT_LEAK=unmap-leak leaves each cycle's handle unreleased: the
// self-test that this case FAILs on a real leak.
constexpr int kLeakCycles = 16;
constexpr size_t kLeakBytes = size_t(64) << 20;

Status case_unmap_leak(RankContext& ctx, const RankState& state) {
  bool plant = false;
  VMR_TRY(plant_leak_switch(std::getenv(kPlantLeakVariable), "unmap-leak", &plant));
  if (plant)
    ctx.info("selftest_planted_leak",
             std::string(kPlantLeakVariable) + "=unmap-leak: each cycle's handle is left unreleased (a self-test)");
  const size_t size = read_plan(state.granule, kLeakBytes).bytes;
  std::vector<Reservation> ranges(kLeakCycles);  // every VA stays reserved to the end
  for (auto& range : ranges) VMR_TRY(state.cuda.reserve(size, &range));
  MemoryMeter meter;
  VMR_TRY(meter.open(state));
  ctx.phase_done("setup");
  // Measured while no rank holds cycle memory (ranks may share a GPU): the barriers keep every rank's cycles out
  // of every other rank's two readings.
  size_t fds_before = 0, fds_after = 0;
  LeakReadings mem;
  VMR_TRY(ctx.mesh().barrier("before-cycles"));
  VMR_TRY(vmr::count_open_fds(&fds_before));
  VMR_TRY(meter.read(&mem.process_before, &mem.device_free_before));
  VMR_TRY(ctx.mesh().barrier("measured-before"));
  for (int cycle = 0; cycle < kLeakCycles; ++cycle) {
    Handle mem_handle;
    Mapping map;
    VMR_TRY(state.cuda.create(size, &mem_handle));
    VMR_TRY(state.cuda.map(ranges[cycle].va, size, mem_handle, &map));
    VMR_TRY(state.cuda.grant_own(ranges[cycle].va, size));
    VMR_TRY(write_and_check(map.span(), cycle, "cycle " + std::to_string(cycle)));
    if (cycle == 0) mem.process_held = meter.process();  // proof that the count sees this process's VMem
    VMR_TRY(state.cuda.unmap(&map));      // checked; the Handle's release follows at the end of the cycle
    if (plant) mem_handle.valid = false;  // the planted leak: never released (the process's exit frees it)
  }
  VMR_TRY(ctx.mesh().barrier("cycled"));
  VMR_TRY(vmr::count_open_fds(&fds_after));
  VMR_TRY(meter.read(&mem.process_after, &mem.device_free_after));
  mem.others = meter.others();
  ctx.phase_done("run");
  const MemoryDecision kept = judge_device_memory(meter.source(), mem, size, kLeakCycles);
  const long long fds = (long long)fds_after - (long long)fds_before;
  ctx.info("unmap_cycles_left", std::to_string(kept.kept_bytes >> 20) + " MiB of device memory and " +
                                    std::to_string(fds) + " fds over " + std::to_string(kLeakCycles) + " cycles of " +
                                    std::to_string(size >> 20) + " MiB");
  ctx.info("device_memory_source", kept.source + ": " + kept.why);
  VMR_TRY(ctx.mesh().barrier("measured-after"));
  const std::string planted = plant ? " (leak planted by " + std::string(kPlantLeakVariable) + ", a self-test)" : "";
  if (kept.judgement == MemoryJudgement::Kept)
    return Status::fail("device memory not returned after cuMemUnmap + cuMemRelease while the VA stays reserved: " +
                        std::to_string(kLeakCycles) + " cycles of " + std::to_string(size >> 20) + " MiB left " +
                        std::to_string(kept.kept_bytes >> 20) + " MiB in use, by " + kept.source + " (" + kept.why +
                        ")" + planted);
  if (fds >= kLeakCycles / 2)
    return Status::fail(std::to_string(kLeakCycles) + " map / unmap / release cycles left " + std::to_string(fds) +
                        " more fds open (" + std::to_string(fds_before) + " -> " + std::to_string(fds_after) + ")");
  if (kept.judgement == MemoryJudgement::Undecided)
    return Status::skip("whether " + std::to_string(kLeakCycles) + " cycles of " + std::to_string(size >> 20) +
                        " MiB returned their device memory is undecided: " + kept.why + planted);
  return Status::pass(std::to_string(kLeakCycles) + " create / map / unmap / release cycles of " +
                      std::to_string(size >> 20) + " MiB, each VA kept reserved: device memory back (" +
                      std::to_string(kept.kept_bytes >> 20) + " MiB apart, by " + kept.source + "), open fds " +
                      std::to_string(fds_before) + " -> " + std::to_string(fds_after) + planted);
}

// Each rank creates kHandles one-granule handles with at most kFdHeadroom more fds allowed than it holds.
constexpr int kHandles = 256, kFdHeadroom = 64;

Status case_handles_fd_limit(RankContext& ctx, const RankState& state) {
  size_t open = 0;
  VMR_TRY(vmr::count_open_fds(&open));
  rlimit old{};
  if (::getrlimit(RLIMIT_NOFILE, &old) != 0) return Status::harness(vmr::errno_text("getrlimit(RLIMIT_NOFILE)"));
  rlimit low = old;
  low.rlim_cur = std::min<rlim_t>(old.rlim_cur, open + kFdHeadroom);
  if (::setrlimit(RLIMIT_NOFILE, &low) != 0) return Status::harness(vmr::errno_text("setrlimit(RLIMIT_NOFILE)"));
  const auto restore_limit = [&] { (void)::setrlimit(RLIMIT_NOFILE, &old); };
  vmr::ScopeExit restore(restore_limit);
  ctx.phase_done("setup");
  std::vector<Handle> handles(kHandles);
  int created = 0;  // how many were made before the first refusal, if any
  bool refused = false;
  std::string refusal;
  for (; created < kHandles; ++created) {
    const Status made = state.cuda.create(state.granule, &handles[created]);
    if (!made.ok()) {
      refused = true;
      refusal = made.detail;
      break;
    }
  }
  restore_limit();  // before counting: with every fd slot taken, listing /proc/self/fd fails (EMFILE)
  size_t held = 0;
  VMR_TRY(vmr::count_open_fds(&held));
  ctx.phase_done("run");
  ctx.info("open_fds_with_handles",
           std::to_string(open) + " -> " + std::to_string(held) + " with " + std::to_string(created) + " handles");
  VMR_TRY(ctx.mesh().barrier("created"));
  if (refused)
    return Status::fail("handle " + std::to_string(created + 1) + " of " + std::to_string(kHandles) + " (" +
                        std::to_string(state.granule) + " bytes each) with RLIMIT_NOFILE " +
                        std::to_string(low.rlim_cur) + " and " + std::to_string(open) + " fds open: " + refusal);
  return Status::pass(std::to_string(kHandles) + " handles created under RLIMIT_NOFILE " +
                      std::to_string(low.rlim_cur) + "; open fds " + std::to_string(open) + " -> " +
                      std::to_string(held));
}

// twin-end(regressions)

// Self-test: the last rank writes through a VA it unmapped. The GPU fault must come back as a FAIL naming the
// driver's error, and the other ranks must hear about it rather than wait.
Status write_through_unmapped(RankContext& ctx, const RankState& state) {
  const size_t g = state.granule;
  Block b;
  VMR_TRY(state.cuda.create(g, &b.mem));
  VMR_TRY(state.cuda.reserve(g, &b.range));
  VMR_TRY(state.cuda.map(b.range.va, g, b.mem, &b.map));
  VMR_TRY(state.cuda.set_access(b.range.va, g, {ctx.device()}));
  VMR_TRY(state.cuda.unmap(&b.map));  // unmapped (checked); the VA stays reserved
  // The one launch that bypasses the footprint guard on purpose: the guard would (rightly) refuse it.
  k_store<<<1, 1>>>(b.ptr(), 1);
  VMR_TRY(finish("k_store through an unmapped VA"));
  return Status::fail("a kernel wrote through an unmapped VA without an error");
}

Status case_fault(RankContext& ctx, const RankState& state) {
  return ctx.agree(ctx.rank() == ctx.ranks() - 1 ? write_through_unmapped(ctx, state) : Status::pass());
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      "repro_cuda_vmm",
      "cuda",
      describe,
      {
          {"read", "every peer reads each owner's 256 MiB exactly; kernel vs cuMemcpyDtoD peer bandwidth", case_read},
          {"atomics", "every rank adds into every peer's counters at system scope (exact); device scope as info",
           case_atomics},
          {"size-sweep",
           "1 GiB, 2 GiB + 1 granule, 4 GiB + 1 granule per rank: read, probes past 2^31 and 2^32 bytes, atomics "
           "across them; SKIP naming a size that does not fit",
           case_size_sweep, 300},
          {"remap", "pow2 allocator: remap a block at the same VA, set access from the base; data exact", case_remap},
          {"set-access-subrange",
           "cuMemSetAccess(base + g, 2g) on a second block twice the first's size (ROCm 7.0 to 7.2 reject it)",
           case_set_access_subrange},
          {"set-access-hole", "cuMemSetAccess from the base over a range with an unmapped hole", case_set_access_hole},
          {"peer-reimport", "owner remaps and bumps the generation; peers re-import; atomics reach the new memory",
           case_peer_reimport},
          {"import-close-fd", "each peer closes its fd right after the import, then maps, sets access and reads",
           case_import_close_fd},
          {"reexport-after-close", "the owner exports, closes the fd, exports again; peers import the second fd",
           case_reexport_after_close},
          {"unmap-leak", "create / map / unmap / release cycles, each VA kept reserved; device memory and fds counted",
           case_unmap_leak},
          {"handles-fd-limit", "256 one-granule handles under RLIMIT_NOFILE of the open fds + 64",
           case_handles_fd_limit},
          {"fault", "self-test: a kernel writes through an unmapped VA (expected FAIL, CUDA_ERROR_ILLEGAL_ADDRESS)",
           case_fault},
      },
      vmr_cuda::count_devices};
  return vmr::repro_main(binary, argc, argv);
}

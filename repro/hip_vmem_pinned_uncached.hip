// repro_hip_vmem_pinned / repro_hip_vmem_uncached: HIP VMem shared between processes (ROCm/iris#418).
//
//   owner: hipMemCreate (type, POSIX-fd handle) -> hipMemAddressReserve -> hipMemMap
//          -> hipMemSetAccess (its own device) -> hipMemExportToShareableHandle
//   peer:  receive the fd (SCM_RIGHTS) -> hipMemImportFromShareableHandle -> reserve -> map -> set access (its own)
//          -> read (works) / system-scope atomics (GPU memory access fault: the bug)
//   size-sweep: the same at 1 GiB, 2 GiB + one granule and 4 GiB + one granule per rank, each planned from the GPU's
//          free memory (a size that does not fit is named and left out), with peers' writes on both sides of 2^31
//          and 2^32 bytes read back by their owner and the atomics across the highest boundary (iris#532: faults
//          from 768 MiB per rank on 8x MI300X, "Write access to a read-only page", ROCm 7.2; rocm-systems#4114: an
//          int length in ROCr's dma-buf IPC server hung every export above 2 GB)
//
// CLR's hipMemCreate takes every VMem allocation from the GPU's COARSE-grained pool, whatever the type:
// hipMemAllocationTypePinned (1), and hipMemAllocationTypeUncached (0x40000000, accepted from HIP 7.0.2) too: until
// rocm-systems PR #4476 (merged 2026-03-26, after the 7.2 branch) the type never reached ROCr's handle_create, and
// before PR #11343 (2026-09) ROCr ignored handle_create's flags, so no release up to 7.2 allocates Uncached VMem
// differently from Pinned (unverified on hardware). The same source builds both binaries; only kAllocType differs
// (VMR_UNCACHED). A PASS of repro_hip_vmem_uncached.atomics on a node where pinned.atomics crashes is the signal
// that the fix reached the release.
#include <hip/hip_runtime.h>

#include <string>
#include <vector>

#include "amd/hip_rank.h"
#include "amd/hip_read_bandwidth.h"
#include "amd/hip_vmem.h"
#include "gpu/gpu_host.h"
#include "gpu/size_plans.h"
#include "gpu/size_rounds.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"
#include "harness/read_direction.h"

#ifndef VMR_UNCACHED
#error "build with -DVMR_UNCACHED=0 (pinned) or -DVMR_UNCACHED=1 (uncached)"
#endif

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using namespace vmr_gpu;
using vmr_hip::Block;

#if VMR_UNCACHED
constexpr const char* kBinary = "repro_hip_vmem_uncached";
constexpr hipMemAllocationType kAllocType = vmr_hip::kAllocTypeUncached;
constexpr const char* kTypeName = "hipMemAllocationTypeUncached (0x40000000)";
#else
constexpr const char* kBinary = "repro_hip_vmem_pinned";
constexpr hipMemAllocationType kAllocType = hipMemAllocationTypePinned;
constexpr const char* kTypeName = "hipMemAllocationTypePinned (1)";
#endif

using RankState = vmr_hip::RankState;  // what describe() learns once per rank and every case reads

Status describe(RankContext& ctx, RankState* state) {
#if VMR_UNCACHED
  // The expected table's SKIP rows condition on this fact: reported even when describe stops before the probe.
  ctx.info("uncached_accepted", "unknown (describe stopped before the probe)");
#endif
  VMR_TRY(vmr_amd::describe_rank(ctx, &state->amd));
  VMR_TRY(vmr_hip::describe_vmem(ctx, state->amd, &state->session));
  state->hip = {&state->session, ctx.device(), kAllocType};
  ctx.info("alloc_type", kTypeName);
#if VMR_UNCACHED
  // Before HIP 7.0.2 CLR rejects every type but Pinned with hipErrorInvalidValue, in hipMemCreate and in
  // hipMemGetAllocationGranularity alike (clr rocm-6.2.0 hipamd/src/hip_vm.cpp:83-87, :192-198): so probe with a
  // Pinned-sized allocation first, and only then ask for the Uncached granularity.
  size_t pinned_granule = 0;
  VMR_TRY(vmr_hip::granularity(ctx.device(), hipMemAllocationTypePinned, &pinned_granule));
  vmr_hip::Handle probe;
  Status accepted = state->hip.create(pinned_granule, &probe);
  ctx.info("uncached_alloc_type", accepted.ok() ? "accepted by hipMemCreate" : "rejected: " + accepted.detail);
  ctx.info("uncached_accepted", accepted.ok() ? "yes" : "no");  // what the expected table's SKIP rows condition on
  // Only the type's rejection is a SKIP; any other error (out of memory, say) is a failure to report.
  if (!accepted.ok() && accepted.detail.find("hipErrorInvalidValue") != std::string::npos)
    return Status::skip(accepted.detail + ": hipMemCreate accepts hipMemAllocationTypeUncached from HIP 7.0.2");
  VMR_TRY(accepted);
#endif
  VMR_TRY(vmr_hip::granularity(ctx.device(), kAllocType, &state->granule));
  ctx.info("vmem_granularity", std::to_string(state->granule));
  return Status::pass();
}

// --- cases ---------------------------------------------------------------------------------------------------------

constexpr size_t kReadBytes = size_t(64) << 20;

Status case_read(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kReadBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.hip, size, &own, &fd));
  VMR_TRY(write_and_check(own.span(), ctx.rank(), "owner's mapping after hipMemMap"));  // the pattern peers read
  u64 own_sum = 0;
  VMR_TRY(checksum(own.span(), &own_sum));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, fd, size, &peers));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  ctx.phase_done("verify");
  VMR_TRY(vmr_hip::peer_read_bandwidth(ctx, peers[vmr::read_source_rank(ctx.rank(), ctx.ranks())].span()));
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass(std::to_string(size >> 20) + " MiB of HIP VMem (" + kTypeName +
                      ") of every rank read exactly by every peer");
}

// The bug: peers' system-scope atomics into memory hipMemCreate took from the coarse-grained pool.
Status case_atomics(RankContext& ctx, const RankState& state) {
  AtomicsRound sys, dev;
  const size_t size = atomics_plan(state.granule, AtomicsRound::kCounters).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.hip, size, &own, &fd));
  VMR_TRY(write_and_check(own.span(), ctx.rank(), "owner's mapping after hipMemMap"));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, fd, size, &peers));
  ctx.phase_done("exchange");
  std::fprintf(stderr, "system-scope atomics into peer %s VMem: on affected nodes the GPU faults here\n", kTypeName);
  std::fflush(stderr);
  VMR_TRY(remote_atomics_round(ctx, own.span(), spans_of(peers), true, "system", &sys));
  ctx.phase_done("run");
  if (!sys.mismatch.empty()) return Status::fail("system-scope atomics: " + sys.mismatch);
  VMR_TRY(remote_atomics_round(ctx, own.span(), spans_of(peers), false, "agent", &dev));
  ctx.info("agent_scope_atomics", dev.mismatch.empty() ? "exact" : "not exact: " + dev.mismatch);
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("atomics-done"));
  return Status::pass(std::string("system-scope atomics into peers' ") + kTypeName +
                      " VMem exact: " + std::to_string(sys.expect) + " per counter");
}

// One step of the sweep, whole: allocate, export, import, map, read every word, the probes, the atomics.
Status sweep_step(RankContext& ctx, const RankState& state, const SizeStep& step) {
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.hip, step.plan.bytes, &own, &fd));
  VMR_TRY(fill_pattern(own.span(), ctx.rank(), "the owner's " + step.label));
  u64 own_sum = 0;
  VMR_TRY(checksum(own.span(), &own_sum));
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, fd, step.plan.bytes, &peers));
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  VMR_TRY(probe_round(ctx, own.span(), spans_of(peers), step.probe_words));
  std::fprintf(stderr, "system-scope atomics into peer %s VMem (%s): on affected nodes the GPU faults here\n",
               kTypeName, step.label.c_str());
  std::fflush(stderr);
  AtomicsRound sys;
  VMR_TRY(atomics_across(ctx, own.span(), spans_of(peers), step, "remote_system_atomics_per_s_" + step.key, &sys));
  return ctx.mesh().barrier("step-" + step.key + "-done");  // no owner frees before every peer is done
}

Status case_size_sweep(RankContext& ctx, const RankState& state) {
  std::vector<std::string> ran, left_out;
  for (const SizeStep& step : size_sweep_plan(state.granule, AtomicsRound::kCounters)) {
    const std::string problem = plan_problem(step.plan, state.granule);
    if (!problem.empty()) return Status::harness("suite bug: " + step.label + " plan: " + problem);
    const Status agreed = agree_fit(ctx, step.label, step.plan.bytes);  // every rank runs the same sizes
    ctx.info("size_sweep_" + step.key, agreed.ok() ? "run" : "left out: " + agreed.detail);
    if (agreed.verdict == vmr::Verdict::Skip) {
      left_out.push_back(agreed.detail);
      continue;
    }
    VMR_TRY(agreed);
    VMR_TRY(sweep_step(ctx, state, step));
    ran.push_back(step.label);
  }
  ctx.phase_done("run");
  if (ran.empty()) return Status::skip("no size of the sweep fits: " + vmr::join(left_out, "; "));
  return Status::pass(vmr::join(ran, ", ") + " of HIP VMem (" + kTypeName +
                      ") per rank read exactly, probes past 2^31 and 2^32 bytes read back, system-scope atomics "
                      "exact" +
                      (left_out.empty() ? "" : "; left out: " + vmr::join(left_out, "; ")));
}

#if VMR_UNCACHED
// The allocation itself works: each rank's own atomics into its own Uncached VMem, no peer involved.
Status case_local(RankContext& ctx, const RankState& state) {
  AtomicsRound round;
  const size_t size = atomics_plan(state.granule, AtomicsRound::kCounters).bytes;
  Block own;
  VMR_TRY(state.hip.create(size, &own.mem));
  VMR_TRY(state.hip.reserve(size, &own.range));
  VMR_TRY(state.hip.map(own.range.va, size, own.mem, &own.map));
  VMR_TRY(state.hip.set_access(own.range.va, size, {ctx.device()}));
  ctx.phase_done("setup");
  VMR_TRY(zero_words(own.span(), 0, round.counters));
  VMR_TRY(add_into(own.span(), 0, round.counters, round.adds_per_thread, true));
  VMR_TRY(finish("k_atomic_add_system into local Uncached VMem"));
  ctx.phase_done("run");
  const u64 expect = expected_count(1, round.adds_per_thread, round.counters);
  std::string mismatch;
  VMR_TRY(check_counters(own.span(), 0, round.counters, expect, &mismatch));
  ctx.phase_done("verify");
  if (!mismatch.empty()) return Status::fail("local system-scope atomics: " + mismatch);
  return Status::pass("hipMemCreate accepted Uncached; local system-scope atomics exact (" + std::to_string(expect) +
                      " per counter)");
}
#endif

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      kBinary,
      "hip",
      describe,
      {
#if VMR_UNCACHED
          {"local", "Uncached VMem on one device: local system-scope atomics (no peer)", case_local},
#endif
          {"read", "every peer reads each owner's HIP VMem exactly (safe)", case_read},
          {"atomics", "every peer adds into each owner's HIP VMem at system scope (the GPU fault of iris#418)",
           case_atomics},
          {"size-sweep", "read, probes and system-scope atomics at 1 GiB, 2 GiB and 4 GiB + 1 granule per rank",
           case_size_sweep, 240},
      },
      vmr_amd::count_devices};
  return vmr::repro_main(binary, argc, argv);
}

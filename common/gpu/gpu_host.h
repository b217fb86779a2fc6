// Host-side helpers every GPU reproducer shares, one source for HIP and CUDA: device buffers, fenced read-back
// of VMem VAs through a bounce buffer, pattern checks, checksums, event timing and the rounds
// every backend runs the same way. Like the kernels they launch (gpu_kernels.h), the helpers have internal linkage
// (an unnamed namespace), so any number of translation units may include this header; vmr_gpu::finish() comes
// from the vendor library (common/amd/hip_finish.hip, common/cuda/cuda_finish.cu).
//
// Every launch on VMem goes through a helper here that takes a Span (the mapping, in words) and runs guard()
// first: a kernel that would touch past its mapping is refused as a HARNESS verdict, never launched.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "gpu/footprint.h"
#include "gpu/gpu_errors.h"
#include "gpu/gpu_kernels.h"
#include "gpu/size_plans.h"
#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

namespace vmr_gpu {

using vmr::Status;

constexpr int kBlocks = 264;  // enough to fill an H100/H200 or an MI300 twice over
constexpr int kThreads = kReduceThreads;

// Checks the launch, then waits for the device; failures name `what` and the runtime's (or driver's) error.
// The CUDA reference synchronises through the driver API so the error reads CUDA_ERROR_ILLEGAL_ADDRESS, the AMD
// reproducers through hipDeviceSynchronize.
Status finish(const char* what);

// [[maybe_unused]]: each binary uses some of these; nvcc warns of an unused function with internal linkage (#177),
// which a user building a single-file reproducer would see, one per helper and GPU target.
namespace {  // internal linkage, as the kernels these helpers launch (see above)

template <class T>
struct DeviceBuffer {  // plain device memory from the runtime's allocator: bounce buffers and result cells
  T* p = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() {
    if (p) (void)VMR_GPU(Free)(p);
  }
  Status alloc(size_t n) { return gpu_check("Malloc", VMR_GPU(Malloc)(&p, n * sizeof(T))); }
};

// The mapped spans of blocks (empty for this rank's own slot), as the rounds take them.
template <class Block>
std::vector<Span> spans_of(const std::vector<Block>& blocks) {
  std::vector<Span> out;
  for (const auto& b : blocks) out.push_back(b.span());
  return out;
}

// The device's free memory as its runtime reports it (hipMemGetInfo / cudaMemGetInfo): what a leak check reads
// before and after.
[[maybe_unused]] inline Status device_free_bytes(size_t* free) {
  size_t total = 0;
  return gpu_check("MemGetInfo", VMR_GPU(MemGetInfo)(free, &total));
}

[[maybe_unused]] inline Status copy_to_host(void* dst, const void* src, size_t bytes) {
  return gpu_check("Memcpy(DeviceToHost)", VMR_GPU(Memcpy)(dst, src, bytes, VMR_GPU(MemcpyDeviceToHost)));
}

// --- kernels on VMem, each behind the guard -----------------------------------------------------------------------

// Clears an error left by a call whose failure the suite already handled or ignored (an owner's release, an
// environment query): from HIP 7.0 such errors stay until read, and finish() would blame the next launch for it.
[[maybe_unused]] inline void forget_stale_error() { (void)VMR_GPU(GetLastError)(); }

[[maybe_unused]] inline Status zero_words(const Span& s, size_t first, size_t n) {
  VMR_TRY(guard(s, first, n, "k_zero"));
  forget_stale_error();
  k_zero<<<kBlocks, kThreads>>>(s.at(first), n);
  return finish("k_zero");
}

[[maybe_unused]] inline Status store_word(const Span& s, size_t word, u64 value) {
  VMR_TRY(guard(s, word, 1, "k_store"));
  forget_stale_error();
  k_store<<<1, 1>>>(s.at(word), value);
  return finish("k_store");
}

// Reads n words of a VMem VA the way ROCm requires (hipMemcpy silently fails on HSA-VMem VAs): a fenced copy
// kernel into a bounce buffer, then an ordinary copy to the host.
[[maybe_unused]] inline Status read_words(const Span& s, size_t first, size_t n, std::vector<u64>* out) {
  VMR_TRY(guard(s, first, n, "k_copy"));
  DeviceBuffer<u64> bounce;
  VMR_TRY(bounce.alloc(n));
  forget_stale_error();
  k_copy<<<kBlocks, kThreads>>>(bounce.p, s.at(first), n);
  VMR_TRY(finish("k_copy"));
  out->resize(n);
  return copy_to_host(out->data(), bounce.p, n * sizeof(u64));
}

// The sum of every word of the span (the read-bandwidth workload and a checksum both sides can compare).
[[maybe_unused]] inline Status checksum(const Span& s, u64* sum) {
  VMR_TRY(guard(s, 0, s.words & ~size_t(1), "k_checksum"));
  DeviceBuffer<u64> cell;
  VMR_TRY(cell.alloc(1));
  forget_stale_error();
  k_zero<<<1, 1>>>(cell.p, 1);
  k_checksum<<<kBlocks, kThreads>>>(reinterpret_cast<const ulonglong2*>(s.p), s.words / 2, cell.p);
  VMR_TRY(finish("k_checksum"));
  return copy_to_host(sum, cell.p, sizeof(u64));
}

// PASS when no word differed from `owner`'s pattern; else the FAIL that counts them and names the first.
[[maybe_unused]] inline Status pattern_result(const Span& s, int owner, const std::string& what, u64 bad, u64 first) {
  if (bad == 0) return Status::pass();
  return Status::fail(what + ": " + std::to_string(bad) + " of " + std::to_string(s.words) +
                      " words differ from rank " + std::to_string(owner) + "'s pattern, first at word " +
                      std::to_string(first));
}

// How many words of a span differ from an owner's pattern, counted on the device into two result cells. One counter
// serves a whole loop: its cells are allocated once and reset by two one-thread kernels in stream order, so a count
// costs one wait for the device and one copy back (a per-count allocation, host-to-device copy and free made
// map-then-use's 200 rounds wait on the device six times each: 0.8 s on an H200 shared with other processes).
class PatternCounter {
 public:
  // *bad: the words that differ; *first_bad: the first of them (~0 if none). `waited_for` names the kernels the
  // wait covers in an error (a fill started before the count is one of them).
  Status count(const Span& s, int owner, u64* bad, u64* first_bad, const char* waited_for = "k_verify_pattern") {
    VMR_TRY(guard(s, 0, s.words, "k_verify_pattern"));
    VMR_TRY(prepare());
    forget_stale_error();
    // Each reset launch checked: on HIP 6.x every call overwrites the last error, so a failed reset followed by a
    // good count would count into cells never set.
    k_zero<<<1, 1>>>(cells_.p, 1);
    VMR_TRY(gpu_check("k_zero (result cells)", VMR_GPU(GetLastError)()));
    k_store<<<1, 1>>>(cells_.p + 1, ~0ull);
    VMR_TRY(gpu_check("k_store (result cells)", VMR_GPU(GetLastError)()));
    k_verify_pattern<<<kBlocks, kThreads>>>(s.p, s.words, u64(owner), cells_.p, cells_.p + 1);
    VMR_TRY(finish(waited_for));
    u64 got[2];
    VMR_TRY(copy_to_host(got, cells_.p, sizeof got));
    *bad = got[0];
    *first_bad = got[1];
    return Status::pass();
  }

  // Allocates the cells (once): a loop calls it first, so no allocation falls between a started fill and its count.
  Status prepare() { return cells_.p ? Status::pass() : cells_.alloc(2); }

 private:
  DeviceBuffer<u64> cells_;
};

[[maybe_unused]] inline Status count_pattern_mismatches(const Span& s, int owner, u64* bad, u64* first_bad) {
  PatternCounter counter;
  return counter.count(s, owner, bad, first_bad);
}

// Every word of the span must hold `owner`'s pattern; the failure counts the bad words and names the first.
[[maybe_unused]] inline Status verify_pattern(const Span& s, int owner, const std::string& what) {
  u64 bad = 0, first = 0;
  VMR_TRY(count_pattern_mismatches(s, owner, &bad, &first));
  return pattern_result(s, owner, what, bad, first);
}

// The host's own loads of a mapping it was granted (a Host location in set-access): every word must hold `owner`'s
// pattern.
[[maybe_unused]] inline Status host_verify_pattern(const Span& s, int owner, const std::string& what) {
  u64 bad = 0, first = 0;
  for (size_t i = 0; i < s.words; ++i)
    if (s.p[i] != pattern_word(u64(owner), i) && bad++ == 0) first = i;
  return pattern_result(s, owner, what, bad, first);
}

// Launches the fill of the span with `owner`'s pattern and returns without waiting: the next wait (a
// PatternCounter's count in stream order) names it.
[[maybe_unused]] inline Status start_fill_pattern(const Span& s, int owner) {
  VMR_TRY(guard(s, 0, s.words, "k_fill_pattern"));
  forget_stale_error();
  k_fill_pattern<<<kBlocks, kThreads>>>(s.p, s.words, u64(owner));
  return gpu_check("k_fill_pattern", VMR_GPU(GetLastError)());
}

// Fills the span with `owner`'s pattern (the whole mapping: proof that it and its access really work).
[[maybe_unused]] inline Status fill_pattern(const Span& s, int owner, const std::string& what) {
  VMR_TRY(start_fill_pattern(s, owner));
  return finish(("k_fill_pattern on " + what).c_str());
}

// Writes `owner`'s pattern and reads it back (on ROCm 6.3 a failed hipMemMap can still return success).
[[maybe_unused]] inline Status write_and_check(const Span& s, int owner, const std::string& what) {
  VMR_TRY(fill_pattern(s, owner, what));
  return verify_pattern(s, owner, what);
}

// Every thread of the grid adds `adds` times into words [first, first + counters) of a peer's span. Launches
// without waiting (the caller's finish() waits for all of them), so a launch error is checked here.
[[maybe_unused]] inline Status add_into(const Span& s, size_t first, u64 counters, u64 adds, bool system_scope) {
  const char* kernel = system_scope ? "k_atomic_add_system" : "k_atomic_add_device";
  VMR_TRY(guard(s, first, counters, kernel));
  forget_stale_error();
  if (system_scope)
    k_atomic_add_system<<<kBlocks, kThreads>>>(s.at(first), counters, adds);
  else
    k_atomic_add_device<<<kBlocks, kThreads>>>(s.at(first), counters, adds);
  return gpu_check(kernel, VMR_GPU(GetLastError)());
}

// What every counter holds after each of `peers` ran add_into once with `adds` per thread.
[[maybe_unused]] inline u64 expected_count(int peers, u64 adds, u64 counters) {
  return u64(peers) * kBlocks * kThreads * adds / counters;
}

// Every counter in words [first, first + n) must hold exactly `expect`; returns the first that does not in *mismatch.
[[maybe_unused]] inline Status check_counters(const Span& s, size_t first, size_t n, u64 expect,
                                              std::string* mismatch) {
  std::vector<u64> got;
  VMR_TRY(read_words(s, first, n, &got));
  mismatch->clear();
  for (size_t c = 0; c < n; ++c)
    if (got[c] != expect) {
      *mismatch = "counter " + std::to_string(c) + " holds " + std::to_string(got[c]) + ", expected exactly " +
                  std::to_string(expect);
      break;
    }
  return Status::pass();
}

// Seconds one call of `body` takes on the GPU, the best of `reps` (event timing).
template <class F>
Status time_best(int reps, F body, double* best_s) {
  VMR_GPU(Event_t) start, stop;
  VMR_TRY(gpu_check("EventCreate", VMR_GPU(EventCreate)(&start)));
  vmr::ScopeExit destroy_start([&] { (void)VMR_GPU(EventDestroy)(start); });
  VMR_TRY(gpu_check("EventCreate", VMR_GPU(EventCreate)(&stop)));
  vmr::ScopeExit destroy_stop([&] { (void)VMR_GPU(EventDestroy)(stop); });
  *best_s = 1e30;
  for (int i = 0; i < reps; ++i) {
    (void)VMR_GPU(EventRecord)(start, 0);
    VMR_TRY(body());
    (void)VMR_GPU(EventRecord)(stop, 0);
    VMR_TRY(finish("timed work"));
    float ms = 0;
    VMR_TRY(gpu_check("EventElapsedTime", VMR_GPU(EventElapsedTime)(&ms, start, stop)));
    *best_s = std::min(*best_s, double(ms) / 1e3);
  }
  return Status::pass();
}

// --- the two scenarios every backend runs the same way --------------------------------------------------------

// `read`: every rank checks every peer's memory (peers[j], empty for itself) against the peer's pattern and
// against the checksum the owner computed locally (own_sum), so a remote read must return exactly the owner's bytes.
[[maybe_unused]] inline Status verify_peer_reads(vmr::RankContext& ctx, const std::vector<Span>& peers, u64 own_sum) {
  std::vector<std::string> sums;
  VMR_TRY(ctx.mesh().all_gather(std::to_string(own_sum), &sums));
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    VMR_TRY(verify_pattern(peers[j], j, "peer read of rank " + std::to_string(j)));
    u64 sum = 0;
    VMR_TRY(checksum(peers[j], &sum));
    if (std::to_string(sum) != sums[j])
      return Status::fail("checksum of rank " + std::to_string(j) + "'s memory read remotely is " +
                          std::to_string(sum) + ", the owner computed " + sums[j]);
  }
  return Status::pass();
}

struct AtomicsRound {
  static constexpr u64 kCounters = 1024;  // per owner: size the buffer with atomics_plan(granule, kCounters)
  u64 counters = kCounters;
  u64 adds_per_thread = 64;  // kBlocks * kThreads * adds_per_thread must be a multiple of counters
  u64 expect = 0;            // out: what every counter must hold
  std::string rate_metric = "remote_system_atomics_per_s";  // a case of several rounds names each its own
  double secs = 0;                                          // out: this rank's time to launch and finish its adds
  std::string mismatch;  // out: the first counter that was not exact, empty when all were
};

// `atomics`: every rank zeroes its counters, adds into every peer's (system or device scope), and checks its own
// exactly. A wrong count is reported in round->mismatch (the caller decides whether it drives the verdict); a
// failed call is the returned Status. A system-scope round reports the metric round->rate_metric
// (remote_system_atomics_per_s unless the case names another): every rank's adds over the slowest rank's time.
[[maybe_unused]] inline Status remote_atomics_round(vmr::RankContext& ctx, const Span& own,
                                                    const std::vector<Span>& peers, bool system_scope,
                                                    const std::string& label, AtomicsRound* round) {
  VMR_TRY(zero_words(own, 0, round->counters));
  VMR_TRY(ctx.mesh().barrier(label + "-zeroed"));
  int64_t t0 = vmr::monotonic_ns();
  for (int j = 0; j < ctx.ranks(); ++j)
    if (j != ctx.rank()) VMR_TRY(add_into(peers[j], 0, round->counters, round->adds_per_thread, system_scope));
  VMR_TRY(finish(system_scope ? "k_atomic_add_system into peer memory" : "k_atomic_add_device into peer memory"));
  round->secs = double(vmr::monotonic_ns() - t0) / 1e9;
  VMR_TRY(ctx.mesh().barrier(label + "-added"));
  round->expect = expected_count(ctx.ranks() - 1, round->adds_per_thread, round->counters);
  VMR_TRY(check_counters(own, 0, round->counters, round->expect, &round->mismatch));
  if (!round->mismatch.empty()) round->mismatch = "rank " + std::to_string(ctx.rank()) + "'s " + round->mismatch;
  if (system_scope) {
    double slowest = 0;
    VMR_TRY(ctx.max_over_ranks(round->secs, &slowest));
    const double adds = double(ctx.ranks()) * (ctx.ranks() - 1) * kBlocks * kThreads * round->adds_per_thread;
    ctx.metric(round->rate_metric, adds / slowest, "ops/s");
  }
  return Status::pass();
}

// --- peer-reimport: the owner stamps its renewed memory with a generation (layout: peer_reimport_plan) -----------

// Waits (bounded, on the GPU) until word 0 of a peer's mapping shows `generation`: proof that the re-imported
// mapping reaches the owner's new memory, not the old one.
[[maybe_unused]] inline Status wait_for_stamp(const Span& s, u64 generation, const std::string& whose) {
  VMR_TRY(guard(s, 0, 1, "k_wait_flag"));
  DeviceBuffer<u64> timed_out;
  VMR_TRY(timed_out.alloc(1));
  forget_stale_error();
  k_wait_flag<<<1, 1>>>(s.p, generation, 2000000000ll, timed_out.p);
  VMR_TRY(finish("k_wait_flag"));
  u64 late = 1;
  VMR_TRY(copy_to_host(&late, timed_out.p, sizeof late));
  if (late) return Status::fail(whose + " generation stamp never appeared through the re-imported mapping");
  return Status::pass();
}

// Word 0 must still hold the generation and the `counters` words after it exactly `expect` each.
[[maybe_unused]] inline Status check_stamp_and_counters(const Span& own, u64 generation, u64 counters, u64 expect) {
  std::vector<u64> got;
  VMR_TRY(read_words(own, 0, counters + 1, &got));
  if (got[0] != generation) return Status::fail("generation word overwritten: " + std::to_string(got[0]));
  for (u64 c = 0; c < counters; ++c)
    if (got[c + 1] != expect)
      return Status::fail("after re-import, counter " + std::to_string(c) + " holds " + std::to_string(got[c + 1]) +
                          ", expected exactly " + std::to_string(expect));
  return Status::pass();
}

}  // namespace
}  // namespace vmr_gpu

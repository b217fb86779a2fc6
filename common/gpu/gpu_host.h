// Host-side helpers every GPU reproducer shares, one source for HIP and CUDA: device buffers, fenced read-back
// of VMem VAs through a bounce buffer, pattern checks, checksums, event timing, the peer exchange and the rounds
// every backend runs the same way. Include from exactly one translation unit per binary (it holds the kernels);
// vmr_gpu::finish() comes from the vendor library (common/amd/hip_finish.hip, common/cuda/cuda_finish.cu).
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "gpu/gpu_errors.h"
#include "gpu/gpu_kernels.h"
#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"

namespace vmr_gpu {

using vmr::Status;

constexpr int kBlocks = 264;  // enough to fill an H100/H200 or an MI300 twice over
constexpr int kThreads = kReduceThreads;

inline size_t round_up(size_t n, size_t granule) { return (n + granule - 1) / granule * granule; }

// Checks the launch, then waits for the device; failures name `what` and the runtime's (or driver's) error.
// The CUDA reference synchronises through the driver API so the error reads CUDA_ERROR_ILLEGAL_ADDRESS, the AMD
// reproducers through hipDeviceSynchronize.
Status finish(const char* what);

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

// The export/import step of every scenario: this rank's memory goes to every peer as `own_fd`, and peers[j]
// becomes rank j's memory, imported by `import(fd, &block)` (the backend's import_block). peers[self] stays empty.
template <class Block, class Import>
Status import_from_peers(vmr::RankContext& ctx, int own_fd, std::vector<Block>* peers, Import import) {
  *peers = std::vector<Block>(ctx.ranks());
  return ctx.mesh().share_fd(own_fd, {}, [&](int j, int fd, const std::string&) { return import(fd, &(*peers)[j]); });
}

// The word pointers of blocks (nullptr for this rank's own empty slot), as the kernels and rounds take them.
template <class Block>
std::vector<u64*> words_of(const std::vector<Block>& blocks) {
  std::vector<u64*> out;
  for (const auto& b : blocks) out.push_back(b.ptr());
  return out;
}

inline Status copy_to_host(void* dst, const void* src, size_t bytes) {
  return gpu_check("Memcpy(DeviceToHost)", VMR_GPU(Memcpy)(dst, src, bytes, VMR_GPU(MemcpyDeviceToHost)));
}

inline Status copy_to_device(void* dst, const void* src, size_t bytes) {
  return gpu_check("Memcpy(HostToDevice)", VMR_GPU(Memcpy)(dst, src, bytes, VMR_GPU(MemcpyHostToDevice)));
}

// Reads n words of a VMem VA the way ROCm requires (hipMemcpy silently fails on HSA-VMem VAs): a fenced copy
// kernel into a bounce buffer, then an ordinary copy to the host.
inline Status read_words(const u64* src, size_t n, std::vector<u64>* out) {
  DeviceBuffer<u64> bounce;
  VMR_TRY(bounce.alloc(n));
  k_copy<<<kBlocks, kThreads>>>(bounce.p, src, n);
  VMR_TRY(finish("k_copy"));
  out->resize(n);
  return copy_to_host(out->data(), bounce.p, n * sizeof(u64));
}

inline Status checksum(const u64* p, size_t bytes, u64* sum) {
  DeviceBuffer<u64> cell;
  VMR_TRY(cell.alloc(1));
  k_zero<<<1, 1>>>(cell.p, 1);
  k_checksum<<<kBlocks, kThreads>>>(reinterpret_cast<const ulonglong2*>(p), bytes / 16, cell.p);
  VMR_TRY(finish("k_checksum"));
  return copy_to_host(sum, cell.p, sizeof(u64));
}

// Every word of [p, p + n) must hold `owner`'s pattern; the failure counts the bad words and names the first.
inline Status verify_pattern(const u64* p, size_t n, int owner, const std::string& what) {
  DeviceBuffer<u64> cells;
  VMR_TRY(cells.alloc(2));
  const u64 init[2] = {0, ~0ull};
  VMR_TRY(copy_to_device(cells.p, init, sizeof init));
  k_verify_pattern<<<kBlocks, kThreads>>>(p, n, u64(owner), cells.p, cells.p + 1);
  VMR_TRY(finish("k_verify_pattern"));
  u64 got[2];
  VMR_TRY(copy_to_host(got, cells.p, sizeof got));
  if (got[0] != 0)
    return Status::fail(what + ": " + std::to_string(got[0]) + " of " + std::to_string(n) + " words differ from rank " +
                        std::to_string(owner) + "'s pattern, first at word " + std::to_string(got[1]));
  return Status::pass();
}

// Writes `owner`'s pattern over [p, p + bytes) and reads it back: proves that a mapping and its access really work
// (on ROCm 6.3 a failed hipMemMap can still return success).
inline Status write_and_check(u64* p, size_t bytes, int owner, const std::string& what) {
  k_fill_pattern<<<kBlocks, kThreads>>>(p, bytes / sizeof(u64), u64(owner));
  VMR_TRY(finish(("k_fill_pattern on " + what).c_str()));
  return verify_pattern(p, bytes / sizeof(u64), owner, what);
}

// The words at `offset` into a reservation (HIP and HSA hand out void*, CUDA a CUdeviceptr).
template <class Reservation>
u64* words_at(const Reservation& r, size_t offset) {
  return reinterpret_cast<u64*>(r.at(offset));
}

// Every counter in [p, p + n) must hold exactly `expect`; returns the first that does not in *mismatch.
inline Status check_counters(const u64* p, size_t n, u64 expect, std::string* mismatch) {
  std::vector<u64> got;
  VMR_TRY(read_words(p, n, &got));
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

// `read`: every rank checks every peer's memory (peers[j], nullptr for itself) against the peer's pattern and
// against the checksum the owner computed locally (own_sum), so a remote read must return exactly the owner's bytes.
inline Status verify_peer_reads(vmr::RankContext& ctx, const std::vector<u64*>& peers, size_t words, u64 own_sum) {
  std::vector<std::string> sums;
  VMR_TRY(ctx.mesh().all_gather(std::to_string(own_sum), &sums));
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    VMR_TRY(verify_pattern(peers[j], words, j, "peer read of rank " + std::to_string(j)));
    u64 sum = 0;
    VMR_TRY(checksum(peers[j], words * sizeof(u64), &sum));
    if (std::to_string(sum) != sums[j])
      return Status::fail("checksum of rank " + std::to_string(j) + "'s memory read remotely is " +
                          std::to_string(sum) + ", the owner computed " + sums[j]);
  }
  return Status::pass();
}

struct AtomicsRound {
  u64 counters = 1024;       // per owner
  u64 adds_per_thread = 64;  // kBlocks * kThreads * adds_per_thread must be a multiple of counters
  u64 expect = 0;            // out: what every counter must hold
  double secs = 0;           // out: this rank's time to launch and finish its adds
  std::string mismatch;      // out: the first counter that was not exact, empty when all were
};

// `atomics`: every rank zeroes its counters, adds into every peer's (system or device scope), and checks its own
// exactly. A wrong count is reported in round->mismatch (the caller decides whether it drives the verdict); a
// failed call is the returned Status. A system-scope round reports the metric remote_system_atomics_per_s: every
// rank's adds over the slowest rank's time.
inline Status remote_atomics_round(vmr::RankContext& ctx, u64* own, const std::vector<u64*>& peers, bool system_scope,
                                   const std::string& label, AtomicsRound* round) {
  k_zero<<<kBlocks, kThreads>>>(own, round->counters);
  VMR_TRY(finish("k_zero"));
  VMR_TRY(ctx.mesh().barrier(label + "-zeroed"));
  int64_t t0 = vmr::monotonic_ns();
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    if (system_scope)
      k_atomic_add_system<<<kBlocks, kThreads>>>(peers[j], round->counters, round->adds_per_thread);
    else
      k_atomic_add_device<<<kBlocks, kThreads>>>(peers[j], round->counters, round->adds_per_thread);
  }
  VMR_TRY(finish(system_scope ? "k_atomic_add_system into peer memory" : "k_atomic_add_device into peer memory"));
  round->secs = double(vmr::monotonic_ns() - t0) / 1e9;
  VMR_TRY(ctx.mesh().barrier(label + "-added"));
  round->expect = u64(ctx.ranks() - 1) * kBlocks * kThreads * round->adds_per_thread / round->counters;
  VMR_TRY(check_counters(own, round->counters, round->expect, &round->mismatch));
  if (!round->mismatch.empty()) round->mismatch = "rank " + std::to_string(ctx.rank()) + "'s " + round->mismatch;
  if (system_scope) {
    double slowest = 0;
    VMR_TRY(ctx.max_over_ranks(round->secs, &slowest));
    const double adds = double(ctx.ranks()) * (ctx.ranks() - 1) * kBlocks * kThreads * round->adds_per_thread;
    ctx.metric("remote_system_atomics_per_s", adds / slowest, "ops/s");
  }
  return Status::pass();
}

// --- peer-reimport: the owner stamps its renewed memory with a generation ------------------------------------

// Waits (bounded, on the GPU) until word 0 of a peer's mapping shows `generation`: proof that the re-imported
// mapping reaches the owner's new memory, not the old one.
inline Status wait_for_stamp(const u64* p, u64 generation, const std::string& whose) {
  DeviceBuffer<u64> timed_out;
  VMR_TRY(timed_out.alloc(1));
  k_wait_flag<<<1, 1>>>(p, generation, 2000000000ll, timed_out.p);
  VMR_TRY(finish("k_wait_flag"));
  u64 late = 1;
  VMR_TRY(copy_to_host(&late, timed_out.p, sizeof late));
  if (late) return Status::fail(whose + " generation stamp never appeared through the re-imported mapping");
  return Status::pass();
}

// Word 0 must still hold the generation and the `counters` words after it exactly `expect` each.
inline Status check_stamp_and_counters(const u64* own, u64 generation, u64 counters, u64 expect) {
  std::vector<u64> got;
  VMR_TRY(read_words(own, counters + 1, &got));
  if (got[0] != generation) return Status::fail("generation word overwritten: " + std::to_string(got[0]));
  for (u64 c = 0; c < counters; ++c)
    if (got[c + 1] != expect)
      return Status::fail("after re-import, counter " + std::to_string(c) + " holds " + std::to_string(got[c + 1]) +
                          ", expected exactly " + std::to_string(expect));
  return Status::pass();
}

}  // namespace vmr_gpu

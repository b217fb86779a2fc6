// How big each case's VMem buffer is, derived from the allocation granule in one plain function per case shape,
// with the words every kernel of the case touches. AMD's minimum granule is the 4 KiB page (ROCR
// amd_memory_region.cpp: RUNTIME_ALLOC_GRANULE is the page size; CLR hipMemGetAllocationGranularity returns it for
// MINIMUM and, in every release up to 7.2, for RECOMMENDED too), CUDA's is 2 MiB: a buffer of "one granule" holds
// 512 words on AMD. The unit tests run every plan at 4 KiB, 64 KiB and 2 MiB; the host helpers' guard
// (footprint.h) refuses at run time what a plan got wrong. Vendor-neutral and pure.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace vmr_gpu {

struct Footprint {  // one kernel's reach: words [first, first + words) of the buffer
  std::string kernel;
  size_t first = 0, words = 0;
};

struct SizePlan {
  size_t bytes = 0;  // the mapping, a whole number of granules
  std::vector<Footprint> kernels;
};

size_t round_up(size_t n, size_t granule);

// Empty when the plan is sound for `granule`: a non-empty whole number of granules holding every footprint.
// Otherwise one line naming what is wrong.
std::string plan_problem(const SizePlan& plan, size_t granule);

// read: the owner fills the whole buffer, checksums it; peers verify and checksum all of it.
SizePlan read_plan(size_t granule, size_t wanted_bytes);
// atomics (and uncached local): `counters` words zeroed, added into, read back.
SizePlan atomics_plan(size_t granule, size_t counters);
// pow2 remap and set-access-hole: blocks of one granule each, filled and verified whole.
SizePlan pow2_block_plan(size_t granule);
// set-access-subrange: block 0 is one granule, block 1 two, so that hipMemSetAccess(base + g, 2g) covers a whole
// mapping whose size differs from the first one (the case ROCm 7.x's prefix-sum check rejects); block 1 is
// filled and verified whole. Returns block 1's plan; block 0 is granule bytes.
SizePlan subrange_second_block_plan(size_t granule);
// peer-reimport: word 0 holds the generation, words 1..counters the counters peers add into.
SizePlan peer_reimport_plan(size_t granule, size_t counters);

// --- sizes past 2^31 and 2^32 bytes -------------------------------------------------------------------------------
// rocm-systems#4114 (legacy IPC over dma-buf hung past 2 GB: an int overflow) and iris#532 (faults at 768 MiB per
// rank and more): a byte offset held in 32 bits, or in a signed int, wraps inside a buffer this big, so each step
// writes and reads back the words on both sides of 2^31 and 2^32 bytes and runs its atomics across the highest of
// them. One granule past the power of two puts the last granule beyond the boundary.

struct SizeStep {
  std::string key;    // "1g", "2g", "4g": the suffix of this step's facts and metrics
  std::string label;  // "4 GiB + 1 granule": what a verdict names
  SizePlan plan;      // the whole mapping filled, verified and checksummed; the probes; the counters
  std::vector<size_t>
      probe_words;            // ascending: the first word, the words either side of each boundary inside, the last
  size_t counters_first = 0;  // the atomics' counters: words [counters_first, counters_first + counters)
  size_t counters = 0;        // straddling the highest boundary inside the buffer (else the last words)
};

// One step of `bytes` (rounded up to the granule) with `counters` atomics counters.
SizeStep size_step(size_t granule, size_t bytes, const std::string& key, const std::string& label, size_t counters);
// The sweep of the VMem binaries: 1 GiB, 2 GiB + one granule, 4 GiB + one granule per rank.
std::vector<SizeStep> size_sweep_plan(size_t granule, size_t counters);

// Whether `ranks_on_gpu` ranks (a pair's two ranks may share one GPU), each holding `bytes_per_rank` of its own
// device memory, fit in the `free_bytes` the runtime reports for `device`, leaving `headroom_per_rank` to each rank
// for what is not yet allocated when a rank measures (another rank's context, bounce buffers, page tables).
// `reason` is empty when they fit; otherwise the one line a SKIP gives, naming the step's label and every figure.
struct MemoryFit {
  bool fits = false;
  std::string reason;
};
constexpr size_t kHeadroomPerRank = size_t(1) << 30;
MemoryFit fits_in_free_memory(const std::string& label, size_t bytes_per_rank, int device, int ranks_on_gpu,
                              size_t free_bytes, size_t headroom_per_rank = kHeadroomPerRank);

}  // namespace vmr_gpu

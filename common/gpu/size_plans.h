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

}  // namespace vmr_gpu

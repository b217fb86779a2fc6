// The device code every GPU reproducer shares, one source for hipcc and nvcc (HIP and CUDA spell these
// intrinsics the same: atomicAdd_system, __threadfence_system, clock64). The kernels have internal linkage
// (an unnamed namespace), so any number of translation units may include this header without breaking the
// one-definition rule (tests/kernels_tu_a.cu checks it); [[maybe_unused]] because a binary launches only some of
// them, and clang warns for the rest.
//
// Reads and writes of VMem VAs go through these kernels rather than memset/memcpy: on ROCm, hipMemset and
// hipMemcpy silently fail on HSA-VMem VAs, which HIP's pointer tables do not know (seed 000).
#pragma once

#if defined(__HIP__) || defined(__HIPCC__)
#include <hip/hip_runtime.h>
#else
#include <cuda_runtime.h>
#endif

#include <cstddef>
#include <cstdint>

namespace vmr_gpu {

using u64 = unsigned long long;

// The pattern word i of the buffer owned by `owner` holds; shared with the host checks.
__host__ __device__ inline u64 pattern_word(u64 owner, u64 i) {
  u64 x = (owner << 40) ^ i ^ 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {  // the kernels: internal linkage (see above)

[[maybe_unused]] __global__ void k_zero(u64* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) p[i] = 0;
}

[[maybe_unused]] __global__ void k_fill_pattern(u64* p, size_t n, u64 owner) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = pattern_word(owner, i);
}

// Copies into a bounce buffer the host can read. The fence first: writes another GPU made to `src` before the
// host's barrier must be visible to this kernel's reads.
[[maybe_unused]] __global__ void k_copy(u64* dst, const u64* src, size_t n) {
  __threadfence_system();
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}

// Counts words that differ from the owner's pattern; remembers the lowest bad index.
[[maybe_unused]] __global__ void k_verify_pattern(const u64* p, size_t n, u64 owner, u64* mismatches, u64* first_bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (p[i] != pattern_word(owner, i)) {
      atomicAdd(mismatches, 1ull);
      atomicMin(first_bad, u64(i));
    }
}

// Every thread adds 1 `adds` times into counters[(global thread id + k) % ncounters]. With grid*block*adds a
// multiple of ncounters, every counter receives exactly grid*block*adds/ncounters.
[[maybe_unused]] __global__ void k_atomic_add_system(u64* counters, u64 ncounters, u64 adds) {
  u64 t = blockIdx.x * u64(blockDim.x) + threadIdx.x;
  for (u64 k = 0; k < adds; ++k) atomicAdd_system(&counters[(t + k) % ncounters], 1ull);
}

[[maybe_unused]] __global__ void k_atomic_add_device(u64* counters, u64 ncounters, u64 adds) {
  u64 t = blockIdx.x * u64(blockDim.x) + threadIdx.x;
  for (u64 k = 0; k < adds; ++k) atomicAdd(&counters[(t + k) % ncounters], 1ull);
}

// Sums every 64-bit word (mod 2^64) with 16-byte loads, four in flight per thread: the read-bandwidth workload,
// and a checksum both sides of a mapping can compare. blockDim.x must be kReduceThreads.
constexpr int kReduceThreads = 256;
[[maybe_unused]] __global__ void k_checksum(const ulonglong2* p, size_t n16, u64* out) {
  __shared__ u64 partial[kReduceThreads];
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  u64 sum = 0;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    ulonglong2 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    sum += a.x + a.y + b.x + b.y + c.x + c.y + d.x + d.y;
  }
  for (; i < n16; i += stride) sum += p[i].x + p[i].y;
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int s = kReduceThreads / 2; s > 0; s /= 2) {
    if (int(threadIdx.x) < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, partial[0]);
}

// Waits until *flag == value or `timeout_cycles` GPU clock cycles pass; *timed_out says which. No spin in this
// suite may be unbounded: a lost write must end as a reported failure, not a hung GPU.
[[maybe_unused]] __global__ void k_wait_flag(const volatile u64* flag, u64 value, long long timeout_cycles,
                                             u64* timed_out) {
  long long start = clock64();
  while (*flag != value) {
    if (clock64() - start > timeout_cycles) {
      *timed_out = 1;
      return;
    }
  }
  __threadfence_system();
  *timed_out = 0;
}

// Writes one word: used to touch a VA the caller believes mapped (or, in the fault self-test, unmapped).
[[maybe_unused]] __global__ void k_store(u64* p, u64 value) { *p = value; }

}  // namespace
}  // namespace vmr_gpu

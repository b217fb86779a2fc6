// What a kernel may touch: a mapped VMem range in words, and the guard every host helper runs before a launch.
// A kernel that reaches past its mapping faults the GPU, and on ROCm that looks exactly like the bug this suite
// reproduces; so an oversize launch is refused up front as a HARNESS verdict naming the suite's own mistake.
// Vendor-neutral and pure: unit-tested on the CPU.
#pragma once

#include <cstddef>
#include <string>

#include "harness/status.h"

namespace vmr_gpu {

using u64 = unsigned long long;

struct Span {  // words [p, p + words) of one mapping
  u64* p = nullptr;
  size_t words = 0;
  u64* at(size_t word) const { return p + word; }
};

// PASS when words [first, first + count) lie inside the span; HARNESS naming the kernel otherwise.
inline vmr::Status guard(const Span& s, size_t first, size_t count, const char* kernel) {
  if (first <= s.words && count <= s.words - first) return vmr::Status::pass();
  return vmr::Status::harness(std::string("suite bug, launch refused: ") + kernel + " would touch words [" +
                              std::to_string(first) + ", " + std::to_string(first + count) + ") of a mapping of " +
                              std::to_string(s.words) + " words (" + std::to_string(s.words * sizeof(u64)) +
                              " bytes); size the buffer from the granule (common/gpu/size_plans.h)");
}

}  // namespace vmr_gpu

#include "gpu/size_plans.h"

namespace vmr_gpu {

namespace {
constexpr size_t kWord = 8;  // every kernel works on 64-bit words
}

size_t round_up(size_t n, size_t granule) { return (n + granule - 1) / granule * granule; }

std::string plan_problem(const SizePlan& plan, size_t granule) {
  if (granule == 0) return "granule is 0";
  if (plan.bytes == 0 || plan.bytes % granule != 0)
    return "buffer of " + std::to_string(plan.bytes) + " bytes is not a whole number of " + std::to_string(granule) +
           "-byte granules";
  const size_t words = plan.bytes / kWord;
  for (const auto& k : plan.kernels)
    if (k.first > words || k.words > words - k.first)
      return k.kernel + " touches words [" + std::to_string(k.first) + ", " + std::to_string(k.first + k.words) +
             ") of a buffer of " + std::to_string(words) + " words";
  return "";
}

SizePlan read_plan(size_t granule, size_t wanted_bytes) {
  SizePlan p;
  p.bytes = round_up(wanted_bytes, granule);
  const size_t n = p.bytes / kWord;
  p.kernels = {{"k_fill_pattern", 0, n}, {"k_checksum", 0, n}, {"k_verify_pattern", 0, n}};
  return p;
}

SizePlan atomics_plan(size_t granule, size_t counters) {
  SizePlan p;
  p.bytes = round_up(counters * kWord, granule);
  p.kernels = {{"k_zero", 0, counters}, {"k_atomic_add", 0, counters}, {"k_copy", 0, counters}};
  return p;
}

SizePlan pow2_block_plan(size_t granule) {
  SizePlan p;
  p.bytes = granule;
  p.kernels = {{"k_fill_pattern", 0, granule / kWord}, {"k_verify_pattern", 0, granule / kWord}};
  return p;
}

SizePlan subrange_second_block_plan(size_t granule) {
  SizePlan p;
  p.bytes = 2 * granule;
  p.kernels = {{"k_fill_pattern", 0, p.bytes / kWord}, {"k_verify_pattern", 0, p.bytes / kWord}};
  return p;
}

SizePlan peer_reimport_plan(size_t granule, size_t counters) {
  SizePlan p;
  p.bytes = round_up((1 + counters) * kWord, granule);
  p.kernels = {{"k_zero", 0, p.bytes / kWord},
               {"k_store (generation)", 0, 1},
               {"k_wait_flag", 0, 1},
               {"k_atomic_add", 1, counters},
               {"k_copy", 0, 1 + counters}};
  return p;
}

}  // namespace vmr_gpu

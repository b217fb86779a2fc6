#include "gpu/size_plans.h"

namespace vmr_gpu {

namespace {
constexpr size_t kWord = 8;  // every kernel works on 64-bit words
}

// A runtime that answers a granule of 0 gets a plan of 0 bytes, which plan_problem names ("granule is 0") as the
// suite's HARNESS, never a division by zero that would read as the rank's CRASH.
size_t round_up(size_t n, size_t granule) {
  if (granule == 0) return 0;
  return (n + granule - 1) / granule * granule;
}

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

SizeStep size_step(size_t granule, size_t bytes, const std::string& key, const std::string& label, size_t counters) {
  SizeStep s;
  s.key = key;
  s.label = label;
  s.plan.bytes = round_up(bytes, granule);
  const size_t n = s.plan.bytes / kWord;
  s.counters = counters;
  s.counters_first = n >= counters ? n - counters : 0;  // no boundary inside: the last words
  s.probe_words.push_back(0);
  for (size_t boundary : {size_t(1) << 31, size_t(1) << 32}) {
    const size_t at = boundary / kWord;  // the first word at or past the boundary
    if (at >= n) continue;
    s.probe_words.push_back(at - 1);
    s.probe_words.push_back(at);
    if (at + counters / 2 <= n) s.counters_first = at - counters / 2;  // half below, half above
  }
  if (s.probe_words.back() != n - 1) s.probe_words.push_back(n - 1);
  s.plan.kernels = {{"k_fill_pattern", 0, n}, {"k_verify_pattern", 0, n}, {"k_checksum", 0, n}};
  for (size_t w : s.probe_words) {
    s.plan.kernels.push_back({"k_store (probe)", w, 1});
    s.plan.kernels.push_back({"k_copy (probe)", w, 1});
  }
  s.plan.kernels.push_back({"k_zero (counters)", s.counters_first, counters});
  s.plan.kernels.push_back({"k_atomic_add (counters)", s.counters_first, counters});
  s.plan.kernels.push_back({"k_copy (counters)", s.counters_first, counters});
  return s;
}

std::vector<SizeStep> size_sweep_plan(size_t granule, size_t counters) {
  constexpr size_t GiB = size_t(1) << 30;
  return {size_step(granule, GiB, "1g", "1 GiB", counters),
          size_step(granule, 2 * GiB + granule, "2g", "2 GiB + 1 granule", counters),
          size_step(granule, 4 * GiB + granule, "4g", "4 GiB + 1 granule", counters)};
}

MemoryFit fits_in_free_memory(const std::string& label, size_t bytes_per_rank, int device, int ranks_on_gpu,
                              size_t free_bytes, size_t headroom_per_rank) {
  const size_t ranks = ranks_on_gpu < 1 ? 1 : size_t(ranks_on_gpu);
  const size_t per_rank = bytes_per_rank + headroom_per_rank;
  const bool overflow = per_rank < bytes_per_rank || per_rank > size_t(-1) / ranks;
  const size_t need = overflow ? size_t(-1) : ranks * per_rank;
  if (!overflow && need <= free_bytes) return {true, ""};
  return {false, label + " per rank (" + std::to_string(bytes_per_rank) + " bytes) does not fit on GPU " +
                     std::to_string(device) + ": " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") +
                     " there need " + (overflow ? "more than " : "") + std::to_string(need) + " bytes with " +
                     std::to_string(headroom_per_rank >> 20) + " MiB headroom each, " + std::to_string(free_bytes) +
                     " bytes free"};
}

}  // namespace vmr_gpu

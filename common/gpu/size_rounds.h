// The rounds of the size cases (the VMem size sweep, the legacy IPC sizes), one source for HIP and CUDA, on the
// steps of gpu/size_plans.h (SizeStep): the plan from free memory that every rank agrees on, the probe words either
// side of 2^31 and 2^32 bytes written and read back across processes, and system-scope atomics across the highest
// boundary. A byte offset kept in 32 bits, or in a signed int, anywhere between the kernel and the page tables lands
// a probe on another word (rocm-systems#4114, iris#532). Internal linkage, as gpu_host.h.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "gpu/gpu_host.h"
#include "gpu/size_plans.h"

namespace vmr_gpu {
namespace {

// Words [first, first + n) of a span as a span of their own, behind the footprint guard.
inline Status sub_span(const Span& s, size_t first, size_t n, const char* kernel, Span* out) {
  VMR_TRY(guard(s, first, n, kernel));
  *out = {s.at(first), n};
  return Status::pass();
}

// Whether every rank's `bytes_per_rank` of `label` fits on its GPU (fits_in_free_memory over the free memory its
// runtime reports and the ranks sharing that GPU), agreed by all ranks so that all run the same sizes: PASS, or the
// SKIP naming the size and every figure of the first rank it does not fit on, or a failed query.
inline Status agree_fit(vmr::RankContext& ctx, const std::string& label, size_t bytes_per_rank) {
  size_t free = 0;
  VMR_TRY(device_free_bytes(&free));
  const std::vector<int>& devices = ctx.devices();
  const int on_gpu = int(std::count(devices.begin(), devices.end(), ctx.device()));
  const MemoryFit mine = fits_in_free_memory(label, bytes_per_rank, ctx.device(), on_gpu, free);
  return ctx.agree(mine.fits ? Status::pass() : Status::skip(mine.reason));
}

// What the peer that writes a probe word leaves there: unlike any rank's pattern word at any index.
inline u64 probe_marker(int writer, size_t word) { return ~pattern_word(u64(writer), word); }

// The owner's probe words (its memory holds its pattern): every peer reads each through its own mapping and must
// see the owner's pattern word; then the next rank after each owner writes a marker into each through its mapping,
// and the owner reads them back from its own. Failures name the word and its byte offset (the caller, the size).
inline Status probe_round(vmr::RankContext& ctx, const Span& own, const std::vector<Span>& peers,
                          const std::vector<size_t>& words) {
  const auto at = [](size_t w) { return "word " + std::to_string(w) + " (byte offset " + std::to_string(w * 8) + ")"; };
  std::vector<u64> got;
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    for (size_t w : words) {
      VMR_TRY(read_words(peers[j], w, 1, &got));
      if (got[0] != pattern_word(u64(j), w))
        return Status::fail(at(w) + " of rank " + std::to_string(j) +
                            "'s memory read through this rank's mapping holds " + std::to_string(got[0]) +
                            ", the owner wrote " + std::to_string(pattern_word(u64(j), w)));
    }
  }
  VMR_TRY(ctx.mesh().barrier("probes-read"));
  const int target = (ctx.rank() + ctx.ranks() - 1) % ctx.ranks(), writer = (ctx.rank() + 1) % ctx.ranks();
  for (size_t w : words) VMR_TRY(store_word(peers[target], w, probe_marker(ctx.rank(), w)));
  VMR_TRY(ctx.mesh().barrier("probes-written"));
  for (size_t w : words) {
    VMR_TRY(read_words(own, w, 1, &got));
    if (got[0] != probe_marker(writer, w))
      return Status::fail(at(w) + " that rank " + std::to_string(writer) + " wrote through its mapping holds " +
                          std::to_string(got[0]) + " in the owner's memory, " + "expected " +
                          std::to_string(probe_marker(writer, w)));
  }
  return ctx.mesh().barrier("probes-checked");
}

// System-scope atomics on the step's counters (across its highest boundary) of every peer's memory, exact in every
// owner's; the rate as the metric `rate_metric`. A wrong count is a FAIL naming the counters' words.
inline Status atomics_across(vmr::RankContext& ctx, const Span& own, const std::vector<Span>& peers,
                             const SizeStep& step, const std::string& rate_metric, AtomicsRound* round) {
  Span own_counters;
  VMR_TRY(sub_span(own, step.counters_first, step.counters, "k_atomic_add_system (counters)", &own_counters));
  std::vector<Span> peer_counters(peers.size());
  for (size_t j = 0; j < peers.size(); ++j)
    if (int(j) != ctx.rank())
      VMR_TRY(
          sub_span(peers[j], step.counters_first, step.counters, "k_atomic_add_system (counters)", &peer_counters[j]));
  round->counters = step.counters;
  round->rate_metric = rate_metric;
  VMR_TRY(remote_atomics_round(ctx, own_counters, peer_counters, true, "atomics-" + step.key, round));
  if (!round->mismatch.empty())
    return Status::fail("system-scope atomics on words [" + std::to_string(step.counters_first) + ", " +
                        std::to_string(step.counters_first + step.counters) + "): " + round->mismatch);
  return Status::pass();
}

}  // namespace
}  // namespace vmr_gpu

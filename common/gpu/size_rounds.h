// The rounds of the large-size cases (size_plans.h size_step: 1 GiB, 2 GiB and 4 GiB + one granule per rank; legacy
// IPC at 256 MiB and 2 GiB + one granule), one source for HIP and CUDA: the probe words either side of 2^31 and 2^32
// bytes written by a peer and read back by their owner, and the atomics counters where the plan puts them. A wrapped
// 32-bit or signed offset (rocm-systems#4114) lands such a write somewhere else, and the owner sees its word unchanged.
// (gpu_host.h: its kernels, so this header is for the HIP and CUDA sources only.)
#pragma once

#include <string>
#include <vector>

#include "gpu/gpu_host.h"
#include "gpu/size_plans.h"
#include "harness/rank_context.h"
#include "harness/status.h"

namespace vmr_gpu {

namespace {  // internal linkage, as gpu_host.h's helpers

// What `writer` stores into word w of the next rank's memory: never a word of any owner's pattern at w.
inline u64 probe_value(int writer, size_t w) { return ~pattern_word(u64(writer), w); }

// Each rank writes the step's probe words into the next rank's memory through its mapping of it (peers[next]); each
// owner then reads its own probe words back. A FAIL names the word, its byte offset and both values.
inline vmr::Status probes_round_trip(vmr::RankContext& ctx, const SizeStep& step, const Span& own,
                                     const std::vector<Span>& peers) {
  const int next = (ctx.rank() + 1) % ctx.ranks(), prev = (ctx.rank() + ctx.ranks() - 1) % ctx.ranks();
  if (next != ctx.rank())
    for (size_t w : step.probe_words) VMR_TRY(store_word(peers[next], w, probe_value(ctx.rank(), w)));
  VMR_TRY(ctx.mesh().barrier("probes-written"));
  if (prev != ctx.rank())
    for (size_t w : step.probe_words) {
      std::vector<u64> got;
      VMR_TRY(read_words(own, w, 1, &got));
      if (got[0] != probe_value(prev, w))
        return vmr::Status::fail("word " + std::to_string(w) + " (byte offset " + std::to_string(w * sizeof(u64)) +
                                 ") of rank " + std::to_string(ctx.rank()) + "'s memory holds " +
                                 std::to_string(got[0]) + " after rank " + std::to_string(prev) + " wrote " +
                                 std::to_string(probe_value(prev, w)) + " there through its mapping");
    }
  return ctx.mesh().barrier("probes-read");
}

// The step's counters within a mapping (empty for an empty one, this rank's own slot among the peers), refused as
// HARNESS where they would reach past it.
inline vmr::Status counters_of(const Span& s, const SizeStep& step, Span* out) {
  *out = {};
  if (!s.p) return vmr::Status::pass();
  VMR_TRY(guard(s, step.counters_first, step.counters, "k_atomic_add (counters)"));
  *out = Span{s.at(step.counters_first), step.counters};
  return vmr::Status::pass();
}

// System-scope atomics from every peer into every owner's counters of the step; a wrong count is the FAIL.
inline vmr::Status step_atomics(vmr::RankContext& ctx, const SizeStep& step, const Span& own,
                                const std::vector<Span>& peers, const std::string& label, AtomicsRound* round) {
  Span mine;
  VMR_TRY(counters_of(own, step, &mine));
  std::vector<Span> theirs(peers.size());
  for (size_t j = 0; j < peers.size(); ++j) VMR_TRY(counters_of(peers[j], step, &theirs[j]));
  round->counters = step.counters;
  VMR_TRY(remote_atomics_round(ctx, mine, theirs, true, "system-" + step.key, round));
  if (!round->mismatch.empty()) return vmr::Status::fail(label + ", system-scope atomics: " + round->mismatch);
  return vmr::Status::pass();
}

}  // namespace
}  // namespace vmr_gpu

// A reproducer binary's table: its backend, its per-rank state, its cases and their describe step, as a binary
// declares them (Binary<State>) and as the launcher, the rank process and the device probe read them with the state
// bound in (ReproBinary). The roles below the entry (harness.h) include this, never the entry itself.
#pragma once

#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/rank_context.h"
#include "harness/status.h"

namespace vmr {

// The state of a binary whose describe step learns nothing its cases read (the host baseline, the unit tests).
struct NoState {};

// A binary's table, typed by what its describe step learns once per rank (granule, agent, runtime conventions) and
// every case reads: the state is a value the harness holds for the rank's life and hands to each case, never a
// global a case could read before describe filled it.
template <class State>
struct Case {
  const char* name;         // stable key: [a-z0-9-]+
  const char* description;  // one line for --list
  Status (*run)(RankContext& ctx, const State& state);
  double default_timeout_s = 0;  // used when --timeout is not given; 0: the suite's default (60 s)
  // What the case's ranks find in their environment before any GPU runtime starts, where it differs from the
  // launcher's: blank-separated `NAME=VALUE` (set) and `NAME` (removed), as env(1) -u would; "" keeps it as is.
  // Cases of one rank life share it (the launcher starts fresh ranks where it changes): harness/case_environment.h.
  const char* environment = "";
};

template <class State>
struct Binary {
  const char* name;
  const char* backend;  // "host", "hip", "hsa", "cuda": the CTest label and the JSON's backend
  // Runs in every rank before its cases: reports runtime/driver versions and the device the rank really uses with
  // ctx.info(), fills *state, and returns SKIP (with the runtime's own answer) when this machine cannot run.
  Status (*describe)(RankContext& ctx, State* state);
  std::vector<Case<State>> cases;
  // How many devices the runtime shows this process (the count describe checks the ranks' devices against), or
  // SKIP with the runtime's answer. Asked in a probe process when nothing chose the devices, so that a node with
  // fewer GPUs than ranks runs them folded onto its GPUs (options.h default_devices). None: nothing to count (host).
  Status (*count_devices)(int* count) = nullptr;
};

// The same table with the state bound in, as the launcher and the rank process use it.
struct CaseDef {
  const char* name;
  const char* description;
  std::function<Status(RankContext&)> run;
  double default_timeout_s = 0;
  const char* environment = "";
};

struct ReproBinary {
  const char* name;
  const char* backend;
  std::function<Status(RankContext&)> describe;
  std::vector<CaseDef> cases;
  Status (*count_devices)(int* count) = nullptr;
};

// A state may say, after each case, whether what the case left behind is sound: `Status after_case() const`.
// vmr_hip's owners find a stale unmap only in their destructors, at the case's end; without this check the next
// case would be the one to FAIL for it.
template <class State, class = void>
struct HasAfterCase : std::false_type {};
template <class State>
struct HasAfterCase<State, std::void_t<decltype(std::declval<const State&>().after_case())>> : std::true_type {};

template <class State>
Status run_bound_case(Status (*run)(RankContext&, const State&), RankContext& ctx, const State& state) {
  const Status result = run(ctx, state);
  if constexpr (HasAfterCase<State>::value) {
    if (result.verdict == Verdict::Pass || result.verdict == Verdict::Skip) {
      const Status after = state.after_case();
      if (!after.ok()) return Status{after.verdict, "after the case: " + after.detail};
    }
  }
  return result;
}

// The table with `state` bound in: one state per process, since a rank's life runs describe once, then its cases,
// and a rank never returns from repro_main (it ends with _exit), so the state outlives every case.
template <class State>
ReproBinary bind_state(const Binary<State>& binary, State* state) {
  ReproBinary bound{binary.name,
                    binary.backend,
                    [describe = binary.describe, state](RankContext& ctx) { return describe(ctx, state); },
                    {},
                    binary.count_devices};
  for (const auto& c : binary.cases)
    bound.cases.push_back({c.name, c.description,
                           [run = c.run, state](RankContext& ctx) { return run_bound_case(run, ctx, *state); },
                           c.default_timeout_s, c.environment});
  return bound;
}

}  // namespace vmr

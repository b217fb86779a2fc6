// The harness's public entry: what a reproducer binary declares (its backend, its per-rank state and its cases:
// binary_table.h) and everything a case uses (RankContext with its mesh, Status and VMR_TRY, UniqueFd and ScopeExit).
// main() is one line: return vmr::repro_main(binary, argc, argv). Only reproducers (repro/) and tests include this;
// the harness's own roles (launcher, rank process, device probe) sit below it and include binary_table.h.
#pragma once

#include "harness/binary_table.h"
#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

namespace vmr {

// The whole program: a rank when argv carries the rank flag, the device probe with the device-count flag, otherwise
// the launcher.
int repro_main(const ReproBinary& binary, int argc, char** argv);

template <class State>
int repro_main(const Binary<State>& binary, int argc, char** argv) {
  static State state{};
  return repro_main(bind_state(binary, &state), argc, argv);
}

}  // namespace vmr

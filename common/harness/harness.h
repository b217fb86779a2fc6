// The harness's public entry: what a reproducer binary declares (its backend and its cases) and everything a case
// uses (RankContext with its mesh, Status and VMR_TRY, UniqueFd and ScopeExit). main() is one line:
// return vmr::repro_main(...).
#pragma once

#include <string>
#include <vector>

#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

namespace vmr {

using CaseFn = Status (*)(RankContext&);

struct CaseDef {
  const char* name;         // stable key: [a-z0-9-]+
  const char* description;  // one line for --list
  CaseFn run;
  double default_timeout_s = 0;  // used when --timeout is not given; 0: the suite's default (60 s)
};

struct Backend {
  const char* name;  // "host", "hip", "hsa", "cuda": the CTest label and the JSON's backend
  // Runs in every rank before its case: reports runtime/driver versions and the device the rank really uses
  // with ctx.info(), fills the binary's per-rank state, and returns SKIP (with the runtime's own answer) when this
  // machine cannot run the case.
  Status (*describe_rank)(RankContext& ctx);
};

struct ReproBinary {
  const char* name;
  Backend backend;
  std::vector<CaseDef> cases;
};

// The whole program: a rank when argv carries the rank flag, otherwise the launcher.
int repro_main(const ReproBinary& binary, int argc, char** argv);

}  // namespace vmr

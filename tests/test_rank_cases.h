#pragma once

#include "harness/harness.h"

namespace vmr_test {
// Rank-side behaviours the launcher tests drive: pass, crash, block, leave, skip on one rank, lie about the exit.
const vmr::ReproBinary& rank_cases();
}  // namespace vmr_test

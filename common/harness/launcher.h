// The process a user (or CTest) starts: it parses the command line, runs each selected case in fresh ranks under
// the supervisor, and prints the summary. It never touches a GPU runtime.
#pragma once

#include <vector>

#include "harness/binary_table.h"
#include "harness/expected.h"
#include "harness/options.h"

namespace vmr {

// The cases a run takes (--case's, --all's or a plain run's), in the binary's order but those CTest expects to fail
// (ctest_will_fail: no PASS in the unconditional row of `table`, or a known crash) last.
std::vector<const CaseDef*> select_cases(const std::vector<ExpectedRow>& table, const ReproBinary& bin,
                                         const Options& o);

// One past the last of the cases from `first` that one rank life may take: those that share the environment of
// selected[first] (binary_table.h Case::environment), which every case's must parse (launcher_main checks it).
size_t same_environment_end(const std::vector<const CaseDef*>& selected, size_t first);

// Returns the exit code of the verdict contract.
int launcher_main(const ReproBinary& bin, int argc, char** argv);

}  // namespace vmr

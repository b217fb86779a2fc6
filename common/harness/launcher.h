// The process a user (or CTest) starts: it parses the command line, runs each selected case in fresh ranks under
// the supervisor, and prints the summary. It never touches a GPU runtime.
#pragma once

#include "harness/binary_table.h"

namespace vmr {

// Returns the exit code of the verdict contract.
int launcher_main(const ReproBinary& bin, int argc, char** argv);

}  // namespace vmr

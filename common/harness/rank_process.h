#pragma once

#include "harness/binary_table.h"

namespace vmr {

// Runs one rank: parses the rank flag, joins the mesh, runs the backend check and the case, writes the record.
// Returns the exit code; the caller exits with it.
int rank_main(const ReproBinary& bin, int argc, char** argv);

}  // namespace vmr

// check_expected's comparison, the expected_verdicts test's and the triage's: every run record of a results folder
// against expected/verdicts.md (one row per case and pair; see compare.h for the rule), and the table against the
// binaries (each built binary's --list, the build's manifest). A case that should have run and left no readable
// record is CHANGED, never "not run": a launcher that died must not pass.
#pragma once

#include <string>
#include <vector>

#include "harness/expected.h"
#include "report.h"
#include "run_records.h"

namespace vmr_tools {

struct CheckInputs {
  std::string table_path;             // named in table problems
  std::string results;                // the folder of run records
  std::vector<std::string> binaries;  // --binary: each one's --list is checked, and its cases must have records
  std::string manifest;               // --manifest: the build's bin/manifest.txt (empty: none): binary, backend,
                                      // toolchain (ok: it works, so the build makes it; missing), ...
  std::string plan;                   // --plan: what the run set out to run (empty: every case of every --binary)
  std::string lists;                  // --lists: a folder of <binary>.json, each its --list --json (scripts/triage's
                                      // lists/), read instead of listing the binary again; one not there is listed,
                                      // unless <binary>.failed there says why that run could not list it
};

struct Check {
  Summary summary;        // the rows, their counts and each problem's line (summary.problem_lines), in the order found
  std::vector<Run> runs;  // every record read, for the reports made from runs (failures, GPUs)
  int listings_failed = 0;  // binaries that could not list their cases ("LIST:" problems): the suite's, not the node's
};

// Compares as above. Every record is in some row: one no table row covers is CHANGED ("no row for B.C in TABLE").
// A binary the manifest says its build makes (toolchain "ok") that is not there is one "BUILD:" problem naming it
// (a partial or failed build), never a problem per row: its rows are compared like any binary's that is not built.
// A file of the results folder the reader refuses (tools/input_file.h: a FIFO, a symlink out of the folder, ...) is
// one "INPUT:" problem naming it (a suite problem to the health check), never a row: the node did not leave it.
// A binary that cannot list its cases (it crashed, hung, refused; its saved list unreadable) is one "LIST:" problem
// naming it, counted in listings_failed: the suite's or the binary's problem, never a verdict on the node.
// Where the records name more than one node, the folder's name is the node's and each record of another node is an
// unreadable record's row ("run record F is a record of node N2, not of N1"). summary.node holds the facts every
// usable record agrees on. Harness status naming the input where --manifest or --plan cannot be read (exit 99).
vmr::Status run_check(const CheckInputs& in, const std::vector<vmr::ExpectedRow>& table, Check* out);

// The row run_check makes of one readable run of a case the table has: its standing, expected and allowed verdicts,
// result, evidence and issue labels.
Row row_of_run(const std::vector<vmr::ExpectedRow>& table, const Run& run);

}  // namespace vmr_tools

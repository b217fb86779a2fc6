// Observed against expected: the one rule by which every tool (check_expected's rows, bug-report's failures, the
// fleet's cells and JUnit cases) decides whether a run is as expected/verdicts.md says. Written once so that a
// SKIP, a run no row covers and a right verdict for the wrong reason read the same in every report.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/expected.h"
#include "run_records.h"

namespace vmr_tools {

// The expected table at `path`, parsed (errors name `path`, not expected/verdicts.md). Usage status where it cannot
// be read or parsed: a bad table is the caller's input, exit 2 in every tool.
vmr::Status load_expected_table(const std::string& path, std::vector<vmr::ExpectedRow>* table);

enum class Standing {
  Ok,            // the row allows the verdict (and, for a non-PASS, names a reason the detail has)
  NotRun,        // SKIP: cannot run here, never a difference whatever the row expects
  WrongVerdict,  // a verdict the row does not allow
  WrongReason,   // an allowed non-PASS verdict, for none of the row's reasons
  NoRow,         // no row of the table covers this run
  Unreadable,    // the record could not be read (run.error)
  // A run that was to leave a record and left none (a row's standing: compare_run, which has a record, never gives
  // it).
  MissingRecord,
};

// summary.json's names of the standings ("ok", "not_run", "changed_verdict", "changed_reason", "no_row",
// "unreadable_record", "missing_record"), and back (false for any other text).
const char* standing_name(Standing s);
bool standing_from_name(std::string_view name, Standing* out);
// Whether a row of this standing is CHANGED (differs from the table or lacks its record).
inline bool standing_differs(Standing s) { return s != Standing::Ok && s != Standing::NotRun; }

struct Comparison {
  // The rows that may apply to the run's facts (vmr::expected_rows): one where the facts decide, several where a
  // release known only to major.minor leaves a patch-level condition open; empty where none applies.
  std::vector<const vmr::ExpectedRow*> rows;
  // The one of them that judged the run: the first that allows it, else the first allowing its verdict for
  // another reason, else the first; null where none applies.
  const vmr::ExpectedRow* row = nullptr;
  Standing standing = Standing::NoRow;

  bool differs() const { return standing_differs(standing); }
  // The verdict cells of the rows ("CRASH/FAIL ~Memory access fault", several joined by " or "), "-" where no row
  // applies.
  std::string expected() const;
};

// How `run` stands against `table`: the first row whose condition holds on the run's facts decides, and so may any
// row before it that the facts leave open (each of them is an expected outcome).
Comparison compare_run(const std::vector<vmr::ExpectedRow>& table, const Run& run);

// The result column of check_expected's rows: "OK", "not run (skipped: <detail>)", or "CHANGED: ..." naming what
// differs and the row's line and evidence.
std::string result_text(const Comparison& c, const Run& run);

}  // namespace vmr_tools

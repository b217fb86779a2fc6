// The reports the tools write and the one way they write them. check_expected's comparison is a Summary (its rows
// and counts): the console table, summary.json, the Markdown section, the matrices and the JUnit file are each a
// view of it, and the triage's report.md is the same Markdown read back from summary.json, so the two cannot drift.
// Every file goes through write_report (the harness's atomic write), and a file that could not be written is one
// line naming it, never "written".
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compare.h"
#include "harness/expected.h"
#include "pair.h"
#include "run_records.h"

namespace vmr_tools {

// One row of check_expected's comparison: a case (and GPU pair) with what was expected, what was observed, how it
// stands and the result in words ("OK", "not run (...)", "CHANGED: ...").
struct Row {
  std::string name;  // "binary.case"; an unreadable record's row: its file name
  Pair pair;         // the GPUs the run chose (empty where it did not: a host run)
  // The verdict the record holds; none where there is no record (MissingRecord) or it could not be read (Unreadable).
  std::optional<vmr::Verdict> observed;
  std::string expected;        // the verdict cells of the rows that may apply (Comparison::expected), "-": none
  std::string result, detail;  // result: "OK", "not run (...)", "CHANGED: ..." (result_text)
  std::string evidence;
  Standing standing = Standing::Ok;
  std::vector<std::string> issues;    // the case's issue labels ("iris#418"), the regressions it points to
  std::string binary, case_name;      // "" in an unreadable record's row
  std::vector<vmr::Verdict> allowed;  // what the rows that may apply allow
  std::vector<std::string> reasons;   // and the reasons a non-PASS must give (one of them; none: any)
  std::vector<vmr::Metric> metrics;   // every case-level metric, with its unit
  std::string why_not_run;            // a NotRun row's reason ("skipped: no NVIDIA driver", "binary not built here")

  bool changed() const { return standing_differs(standing); }
  bool not_run() const { return standing == Standing::NotRun; }
};

// The observed column as a reader sees it: the verdict's name, "-" for no record, "?" for an unreadable one.
std::string observed_text(const Row& r);
// The first metric as a cell shows it ("12.5 GB/s"), "" where the row has none.
std::string first_metric_text(const Row& r);

// Whether a row points a reader to its threads: it differs from the table, or the case failed (FAIL, CRASH, HANG)
// even as expected, and the case names a thread; never where the observed verdict is none of the node's (HARNESS,
// USAGE, an unreadable record, no record).
bool points_to_threads(const Row& r);

struct Summary {
  std::vector<Row> rows;
  int ok = 0, changed = 0, not_run = 0, problems = 0;  // problems: table problems, counted beside the rows
  // Each problem's line as check_expected prints it ("TABLE: ...", "BUILD: ..."): what a reader of summary.json
  // (the health line) names.
  std::vector<std::string> problem_lines;
  Facts node;  // the node's facts: each of the records' environment and rank 0's info that they all agree on
};

// Sets ok, changed and not_run from the rows.
void count_rows(Summary* s);
// A Summary holding `rows`, counted.
Summary summary_of(std::vector<Row> rows);
// Whether some case ran on GPUs (a row with a pair) to a verdict other than SKIP: without one a node where nothing
// could run would read "all as expected" (the triage's exit 77).
bool some_gpu_case_ran(const std::vector<Row>& rows);

// summary.json's schema (schemas/vmem-repro-summary-2.schema.json says each field): a reader refuses any other.
inline constexpr const char* kSummarySchema = "vmem-repro-summary/2";
// summary.json: the counts, the problems, the node's facts and every row, typed (GPU indices, the observed verdict
// or null, the standing, the allowed verdicts and reasons, issue labels, metrics as numbers with units).
std::string summary_json(const Summary& s);
// The Summary summary_json wrote. Harness status naming `source` in one line where the text is not such a summary
// (another schema version is named: "... is vmem-repro-summary/1, not vmem-repro-summary/2").
vmr::Status read_summary_json(std::string_view text, const std::string& source, Summary* s);
// Whether `text` is a summary of another version of the tools (its schema vmem-repro-summary/N, not this one's):
// the input's problem to the fleet, never a verdict on the node whose folder holds it.
bool is_other_summary_version(std::string_view text);
// The start of a problem line for a file of the results folder the reader refused (a FIFO, a symlink out of the
// folder): a problem of the input, not the node's (the fleet reports it as such).
inline constexpr const char* kInputProblem = "INPUT: ";
// Why the rows of a binary that could not list its cases were not run (their why_not_run; its LIST: problem says
// more): what tells a reader of summary.json (the triage's last line) which binaries could not list.
inline constexpr const char* kUnlistedWhy = "its cases could not be listed: see the LIST problem";
// The binaries of `s` that could not list their cases, each once, in the rows' order.
std::vector<std::string> unlisted_binaries(const Summary& s);
// "3 OK, 1 CHANGED, 0 not run, 0 table problems": the counts line of the console table, report.md and a script's
// closing line.
std::string counts_text(const Summary& s);

// The console table: case / pair / expected / observed / result for every row that ran (OK, CHANGED, failing, a
// SKIP with its reason), the rows with no run behind them folded into one line per reason ("31 case runs not run
// (binary not built here): repro_x (5), ..."), then the counts.
std::string console_table(const Summary& s);
// One case's rank 0's GPU x rank 1's GPU matrix, the one model the console's, report.md's and report.html's matrices
// show.
struct MatrixCell {
  std::string text;      // "PASS 12.5 GB/s", with " (CHANGED)" and " (mesh)" where they hold
  std::string observed;  // observed_text of its row: a verdict's name, "-" or "?"
  bool changed = false;
};
struct PairMatrix {
  std::string name;                                                 // the case
  std::set<std::string> gpus;                                       // every GPU a run of it used
  std::map<std::pair<std::string, std::string>, MatrixCell> cells;  // (rank 0's GPU, rank 1's GPU) that ran
  // A cell's text; the diagonal is the same-GPU pair (both ranks on one GPU): "-" where no run put it there (a mesh
  // has no rank pair on one GPU), any other pair without a run "not run".
  std::string text(const std::string& row, const std::string& column) const;
};
// What a cell's figure measures (harness/read_direction.h), said with every matrix.
// Rows and columns are rank 0's and rank 1's GPUs, not "exporter" and "importer": in the atomics and symmetric cases
// both ranks export and import.
inline constexpr const char* kMatrixCellDirection =
    "a bandwidth is data moving from the row's GPU to the column's (rank 1 reads rank 0's memory)";
// The matrix of every case that ran on GPU pairs, by case name. A mesh run (one rank per GPU, "0-1-2-3": every rank
// imports from every other) fills every ordered pair of its GPUs; a run of one pair then overrides its cell, so the
// failing pairs are named. `every_case` false (the console): only the cases that ran on 2 or more GPUs or have a row
// that differs or did not pass.
std::vector<PairMatrix> pair_matrices(const std::vector<Row>& rows, bool every_case);
// Rank 0's GPU x rank 1's GPU matrices for every case that ran on GPU pairs, as text or as Markdown tables.
// `every_case` false (the console): only the cases that ran on 2 or more GPUs or have a row that differs or did not
// pass; a one-GPU node's 1x1 matrices of PASS say nothing the table did not.
std::string matrices(const std::vector<Row>& rows, bool markdown, bool every_case);
// "## Verdicts against expected/verdicts.md": the counts, the rows and the matrices in Markdown.
std::string verdicts_md(const Summary& s);
// JUnit XML: a testcase per case and pair; CHANGED is a failure, "not run" a skip with its reason.
std::string rows_junit(const std::vector<Row>& rows);

// What scripts/triage knows of its own run, for the head of report.md.
struct TriageFacts {
  std::string when;  // "2025-01-31 12:00 UTC"
  std::string node;  // "host, Linux 6.1.0-18-amd64": uname's node name, system and release
  std::string launches, took, concurrency, modelled;
  std::vector<std::string> notes;  // one per backend: what it ran, or why nothing
};
// report.md: a heading with the date, the node, the launches and their time, each backend's note, then verdicts_md.
std::string triage_report_md(const TriageFacts& t, const Summary& s);

// For a bug report, from the triage's summary: every row whose run did not pass or differs from expected/, with its
// command and, from its record among `runs` (the summary holds no stderr), the last stderr lines of each rank (where
// ROCm's "Memory access fault by GPU node-N ... Reason: ..." appears).
std::string failures_md(const Summary& s, const std::vector<Run>& runs);
// The same rows for a script (scripts/bug-report finds each one's minimal reproducer): one line each,
// "<binary>\t<case>\t<devices as --devices takes them, or ->\t<verdict>\t<expected>\t<detail, one line>"; only
// the detail may be empty (any other field empty is "-").
std::string failing_runs_tsv(const Summary& s);
// Every GPU the runs used, once, with what tells nodes apart.
std::string gpus_md(const std::vector<Run>& runs);
// The backends (host, hip, hsa, cuda) of which some case ran to a verdict other than SKIP, one a line.
std::string backends_ran(const std::vector<Run>& runs);
// The ROCm versions the AMD runs reported, each once, as Markdown list items.
std::string rocm_versions_md(const std::vector<Run>& runs);

// Writes `text` to `path` through the suite's one writer (harness/output_file.h, as every binary's --json): a
// regular file atomically, anything else (a symlink, /dev/full, /dev/stdout, a FIFO) in place, never replaced. Harness
// status "cannot write PATH: ..." naming the failing step and errno.
vmr::Status write_report(const std::string& path, std::string_view text);

// One output of a tool: a path (empty: not asked for) and its text, made only when it is to be written.
struct Output {
  std::string path;
  std::function<std::string()> text;
};
// Writes every asked-for output; for each that fails, one line "TOOL: cannot write PATH: ..." on stderr. False where
// any failed (the tool's exit 99).
bool write_reports(const char* tool, const std::vector<Output>& outputs);

}  // namespace vmr_tools

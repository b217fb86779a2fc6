// Compares observed verdicts with expected/verdicts.md: the expected_verdicts test, the triage's summary and its
// report.md, and what scripts read of a run record. One mode per first flag (kModes below); without one, the
// comparison:
//
// Reads every run record (*.json) in a results directory: one per case from CTest (<binary>.<case>.json), or one
// per case and GPU pair from scripts/triage. Prints case / expected / observed / OK-or-CHANGED (a skip is
// "not run" with its reason, never CHANGED; a case that should have run and left no readable record is CHANGED),
// checks that the table and each binary's --list agree, and on request prints rank 0 x rank 1 GPU matrices and
// writes summary.json and a Markdown report. With --manifest (the build's bin/manifest.txt) a row naming a binary
// the project does not have is a table problem, and every built binary's --list is checked as with --binary.
//
// Exit codes as every tool's (docs/design.md "Exit codes"): 0 all as expected, 1 any CHANGED or table problem, 2 a bad
// command line or an unreadable or malformed table, 77 with --gpu-run-required where nothing differs but no GPU
// case ran, 99 an input that could not be read or an output that could not be written (nothing is claimed written
// that was not).
#include <limits.h>
#include <sys/utsname.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "bisect_judge.h"
#include "case_list.h"
#include "compare.h"
#include "flags.h"
#include "harness/text.h"
#include "health_line.h"
#include "input_file.h"
#include "markdown.h"
#include "prom.h"
#include "report.h"
#include "report_html.h"
#include "run_records.h"
#include "verdict_check.h"

namespace {

using namespace vmr;
using namespace vmr_tools;

const char kSynopsis[] =
    "usage: check_expected --table FILE --results DIR [--binary PATH]... [--lists DIR] [--manifest FILE]\n"
    "                      [--plan FILE] [--matrix] [--gpu-run-required]\n"
    "                      [--summary-json FILE] [--markdown FILE] [--junit FILE] [--prom FILE --prom-took SECONDS]\n"
    "       check_expected --record FILE.json\n"
    "       check_expected --cases LIST.json [--with-opt-in]\n"
    "       check_expected --report-md FILE --summary SUMMARY.json --launches N --took SECONDS --modelled SECONDS\n"
    "                      --concurrency TEXT [--note TEXT]...\n"
    "       check_expected --bisect expected|pass --results DIR [--table FILE] [--runtime-dir DIR]...\n"
    "                      --case BINARY.CASE...\n"
    "       check_expected --health-line [--summary SUMMARY.json] [--exit N] [--took S] [--overran B] "
    "[--require-gpu]\n"
    "       check_expected --counts SUMMARY.json\n"
    "       check_expected --unlisted SUMMARY.json\n"
    "       check_expected --from-summary SUMMARY.json [--junit FILE] [--html FILE]\n"
    "                      [--prom FILE --prom-took S --prom-exit N]\n"
    "                      [--markdown FILE] [--failing-tsv FILE] [--results DIR [--failures-md FILE]\n"
    "                      [--gpus-md FILE] [--backends-ran FILE] [--rocm-md FILE]]\n"
    "       check_expected --publish FILE --from SOURCE\n"
    "       check_expected --md-text TEXT...\n"
    "       check_expected --md-fence FILE [--info WORD]\n";
const char kModeHelp[] =
    "  (compare)    every run record of --results against --table; prints a row per case and pair, writes the\n"
    "               outputs asked for; --plan: the cases (and GPU pairs) that must have left records; --lists:\n"
    "               a folder of <binary>.json (--list --json) read instead of listing each binary again;\n"
    "               --gpu-run-required: exit 77 where nothing differs but no GPU case ran to a verdict;\n"
    "               --prom: a Prometheus textfile for node_exporter (verdicts, metrics, this exit code as the\n"
    "               outcome, --prom-took seconds as the duration)\n"
    "  --record     the verdict of each case one record holds, one \"<VERDICT> <case>\" line each\n"
    "  --cases      the cases a plain run of the binary takes, from its `--list --json` file, one name a line;\n"
    "               --with-opt-in: every case, the known-crash and self-test ones too\n"
    "  --report-md  the triage's report.md: its head (date, node, launches, --took and --modelled seconds,\n"
    "               --concurrency, one --note per backend) and the verdicts of SUMMARY.json (--summary-json's)\n"
    "  --bisect     a git bisect step's judgement of each --case's record in DIR: good (as expected on this node\n"
    "               per --table, or PASS), bad, or skip (SKIP, HARNESS, usage, a rank the loader ended with\n"
    "               127, no record; with --runtime-dir, an AMD run whose ranks loaded HIP and ROCr from none of\n"
    "               those folders); one line each, then\n"
    "               `bisect: good|bad|skip ...`; exit 0 good, 1 bad, 125 skip (git bisect's codes)\n"
    "  --health-line scripts/health-check's one line (a drain reason) from SUMMARY.json and the triage's --exit;\n"
    "               exit 0 healthy, 1 unhealthy (or --overran: stopped at B s), 77 no GPU case ran, 99 no summary\n"
    "  --counts     SUMMARY.json's counts as the console's line: \"N OK, N CHANGED, N not run, N table problems\";\n"
    "               exit 99 where it is not a summary of this version\n"
    "  --unlisted   the binaries of SUMMARY.json that could not list their cases (a LIST: problem), one a line\n"
    "  --from-summary the outputs of SUMMARY.json's comparison, never compared again: the JUnit file, report.html\n"
    "               (--html: a page of its own, no script, nothing it loads), the Prometheus textfile (--prom-exit:\n"
    "               the triage's exit code, the outcome), the verdicts' Markdown, the failing runs (--failing-tsv);\n"
    "               with --results, from the records for what the summary does\n"
    "               not hold: --failures-md (with each rank's last stderr lines), --gpus-md, --backends-ran,\n"
    "               --rocm-md (scripts/bug-report's); exit 0, or 99 naming what could not be read or written (a\n"
    "               summary of another version in one line)\n"
    "  --publish    FILE gets SOURCE's bytes, written as every output is (atomically; through a link or device);\n"
    "               exit 0, or 99 naming what could not be read or written\n"
    "  --md-text    each TEXT (every word after the flag, as it is) as literal inline Markdown, one line each\n"
    "  --md-fence   FILE as a fenced code block no line of it can close (--info: its language); exit 99 where\n"
    "               FILE cannot be read\n"
    "Exit: 0 all as expected, 1 a CHANGED row or a table problem, 2 a bad command line or table, 77 (with\n"
    "--gpu-run-required) nothing differs but no GPU case ran, 99 an input that could not be read, a binary that\n"
    "could not list its cases (a LIST: line) or an output that could not be written. Every mode: 99 where its\n"
    "answer of 0 could not be written to standard output (not --bisect, whose exits are git's).\n";

// A bad command line: the synopsis only, so the error stays short; --help says the rest.
int usage() {
  std::fputs(kSynopsis, stderr);
  std::fputs("(check_expected --help says what each mode does)\n", stderr);
  return 2;
}

// A table that cannot be read or is malformed: one line on stderr naming the file and the line, exit 2. stdout
// carries the tool's output only (scripts/triage tees it into summary.txt; a script reads --bisect's lines).
int table_error(const Status& st) {
  std::fprintf(stderr, "check_expected: %s\n", one_line(st.detail).c_str());
  return 2;
}

struct CompareOptions {
  CheckInputs in;
  std::string summary_json, markdown, junit, prom, prom_took;
  bool matrix = false;
  bool gpu_run_required = false;  // exit 77 where no GPU case ran (scripts/triage)
};

bool parse_compare_args(const std::vector<std::string>& args, CompareOptions* o) {
  Flags f;
  f.values = {{"--table", &o->in.table_path}, {"--results", &o->in.results}, {"--manifest", &o->in.manifest},
              {"--plan", &o->in.plan},        {"--lists", &o->in.lists},     {"--summary-json", &o->summary_json},
              {"--markdown", &o->markdown},   {"--junit", &o->junit},        {"--prom", &o->prom},
              {"--prom-took", &o->prom_took}};
  f.lists = {{"--binary", &o->in.binaries}};
  f.switches = {{"--matrix", &o->matrix}, {"--gpu-run-required", &o->gpu_run_required}};
  double took = 0;
  return parse_flags(args, f) && !o->in.table_path.empty() && !o->in.results.empty() &&
         (o->prom.empty() || parse_seconds(o->prom_took, &took));
}

// Each output asked for, made from the comparison; false where one could not be written (each named on stderr).
bool write_compare_outputs(const CompareOptions& o, const Check& check, int rc) {
  const Summary& s = check.summary;
  PromFacts facts{0, rc, prom_outcome(rc), int64_t(std::time(nullptr))};
  parse_seconds(o.prom_took, &facts.took_s);
  return write_reports("check_expected", {{o.summary_json, [&] { return summary_json(s); }},
                                          {o.markdown, [&] { return verdicts_md(s); }},
                                          {o.junit, [&] { return rows_junit(s.rows); }},
                                          {o.prom, [&] { return prom_textfile(s, facts); }}});
}

// 99 where a binary could not list its cases (the suite's problem, not the node's); 1 where a row differs or the
// table has a problem; else 77 where --gpu-run-required and no GPU case ran; else 0.
int compare_exit_code(const CompareOptions& o, const Check& check) {
  const Summary& s = check.summary;
  if (check.listings_failed) return 99;
  if (s.changed || s.problems) return 1;
  return o.gpu_run_required && !some_gpu_case_ran(s.rows) ? 77 : 0;
}

int compare_mode(const std::vector<std::string>& args) {
  CompareOptions o;
  if (!parse_compare_args(args, &o)) return usage();
  std::vector<ExpectedRow> table;
  if (Status st = load_expected_table(o.in.table_path, &table); !st.ok()) return table_error(st);
  Check check;
  Status st = run_check(o.in, table, &check);
  for (const auto& p : check.summary.problem_lines) std::printf("%s\n", p.c_str());
  if (!st.ok()) {
    std::fprintf(stderr, "check_expected: %s\n", one_line(st.detail).c_str());
    return 99;
  }
  std::fputs(console_table(check.summary).c_str(), stdout);
  if (o.matrix) std::fputs(matrices(check.summary.rows, false, false).c_str(), stdout);
  std::fflush(stdout);  // the table before any write error, as a reader of both streams expects
  // The exit code before the outputs are written: the Prometheus file carries it as the outcome.
  const int rc = compare_exit_code(o, check);
  if (!write_compare_outputs(o, check, rc)) return 99;
  return rc;
}

// --record FILE: the verdict of each case one record holds, one "<VERDICT> <case>" line each, for scripts that
// would otherwise read them from a log (triage's progress lines, its choice of cases to rerun after a mesh run).
// Exit 99 where the record cannot be read (nothing printed on stdout), or is refused (not a regular file, too large).
int record_mode(const std::vector<std::string>& args) {
  std::string path;
  Flags f;
  f.values = {{"--record", &path}};
  if (!parse_flags(args, f) || path.empty()) return usage();
  std::string text;
  if (Status st = read_input_file(path, &text); !st.ok()) {
    std::fprintf(stderr, "check_expected: %s\n", one_line(st.detail).c_str());
    return 99;
  }
  std::string out;
  for (const auto& run : parse_record(path.substr(path.find_last_of('/') + 1), text)) {
    if (!run.error.empty()) {
      std::fprintf(stderr, "check_expected: %s\n", one_line(run.error).c_str());
      return 99;
    }
    out += std::string(verdict_name(run.verdict)) + " " + one_line(run.case_name) + "\n";
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

// --cases LIST.json: the cases a plain run takes, one name a line (every case with --with-opt-in), read from a
// binary's --list --json, so scripts/triage neither parses --list nor decides a tag. Exit 99 where the list cannot
// be read.
int cases_mode(const std::vector<std::string>& args) {
  std::string path;
  bool with_opt_in = false;
  Flags f;
  f.values = {{"--cases", &path}};
  f.switches = {{"--with-opt-in", &with_opt_in}};
  if (!parse_flags(args, f) || path.empty()) return usage();
  std::string text;
  CaseList list;
  Status st = read_input_file(path, &text);
  if (st.ok() && !(st = parse_case_list(text, &list)).ok()) st.detail = path + ": " + st.detail;
  if (!st.ok()) {
    std::fprintf(stderr, "check_expected: %s\n", one_line(st.detail).c_str());
    return 99;
  }
  std::string out;
  for (const auto& c : list.cases)
    if (with_opt_in || !c.opt_in) out += c.name + "\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}

struct ReportOptions {
  std::string out, summary;
  TriageFacts facts;
};

bool parse_report_args(const std::vector<std::string>& args, ReportOptions* o) {
  Flags f;
  f.values = {{"--report-md", &o->out},   {"--summary", &o->summary},         {"--launches", &o->facts.launches},
              {"--took", &o->facts.took}, {"--modelled", &o->facts.modelled}, {"--concurrency", &o->facts.concurrency}};
  f.lists = {{"--note", &o->facts.notes}};
  int64_t launches = 0;
  double seconds = 0;
  return parse_flags(args, f) && !o->out.empty() && !o->summary.empty() && !o->facts.concurrency.empty() &&
         parse_int64(o->facts.launches, &launches) && launches >= 0 && parse_seconds(o->facts.took, &seconds) &&
         parse_seconds(o->facts.modelled, &seconds);
}

// The date and node as `date -u '+%Y-%m-%d %H:%M UTC'` and `uname -n`, `uname -sr` print them.
void now_and_node(TriageFacts* t) {
  char when[64] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (::gmtime_r(&now, &utc)) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", &utc);
  t->when = when;
  struct utsname u {};
  if (::uname(&u) == 0) t->node = std::string(u.nodename) + ", " + u.sysname + " " + u.release;
}

// The summary at `path`, read as every mode reads it; false after one line on stderr where it cannot be.
bool load_summary(const std::string& path, Summary* s) {
  std::string text;
  Status st = read_input_file(path, &text, "--summary " + path);
  if (st.ok()) st = read_summary_json(text, path, s);
  if (!st.ok()) std::fprintf(stderr, "check_expected: %s\n", one_line(st.detail).c_str());
  return st.ok();
}

// --counts SUMMARY.json: the counts for a script's closing line, read from the summary (never from the console's
// text, whose last line is a thread's where rows point to threads).
int counts_mode(const std::vector<std::string>& args) {
  std::string path;
  Flags f;
  f.values = {{"--counts", &path}};
  if (!parse_flags(args, f) || path.empty()) return usage();
  Summary s;
  if (!load_summary(path, &s)) return 99;
  std::printf("%s\n", counts_text(s).c_str());
  return 0;
}

// --unlisted SUMMARY.json: the binaries that could not list their cases, one a line, for the triage's last line
// (which names them rather than a report it could not finish). Exit 99 where it is not a summary of this version.
int unlisted_mode(const std::vector<std::string>& args) {
  std::string path;
  Flags f;
  f.values = {{"--unlisted", &path}};
  if (!parse_flags(args, f) || path.empty()) return usage();
  Summary s;
  if (!load_summary(path, &s)) return 99;
  std::string out;
  for (const auto& b : unlisted_binaries(s)) out += one_line(b) + "\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}

// --from-summary SUMMARY.json: the outputs of a comparison already made (scripts/triage's summary.json), so the
// comparison runs once: the JUnit file, report.html and Prometheus textfile (--prom-exit is the triage's exit code, the
// textfile's outcome) after the triage's comparison, and scripts/bug-report's files: what failed from the summary, and
// from the records of --results only what the summary does not hold (each rank's stderr tail, the GPUs, the backends
// that ran, ROCm's versions). Exit 0, or 99 naming what could not be read or written.
int from_summary_mode(const std::vector<std::string>& args) {
  std::string path, junit, html, prom, took, exit_text, markdown, failing_tsv, results, failures, gpus, ran, rocm_md;
  Flags f;
  f.values = {{"--from-summary", &path}, {"--junit", &junit},
              {"--html", &html},         {"--prom", &prom},
              {"--prom-took", &took},    {"--prom-exit", &exit_text},
              {"--markdown", &markdown}, {"--failing-tsv", &failing_tsv},
              {"--results", &results},   {"--failures-md", &failures},
              {"--gpus-md", &gpus},      {"--backends-ran", &ran},
              {"--rocm-md", &rocm_md}};
  PromFacts facts;
  int64_t rc = 0;
  if (!parse_flags(args, f) || path.empty() ||
      (junit.empty() && html.empty() && prom.empty() && markdown.empty() && failing_tsv.empty() && failures.empty() &&
       gpus.empty() && ran.empty() && rocm_md.empty()) ||
      (!prom.empty() && (!parse_seconds(took, &facts.took_s) || !parse_int64(exit_text, &rc) || rc < 0 || rc > 255)) ||
      (results.empty() && (!failures.empty() || !gpus.empty() || !ran.empty() || !rocm_md.empty())))
    return usage();
  Summary s;
  if (!load_summary(path, &s)) return 99;
  facts.exit_code = int(rc);
  facts.outcome = prom_outcome(int(rc));
  facts.finished_unix = int64_t(std::time(nullptr));
  std::vector<Run> runs;  // the records, read only for what the summary does not hold
  if (!failures.empty() || !gpus.empty() || !ran.empty() || !rocm_md.empty()) runs = read_runs(results);
  return write_reports("check_expected", {{junit, [&] { return rows_junit(s.rows); }},
                                          {html, [&] { return report_html(s); }},
                                          {prom, [&] { return prom_textfile(s, facts); }},
                                          {markdown, [&] { return verdicts_md(s); }},
                                          {failing_tsv, [&] { return failing_runs_tsv(s); }},
                                          {failures, [&] { return failures_md(s, runs); }},
                                          {gpus, [&] { return gpus_md(runs); }},
                                          {ran, [&] { return backends_ran(runs); }},
                                          {rocm_md, [&] { return rocm_versions_md(runs); }}})
             ? 0
             : 99;
}

// --report-md FILE: the triage's report.md from the summary.json its comparison wrote, so that the report says
// exactly what the comparison found. Exit 99 where the summary cannot be read or the report cannot be written.
int report_mode(const std::vector<std::string>& args) {
  ReportOptions o;
  if (!parse_report_args(args, &o)) return usage();
  Summary s;
  if (!load_summary(o.summary, &s)) return 99;
  now_and_node(&o.facts);
  return write_reports("check_expected", {{o.out, [&] { return triage_report_md(o.facts, s); }}}) ? 0 : 99;
}

// --bisect expected|pass: scripts/bisect's judgement of the commit under test, from the records its runs left. Exit
// git bisect's codes (0, 1, 125); a bad command line or table is 2 as in every mode (the script stops the bisect).
int bisect_mode(const std::vector<std::string>& args) {
  std::string good, results, table_path;
  std::vector<std::string> cases, runtime_dirs;
  Flags f;
  f.values = {{"--bisect", &good}, {"--results", &results}, {"--table", &table_path}};
  f.lists = {{"--case", &cases}, {"--runtime-dir", &runtime_dirs}};
  if (!parse_flags(args, f) || (good != "expected" && good != "pass") || results.empty() || cases.empty() ||
      (good == "expected" && table_path.empty()))
    return usage();
  // As the ranks name the libraries they loaded: real paths (a folder reached through a link is the same folder).
  for (auto& d : runtime_dirs) {
    char real[PATH_MAX];
    if (!realpath(d.c_str(), real)) {
      std::fprintf(stderr, "check_expected: --runtime-dir %s: %s\n", one_line(d).c_str(), std::strerror(errno));
      return 2;
    }
    d = real;
  }
  std::vector<ExpectedRow> table;
  if (good == "expected") {
    if (Status st = load_expected_table(table_path, &table); !st.ok()) return table_error(st);
  }
  const std::vector<Run> runs = read_runs(results);
  std::vector<CaseJudgement> judged;
  for (const auto& name : cases) {
    CaseJudgement j{name, Judgement::Skip, "no record of it in " + results};
    for (const auto& r : runs)
      if (r.error.empty() && r.binary + "." + r.case_name == name)
        j = judge_run(table, r, good == "expected" ? GoodIs::Expected : GoodIs::Pass, runtime_dirs);
      else if (!r.error.empty() && r.file == name.substr(0, name.find('.')) + ".json")
        j.why = one_line(r.error);  // the binary's record (scripts/bisect writes <binary>.json) is unreadable
    judged.push_back(j);
  }
  std::string out;
  int counts[3] = {0, 0, 0};
  for (const auto& j : judged) {
    out += std::string(judgement_name(j.judgement)) + " " + one_line(j.case_name) + ": " + j.why + "\n";
    ++counts[int(j.judgement)];
  }
  const Judgement commit = judge_commit(judged);
  out += std::string("bisect: ") + judgement_name(commit) + " (" + std::to_string(counts[0]) + " good, " +
         std::to_string(counts[1]) + " bad, " + std::to_string(counts[2]) + " not judged; good means " +
         (good == "expected" ? "as expected/verdicts.md says for this node" : "PASS") + ")\n";
  std::fputs(out.c_str(), stdout);
  return bisect_exit_code(commit);
}

// --publish FILE --from SOURCE: an output made in a folder of the caller's own, copied to where it was asked for
// by the one writer. scripts/health-check makes its --prom so: a FILE that cannot be written is then named on its
// own, after the node was judged, and never reads as the triage failing (which would hide the node's verdict).
int publish_mode(const std::vector<std::string>& args) {
  std::string out, source, text;
  Flags f;
  f.values = {{"--publish", &out}, {"--from", &source}};
  if (!parse_flags(args, f) || out.empty() || source.empty()) return usage();
  if (Status st = read_input_file(source, &text); !st.ok()) {  // (a FIFO or device is refused, never read)
    std::fprintf(stderr, "check_expected: %s\n", one_line(st.detail).c_str());
    return 99;
  }
  return write_reports("check_expected", {{out, [&] { return text; }}}) ? 0 : 99;
}

// --md-text TEXT...: each word after the flag, whatever it looks like ("--x" too), as md_text writes it, one line
// each: scripts/bug-report's Markdown of outside text, by the tools' one rule.
int md_text_mode(const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 1; i < args.size(); ++i) out += md_text(args[i]) + "\n";
  std::fputs(out.c_str(), stdout);
  return 0;
}

// --md-fence FILE [--info WORD]: the file quoted in a fence no line of it can close (scripts/bug-report's quoted
// outputs and files). Exit 99 where the file cannot be read (nothing printed).
int md_fence_mode(const std::vector<std::string>& args) {
  std::string path, info, text;
  Flags f;
  f.values = {{"--md-fence", &path}, {"--info", &info}};
  if (!parse_flags(args, f) || path.empty()) return usage();
  if (Status st = read_input_file(path, &text); !st.ok()) {  // (a FIFO or device is refused, never read)
    std::fprintf(stderr, "check_expected: %s\n", one_line(st.detail).c_str());
    return 99;
  }
  std::fputs(md_fence(text, info).c_str(), stdout);
  return 0;
}

// The modes, by their first flag. A new mode is one line here and its function.
struct Mode {
  const char* flag;
  int (*run)(const std::vector<std::string>& args);
};
const Mode kModes[] = {{"--record", record_mode},           {"--cases", cases_mode},
                       {"--report-md", report_mode},        {"--bisect", bisect_mode},
                       {"--health-line", health_line_mode}, {"--publish", publish_mode},
                       {"--md-text", md_text_mode},         {"--md-fence", md_fence_mode},
                       {"--counts", counts_mode},           {"--from-summary", from_summary_mode},
                       {"--unlisted", unlisted_mode}};

// An answer of exit 0 that did not reach stdout (a full disk behind a redirection, a pipe whose reader is gone with
// SIGPIPE ignored) is no answer: exit 99 with one line, as for a file the tool cannot write. Other exits keep their
// meaning (a CHANGED node's 1, a bisect step's 125 or 128), and --bisect's 0 too: git reads 99 as "bad", and its
// caller reads the step from the exit alone.
int with_stdout_checked(int rc, bool bisect) {
  errno = 0;
  if (rc != 0 || bisect || (std::fflush(stdout) == 0 && !std::ferror(stdout))) return rc;
  std::fprintf(stderr, "check_expected: cannot write standard output: %s\n",
               errno != 0 ? std::strerror(errno) : "a write failed");
  return 99;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::printf("%s%s", kSynopsis, kModeHelp);
    return with_stdout_checked(0, false);
  }
  const bool bisect = !args.empty() && args[0] == "--bisect";
  for (const auto& m : kModes)
    if (!args.empty() && args[0] == m.flag) return with_stdout_checked(m.run(args), bisect);
  return with_stdout_checked(compare_mode(args), false);
}

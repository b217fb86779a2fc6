#include "verdict_check.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "case_list.h"
#include "compare.h"
#include "harness/text.h"
#include "input_file.h"

namespace vmr_tools {

using namespace vmr;

namespace {

std::string basename_of(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// What the binaries and the manifest say of the table's binaries and cases.
struct Binaries {
  std::set<std::string> known;     // --manifest: every binary the project has
  std::set<std::string> built;     // --binary: every case must have a record (unless --plan says otherwise)
  std::set<std::string> checked;   // binaries whose --list was read
  std::set<std::string> listed;    // binary.case from --list
  std::set<std::string> missing;   // the manifest's toolchain "ok" binaries that are not there
  std::set<std::string> unlisted;  // binaries that could not list their cases (each one LIST: problem)
};

bool is_executable(const std::string& path) { return ::access(path.c_str(), X_OK) == 0; }

// --manifest: every binary the project has (binary, backend, toolchain, defines, sources; tab-separated). Those
// whose toolchain works (toolchain "ok": this build makes them) join `list_paths` where they are there, their --list
// checked like a --binary's; one that is not there is the one problem of a partial or failed build. A toolchain
// neither "ok" nor "missing" (an older build's "yes") is a manifest this tool cannot read: no binary is taken for
// one without a toolchain on a guess.
Status read_manifest(const CheckInputs& in, Binaries* b, std::vector<std::string>* list_paths,
                     std::vector<std::string>* problems) {
  *list_paths = in.binaries;
  if (in.manifest.empty()) return Status::pass();
  std::string text;
  VMR_TRY(read_input_file(in.manifest, &text, "--manifest " + in.manifest));
  const std::string dir = in.manifest.substr(0, in.manifest.find_last_of('/') + 1);
  for (auto line : split(text, '\n')) {
    if (trim(line).empty() || line[0] == '#') continue;
    auto fields = split(line, '\t');
    if (fields.size() != 5)
      return Status::harness("--manifest " + in.manifest + ": the line of '" + std::string(fields[0]) + "' has " +
                             std::to_string(fields.size()) +
                             " tab-separated fields, not 5 (binary, backend, "
                             "toolchain, defines, sources)");
    if (fields[2] != "ok" && fields[2] != "missing")
      return Status::harness("--manifest " + in.manifest + ": " + std::string(fields[0]) + "'s toolchain is '" +
                             std::string(fields[2]) +
                             "', neither ok nor missing (a manifest of an older build: build "
                             "again)");
    b->known.emplace(fields[0]);
    const std::string path = dir + std::string(fields[0]);
    if (fields[2] != "ok" || std::find(in.binaries.begin(), in.binaries.end(), path) != in.binaries.end()) continue;
    if (is_executable(path)) {
      list_paths->push_back(path);
    } else {
      b->missing.emplace(fields[0]);
      problems->push_back("BUILD: " + path + " is not there, though the manifest " + in.manifest +
                          " says this build makes it (a partial or failed build: build again); its cases were not "
                          "checked");
    }
  }
  return Status::pass();
}

// A binary's cases: from --lists where it holds this binary's list (the same run wrote it), or the one line why
// that run could not list it (<binary>.failed, scripts/triage's cases_of: never listed a second time); else from
// the binary, listed the one way (case_list.h).
Status listing_of(const CheckInputs& in, const std::string& path, CaseList* list) {
  const std::string saved = in.lists + "/" + basename_of(path) + ".json";
  std::string text, why;
  const bool have_saved = !in.lists.empty() && read_input_file(saved, &text).ok();
  if (!in.lists.empty() && !have_saved && read_input_file(in.lists + "/" + basename_of(path) + ".failed", &why).ok() &&
      !trim(why).empty())
    return Status::harness(one_line(std::string(trim(why))));
  if (!have_saved) return list_binary(path, list);
  VMR_TRY(parse_case_list(text, list));
  if (list->binary != basename_of(path))
    return Status::harness(saved + " is the case list of " + list->binary + ", not of " + basename_of(path));
  return Status::pass();
}

// Each binary's --list against the table: a case without a row is a table problem, and so is a binary that is not
// the manifest's; one that cannot list its cases is a LIST: problem, the suite's.
void check_listings(const CheckInputs& in, const std::vector<std::string>& list_paths,
                    const std::vector<ExpectedRow>& table, Binaries* b, std::vector<std::string>* problems,
                    int* listings_failed) {
  for (const auto& path : in.binaries) b->built.insert(basename_of(path));
  for (const auto& path : list_paths) {
    const std::string bin = basename_of(path);
    if (!b->known.empty() && !b->known.count(bin))
      problems->push_back("TABLE: --binary " + path + " is not a binary of the manifest " + in.manifest);
    if (!is_executable(path)) {  // (a --binary: the manifest's own are there, read_manifest saw to it)
      problems->push_back("TABLE: " + path + " is not an executable binary");
      continue;
    }
    CaseList list;
    if (Status st = listing_of(in, path, &list); !st.ok()) {
      problems->push_back("LIST: " + one_line(st.detail));  // its one problem: its rows are not run, saying why
      b->unlisted.insert(bin);
      ++*listings_failed;
      continue;
    }
    b->checked.insert(bin);
    for (const auto& listed : list.cases) {
      const std::string& c = listed.name;
      b->listed.insert(bin + "." + c);
      if (!std::any_of(table.begin(), table.end(), [&](auto& r) { return r.binary == bin && r.case_name == c; }))
        problems->push_back("TABLE: case " + bin + "." + c + " has no row in " + in.table_path);
    }
  }
}

// --plan FILE: the binary.case names this run set out to run, one a line, each optionally followed by the GPU
// pairs planned for it ("repro_x.read 0-1 1-0"): every planned pair must leave its record (scripts/triage leaves
// known-crash and self-test cases out). Without it every case of every --binary must have a record.
struct Plan {
  std::set<std::string> cases;
  std::map<std::string, std::set<std::string>> pairs;
};

Status read_plan(const std::string& path, Plan* plan) {
  if (path.empty()) return Status::pass();
  std::string text;
  VMR_TRY(read_input_file(path, &text, "--plan " + path));
  for (auto line : split(text, '\n')) {
    std::vector<std::string> words;
    for (auto w : split(trim(line), ' '))
      if (!trim(w).empty()) words.emplace_back(trim(w));
    if (words.empty()) continue;
    plan->cases.insert(words[0]);
    for (size_t i = 1; i < words.size(); ++i) plan->pairs[words[0]].insert(words[i]);
  }
  return Status::pass();
}

// Why a table row cannot be checked (a binary the manifest lacks, a case its binary does not list), or "".
std::string row_problem(const ExpectedRow& t, const std::string& name, const Binaries& b) {
  if (!b.known.empty() && !b.known.count(t.binary))
    return "TABLE: row for " + name + " names a binary that is not in the manifest (line " + std::to_string(t.line) +
           ")";
  if (b.checked.count(t.binary) && !b.listed.count(name))
    return "TABLE: row for " + name + " names a case the binary does not have (line " + std::to_string(t.line) + ")";
  return "";
}

// What the rows that may apply allow: every verdict and reason of each, once, in the table's order.
void allowed_by(const std::vector<const ExpectedRow*>& rows, Row* out) {
  for (const ExpectedRow* t : rows) {
    for (Verdict v : t->verdicts)
      if (std::find(out->allowed.begin(), out->allowed.end(), v) == out->allowed.end()) out->allowed.push_back(v);
    for (const auto& why : t->reasons)
      if (std::find(out->reasons.begin(), out->reasons.end(), why) == out->reasons.end()) out->reasons.push_back(why);
  }
}

// The row of one readable run: what it did, how it stands (compare_run) and what the rows that may apply allow.
Row run_row(const std::string& name, const Run& run, const Comparison& c, Standing standing, std::string result) {
  Row r;
  r.name = name;
  r.binary = run.binary;
  r.case_name = run.case_name;
  r.pair = pair_of(run.pair);
  r.expected = c.expected();
  r.observed = run.verdict;
  r.result = std::move(result);
  r.detail = run.detail;
  r.metrics = run.metrics;
  r.standing = standing;
  if (standing == Standing::NotRun) r.why_not_run = "skipped: " + run.detail;
  allowed_by(c.rows, &r);
  return r;
}

// One row per run of the case (each pair, each record); the pairs that reported go to `pairs_seen`.
void rows_of_runs(const ExpectedRow& t, const std::string& name, const std::vector<ExpectedRow>& table, Check* out,
                  std::set<std::string>* pairs_seen) {
  for (const auto& run : out->runs) {
    if (!run.error.empty() || run.binary != t.binary || run.case_name != t.case_name) continue;
    pairs_seen->insert(run.pair);
    const Comparison c = compare_run(table, run);
    // A condition on a fact the run does not report never holds: its row silently never applies. That is a table
    // problem (the suite's) only where the run got as far as describing the node: a rank that crashed or hung
    // before it described anything left no facts, and its row is the node's CHANGED, never a suite problem that
    // would keep the health check from judging (and draining) the node.
    if (c.standing != Standing::NotRun && (run.verdict == Verdict::Pass || run.verdict == Verdict::Skip))
      for (const auto& key : unreported_keys(table, t.binary, t.case_name, run.facts))
        out->summary.problem_lines.push_back("TABLE: a condition of " + name + " uses '" + key + "', which run " +
                                             run.file + " does not report");
    out->summary.rows.push_back(row_of_run(table, run));
  }
}

// The runs the case should have left and did not: a planned pair without its record (beside the pairs that
// reported), or no record at all of a case that was to run (a launcher that died, a test registered without
// --json, a record that could not be written). Otherwise the case was not run here, and says why.
void missing_rows(const ExpectedRow& t, const std::string& name, const std::set<std::string>& pairs_seen,
                  const Plan& plan, const Binaries& b, const std::string& results, Summary* s) {
  auto missing = [&](const std::string& pair, const std::string& result, bool changed) {
    Row r;
    r.name = name;
    r.binary = t.binary;
    r.case_name = t.case_name;
    r.pair = pair_of(pair);
    r.expected = verdict_cell(t);
    r.result = result;
    r.evidence = t.evidence;
    r.standing = changed ? Standing::MissingRecord : Standing::NotRun;
    // "not run (binary not built here)": the words in the parentheses, where the result gives some
    if (!changed && result.size() > 9) r.why_not_run = result.substr(9, result.size() - 10);
    allowed_by({&t}, &r);
    s->rows.push_back(std::move(r));
  };
  auto planned_pairs = plan.pairs.find(name);
  if (planned_pairs != plan.pairs.end()) {
    for (const auto& pair : planned_pairs->second)
      if (!pairs_seen.count(pair))
        missing(pair, "CHANGED: the planned run on GPUs " + pair + " left no record in " + results, true);
    return;
  }
  if (!pairs_seen.empty()) return;
  if (b.unlisted.count(t.binary)) {
    missing("", std::string("not run (") + kUnlistedWhy + ")", false);
    return;
  }
  const bool planned = plan.cases.empty() ? b.built.count(t.binary) > 0 : plan.cases.count(name) > 0;
  if (planned)
    missing("", "CHANGED: no run record in " + results, true);
  else
    missing("",
            b.missing.count(t.binary)  ? "not run (binary missing from the build: see the BUILD problem)"
            : b.built.empty()          ? "not run"
            : !b.built.count(t.binary) ? "not run (binary not built here)"
                                       : "not run (not in this run's plan)",
            false);
}

// A record of a case no row of the table covers: CHANGED, so that a new case's CRASH is never left out (a SKIP
// stays "not run", as every SKIP does).
Row uncovered_row(const CheckInputs& in, const Run& run) {
  const std::string name = run.binary + "." + run.case_name;
  const std::string no_row = "no row for " + name + " in " + in.table_path;
  const bool skipped = run.verdict == Verdict::Skip;
  Row r = run_row(name, run, Comparison{}, skipped ? Standing::NotRun : Standing::NoRow,
                  skipped ? "not run (skipped: " + run.detail + "; " + no_row + ")" : "CHANGED: " + no_row);
  if (skipped) r.why_not_run += "; " + no_row;
  return r;
}

// A record that could not be read is CHANGED under its file's name: the runs it held are unknown.
Row unreadable_row(const std::vector<ExpectedRow>& table, const Run& run) {
  const Comparison c = compare_run(table, run);
  Row r;
  r.name = run.file;
  r.expected = c.expected();
  r.result = result_text(c, run);
  r.detail = run.error;
  r.standing = Standing::Unreadable;
  return r;
}

// The node a results folder's records describe: the one they name, or where they name more than one (a stray record
// of another node copied in, two nodes writing one folder) the folder's own name, as scripts/fleet names a node's
// folder; each record naming another node is then unusable here (an unreadable record's row, under its file name),
// never a verdict of this node nor the source of its name and facts.
void set_aside_other_nodes(const std::string& results, std::vector<Run>* runs) {
  std::set<std::string> named;
  for (const auto& r : *runs)
    if (auto it = r.facts.find("node"); r.error.empty() && it != r.facts.end()) named.insert(it->second);
  if (named.size() < 2) return;
  std::string folder = results;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
  folder = basename_of(folder);
  for (auto& r : *runs)
    if (auto it = r.facts.find("node"); r.error.empty() && it != r.facts.end() && it->second != folder)
      r.error = "run record " + r.file + " is a record of node " + it->second + ", not of " + folder;
}

// The node's facts: each one every usable record that reports it agrees on (a GPU's index or bus id differs from run
// to run and is none; a fact only the HIP binaries report is one). What the fleet compares between nodes.
Facts agreed_facts(const std::vector<Run>& runs) {
  std::map<std::string, std::set<std::string>> values;
  for (const auto& r : runs)
    if (r.error.empty())
      for (const auto& [k, v] : r.facts) values[k].insert(v);
  Facts facts;
  for (const auto& [k, vs] : values)
    if (vs.size() == 1) facts[k] = *vs.begin();
  return facts;
}

}  // namespace

Row row_of_run(const std::vector<ExpectedRow>& table, const Run& run) {
  const Comparison c = compare_run(table, run);
  Row r = run_row(run.binary + "." + run.case_name, run, c, c.standing, result_text(c, run));
  r.evidence = c.row ? c.row->evidence : "no row matches this node";
  r.issues = case_policy(table, run.binary, run.case_name).threads();
  return r;
}

Status run_check(const CheckInputs& in, const std::vector<ExpectedRow>& table, Check* out) {
  Binaries b;
  std::vector<std::string> list_paths;
  std::vector<std::string>& problems = out->summary.problem_lines;
  VMR_TRY(read_manifest(in, &b, &list_paths, &problems));
  check_listings(in, list_paths, table, &b, &problems, &out->listings_failed);
  Plan plan;
  VMR_TRY(read_plan(in.plan, &plan));
  out->runs = read_runs(in.results);
  std::set<std::string> covered;  // binary.case of every table row
  for (const auto& t : table) covered.insert(t.binary + "." + t.case_name);
  set_aside_other_nodes(in.results, &out->runs);
  out->summary.node = agreed_facts(out->runs);
  for (const auto& run : out->runs)
    if (run.refused)  // not a record the node left (a FIFO, a symlink out of the folder): the suite's input problem
      problems.push_back(kInputProblem + one_line(run.error));
    else if (!run.error.empty())
      out->summary.rows.push_back(unreadable_row(table, run));
    else if (!covered.count(run.binary + "." + run.case_name))
      out->summary.rows.push_back(uncovered_row(in, run));
  std::set<std::string> seen;
  for (const auto& t : table) {
    const std::string name = t.binary + "." + t.case_name;
    if (!seen.insert(name).second) continue;
    if (std::string why = row_problem(t, name, b); !why.empty()) {
      problems.push_back(why);
      continue;
    }
    std::set<std::string> pairs_seen;
    const size_t first = out->summary.rows.size();
    rows_of_runs(t, name, table, out, &pairs_seen);
    missing_rows(t, name, pairs_seen, plan, b, in.results, &out->summary);
    const std::vector<std::string> issues = case_policy(table, t.binary, t.case_name).threads();
    for (size_t k = first; k < out->summary.rows.size(); ++k) out->summary.rows[k].issues = issues;
  }
  count_rows(&out->summary);
  out->summary.problems = int(problems.size());
  return Status::pass();
}

}  // namespace vmr_tools

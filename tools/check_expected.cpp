// Compares observed verdicts with expected/verdicts.md: the expected_verdicts test, and the triage's summary.
//
// Reads every run record (*.json) in a results directory: one per case from CTest (<binary>.<case>.json), or one
// per case and GPU pair from scripts/triage. Prints case / expected / observed / OK-or-CHANGED (a skip is
// "not run" with its reason, never CHANGED; a case that should have run and left no readable record is CHANGED),
// checks that the table and each binary's --list agree, and on request
// prints exporter x importer matrices and writes summary.json and a Markdown report. With --manifest (the build's
// bin/manifest.txt) a row naming a binary the project does not have is a table problem, and every built binary's
// --list is checked as with --binary. Exit codes as every tool's (README "Exit codes"): 0 all as expected, 1 any
// CHANGED or table problem, 2 a bad command line or an unreadable or malformed table, 99 an input that could not be
// read or an output that could not be written (nothing is claimed written that was not).
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "harness/json.h"
#include "harness/text.h"
#include "junit.h"
#include "run_records.h"

namespace {

using namespace vmr;
using namespace vmr_tools;

std::string basename_of(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

// Case names from `<binary> --list`: the first word of each line.
bool list_cases(const std::string& path, std::vector<std::string>* cases) {
  std::FILE* p = ::popen(("'" + path + "' --list").c_str(), "r");
  if (!p) return false;
  char line[1024];
  while (std::fgets(line, sizeof line, p)) {
    std::string_view l = trim(line);
    if (!l.empty()) cases->emplace_back(l.substr(0, l.find(' ')));
  }
  return ::pclose(p) == 0;
}

struct Row {
  std::string name, pair, expected, observed, result, detail, metric, evidence;
  bool changed = false, not_run = false;
};

// For a bug report: every run that did not pass (or differs from expected/), with its command and the last stderr
// lines of each rank - where ROCm's "Memory access fault by GPU node-N ... Reason: ..." appears.
std::string failures_md(const std::vector<Run>& runs, const std::vector<ExpectedRow>& table) {
  std::ostringstream os;
  for (const auto& run : runs) {
    if (!run.error.empty()) continue;
    const ExpectedRow* want = find_expected(table, run.binary, run.case_name, run.facts);
    bool differs = want && run.verdict != Verdict::Skip && match_expected(*want, run.verdict, run.detail) != Match::Ok;
    if (run.verdict == Verdict::Pass || run.verdict == Verdict::Skip) {
      if (!differs) continue;
    }
    os << "#### " << run.binary << "." << run.case_name << (run.pair.empty() ? "" : " on GPU pair " + run.pair) << ": "
       << verdict_name(run.verdict) << " (expected " << (want ? verdict_cell(*want) : "-") << ")\n\n"
       << run.detail << "\n\n```\n"
       << run.command() << "\n```\n";
    for (size_t r = 0; r < run.stderr_tails.size(); ++r) {
      if (run.stderr_tails[r].empty()) continue;
      os << "\nrank " << r << ", last stderr lines:\n\n```\n";
      for (const auto& line : run.stderr_tails[r]) os << line << "\n";
      os << "```\n";
    }
    os << "\n";
  }
  return os.str();
}

// Every GPU the runs used, once, with what tells nodes apart.
std::string gpus_md(const std::vector<Run>& runs) {
  static const char* kKeys[] = {"device_name",   "gfx_arch", "agent_name",          "compute_capability",
                                "pci_bus_id",    "uuid",     "xnack_target",        "xnack_enabled",
                                "kfd_hive_id",   "pools",    "hip_version",         "rocm_install",
                                "amdgpu_driver", "firmware", "cuda_driver_version", "cuda_runtime_version"};
  std::set<std::string> seen;
  std::ostringstream os;
  for (const auto& run : runs)
    for (const auto& info : run.rank_info) {
      auto id = info.find("uuid");
      auto pci = info.find("pci_bus_id");
      std::string key = id != info.end() ? id->second : pci != info.end() ? pci->second : "";
      if (key.empty() || !seen.insert(key).second) continue;
      os << "- GPU " << (info.count("device") ? info.at("device") : "?") << ":";
      for (const char* k : kKeys)
        if (auto it = info.find(k); it != info.end()) os << " " << k << "=" << it->second << ";";
      os << "\n";
    }
  return os.str();
}

// The backends (a record's "backend": host, hip, hsa, cuda) of which some case ran to a verdict other than SKIP,
// one a line: per case, not per record, since one record holds every case of a launch.
std::string backends_ran(const std::vector<Run>& runs) {
  std::set<std::string> ran;
  for (const auto& run : runs)
    if (run.error.empty() && run.verdict != Verdict::Skip && !run.backend.empty()) ran.insert(one_line(run.backend));
  std::string out;
  for (const auto& b : ran) out += b + "\n";
  return out;
}

// The ROCm versions the AMD runs reported, each once, as Markdown list items (read from the parsed records, so any
// JSON writer's escapes are understood and nothing but valid one-line UTF-8 reaches the report).
std::string rocm_versions_md(const std::vector<Run>& runs) {
  static const char* kKeys[] = {"rocm_release", "hip_version", "rocm_install", "hip_headers",
                                "hsa_amd_interface_runtime"};
  std::set<std::string> lines;
  for (const auto& run : runs) {
    if (run.backend != "hip" && run.backend != "hsa") continue;
    for (const auto& info : run.rank_info)
      for (const char* k : kKeys)
        if (auto it = info.find(k); it != info.end()) lines.insert(std::string("- ") + k + ": " + md_text(it->second));
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

struct Options {
  std::string table, results, summary_json, markdown, failures, gpus, plan, junit, manifest, ran, rocm_md;
  std::vector<std::string> binaries;
  bool matrix = false;
};

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--matrix") {
      o->matrix = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    std::string value = argv[++i];
    // The flags that take one file or folder each, and where their value goes.
    static const std::pair<const char*, std::string Options::*> kPaths[] = {{"--table", &Options::table},
                                                                            {"--results", &Options::results},
                                                                            {"--summary-json", &Options::summary_json},
                                                                            {"--markdown", &Options::markdown},
                                                                            {"--failures-md", &Options::failures},
                                                                            {"--gpus-md", &Options::gpus},
                                                                            {"--plan", &Options::plan},
                                                                            {"--junit", &Options::junit},
                                                                            {"--manifest", &Options::manifest},
                                                                            {"--backends-ran", &Options::ran},
                                                                            {"--rocm-md", &Options::rocm_md}};
    auto it = std::find_if(std::begin(kPaths), std::end(kPaths), [&](const auto& p) { return flag == p.first; });
    if (it != std::end(kPaths))
      o->*(it->second) = value;
    else if (flag == "--binary")
      o->binaries.push_back(value);
    else
      return false;
  }
  return !o->table.empty() && !o->results.empty();
}

std::string json_rows(const std::vector<Row>& rows, int ok, int changed, int not_run, int problems) {
  JsonWriter j;
  j.begin_object().key("schema").value("vmem-repro-summary/1");
  j.key("ok")
      .value(ok)
      .key("changed")
      .value(changed)
      .key("not_run")
      .value(not_run)
      .key("table_problems")
      .value(problems);
  j.key("rows").begin_array();
  for (const auto& r : rows) {
    j.begin_object().key("case").value(r.name).key("pair").value(r.pair).key("expected").value(r.expected);
    j.key("observed").value(r.observed).key("result").value(r.result).key("detail").value(r.detail);
    j.key("metric").value(r.metric).key("evidence").value(r.evidence).end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
}

// exporter x importer matrices for every case that ran on GPU pairs.
// JUnit XML for CI dashboards: a testcase per case and pair; CHANGED is a failure, "not run" a skip with its reason.
std::string junit_report(const std::vector<Row>& rows) {
  JunitSuite suite{"vmem-repro triage", {}};
  for (const auto& r : rows) {
    JunitCase c;
    c.classname = r.name.substr(0, r.name.find('.'));
    c.name = r.name.substr(r.name.find('.') + 1) + (r.pair.empty() ? "" : "[" + r.pair + "]");
    if (r.changed) {
      c.outcome = JunitCase::Outcome::Failure;
      c.message = r.observed + ", expected " + r.expected;
      c.text = r.result;
    } else if (r.not_run) {
      c.outcome = JunitCase::Outcome::Skipped;
      c.message = r.result;
    }
    suite.cases.push_back(std::move(c));
  }
  return junit_xml("vmem-repro", {suite});
}

std::string matrices(const std::vector<Row>& rows, bool markdown);

std::string markdown_report(const std::vector<Row>& rows, int ok, int changed, int not_run, int problems) {
  std::ostringstream md;
  md << "## Verdicts against expected/verdicts.md\n\n"
     << ok << " OK, " << changed << " CHANGED, " << not_run << " not run, " << problems
     << " table problems.\n\n| case | pair | expected | observed | result |\n"
     << "| --- | --- | --- | --- | --- |\n";
  for (const auto& r : rows)
    md << "| " << r.name << " | " << (r.pair.empty() ? "-" : r.pair) << " | " << r.expected << " | " << r.observed
       << " | " << md_text(r.result) << " |\n";
  std::string m = matrices(rows, true);
  if (!m.empty()) md << "\n### Exporter x importer\n" << m;
  return md.str();
}

std::string matrices(const std::vector<Row>& rows, bool markdown) {
  std::map<std::string, std::map<std::pair<std::string, std::string>, std::string>> cells;
  std::map<std::string, std::set<std::string>> devices;
  // A mesh run (one rank per GPU, "0-1-2-3": every rank imports from every other) fills every ordered pair of its
  // GPUs; a run of one pair then overrides its cell, so the failing pairs are named.
  for (bool mesh_pass : {true, false})
    for (const auto& r : rows) {
      std::vector<std::string> ids;
      for (auto id : split(r.pair, '-')) ids.emplace_back(id);
      if (r.pair.empty() || ids.size() < 2 || (ids.size() > 2) != mesh_pass) continue;
      const std::string cell = r.observed + (r.metric.empty() ? "" : " " + r.metric) + (r.changed ? " (CHANGED)" : "") +
                               (mesh_pass ? " (mesh)" : "");
      if (mesh_pass) {
        for (const auto& exp : ids)
          for (const auto& imp : ids)
            if (exp != imp) cells[r.name][{exp, imp}] = cell;
      } else {
        cells[r.name][{ids[0], ids[1]}] = cell;  // exporter, importer
      }
      for (const auto& id : ids) devices[r.name].insert(id);
    }
  std::ostringstream os;
  for (const auto& [name, grid] : cells) {
    const auto& devs = devices[name];
    if (markdown) {
      os << "\n#### " << name << "\n\n| exporter \\ importer |";
      for (const auto& d : devs) os << " GPU " << d << " |";
      os << "\n| --- |";
      for (size_t i = 0; i < devs.size(); ++i) os << " --- |";
      os << "\n";
    } else {
      os << "\n" << name << " (rows: exporter GPU, columns: importer GPU)\n" << std::string(12, ' ');
      for (const auto& d : devs) os << " " << std::left << std::setw(28) << ("GPU " + d);
      os << "\n";
    }
    for (const auto& e : devs) {
      os << (markdown ? "| GPU " + e + " |"
                      : "  GPU " + std::string(e) + std::string(e.size() < 6 ? 6 - e.size() : 0, ' '));
      for (const auto& i : devs) {
        auto it = grid.find({e, i});
        std::string cell = e == i ? "-" : it == grid.end() ? "not run" : it->second;
        if (markdown)
          os << " " << md_text(cell) << " |";
        else
          os << " " << std::left << std::setw(28) << cell;
      }
      os << "\n";
    }
  }
  return os.str();
}

}  // namespace

// --record FILE: the verdict of each case one record holds, one "<VERDICT> <case>" line each, for scripts that
// would otherwise read them from a log (triage's progress lines, its choice of cases to rerun after a mesh run).
// Exit 99 where the record cannot be read (nothing printed on stdout).
int print_record_cases(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
  std::vector<Run> runs = read_record(dir, file);
  std::string out;
  for (const auto& run : runs) {
    if (!run.error.empty()) {
      std::fprintf(stderr, "check_expected: %s\n", one_line(run.error).c_str());
      return 99;
    }
    out += std::string(verdict_name(run.verdict)) + " " + one_line(run.case_name) + "\n";
  }
  std::fputs(out.c_str(), stdout);
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--record") return print_record_cases(argv[2]);
  Options o;
  if (!parse_args(argc, argv, &o)) {
    std::fprintf(stderr,
                 "usage: check_expected --table FILE --results DIR [--binary PATH]... [--manifest FILE] [--plan FILE] "
                 "[--matrix] [--summary-json FILE] [--markdown FILE] [--failures-md FILE] [--gpus-md FILE] "
                 "[--backends-ran FILE] [--rocm-md FILE] [--junit FILE]\n"
                 "       check_expected --record FILE.json\n");
    return 2;
  }
  std::string text;
  std::vector<ExpectedRow> table;
  if (!read_file(o.table, &text)) {
    std::printf("cannot read %s\n", o.table.c_str());
    return 2;
  }
  Status st = parse_expected_table(text, &table, o.table);
  if (!st.ok()) {
    std::printf("%s\n", st.detail.c_str());
    return 2;
  }

  int problems = 0;
  // --manifest: every binary the project has (binary, backend, built, ...; tab-separated), and the built ones' paths
  // beside it, whose --list is checked like a --binary's.
  std::set<std::string> known;
  std::vector<std::string> list_paths = o.binaries;
  if (!o.manifest.empty()) {
    std::string manifest_text;
    if (!read_file(o.manifest, &manifest_text)) {
      std::printf("cannot read --manifest %s\n", o.manifest.c_str());
      return 99;
    }
    const std::string dir = o.manifest.substr(0, o.manifest.find_last_of('/') + 1);
    for (auto line : split(manifest_text, '\n')) {
      if (trim(line).empty() || line[0] == '#') continue;
      auto fields = split(line, '\t');
      known.emplace(fields[0]);
      const std::string path = dir + std::string(fields[0]);
      if (fields.size() > 2 && fields[2] == "yes" &&
          std::find(o.binaries.begin(), o.binaries.end(), path) == o.binaries.end())
        list_paths.push_back(path);
    }
  }
  std::set<std::string> listed;   // binary.case from --list
  std::set<std::string> built;    // --binary: every case must have a record (unless --plan says otherwise)
  std::set<std::string> checked;  // binaries whose --list was read
  for (const auto& path : o.binaries) built.insert(basename_of(path));
  for (const auto& path : list_paths) {
    std::vector<std::string> cases;
    std::string bin = basename_of(path);
    checked.insert(bin);
    if (!known.empty() && !known.count(bin)) {
      std::printf("TABLE: --binary %s is not a binary of the manifest %s\n", path.c_str(), o.manifest.c_str());
      ++problems;
    }
    if (::access(path.c_str(), X_OK) != 0) {
      std::printf("TABLE: %s is not an executable binary\n", path.c_str());
      ++problems;
      continue;
    }
    if (!list_cases(path, &cases)) {
      std::printf("TABLE: %s --list failed\n", path.c_str());
      ++problems;
      continue;
    }
    for (const auto& c : cases) {
      listed.insert(bin + "." + c);
      if (!std::any_of(table.begin(), table.end(), [&](auto& r) { return r.binary == bin && r.case_name == c; })) {
        std::printf("TABLE: case %s.%s has no row in %s\n", bin.c_str(), c.c_str(), o.table.c_str());
        ++problems;
      }
    }
  }

  // --plan FILE: the binary.case names this run set out to run, one a line, each optionally followed by the GPU
  // pairs planned for it ("repro_x.read 0-1 1-0"): every planned pair must leave its record (scripts/triage leaves
  // known-crash and self-test
  // cases out); without it every case of every --binary must have a record.
  std::set<std::string> plan;
  std::map<std::string, std::set<std::string>> planned_pairs;
  if (!o.plan.empty()) {
    std::string plan_text;
    if (!read_file(o.plan, &plan_text)) {
      std::printf("cannot read --plan %s\n", o.plan.c_str());
      return 99;
    }
    for (auto line : split(plan_text, '\n')) {
      std::vector<std::string> words;
      for (auto w : split(trim(line), ' '))
        if (!trim(w).empty()) words.emplace_back(trim(w));
      if (words.empty()) continue;
      plan.insert(words[0]);
      for (size_t i = 1; i < words.size(); ++i) planned_pairs[words[0]].insert(words[i]);
    }
  }
  std::vector<Run> runs = read_runs(o.results);
  std::vector<Row> rows;
  std::set<std::string> seen;
  for (const auto& run : runs)
    if (!run.error.empty()) {
      rows.push_back({run.file, "", "-", "?", "CHANGED: " + run.error, run.error, "", "", true, false});
    }
  for (const auto& t : table) {
    std::string name = t.binary + "." + t.case_name;
    if (!seen.insert(name).second) continue;
    if (!known.empty() && !known.count(t.binary)) {
      std::printf("TABLE: row for %s names a binary that is not in the manifest (line %d)\n", name.c_str(), t.line);
      ++problems;
      continue;
    }
    if (checked.count(t.binary) && !listed.count(name)) {
      std::printf("TABLE: row for %s names a case the binary does not have (line %d)\n", name.c_str(), t.line);
      ++problems;
      continue;
    }
    bool any = false;
    std::set<std::string> pairs_seen;
    for (const auto& run : runs) {
      if (!run.error.empty() || run.binary != t.binary || run.case_name != t.case_name) continue;
      any = true;
      pairs_seen.insert(run.pair);
      const ExpectedRow* want = find_expected(table, t.binary, t.case_name, run.facts);
      Row r{name,
            run.pair,
            want ? verdict_cell(*want) : "-",
            verdict_name(run.verdict),
            "",
            run.detail,
            run.metric,
            want ? want->evidence : "no row matches this node"};
      const Match m = want ? match_expected(*want, run.verdict, run.detail) : Match::WrongVerdict;
      if (run.verdict != Verdict::Skip)
        for (const auto& key : unreported_keys(table, t.binary, t.case_name, run.facts)) {
          std::printf("TABLE: a condition of %s uses '%s', which run %s does not report\n", name.c_str(), key.c_str(),
                      run.file.c_str());
          ++problems;
        }
      if (run.verdict == Verdict::Skip) {
        r.result = "not run (skipped: " + run.detail + ")";
        r.not_run = true;
      } else if (m == Match::Ok) {
        r.result = "OK";
      } else if (m == Match::WrongReason) {
        r.result = "CHANGED: the verdict is as expected but not its reason (none of '" + join(want->reasons, "', '") +
                   "' in: " + run.detail + ") (expected per line " + std::to_string(want->line) + ": " + r.evidence +
                   ")";
        r.changed = true;
      } else {
        r.result = "CHANGED: " + run.detail + " (expected per line " + std::to_string(want ? want->line : 0) + ": " +
                   r.evidence + ")";
        r.changed = true;
      }
      rows.push_back(r);
    }
    // A case that should have run and left no record is CHANGED: a run that never reported (a launcher that died,
    // a test registered without --json, a record that could not be written) must not read as "not run".
    // So is a planned pair without its record, beside the pairs that reported.
    for (const auto& pair : planned_pairs[name])
      if (!pairs_seen.count(pair))
        rows.push_back({name, pair, verdict_cell(t), "-",
                        "CHANGED: the planned run on GPUs " + pair + " left no record in " + o.results, "", "",
                        t.evidence, true, false});
    if (!planned_pairs[name].empty()) continue;
    const bool planned = plan.empty() ? built.count(t.binary) > 0 : plan.count(name) > 0;
    if (!any && planned)
      rows.push_back(
          {name, "", verdict_cell(t), "-", "CHANGED: no run record in " + o.results, "", "", t.evidence, true, false});
    else if (!any)
      rows.push_back({name, "", verdict_cell(t), "-",
                      built.empty()            ? "not run"
                      : !built.count(t.binary) ? "not run (binary not built here)"
                                               : "not run (not in this run's plan)",
                      "", "", t.evidence, false, true});
  }

  int ok = 0, changed = 0, not_run = 0;
  std::printf("%-40s %-6s %-9s %-9s %s\n", "case", "pair", "expected", "observed", "result");
  for (const auto& r : rows) {
    std::printf("%-40s %-6s %-9s %-9s %s\n", r.name.c_str(), r.pair.empty() ? "-" : r.pair.c_str(), r.expected.c_str(),
                r.observed.c_str(), r.result.c_str());
    ok += !r.changed && !r.not_run;
    changed += r.changed;
    not_run += r.not_run;
  }
  std::printf("%d OK, %d CHANGED, %d not run, %d table problems\n", ok, changed, not_run, problems);
  if (o.matrix) std::fputs(matrices(rows, false).c_str(), stdout);
  // Each output written whole or reported: a folder that cannot take it is an error naming the path, never
  // "written".
  std::vector<std::pair<const std::string*, std::function<std::string()>>> outputs{
      {&o.summary_json, [&] { return json_rows(rows, ok, changed, not_run, problems); }},
      {&o.markdown, [&] { return markdown_report(rows, ok, changed, not_run, problems); }},
      {&o.failures, [&] { return failures_md(runs, table); }},
      {&o.gpus, [&] { return gpus_md(runs); }},
      {&o.ran, [&] { return backends_ran(runs); }},
      {&o.rocm_md, [&] { return rocm_versions_md(runs); }},
      {&o.junit, [&] { return junit_report(rows); }}};
  bool unwritten = false;
  for (const auto& [path, text] : outputs) {
    if (path->empty()) continue;
    Status w = write_text_file(*path, text());
    if (!w.ok()) {
      std::fprintf(stderr, "check_expected: %s\n", w.detail.c_str());
      unwritten = true;
    }
  }
  if (unwritten) return 99;
  return changed || problems ? 1 : 0;
}

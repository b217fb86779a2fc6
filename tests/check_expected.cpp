// The expected_verdicts test: compares each case's observed verdict (results/<binary>.<case>.json, written by
// the case tests) with expected/verdicts.md, and checks that the table and the binaries' --list agree.
// Prints case / expected / observed / OK-or-CHANGED; a skip is "not run", never CHANGED. Exit 1 on any CHANGED.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "expected.h"
#include "json.h"
#include "text.h"

namespace {

using namespace vmr;

bool read_file(const std::string& path, std::string* out) {
  std::ifstream f(path);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

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

struct Observed {
  bool ran = false;
  Verdict verdict = Verdict::Harness;
  std::string detail;
  Facts facts;
  std::string error;
};

Observed read_result(const std::string& path) {
  Observed o;
  std::string text;
  if (!read_file(path, &text)) return o;
  o.ran = true;
  JsonValue run;
  Status st = parse_json(text, &run);
  const JsonValue* cases = run.get("cases");
  if (!st.ok() || !cases || cases->type != JsonValue::Array || cases->arr.size() != 1) {
    o.error = "unreadable result " + path + (st.ok() ? "" : ": " + st.detail);
    return o;
  }
  const JsonValue& c = cases->arr[0];
  auto v = verdict_from_name(c.get_string("verdict"));
  if (!v) {
    o.error = "result " + path + " has no verdict";
    return o;
  }
  o.verdict = *v;
  o.detail = c.get_string("detail");
  if (const JsonValue* env = run.get("environment"))
    for (const auto& [k, val] : env->obj)
      if (val.type == JsonValue::String) o.facts.emplace(k, val.str);
  // Conditions read the exporter's facts: rank 0 by the suite's convention.
  const JsonValue* ranks = c.get("ranks");
  if (ranks && ranks->type == JsonValue::Array && !ranks->arr.empty())
    if (const JsonValue* info = ranks->arr[0].get("info"))
      for (const auto& [k, val] : info->obj)
        if (val.type == JsonValue::String) o.facts.emplace(k, val.str);
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  std::string table_path, results_dir;
  std::vector<std::string> binaries;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--table") table_path = argv[i + 1];
    else if (flag == "--results") results_dir = argv[i + 1];
    else if (flag == "--binary") binaries.push_back(argv[i + 1]);
    else {
      std::fprintf(stderr, "check_expected: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  if (table_path.empty() || results_dir.empty() || argc % 2 == 0) {
    std::fprintf(stderr, "usage: check_expected --table FILE --results DIR [--binary PATH]...\n");
    return 2;
  }
  std::string text;
  std::vector<ExpectedRow> rows;
  if (!read_file(table_path, &text)) {
    std::printf("cannot read %s\n", table_path.c_str());
    return 1;
  }
  Status st = parse_expected_table(text, &rows);
  if (!st.ok()) {
    std::printf("%s\n", st.detail.c_str());
    return 1;
  }

  int problems = 0;
  std::set<std::string> listed;  // binary.case from --list
  for (const auto& path : binaries) {
    std::vector<std::string> cases;
    std::string bin = basename_of(path);
    if (!list_cases(path, &cases)) {
      std::printf("TABLE: %s --list failed\n", path.c_str());
      ++problems;
      continue;
    }
    for (const auto& c : cases) {
      listed.insert(bin + "." + c);
      if (!std::any_of(rows.begin(), rows.end(), [&](auto& r) { return r.binary == bin && r.case_name == c; })) {
        std::printf("TABLE: case %s.%s has no row in expected/verdicts.md\n", bin.c_str(), c.c_str());
        ++problems;
      }
    }
  }

  std::printf("%-40s %-9s %-9s %s\n", "case", "expected", "observed", "result");
  std::set<std::string> seen;
  int changed = 0, ok = 0, not_run = 0;
  for (const auto& r : rows) {
    std::string name = r.binary + "." + r.case_name;
    if (!seen.insert(name).second) continue;
    bool built = std::any_of(binaries.begin(), binaries.end(), [&](auto& b) { return basename_of(b) == r.binary; });
    if (built && !listed.count(name)) {
      std::printf("TABLE: row for %s names a case the binary does not have (line %d)\n", name.c_str(), r.line);
      ++problems;
      continue;
    }
    Observed o = read_result(results_dir + "/" + name + ".json");
    if (!o.error.empty()) {
      std::printf("%-40s %-9s %-9s CHANGED (%s)\n", name.c_str(), "-", "?", o.error.c_str());
      ++changed;
      continue;
    }
    const ExpectedRow* want = o.ran ? find_expected(rows, r.binary, r.case_name, o.facts) : nullptr;
    const char* want_name = want ? verdict_name(want->verdict) : "-";
    if (!o.ran) {
      std::printf("%-40s %-9s %-9s not run%s\n", name.c_str(), verdict_name(r.verdict), "-",
                  built ? "" : " (binary not built here)");
      ++not_run;
    } else if (o.verdict == Verdict::Skip) {
      std::printf("%-40s %-9s %-9s not run (skipped: %s)\n", name.c_str(), want_name, "SKIP", o.detail.c_str());
      ++not_run;
    } else if (want && want->verdict == o.verdict) {
      std::printf("%-40s %-9s %-9s OK\n", name.c_str(), want_name, verdict_name(o.verdict));
      ++ok;
    } else {
      std::printf("%-40s %-9s %-9s CHANGED: %s (expected per line %d: %s)\n", name.c_str(), want_name,
                  verdict_name(o.verdict), o.detail.c_str(), want ? want->line : 0,
                  want ? want->evidence.c_str() : "no row matches this node");
      ++changed;
    }
  }
  std::printf("%d OK, %d CHANGED, %d not run, %d table problems\n", ok, changed, not_run, problems);
  return changed || problems ? 1 : 0;
}

// The launcher side of every reproducer: command line, case selection, the environment block, one supervised
// run per case, the VERDICT line and the --json record.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

#include "env_block.h"
#include "expected.h"
#include "launcher.h"
#include "options.h"
#include "rank_main.h"
#include "repro.h"
#include "run_json.h"
#include "text.h"

namespace vmr {

namespace {

// Cases a plain run leaves out, and why: expected to crash, or harness self-tests that misbehave on purpose.
std::vector<std::string> opt_in_tags(const std::vector<ExpectedRow>& table, const ReproBinary& bin, const CaseDef& c) {
  std::vector<std::string> tags;
  if (is_known_crash(table, bin.name, c.name)) tags.push_back("known-crash");
  for (const auto& l : labels_of(table, bin.name, c.name))
    if (l == "selftest") tags.push_back(l);
  return tags;
}

std::string format_human(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Order in which case verdicts dominate a run of several cases.
int run_severity(Verdict v) {
  switch (v) {
    case Verdict::Harness: return 6;
    case Verdict::Hang: return 5;
    case Verdict::Crash: return 4;
    case Verdict::Fail: return 3;
    case Verdict::Pass: return 2;
    case Verdict::Skip: return 1;  // only when every case skipped
    default: return 0;
  }
}

int launcher_main(const ReproBinary& bin, int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill the process CTest waits on
  std::vector<ExpectedRow> table;
  Status tab = parse_expected_table(kExpectedTable, &table);
  if (!tab.ok()) {
    std::printf("VERDICT: HARNESS %s.- built-in expected table: %s\n", bin.name, tab.detail.c_str());
    return exit_code(Verdict::Harness);
  }
  std::vector<std::string> names;
  for (const auto& c : bin.cases) names.emplace_back(c.name);
  Options o;
  Status parsed = parse_options(argc, argv, names, &o);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: %s\n", bin.name, parsed.detail.c_str());
    return exit_code(Verdict::Usage);
  }
  if (o.help) {
    std::fputs(usage_text(bin.name).c_str(), stdout);
    return 0;
  }
  if (o.list) {
    for (const auto& c : bin.cases) {
      auto tags = opt_in_tags(table, bin, c);
      std::printf("%-22s %s%s\n", c.name, c.description, tags.empty() ? "" : (" [" + join(tags, ", ") + "]").c_str());
    }
    return 0;
  }
  std::vector<const CaseDef*> selected;
  for (const auto& c : bin.cases) {
    bool named = std::find(o.cases.begin(), o.cases.end(), c.name) != o.cases.end();
    if (o.cases.empty() ? (o.all || opt_in_tags(table, bin, c).empty()) : named) selected.push_back(&c);
  }
  auto env = [](const char* k) -> const char* { return ::getenv(k); };
  int ranks = 0;
  Status st = resolve_ranks(o, env, &ranks);
  RunSummary run{bin.name, bin.backend.name, {}, {}, {}, {}};
  if (st.ok()) st = resolve_devices(o, ranks, env, &run.devices, &run.device_source);
  if (!st.ok()) {
    std::printf("VERDICT: HARNESS %s.- %s\n", bin.name, st.detail.c_str());
    return exit_code(Verdict::Harness);
  }
  std::string json_tmp = o.json_path.empty() ? "" : o.json_path + ".tmp";
  if (!json_tmp.empty() && !std::ofstream(json_tmp)) {
    std::fprintf(stderr, "%s: --json: cannot write '%s'\n", bin.name, o.json_path.c_str());
    return exit_code(Verdict::Usage);
  }

  run.host = host_environment(bin.name, bin.backend.name);
  run.vars = runtime_variables();
  std::vector<std::string> dev_text;
  for (int d : run.devices) dev_text.push_back(std::to_string(d));
  std::printf("%srun: ranks=%d devices=%s (%s)\n", format_env_block(run.host, run.vars).c_str(), ranks,
              join(dev_text, ",").c_str(), run.device_source.c_str());

  std::vector<CaseResult> results;
  for (const CaseDef* c : selected) {
    LaunchPlan plan;
    plan.case_name = c->name;
    plan.devices = run.devices;
    plan.timeout_s = o.timeout_given ? o.timeout_s : c->default_timeout_s > 0 ? c->default_timeout_s : o.timeout_s;
    std::printf("--- %s.%s: %s (deadline %s s)\n", bin.name, c->name, c->description,
                format_double(plan.timeout_s).c_str());
    std::fflush(stdout);
    results.push_back(run_case(plan));
    const CaseResult& r = results.back();
    std::vector<std::string> metrics;
    for (const auto& m : case_metrics(r)) metrics.push_back(m.name + "=" + format_human(m.value) + " " + m.unit);
    if (!metrics.empty()) std::printf("METRICS: %s.%s %s\n", bin.name, c->name, join(metrics, ", ").c_str());
    if (selected.size() > 1)
      std::printf("RESULT: %s %s.%s %s\n", verdict_name(r.verdict), bin.name, c->name, r.detail.c_str());
    std::fflush(stdout);
  }

  Verdict verdict = Verdict::Skip;
  std::string label, detail;
  if (results.size() == 1) {
    verdict = results[0].verdict;
    label = results[0].case_name;
    detail = results[0].detail;
  } else {
    std::map<Verdict, std::vector<std::string>> by;
    std::vector<std::string> all;
    for (const auto& r : results) {
      by[r.verdict].push_back(r.case_name);
      all.push_back(r.case_name);
      if (run_severity(r.verdict) > run_severity(verdict)) verdict = r.verdict;
    }
    label = results.empty() ? "-" : join(all, "+");
    std::vector<std::string> parts;
    for (const auto& [v, cases] : by) parts.push_back(std::string(verdict_name(v)) + ": " + join(cases, ","));
    detail = results.empty() ? "no case selected" : join(parts, "; ");
    if (results.empty()) verdict = Verdict::Usage;
  }
  if (!json_tmp.empty()) {
    std::ofstream(json_tmp) << run_json(run, results, verdict, detail);
    if (::rename(json_tmp.c_str(), o.json_path.c_str()) != 0) {
      std::printf("VERDICT: HARNESS %s.%s cannot write --json %s\n", bin.name, label.c_str(), o.json_path.c_str());
      return exit_code(Verdict::Harness);
    }
  }
  std::printf("VERDICT: %s %s.%s %s\n", verdict_name(verdict), bin.name, label.c_str(), detail.c_str());
  std::fflush(stdout);
  return exit_code(verdict);
}

}  // namespace

int repro_main(const ReproBinary& bin, int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]).rfind(kRankFlag, 0) == 0) {
    int code = rank_main(bin, argc, argv);
    // _exit: a GPU runtime's exit-time teardown must not turn a reported verdict into a crash.
    std::fflush(nullptr);
    ::_exit(code);
  }
  return launcher_main(bin, argc, argv);
}

}  // namespace vmr

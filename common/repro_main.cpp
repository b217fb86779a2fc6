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
#include "json.h"
#include "launcher.h"
#include "options.h"
#include "rank_main.h"
#include "repro.h"
#include "text.h"

namespace vmr {

namespace {

struct RunContext {
  const ReproBinary& bin;
  Options opts;
  std::vector<int> devices;
  std::string device_source;
  EnvFacts host, vars;
};

// Cases a plain run leaves out, and why: expected to crash, or harness self-tests that misbehave on purpose.
std::vector<std::string> opt_in_tags(const std::vector<ExpectedRow>& table, const ReproBinary& bin, const CaseDef& c) {
  std::vector<std::string> tags;
  if (is_known_crash(table, bin.name, c.name)) tags.push_back("known-crash");
  for (const auto& l : labels_of(table, bin.name, c.name))
    if (l == "selftest") tags.push_back(l);
  return tags;
}

void write_rank_json(JsonWriter& j, const RankOutcome& r) {
  j.begin_object();
  j.key("rank").value(r.rank).key("device").value(r.device).key("pid").value(int64_t(r.pid));
  j.key("exit_code");
  if (r.reaped && !r.exit.signaled) j.value(r.exit.code);
  else j.null();
  j.key("signal");
  if (r.exit.signaled) j.value(signal_name(r.exit.signal));
  else j.null();
  j.key("core_dumped").value(r.exit.core_dumped);
  j.key("reaped").value(r.reaped);
  j.key("killed_by").value(r.killed == KilledBy::None       ? "none"
                           : r.killed == KilledBy::Deadline ? "deadline"
                                                            : "after-other-rank-died");
  if (!r.wchan.empty()) j.key("stuck").value(r.wchan);
  j.key("verdict");
  if (r.has_record) j.value(verdict_name(r.record.verdict));
  else j.null();
  j.key("detail").value(r.record.detail);
  if (!r.record_error.empty()) j.key("record_error").value(r.record_error);
  j.key("info").begin_object();
  for (const auto& [k, v] : r.record.info) j.key(k).value(v);
  j.end_object();
  j.key("phases_s").begin_object();
  for (const auto& [k, v] : r.record.phases) j.key(k).value(v);
  j.end_object();
  j.key("metrics").begin_object();
  for (const auto& m : r.record.metrics) j.key(m.name).begin_object().key("value").value(m.value).key("unit").value(m.unit).end_object();
  j.end_object();
  j.key("stdout_tail").begin_array();
  for (const auto& l : r.stdout_tail) j.value(l);
  j.end_array();
  j.key("stderr_tail").begin_array();
  for (const auto& l : r.stderr_tail) j.value(l);
  j.end_array();
  j.end_object();
}

// Case-level phases: the slowest rank's time for each phase, and the launcher's spawn time.
std::vector<std::pair<std::string, double>> case_phases(const CaseResult& c) {
  std::vector<std::pair<std::string, double>> out;
  if (c.spawn_s() >= 0) out.emplace_back("spawn", c.spawn_s());
  for (const auto& r : c.ranks)
    for (const auto& phase : r.record.phases) {  // not a structured binding: clang's C++17 cannot capture one
      auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == phase.first; });
      if (it == out.end()) out.push_back(phase);
      else it->second = std::max(it->second, phase.second);
    }
  out.emplace_back("total", c.wall_s());
  return out;
}

// Case-level metrics: ranks agree on them through the channel, so the first rank's copy of each name is taken.
std::vector<Metric> case_metrics(const CaseResult& c) {
  std::vector<Metric> out;
  for (const auto& r : c.ranks)
    for (const auto& m : r.record.metrics)
      if (std::none_of(out.begin(), out.end(), [&](auto& x) { return x.name == m.name; })) out.push_back(m);
  return out;
}

std::string write_json(const RunContext& rc, const std::vector<CaseResult>& results, Verdict verdict,
                       const std::string& detail) {
  JsonWriter j;
  j.begin_object();
  j.key("schema").value("vmem-repro-run/1");
  j.key("binary").value(rc.bin.name).key("backend").value(rc.bin.backend.name);
  j.key("verdict").value(verdict_name(verdict)).key("exit_code").value(exit_code(verdict));
  j.key("detail").value(detail);
  j.key("environment").begin_object();
  for (const auto& [k, v] : rc.host) j.key(k).value(v);
  j.key("variables").begin_object();
  for (const auto& [k, v] : rc.vars) j.key(k).value(v);
  j.end_object().end_object();
  j.key("options").begin_object();
  j.key("ranks").value(int(rc.devices.size()));
  j.key("devices").begin_array();
  for (int d : rc.devices) j.value(d);
  j.end_array();
  j.key("device_source").value(rc.device_source);
  j.end_object();
  j.key("cases").begin_array();
  for (const auto& c : results) {
    j.begin_object();
    j.key("case").value(c.case_name).key("verdict").value(verdict_name(c.verdict));
    j.key("exit_code").value(exit_code(c.verdict)).key("detail").value(c.detail);
    j.key("deadline_passed").value(c.deadline_passed);
    j.key("phases_s").begin_object();
    for (const auto& [k, v] : case_phases(c)) j.key(k).value(v);
    j.end_object();
    j.key("metrics").begin_object();
    for (const auto& m : case_metrics(c))
      j.key(m.name).begin_object().key("value").value(m.value).key("unit").value(m.unit).end_object();
    j.end_object();
    j.key("ranks").begin_array();
    for (const auto& r : c.ranks) write_rank_json(j, r);
    j.end_array();
    j.end_object();
  }
  j.end_array().end_object();
  return j.str() + "\n";
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
  RunContext rc{bin, {}, {}, {}, {}, {}};
  Status parsed = parse_options(argc, argv, names, &rc.opts);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: %s\n", bin.name, parsed.detail.c_str());
    return exit_code(Verdict::Usage);
  }
  const Options& o = rc.opts;
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
  if (st.ok()) st = resolve_devices(o, ranks, env, &rc.devices, &rc.device_source);
  if (!st.ok()) {
    std::printf("VERDICT: HARNESS %s.- %s\n", bin.name, st.detail.c_str());
    return exit_code(Verdict::Harness);
  }
  std::string json_tmp = o.json_path.empty() ? "" : o.json_path + ".tmp";
  if (!json_tmp.empty() && !std::ofstream(json_tmp)) {
    std::fprintf(stderr, "%s: --json: cannot write '%s'\n", bin.name, o.json_path.c_str());
    return exit_code(Verdict::Usage);
  }

  rc.host = host_environment(bin.name, bin.backend.name);
  rc.vars = runtime_variables();
  std::vector<std::string> dev_text;
  for (int d : rc.devices) dev_text.push_back(std::to_string(d));
  std::printf("%srun: ranks=%d devices=%s (%s)\n", format_env_block(rc.host, rc.vars).c_str(), ranks,
              join(dev_text, ",").c_str(), rc.device_source.c_str());

  std::vector<CaseResult> results;
  for (const CaseDef* c : selected) {
    LaunchPlan plan;
    plan.case_name = c->name;
    plan.devices = rc.devices;
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
    std::ofstream(json_tmp) << write_json(rc, results, verdict, detail);
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

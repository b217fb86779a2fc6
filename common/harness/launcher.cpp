// The launcher side of every reproducer: command line, case selection, the environment block, one supervised
// run per case, then the summary: the VERDICT line and the --json record.
#include "harness/launcher.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "harness/case_environment.h"
#include "harness/device_probe.h"
#include "harness/env_block.h"
#include "harness/expected.h"
#include "harness/json.h"
#include "harness/json_report.h"
#include "harness/options.h"
#include "harness/output_file.h"
#include "harness/supervisor.h"
#include "harness/text.h"
#include "harness/wait_status.h"

extern char** environ;

namespace vmr {

namespace {

// The signal that interrupted the launcher (SIGINT, SIGTERM, SIGHUP), 0 while none has.
volatile sig_atomic_t g_interrupt = 0;
void on_interrupt(int sig) { g_interrupt = sig; }

// The launcher never dies by a signal (CTest's WILL_FAIL and SKIP_RETURN_CODE need an exit code): an interrupt
// stops the ranks and ends the run with a VERDICT line. A parent may hand down SIGCHLD ignored, which would make the
// kernel reap the ranks itself and hide how they died: the launcher restores the default.
void install_signal_handling() {
  ::signal(SIGPIPE, SIG_IGN);  // a closed stdout must not kill the process CTest waits on
  ::signal(SIGXFSZ, SIG_IGN);  // a file-size limit makes the --json write fail with EFBIG, reported, not a death
  ::signal(SIGCHLD, SIG_DFL);
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: the supervisor's poll returns at once
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void print_case_list(const std::vector<ExpectedRow>& table, const ReproBinary& bin) {
  for (const auto& c : bin.cases) {
    const CasePolicy p = case_policy(table, bin.name, c.name);
    const auto tags = p.tags(), threads = p.threads();
    std::printf("%-22s %s%s%s\n", c.name, c.description, tags.empty() ? "" : (" [" + join(tags, ", ") + "]").c_str(),
                threads.empty() ? "" : (" (see " + join(threads, ", ") + ")").c_str());
  }
}

// --list --json FILE: what CMake registers as CTest tests (cmake/DiscoverCases.cmake) and triage runs, so neither
// parses the table nor decides a tag itself.
std::string case_list_json(const std::vector<ExpectedRow>& table, const ReproBinary& bin) {
  JsonWriter w;
  w.begin_object().key("schema").value("vmem-repro-cases/1").key("binary").value(bin.name);
  w.key("backend").value(bin.backend).key("cases").begin_array();
  for (const auto& c : bin.cases) {
    const CasePolicy p = case_policy(table, bin.name, c.name);
    w.begin_object().key("name").value(c.name).key("description").value(c.description);
    w.key("has_rows").value(p.has_rows).key("known_crash").value(p.known_crash).key("selftest").value(p.selftest);
    w.key("opt_in").value(p.opt_in()).key("labels").begin_array();
    for (const auto& l : p.labels) w.value(l);
    w.end_array().key("threads").begin_array();
    for (const auto& t : p.threads()) w.value(t);
    w.end_array().key("ctest_will_fail").value(p.ctest_will_fail).key("ctest_verdicts").begin_array();
    for (Verdict v : p.ctest_verdicts) w.value(verdict_name(v));
    w.end_array().end_object();
  }
  w.end_array().end_object();
  return w.str() + "\n";
}

std::string format_human(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The deadline when --timeout is not given: the case's own, else 60 s for every 16 ranks begun, since a case's
// work grows with the rank count (64 ranks reading each other on 2 cores took 47 s of a flat 60).
double default_timeout(const CaseDef& c, int ranks) {
  if (c.default_timeout_s > 0) return c.default_timeout_s;
  return kDefaultTimeoutS * ((ranks + 15) / 16);
}

void print_case_result(const ReproBinary& bin, const CaseResult& r, bool several) {
  std::vector<std::string> metrics;
  for (const auto& m : case_metrics(r)) metrics.push_back(m.name + "=" + format_human(m.value) + " " + m.unit);
  if (!metrics.empty()) std::printf("METRICS: %s.%s %s\n", bin.name, r.case_name.c_str(), join(metrics, ", ").c_str());
  if (several)
    std::printf("RESULT: %s %s.%s %s\n", verdict_name(r.verdict), bin.name, r.case_name.c_str(),
                printable(r.detail, 4000).c_str());
  std::fflush(stdout);
}

// The selected cases in as few rank lives as isolation allows: one set of ranks (one GPU runtime start each) takes
// them in turn until a case does not PASS or SKIP, or the next case wants another environment (case_environment.h);
// the rest go on in fresh ranks, so no fault reaches another case. An interrupt (during a life or between two)
// starts no further life: the cases left go to `not_run`. Every case's environment was parsed by launcher_main.
std::vector<CaseResult> run_selected(const ReproBinary& bin, const std::vector<const CaseDef*>& selected,
                                     const Options& o, const std::vector<int>& devices,
                                     std::vector<std::string>* not_run) {
  std::vector<CaseResult> results;
  const bool several = selected.size() > 1;
  size_t next = 0;
  while (next < selected.size() && !g_interrupt) {
    LaunchPlan plan;
    plan.devices = devices;
    plan.interrupt = &g_interrupt;
    (void)parse_environment_changes(selected[next]->environment, &plan.environment);
    if (next > 0)
      std::printf(
          "--- fresh ranks for the %zu case(s) after the last that did not pass or ran in another "
          "environment\n",
          selected.size() - next);
    if (!plan.environment.empty())
      std::printf("--- the ranks' environment: %s\n", printable(environment_text(plan.environment), 400).c_str());
    const size_t end = same_environment_end(selected, next);
    for (size_t k = next; k < end; ++k) {
      const CaseDef& c = *selected[k];
      plan.cases.push_back({c.name, o.timeout_given ? o.timeout_s : default_timeout(c, int(devices.size()))});
      std::printf("--- %s.%s: %s (deadline %s s)\n", bin.name, c.name, c.description,
                  format_double(plan.cases.back().timeout_s).c_str());
    }
    std::fflush(stdout);
    std::vector<CaseResult> life = run_cases(plan);
    if (!plan.environment.empty()) {  // what the ranks had, for the record (CaseResult::variables)
      const std::vector<std::string> ranks_env = changed_environment(environ, plan.environment);
      std::vector<const char*> envp;
      for (const auto& e : ranks_env) envp.push_back(e.c_str());
      envp.push_back(nullptr);
      const EnvFacts vars = runtime_variables(envp.data());
      for (auto& r : life) r.variables = vars;
    }
    for (const auto& r : life) print_case_result(bin, r, several);
    next += life.size();
    results.insert(results.end(), life.begin(), life.end());
  }
  for (size_t k = next; k < selected.size(); ++k) not_run->emplace_back(selected[k]->name);
  return results;
}

// Ranks that share a device (legal, and useful: several ranks on one GPU), said once on the run line.
std::string shared_devices_note(const std::vector<int>& devices) {
  std::map<int, std::vector<std::string>> by;
  for (size_t i = 0; i < devices.size(); ++i) by[devices[i]].push_back(std::to_string(i));
  std::vector<std::string> shared;
  for (const auto& [d, ranks] : by)
    if (ranks.size() > 1) shared.push_back("ranks " + join(ranks, ",") + " share device " + std::to_string(d));
  return shared.empty() ? "" : "; " + join(shared, "; ") + " (allowed: several ranks may run on one GPU)";
}

}  // namespace

size_t same_environment_end(const std::vector<const CaseDef*>& selected, size_t first) {
  std::vector<EnvChange> want, other;
  (void)parse_environment_changes(selected[first]->environment, &want);
  size_t end = first + 1;
  while (end < selected.size() && parse_environment_changes(selected[end]->environment, &other).ok() && other == want)
    ++end;
  return end;
}

// --case names run exactly those; otherwise --all runs every case, and a plain run every case without a tag. In the
// binary's order, but the cases CTest expects to fail go last (ctest_will_fail: the unconditional row allows no PASS,
// or the case is known to crash): a case that does not PASS ends its
// rank life, and the cases after it would need fresh ranks, one more GPU runtime start each (0.3 s of CUDA on an
// H200, where repro_cuda_vmm's expected set-access-hole FAIL in the middle once made a second life of half its run).
std::vector<const CaseDef*> select_cases(const std::vector<ExpectedRow>& table, const ReproBinary& bin,
                                         const Options& o) {
  std::vector<const CaseDef*> selected;
  for (const auto& c : bin.cases) {
    bool named = std::find(o.cases.begin(), o.cases.end(), c.name) != o.cases.end();
    if (o.cases.empty() ? (o.all || !case_policy(table, bin.name, c.name).opt_in()) : named) selected.push_back(&c);
  }
  std::stable_partition(selected.begin(), selected.end(),
                        [&](const CaseDef* c) { return !case_policy(table, bin.name, c->name).ctest_will_fail; });
  return selected;
}

int launcher_main(const ReproBinary& bin, int argc, char** argv) {
  install_signal_handling();
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
    std::fprintf(stderr, "%s: %s\n", bin.name, printable(parsed.detail, 400).c_str());
    return exit_code(Verdict::Usage);
  }
  if (o.help) {
    std::fputs(usage_text(bin.name).c_str(), stdout);
    return 0;
  }
  if (o.list && o.json_path.empty()) {
    print_case_list(table, bin);
    return 0;
  }
  if (!o.json_path.empty()) {
    Status where = check_output_path(o.json_path);
    if (!where.ok()) {
      std::fprintf(stderr, "%s: %s\n", bin.name, printable(where.detail, 400).c_str());
      return exit_code(Verdict::Usage);
    }
  }
  if (o.list) {
    Status written = write_output_file(o.json_path, case_list_json(table, bin));
    if (!written.ok()) std::fprintf(stderr, "%s: --json: %s\n", bin.name, printable(written.detail, 400).c_str());
    return written.ok() ? 0 : exit_code(Verdict::Harness);
  }
  std::vector<const CaseDef*> selected = select_cases(table, bin, o);
  for (const CaseDef* c : selected) {  // a binary's own mistake, said before any rank starts
    std::vector<EnvChange> changes;
    const Status parsed_env = parse_environment_changes(c->environment, &changes);
    if (!parsed_env.ok()) {
      std::printf("VERDICT: HARNESS %s.%s %s\n", bin.name, c->name, printable(parsed_env.detail, 400).c_str());
      return exit_code(Verdict::Harness);
    }
  }
  auto env = [](const char* k) -> const char* { return ::getenv(k); };
  int ranks = 0;
  RunSummary run{bin.name, bin.backend, {}, {}, {}, {}, {}};
  const Status st = [&]() -> Status {  // initialised, not reassigned: see rank_main (nvcc #2810-D)
    VMR_TRY(resolve_ranks(o, env, &ranks));
    // Only where nothing chose the devices, and only for a backend with devices to count (host: none).
    std::function<VisibleDevices()> visible;
    if (bin.count_devices)
      visible = [] {
        DeviceProbe probe;
        probe.interrupt = &g_interrupt;
        return probe_visible_devices(probe).visible;
      };
    return resolve_devices(o, ranks, env, &run.devices, &run.device_source, visible);
  }();
  if (!st.ok()) {
    std::printf("VERDICT: HARNESS %s.- %s\n", bin.name, printable(st.detail, 400).c_str());
    return exit_code(Verdict::Harness);
  }
  // Ctrl-C during the device probe (a runtime start, up to its deadline): no case starts, and an empty run is not
  // the usage error "no case selected".
  if (g_interrupt) {
    std::printf("VERDICT: HARNESS %s.- interrupted by %s before any case started\n", bin.name,
                signal_name(int(g_interrupt)).c_str());
    std::fflush(stdout);
    return exit_code(Verdict::Harness);
  }
  run.host = host_environment(bin.name, bin.backend);
  run.vars = runtime_variables();
  std::vector<std::string> dev_text;
  for (int d : run.devices) dev_text.push_back(std::to_string(d));
  std::printf("%srun: ranks=%d devices=%s (%s%s)\n", format_env_block(run.host, run.vars).c_str(), ranks,
              join(dev_text, ",").c_str(), printable(run.device_source).c_str(),
              shared_devices_note(run.devices).c_str());

  // An interrupt ends the case in progress (it says so); the rest are not started, and the run says which.
  std::vector<CaseResult> results = run_selected(bin, selected, o, run.devices, &run.not_run);

  const RunVerdict s = summarize_run(results, run.not_run, int(g_interrupt));
  if (!o.json_path.empty()) {
    Status written = write_output_file(o.json_path, run_json(run, results, s.verdict, s.detail));
    if (!written.ok()) {
      std::printf("VERDICT: HARNESS %s.%s --json: %s\n", bin.name, s.label.c_str(),
                  printable(written.detail, 400).c_str());
      return exit_code(Verdict::Harness);
    }
  }
  std::printf("VERDICT: %s %s.%s %s\n", verdict_name(s.verdict), bin.name, s.label.c_str(),
              printable(s.detail, 4000).c_str());
  std::fflush(stdout);
  return exit_code(s.verdict);
}

}  // namespace vmr

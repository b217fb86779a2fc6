// The --json record of a run: verdicts, environment, per-rank exit or signal, per-phase times and metrics.
#include "harness/json_report.h"

#include <algorithm>
#include <map>

#include "harness/json.h"
#include "harness/text.h"
#include "harness/wait_status.h"

namespace vmr {

namespace {

void write_rank_json(JsonWriter& j, const RankOutcome& r) {
  j.begin_object();
  j.key("rank").value(r.rank).key("device").value(r.device).key("pid").value(int64_t(r.pid));
  j.key("exit_code");
  if (r.reaped && !r.exit.signaled)
    j.value(r.exit.code);
  else
    j.null();
  j.key("signal");
  if (r.exit.signaled)
    j.value(signal_name(r.exit.signal));
  else
    j.null();
  j.key("core_dumped").value(r.exit.core_dumped);
  j.key("went_on").value(r.went_on);
  j.key("reaped").value(r.reaped);
  j.key("killed_by")
      .value(r.killed == KilledBy::None        ? "none"
             : r.killed == KilledBy::Deadline  ? "deadline"
             : r.killed == KilledBy::Interrupt ? "launcher-interrupted"
                                               : "after-other-rank-died");
  if (!r.wchan.empty()) j.key("stuck").value(r.wchan);
  j.key("verdict");
  if (r.has_record)
    j.value(verdict_name(r.record.verdict));
  else
    j.null();
  j.key("detail").value(r.record.detail);
  if (!r.record_error.empty()) j.key("record_error").value(r.record_error);
  j.key("info").begin_object();
  for (const auto& [k, v] : r.record.info) j.key(k).value(v);
  j.end_object();
  j.key("phases_s").begin_object();
  for (const auto& [k, v] : r.record.phases) j.key(k).value(v);
  j.end_object();
  j.key("metrics").begin_object();
  for (const auto& m : r.record.metrics)
    j.key(m.name).begin_object().key("value").value(m.value).key("unit").value(m.unit).end_object();
  j.end_object();
  j.key("stdout_tail").begin_array();
  for (const auto& l : r.stdout_tail) j.value(l);
  j.end_array();
  j.key("stderr_tail").begin_array();
  for (const auto& l : r.stderr_tail) j.value(l);
  j.end_array();
  j.end_object();
}

}  // namespace

// Case-level phases: the slowest rank's time for each phase, and the launcher's spawn time.
std::vector<std::pair<std::string, double>> case_phases(const CaseResult& c) {
  std::vector<std::pair<std::string, double>> out;
  if (c.spawn_s() >= 0) out.emplace_back("spawn", c.spawn_s());
  for (const auto& r : c.ranks)
    for (const auto& phase : r.record.phases) {  // not a structured binding: clang's C++17 cannot capture one
      auto it = std::find_if(out.begin(), out.end(), [&](auto& p) { return p.first == phase.first; });
      if (it == out.end())
        out.push_back(phase);
      else
        it->second = std::max(it->second, phase.second);
    }
  out.emplace_back("total", c.wall_s());
  return out;
}

// Case-level metrics: the first rank's copy of each name (a case sends each from one rank, or ranks that agree).
std::vector<Metric> case_metrics(const CaseResult& c) {
  std::vector<Metric> out;
  for (const auto& r : c.ranks)
    for (const auto& m : r.record.metrics)
      if (std::none_of(out.begin(), out.end(), [&](auto& x) { return x.name == m.name; })) out.push_back(m);
  return out;
}

RunVerdict summarize_run(const std::vector<CaseResult>& results, const std::vector<std::string>& not_run,
                         int interrupted_by) {
  if (results.empty() && not_run.empty()) return {Verdict::Usage, "-", "no case selected"};
  if (results.size() == 1 && not_run.empty()) return {results[0].verdict, results[0].case_name, results[0].detail};
  RunVerdict s;
  std::map<Verdict, std::vector<std::string>> by;
  std::vector<std::string> all, parts;
  for (const auto& r : results) {
    by[r.verdict].push_back(r.case_name);
    all.push_back(r.case_name);
    if (case_summary_precedence(r.verdict) > case_summary_precedence(s.verdict)) s.verdict = r.verdict;
  }
  if (!not_run.empty()) {
    s.verdict = Verdict::Harness;
    all.insert(all.end(), not_run.begin(), not_run.end());
    parts.push_back("interrupted by " + (interrupted_by ? signal_name(interrupted_by) : std::string("a signal")) +
                    "; not run: " + join(not_run, ", "));
  }
  s.label = join(all, "+");
  for (const auto& [v, cases] : by) parts.push_back(std::string(verdict_name(v)) + ": " + join(cases, ","));
  s.detail = join(parts, "; ");
  return s;
}

std::string run_json(const RunSummary& rc, const std::vector<CaseResult>& results, Verdict verdict,
                     const std::string& detail) {
  JsonWriter j;
  j.begin_object();
  j.key("schema").value("vmem-repro-run/1");
  j.key("binary").value(rc.binary).key("backend").value(rc.backend);
  j.key("verdict").value(verdict_name(verdict)).key("exit_code").value(exit_code(verdict));
  j.key("detail").value(detail);
  j.key("not_run").begin_array();
  for (const auto& c : rc.not_run) j.value(c);
  j.end_array();
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
    if (!c.variables.empty()) {  // its ranks' own, where its environment changed the launcher's
      j.key("variables").begin_object();
      for (const auto& [k, v] : c.variables) j.key(k).value(v);
      j.end_object();
    }
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

}  // namespace vmr

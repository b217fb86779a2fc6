#include "prom.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <tuple>
#include <utility>

#include "harness/json.h"
#include "harness/text.h"

namespace vmr_tools {

using namespace vmr;

std::string prom_outcome(int exit_code) {
  switch (exit_code) {
    case 0:
      return "as_expected";
    case 1:
      return "changed";
    case 77:
      return "nothing_ran";
    default:
      return "error";
  }
}

namespace {

// Text for the text format, where a backslash starts an escape and only `escaped` (as \c) and newline (as \n) have
// one. Any other control byte (CR, NUL, ESC, DEL) has no escape there (a "\r" is a parse error), yet raw it splits
// a line for every line-based reader of the file or of /metrics, and a NUL ends a C string: it is written as the
// reports write it (one_line's \xNN, text.h printable), with that backslash escaped, so the label reads back as the
// four characters "\x0d", the same text report.md shows for the same name.
std::string prom_text(const std::string& s, std::string_view escaped) {
  std::string out;
  for (char c : valid_utf8(s)) {
    if (c == '\n') {
      out += "\\n";
    } else if (escaped.find(c) != std::string_view::npos) {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      out += "\\" + printable(std::string_view(&c, 1));
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string prom_label_value(const std::string& s) { return prom_text(s, "\\\""); }

std::string prom_help_text(const std::string& s) { return prom_text(s, "\\"); }

// std::to_chars, not printf: a process that set LC_NUMERIC to a comma locale must still write "1.5".
std::string prom_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : "NaN";
}

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

// One gauge family: its samples as (rendered labels, value), rendered sorted.
struct Family {
  const char* name;
  std::string help;
  std::vector<std::pair<std::string, std::string>> samples;

  void add(const Labels& labels, double value) {
    std::string text;
    for (const auto& [k, v] : labels) text += (text.empty() ? "{" : ",") + k + "=\"" + prom_label_value(v) + "\"";
    if (!text.empty()) text += "}";
    samples.emplace_back(std::move(text), prom_value(value));
  }

  std::string text() {
    if (samples.empty()) return "";
    std::sort(samples.begin(), samples.end());
    std::string out = std::string("# HELP ") + name + " " + prom_help_text(help) + "\n# TYPE " + name + " gauge\n";
    for (const auto& [labels, value] : samples) out += name + labels + " " + value + "\n";
    return out;
  }
};

// The labels that name a case and where it ran: the pair's two GPUs as exporter (rank 0) and importer (rank 1),
// the same GPU twice for the diagonal's "0-0"; a mesh ("0-1-2-3") or a host run ("") has neither.
Labels case_labels(const std::string& name, const Pair& p) {
  return {{"case", name},
          {"binary", name.substr(0, name.find('.'))},
          {"devices", pair_key(p)},
          {"exporter", p.is_pair() ? std::to_string(p.gpus[0]) : ""},
          {"importer", p.is_pair() ? std::to_string(p.gpus[1]) : ""}};
}

// The verdict's exit code. A row without one is 99 (a harness error) where it is CHANGED (a planned run without
// its record, an unreadable record) and 77 (as a SKIP) where it is "not run" (a binary not built, a case not in
// the plan): an alert on "neither 0 nor 77" then fires for what went wrong only.
int observed_code(const Row& r) { return r.observed ? exit_code(*r.observed) : r.not_run() ? 77 : 99; }

// The verdicts the rows that may apply allow, without their reasons ("CRASH/FAIL/PASS"): a label value stays short
// and one series per row; the reasons are in report.md. "none" where no row applies.
std::string allowed_text(const Row& r) {
  std::string names;
  for (Verdict v : r.allowed) names += std::string(names.empty() ? "" : "/") + verdict_name(v);
  return names.empty() ? "none" : names;
}

void add_rows(const Summary& s, Family* verdict, Family* changed) {
  std::set<std::pair<std::string, Pair>> seen;  // one series per case and pair, the first row's
  for (const Row& r : s.rows) {
    if (!seen.emplace(r.name, r.pair).second) continue;
    Labels labels = case_labels(r.name, r.pair);
    changed->add(labels, r.changed() ? 1 : 0);
    labels.emplace_back("verdict", r.observed ? verdict_name(*r.observed) : "none");
    labels.emplace_back("expected", allowed_text(r));
    verdict->add(labels, observed_code(r));
  }
}

// The case-level metrics of every row that has a record, in the two units a dashboard compares across nodes.
void add_metrics(const Summary& s, Family* bandwidth, Family* atomics) {
  std::set<std::tuple<std::string, Pair, std::string>> seen;
  for (const Row& r : s.rows) {
    const std::string& name = r.name;
    for (const Metric& m : r.metrics) {
      const bool gbps = m.unit == "GB/s", ops = m.unit == "ops/s";
      if ((!gbps && !ops) || !seen.emplace(name, r.pair, m.name).second) continue;
      Labels labels = case_labels(name, r.pair);
      labels.emplace_back("metric", m.name);
      if (gbps) bandwidth->add(labels, m.value * 1e9);
      if (ops) atomics->add(labels, m.value);
    }
  }
}

// "PASS 0, FAIL 1, CRASH 3, HANG 4, SKIP 77": the verdicts a case on a node can have, with the one map's codes.
std::string node_verdict_codes() {
  std::string text;
  for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::Crash, Verdict::Hang, Verdict::Skip})
    text += std::string(text.empty() ? "" : ", ") + vmr::verdict_name(v) + " " + std::to_string(exit_code(v));
  return text;
}

}  // namespace

std::string prom_textfile(const Summary& s, const PromFacts& f) {
  Family verdict{
      "vmem_repro_case_verdict",
      "The verdict's exit code of a case on a GPU pair: " + node_verdict_codes() +
          "; verdict=\"none\": 99 a planned run left no record, 77 not run here. expected: what expected/verdicts.md "
          "allows.",
      {}};
  Family changed{"vmem_repro_case_changed",
                 "1 when the case's verdict on this pair differs from expected/verdicts.md (CHANGED), else 0.",
                 {}};
  Family bandwidth{
      "vmem_repro_read_bandwidth_bytes_per_second",
      "A case's peer read bandwidth in bytes per second, data moving from the exporter's GPU to the importer's "
      "(the importer reading; the record's GB/s metric times 1e9).",
      {}};
  Family atomics{"vmem_repro_atomics_per_second", "A case's remote atomic operations per second.", {}};
  add_rows(s, &verdict, &changed);
  add_metrics(s, &bandwidth, &atomics);

  Family duration{"vmem_repro_triage_duration_seconds", "Wall time of the last triage.", {}};
  duration.add({}, f.took_s);
  Family exit{"vmem_repro_triage_exit_code",
              "Exit code of the last triage (0 as expected, 1 changed, 77 nothing ran, else an error).",
              {}};
  exit.add({}, f.exit_code);
  Family outcome{"vmem_repro_triage_outcome", "1 for the last triage's outcome, 0 for the others.", {}};
  std::vector<std::string> outcomes = {"as_expected", "changed", "nothing_ran", "error"};
  if (std::find(outcomes.begin(), outcomes.end(), f.outcome) == outcomes.end()) outcomes.push_back(f.outcome);
  for (const auto& o : outcomes) outcome.add({{"outcome", o}}, o == f.outcome ? 1 : 0);
  Family finished{"vmem_repro_triage_finished_timestamp_seconds",
                  "When the last triage finished, in seconds since the Unix epoch.",
                  {}};
  finished.add({}, double(f.finished_unix));
  Family rows{"vmem_repro_triage_rows", "Rows of the last triage's summary (case x pair) by status.", {}};
  rows.add({{"status", "ok"}}, s.ok);
  rows.add({{"status", "changed"}}, s.changed);
  rows.add({{"status", "not_run"}}, s.not_run);

  std::string out;
  for (Family* family : {&verdict, &changed, &bandwidth, &atomics, &duration, &exit, &outcome, &finished, &rows})
    out += family->text();
  return out;
}

}  // namespace vmr_tools

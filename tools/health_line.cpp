#include "health_line.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

#include "flags.h"
#include "harness/text.h"
#include "input_file.h"

namespace vmr_tools {

using namespace vmr;

namespace {

bool ran(const Row& r) { return !r.not_run() && r.observed != Verdict::Skip; }

// What a row observed, in words: its verdict, or why it has none (a planned run that left no record, a record that
// could not be read).
std::string observed_words(const Row& r) {
  if (r.observed) return verdict_name(*r.observed);
  return r.standing == Standing::Unreadable ? "UNREADABLE RECORD" : "NO RECORD";
}

std::string row_line(const Row& r, int others) {
  std::string line = "vmem-repro: " + r.name + " " + observed_words(r);
  if (const std::string where = pair_arrow(r.pair); !where.empty()) line += " " + where;
  line += r.expected == "-" ? " (no expected verdict)" : " (expected " + r.expected + ")";
  // Before the detail, so that the cut to 200 bytes never takes the count of the other rows.
  if (others > 0) line += " (+" + std::to_string(others) + " more)";
  if (!r.detail.empty()) line += ": " + drain_stable(r.detail);
  return line;
}

bool is_word_byte(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// The length of the run of decimal digits (with one decimal point inside) at text[i], 0 where none starts there.
// A size after a number ("2206 MiB"): how much a leak kept moves from run to run (562, 1514, 2206 MiB seen on one
// H200), so it is masked as a time is.
size_t size_unit_at(std::string_view text, size_t i) {
  for (std::string_view unit : {"bytes", "KiB", "MiB", "GiB", "TiB", "KB", "MB", "GB", "TB", "B"})
    if (text.substr(i, unit.size()) == unit &&
        (i + unit.size() == text.size() || !std::isalnum(static_cast<unsigned char>(text[i + unit.size()]))))
      return unit.size();
  return 0;
}
size_t number_at(std::string_view text, size_t i) {
  size_t j = i;
  while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
  if (j == i) return 0;
  if (j + 1 < text.size() && text[j] == '.' && std::isdigit(static_cast<unsigned char>(text[j + 1]))) {
    ++j;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
  }
  return j - i;
}

// The length of a time unit ("s", "ms", "us", "ns", "min", UTF-8 "\u00b5s") at text[i] that ends a word.
size_t time_unit_at(std::string_view text, size_t i) {
  for (std::string_view unit : {"min", "ms", "us", "ns", "\xc2\xb5s", "s"})
    if (text.substr(i, unit.size()) == unit &&
        (i + unit.size() == text.size() || !std::isalnum(static_cast<unsigned char>(text[i + unit.size()]))))
      return unit.size();
  return 0;
}

// Why nothing could run: the first skipped run's own reason, else what the first row not run says in its
// parentheses ("not run (binary not built here)").
std::string nothing_ran_reason(const Summary& s) {
  for (const auto& r : s.rows)
    if (r.observed == Verdict::Skip && !r.detail.empty()) return r.detail;
  for (const auto& r : s.rows)
    if (r.not_run()) return r.name + ": " + (r.why_not_run.empty() ? r.result : r.why_not_run);
  return "no GPU case in the summary";
}

HealthVerdict verdict(Health h, const std::string& line) { return {h, reason_safe(line)}; }

// The node was not judged: the table, the manifest and the binaries do not fit one another, the same on every node
// of a deployment (an old table beside a new build, a build that stopped half-way), never this node's fault.
HealthVerdict suite_problem(const Summary& s) {
  std::string line = "vmem-repro: the node was not judged, a suite problem";
  if (s.problems > 1) line += " (+" + std::to_string(s.problems - 1) + " more)";
  line += ": " + (s.problem_lines.empty()
                      ? std::to_string(s.problems) + " table problem(s): expected/verdicts.md does not fit this build"
                      : s.problem_lines.front());
  return verdict(Health::Broken, line);
}

// A node where no GPU case could run: not this check's to drain (a CPU-only node), unless GPUs are required.
Health when_nothing_ran(const HealthRun& run) { return run.require_gpu ? Health::Unhealthy : Health::NothingRan; }

}  // namespace

const Row* first_differing_row(const Summary& s) {
  const Row* first = nullptr;
  for (const auto& r : s.rows) {
    if (!r.changed()) continue;
    if (r.pair.is_pair()) return &r;
    if (!first) first = &r;
  }
  return first;
}

std::string drain_stable(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const bool word_start = i == 0 || !is_word_byte(text[i - 1]);
    if (text.substr(i, 5) == "(pid " && word_start) {  // " (pid 123)": dropped, with the space before it
      const size_t n = number_at(text, i + 5);
      if (n > 0 && i + 5 + n < text.size() && text[i + 5 + n] == ')') {
        while (!out.empty() && out.back() == ' ') out.pop_back();
        i += 5 + n + 1;
        continue;
      }
    }
    if (word_start && text.substr(i, 3) == "pid" && i + 3 < text.size() && (text[i + 3] == ' ' || text[i + 3] == '=')) {
      if (const size_t n = number_at(text, i + 4); n > 0) {
        out += std::string(text.substr(i, 4)) + "#";
        i += 4 + n;
        continue;
      }
    }
    if (word_start && text.substr(i, 2) == "0x") {  // an address (not a short code such as 0x1)
      size_t j = i + 2;
      while (j < text.size() && std::isxdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j - i - 2 >= 6) {
        out += "0x#";
        i = j;
        continue;
      }
    }
    if (word_start) {
      if (const size_t n = number_at(text, i); n > 0) {
        size_t j = i + n;
        while (j < text.size() && text[j] == ' ') ++j;
        // A wall-clock time ("12:03:04") is masked whole.
        if (n <= 2 && i + n < text.size() && text[i + n] == ':' && number_at(text, i + n + 1) == 2) {
          size_t k = i + n;
          while (k < text.size() && text[k] == ':' && number_at(text, k + 1) == 2) k += 3;
          out += "#:#";
          i = k;
          continue;
        }
        if (const size_t unit = std::max(time_unit_at(text, j), size_unit_at(text, j)); unit > 0) {
          out += "#" + std::string(text.substr(i + n, j + unit - i - n));
          i = j + unit;
          continue;
        }
        out += text.substr(i, n);  // any other number stays
        i += n;
        continue;
      }
    }
    out += text[i++];
  }
  return out;
}

std::string reason_safe(std::string_view text, size_t max_bytes) {
  std::string out;
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\'' || c == '`') continue;
    const char safe = c < 0x20 || c == 0x7f ? ' ' : c >= 0x80 ? '?' : ch;
    if (safe == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += safe;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max_bytes) out = out.substr(0, max_bytes >= 3 ? max_bytes - 3 : 0) + "...";
  return out;
}

HealthVerdict judge_health(const Summary* s, const std::string& unreadable_why, const HealthRun& run) {
  if (!run.overran.empty())
    return verdict(Health::Unhealthy,
                   "vmem-repro: health check did not finish in " + run.overran + " s (GPU runs hung?)");
  const int e = run.triage_exit;
  if (e != -1 && e != 0 && e != 1 && e != 77)
    return verdict(Health::Broken,
                   "vmem-repro: the health check could not run (triage exit " + std::to_string(e) + ")");
  if (!s && e == 77)
    return verdict(when_nothing_ran(run), "vmem-repro: no GPU case could run here (the triage wrote no summary)");
  if (!s) return verdict(Health::Broken, "vmem-repro: the health check could not run (" + unreadable_why + ")");
  if (s->problems > 0) return suite_problem(*s);
  int differing = 0;
  for (const auto& r : s->rows) differing += r.changed() ? 1 : 0;
  if (const Row* r = first_differing_row(*s)) return verdict(Health::Unhealthy, row_line(*r, differing - 1));
  if (e == 1)
    return verdict(Health::Unhealthy,
                   "vmem-repro: the triage found a difference (exit 1) that its summary does not name");
  std::set<int> gpus;
  int as_expected = 0;
  for (const auto& r : s->rows) {
    if (!ran(r)) continue;
    ++as_expected;
    for (int g : r.pair.gpus) gpus.insert(g);
  }
  if (e == 77 || gpus.empty())
    return verdict(when_nothing_ran(run), "vmem-repro: no GPU case could run here (" + nothing_ran_reason(*s) + ")");
  return verdict(Health::Healthy, "vmem-repro: OK, " + std::to_string(as_expected) + " case runs as expected on " +
                                      std::to_string(gpus.size()) + " GPU(s)" +
                                      (run.took.empty() ? "" : " in " + run.took + " s"));
}

int health_line_mode(const std::vector<std::string>& args) {
  bool mode = false;
  HealthRun run;
  std::string summary_path, exit_text;
  Flags f;
  f.values = {{"--summary", &summary_path}, {"--exit", &exit_text}, {"--took", &run.took}, {"--overran", &run.overran}};
  f.switches = {{"--health-line", &mode}, {"--require-gpu", &run.require_gpu}};
  double seconds = 0;
  if (!parse_flags(args, f) || (summary_path.empty() && run.overran.empty()) ||
      (!exit_text.empty() && !parse_int(exit_text, 0, 255, &run.triage_exit)) ||
      (!run.took.empty() && !parse_seconds(run.took, &seconds)) ||
      (!run.overran.empty() && !parse_seconds(run.overran, &seconds))) {
    std::fputs(
        "usage: check_expected --health-line [--summary SUMMARY.json] [--exit N] [--took S] [--overran B] "
        "[--require-gpu]\n",
        stderr);
    return 2;
  }
  Summary s;
  std::string text, why;
  bool readable = false;
  if (run.overran.empty()) {
    Status st = read_input_file(summary_path, &text);
    if (st.ok()) st = read_summary_json(text, summary_path, &s);
    readable = st.ok();
    why = st.detail;
  }
  const HealthVerdict v = judge_health(readable ? &s : nullptr, why, run);
  std::printf("%s\n", v.line.c_str());
  return static_cast<int>(v.health);
}

}  // namespace vmr_tools

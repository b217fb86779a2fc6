#include "harness/rank_record.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "harness/text.h"

namespace vmr {

namespace {

constexpr std::string_view kFirstLine = "vmem-repro-events 1";
// A rank that reports without end must not take the launcher's memory: facts, phases and metrics per case.
constexpr size_t kMaxPerCase = 256;

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

bool unescape(std::string_view s, std::string* out) {
  out->clear();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      *out += s[i];
      continue;
    }
    if (++i == s.size()) return false;
    if (s[i] == '\\')
      *out += '\\';
    else if (s[i] == 'n')
      *out += '\n';
    else
      return false;
  }
  return true;
}

// Splits off the next space-separated word; the rest stays in `line`.
std::string_view next_word(std::string_view* line) {
  size_t sp = line->find(' ');
  std::string_view word = line->substr(0, sp);
  *line = sp == std::string_view::npos ? std::string_view() : line->substr(sp + 1);
  return word;
}

}  // namespace

bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > 128) return false;
  for (char c : name)
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

void set_fact(std::vector<std::pair<std::string, std::string>>* facts, std::string_view key, std::string_view value) {
  for (auto& [k, v] : *facts)
    if (k == key) {
      v = value;
      return;
    }
  facts->emplace_back(std::string(key), std::string(value));
}

namespace event {
std::string header() { return std::string(kFirstLine) + "\n"; }
std::string ready(int64_t ns) { return "ready " + std::to_string(ns) + "\n"; }
std::string fact(std::string_view key, std::string_view value) {
  return "fact " + std::string(key) + " " + escape(value) + "\n";
}
std::string keep_facts() { return "keep-facts\n"; }
std::string phase(std::string_view name, double seconds) {
  return "phase " + std::string(name) + " " + format_double(seconds) + "\n";
}
std::string metric(const Metric& m) { return "metric " + m.name + " " + format_double(m.value) + " " + m.unit + "\n"; }
std::string end(Verdict verdict, std::string_view detail) {
  return std::string("end ") + verdict_name(verdict) + " " + escape(detail) + "\n";
}
}  // namespace event

Status RecordStream::take_line(std::string_view line) {
  ++lineno_;
  auto bad = [&](std::string_view why) {
    return Status::harness("status stream line " + std::to_string(lineno_) + ": " + std::string(why));
  };
  if (!started_) {
    if (line != kFirstLine) return bad("not a vmem-repro status stream");
    started_ = true;
    return Status::pass();
  }
  std::string_view rest = line;
  std::string_view tag = next_word(&rest);
  if (tag == "ready") {
    if (ready_seen_ || !parse_int64(rest, &current_.ready_ns) || current_.ready_ns < 0)
      return bad("bad or repeated ready");
    ready_seen_ = true;
  } else if (tag == "fact") {
    std::string_view key = next_word(&rest);
    std::string value;
    if (!is_valid_name(key) || !unescape(rest, &value)) return bad("bad fact");
    const bool known =
        std::any_of(current_.info.begin(), current_.info.end(), [&](const auto& f) { return f.first == key; });
    if (!known && current_.info.size() >= kMaxPerCase)
      return bad("more than " + std::to_string(kMaxPerCase) + " facts");
    set_fact(&current_.info, key, value);
  } else if (tag == "keep-facts" && rest.empty()) {
    life_facts_ = current_.info;
  } else if (tag == "phase") {
    std::string_view name = next_word(&rest);
    double v;
    if (!is_valid_name(name) || !parse_double(rest, &v) || v < 0) return bad("bad phase");
    if (current_.phases.size() >= kMaxPerCase) return bad("more than " + std::to_string(kMaxPerCase) + " phases");
    current_.phases.emplace_back(std::string(name), v);
  } else if (tag == "metric") {
    std::string_view name = next_word(&rest);
    std::string_view number = next_word(&rest);
    Metric m{std::string(name), 0, std::string(rest)};
    bool unit_ok = !m.unit.empty() && m.unit.size() <= 32 && m.unit.find_first_of(" \n\\") == std::string::npos;
    if (!is_valid_name(name) || !parse_double(number, &m.value) || !unit_ok) return bad("bad metric");
    if (current_.metrics.size() >= kMaxPerCase) return bad("more than " + std::to_string(kMaxPerCase) + " metrics");
    current_.metrics.push_back(std::move(m));
  } else if (tag == "end") {
    auto v = verdict_from_name(next_word(&rest));
    if (!v || *v == Verdict::Usage || !unescape(rest, &current_.detail)) return bad("bad end");
    current_.verdict = *v;
    records_.push_back(std::move(current_));
    current_ = RankRecord{};
    current_.info = life_facts_;
    ready_seen_ = false;
  } else {
    return bad("unknown event '" + std::string(tag) + "'");
  }
  return Status::pass();
}

}  // namespace vmr

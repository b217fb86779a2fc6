#include "harness/rank_record.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "harness/text.h"

namespace vmr {

namespace {

constexpr std::string_view kFirstLine = "vmem-repro-record 1";

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

void set_fact(std::vector<std::pair<std::string, std::string>>* facts, std::string_view key, std::string_view value,
              size_t cap) {
  for (auto& [k, v] : *facts)
    if (k == key) {
      v = value;
      return;
    }
  if (facts->size() < cap) facts->emplace_back(std::string(key), std::string(value));
}

std::string encode_record(const RankRecord& r) {
  std::string out(kFirstLine);
  out += "\nverdict ";
  out += verdict_name(r.verdict);
  out += "\ndetail " + escape(r.detail);
  out += "\nready_ns " + std::to_string(r.ready_ns);
  for (const auto& [k, v] : r.info) out += "\ninfo " + k + " " + escape(v);
  for (const auto& [k, v] : r.phases) out += "\nphase " + k + " " + format_double(v);
  for (const auto& m : r.metrics) out += "\nmetric " + m.name + " " + format_double(m.value) + " " + m.unit;
  out += "\nend\n";
  return out;
}

Status decode_record(std::string_view text, RankRecord* out) {
  RankRecord r;
  bool have_verdict = false, have_detail = false, have_ready = false, ended = false;
  size_t lineno = 0;
  auto bad = [&](std::string_view why) {
    return Status::harness("status record line " + std::to_string(lineno) + ": " + std::string(why));
  };
  if (text.empty()) return Status::harness("status record empty");
  if (text.back() != '\n') return Status::harness("status record truncated (no final newline)");
  text.remove_suffix(1);
  for (std::string_view line : split(text, '\n')) {
    ++lineno;
    if (ended) return bad("data after 'end'");
    if (lineno == 1) {
      if (line != kFirstLine) return bad("not a vmem-repro record");
      continue;
    }
    std::string_view rest = line;
    std::string_view tag = next_word(&rest);
    if (tag == "verdict") {
      auto v = verdict_from_name(rest);
      if (have_verdict || !v || *v == Verdict::Usage) return bad("bad or repeated verdict");
      r.verdict = *v;
      have_verdict = true;
    } else if (tag == "detail") {
      if (have_detail || !unescape(rest, &r.detail)) return bad("bad or repeated detail");
      have_detail = true;
    } else if (tag == "ready_ns") {
      if (have_ready || !parse_int64(rest, &r.ready_ns) || r.ready_ns < 0) return bad("bad or repeated ready_ns");
      have_ready = true;
    } else if (tag == "info") {
      std::string_view key = next_word(&rest);
      std::string value;
      if (!is_valid_name(key) || !unescape(rest, &value)) return bad("bad info");
      r.info.emplace_back(std::string(key), std::move(value));
    } else if (tag == "phase") {
      std::string_view name = next_word(&rest);
      double v;
      if (!is_valid_name(name) || !parse_double(rest, &v) || v < 0) return bad("bad phase");
      r.phases.emplace_back(std::string(name), v);
    } else if (tag == "metric") {
      std::string_view name = next_word(&rest);
      std::string_view number = next_word(&rest);
      Metric m{std::string(name), 0, std::string(rest)};
      bool unit_ok = !m.unit.empty() && m.unit.size() <= 32 && m.unit.find_first_of(" \n\\") == std::string::npos;
      if (!is_valid_name(name) || !parse_double(number, &m.value) || !unit_ok) return bad("bad metric");
      r.metrics.push_back(std::move(m));
    } else if (tag == "end" && rest.empty()) {
      ended = true;
    } else {
      return bad("unknown field '" + std::string(tag) + "'");
    }
  }
  if (!ended) return Status::harness("status record truncated (no 'end')");
  if (!have_verdict || !have_detail || !have_ready) return Status::harness("status record incomplete");
  *out = std::move(r);
  return Status::pass();
}

}  // namespace vmr

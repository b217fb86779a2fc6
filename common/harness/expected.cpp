#include "harness/expected.h"

#include <algorithm>
#include <set>

#include "harness/options.h"
#include "harness/rank_record.h"
#include "harness/text.h"

namespace vmr {

namespace {

constexpr const char* kColumns[] = {"binary", "case", "condition", "verdict", "labels", "evidence"};
constexpr std::string_view kOps[] = {">=", "<=", "!=", "=", ">", "<"};  // two-letter ones first

struct Term {
  std::string key, op, value;
};

bool parse_term(std::string_view text, Term* t) {
  text = trim(text);
  for (auto op : kOps) {
    size_t at = text.find(op);
    if (at == std::string_view::npos) continue;
    t->key = std::string(trim(text.substr(0, at)));
    t->op = std::string(op);
    t->value = std::string(trim(text.substr(at + op.size())));
    return is_valid_name(t->key) && !t->value.empty() && t->value.find_first_of("=<>!&") == std::string::npos;
  }
  return false;
}

std::vector<std::string_view> terms_of(std::string_view condition) {
  std::vector<std::string_view> out;
  for (auto part : split(condition, '&')) out.push_back(trim(part));
  return out;
}

bool is_binary_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// "CRASH/FAIL ~Memory access fault ~hipErrorIllegalAddress" -> verdicts {CRASH, FAIL}, two reasons.
Status parse_verdict_cell(std::string_view cell, ExpectedRow* r) {
  size_t tilde = cell.find('~');
  std::string_view names = trim(cell.substr(0, tilde));
  for (auto name : split(names, '/')) {
    auto v = verdict_from_name(trim(name));
    if (!v || is_suite_verdict(*v))
      return Status::fail("verdict must be PASS, FAIL, CRASH, HANG or SKIP (alternatives joined by '/'), not '" +
                          std::string(trim(name)) + "' in '" + std::string(cell) + "'");
    if (std::find(r->verdicts.begin(), r->verdicts.end(), *v) != r->verdicts.end())
      return Status::fail("verdict " + std::string(trim(name)) + " given twice in '" + std::string(cell) + "'");
    r->verdicts.push_back(*v);
  }
  if (tilde != std::string_view::npos) {
    for (auto reason : split(cell.substr(tilde + 1), '~')) {
      reason = trim(reason);
      if (reason.empty()) return Status::fail("empty reason pattern in '" + std::string(cell) + "'");
      r->reasons.emplace_back(reason);
    }
    bool only_pass_or_skip = std::all_of(r->verdicts.begin(), r->verdicts.end(),
                                         [](Verdict v) { return v == Verdict::Pass || v == Verdict::Skip; });
    if (only_pass_or_skip) return Status::fail("a reason pattern needs a FAIL, CRASH or HANG verdict to check");
  }
  r->verdict = r->verdicts.front();
  return Status::pass();
}

}  // namespace

namespace {
// One dotted field: a number, optionally followed by a pre-release tag (ROCm nightlies: "0a20260727" in
// "7.15.0a20260727"). A tagged field comes before the same number untagged; tags order by name (a < b < rc), then
// by their number.
struct VersionField {
  int64_t number = 0;
  std::string tag;  // empty: a release
  int64_t tag_number = 0;
};

bool parse_version_field(std::string_view text, VersionField* f) {
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18 || !parse_int64(text.substr(0, digits), &f->number)) return false;
  std::string_view rest = text.substr(digits);
  size_t letters = 0;
  while (letters < rest.size() && rest[letters] >= 'a' && rest[letters] <= 'z') ++letters;
  if (rest.empty()) return true;
  if (letters == 0) return false;
  f->tag = std::string(rest.substr(0, letters));
  if (f->tag != "a" && f->tag != "b" && f->tag != "rc") return false;
  std::string_view n = rest.substr(letters);
  return n.empty() || (n.size() <= 18 && parse_int64(n, &f->tag_number) && f->tag_number >= 0);
}

int compare_fields(const VersionField& x, const VersionField& y) {
  if (x.number != y.number) return x.number < y.number ? -1 : 1;
  if (x.tag.empty() != y.tag.empty()) return x.tag.empty() ? 1 : -1;
  if (x.tag != y.tag) return x.tag < y.tag ? -1 : 1;
  if (x.tag_number != y.tag_number) return x.tag_number < y.tag_number ? -1 : 1;
  return 0;
}
}  // namespace

bool compare_versions(std::string_view a, std::string_view b, int* cmp) {
  auto pa = split(a, '.'), pb = split(b, '.');
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    VersionField x, y;  // a missing field is 0
    if (i < pa.size() && !parse_version_field(pa[i], &x)) return false;
    if (i < pb.size() && !parse_version_field(pb[i], &y)) return false;
    if (int c = compare_fields(x, y); c != 0) {
      *cmp = c;
      return true;
    }
  }
  *cmp = 0;
  return true;
}

Status check_condition_syntax(std::string_view condition) {
  if (condition == "*") return Status::pass();
  for (auto part : terms_of(condition)) {
    Term t;
    if (!parse_term(part, &t)) return Status::fail("bad condition term '" + std::string(part) + "'");
  }
  return Status::pass();
}

namespace {
// How a fact's value may stand against a term's value: each of below, equal and above that is possible.
struct Relations {
  bool below = false, equal = false, above = false;
};

// The relations to `value` of a release known only to major.minor (`have`, "6.4"): any release 6.4.p..., the
// lowest being 6.4.0, all below 6.5's first pre-release ("6.5a0"). False where `have` is not two plain numbers or
// `value` no version: then the fact compares as it stands.
bool major_minor_relations(std::string_view have, std::string_view value, Relations* r) {
  auto fields = split(have, '.');
  VersionField major, minor;
  if (fields.size() != 2 || !parse_version_field(fields[0], &major) || !parse_version_field(fields[1], &minor) ||
      !major.tag.empty() || !minor.tag.empty())
    return false;
  const std::string next = std::to_string(major.number) + "." + std::to_string(minor.number + 1) + "a0";
  int from_lowest = 0, from_next = 0;
  if (!compare_versions(value, have, &from_lowest) || !compare_versions(value, next, &from_next)) return false;
  if (from_lowest < 0)
    r->above = true;  // value below M.m.0: every M.m.p is above it
  else if (from_next >= 0)
    r->below = true;  // value at or past M.(m+1)'s first pre-release: every M.m.p is below it
  else if (from_lowest == 0)
    r->equal = r->above = true;  // value M.m.0: the release is it or above it
  else
    r->below = r->equal = r->above = true;  // value inside M.m (6.4.2): either side, or it
  return true;
}

bool op_holds(std::string_view op, int cmp) {
  if (op == "=") return cmp == 0;
  if (op == "!=") return cmp != 0;
  if (op == ">=") return cmp >= 0;
  if (op == "<=") return cmp <= 0;
  if (op == ">") return cmp > 0;
  return cmp < 0;
}

Truth term_truth(const Term& t, const Facts& facts) {
  auto it = facts.find(t.key);
  if (it == facts.end()) return Truth::No;
  const std::string& have = it->second;
  auto precision = facts.find(t.key + std::string(kPrecisionSuffix));
  Relations rel;
  int cmp = 0;
  if (precision != facts.end() && precision->second == kMajorMinorOnly && major_minor_relations(have, t.value, &rel)) {
  } else if (compare_versions(have, t.value, &cmp)) {
    rel.below = cmp < 0;
    rel.equal = cmp == 0;
    rel.above = cmp > 0;
  } else if (t.op == "=" || t.op == "!=") {
    return (have == t.value) == (t.op == "=") ? Truth::Yes : Truth::No;
  } else {
    return Truth::No;  // ordering is defined for versions only
  }
  bool can_hold = false, can_fail = false;
  for (auto [possible, c] : {std::pair{rel.below, -1}, std::pair{rel.equal, 0}, std::pair{rel.above, 1}})
    if (possible) (op_holds(t.op, c) ? can_hold : can_fail) = true;
  return can_hold && can_fail ? Truth::Maybe : can_hold ? Truth::Yes : Truth::No;
}
}  // namespace

Truth condition_truth(std::string_view condition, const Facts& facts) {
  if (condition == "*") return Truth::Yes;
  bool open = false;
  for (auto part : terms_of(condition)) {
    Term t;
    if (!parse_term(part, &t)) return Truth::No;
    const Truth one = term_truth(t, facts);
    if (one == Truth::No) return Truth::No;
    open = open || one == Truth::Maybe;
  }
  return open ? Truth::Maybe : Truth::Yes;
}

bool condition_holds(std::string_view condition, const Facts& facts) {
  return condition_truth(condition, facts) == Truth::Yes;
}

Status parse_expected_table(std::string_view markdown, std::vector<ExpectedRow>* out, std::string_view source) {
  std::vector<ExpectedRow> rows;
  int lineno = 0, table_line = 0;
  auto bad = [&](const std::string& why) {
    return Status::fail(std::string(source) + " line " + std::to_string(lineno) + ": " + why);
  };
  for (std::string_view line : split(markdown, '\n')) {
    ++lineno;
    line = trim(line);
    if (line.empty() || line[0] != '|') continue;
    if (line.size() < 2 || line.back() != '|') return bad("table row must end with '|'");
    auto cells = split(line.substr(1, line.size() - 2), '|');
    for (auto& c : cells) c = trim(c);
    if (cells.size() != std::size(kColumns)) return bad("expected 6 cells, got " + std::to_string(cells.size()));
    ++table_line;
    if (table_line == 1) {
      for (size_t i = 0; i < cells.size(); ++i)
        if (cells[i] != kColumns[i]) return bad("header cell " + std::to_string(i + 1) + " must be " + kColumns[i]);
      continue;
    }
    if (table_line == 2) {
      if (cells[0].find("---") == std::string_view::npos) return bad("second table line must be the separator");
      continue;
    }
    ExpectedRow r;
    r.line = lineno;
    r.binary = std::string(cells[0]);
    r.case_name = std::string(cells[1]);
    r.condition = std::string(cells[2]);
    r.evidence = std::string(cells[5]);
    if (!is_binary_name(r.binary)) return bad("bad binary name '" + r.binary + "'");
    if (!is_valid_case_name(r.case_name)) return bad("bad case name '" + r.case_name + "'");
    Status cond = check_condition_syntax(r.condition);
    if (!cond.ok()) return bad(cond.detail);
    Status cell = parse_verdict_cell(cells[3], &r);
    if (!cell.ok()) return bad(cell.detail);
    if (cells[4] != "-")
      for (auto label : split(cells[4], ',')) {
        label = trim(label);
        if (label.empty() || label.find_first_of(" ;\"") != std::string_view::npos)
          return bad("bad label '" + std::string(label) + "'");
        r.labels.emplace_back(label);
      }
    if (r.evidence.empty() || r.evidence == "-") return bad("every row names its evidence");
    for (const auto& prev : rows)
      if (prev.binary == r.binary && prev.case_name == r.case_name && prev.condition == "*")
        return bad(r.binary + "." + r.case_name + " has a row after its unconditional '*' row");
    rows.push_back(std::move(r));
  }
  if (table_line == 0) return Status::fail(std::string(source) + ": no table found");
  std::set<std::string> with_default;
  for (const auto& r : rows)
    if (r.condition == "*") with_default.insert(r.binary + "." + r.case_name);
  for (const auto& r : rows)
    if (!with_default.count(r.binary + "." + r.case_name)) {
      lineno = r.line;
      return bad(r.binary + "." + r.case_name + " has no unconditional '*' row");
    }
  *out = std::move(rows);
  return Status::pass();
}

std::vector<const ExpectedRow*> expected_rows(const std::vector<ExpectedRow>& rows, std::string_view binary,
                                              std::string_view case_name, const Facts& facts) {
  std::vector<const ExpectedRow*> out;
  for (const auto& r : rows) {
    if (r.binary != binary || r.case_name != case_name) continue;
    const Truth t = condition_truth(r.condition, facts);
    if (t != Truth::No) out.push_back(&r);
    if (t == Truth::Yes) return out;
  }
  return out;  // no row holds for certain (a table without a '*' row for the case): the open ones, if any
}

Match match_expected(const ExpectedRow& row, Verdict observed, std::string_view detail) {
  if (std::find(row.verdicts.begin(), row.verdicts.end(), observed) == row.verdicts.end()) return Match::WrongVerdict;
  if (observed == Verdict::Pass || observed == Verdict::Skip || row.reasons.empty()) return Match::Ok;
  for (const auto& reason : row.reasons)
    if (detail.find(reason) != std::string_view::npos) return Match::Ok;
  return Match::WrongReason;
}

std::string verdict_cell(const ExpectedRow& row) {
  std::vector<std::string> names;
  for (Verdict v : row.verdicts) names.emplace_back(verdict_name(v));
  std::string cell = join(names, "/");
  for (const auto& reason : row.reasons) cell += " ~" + reason;
  return cell;
}

std::vector<std::string> unreported_keys(const std::vector<ExpectedRow>& rows, std::string_view binary,
                                         std::string_view case_name, const Facts& facts) {
  std::vector<std::string> missing;
  for (const auto& r : rows) {
    if (r.binary != binary || r.case_name != case_name || r.condition == "*") continue;
    for (auto part : terms_of(r.condition)) {
      Term t;
      if (parse_term(part, &t) && !facts.count(t.key) &&
          std::find(missing.begin(), missing.end(), t.key) == missing.end())
        missing.push_back(t.key);
    }
  }
  return missing;
}

std::vector<std::string> CasePolicy::tags() const {
  std::vector<std::string> t;
  if (known_crash) t.push_back("known-crash");
  if (selftest) t.push_back("selftest");
  return t;
}

bool is_thread_label(std::string_view label) {
  const size_t hash = label.find('#');
  if (hash == std::string_view::npos || hash == 0 || hash + 1 == label.size()) return false;
  const std::string_view repo = label.substr(0, hash), number = label.substr(hash + 1);
  const size_t slash = repo.find('/');
  if (slash != std::string_view::npos &&
      (slash == 0 || slash + 1 == repo.size() || repo.find('/', slash + 1) != std::string_view::npos))
    return false;
  const auto name_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == '/';
  };
  return std::all_of(repo.begin(), repo.end(), name_char) &&
         std::all_of(number.begin(), number.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string thread_url(std::string_view label) {
  const size_t hash = label.find('#');
  const std::string repo(label.substr(0, hash));
  return "https://github.com/" + (repo.find('/') == std::string::npos ? "ROCm/" + repo : repo) + "/issues/" +
         std::string(label.substr(hash + 1));
}

std::vector<std::string> CasePolicy::threads() const {
  std::vector<std::string> t;
  for (const auto& l : labels)
    if (is_thread_label(l)) t.push_back(l);
  return t;
}

CasePolicy case_policy(const std::vector<ExpectedRow>& rows, std::string_view binary, std::string_view case_name) {
  CasePolicy p;
  const ExpectedRow* unconditional = nullptr;
  for (const auto& r : rows) {
    if (r.binary != binary || r.case_name != case_name) continue;
    p.has_rows = true;
    if (std::find(r.verdicts.begin(), r.verdicts.end(), Verdict::Crash) != r.verdicts.end()) p.known_crash = true;
    for (const auto& l : r.labels) {
      if (l == "selftest") p.selftest = true;
      if (std::find(p.labels.begin(), p.labels.end(), l) == p.labels.end()) p.labels.push_back(l);
    }
    if (r.condition == "*") unconditional = &r;
  }
  for (const auto& t : p.tags())
    if (std::find(p.labels.begin(), p.labels.end(), t) == p.labels.end()) p.labels.push_back(t);
  if (unconditional) {
    const auto& v = unconditional->verdicts;
    const bool allows_pass = std::find(v.begin(), v.end(), Verdict::Pass) != v.end();
    const bool only_pass_or_skip =
        std::all_of(v.begin(), v.end(), [](Verdict x) { return x == Verdict::Pass || x == Verdict::Skip; });
    if (!allows_pass || (p.known_crash && !only_pass_or_skip)) {
      p.ctest_will_fail = true;
      for (Verdict x : v)
        if (x != Verdict::Pass && x != Verdict::Skip) p.ctest_verdicts.push_back(x);
    } else if (!only_pass_or_skip) {
      p.ctest_verdicts = v;
    }
  }
  return p;
}

}  // namespace vmr

#include "compare.h"

#include "harness/text.h"
#include "input_file.h"

namespace vmr_tools {

using namespace vmr;

Status load_expected_table(const std::string& path, std::vector<ExpectedRow>* table) {
  std::string text;
  if (Status read = read_input_file(path, &text); !read.ok()) return {Verdict::Usage, read.detail};
  Status st = parse_expected_table(text, table, path);
  if (!st.ok()) return {Verdict::Usage, st.detail};
  return Status::pass();
}

namespace {
constexpr std::pair<Standing, const char*> kStandingNames[] = {
    {Standing::Ok, "ok"},
    {Standing::NotRun, "not_run"},
    {Standing::WrongVerdict, "changed_verdict"},
    {Standing::WrongReason, "changed_reason"},
    {Standing::NoRow, "no_row"},
    {Standing::Unreadable, "unreadable_record"},
    {Standing::MissingRecord, "missing_record"},
};
}  // namespace

const char* standing_name(Standing s) {
  for (const auto& [standing, name] : kStandingNames)
    if (standing == s) return name;
  return "?";
}

bool standing_from_name(std::string_view name, Standing* out) {
  for (const auto& [standing, n] : kStandingNames)
    if (name == n) return *out = standing, true;
  return false;
}

std::string Comparison::expected() const {
  std::vector<std::string> cells;
  for (const ExpectedRow* r : rows) cells.push_back(verdict_cell(*r));
  return cells.empty() ? "-" : join(cells, " or ");
}

Comparison compare_run(const std::vector<ExpectedRow>& table, const Run& run) {
  Comparison c;
  if (!run.error.empty()) {
    c.standing = Standing::Unreadable;
    return c;
  }
  c.rows = expected_rows(table, run.binary, run.case_name, run.facts);
  c.row = c.rows.empty() ? nullptr : c.rows.front();
  // A SKIP first: a node without the GPU or API a case needs has not run it, whatever its row expects.
  if (run.verdict == Verdict::Skip) {
    c.standing = Standing::NotRun;
  } else if (c.rows.empty()) {
    c.standing = Standing::NoRow;
  } else {
    c.standing = Standing::WrongVerdict;
    for (const ExpectedRow* r : c.rows) {
      const Match m = match_expected(*r, run.verdict, run.detail);
      if (m == Match::Ok) {
        c.row = r;
        c.standing = Standing::Ok;
        break;
      }
      if (m == Match::WrongReason && c.standing == Standing::WrongVerdict) {
        c.row = r;
        c.standing = Standing::WrongReason;
      }
    }
  }
  return c;
}

std::string result_text(const Comparison& c, const Run& run) {
  std::vector<std::string> lines;  // each row that may apply: "line 80: <evidence>"
  for (const ExpectedRow* r : c.rows) lines.push_back("line " + std::to_string(r->line) + ": " + r->evidence);
  const std::string per_line =
      " (expected per " + (lines.empty() ? std::string("line 0: no row matches this node") : join(lines, "; or per ")) +
      ")";
  switch (c.standing) {
    case Standing::Ok:
      return "OK";
    case Standing::NotRun:
      return "not run (skipped: " + run.detail + ")";
    case Standing::WrongReason:
      return "CHANGED: the verdict is as expected but not its reason (none of '" + join(c.row->reasons, "', '") +
             "' in: " + run.detail + ")" + per_line;
    case Standing::Unreadable:
      return "CHANGED: " + run.error;
    case Standing::MissingRecord:  // (made by the caller, which knows what was planned)
    case Standing::WrongVerdict:
    case Standing::NoRow:
      break;
  }
  return "CHANGED: " + run.detail + per_line;
}

}  // namespace vmr_tools

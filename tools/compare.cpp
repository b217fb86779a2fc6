#include "compare.h"

#include "harness/text.h"

namespace vmr_tools {

using namespace vmr;

Status load_expected_table(const std::string& path, std::vector<ExpectedRow>* table) {
  std::string text;
  if (!read_file(path, &text)) return {Verdict::Usage, "cannot read " + path};
  Status st = parse_expected_table(text, table, path);
  if (!st.ok()) return {Verdict::Usage, st.detail};
  return Status::pass();
}

std::string Comparison::expected() const { return row ? verdict_cell(*row) : "-"; }

Comparison compare_run(const std::vector<ExpectedRow>& table, const Run& run) {
  Comparison c;
  if (!run.error.empty()) {
    c.standing = Standing::Unreadable;
    return c;
  }
  c.row = find_expected(table, run.binary, run.case_name, run.facts);
  // A SKIP first: a node without the GPU or API a case needs has not run it, whatever its row expects.
  if (run.verdict == Verdict::Skip) {
    c.standing = Standing::NotRun;
  } else if (!c.row) {
    c.standing = Standing::NoRow;
  } else {
    const Match m = match_expected(*c.row, run.verdict, run.detail);
    c.standing = m == Match::Ok            ? Standing::Ok
                 : m == Match::WrongReason ? Standing::WrongReason
                                           : Standing::WrongVerdict;
  }
  return c;
}

std::string result_text(const Comparison& c, const Run& run) {
  const std::string evidence = c.row ? c.row->evidence : "no row matches this node";
  const std::string per_line = " (expected per line " + std::to_string(c.row ? c.row->line : 0) + ": " + evidence + ")";
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
    case Standing::WrongVerdict:
    case Standing::NoRow:
      break;
  }
  return "CHANGED: " + run.detail + per_line;
}

}  // namespace vmr_tools

#include "harness/status.h"

#include <cerrno>
#include <cstring>

namespace vmr {

namespace {
struct VerdictRow {
  Verdict verdict;
  const char* name;
  int code;
};
constexpr VerdictRow kRows[] = {
    {Verdict::Pass, "PASS", 0},        {Verdict::Fail, "FAIL", 1}, {Verdict::Usage, "USAGE", 2},
    {Verdict::Crash, "CRASH", 3},      {Verdict::Hang, "HANG", 4}, {Verdict::Skip, "SKIP", 77},
    {Verdict::Harness, "HARNESS", 99},
};
}  // namespace

bool is_suite_verdict(Verdict v) { return v == Verdict::Usage || v == Verdict::Harness; }

int case_summary_precedence(Verdict v) {
  switch (v) {
    case Verdict::Harness:
      return 6;
    case Verdict::Hang:
      return 5;
    case Verdict::Crash:
      return 4;
    case Verdict::Fail:
      return 3;
    case Verdict::Pass:
      return 2;
    case Verdict::Skip:
      return 1;
    default:
      return 0;
  }
}

int exit_code(Verdict v) { return kRows[static_cast<int>(v)].code; }
const char* verdict_name(Verdict v) { return kRows[static_cast<int>(v)].name; }

std::optional<Verdict> verdict_from_name(std::string_view name) {
  for (const auto& row : kRows)
    if (name == row.name) return row.verdict;
  return std::nullopt;
}

std::string errno_text(std::string_view what) {
  int saved = errno;
  return std::string(what) + ": " + std::strerror(saved);
}

}  // namespace vmr

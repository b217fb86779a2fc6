// expected/verdicts.md: the one table of expected verdicts. The binaries embed it: case_policy decides each case's
// tags and CTest properties, which `--list --json` hands to CMake (cmake/DiscoverCases.cmake) and triage; and
// check_expected compares observed runs against it.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/status.h"

namespace vmr {

struct ExpectedRow {
  std::string binary;
  std::string case_name;
  std::string condition;  // "*" or terms joined by " & ": key OP value, OP one of = != >= <= > <
  // The verdict cell: "CRASH/FAIL ~Memory access fault ~hipErrorIllegalAddress". `verdict` is the first of the
  // alternatives; `verdicts` holds them all; `reasons` are substrings of which a non-PASS run's detail must contain
  // at least one (none: any detail).
  Verdict verdict = Verdict::Pass;
  std::vector<Verdict> verdicts;
  std::vector<std::string> reasons;
  std::vector<std::string> labels;
  std::string evidence;
  int line = 0;
};

using Facts = std::map<std::string, std::string>;

// Rows of a binary's case are tried in order; the first whose condition holds applies, and the last one must be
// the unconditional "*" row. Any malformed row is an error naming its line.
// `source` names the table in every error (a --table file is not expected/verdicts.md).
Status parse_expected_table(std::string_view markdown, std::vector<ExpectedRow>* rows,
                            std::string_view source = "expected/verdicts.md");
Status check_condition_syntax(std::string_view condition);
// A version fact known only to its major.minor: hipRuntimeGetVersion alone gives "6.4" for any 6.4.x. Its companion
// fact `<key>_precision` (rocm_release_precision) says so with kMajorMinorOnly; the fact then stands for every
// release M.m.p..., never for M.m.0, and a term its unknown fields could decide either way is undetermined.
inline constexpr std::string_view kPrecisionSuffix = "_precision";
inline constexpr std::string_view kMajorMinorOnly = "major.minor only";
// Whether a condition holds on the facts: No, Yes, or Maybe where a fact known only to major.minor leaves it open
// (`rocm_release<6.4.2` on "6.4"). A term whose key is not among the facts does not hold.
enum class Truth { No, Yes, Maybe };
Truth condition_truth(std::string_view condition, const Facts& facts);
// condition_truth is Yes.
bool condition_holds(std::string_view condition, const Facts& facts);
// Dotted numeric comparison ("7.0.10" > "7.0.2", "7.0" < "7.0.2": a missing field is 0); a field may carry a
// pre-release tag a, b or rc ("7.15.0a20260727" is above every 7.14.x and below 7.15.0). Returns false when either
// side is not a version.
bool compare_versions(std::string_view a, std::string_view b, int* cmp);

// The rows of the case that may apply to the facts, in table order: every row whose condition is undetermined
// (Maybe), up to and including the first that holds. One row where the facts decide; several where a release known
// only to major.minor meets a row that needs its patch level (unmap-leak's `>=6.4 & <6.4.2` FAIL on "6.4": that
// row and the ones after it up to the first that holds, so either verdict is as expected). Empty where none applies.
std::vector<const ExpectedRow*> expected_rows(const std::vector<ExpectedRow>& rows, std::string_view binary,
                                              std::string_view case_name, const Facts& facts);

// How an observed run compares with its row: OK, another verdict than the row allows, or an allowed non-PASS verdict
// for another reason than the row names (set-access-subrange failing on out-of-memory is not the bug).
enum class Match { Ok, WrongVerdict, WrongReason };
Match match_expected(const ExpectedRow& row, Verdict observed, std::string_view detail);
// "CRASH/FAIL ~Memory access fault ~hipErrorIllegalAddress": the verdict cell as the table spells it.
std::string verdict_cell(const ExpectedRow& row);

// Condition keys of the case's rows that the run's facts do not carry: each is a table problem (a key no run
// reports never matches, so its row silently never applies).
std::vector<std::string> unreported_keys(const std::vector<ExpectedRow>& rows, std::string_view binary,
                                         std::string_view case_name, const Facts& facts);

// How every consumer treats one case, decided here only: --list's tags, which cases a plain run (and triage) leaves
// out, and how CTest registers it.
struct CasePolicy {
  bool has_rows = false;
  bool known_crash = false;  // some row allows CRASH
  bool selftest = false;     // labelled selftest: a harness self-test that misbehaves on purpose
  // The table's labels of every row, each once in table order, then "known-crash" and "selftest" where they apply.
  std::vector<std::string> labels;
  // CTest cannot evaluate a row's condition: it follows the unconditional row. WILL_FAIL where that row allows no
  // PASS, and for a known-crash case where it allows PASS beside FAIL, CRASH or HANG (the pinned atomics: a PASS
  // there is the news a CLR CI runs `ctest -L known-crash` for, so it must show as a failure); the test passes
  // only on a VERDICT line naming one of `ctest_verdicts` (the row's verdicts but PASS and SKIP), so a HARNESS or
  // usage exit fails it although WILL_FAIL alone would pass any non-zero exit. PASS beside FAIL or HANG and no
  // CRASH anywhere (node-dependent, nothing known to crash): the test passes on a VERDICT line naming any of
  // `ctest_verdicts` (all of the row's verdicts), whatever the exit code. Otherwise a plain test (exit 0 passes).
  // Exit 77 skips in every kind.
  bool ctest_will_fail = false;
  std::vector<Verdict> ctest_verdicts;                     // empty only for a plain test
  bool opt_in() const { return known_crash || selftest; }  // left out unless named or --all
  std::vector<std::string> tags() const;                   // "known-crash", "selftest": what --list marks
  // The labels that name a public thread (an issue or PR the case reproduces or watches), as the table writes
  // them: "iris#418" (a repository of github.com/ROCm), "openxla/xla#46576" (owner/repository).
  std::vector<std::string> threads() const;
};

// Whether a label names a thread: [owner/]repository#number.
bool is_thread_label(std::string_view label);
// The thread's address: https://github.com/<owner, ROCm by default>/<repository>/issues/<number> (GitHub sends a PR's
// number there to the PR).
std::string thread_url(std::string_view label);
CasePolicy case_policy(const std::vector<ExpectedRow>& rows, std::string_view binary, std::string_view case_name);

// The table as built into this binary (generated from expected/verdicts.md at configure time).
extern const char kExpectedTable[];

}  // namespace vmr

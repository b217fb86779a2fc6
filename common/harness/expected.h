// expected/verdicts.md: the one table of expected verdicts. CMake reads it to set WILL_FAIL and LABELS, the
// binaries embed it to mark known-crash cases in --list, and check_expected compares observed runs against it.
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
  // alternatives (the one CTest's WILL_FAIL follows); `verdicts` holds them all; `reasons` are substrings of which
  // a non-PASS run's detail must contain at least one (none: any detail).
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
// A term whose key is not among the facts does not hold.
bool condition_holds(std::string_view condition, const Facts& facts);
// Dotted numeric comparison ("7.0.10" > "7.0.2", "7.0" < "7.0.2": a missing field is 0); a field may carry a
// pre-release tag a, b or rc ("7.15.0a20260727" is above every 7.14.x and below 7.15.0). Returns false when either
// side is not a version.
bool compare_versions(std::string_view a, std::string_view b, int* cmp);

const ExpectedRow* find_expected(const std::vector<ExpectedRow>& rows, std::string_view binary,
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
bool is_known_crash(const std::vector<ExpectedRow>& rows, std::string_view binary, std::string_view case_name);
// Labels of every row of the case, each once, in table order.
std::vector<std::string> labels_of(const std::vector<ExpectedRow>& rows, std::string_view binary,
                                   std::string_view case_name);

// The table as built into this binary (generated from expected/verdicts.md at configure time).
extern const char kExpectedTable[];

}  // namespace vmr

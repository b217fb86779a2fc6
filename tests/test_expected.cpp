#include <gtest/gtest.h>

#include <set>

#include "harness/expected.h"

using namespace vmr;

namespace {
const char* kHeader =
    "# title\n\n| binary | case | condition | verdict | labels | evidence |\n| --- | --- | --- | --- | --- | --- |\n";
}

TEST(Expected, BuiltInTableParses) {
  std::vector<ExpectedRow> rows;
  Status s = parse_expected_table(kExpectedTable, &rows);
  ASSERT_TRUE(s.ok()) << s.detail;
  EXPECT_FALSE(rows.empty());
  for (const auto& r : rows) EXPECT_FALSE(r.evidence.empty());
}

TEST(Expected, ConditionalRowsAreTriedInOrder) {
  std::string t = std::string(kHeader) +
                  "| repro_x | atomics | rocm_release>=7.2.0 & fine_pool=yes | PASS | amd | fixed in PR #4476 |\n"
                  "| repro_x | atomics | * | CRASH | amd,iris#418 | seed 000 |\n";
  std::vector<ExpectedRow> rows;
  ASSERT_TRUE(parse_expected_table(t, &rows).ok());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].labels, (std::vector<std::string>{"amd", "iris#418"}));
  auto only = [&](const Facts& facts) {
    auto found = expected_rows(rows, "repro_x", "atomics", facts);
    EXPECT_EQ(found.size(), 1u);  // exact facts: one row decides
    return found.empty() ? Verdict::Harness : found[0]->verdict;
  };
  EXPECT_EQ(only({{"rocm_release", "7.10.1"}, {"fine_pool", "yes"}}), Verdict::Pass);
  EXPECT_EQ(only({{"rocm_release", "7.1.9"}, {"fine_pool", "yes"}}), Verdict::Crash);
  EXPECT_EQ(only({{"fine_pool", "yes"}}), Verdict::Crash);
  EXPECT_TRUE(expected_rows(rows, "repro_x", "read", {}).empty());
  EXPECT_TRUE(case_policy(rows, "repro_x", "atomics").known_crash);
  EXPECT_FALSE(case_policy(rows, "repro_x", "read").known_crash);
}

TEST(Expected, MalformedTablesAreRejectedWithTheirLine) {
  const std::vector<std::string> bad_rows = {
      "| repro_x | read | * | MAYBE | - | e |\n",                                            // verdict
      "| repro_x | read | * | USAGE | - | e |\n",                                            // not an expected verdict
      "| repro_x | read | * | PASS | - | - |\n",                                             // no evidence
      "| repro_x | read | * | PASS | - |\n",                                                 // cells
      "| repro_x | Read | * | PASS | - | e |\n",                                             // case name
      "| repro_x | read | hip>> | PASS | - | e |\n",                                         // condition
      "| repro_x | read | hip=7 | PASS | - | e |\n",                                         // no '*' row
      "| repro_x | read | * | PASS | - | e |\n| repro_x | read | hip=7 | FAIL | - | e |\n",  // row after '*'
      "| repro_x | read | * | CRASH/MAYBE | - | e |\n",                                      // bad alternative
      "| repro_x | read | * | FAIL/FAIL | - | e |\n",                                        // repeated
      "| repro_x | read | * | FAIL ~ | - | e |\n",                                           // empty reason
      "| repro_x | read | * | PASS ~because | - | e |\n",                                    // a reason for PASS
  };
  for (const auto& b : bad_rows) {
    std::vector<ExpectedRow> rows;
    Status s = parse_expected_table(std::string(kHeader) + b, &rows);
    EXPECT_FALSE(s.ok()) << b;
    EXPECT_NE(s.detail.find("line "), std::string::npos) << s.detail;
  }
  std::vector<ExpectedRow> rows;
  EXPECT_FALSE(parse_expected_table("no table here\n", &rows).ok());
  EXPECT_FALSE(parse_expected_table("| a | b | c | d | e | f |\n| - | - | - | - | - | - |\n", &rows).ok());
}

TEST(Expected, VersionComparison) {
  int c = 0;
  ASSERT_TRUE(compare_versions("7.0.10", "7.0.2", &c));
  EXPECT_EQ(c, 1);
  ASSERT_TRUE(compare_versions("6.2", "6.2.0", &c));
  EXPECT_EQ(c, 0);
  ASSERT_TRUE(compare_versions("7.0", "7.0.2", &c));  // the README's example: a missing field is 0
  EXPECT_EQ(c, -1);
  EXPECT_FALSE(compare_versions("gfx942", "7", &c));
  EXPECT_FALSE(condition_holds("arch>=gfx90a", {{"arch", "gfx942"}}));
  EXPECT_TRUE(condition_holds("arch=gfx942", {{"arch", "gfx942"}}));
  EXPECT_TRUE(condition_holds("arch!=gfx90a", {{"arch", "gfx942"}}));
}

// Every term of a condition must hold, not only the first (a node without the fine pool is not one with it).
TEST(Expected, EveryTermOfAConditionMustHold) {
  const Facts with{{"rocm_release", "7.2.1"}, {"fine_pool", "yes"}},
      without{{"rocm_release", "7.2.1"}, {"fine_pool", "no"}};
  EXPECT_TRUE(condition_holds("rocm_release>=7.2 & fine_pool=yes", with));
  EXPECT_FALSE(condition_holds("rocm_release>=7.2 & fine_pool=yes", without));
  EXPECT_FALSE(condition_holds("fine_pool=yes & rocm_release>=7.2", without));
  EXPECT_FALSE(condition_holds("rocm_release>=7.2 & fine_pool=yes & xnack=on", with));  // a key not reported
  EXPECT_TRUE(condition_holds("rocm_release>=7.2 & rocm_release<7.3 & fine_pool!=no", with));
  EXPECT_FALSE(condition_holds("rocm_release>=7.2 & rocm_release<7.2.1", with));
}

// Nightly and TheRock-era strings (rocm-systems#11185): 7.15.0a20260727 is a pre-release of 7.15.0.
TEST(Expected, PreReleaseVersionsOrderBelowTheirRelease) {
  const char* nightly = "7.15.0a20260727";
  auto cmp_of = [](std::string_view a, std::string_view b) {
    int c = 9;
    EXPECT_TRUE(compare_versions(a, b, &c)) << a << " vs " << b;
    return c;
  };
  EXPECT_EQ(cmp_of(nightly, "7.15.0"), -1);
  EXPECT_EQ(cmp_of(nightly, "7.15"), -1);
  EXPECT_EQ(cmp_of("7.15", nightly), 1);
  EXPECT_EQ(cmp_of(nightly, "7.14.60850"), 1);
  EXPECT_EQ(cmp_of(nightly, "7.14.9"), 1);
  EXPECT_EQ(cmp_of(nightly, nightly), 0);
  EXPECT_EQ(cmp_of(nightly, "7.15.0a20260801"), -1);
  EXPECT_EQ(cmp_of("7.15.0a9", "7.15.0b1"), -1);
  EXPECT_EQ(cmp_of("7.15.0rc1", "7.15.0b9"), 1);
  EXPECT_EQ(cmp_of("7.15.0rc", "7.15.0rc1"), -1);
  int c = 0;
  for (const char* bad : {"7.15.0x1", "7.15.0-1", "7..1", "7.a1", "7.15.0a1b"})
    EXPECT_FALSE(compare_versions(bad, "7.15", &c)) << bad;
  const Facts node{{"rocm_release", nightly}};
  EXPECT_TRUE(condition_holds("rocm_release<7.15", node));
  EXPECT_TRUE(condition_holds("rocm_release<7.15.0", node));
  EXPECT_TRUE(condition_holds("rocm_release>7.14", node));
  EXPECT_TRUE(condition_holds("rocm_release>=7.14.60850", node));
  EXPECT_TRUE(condition_holds("rocm_release!=7.15.0", node));
  EXPECT_TRUE(condition_holds("rocm_release<=7.15.0a20260727", node));
  EXPECT_FALSE(condition_holds("rocm_release>=7.15", node));
  EXPECT_FALSE(condition_holds("rocm_release=7.15.0", node));
  EXPECT_FALSE(condition_holds("rocm_release<=7.14.99", node));
}

// A release known only to major.minor ("6.4": hipRuntimeGetVersion alone) stands for every 6.4.p, never 6.4.0: a
// term its patch level decides is open (Maybe), one every 6.4.p decides alike is decided.
TEST(Expected, AReleaseKnownToMajorMinorOnlyLeavesPatchLevelTermsOpen) {
  const Facts mm{{"rocm_release", "6.4"}, {"rocm_release_precision", std::string(kMajorMinorOnly)}};
  EXPECT_EQ(condition_truth("rocm_release<6.4.2", mm), Truth::Maybe);
  EXPECT_EQ(condition_truth("rocm_release>=6.4 & rocm_release<6.4.2", mm), Truth::Maybe);
  EXPECT_EQ(condition_truth("rocm_release>6.4", mm), Truth::Maybe);     // 6.4.0 is not, 6.4.1 is
  EXPECT_EQ(condition_truth("rocm_release<=6.4.0", mm), Truth::Maybe);  // 6.4.0 is, 6.4.1 is not
  EXPECT_EQ(condition_truth("rocm_release=6.4", mm), Truth::Maybe);
  EXPECT_EQ(condition_truth("rocm_release!=6.4.3", mm), Truth::Maybe);
  EXPECT_EQ(condition_truth("rocm_release>=6.4", mm), Truth::Yes);
  EXPECT_EQ(condition_truth("rocm_release>=6.4.0", mm), Truth::Yes);
  EXPECT_EQ(condition_truth("rocm_release>6.3.9", mm), Truth::Yes);
  EXPECT_EQ(condition_truth("rocm_release<6.5", mm), Truth::Yes);
  EXPECT_EQ(condition_truth("rocm_release<6.5.0a20260101", mm), Truth::Yes);  // below 6.5's nightlies too
  EXPECT_EQ(condition_truth("rocm_release!=7.0", mm), Truth::Yes);
  EXPECT_EQ(condition_truth("rocm_release<6.4", mm), Truth::No);
  EXPECT_EQ(condition_truth("rocm_release<6.4.0", mm), Truth::No);
  EXPECT_EQ(condition_truth("rocm_release>=6.5", mm), Truth::No);
  EXPECT_EQ(condition_truth("rocm_release=7.0", mm), Truth::No);
  EXPECT_EQ(condition_truth("rocm_release<6.2", mm), Truth::No);
  // An open term beside a false one is false; beside true ones, open; condition_holds wants certainty.
  EXPECT_EQ(condition_truth("rocm_release<6.4.2 & fine_pool=yes", mm), Truth::No);
  EXPECT_FALSE(condition_holds("rocm_release<6.4.2", mm));
  EXPECT_TRUE(condition_holds("rocm_release>=6.4 & rocm_release<6.5", mm));
  // The same value with its patch level known, or a record without the precision fact, is exact: 6.4 = 6.4.0.
  const Facts exact{{"rocm_release", "6.4"}, {"rocm_release_precision", "full"}}, old_record{{"rocm_release", "6.4"}};
  EXPECT_EQ(condition_truth("rocm_release<6.4.2", exact), Truth::Yes);
  EXPECT_EQ(condition_truth("rocm_release<6.4.2", old_record), Truth::Yes);
  EXPECT_EQ(condition_truth("rocm_release<6.4.2", {{"rocm_release", "6.4.2"}}), Truth::No);
  // Only a plain major.minor can be read so: anything else compares as it stands.
  const Facts odd{{"rocm_release", "6.4.1"}, {"rocm_release_precision", std::string(kMajorMinorOnly)}};
  EXPECT_EQ(condition_truth("rocm_release<6.4.2", odd), Truth::Yes);
}

// unmap-leak's `>=6.4 & <6.4.2 -> FAIL` (ROCm/hip#3781, fixed in 6.4.2) on a release known as "6.4" only: that row
// and the one after it both apply, so FAIL and PASS are both as expected; with the patch level known, one row.
TEST(Expected, APatchLevelRowOnAMajorMinorReleaseAllowsEitherVerdict) {
  auto rows = [](const std::vector<ExpectedRow>& table, const Facts& facts) {
    std::vector<int> lines;
    for (const ExpectedRow* r : expected_rows(table, "repro_x", "leak", facts)) lines.push_back(r->line);
    return lines;
  };
  std::vector<ExpectedRow> table;
  ASSERT_TRUE(parse_expected_table(
                  std::string(kHeader) +  // lines 5, 6, 7, 8
                      "| repro_x | leak | rocm_release<6.2 | SKIP | - | e |\n"
                      "| repro_x | leak | rocm_release>=6.4 & rocm_release<6.4.2 | FAIL ~not returned | - | e |\n"
                      "| repro_x | leak | rocm_release>=7.2 & rocm_release<7.3 | FAIL | - | e |\n"
                      "| repro_x | leak | * | PASS | - | e |\n",
                  &table)
                  .ok());
  const std::string mm(kMajorMinorOnly);
  EXPECT_EQ(rows(table, {{"rocm_release", "6.4"}, {"rocm_release_precision", mm}}), (std::vector<int>{6, 8}));
  EXPECT_EQ(rows(table, {{"rocm_release", "6.4.2"}, {"rocm_release_precision", "full"}}), (std::vector<int>{8}));
  EXPECT_EQ(rows(table, {{"rocm_release", "6.4.1"}, {"rocm_release_precision", "full"}}), (std::vector<int>{6}));
  EXPECT_EQ(rows(table, {{"rocm_release", "6.4"}}), (std::vector<int>{6}));  // a record of old: 6.4.0
  EXPECT_EQ(rows(table, {{"rocm_release", "7.2"}, {"rocm_release_precision", mm}}), (std::vector<int>{7}));
  EXPECT_EQ(rows(table, {{"rocm_release", "6.1"}, {"rocm_release_precision", mm}}), (std::vector<int>{5}));
  // Each open row is judged with its own reasons.
  auto found = expected_rows(table, "repro_x", "leak", {{"rocm_release", "6.4"}, {"rocm_release_precision", mm}});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(match_expected(*found[0], Verdict::Fail, "memory not returned"), Match::Ok);
  EXPECT_EQ(match_expected(*found[1], Verdict::Pass, ""), Match::Ok);
}

// The built-in table on the releases issue 34 names: TheRock 10.1.0 (HIP 7.16), a real 7.14.0 (HIP 7.13.99004),
// and a 6.4 known to major.minor only, each as rocm_release now reads it (amd_rules rocm_release).
TEST(Expected, BuiltInTableOnTheReleasesAsRead) {
  std::vector<ExpectedRow> table;
  ASSERT_TRUE(parse_expected_table(kExpectedTable, &table).ok());
  auto verdicts = [&](const char* binary, const char* case_name, const Facts& facts) {
    std::set<Verdict> out;
    for (const ExpectedRow* r : expected_rows(table, binary, case_name, facts))
      out.insert(r->verdicts.begin(), r->verdicts.end());
    return out;
  };
  auto conditions = [&](const char* binary, const char* case_name, const Facts& facts) {
    std::vector<std::string> out;
    for (const ExpectedRow* r : expected_rows(table, binary, case_name, facts)) out.push_back(r->condition);
    return out;
  };
  const std::string mm(kMajorMinorOnly);
  // unmap-leak on "6.4" (only major.minor): the 6.4.0/6.4.1 FAIL and the fixed releases' PASS.
  const Facts r64{{"rocm_release", "6.4"}, {"rocm_release_precision", mm}};
  EXPECT_EQ(verdicts("repro_hip_vmem_regressions", "unmap-leak", r64),
            (std::set<Verdict>{Verdict::Fail, Verdict::Pass}));
  EXPECT_EQ(verdicts("repro_hip_vmem_regressions", "unmap-leak", {{"rocm_release", "6.4.2"}}),
            (std::set<Verdict>{Verdict::Pass}));
  EXPECT_EQ(verdicts("repro_hip_vmem_regressions", "unmap-leak", {{"rocm_release", "6.4.1"}}),
            (std::set<Verdict>{Verdict::Fail}));
  // imported-properties with the owner on another GPU: its FAIL row is for releases below 10.1; 10.1.0 meets the
  // FAIL/PASS row after it (HIP's 7.16, as the release was read before, met the FAIL row).
  const Facts therock101{
      {"rocm_release", "10.1.0"}, {"rocm_release_precision", "full"}, {"owners_on_other_gpus", "yes"}};
  EXPECT_EQ(conditions("repro_hip_vmem_access", "imported-properties", therock101),
            (std::vector<std::string>{"owners_on_other_gpus=yes"}));
  EXPECT_EQ(conditions("repro_hip_vmem_access", "imported-properties",
                       {{"rocm_release", "7.16"}, {"owners_on_other_gpus", "yes"}}),
            (std::vector<std::string>{"owners_on_other_gpus=yes & rocm_release<10.1"}));
  // 7.14.0's rows of the regression cases apply to 7.14.0 (HIP's 7.13, as read before, met none of them).
  const Facts r7140{{"rocm_release", "7.14.0"}, {"rocm_release_precision", "full"}};
  for (const char* c : {"import-close-fd", "reexport-after-close", "handles-fd-limit"})
    EXPECT_EQ(conditions("repro_hip_vmem_regressions", c, r7140),
              (std::vector<std::string>{"rocm_release>=7.14.0 & rocm_release<7.14.1"}))
        << c;
  for (const char* c : {"grant-owner-first", "pointer-info-imported"})
    EXPECT_EQ(conditions("repro_hip_vmem_access", c, r7140),
              (std::vector<std::string>{"rocm_release>=7.14.0 & rocm_release<7.14.1"}))
        << c;
  EXPECT_EQ(conditions("repro_hip_vmem_regressions", "import-close-fd", {{"rocm_release", "7.13"}}),
            (std::vector<std::string>{"*"}));
  // A "7.14" known to major.minor only meets the 7.14.0 row, the 7.14.1-and-later row and the default.
  EXPECT_EQ(conditions("repro_hip_vmem_regressions", "import-close-fd",
                       {{"rocm_release", "7.14"}, {"rocm_release_precision", mm}}),
            (std::vector<std::string>{"rocm_release>=7.14.0 & rocm_release<7.14.1",
                                      "rocm_release>=7.14.1 & rocm_release<10.2", "*"}));
}

namespace {
std::vector<ExpectedRow> table_of(const std::string& rows) {
  std::vector<ExpectedRow> out;
  Status s = parse_expected_table(std::string(kHeader) + rows, &out);
  EXPECT_TRUE(s.ok()) << s.detail;
  return out;
}
}  // namespace

TEST(Expected, ReasonPatternsAndAlternatives) {
  auto rows = table_of(
      "| repro_x | subrange | * | FAIL ~hipErrorInvalidValue | - | e |\n"
      "| repro_x | atomics | * | CRASH/FAIL/PASS ~Memory access fault ~hipErrorIllegalAddress | - | e |\n");
  const ExpectedRow& sub = rows[0];
  EXPECT_EQ(sub.verdict, Verdict::Fail);
  EXPECT_EQ(sub.reasons, (std::vector<std::string>{"hipErrorInvalidValue"}));
  EXPECT_EQ(verdict_cell(sub), "FAIL ~hipErrorInvalidValue");
  // match
  EXPECT_EQ(match_expected(sub, Verdict::Fail, "hipMemSetAccess returned hipErrorInvalidValue (invalid argument)"),
            Match::Ok);
  // the verdict is right, the reason is not: failing for lack of memory is not the bug
  EXPECT_EQ(match_expected(sub, Verdict::Fail, "hipMemCreate returned hipErrorOutOfMemory (out of memory)"),
            Match::WrongReason);
  EXPECT_EQ(match_expected(sub, Verdict::Pass, "accepted"), Match::WrongVerdict);
  EXPECT_EQ(match_expected(sub, Verdict::Crash, "hipErrorInvalidValue"), Match::WrongVerdict);
  // alternatives: any reason of the list; PASS needs none
  const ExpectedRow& at = rows[1];
  EXPECT_EQ(at.verdict, Verdict::Crash);
  EXPECT_EQ(at.verdicts, (std::vector<Verdict>{Verdict::Crash, Verdict::Fail, Verdict::Pass}));
  EXPECT_EQ(match_expected(at, Verdict::Crash, "rank 1 killed by SIGABRT; last stderr: \"Memory access fault by GPU\""),
            Match::Ok);
  EXPECT_EQ(match_expected(at, Verdict::Fail, "hipDeviceSynchronize returned hipErrorIllegalAddress"), Match::Ok);
  EXPECT_EQ(match_expected(at, Verdict::Pass, "exact"), Match::Ok);
  EXPECT_EQ(match_expected(at, Verdict::Crash, "rank 1 killed by SIGSEGV; last stderr: \"\""), Match::WrongReason);
  EXPECT_EQ(match_expected(at, Verdict::Hang, "Memory access fault"), Match::WrongVerdict);
  EXPECT_TRUE(case_policy(rows, "repro_x", "atomics").known_crash);
  EXPECT_FALSE(case_policy(rows, "repro_x", "subrange").known_crash);
}

TEST(Expected, ConditionKeysNoRunReportsAreNamed) {
  auto rows = table_of(
      "| repro_x | a | rocm_release<7.0 & fine_pool=yes | PASS | - | e |\n"
      "| repro_x | a | hip_runtime>=7.0.2 | SKIP | - | e |\n"
      "| repro_x | a | * | FAIL | - | e |\n");
  EXPECT_EQ(unreported_keys(rows, "repro_x", "a", {{"rocm_release", "6.4.1"}, {"fine_pool", "no"}}),
            (std::vector<std::string>{"hip_runtime"}));
  EXPECT_EQ(unreported_keys(rows, "repro_x", "a", {}),
            (std::vector<std::string>{"rocm_release", "fine_pool", "hip_runtime"}));
  EXPECT_TRUE(unreported_keys(rows, "repro_x", "b", {}).empty());
}

// One decision for --list's tags, a plain run's selection and CTest's registration (what --list --json carries).
TEST(Expected, CasePolicyDecidesTagsAndCtestProperties) {
  auto rows = table_of(
      "| repro_x | plain | * | PASS | amd | e |\n"
      "| repro_x | skips | rocm_release<6.0 | SKIP | amd | e |\n"
      "| repro_x | skips | * | PASS/SKIP | amd,pow2 | e |\n"
      "| repro_x | hole | rocm_release<7.0 | PASS | pow2 | e |\n"
      "| repro_x | hole | * | FAIL ~hipErrorInvalidValue | pow2 | e |\n"
      "| repro_x | atomics | rocm_release<6.2 | SKIP | amd,iris#418 | e |\n"
      "| repro_x | atomics | * | CRASH/FAIL/PASS ~fault | amd,iris#418 | e |\n"
      "| repro_x | early | rocm_release<6.2 | CRASH | amd | e |\n"
      "| repro_x | early | * | PASS | amd | e |\n"
      "| repro_x | fault | * | CRASH ~SIGSEGV | selftest | e |\n"
      "| repro_x | flaky | * | FAIL/PASS | - | e |\n"
      "| repro_x | skiponly | * | SKIP | - | e |\n");
  const CasePolicy plain = case_policy(rows, "repro_x", "plain");
  EXPECT_TRUE(plain.has_rows);
  EXPECT_FALSE(plain.opt_in());
  EXPECT_FALSE(plain.ctest_will_fail);
  EXPECT_TRUE(plain.ctest_verdicts.empty());
  EXPECT_EQ(plain.labels, (std::vector<std::string>{"amd"}));
  // PASS/SKIP needs no regex: exit 0 passes and 77 skips
  const CasePolicy skips = case_policy(rows, "repro_x", "skips");
  EXPECT_FALSE(skips.ctest_will_fail);
  EXPECT_TRUE(skips.ctest_verdicts.empty());
  EXPECT_EQ(skips.labels, (std::vector<std::string>{"amd", "pow2"}));
  // CTest follows the unconditional row only
  const CasePolicy hole = case_policy(rows, "repro_x", "hole");
  EXPECT_TRUE(hole.ctest_will_fail);
  EXPECT_EQ(hole.ctest_verdicts, (std::vector<Verdict>{Verdict::Fail}));  // the line WILL_FAIL passes on
  EXPECT_FALSE(hole.opt_in());
  // known-crash where PASS is allowed too: WILL_FAIL all the same (a PASS is the news), passing on CRASH or FAIL
  const CasePolicy atomics = case_policy(rows, "repro_x", "atomics");
  EXPECT_TRUE(atomics.known_crash);
  EXPECT_TRUE(atomics.opt_in());
  EXPECT_TRUE(atomics.ctest_will_fail);
  EXPECT_EQ(atomics.ctest_verdicts, (std::vector<Verdict>{Verdict::Crash, Verdict::Fail}));
  EXPECT_EQ(atomics.labels, (std::vector<std::string>{"amd", "iris#418", "known-crash"}));
  EXPECT_EQ(atomics.tags(), (std::vector<std::string>{"known-crash"}));
  EXPECT_EQ(atomics.threads(), (std::vector<std::string>{"iris#418"}));  // what --list and the reports name
  EXPECT_TRUE(plain.threads().empty());
  // a CRASH in any row makes the case known-crash, though CTest expects the last row's PASS
  const CasePolicy early = case_policy(rows, "repro_x", "early");
  EXPECT_TRUE(early.known_crash);
  EXPECT_FALSE(early.ctest_will_fail);
  EXPECT_TRUE(early.ctest_verdicts.empty());
  const CasePolicy fault = case_policy(rows, "repro_x", "fault");
  EXPECT_TRUE(fault.selftest);
  EXPECT_TRUE(fault.ctest_will_fail);
  EXPECT_EQ(fault.ctest_verdicts, (std::vector<Verdict>{Verdict::Crash}));
  // node-dependent and nothing known to crash: no WILL_FAIL, every alternative passes
  const CasePolicy flaky = case_policy(rows, "repro_x", "flaky");
  EXPECT_FALSE(flaky.known_crash);
  EXPECT_FALSE(flaky.ctest_will_fail);
  EXPECT_EQ(flaky.ctest_verdicts, (std::vector<Verdict>{Verdict::Fail, Verdict::Pass}));
  // a SKIP-only row: WILL_FAIL with no line to pass on (it skips or fails)
  const CasePolicy skiponly = case_policy(rows, "repro_x", "skiponly");
  EXPECT_TRUE(skiponly.ctest_will_fail);
  EXPECT_TRUE(skiponly.ctest_verdicts.empty());
  EXPECT_EQ(fault.tags(), (std::vector<std::string>{"known-crash", "selftest"}));
  EXPECT_EQ(fault.labels, (std::vector<std::string>{"selftest", "known-crash"}));
  // a case with no row: a table problem check_expected reports; here a plain test with no tags
  const CasePolicy none = case_policy(rows, "repro_x", "missing");
  EXPECT_FALSE(none.has_rows);
  EXPECT_FALSE(none.opt_in());
  EXPECT_FALSE(none.ctest_will_fail);
  EXPECT_TRUE(none.labels.empty());
}

#include <gtest/gtest.h>

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
  EXPECT_EQ(find_expected(rows, "repro_x", "atomics", {{"rocm_release", "7.10.1"}, {"fine_pool", "yes"}})->verdict,
            Verdict::Pass);
  EXPECT_EQ(find_expected(rows, "repro_x", "atomics", {{"rocm_release", "7.1.9"}, {"fine_pool", "yes"}})->verdict,
            Verdict::Crash);
  EXPECT_EQ(find_expected(rows, "repro_x", "atomics", {{"fine_pool", "yes"}})->verdict, Verdict::Crash);
  EXPECT_EQ(find_expected(rows, "repro_x", "read", {}), nullptr);
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

// A case's own environment (harness/case_environment.h): parsed from its table entry, handed to its ranks by the
// supervisor, and the reason a run starts fresh ranks between two cases (launcher.h same_environment_end).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "harness/case_environment.h"
#include "harness/launcher.h"
#include "harness/supervisor.h"

using namespace vmr;

TEST(CaseEnvironment, SetsAndRemovalsParseAndBadEntriesAreTheSuitesError) {
  std::vector<EnvChange> c;
  ASSERT_TRUE(parse_environment_changes("  HSA_ENABLE_IPC_MODE_LEGACY=1 FOO  BAR= ", &c).ok());
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0], (EnvChange{"HSA_ENABLE_IPC_MODE_LEGACY", true, "1"}));
  EXPECT_EQ(c[1], (EnvChange{"FOO", false, ""}));
  EXPECT_EQ(c[2], (EnvChange{"BAR", true, ""}));
  EXPECT_EQ(environment_text(c), "HSA_ENABLE_IPC_MODE_LEGACY=1, FOO unset, BAR=");
  ASSERT_TRUE(parse_environment_changes("", &c).ok());
  EXPECT_TRUE(c.empty());
  for (const char* bad : {"=1", "1X=2", "A-B=1", "A=1 A", "X=\x01 A+"}) {
    const Status s = parse_environment_changes(bad, &c);
    EXPECT_EQ(s.verdict, Verdict::Harness) << bad;
  }
}

TEST(CaseEnvironment, ChangesReplaceAndRemoveTheLaunchersVariables) {
  const char* base[] = {"PATH=/bin", "HSA_ENABLE_IPC_MODE_LEGACY=0", "FOO=x", "FOOBAR=y", nullptr};
  std::vector<EnvChange> c;
  ASSERT_TRUE(parse_environment_changes("HSA_ENABLE_IPC_MODE_LEGACY=1 FOO", &c).ok());
  EXPECT_EQ(changed_environment(base, c),
            (std::vector<std::string>{"PATH=/bin", "FOOBAR=y", "HSA_ENABLE_IPC_MODE_LEGACY=1"}));
  EXPECT_EQ(changed_environment(base, {}),
            (std::vector<std::string>{"PATH=/bin", "HSA_ENABLE_IPC_MODE_LEGACY=0", "FOO=x", "FOOBAR=y"}));
}

TEST(CaseEnvironment, ARankLifeTakesOnlyTheCasesOfOneEnvironment) {
  const CaseDef a{"a", "", nullptr}, b{"b", "", nullptr, 0, ""}, legacy{"l", "", nullptr, 0, "X=1"},
      legacy2{"l2", "", nullptr, 0, " X=1 "}, other{"o", "", nullptr, 0, "X=0"};
  const std::vector<const CaseDef*> sel = {&a, &b, &legacy, &legacy2, &other, &a};
  EXPECT_EQ(same_environment_end(sel, 0), 2u);
  EXPECT_EQ(same_environment_end(sel, 1), 2u);
  EXPECT_EQ(same_environment_end(sel, 2), 4u);
  EXPECT_EQ(same_environment_end(sel, 4), 5u);
  EXPECT_EQ(same_environment_end(sel, 5), 6u);
}

TEST(CaseEnvironment, TheRanksSeeTheCasesEnvironmentNotTheLaunchers) {
  ::setenv("VMR_TEST_REMOVED", "launcher's", 1);
  ::setenv("VMR_TEST_CASE_ENV", "off", 1);
  LaunchPlan plan;
  plan.cases = {{"environment", 10}};
  plan.devices = {0, 1};
  plan.relay_output = false;
  // Without the case's changes the ranks inherit the launcher's variables: the case can fail.
  CaseResult plain = run_cases(plan).front();
  EXPECT_EQ(plain.verdict, Verdict::Fail) << plain.detail;
  ASSERT_TRUE(parse_environment_changes("VMR_TEST_CASE_ENV=on VMR_TEST_REMOVED", &plan.environment).ok());
  CaseResult changed = run_cases(plan).front();
  EXPECT_EQ(changed.verdict, Verdict::Pass) << changed.detail;
  ::unsetenv("VMR_TEST_REMOVED");
  ::unsetenv("VMR_TEST_CASE_ENV");
}

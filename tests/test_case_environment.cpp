// A case's own environment (harness/case_environment.h): parsed from its table entry, handed to its ranks by the
// supervisor, and the reason a run starts fresh ranks between two cases (launcher.h same_environment_end).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/case_environment.h"
#include "harness/env_block.h"
#include "harness/harness.h"
#include "harness/json.h"
#include "harness/launcher.h"
#include "harness/supervisor.h"
#include "test_rank_cases.h"

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

// The record says what each case's ranks had: a case whose environment sets one variable and removes another
// carries its ranks' runtime variables (the launcher's with those changes), so a variable the user's shell exports
// (HSA_ENABLE_IPC_MODE_LEGACY=1 in vLLM's images) does not read as the one a case that removes it ran with; a case
// without an environment carries none (the launcher's, environment.variables, are its ranks').
TEST(CaseEnvironment, TheRecordSaysWhatEachCasesRanksHad) {
  const char* base[] = {"VMR_TEST_CASE_ENV=off", "VMR_TEST_REMOVED=launcher's", "HIP_VISIBLE_DEVICES=1", "PATH=/bin",
                        nullptr};
  std::vector<EnvChange> c;
  ASSERT_TRUE(parse_environment_changes("VMR_TEST_CASE_ENV=on VMR_TEST_REMOVED HIP_VISIBLE_DEVICES", &c).ok());
  std::vector<std::string> changed = changed_environment(base, c);
  std::vector<const char*> envp;
  for (const auto& e : changed) envp.push_back(e.c_str());
  envp.push_back(nullptr);
  const EnvFacts vars = runtime_variables(envp.data());
  auto value = [&](const EnvFacts& v, const std::string& k) {
    for (const auto& [name, val] : v)
      if (name == k) return val;
    return std::string("(absent)");
  };
  EXPECT_EQ(value(vars, "VMR_TEST_CASE_ENV"), "on");
  EXPECT_EQ(value(vars, "VMR_TEST_REMOVED"), "(absent)");
  EXPECT_EQ(value(vars, "HIP_VISIBLE_DEVICES"), "(unset)");  // an always-listed one removed reads "(unset)"
  EXPECT_EQ(value(vars, "PATH"), "(absent)");
  EXPECT_EQ(value(runtime_variables(base), "HIP_VISIBLE_DEVICES"), "1");

  // The launcher end to end (the unit-test binary is a reproducer: its "environment" case removes VMR_TEST_REMOVED
  // and sets VMR_TEST_CASE_ENV=on), its record read back.
  char json_template[] = "/tmp/vmr-case-env-XXXXXX";
  const int fd = ::mkstemp(json_template);
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("VMR_TEST_CASE_ENV", "off", 1);
    ::setenv("VMR_TEST_REMOVED", "launcher's", 1);
    if (!std::freopen("/dev/null", "w", stdout)) ::_exit(98);
    std::vector<std::string> args = {"unit_tests", "--case", "pass",   "--case",     "environment",
                                     "--devices",  "0,1",    "--json", json_template};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::_exit(repro_main(vmr_test::rank_cases(), int(args.size()), argv.data()));
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  std::ifstream in(json_template);
  std::stringstream text;
  text << in.rdbuf();
  ::unlink(json_template);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << text.str();
  JsonValue record;
  ASSERT_TRUE(parse_json(text.str(), &record).ok()) << text.str();
  const JsonValue* launcher_vars = record.get("environment") ? record.get("environment")->get("variables") : nullptr;
  ASSERT_NE(launcher_vars, nullptr) << text.str();
  EXPECT_EQ(launcher_vars->get_string("VMR_TEST_CASE_ENV"), "off");
  EXPECT_EQ(launcher_vars->get_string("VMR_TEST_REMOVED"), "launcher's");
  const JsonValue* cases = record.get("cases");
  ASSERT_TRUE(cases && cases->arr.size() == 2) << text.str();
  for (const auto& one : cases->arr) {
    const JsonValue* own = one.get("variables");
    if (one.get_string("case") == "pass") {
      EXPECT_EQ(own, nullptr) << text.str();
      continue;
    }
    ASSERT_NE(own, nullptr) << text.str();
    EXPECT_EQ(own->get_string("VMR_TEST_CASE_ENV"), "on") << text.str();
    EXPECT_EQ(own->get("VMR_TEST_REMOVED"), nullptr) << text.str();
  }
}

// The supervisor (common/harness/supervisor.cpp): spawning, the status stream, deadlines, reaping and the verdicts
// it decides, through real rank processes running the test cases of test_rank_cases.cpp.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd_count.h"
#include "harness/deadline.h"
#include "harness/json_report.h"
#include "harness/supervisor.h"

using namespace vmr;

namespace {

CaseResult launch(const std::string& name, int ranks = 2, double timeout_s = 10) {
  LaunchPlan plan;
  plan.cases = {{name, timeout_s}};
  for (int i = 0; i < ranks; ++i) plan.devices.push_back(i);
  plan.term_grace_s = 0.3;
  plan.relay_output = false;
  std::vector<CaseResult> life = run_cases(plan);
  EXPECT_EQ(life.size(), 1u);  // a life of one case has one result, whatever its verdict
  return life.front();
}

bool gone(pid_t pid) { return kill(pid, 0) == -1 && errno == ESRCH; }

}  // namespace

TEST(Supervisor, PassReportsRecordsPhasesAndMetrics) {
  CaseResult r = launch("pass", 3);
  ASSERT_EQ(r.verdict, Verdict::Pass) << r.detail;
  EXPECT_EQ(r.detail, "all 3 ranks met");
  ASSERT_EQ(r.ranks.size(), 3u);
  for (const auto& rank : r.ranks) {
    EXPECT_TRUE(rank.has_record);
    EXPECT_TRUE(rank.reaped);
    EXPECT_EQ(rank.exit.code, 0);
    ASSERT_EQ(rank.record.phases.size(), 1u);
    EXPECT_EQ(rank.record.phases[0].first, "run");
    ASSERT_FALSE(rank.record.info.empty());
    EXPECT_EQ(rank.record.info[0].second, "test");
    EXPECT_TRUE(gone(rank.pid));
  }
  ASSERT_EQ(r.ranks[0].record.metrics.size(), 1u);
  EXPECT_EQ(r.ranks[0].record.metrics[0].value, 42);
  EXPECT_GT(r.spawn_s(), 0);
  EXPECT_LT(r.spawn_s(), r.wall_s());
  // The "env:" line each rank printed was captured, with its rank.
  ASSERT_FALSE(r.ranks[1].stdout_tail.empty());
  EXPECT_EQ(r.ranks[1].stdout_tail[0], "env: device = test");
}

TEST(Supervisor, SignalDeathIsCrashNamingSignalAndStderr) {
  CaseResult r = launch("abort");
  EXPECT_EQ(r.verdict, Verdict::Crash);
  EXPECT_NE(r.detail.find("rank 1"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("SIGABRT"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("Memory access fault by GPU node-2"), std::string::npos) << r.detail;
  EXPECT_EQ(r.ranks[1].exit.signal, SIGABRT);
  // The dead rank sent no verdict, but the facts it had sent are kept for the expected table's conditions.
  ASSERT_FALSE(r.ranks[1].has_record);
  ASSERT_FALSE(r.ranks[1].record.info.empty());
  EXPECT_EQ(r.ranks[1].record.info[0], (std::pair<std::string, std::string>{"device", "test"}));
}

// Margins that hold on a loaded machine: the rank left waiting gives up 1 s (10% of 10 s) before the launcher's
// SIGTERM, and the bound on the whole case is timeout + grace + 2 s of slack.
TEST(Supervisor, DeadlineKillsEscalatesToSigkillAndLeavesNothing) {
  int64_t t0 = monotonic_ns();
  CaseResult r = launch("block", 2, 10);
  double took = double(monotonic_ns() - t0) / 1e9;
  EXPECT_EQ(r.verdict, Verdict::Hang) << r.detail;
  EXPECT_TRUE(r.deadline_passed);
  EXPECT_NE(r.detail.find("rank 1"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("SIGKILL"), std::string::npos) << r.detail;  // it ignored SIGTERM
  // The rank left waiting gave up just before the kill and says whom it waited for.
  EXPECT_NE(r.detail.find("rank 0 reported: deadline passed while waiting to receive from rank 1"), std::string::npos)
      << r.detail;
  EXPECT_GE(took, 10.0);
  EXPECT_LT(took, 10.0 + 0.3 + 2.0);
  EXPECT_EQ(r.ranks[1].exit.signal, SIGKILL);
  EXPECT_EQ(r.ranks[1].killed, KilledBy::Deadline);
  for (const auto& rank : r.ranks) {
    EXPECT_TRUE(rank.reaped);
    EXPECT_TRUE(gone(rank.pid)) << rank.pid;
  }
}

TEST(Supervisor, ARanksDeathCutsOffPeersSpinningOutsideTheChannel) {
  LaunchPlan plan;
  plan.cases = {{"abort-spin", 60}};
  plan.devices = {0, 1, 2};
  plan.term_grace_s = 0.3;
  plan.after_death_s = 1.0;
  plan.relay_output = false;
  int64_t t0 = monotonic_ns();
  CaseResult r = run_cases(plan).front();
  double took = double(monotonic_ns() - t0) / 1e9;
  EXPECT_EQ(r.verdict, Verdict::Crash) << r.detail;
  EXPECT_NE(r.detail.find("rank 2"), std::string::npos) << r.detail;
  EXPECT_FALSE(r.deadline_passed);
  EXPECT_LT(took, 30.0);  // cut off after about 1 s, far from the 60 s deadline
  for (int i : {0, 1}) {
    EXPECT_EQ(r.ranks[i].killed, KilledBy::AfterDeath) << "rank " << i;
    EXPECT_TRUE(r.ranks[i].reaped);
    EXPECT_TRUE(gone(r.ranks[i].pid));
  }
}

TEST(Supervisor, RankLeavingMidProtocolIsNamedAndNobodyHangs) {
  int64_t t0 = monotonic_ns();
  CaseResult r = launch("leave", 3, 30);
  EXPECT_LT(monotonic_ns() - t0, 5000000000);
  EXPECT_EQ(r.verdict, Verdict::Fail) << r.detail;
  EXPECT_NE(r.detail.find("rank 2"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("left mid-protocol"), std::string::npos) << r.detail;
  EXPECT_FALSE(r.deadline_passed);
}

TEST(Supervisor, OutputWithoutNewlinesIsBoundedAndLinear) {
  int64_t t0 = monotonic_ns();
  CaseResult r = launch("flood", 2, 60);
  double took = double(monotonic_ns() - t0) / 1e9;
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.detail;
  EXPECT_LT(took, 30.0);  // linear: quadratic relaying took 16 s for 100 MB
  ASSERT_FALSE(r.ranks[0].stdout_tail.empty());
  const std::string& line = r.ranks[0].stdout_tail.back();
  EXPECT_LE(line.size(), 4100u);
  EXPECT_NE(line.find("more bytes of this line not kept"), std::string::npos) << line.substr(line.size() - 80);
}

// SKIPped cases in one life: the ranks went on after each but the last, so those cases have no exit of their own
// to check (none is made up): every case reads SKIP, not HARNESS for an exit code 0 beside a SKIP record.
TEST(Supervisor, SkippedCasesThatWentOnAreSkipNotHarness) {
  LaunchPlan plan;
  plan.cases = {{"skip-one", 30}, {"skip-one", 30}, {"skip-one", 30}};
  plan.devices = {0, 1, 2};
  plan.term_grace_s = 0.3;
  plan.relay_output = false;
  std::vector<CaseResult> r = run_cases(plan);
  ASSERT_EQ(r.size(), 3u);
  for (size_t k = 0; k < r.size(); ++k) {
    EXPECT_EQ(r[k].verdict, Verdict::Skip) << k << ": " << r[k].detail;
    for (const auto& rank : r[k].ranks) EXPECT_EQ(rank.went_on, k + 1 < r.size()) << k;
  }
  for (const auto& rank : r.back().ranks) EXPECT_EQ(rank.exit.code, 77);
}

// Several cases in one rank life: each gets its own record and its own deadline, and the life ends at the first
// that does not pass (the launcher runs the rest in fresh ranks).
TEST(Supervisor, CasesInOneLifeEachWithItsOwnDeadline) {
  LaunchPlan plan;
  plan.cases = {{"pass", 30}, {"pass", 30}, {"block", 3}, {"pass", 30}};
  plan.devices = {0, 1};
  plan.term_grace_s = 0.3;
  plan.relay_output = false;
  int64_t t0 = monotonic_ns();
  std::vector<CaseResult> r = run_cases(plan);
  double took = double(monotonic_ns() - t0) / 1e9;
  ASSERT_EQ(r.size(), 3u);  // the fourth case was not reached
  EXPECT_EQ(r[0].verdict, Verdict::Pass) << r[0].detail;
  EXPECT_EQ(r[1].verdict, Verdict::Pass) << r[1].detail;
  EXPECT_EQ(r[0].ranks[0].pid, r[1].ranks[0].pid);  // one life
  EXPECT_EQ(r[2].verdict, Verdict::Hang) << r[2].detail;
  EXPECT_NE(r[2].detail.find("deadline of 3 s passed"), std::string::npos) << r[2].detail;
  EXPECT_TRUE(r[2].deadline_passed);
  EXPECT_FALSE(r[1].deadline_passed);
  EXPECT_LT(took, 3.0 + 0.3 + 3.0);  // the hang's own 3 s, not the life's total
}

TEST(Supervisor, OneRankSkippingSkipsAllWithItsReason) {
  CaseResult r = launch("skip-one", 3);
  EXPECT_EQ(r.verdict, Verdict::Skip) << r.detail;
  EXPECT_EQ(r.detail, "rank 2: device 9 is not present");
  for (const auto& rank : r.ranks) EXPECT_EQ(rank.exit.code, 77);
}

TEST(Supervisor, FailNamesTheRankAndItsCheck) {
  CaseResult r = launch("fail");
  EXPECT_EQ(r.verdict, Verdict::Fail);
  EXPECT_EQ(r.detail, "rank 0: hipMemSetAccess returned hipErrorInvalidValue (test)");
}

TEST(Supervisor, RecordThatDisagreesWithExitCodeIsAHarnessError) {
  CaseResult r = launch("mismatch");
  EXPECT_EQ(r.verdict, Verdict::Harness) << r.detail;
  EXPECT_NE(r.detail.find("exited with code 5 but reported PASS"), std::string::npos) << r.detail;
}

// An event cut off mid-line is never taken for the verdict it begins: HARNESS, naming the truncation.
TEST(Supervisor, ATruncatedStatusEventIsHarness) {
  CaseResult r = launch("truncated-event");
  EXPECT_EQ(r.verdict, Verdict::Harness) << r.detail;
  EXPECT_NE(r.detail.find("status stream truncated"), std::string::npos) << r.detail;
  EXPECT_FALSE(r.ranks[0].has_record);
}

TEST(Supervisor, RanksInheritOnlyTheirOwnFds) {
  // fds the launcher holds without close-on-exec (as a parent process may hand down) must not reach a rank.
  int low = ::open("/dev/null", O_RDONLY);
  int high = ::fcntl(low, F_DUPFD, 200);
  ASSERT_GE(low, 0);
  ASSERT_GE(high, 200);
  CaseResult r = launch("fd-audit", 4);
  ::close(low);
  ::close(high);
  EXPECT_EQ(r.verdict, Verdict::Pass) << r.detail;
}

// The binary's per-rank state reaches every case of a life as describe left it: described once, by that rank.
TEST(Supervisor, EveryCaseOfALifeSeesTheStateDescribeFilled) {
  LaunchPlan plan;
  plan.cases = {{"state", 30}, {"state", 30}, {"state", 30}};
  plan.devices = {0, 1, 2};
  plan.relay_output = false;
  std::vector<CaseResult> r = run_cases(plan);
  ASSERT_EQ(r.size(), 3u);
  for (size_t k = 0; k < r.size(); ++k) EXPECT_EQ(r[k].verdict, Verdict::Pass) << k << ": " << r[k].detail;
}

// What a case leaves unsound as it ends (vmr_hip: a stale unmap in an owner's destructor) is that case's FAIL, said
// as such, and the life ends there: the next case runs in fresh ranks and passes.
TEST(Supervisor, ACaseThatLeavesItsStateUnsoundFails) {
  LaunchPlan plan;
  plan.cases = {{"unsound", 30}, {"state", 30}};
  plan.devices = {0, 1};
  plan.relay_output = false;
  std::vector<CaseResult> r = run_cases(plan);
  ASSERT_GE(r.size(), 1u);
  EXPECT_EQ(r[0].verdict, Verdict::Fail) << r[0].detail;
  EXPECT_NE(r[0].detail.find("after the case: the case left its state unsound"), std::string::npos) << r[0].detail;
}

TEST(Supervisor, ExecFailureIsAHarnessError) {
  LaunchPlan plan;
  plan.exe = "/nonexistent/vmem-repro";
  plan.cases = {{"pass", 60}};
  plan.devices = {0, 1};
  plan.relay_output = false;
  CaseResult r = run_cases(plan).front();
  EXPECT_EQ(r.verdict, Verdict::Harness);
  EXPECT_NE(r.detail.find("exec /nonexistent/vmem-repro failed: errno 2"), std::string::npos) << r.detail;
}

// A plan that names no case starts no rank: the suite's own error, said as such (not a PASS of nothing).
TEST(Supervisor, APlanWithNoCaseIsAHarnessError) {
  LaunchPlan plan;
  plan.devices = {0, 1};
  plan.relay_output = false;
  std::vector<CaseResult> r = run_cases(plan);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].verdict, Verdict::Harness);
  EXPECT_EQ(r[0].detail, "the launch plan names no case");
  EXPECT_TRUE(r[0].ranks.empty());
}

TEST(Supervisor, HundredLaunchesLeakNoFdAndNoZombie) {
  size_t before = open_fd_count();
  for (int i = 0; i < 100; ++i) {
    CaseResult r = launch("pass");
    ASSERT_EQ(r.verdict, Verdict::Pass) << "launch " << i << ": " << r.detail;
  }
  EXPECT_EQ(open_fd_count(), before);
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);  // no child left, zombie or alive
  EXPECT_EQ(errno, ECHILD);
}

// decide_verdict alone: the precedence of root causes.
TEST(DecideVerdict, CrashBeatsTheHangItCaused) {
  CaseResult r;
  r.ranks.resize(2);
  r.ranks[0].rank = 0;
  r.ranks[0].reaped = true;
  r.ranks[0].end_ns = 10;
  r.ranks[0].exit.signaled = true;
  r.ranks[0].exit.signal = SIGSEGV;
  r.ranks[1].rank = 1;
  r.ranks[1].reaped = true;
  r.ranks[1].end_ns = 20;
  r.ranks[1].killed = KilledBy::Deadline;
  r.ranks[1].exit.signaled = true;
  r.ranks[1].exit.signal = SIGTERM;
  r.deadline_passed = true;
  decide_verdict(&r, 5);
  EXPECT_EQ(r.verdict, Verdict::Crash);
  EXPECT_NE(r.detail.find("rank 0"), std::string::npos);
  EXPECT_NE(r.detail.find("SIGSEGV"), std::string::npos);
}

TEST(DecideVerdict, UnkillableRankIsHangWithWchan) {
  CaseResult r;
  r.ranks.resize(1);
  r.ranks[0].pid = 1234;
  r.ranks[0].killed = KilledBy::Deadline;
  r.ranks[0].wchan = "state D, wchan amdgpu_amdkfd_wait";
  r.deadline_passed = true;
  decide_verdict(&r, 2);
  EXPECT_EQ(r.verdict, Verdict::Hang);
  EXPECT_NE(r.detail.find("did not die (state D, wchan amdgpu_amdkfd_wait)"), std::string::npos) << r.detail;
}

// A HANG names what the hung ranks reported could explain it (the amdgpu DRM interface of rocm-systems#9820), once
// per distinct value, and only from ranks the deadline killed.
TEST(DecideVerdict, HangQuotesTheKilledRanksHangContextOnce) {
  CaseResult r;
  r.ranks.resize(3);
  const std::string drm = "amdgpu DRM interface 3.61.0 (/dev/dri/renderD128), older than 3.64";
  for (int i = 0; i < 3; ++i) {
    r.ranks[i].rank = i;
    r.ranks[i].reaped = true;
    r.ranks[i].exit.signaled = true;
    r.ranks[i].exit.signal = SIGTERM;
    r.ranks[i].killed = i < 2 ? KilledBy::Deadline : KilledBy::AfterDeath;
    r.ranks[i].record.info = {{"rocm_release", "7.14.0"}, {std::string(kHangContextFact), i < 2 ? drm : "not mine"}};
  }
  r.deadline_passed = true;
  decide_verdict(&r, 10);
  EXPECT_EQ(r.verdict, Verdict::Hang);
  const size_t at = r.detail.find(drm);
  EXPECT_NE(at, std::string::npos) << r.detail;
  EXPECT_EQ(r.detail.find(drm, at + 1), std::string::npos) << "said twice: " << r.detail;
  EXPECT_EQ(r.detail.find("not mine"), std::string::npos) << r.detail;

  CaseResult quiet;  // a hang with no such fact reads as before
  quiet.ranks.resize(1);
  quiet.ranks[0].killed = KilledBy::Deadline;
  quiet.ranks[0].reaped = true;
  quiet.deadline_passed = true;
  decide_verdict(&quiet, 10);
  EXPECT_EQ(quiet.detail.find("amdgpu"), std::string::npos) << quiet.detail;
}

TEST(DecideVerdict, GarbledRecordIsAHarnessError) {
  CaseResult r;
  r.ranks.resize(1);
  r.ranks[0].reaped = true;
  r.ranks[0].record_error = "status record line 1: not a vmem-repro record";
  decide_verdict(&r, 2);
  EXPECT_EQ(r.verdict, Verdict::Harness);
  EXPECT_NE(r.detail.find("not a vmem-repro record"), std::string::npos);
}

// Ctrl-C between two rank lives (or in one) leaves cases unstarted: the run is HARNESS naming them, whatever the
// cases that ran gave (it was the most severe of those, a CRASH or even a PASS, with the rest silently gone).
TEST(RunVerdict, CasesAnInterruptLeftUnstartedMakeItHarnessNamingThem) {
  auto result = [](const char* name, Verdict v) {
    CaseResult r;
    r.case_name = name;
    r.verdict = v;
    r.detail = "detail of " + std::string(name);
    return r;
  };
  const std::vector<CaseResult> ran = {result("read", Verdict::Pass), result("fault", Verdict::Crash)};
  RunVerdict between = summarize_run(ran, {"hang", "peer-exit"}, SIGINT);
  EXPECT_EQ(between.verdict, Verdict::Harness);
  EXPECT_EQ(between.label, "read+fault+hang+peer-exit");
  EXPECT_EQ(between.detail, "interrupted by SIGINT; not run: hang, peer-exit; PASS: read; CRASH: fault");
  RunVerdict one = summarize_run({result("read", Verdict::Pass)}, {"atomics"}, SIGTERM);
  EXPECT_EQ(one.verdict, Verdict::Harness);
  EXPECT_EQ(one.label, "read+atomics");
  EXPECT_EQ(one.detail, "interrupted by SIGTERM; not run: atomics; PASS: read");
  RunVerdict none_ran = summarize_run({}, {"read"}, SIGINT);
  EXPECT_EQ(none_ran.verdict, Verdict::Harness);
  EXPECT_EQ(none_ran.detail, "interrupted by SIGINT; not run: read");
  // Nothing left out: the cases' own verdicts, as before.
  RunVerdict all = summarize_run(ran, {}, SIGINT);
  EXPECT_EQ(all.verdict, Verdict::Crash);
  EXPECT_EQ(all.detail, "PASS: read; CRASH: fault");
  RunVerdict single = summarize_run({result("read", Verdict::Pass)}, {}, 0);
  EXPECT_EQ(single.verdict, Verdict::Pass);
  EXPECT_EQ(single.label, "read");
  EXPECT_EQ(single.detail, "detail of read");
  EXPECT_EQ(summarize_run({}, {}, 0).verdict, Verdict::Usage);
}

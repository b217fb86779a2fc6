// The launcher's device probe (common/harness/device_probe.cpp) through real probe processes of this binary, which
// answer with the fake backend count of test_rank_cases.cpp (VMR_TEST_VISIBLE_DEVICES), and the launcher's default
// devices end to end: what the --json record and the run line say.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/deadline.h"
#include "harness/device_probe.h"
#include "harness/json.h"
#include "test_rank_cases.h"

using namespace vmr;

namespace {

// VMR_TEST_VISIBLE_DEVICES for one test; the probe and the ranks inherit it.
class FakeCount {
 public:
  explicit FakeCount(const char* value) { ::setenv("VMR_TEST_VISIBLE_DEVICES", value, 1); }
  ~FakeCount() { ::unsetenv("VMR_TEST_VISIBLE_DEVICES"); }
};

// The probe's process is gone and reaped: no child of ours is left, zombie or alive.
void expect_nothing_left(const ProbeAnswer& a) {
  EXPECT_FALSE(a.stuck);
  ASSERT_GT(a.pid, 0);
  EXPECT_EQ(::kill(a.pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

std::string read_all(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct LauncherRun {
  int code = -1;
  std::string out;
  JsonValue record;
};

// This binary as a launcher (its rank cases, its fake count) with these arguments and --json, in a child process.
LauncherRun run_launcher(std::vector<std::string> args) {
  char dir_template[] = "/tmp/vmr-probe-XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  const std::string json = dir + "/run.json", out = dir + "/out.txt";
  args.insert(args.begin(), "unit_tests");
  args.insert(args.end(), {"--json", json});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::_exit(repro_main(vmr_test::rank_cases(), int(args.size()), argv.data()));
  }
  LauncherRun run;
  int st = 0;
  EXPECT_EQ(::waitpid(pid, &st, 0), pid);
  run.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  run.out = read_all(out);
  EXPECT_TRUE(parse_json(read_all(json), &run.record).ok()) << run.out;
  ::unlink(json.c_str());
  ::unlink(out.c_str());
  ::rmdir(dir.c_str());
  return run;
}

std::vector<int> record_devices(const JsonValue& record) {
  std::vector<int> devices;
  const JsonValue* options = record.get("options");
  const JsonValue* list = options ? options->get("devices") : nullptr;
  if (list)
    for (const auto& d : list->arr) devices.push_back(int(d.num));
  return devices;
}

std::string record_source(const JsonValue& record) {
  const JsonValue* options = record.get("options");
  return options ? options->get_string("device_source") : "";
}

}  // namespace

TEST(DeviceProbe, AnswersTheBackendCount) {
  FakeCount one("1");
  const ProbeAnswer a = probe_visible_devices({});
  ASSERT_TRUE(a.visible.count.has_value()) << a.visible.why_unknown;
  EXPECT_EQ(*a.visible.count, 1);
  expect_nothing_left(a);
}

// A runtime that shows no device answers SKIP: unknown, with no reason of the probe's (the ranks give the runtime's).
TEST(DeviceProbe, RuntimeWithoutDevicesIsUnknownWithoutANote) {
  ::unsetenv("VMR_TEST_VISIBLE_DEVICES");
  const ProbeAnswer a = probe_visible_devices({});
  EXPECT_FALSE(a.visible.count.has_value());
  EXPECT_EQ(a.visible.why_unknown, "");
  expect_nothing_left(a);
}

TEST(DeviceProbe, HangIsKilledAtTheDeadline) {
  FakeCount hang("hang");
  DeviceProbe probe;
  probe.timeout_s = 0.5;
  const int64_t t0 = monotonic_ns();
  const ProbeAnswer a = probe_visible_devices(probe);
  const double took = double(monotonic_ns() - t0) / 1e9;
  EXPECT_FALSE(a.visible.count.has_value());
  EXPECT_NE(a.visible.why_unknown.find("no answer within 0.5 s; killed"), std::string::npos) << a.visible.why_unknown;
  EXPECT_GE(took, 0.5);
  EXPECT_LT(took, 0.5 + 1.5);  // killed, not waited for up to kill_wait
  expect_nothing_left(a);
}

TEST(DeviceProbe, CrashIsUnknownNamingTheSignal) {
  FakeCount crash("crash");
  const ProbeAnswer a = probe_visible_devices({});
  EXPECT_FALSE(a.visible.count.has_value());
  EXPECT_NE(a.visible.why_unknown.find("SIGABRT"), std::string::npos) << a.visible.why_unknown;
  expect_nothing_left(a);
}

TEST(DeviceProbe, UnreadableAnswerIsUnknown) {
  FakeCount junk("-3");  // the count function answers a number out of range
  const ProbeAnswer a = probe_visible_devices({});
  EXPECT_FALSE(a.visible.count.has_value());
  EXPECT_NE(a.visible.why_unknown.find("answer 'visible=-3"), std::string::npos) << a.visible.why_unknown;
  expect_nothing_left(a);
}

// One visible GPU: both ranks on GPU 0, in the record and on the run line.
TEST(DeviceProbe, OneVisibleGpuRunsTheSameGpuPair) {
  FakeCount one("1");
  const LauncherRun run = run_launcher({"--case", "pass"});
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(record_devices(run.record), (std::vector<int>{0, 0})) << run.out;
  EXPECT_EQ(record_source(run.record), "default: 2 ranks on the 1 visible GPU (same-GPU pair)");
  EXPECT_NE(run.out.find("run: ranks=2 devices=0,0 (default: 2 ranks on the 1 visible GPU (same-GPU pair); ranks "
                         "0,1 share device 0"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);
}

// Two GPUs for three ranks fold; two for two, or --devices, do not.
TEST(DeviceProbe, FewerGpusFoldEnoughOrDevicesGivenDoNot) {
  FakeCount two("2");
  LauncherRun run = run_launcher({"--case", "pass", "--ranks", "3"});
  EXPECT_EQ(record_devices(run.record), (std::vector<int>{0, 1, 0})) << run.out;
  run = run_launcher({"--case", "pass"});
  EXPECT_EQ(record_devices(run.record), (std::vector<int>{0, 1})) << run.out;
  EXPECT_EQ(record_source(run.record), "default 0..N-1");
  run = run_launcher({"--case", "pass", "--devices", "0,1,1"});
  EXPECT_EQ(record_devices(run.record), (std::vector<int>{0, 1, 1})) << run.out;
  EXPECT_EQ(record_source(run.record), "--devices");
}

// A probe that crashes leaves the defaults, and the record says why the count is unknown.
TEST(DeviceProbe, CrashedProbeKeepsTheDefaults) {
  FakeCount crash("crash");
  const LauncherRun run = run_launcher({"--case", "pass"});
  EXPECT_EQ(run.code, 0) << run.out;
  EXPECT_EQ(record_devices(run.record), (std::vector<int>{0, 1})) << run.out;
  EXPECT_NE(
      record_source(run.record).find("default 0..N-1 (visible devices unknown: device-count probe: killed by SIGABRT"),
      std::string::npos)
      << record_source(run.record);
}

// Ctrl-C while the probe starts a runtime: the probe is stopped at once (not at its deadline), and says why.
TEST(DeviceProbe, AnInterruptStopsTheProbeAtOnce) {
  FakeCount hang("hang");
  volatile sig_atomic_t interrupted = SIGINT;
  DeviceProbe probe;
  probe.timeout_s = 10;
  probe.interrupt = &interrupted;
  const int64_t t0 = monotonic_ns();
  const ProbeAnswer a = probe_visible_devices(probe);
  EXPECT_LT(double(monotonic_ns() - t0) / 1e9, 3.0);
  EXPECT_FALSE(a.visible.count.has_value());
  EXPECT_NE(a.visible.why_unknown.find("stopped: the launcher was interrupted"), std::string::npos)
      << a.visible.why_unknown;
  expect_nothing_left(a);
}

// The launcher interrupted during the probe starts no case and says so: HARNESS (99), not "no case selected" (2).
TEST(DeviceProbe, ALauncherInterruptedDuringTheProbeIsAHarnessVerdict) {
  FakeCount hang("hang");
  char out_template[] = "/tmp/vmr-probe-int-XXXXXX";
  const int out = ::mkstemp(out_template);
  ASSERT_GE(out, 0);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out, 1);
    std::vector<std::string> args = {"unit_tests", "--case", "pass"};
    std::vector<char*> argv;
    for (auto& s : args) argv.push_back(s.data());
    argv.push_back(nullptr);
    ::_exit(repro_main(vmr_test::rank_cases(), int(args.size()), argv.data()));
  }
  ::usleep(500 * 1000);  // the probe is running (it hangs until killed)
  ::kill(pid, SIGINT);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  const std::string text = read_all(out_template);
  ::close(out);
  ::unlink(out_template);
  ASSERT_TRUE(WIFEXITED(st)) << text;
  EXPECT_EQ(WEXITSTATUS(st), 99) << text;
  EXPECT_NE(text.find("VERDICT: HARNESS unit_tests.- interrupted by SIGINT before any case started"), std::string::npos)
      << text;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);  // the probe was reaped by the launcher
}

// The probe's flag typed by hand (fd 3 not the launcher's pipe: here a regular file) is refused, and nothing is
// written to that fd.
TEST(DeviceProbe, TheProbeFlagTypedByHandIsRefused) {
  FakeCount one("1");
  char file_template[] = "/tmp/vmr-probe-fd3-XXXXXX";
  const int file = ::mkstemp(file_template);
  ASSERT_GE(file, 0);
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(file, 3);
    std::string flag(kDeviceCountFlag);
    std::string name = "unit_tests";
    char* argv[] = {name.data(), flag.data(), nullptr};
    ::_exit(repro_main(vmr_test::rank_cases(), 2, argv));
  }
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  const std::string written = read_all(file_template);
  ::close(file);
  ::unlink(file_template);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 99);
  EXPECT_EQ(written, "");
}

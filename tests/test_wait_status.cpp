#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "harness/wait_status.h"

using namespace vmr;

namespace {
// Forks a child that runs `body` and returns its classified wait status.
template <class F>
ExitInfo run_child(F body) {
  pid_t pid = fork();
  if (pid == 0) {
    rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    body();
    _exit(0);
  }
  int st = 0;
  EXPECT_EQ(waitpid(pid, &st, 0), pid);
  return classify_wait_status(st);
}
}  // namespace

TEST(WaitStatus, ExitCodes) {
  ExitInfo e = run_child([] { _exit(3); });
  EXPECT_FALSE(e.signaled);
  EXPECT_EQ(e.code, 3);
  EXPECT_EQ(describe(e), "exited with code 3");
}

TEST(WaitStatus, SignalsAreNamed) {
  ExitInfo segv = run_child([] { raise(SIGSEGV); });
  EXPECT_TRUE(segv.signaled);
  EXPECT_EQ(segv.signal, SIGSEGV);
  EXPECT_FALSE(segv.core_dumped);  // RLIMIT_CORE 0
  EXPECT_EQ(signal_name(segv.signal), "SIGSEGV");
  EXPECT_NE(describe(segv).find("killed by SIGSEGV"), std::string::npos);

  ExitInfo abrt = run_child([] { std::abort(); });
  EXPECT_EQ(signal_name(abrt.signal), "SIGABRT");
  ExitInfo kill9 = run_child([] { raise(SIGKILL); });
  EXPECT_EQ(describe(kill9).rfind("killed by SIGKILL", 0), 0u);
}

TEST(WaitStatus, CoreDumpIsReportedFromTheStatusBit) {
  // Whether the kernel writes a core depends on the machine; the classification must follow the bit.
  ExitInfo e = classify_wait_status(SIGSEGV | 0x80);
  EXPECT_TRUE(e.signaled);
  EXPECT_TRUE(e.core_dumped);
  EXPECT_NE(describe(e).find("core dumped"), std::string::npos);
  EXPECT_EQ(signal_name(200), "signal 200");
}

#include "test_rank_cases.h"

#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace vmr_test {

namespace {

using vmr::RankContext;
using vmr::Status;

// What the describe step leaves for the cases: proof that the harness hands the one state it filled to each case.
struct TestState {
  int described_rank = -1;
  int describe_calls = 0;
  mutable bool left_unsound = false;  // as vmr_hip::Session's stale-unmap flag, set while a case holds it const
  Status after_case() const { return left_unsound ? Status::fail("the case left its state unsound") : Status::pass(); }
};

Status no_backend(RankContext& ctx, TestState* state) {
  state->described_rank = ctx.rank();
  ++state->describe_calls;
  ctx.info("device", "test");
  return Status::pass();
}

Status pass_after_barrier(RankContext& ctx, const TestState&) {
  VMR_TRY(ctx.mesh().barrier("work"));
  ctx.phase_done("run");
  if (ctx.rank() == 0) ctx.metric("answer", 42, "things");
  return Status::pass("all " + std::to_string(ctx.ranks()) + " ranks met");
}

Status abort_last(RankContext& ctx, const TestState&) {
  if (ctx.rank() == ctx.ranks() - 1) {
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    std::fprintf(stderr, "Memory access fault by GPU node-2 (test line)\n");
    std::fflush(stderr);
    std::abort();
  }
  VMR_TRY(ctx.mesh().barrier("after"));
  return Status::fail("unreachable");
}

Status block_last(RankContext& ctx, const TestState&) {
  if (ctx.rank() == ctx.ranks() - 1) {
    ::signal(SIGTERM, SIG_IGN);
    for (;;) ::pause();
  }
  VMR_TRY(ctx.mesh().barrier("never"));
  return Status::fail("unreachable");
}

// The last rank dies while the others spin on the CPU, outside the channel, and never notice: only the launcher's
// cut-off after a death can end them.
Status abort_while_others_spin(RankContext& ctx, const TestState&) {
  if (ctx.rank() == ctx.ranks() - 1) {
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    std::abort();
  }
  for (volatile unsigned long spin = 0;; spin = spin + 1) {
  }
  return Status::fail("unreachable");
}

// 64 MiB on stdout without a single newline: the launcher must keep bounded memory and a bounded line.
Status flood_without_newlines(RankContext& ctx, const TestState&) {
  if (ctx.rank() == 0) {
    std::string block(1 << 20, 'x');
    for (int i = 0; i < 64; ++i) std::fwrite(block.data(), 1, block.size(), stdout);
    std::fflush(stdout);
  }
  VMR_TRY(ctx.mesh().barrier("flooded"));
  return Status::pass("flooded");
}

Status leave_last(RankContext& ctx, const TestState&) {
  if (ctx.rank() == ctx.ranks() - 1) ::_exit(0);
  VMR_TRY(ctx.mesh().barrier("after-leave"));
  return Status::fail("unreachable");
}

Status skip_on_last(RankContext& ctx, const TestState&) {
  Status mine = ctx.rank() == ctx.ranks() - 1 ? Status::skip("device 9 is not present") : Status::pass();
  return ctx.agree(mine);
}

Status fail_first(RankContext& ctx, const TestState&) {
  VMR_TRY(ctx.mesh().barrier("check"));
  if (ctx.rank() == 0) return Status::fail("hipMemSetAccess returned hipErrorInvalidValue (test)");
  return Status::pass();
}

// A rank that reports PASS but exits with another code: the launcher must not believe either.
Status exit_mismatch(RankContext& ctx, const TestState&) {
  if (ctx.rank() == 0) {
    std::string text = vmr::event::end(vmr::Verdict::Pass, "fine");
    (void)!::write(3, text.data(), text.size());  // the launcher's fixed status fd
    ::_exit(5);
  }
  return Status::pass();
}

// A rank whose last event lacks its newline (it was cut off mid-write), then exits as if it had passed.
Status truncated_event(RankContext& ctx, const TestState&) {
  if (ctx.rank() == 0) {
    const std::string text = "end PASS fin";
    (void)!::write(3, text.data(), text.size());
    ::_exit(0);
  }
  return Status::pass();
}

// Nothing of the launcher's leaks into a rank: only stdin/stdout/stderr, the status fd and the control sockets.
Status fd_audit(RankContext& ctx, const TestState&) {
  std::set<int> allowed = {0, 1, 2, 3};
  for (int j = 0; j < ctx.ranks(); ++j)
    if (j != ctx.rank()) allowed.insert(10 + j);
  std::vector<std::string> extra;
  DIR* d = opendir("/proc/self/fd");
  if (!d) return Status::harness("cannot list /proc/self/fd");
  int own = dirfd(d);
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] == '.') continue;
    int fd = std::atoi(e->d_name);
    if (fd != own && !allowed.count(fd)) extra.push_back(e->d_name);
  }
  closedir(d);
  if (!extra.empty()) {
    std::string list;
    for (const auto& x : extra) list += " " + x;
    return Status::fail("rank " + std::to_string(ctx.rank()) + " inherited fds:" + list);
  }
  return Status::pass("only the expected fds are open");
}

// The state describe filled, seen by every case of the life: filled once, by this rank.
Status state_from_describe(RankContext& ctx, const TestState& state) {
  if (state.describe_calls != 1 || state.described_rank != ctx.rank())
    return Status::fail("rank " + std::to_string(ctx.rank()) + " sees describe_calls " +
                        std::to_string(state.describe_calls) + ", described_rank " +
                        std::to_string(state.described_rank));
  return Status::pass("the state describe filled");
}

// Passes, but leaves the state unsound as it ends (as a vmr_hip owner's stale unmap does).
Status unsound_at_end(RankContext& ctx, const TestState& state) {
  VMR_TRY(ctx.mesh().barrier("work"));
  state.left_unsound = true;
  return Status::pass("all done");
}

// The environment the launcher gave this rank (case_environment.h): VMR_TEST_CASE_ENV set to "on" and
// VMR_TEST_REMOVED absent, whatever the launcher's own environment holds.
Status environment_seen(RankContext& ctx, const TestState&) {
  const char* on = std::getenv("VMR_TEST_CASE_ENV");
  const char* removed = std::getenv("VMR_TEST_REMOVED");
  ctx.info("vmr_test_case_env", on ? on : "(unset)");
  if (!on || std::string(on) != "on" || removed)
    return Status::fail(std::string("rank sees VMR_TEST_CASE_ENV=") + (on ? on : "(unset)") +
                        (removed ? ", VMR_TEST_REMOVED set" : ""));
  return Status::pass("the case's environment");
}

// The backend count the launcher's device probe asks for (test_device_probe.cpp), as VMR_TEST_VISIBLE_DEVICES says:
// a number, "hang" (never answers, ignores SIGTERM), "crash" (aborts); unset: a runtime that shows no device (SKIP).
Status fake_count_devices(int* count) {
  const char* want = std::getenv("VMR_TEST_VISIBLE_DEVICES");
  const std::string w = want ? want : "";
  if (w == "hang") {
    ::signal(SIGTERM, SIG_IGN);
    for (;;) ::pause();
  }
  if (w == "crash") {
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    std::abort();
  }
  if (w.empty()) return Status::skip("no test device (VMR_TEST_VISIBLE_DEVICES unset)");
  *count = std::atoi(w.c_str());
  return Status::pass();
}

}  // namespace

const vmr::ReproBinary& rank_cases() {
  static TestState state;
  static const vmr::ReproBinary bin = vmr::bind_state(
      vmr::Binary<TestState>{
          "unit_tests",
          "test",
          no_backend,
          {
              {"pass", "all ranks meet at a barrier", pass_after_barrier},
              {"abort", "the last rank aborts", abort_last},
              {"block", "the last rank blocks and ignores SIGTERM", block_last},
              {"abort-spin", "the last rank aborts while the others spin", abort_while_others_spin},
              {"leave", "the last rank exits without a record", leave_last},
              {"flood", "rank 0 prints 64 MiB without a newline", flood_without_newlines},
              {"skip-one", "the last rank cannot run", skip_on_last},
              {"fail", "rank 0 fails a check", fail_first},
              {"mismatch", "record and exit code disagree", exit_mismatch},
              {"truncated-event", "the last status event lacks its newline", truncated_event},
              {"fd-audit", "a rank has only the fds it was given", fd_audit},
              {"state", "each case sees the state describe filled, once per life", state_from_describe},
              {"unsound", "passes, but leaves the state unsound as it ends", unsound_at_end},
              {"environment", "the rank sees VMR_TEST_CASE_ENV=on and no VMR_TEST_REMOVED", environment_seen, 0,
               "VMR_TEST_CASE_ENV=on VMR_TEST_REMOVED"},
          },
          fake_count_devices},
      &state);
  return bin;
}

}  // namespace vmr_test

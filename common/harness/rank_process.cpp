// The rank side of a reproducer: runs in the process the launcher exec'd, never returns into main.
#include "harness/rank_process.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "harness/deadline.h"
#include "harness/options.h"
#include "harness/text.h"

namespace vmr {

namespace {

// Test aid (docs/testing.md): VMR_FORCE_FAIL=binary.case[,binary.case...] makes those cases FAIL after the backend's
// describe step, so triage and fleet reports can be tested for a node that differs without a GPU that does.
bool forced_to_fail(std::string_view binary, std::string_view case_name) {
  const char* list = std::getenv("VMR_FORCE_FAIL");
  if (!list) return false;
  const std::string want = std::string(binary) + "." + std::string(case_name);
  for (auto item : split(list, ','))
    if (trim(item) == want) return true;
  return false;
}

// A rank flag is only ever written by the launcher, but a hand-made one must not make a rank write its record into
// someone's file or wait for ever: the status fd must be a pipe, each ctl fd a SEQPACKET socket, and the deadline
// within a day (and a minute) from now.
Status check_rank_fds(const RankArgs& a) {
  struct stat st {};
  if (::fstat(a.status_fd, &st) != 0 || !S_ISFIFO(st.st_mode))
    return Status::harness("status fd " + std::to_string(a.status_fd) + " is not a pipe from the launcher");
  for (int fd : a.ctl_fds) {
    if (fd < 0) continue;
    int type = 0;
    socklen_t len = sizeof type;
    if (::getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0 || type != SOCK_SEQPACKET)
      return Status::harness("ctl fd " + std::to_string(fd) + " is not a SEQPACKET socket from the launcher");
  }
  const int64_t now = monotonic_ns(), day = int64_t(86400 + 60) * 1000000000;
  if (a.deadline_ns < now - day || a.deadline_ns > now + day)
    return Status::harness("deadline_ns " + std::to_string(a.deadline_ns) + " is not within a day of now");
  return Status::pass();
}

// A case's body with everything it may throw turned into a status.
Status run_case_body(const ReproBinary& bin, const CaseDef& c, RankContext& ctx) {
  try {
    if (forced_to_fail(bin.name, c.name)) return Status::fail("forced by VMR_FORCE_FAIL (a test aid)");
    return c.run(ctx);
  } catch (const std::exception& e) {
    return Status::harness(std::string("uncaught exception: ") + e.what());
  } catch (...) {
    return Status::harness("uncaught exception of unknown type");
  }
}

}  // namespace

// One rank life: the backend's describe step once, then the cases in turn, each behind a barrier and under its own
// deadline, each ended by its verdict on the status stream as soon as it ends (its facts, phases and metrics went
// there as they came). The life ends after the last case, or after the first that did not PASS or SKIP (the
// launcher goes on with the rest in fresh ranks, so one case's fault never reaches another), or when a peer is gone
// at a case's start (no verdict for a case that never ran). The exit code is that of the last verdict sent, so the
// launcher can check one against the other.
int rank_main(const ReproBinary& bin, int argc, char** argv) {
  RankArgs a;
  // Statuses here are initialised, never reassigned: nvcc warns (#2810-D) on assigning a [[nodiscard]] type from a
  // call, and the single-file CUDA reproducer compiles this file with nvcc.
  const Status parsed = [&]() -> Status {
    if (argc != 2) return Status::harness("the rank flag must be the only argument");
    VMR_TRY(parse_rank_flag(argv[1], &a));
    return check_rank_fds(a);
  }();
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: %s\n", bin.name, printable(parsed.detail, 400).c_str());
    return exit_code(Verdict::Harness);
  }
  UniqueFd status_fd(a.status_fd);
  std::vector<UniqueFd> peers;
  for (int fd : a.ctl_fds) peers.emplace_back(fd);
  Mesh mesh(a.rank, std::move(peers), Deadline::at_ns(a.deadline_ns));
  RankContext ctx(a.rank, a.devices, &mesh, status_fd.get());
  ctx.start_stream();
  auto report = [&](const Status& result) {
    std::fflush(stdout);
    std::fflush(stderr);
    ctx.end_case(result);
    return exit_code(result.verdict);
  };

  std::vector<const CaseDef*> cases;
  for (const auto& name : a.cases) {
    const CaseDef* c = nullptr;
    for (const auto& candidate : bin.cases)
      if (name == candidate.name) c = &candidate;
    if (!c) return report(Status::harness("no case named '" + name + "'"));
    cases.push_back(c);
  }

  // Every rank must be able to run before any starts: one rank without its device must not strand the others.
  const Status ready = [&]() -> Status {
    Status started = mesh.barrier("start");
    ctx.ready_now();
    if (!started.ok()) return started;
    try {
      return ctx.agree(bin.describe(ctx));
    } catch (const std::exception& e) {
      return Status::harness(std::string("uncaught exception in describe: ") + e.what());
    }
  }();
  ctx.keep_facts_so_far();
  if (ready.verdict == Verdict::Skip) {  // nothing here can run any case: each says why
    int code = 0;
    for (size_t k = 0; k < cases.size(); ++k) code = report(ready);
    return code;
  }
  if (!ready.ok()) return report(ready);

  int code = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    if (k > 0) {
      // Case k starts when every rank has finished case k - 1; a rank that is gone ends this life here.
      mesh.set_deadline(Deadline::at_ns(rank_deadline_ns(monotonic_ns(), a.timeouts_ms[k] * 1000000)));
      if (!mesh.barrier("case-" + a.cases[k]).ok()) return code;
      ctx.ready_now();
    }
    Status result = run_case_body(bin, *cases[k], ctx);
    code = report(result);
    if (result.verdict != Verdict::Pass && result.verdict != Verdict::Skip) break;
  }
  return code;
}

}  // namespace vmr

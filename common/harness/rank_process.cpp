// The rank side of a reproducer: runs in the process the launcher exec'd, never returns into main.
#include "harness/rank_process.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "harness/options.h"
#include "harness/text.h"

namespace vmr {

namespace {

// Test aid (README): VMR_FORCE_FAIL=binary.case[,binary.case...] makes those cases FAIL after the backend's describe
// step, so triage and fleet reports can be tested for a node that differs without a GPU that does.
bool forced_to_fail(std::string_view binary, std::string_view case_name) {
  const char* list = std::getenv("VMR_FORCE_FAIL");
  if (!list) return false;
  const std::string want = std::string(binary) + "." + std::string(case_name);
  for (auto item : split(list, ','))
    if (trim(item) == want) return true;
  return false;
}

Status run_body(const ReproBinary& bin, const CaseDef& c, RankContext& ctx) {
  VMR_TRY(ctx.mesh().barrier("start"));
  ctx.record().ready_ns = monotonic_ns();
  ctx.start_phases();
  // Every rank must be able to run before any starts: one rank without its device must not strand the others.
  VMR_TRY(ctx.agree(bin.backend.describe_rank(ctx)));
  if (forced_to_fail(bin.name, c.name)) return Status::fail("forced by VMR_FORCE_FAIL (a test aid)");
  return c.run(ctx);
}

void write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the launcher is gone; nobody is left to tell
    done += size_t(n);
  }
}

}  // namespace

int rank_main(const ReproBinary& bin, int argc, char** argv) {
  RankArgs a;
  Status parsed = argc == 2 ? parse_rank_flag(argv[1], &a) : Status::harness("the rank flag must be the only argument");
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: %s\n", bin.name, parsed.detail.c_str());
    return exit_code(Verdict::Harness);
  }
  UniqueFd status_fd(a.status_fd);
  std::vector<UniqueFd> peers;
  for (int fd : a.ctl_fds) peers.emplace_back(fd);
  Mesh mesh(a.rank, std::move(peers), Deadline::at_ns(a.deadline_ns));
  RankContext ctx(a.rank, a.devices, a.case_name, &mesh);

  const CaseDef* c = nullptr;
  for (const auto& candidate : bin.cases)
    if (a.case_name == candidate.name) c = &candidate;
  Status result;
  if (!c) {
    result = Status::harness("no case named '" + a.case_name + "'");
  } else {
    try {
      result = run_body(bin, *c, ctx);
    } catch (const std::exception& e) {
      result = Status::harness(std::string("uncaught exception: ") + e.what());
    } catch (...) {
      result = Status::harness("uncaught exception of unknown type");
    }
  }
  ctx.record().verdict = result.verdict;
  ctx.record().detail = result.detail;
  std::fflush(stdout);
  std::fflush(stderr);
  write_all(status_fd.get(), encode_record(ctx.record()));
  return exit_code(result.verdict);
}

}  // namespace vmr

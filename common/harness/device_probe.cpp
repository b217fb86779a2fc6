#include "harness/device_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "harness/deadline.h"
#include "harness/kill_schedule.h"
#include "harness/supervisor.h"
#include "harness/text.h"
#include "harness/wait_status.h"

namespace vmr {

namespace {

// The probe's answer goes to this fd (a rank's status fd number), its stdin, stdout and stderr to /dev/null: what a
// runtime prints while it starts is the ranks' to relay, not the probe's.
constexpr int kProbeAnswerFd = 3;
constexpr std::string_view kAnswerKey = "visible=";
constexpr size_t kMaxAnswer = 64;

// The count in an answer "visible=N\n", or none.
std::optional<int> parse_answer(std::string_view text) {
  int count = 0;
  if (text.rfind(kAnswerKey, 0) != 0 || text.empty() || text.back() != '\n') return std::nullopt;
  if (!parse_int(text.substr(kAnswerKey.size(), text.size() - kAnswerKey.size() - 1), 0, 1023, &count))
    return std::nullopt;
  return count;
}

}  // namespace

ProbeAnswer probe_visible_devices(const DeviceProbe& probe) {
  ProbeAnswer out;
  auto unknown = [&](std::string why) {
    out.visible = {std::nullopt, "device-count probe: " + std::move(why)};
    return out;
  };
  UniqueFd answer_r, answer_w;
  const Status piped = make_pipe(&answer_r, &answer_w);
  if (!piped.ok()) return unknown(piped.detail);
  UniqueFd devnull(::open("/dev/null", O_RDWR | O_CLOEXEC));
  if (!devnull.valid()) return unknown(errno_text("open /dev/null"));
  // Everything the child needs is built before fork: it may not allocate afterwards.
  const std::vector<std::pair<int, int>> moves = {
      {devnull.get(), 0}, {devnull.get(), 1}, {devnull.get(), 2}, {answer_w.get(), kProbeAnswerFd}};
  std::string exe = probe.exe, flag(kDeviceCountFlag);
  char* argv[] = {exe.data(), flag.data(), nullptr};
  const int64_t deadline_ns = monotonic_ns() + int64_t(probe.timeout_s * 1e9);
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return unknown(errno_text("fork"));
  if (pid == 0) exec_child(parent, 0, moves, exe.c_str(), argv, "", "");
  ::setpgid(pid, pid);  // also here, so the group exists before we might signal it
  out.pid = pid;
  answer_w.reset();
  devnull.reset();

  // The supervisor's schedule for one process that has nothing to report once stopped: SIGKILL right after SIGTERM.
  const KillTimings timings{0, int64_t(probe.kill_wait_s * 1e9), 0};
  KillState stop;
  std::string answer;
  std::optional<ExitInfo> exit;
  for (;;) {
    if (!exit) {
      int st = 0;
      const pid_t got = ::waitpid(pid, &st, WNOHANG);
      if (got == pid) exit = classify_wait_status(st);
      if (got < 0 && errno != EINTR) exit = ExitInfo{};  // not our child any more (ECHILD): nothing to wait for
    }
    if (exit && !answer_r.valid()) break;
    const int64_t now = monotonic_ns();
    const int interrupt = probe.interrupt ? int(*probe.interrupt) : 0;
    const KillStep step = next_kill_step(&stop, {now, deadline_ns, interrupt, std::nullopt}, timings);
    if (step.term) ::kill(-pid, SIGTERM);
    if (step.kill) ::kill(-pid, SIGKILL);
    if (step.give_up) {
      out.stuck = !exit;
      break;
    }
    // waitpid has no fd to poll, so wake at least every 20 ms to reap.
    pollfd p{answer_r.get(), POLLIN, 0};
    const int timeout_ms = int(std::clamp<int64_t>((step.wake_ns - now + 999999) / 1000000, 0, 20));
    if (::poll(&p, answer_r.valid() ? 1 : 0, timeout_ms) <= 0 || !p.revents) continue;
    char buf[kMaxAnswer];
    const ssize_t n = ::read(answer_r.get(), buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n > 0 && answer.size() < kMaxAnswer) answer.append(buf, size_t(n));
    if (n <= 0) answer_r.reset();
  }
  if (stop.term_ns) {
    const std::string why = stop.reason == KilledBy::Interrupt
                                ? "stopped: the launcher was interrupted"
                                : "no answer within " + format_double(probe.timeout_s) + " s; killed";
    return unknown(why + (out.stuck ? " (it did not die: left, stuck in the kernel)" : ""));
  }
  if (exit && !exit->signaled && exit->code == exit_code(Verdict::Skip)) return out;  // the ranks say why
  const std::optional<int> count = parse_answer(answer);
  if (!exit || exit->signaled || exit->code != 0 || !count)
    return unknown((exit ? describe(*exit) : std::string("not reaped")) + ", answer '" + printable(answer, 40) + "'");
  out.visible.count = count;
  return out;
}

int device_count_main(const ReproBinary& bin, int argc, char** argv) {
  (void)argv;
  struct stat st {};
  // Only the launcher starts the probe: a hand-typed flag must not write into someone's fd 3.
  if (argc != 2 || ::fstat(kProbeAnswerFd, &st) != 0 || !S_ISFIFO(st.st_mode) || !bin.count_devices) {
    std::fprintf(stderr, "%s: %s is the launcher's internal flag (alone, fd 3 a pipe, a GPU backend)\n", bin.name,
                 std::string(kDeviceCountFlag).c_str());
    return exit_code(Verdict::Harness);
  }
  int count = 0;
  const Status counted = bin.count_devices(&count);
  if (!counted.ok()) return exit_code(counted.verdict);
  const std::string answer = std::string(kAnswerKey) + std::to_string(count) + "\n";
  UniqueFd fd(kProbeAnswerFd);
  return ::write(fd.get(), answer.data(), answer.size()) == ssize_t(answer.size()) ? 0 : exit_code(Verdict::Harness);
}

}  // namespace vmr

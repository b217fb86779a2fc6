#include "harness/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>

#include "harness/channel.h"
#include "harness/deadline.h"
#include "harness/kill_schedule.h"
#include "harness/options.h"
#include "harness/scope_guard.h"
#include "harness/text.h"

extern char** environ;  // the launcher's, which the ranks inherit unless a case changes it

namespace vmr {

namespace {

// Fixed fd numbers inside a rank, so that a rank's command line reads the same on every run.
constexpr int kStatusFd = 3;
constexpr int kCtlFdBase = 10;
// A child that cannot become a rank exits with the harness-error code (with a record when exec itself failed).
constexpr int kChildSetupFailed = 99;

struct RankPipes {
  UniqueFd status_r, status_w, out_r, out_w, err_r, err_w;
};

struct Stream {
  int rank;
  enum Kind { Out, Err, StatusRec } kind;
  UniqueFd fd;
  std::string partial;  // text after the last newline (at most kMaxLine bytes), or the record bytes so far
  size_t cut = 0;       // bytes of the current line dropped past kMaxLine
};

// A relayed line is at most this long (with its "[rank N] " prefix it stays within PIPE_BUF, so one write to a pipe
// that polls writable never blocks); the rest of a longer line is dropped and counted. Output without newlines
// then costs bounded memory and linear time.
constexpr size_t kMaxLine = 4000;
// Lines waiting for a blocked stdout (a full pipe, a terminal paused with Ctrl-S): the watchdog never waits for
// them; beyond this many, lines are dropped and counted.
constexpr size_t kMaxPending = 4096;

// Async-signal-safe decimal for the child's exec-failure record.
size_t format_uint(unsigned v, char* buf) {
  char tmp[16];
  size_t n = 0;
  do tmp[n++] = char('0' + v % 10);
  while ((v /= 10) && n < sizeof tmp);
  for (size_t i = 0; i < n; ++i) buf[i] = tmp[n - 1 - i];
  return n;
}

// Closes every fd that is not the target of a move (async-signal-safe: close, close_range; a bounded close loop
// where the kernel lacks close_range).
void close_all_but(const std::vector<std::pair<int, int>>& moves) {
  bool keep[kCtlFdBase + kMaxRanks] = {};
  int highest = 0;
  for (const auto& m : moves) {
    keep[m.second] = true;
    highest = std::max(highest, m.second);
  }
  for (int fd = 0; fd <= highest; ++fd)
    if (!keep[fd]) ::close(fd);
  if (::syscall(SYS_close_range, unsigned(highest + 1), ~0u, 0u) != 0)
    for (int fd = highest + 1; fd < 65536; ++fd) ::close(fd);
}

}  // namespace

Status make_pipe(UniqueFd* r, UniqueFd* w) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return Status::harness(errno_text("pipe2"));
  r->reset(p[0]);
  w->reset(p[1]);
  return Status::pass();
}

[[noreturn]] void exec_child(pid_t parent, pid_t pgid, const std::vector<std::pair<int, int>>& moves, const char* exe,
                             char* const* argv, const std::string& exec_fail_head, const std::string& exec_fail_tail,
                             char* const* envp) {
  ::setpgid(0, pgid);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kChildSetupFailed);  // the launcher died before PDEATHSIG was armed
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &dfl, nullptr);  // the launcher ignores SIGPIPE and SIGXFSZ; a rank must not inherit that
  ::sigaction(SIGXFSZ, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Park every source above all sources and targets before moving them down, so no move overwrites a source still
  // to come; just above them, not at a fixed high number, so a low `ulimit -n` still leaves room.
  int park_min = 0;
  for (const auto& m : moves) park_min = std::max(park_min, std::max(m.first, m.second) + 1);
  int parked[kMaxRanks + 8];
  for (size_t i = 0; i < moves.size(); ++i) {
    parked[i] = ::fcntl(moves[i].first, F_DUPFD_CLOEXEC, park_min);
    if (parked[i] < 0) ::_exit(kChildSetupFailed);
  }
  for (size_t i = 0; i < moves.size(); ++i)
    if (::dup2(parked[i], moves[i].second) < 0) ::_exit(kChildSetupFailed);  // dup2 clears CLOEXEC on the target
  // Our own fds are all close-on-exec, but the launcher may have inherited open ones from whoever started it: a rank
  // keeps exactly 0-2, the status fd and its control sockets.
  close_all_but(moves);
  if (envp)
    ::execve(exe, argv, envp);
  else
    ::execv(exe, argv);
  if (!exec_fail_head.empty()) {
    char num[16];
    size_t n = format_uint(unsigned(errno), num);
    (void)!::write(kStatusFd, exec_fail_head.data(), exec_fail_head.size());
    (void)!::write(kStatusFd, num, n);
    (void)!::write(kStatusFd, exec_fail_tail.data(), exec_fail_tail.size());
  }
  ::_exit(kChildSetupFailed);
}

namespace {

std::string read_proc_line(pid_t pid, const char* what) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/" + what);
  std::string line;
  std::getline(f, line);
  return line;
}

// State letter from /proc/<pid>/stat: the field after the parenthesised command name.
std::string proc_state(pid_t pid) {
  std::string stat = read_proc_line(pid, "stat");
  size_t rp = stat.rfind(')');
  return rp == std::string::npos || rp + 2 >= stat.size() ? "?" : stat.substr(rp + 2, 1);
}

void push_tail(std::deque<std::string>* tail, std::string line) {
  tail->push_back(std::move(line));
  if (tail->size() > kTailLines) tail->pop_front();
}

void raise_fd_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &rl);
  }
}

class Supervisor {
 public:
  Supervisor(const LaunchPlan& plan, CaseResult* life) : plan_(plan), r_(life), starts_{life->start_ns} {}

  Status spawn();
  void supervise();
  // When case k started and ended, as the launcher saw it (the last record of case k - 1 arriving starts case k).
  int64_t case_start_ns(size_t k) const { return k < starts_.size() ? starts_[k] : r_->end_ns; }
  int64_t budget_ns(size_t k) const { return int64_t(plan_.cases[k].timeout_s * 1e9); }
  // The launcher's deadline for case k (reached): it moves on with every case all ranks complete.
  int64_t deadline_ns(size_t k) const { return starts_[k] + budget_ns(k); }

 private:
  void relay(Stream& s, std::string_view chunk, bool eof);
  // Decodes every complete record in a status stream; a bad one is kept as the rank's record_error.
  void take_records(Stream& s, bool eof);
  // Case `current_` is complete when every rank reported it and all PASSed or SKIPped: the next one starts.
  void advance_cases(int64_t now);
  // Writes what stdout/stderr take without blocking; with `block`, everything (once the ranks are gone).
  void flush_output(bool block);
  void reap();
  // When the first rank that ended abnormally was reaped (the after-death cut-off counts from there).
  std::optional<int64_t> first_death_ns() const;
  bool all_done() const;
  void finish_records();

  const LaunchPlan& plan_;
  CaseResult* r_;
  std::vector<Stream> streams_;
  pid_t pgid_ = 0;
  std::deque<std::pair<int, std::string>> pending_;  // (fd, text) for the launcher's stdout or stderr
  size_t dropped_lines_ = 0;
  size_t current_ = 0;                // the case the ranks are in
  std::vector<int64_t> starts_;       // start time of each case reached
  std::vector<RecordStream> events_;  // each rank's status stream, decoded
};

void Supervisor::take_records(Stream& s, bool eof) {
  RankOutcome& rank = r_->ranks[s.rank];
  RecordStream& events = events_[s.rank];
  constexpr size_t kMaxEvent = 1 << 20;  // a rank that writes without end must not take the launcher's memory
  size_t nl;
  while (rank.record_error.empty() && (nl = s.partial.find('\n')) != std::string::npos) {
    Status st = events.take_line(std::string_view(s.partial).substr(0, nl));
    s.partial.erase(0, nl + 1);
    if (!st.ok()) rank.record_error = st.detail;
  }
  if (rank.record_error.empty() && s.partial.size() > kMaxEvent)
    rank.record_error = "status stream: an event longer than " + std::to_string(kMaxEvent) + " bytes";
  if (eof && rank.record_error.empty() && !s.partial.empty())
    rank.record_error = "status stream truncated (an event without its newline)";
  if (eof && rank.record_error.empty() && !events.started()) rank.record_error = "status stream empty";
  if (!rank.record_error.empty() || eof) s.partial.clear();
  rank.records = events.records();
  rank.record = events.partial();
}

void Supervisor::advance_cases(int64_t now) {
  while (current_ + 1 < plan_.cases.size()) {
    for (const auto& rank : r_->ranks) {
      if (rank.records.size() <= current_) return;
      Verdict v = rank.records[current_].verdict;
      if (v != Verdict::Pass && v != Verdict::Skip) return;
    }
    ++current_;
    starts_.push_back(now);
  }
}

void Supervisor::flush_output(bool block) {
  std::fflush(stdout);
  std::fflush(stderr);
  while (!pending_.empty()) {
    auto& [fd, text] = pending_.front();
    if (!block) {
      pollfd p{fd, POLLOUT, 0};
      if (::poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT)) return;
    }
    ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {  // EPIPE, EIO: nobody is reading; nothing to wait for
      pending_.clear();
      return;
    }
    text.erase(0, size_t(n));
    if (text.empty()) pending_.pop_front();
  }
  if (dropped_lines_ && block) {
    std::string note = "[launcher] " + std::to_string(dropped_lines_) +
                       " lines of rank output were not relayed: " + "the output was blocked\n";
    (void)!::write(STDERR_FILENO, note.data(), note.size());
    dropped_lines_ = 0;
  }
}

Status Supervisor::spawn() {
  const int n = int(plan_.devices.size());
  raise_fd_limit();
  // ctl[i][j]: rank i's end of the socket to rank j.
  std::vector<std::vector<UniqueFd>> ctl(n);
  for (auto& row : ctl) row.resize(n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) VMR_TRY(make_socket_pair(&ctl[i][j], &ctl[j][i]));
  std::vector<RankPipes> pipes(n);
  for (auto& p : pipes) {
    VMR_TRY(make_pipe(&p.status_r, &p.status_w));
    VMR_TRY(make_pipe(&p.out_r, &p.out_w));
    VMR_TRY(make_pipe(&p.err_r, &p.err_w));
  }
  UniqueFd devnull(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!devnull.valid()) return Status::harness(errno_text("open /dev/null"));

  // Ranks give up a little before the launcher kills them, so the rank left waiting can say whom it waited for.
  const int64_t first_rank_deadline_ns = rank_deadline_ns(starts_[0], budget_ns(0));
  events_.assign(n, RecordStream{});
  std::string fail_text = event::header() + event::end(Verdict::Harness, "@@");
  size_t at = fail_text.find("@@");
  const std::string fail_head = fail_text.substr(0, at) + "exec " + plan_.exe + " failed: errno ";
  const std::string fail_tail = fail_text.substr(at + 2);

  // The ranks' environment, built before fork (the child may not allocate): the launcher's unless the cases change it.
  std::vector<std::string> env_text;
  std::vector<char*> envp;
  if (!plan_.environment.empty()) {
    env_text = changed_environment(environ, plan_.environment);
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
  }

  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  for (int i = 0; i < n; ++i) {
    // Everything the child needs is built before fork: it may not allocate afterwards.
    RankArgs a;
    a.rank = i;
    a.ranks = n;
    for (const auto& c : plan_.cases) {
      a.cases.push_back(c.name);
      a.timeouts_ms.push_back(std::llround(c.timeout_s * 1000));  // rounded: 0.0015 s is 2 ms, not 1
    }
    a.devices = plan_.devices;
    a.status_fd = kStatusFd;
    a.deadline_ns = first_rank_deadline_ns;
    std::vector<std::pair<int, int>> moves = {
        {devnull.get(), 0}, {pipes[i].out_w.get(), 1}, {pipes[i].err_w.get(), 2}, {pipes[i].status_w.get(), kStatusFd}};
    for (int j = 0; j < n; ++j) {
      a.ctl_fds.push_back(j == i ? -1 : kCtlFdBase + j);
      if (j != i) moves.emplace_back(ctl[i][j].get(), kCtlFdBase + j);
    }
    std::string flag = format_rank_flag(a);
    std::string exe = plan_.exe;
    char* argv[] = {exe.data(), flag.data(), nullptr};

    pid_t pid = ::fork();
    if (pid < 0) return Status::harness(errno_text("fork rank " + std::to_string(i)));
    if (pid == 0)
      exec_child(parent, pgid_, moves, plan_.exe.c_str(), argv, fail_head, fail_tail,
                 envp.empty() ? nullptr : envp.data());
    if (pgid_ == 0) pgid_ = pid;
    ::setpgid(pid, pgid_);  // also here, so the group exists before we might signal it
    r_->ranks[i].pid = pid;
  }
  for (int i = 0; i < n; ++i) {
    streams_.push_back({i, Stream::Out, std::move(pipes[i].out_r), {}});
    streams_.push_back({i, Stream::Err, std::move(pipes[i].err_r), {}});
    streams_.push_back({i, Stream::StatusRec, std::move(pipes[i].status_r), {}});
  }
  return Status::pass();  // the child ends of every pipe and socket close here, with `pipes` and `ctl`
}

void Supervisor::relay(Stream& s, std::string_view chunk, bool eof) {
  RankOutcome& rank = r_->ranks[s.rank];
  if (s.kind == Stream::StatusRec) {
    s.partial.append(chunk);
    take_records(s, eof);
    return;
  }
  auto emit = [&](std::string line) {
    if (s.cut) line += " [" + std::to_string(std::exchange(s.cut, 0)) + " more bytes of this line not kept]";
    if (plan_.relay_output) {
      if (pending_.size() < kMaxPending)
        pending_.emplace_back(s.kind == Stream::Out ? STDOUT_FILENO : STDERR_FILENO,
                              "[rank " + std::to_string(s.rank) + "] " + line + "\n");
      else
        ++dropped_lines_;
    }
    push_tail(s.kind == Stream::Out ? &rank.stdout_tail : &rank.stderr_tail, std::move(line));
  };
  // Appends chunk a line at a time, keeping at most kMaxLine bytes of each.
  while (!chunk.empty()) {
    const size_t nl = chunk.find('\n');
    std::string_view piece = chunk.substr(0, nl);
    const size_t room = kMaxLine - std::min(kMaxLine, s.partial.size());
    s.partial.append(piece.substr(0, room));
    s.cut += piece.size() - std::min(room, piece.size());
    if (nl == std::string_view::npos) break;
    emit(std::exchange(s.partial, {}));
    chunk.remove_prefix(nl + 1);
  }
  if (eof && (!s.partial.empty() || s.cut)) emit(std::exchange(s.partial, {}));
  flush_output(false);
}

void Supervisor::reap() {
  for (auto& rank : r_->ranks) {
    if (rank.reaped || rank.pid <= 0) continue;
    int st = 0;
    pid_t got = ::waitpid(rank.pid, &st, WNOHANG);
    if (got == rank.pid) {
      rank.reaped = true;
      rank.exit = classify_wait_status(st);
      rank.end_ns = monotonic_ns();
    } else if (got < 0 && errno != EINTR) {
      rank.reaped = true;  // not our child any more (ECHILD): nothing left to wait for
      rank.end_ns = monotonic_ns();
    }
  }
}

std::optional<int64_t> Supervisor::first_death_ns() const {
  std::optional<int64_t> first;
  for (const auto& rank : r_->ranks) {
    const bool abnormal = rank.reaped && (rank.exit.signaled || rank.exit.code != 0);
    if (abnormal && (!first || rank.end_ns < *first)) first = rank.end_ns;
  }
  return first;
}

bool Supervisor::all_done() const {
  for (const auto& rank : r_->ranks)
    if (!rank.reaped) return false;
  for (const auto& s : streams_)
    if (s.fd.valid()) return false;
  return true;
}

void Supervisor::supervise() {
  const KillTimings timings{int64_t(plan_.term_grace_s * 1e9), int64_t(plan_.kill_wait_s * 1e9),
                            int64_t(plan_.after_death_s * 1e9)};
  KillState stop;
  char buf[65536];
  for (;;) {
    reap();
    if (all_done()) break;
    const int64_t now = monotonic_ns();
    if (stop.follows_deadline()) advance_cases(now);
    // When to stop the ranks and how is next_kill_step's (kill_schedule.h); here is only doing what it orders.
    const int interrupt = plan_.interrupt ? int(*plan_.interrupt) : 0;
    const KillStep step = next_kill_step(&stop, {now, deadline_ns(current_), interrupt, first_death_ns()}, timings);
    if (step.term) {
      if (stop.reason == KilledBy::Deadline) r_->deadline_passed = true;
      if (stop.reason == KilledBy::Interrupt) r_->interrupted_by = interrupt;
      for (auto& rank : r_->ranks)
        if (!rank.reaped) rank.killed = stop.reason;
      ::kill(-pgid_, SIGTERM);
    }
    if (step.kill) ::kill(-pgid_, SIGKILL);
    if (step.give_up) {
      // Say where each rank that would not die is, and leave it.
      for (auto& rank : r_->ranks)
        if (!rank.reaped) rank.wchan = "state " + proc_state(rank.pid) + ", wchan " + read_proc_line(rank.pid, "wchan");
      break;
    }
    // waitpid has no fd to poll, so wake at least every 20 ms to reap.
    int timeout_ms = int(std::clamp<int64_t>((step.wake_ns - now + 999999) / 1000000, 0, 20));
    std::vector<pollfd> pfds;
    std::vector<Stream*> owners;
    for (auto& s : streams_)
      if (s.fd.valid()) {
        pfds.push_back({s.fd.get(), POLLIN, 0});
        owners.push_back(&s);
      }
    int got = ::poll(pfds.data(), pfds.size(), timeout_ms);
    if (got <= 0) continue;
    for (size_t k = 0; k < pfds.size(); ++k) {
      if (!pfds[k].revents) continue;
      ssize_t len = ::read(pfds[k].fd, buf, sizeof buf);
      if (len < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      bool eof = len <= 0;
      relay(*owners[k], std::string_view(buf, len > 0 ? size_t(len) : 0), eof);
      if (eof) owners[k]->fd.reset();
    }
  }
  for (auto& s : streams_) relay(s, {}, true);  // flush partial lines of ranks we gave up on
  flush_output(true);                           // the ranks are gone: now waiting for a slow reader costs no verdict
  finish_records();
}

void Supervisor::finish_records() {
  for (auto& s : streams_)
    if (s.kind == Stream::StatusRec) take_records(s, true);
  advance_cases(r_->end_ns ? r_->end_ns : monotonic_ns());
}

}  // namespace

std::vector<CaseResult> run_cases(const LaunchPlan& plan) {
  CaseResult life;
  life.start_ns = monotonic_ns();
  if (plan.cases.empty()) {
    life.end_ns = life.start_ns;
    life.detail = "the launch plan names no case";  // life.verdict is HARNESS
    return {life};
  }
  for (size_t i = 0; i < plan.devices.size(); ++i) {
    RankOutcome o;
    o.rank = int(i);
    o.device = plan.devices[i];
    life.ranks.push_back(o);
  }
  Supervisor sup(plan, &life);
  Status spawned = sup.spawn();
  // Ranks already started are still reaped (killed at once) when a later spawn failed.
  if (!spawned.ok()) {
    for (auto& rank : life.ranks) {
      if (rank.pid > 0)
        ::kill(rank.pid, SIGKILL);
      else
        rank.reaped = true;
    }
  }
  sup.supervise();
  life.end_ns = monotonic_ns();
  if (!spawned.ok()) {
    life.case_name = plan.cases[0].name;
    life.verdict = Verdict::Harness;
    life.detail = "spawning ranks failed: " + spawned.detail;
    return {life};
  }

  // Case k is complete when every rank reported it, all PASS or SKIP, and the life went on: its ranks "exited" as
  // their records say. The first case that is not is the life's last: there the real exits, kills and deadline
  // decide, as for a life of one case.
  std::vector<CaseResult> out;
  for (size_t k = 0; k < plan.cases.size(); ++k) {
    bool went_on = k + 1 < plan.cases.size();
    for (const auto& rank : life.ranks)
      went_on = went_on && rank.records.size() > k &&
                (rank.records[k].verdict == Verdict::Pass || rank.records[k].verdict == Verdict::Skip);
    CaseResult c;
    c.case_name = plan.cases[k].name;
    c.start_ns = sup.case_start_ns(k);
    c.end_ns = went_on ? sup.case_start_ns(k + 1) : life.end_ns;
    for (const auto& lived : life.ranks) {
      RankOutcome r = lived;
      r.records.clear();
      r.has_record = lived.records.size() > k;
      if (r.has_record) r.record = lived.records[k];  // else the partial record of the case the life ended in
      if (went_on) {  // the process went on: no exit, kill or wait state belongs to this case
        r.went_on = true;
        r.reaped = false;
        r.exit = ExitInfo{};
        r.killed = KilledBy::None;
        r.wchan.clear();
        r.end_ns = c.end_ns;
      }
      c.ranks.push_back(std::move(r));
    }
    if (!went_on) {
      c.deadline_passed = life.deadline_passed;
      c.interrupted_by = life.interrupted_by;
    }
    decide_verdict(&c, plan.cases[k].timeout_s);
    out.push_back(std::move(c));
    if (!went_on) break;
  }
  return out;
}

}  // namespace vmr

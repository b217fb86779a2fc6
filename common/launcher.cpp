#include "launcher.h"

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
#include <cstdio>
#include <cstring>
#include <fstream>

#include "channel.h"
#include "deadline.h"
#include "options.h"
#include "scope_guard.h"
#include "text.h"

namespace vmr {

namespace {

// Fixed fd numbers inside a rank, so that a rank's command line reads the same on every run.
constexpr int kStatusFd = 3;
constexpr int kCtlFdBase = 10;
constexpr int kParkFdMin = 256;  // where the child parks fds before moving them down to their fixed numbers
// A child that cannot become a rank exits with the harness-error code (with a record when exec itself failed).
constexpr int kChildSetupFailed = 99;

struct RankPipes {
  UniqueFd status_r, status_w, out_r, out_w, err_r, err_w;
};

struct Stream {
  int rank;
  enum Kind { Out, Err, StatusRec } kind;
  UniqueFd fd;
  std::string partial;  // text after the last newline, or the record bytes so far
};

Status make_pipe(UniqueFd* r, UniqueFd* w) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return Status::harness(errno_text("pipe2"));
  r->reset(p[0]);
  w->reset(p[1]);
  return Status::pass();
}

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

// Between fork and exec: async-signal-safe calls only, and never return into the launcher's code.
[[noreturn]] void exec_rank(pid_t parent, pid_t pgid, const std::vector<std::pair<int, int>>& moves,
                            const char* exe, char* const* argv, const std::string& exec_fail_head,
                            const std::string& exec_fail_tail) {
  ::setpgid(0, pgid);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kChildSetupFailed);  // the launcher died before PDEATHSIG was armed
  struct sigaction dfl{};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGPIPE, &dfl, nullptr);  // the launcher ignores SIGPIPE; a rank must not inherit that
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  int parked[kMaxRanks + 8];
  for (size_t i = 0; i < moves.size(); ++i) {
    parked[i] = ::fcntl(moves[i].first, F_DUPFD_CLOEXEC, kParkFdMin);
    if (parked[i] < 0) ::_exit(kChildSetupFailed);
  }
  for (size_t i = 0; i < moves.size(); ++i)
    if (::dup2(parked[i], moves[i].second) < 0) ::_exit(kChildSetupFailed);  // dup2 clears CLOEXEC on the target
  // Our own fds are all close-on-exec, but the launcher may have inherited open ones from whoever started it: a rank
  // keeps exactly 0-2, the status fd and its control sockets.
  close_all_but(moves);
  ::execv(exe, argv);
  char num[16];
  size_t n = format_uint(unsigned(errno), num);
  (void)!::write(kStatusFd, exec_fail_head.data(), exec_fail_head.size());
  (void)!::write(kStatusFd, num, n);
  (void)!::write(kStatusFd, exec_fail_tail.data(), exec_fail_tail.size());
  ::_exit(kChildSetupFailed);
}

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
  Supervisor(const LaunchPlan& plan, CaseResult* result) : plan_(plan), r_(result) {}

  Status spawn();
  void supervise();

 private:
  void relay(Stream& s, std::string_view chunk, bool eof);
  void reap();
  void on_deadline(int64_t now);
  bool all_done() const;
  void finish_records();

  const LaunchPlan& plan_;
  CaseResult* r_;
  std::vector<Stream> streams_;
  pid_t pgid_ = 0;
};

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
  const int64_t deadline_ns = r_->start_ns + int64_t(plan_.timeout_s * 1e9);
  const int64_t rank_deadline_ns = deadline_ns - std::min<int64_t>(250000000, int64_t(plan_.timeout_s * 1e8));
  RankRecord fail_record;
  fail_record.verdict = Verdict::Harness;
  fail_record.detail = "@@";
  std::string fail_text = encode_record(fail_record);
  size_t at = fail_text.find("@@");
  const std::string fail_head = fail_text.substr(0, at) + "exec " + plan_.exe + " failed: errno ";
  const std::string fail_tail = fail_text.substr(at + 2);

  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  for (int i = 0; i < n; ++i) {
    // Everything the child needs is built before fork: it may not allocate afterwards.
    RankArgs a;
    a.rank = i;
    a.ranks = n;
    a.case_name = plan_.case_name;
    a.device = plan_.devices[i];
    a.status_fd = kStatusFd;
    a.deadline_ns = rank_deadline_ns;
    std::vector<std::pair<int, int>> moves = {{devnull.get(), 0},
                                              {pipes[i].out_w.get(), 1},
                                              {pipes[i].err_w.get(), 2},
                                              {pipes[i].status_w.get(), kStatusFd}};
    for (int j = 0; j < n; ++j) {
      a.ctl_fds.push_back(j == i ? -1 : kCtlFdBase + j);
      if (j != i) moves.emplace_back(ctl[i][j].get(), kCtlFdBase + j);
    }
    std::string flag = format_rank_flag(a);
    std::string exe = plan_.exe;
    char* argv[] = {exe.data(), flag.data(), nullptr};

    pid_t pid = ::fork();
    if (pid < 0) return Status::harness(errno_text("fork rank " + std::to_string(i)));
    if (pid == 0) exec_rank(parent, pgid_, moves, plan_.exe.c_str(), argv, fail_head, fail_tail);
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
    return;
  }
  s.partial.append(chunk);
  size_t start = 0, nl;
  auto emit = [&](std::string line) {
    if (plan_.relay_output) {
      std::FILE* to = s.kind == Stream::Out ? stdout : stderr;
      std::fprintf(to, "[rank %d] %s\n", s.rank, line.c_str());
      std::fflush(to);
    }
    push_tail(s.kind == Stream::Out ? &rank.stdout_tail : &rank.stderr_tail, std::move(line));
  };
  while ((nl = s.partial.find('\n', start)) != std::string::npos) {
    emit(s.partial.substr(start, nl - start));
    start = nl + 1;
  }
  s.partial.erase(0, start);
  if (eof && !s.partial.empty()) emit(std::exchange(s.partial, {}));
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

bool Supervisor::all_done() const {
  for (const auto& rank : r_->ranks)
    if (!rank.reaped) return false;
  for (const auto& s : streams_)
    if (s.fd.valid()) return false;
  return true;
}

void Supervisor::supervise() {
  const int64_t deadline_ns = r_->start_ns + int64_t(plan_.timeout_s * 1e9);
  int64_t stop_ns = deadline_ns;  // when the ranks still running get SIGTERM
  KilledBy reason = KilledBy::Deadline;
  int64_t term_ns = 0, kill_ns = 0;
  char buf[65536];
  for (;;) {
    reap();
    if (all_done()) break;
    int64_t now = monotonic_ns();
    // One rank died abnormally: the others get a short while to report, then they go too.
    if (!term_ns && stop_ns > now) {
      for (const auto& rank : r_->ranks) {
        bool abnormal = rank.reaped && (rank.exit.signaled || rank.exit.code != 0);
        if (abnormal && rank.end_ns + int64_t(plan_.after_death_s * 1e9) < stop_ns) {
          stop_ns = rank.end_ns + int64_t(plan_.after_death_s * 1e9);
          reason = KilledBy::AfterDeath;
        }
      }
    }
    if (!term_ns && now >= stop_ns) {
      term_ns = now;
      if (reason == KilledBy::Deadline) r_->deadline_passed = true;
      for (auto& rank : r_->ranks)
        if (!rank.reaped) rank.killed = reason;
      ::kill(-pgid_, SIGTERM);
    }
    if (term_ns && !kill_ns && now >= term_ns + int64_t(plan_.term_grace_s * 1e9)) {
      kill_ns = now;
      ::kill(-pgid_, SIGKILL);
    }
    if (kill_ns && now >= kill_ns + int64_t(plan_.kill_wait_s * 1e9)) {
      // A rank stuck in the driver (D state) ignores SIGKILL: say where it is and leave it.
      for (auto& rank : r_->ranks)
        if (!rank.reaped)
          rank.wchan = "state " + proc_state(rank.pid) + ", wchan " + read_proc_line(rank.pid, "wchan");
      break;
    }
    int64_t next_ns = kill_ns ? kill_ns + int64_t(plan_.kill_wait_s * 1e9)
                      : term_ns ? term_ns + int64_t(plan_.term_grace_s * 1e9)
                                : stop_ns;
    // waitpid has no fd to poll, so wake at least every 20 ms to reap.
    int timeout_ms = int(std::clamp<int64_t>((next_ns - now + 999999) / 1000000, 0, 20));
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
  finish_records();
}

void Supervisor::finish_records() {
  for (auto& s : streams_) {
    if (s.kind != Stream::StatusRec || s.partial.empty()) continue;
    RankOutcome& rank = r_->ranks[s.rank];
    Status st = decode_record(s.partial, &rank.record);
    rank.has_record = st.ok();
    if (!st.ok()) rank.record_error = st.detail;
  }
}

std::string quote_tail(const std::deque<std::string>& tail, size_t lines) {
  std::vector<std::string> last;
  for (size_t i = tail.size() > lines ? tail.size() - lines : 0; i < tail.size(); ++i)
    if (!tail[i].empty()) last.push_back(tail[i]);
  if (last.empty()) return "";
  std::string out = "; last stderr: \"";
  for (size_t i = 0; i < last.size(); ++i) out += (i ? " | " : "") + last[i];
  return out + "\"";
}

std::string rank_name(const RankOutcome& rank) {
  return "rank " + std::to_string(rank.rank) + " (pid " + std::to_string(rank.pid) + ")";
}

int severity(Verdict v) {
  switch (v) {
    case Verdict::Hang: return 5;
    case Verdict::Harness: return 4;
    case Verdict::Fail: return 3;
    case Verdict::Skip: return 2;
    default: return 1;
  }
}

}  // namespace

double CaseResult::spawn_s() const {
  int64_t last = 0;
  for (const auto& rank : ranks) {
    if (!rank.has_record || rank.record.ready_ns == 0) return -1;
    last = std::max(last, rank.record.ready_ns);
  }
  return ranks.empty() ? -1 : double(last - start_ns) / 1e9;
}

void decide_verdict(CaseResult* r, double timeout_s) {
  std::vector<const RankOutcome*> by_end;
  for (const auto& rank : r->ranks) by_end.push_back(&rank);
  std::stable_sort(by_end.begin(), by_end.end(), [](auto* a, auto* b) {
    return (a->reaped ? a->end_ns : INT64_MAX) < (b->reaped ? b->end_ns : INT64_MAX);
  });
  auto set = [&](Verdict v, std::string d) {
    r->verdict = v;
    r->detail = std::move(d);
  };

  // 1. A rank died by a signal the launcher did not send: the root cause, whatever followed.
  for (const RankOutcome* rank : by_end)
    if (rank->reaped && rank->exit.signaled && rank->killed == KilledBy::None)
      return set(Verdict::Crash, rank_name(*rank) + " " + describe(rank->exit) + quote_tail(rank->stderr_tail, 3));

  // 2. The deadline passed with ranks still running.
  if (r->deadline_passed) {
    std::vector<std::string> stuck;
    for (const auto& rank : r->ranks) {
      if (rank.killed != KilledBy::Deadline) continue;
      std::string s = rank_name(rank);
      if (!rank.reaped) s += " did not die (" + rank.wchan + ")";
      else s += " " + describe(rank.exit);
      stuck.push_back(s);
    }
    for (const auto& rank : r->ranks)
      if (rank.has_record && rank.record.verdict == Verdict::Hang)
        stuck.push_back("rank " + std::to_string(rank.rank) + " reported: " + rank.record.detail);
    return set(Verdict::Hang, "deadline of " + format_double(timeout_s) + " s passed; " + join(stuck, "; "));
  }

  // 3. A rank ended without a readable record.
  for (const RankOutcome* rank : by_end) {
    if (rank->has_record) continue;
    if (rank->killed == KilledBy::AfterDeath) continue;  // reported through the rank that died first
    if (!rank->record_error.empty() || (!rank->exit.signaled && rank->exit.code == exit_code(Verdict::Harness)))
      return set(Verdict::Harness, rank_name(*rank) + " " + describe(rank->exit) + ": " +
                                         (rank->record_error.empty() ? "no status record" : rank->record_error) +
                                         quote_tail(rank->stderr_tail, 3));
    return set(Verdict::Fail, rank_name(*rank) + " left mid-protocol: " + describe(rank->exit) +
                                  " without a status record" + quote_tail(rank->stderr_tail, 3));
  }

  // 4. The ranks that reported (the rest were killed after one of these ended abnormally): the exit code must
  //    agree with the record, then the most severe record wins.
  //    Among equals the rank that ended first wins: the others usually failed because it left.
  const RankOutcome* worst = nullptr;
  for (const RankOutcome* rank : by_end) {
    if (!rank->has_record) continue;
    if (rank->exit.signaled || rank->exit.code != exit_code(rank->record.verdict))
      return set(Verdict::Harness, rank_name(*rank) + " " + describe(rank->exit) + " but reported " +
                                       verdict_name(rank->record.verdict));
    if (!worst || severity(rank->record.verdict) > severity(worst->record.verdict)) worst = rank;
  }
  if (!worst) return set(Verdict::Harness, "no rank reported");
  std::vector<std::string> killed;
  for (const auto& rank : r->ranks)
    if (!rank.has_record) killed.push_back(std::to_string(rank.rank));
  std::string after = killed.empty() ? "" : " (then killed rank " + join(killed, ", ") + ", still running)";
  if (worst->record.verdict == Verdict::Pass) {
    if (!killed.empty()) return set(Verdict::Harness, "ranks passed but rank " + join(killed, ", ") + " was killed");
    std::string detail;
    for (const auto& rank : r->ranks)
      if (detail.empty()) detail = rank.record.detail;
    return set(Verdict::Pass, detail);
  }
  // Ranks that agreed (RankContext::agree) already name the rank the answer came from.
  bool agreed = std::all_of(r->ranks.begin(), r->ranks.end(), [&](const RankOutcome& x) {
    return x.has_record && x.record.verdict == worst->record.verdict && x.record.detail == worst->record.detail;
  });
  std::string who = agreed && r->ranks.size() > 1 ? "" : "rank " + std::to_string(worst->rank) + ": ";
  set(worst->record.verdict, who + worst->record.detail + after);
}

CaseResult run_case(const LaunchPlan& plan) {
  CaseResult result;
  result.case_name = plan.case_name;
  result.start_ns = monotonic_ns();
  for (size_t i = 0; i < plan.devices.size(); ++i) {
    RankOutcome o;
    o.rank = int(i);
    o.device = plan.devices[i];
    result.ranks.push_back(o);
  }
  Supervisor sup(plan, &result);
  Status spawned = sup.spawn();
  // Ranks already started are still reaped (killed at once) when a later spawn failed.
  if (!spawned.ok()) {
    for (auto& rank : result.ranks) {
      if (rank.pid > 0) ::kill(rank.pid, SIGKILL);
      else rank.reaped = true;
    }
  }
  sup.supervise();
  result.end_ns = monotonic_ns();
  if (!spawned.ok()) {
    result.verdict = Verdict::Harness;
    result.detail = "spawning ranks failed: " + spawned.detail;
  } else {
    decide_verdict(&result, plan.timeout_s);
  }
  return result;
}

}  // namespace vmr

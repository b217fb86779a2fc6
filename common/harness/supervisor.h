// The launcher: spawns one process per rank by fork + exec of /proc/self/exe, relays their output, owns the
// deadline, reaps every rank and turns what happened into one verdict. It never touches a GPU runtime.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "harness/case_environment.h"
#include "harness/kill_schedule.h"
#include "harness/rank_record.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/wait_status.h"

namespace vmr {

// One case of a rank life and its deadline, from its start, in seconds.
struct PlannedCase {
  std::string name;
  double timeout_s = 60;
};

struct LaunchPlan {
  std::string exe = "/proc/self/exe";
  std::vector<PlannedCase> cases;  // what one set of ranks runs in turn; at least one
  std::vector<int> devices;        // one per rank; its size is the rank count
  // The ranks' environment: the launcher's with these changes (empty: the launcher's as it is). The cases of one life
  // share it (case_environment.h).
  std::vector<EnvChange> environment;
  double term_grace_s = 1.0;   // SIGTERM, then SIGKILL after this long
  double kill_wait_s = 2.0;    // after SIGKILL, how long to wait for a rank stuck in the kernel
  double after_death_s = 3.0;  // once a rank dies abnormally, the others get this long to report
  bool relay_output = true;    // echo rank output live, prefixed "[rank N] "
  // Set (to the signal's number) by the launcher's SIGINT/SIGTERM/SIGHUP handler: the ranks are stopped at once.
  const volatile sig_atomic_t* interrupt = nullptr;
};

struct RankOutcome {
  int rank = 0;
  int device = 0;
  pid_t pid = -1;
  bool reaped = false;
  ExitInfo exit;
  int64_t end_ns = 0;  // when it was reaped
  KilledBy killed = KilledBy::None;
  // The rank did not end after this case: its verdict was PASS or SKIP and it went on to the next case of its life
  // (then `exit` and `reaped` say nothing about this case: the process had not ended).
  bool went_on = false;
  bool has_record = false;  // the case's verdict arrived
  // This case's record: complete when has_record, else what the rank delivered of it before it ended (its facts,
  // phases and metrics: the expected table's conditions still see the release a crashed rank ran on).
  RankRecord record;
  std::vector<RankRecord> records;  // while running: every complete record of the rank life, in case order
  std::string record_error;         // why the status stream could not be read, when it could not
  std::deque<std::string> stdout_tail, stderr_tail;
  std::string wchan;  // for a rank that would not die: /proc/<pid>/wchan and its state
};

struct CaseResult {
  std::string case_name;
  Verdict verdict = Verdict::Harness;
  std::string detail;
  int64_t start_ns = 0, end_ns = 0;
  bool deadline_passed = false;
  int interrupted_by = 0;  // the signal that interrupted the launcher, 0 when none
  std::vector<RankOutcome> ranks;
  // The runtime variables its ranks had (env_block.h runtime_variables) where the case's own environment changed the
  // launcher's (case_environment.h): the record's environment.variables are the launcher's, so a case that removes
  // HSA_ENABLE_IPC_MODE_LEGACY must not read as run with the value the user's shell exports. Empty: the launcher's.
  std::vector<std::pair<std::string, std::string>> variables;

  double wall_s() const { return double(end_ns - start_ns) / 1e9; }
  // From the launch to the moment the last rank passed the start barrier; -1 when some rank never did.
  double spawn_s() const;
};

// One rank life: the plan's cases in turn in the same ranks (one GPU runtime start per rank for all of them). Returns
// a result for each case the life reached: every case up to and including the first that did not PASS or SKIP (or
// that a rank died or hung in); the caller runs the rest in fresh ranks.
// A plan with no case is the suite's own error: one HARNESS result.
std::vector<CaseResult> run_cases(const LaunchPlan& plan);

// A pipe, both ends close-on-exec.
Status make_pipe(UniqueFd* r, UniqueFd* w);

// The child side of every process the launcher starts (a rank, the device probe), between fork and exec: in process
// group pgid (0: its own), killed with the launcher (PDEATHSIG), default signal dispositions, and exactly the fds
// of `moves` (from -> to) open, then exec with `envp` (null: the launcher's environment). Async-signal-safe; never
// returns. Where exec fails, exec_fail_head,
// errno and exec_fail_tail go to fd 3 (a rank's status fd; nothing when the head is empty), and the exit code is 99.
[[noreturn]] void exec_child(pid_t parent, pid_t pgid, const std::vector<std::pair<int, int>>& moves, const char* exe,
                             char* const* argv, const std::string& exec_fail_head, const std::string& exec_fail_tail,
                             char* const* envp = nullptr);

// Decides result->verdict and ->detail from the rank outcomes (pure; unit-tested).
void decide_verdict(CaseResult* result, double timeout_s);

constexpr size_t kTailLines = 20;

}  // namespace vmr

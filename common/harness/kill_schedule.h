// How the supervisor stops its ranks, as a plain function of times: SIGTERM to the rank group at the stop time, SIGKILL
// term_grace later, and kill_wait after that it gives up on ranks stuck in the kernel. The stop time is the current
// case's deadline, or earlier: after_death after a rank ended abnormally, or at once when the launcher is interrupted.
// The supervisor feeds it what it sees at each wake-up and does what it says; it is unit-tested without processes.
// Header-only: a few lines, and no source list to change for it.
#pragma once

#include <cstdint>
#include <optional>

namespace vmr {

// Why the supervisor stopped a rank (None: it ended by itself).
enum class KilledBy { None, Deadline, AfterDeath, Interrupt };

// The waits of the schedule (the LaunchPlan's term_grace_s, kill_wait_s and after_death_s).
struct KillTimings {
  int64_t term_grace_ns = 0;   // SIGTERM, then SIGKILL after this long
  int64_t kill_wait_ns = 0;    // after SIGKILL, how long to wait for a rank stuck in the kernel
  int64_t after_death_ns = 0;  // once a rank dies abnormally, the others get this long to report
};

// What has been decided and done so far; next_kill_step() moves it on.
struct KillState {
  KilledBy reason = KilledBy::Deadline;     // why SIGTERM goes (or will go) at stop_ns
  int64_t stop_ns = 0;                      // when the ranks still running get SIGTERM
  std::optional<int64_t> term_ns, kill_ns;  // when SIGTERM and SIGKILL went

  // The stop time is still the current case's deadline: while it is, the supervisor moves the cases on (each case
  // that all ranks completed moves the deadline); an abnormal death, an interrupt or a SIGTERM ends that.
  bool follows_deadline() const { return reason == KilledBy::Deadline && !term_ns; }
};

// What the supervisor sees at one wake-up.
struct KillInputs {
  int64_t now_ns = 0;
  int64_t deadline_ns = 0;  // the current case's deadline; read only while follows_deadline()
  int interrupt = 0;        // the signal that interrupted the launcher; 0: none
  // When the first rank that ended abnormally (a signal, a non-zero exit) was reaped; none while no rank has.
  std::optional<int64_t> first_death_ns;
};

// What to do now, in this order; then wait until wake_ns at the latest (the next step that falls due by time alone).
struct KillStep {
  bool term = false;     // SIGTERM to the rank group, for state->reason
  bool kill = false;     // SIGKILL to the rank group
  bool give_up = false;  // stop waiting: the ranks still there ignore SIGKILL
  int64_t wake_ns = 0;
};

namespace kill_schedule_detail {

// Before SIGTERM: the stop time follows the case's deadline until the launcher is interrupted (stop now, whatever
// the ranks are doing) or a rank dies abnormally (the others get after_death to report, then they go too).
inline void choose_stop(KillState* s, const KillInputs& in, const KillTimings& t) {
  if (s->reason == KilledBy::Deadline) s->stop_ns = in.deadline_ns;
  if (in.interrupt && s->reason != KilledBy::Interrupt) {
    s->stop_ns = in.now_ns;
    s->reason = KilledBy::Interrupt;
  }
  // A stop time already reached stays: a deadline that passed remains the reason even when a death came first.
  if (s->reason == KilledBy::Interrupt || s->stop_ns <= in.now_ns || !in.first_death_ns) return;
  const int64_t cut_ns = *in.first_death_ns + t.after_death_ns;
  if (cut_ns < s->stop_ns) {
    s->stop_ns = cut_ns;
    s->reason = KilledBy::AfterDeath;
  }
}

}  // namespace kill_schedule_detail

// Each of SIGTERM and SIGKILL is ordered once; several steps fall due in one call when the waits between them are 0.
inline KillStep next_kill_step(KillState* s, const KillInputs& in, const KillTimings& t) {
  KillStep step;
  if (!s->term_ns) kill_schedule_detail::choose_stop(s, in, t);
  if (!s->term_ns && in.now_ns >= s->stop_ns) {
    s->term_ns = in.now_ns;
    step.term = true;
  }
  if (s->term_ns && !s->kill_ns && in.now_ns >= *s->term_ns + t.term_grace_ns) {
    s->kill_ns = in.now_ns;
    step.kill = true;
  }
  // A rank stuck in the driver (D state) ignores SIGKILL: waiting longer would only hold up the verdict.
  step.give_up = s->kill_ns && in.now_ns >= *s->kill_ns + t.kill_wait_ns;
  step.wake_ns = s->kill_ns ? *s->kill_ns + t.kill_wait_ns : s->term_ns ? *s->term_ns + t.term_grace_ns : s->stop_ns;
  return step;
}

}  // namespace vmr

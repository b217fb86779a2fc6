// The kill schedule (common/harness/kill_schedule.cpp): when the supervisor sends SIGTERM, SIGKILL and gives up, and
// why, as a function of times alone. The supervisor tests (test_supervisor.cpp) run the same rules on real processes.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdint>

#include "harness/kill_schedule.h"

using namespace vmr;

namespace {

constexpr int64_t kS = 1000000000, kMs = 1000000;
// The LaunchPlan's defaults: 1 s of SIGTERM grace, 2 s of waiting after SIGKILL, 3 s for the others after a death.
constexpr KillTimings kTimings{1 * kS, 2 * kS, 3 * kS};
constexpr int64_t kDeadline = 100 * kS;

KillInputs at(int64_t now_ns, int64_t deadline_ns = kDeadline) {
  KillInputs in;
  in.now_ns = now_ns;
  in.deadline_ns = deadline_ns;
  return in;
}

KillInputs interrupted(int64_t now_ns) {
  KillInputs in = at(now_ns);
  in.interrupt = SIGINT;
  return in;
}

KillInputs after_death(int64_t now_ns, int64_t death_ns, int64_t deadline_ns = kDeadline) {
  KillInputs in = at(now_ns, deadline_ns);
  in.first_death_ns = death_ns;
  return in;
}

bool nothing_due(const KillStep& s) { return !s.term && !s.kill && !s.give_up; }

}  // namespace

TEST(KillSchedule, WaitsForTheDeadline) {
  KillState state;
  KillStep step = next_kill_step(&state, at(50 * kS), kTimings);
  EXPECT_TRUE(nothing_due(step));
  EXPECT_EQ(step.wake_ns, kDeadline);
  EXPECT_EQ(state.reason, KilledBy::Deadline);
  EXPECT_TRUE(state.follows_deadline());
}

// Each case that all ranks completed moves the deadline on (the next case's start + its budget).
TEST(KillSchedule, StopFollowsTheMovingDeadline) {
  KillState state;
  EXPECT_EQ(next_kill_step(&state, at(50 * kS, 100 * kS), kTimings).wake_ns, 100 * kS);
  KillStep step = next_kill_step(&state, at(60 * kS, 150 * kS), kTimings);
  EXPECT_EQ(step.wake_ns, 150 * kS);
  EXPECT_TRUE(nothing_due(next_kill_step(&state, at(120 * kS, 150 * kS), kTimings)));
  EXPECT_TRUE(next_kill_step(&state, at(150 * kS, 150 * kS), kTimings).term);
}

// SIGTERM at the deadline, SIGKILL term_grace later, give up kill_wait after that; nothing twice, nothing between.
TEST(KillSchedule, SigtermThenSigkillThenGiveUp) {
  KillState state;
  KillStep step = next_kill_step(&state, at(kDeadline), kTimings);
  EXPECT_TRUE(step.term);
  EXPECT_FALSE(step.kill);
  EXPECT_FALSE(step.give_up);
  EXPECT_EQ(state.reason, KilledBy::Deadline);
  EXPECT_FALSE(state.follows_deadline());
  EXPECT_EQ(step.wake_ns, kDeadline + 1 * kS);

  step = next_kill_step(&state, at(kDeadline + 500 * kMs), kTimings);
  EXPECT_TRUE(nothing_due(step));
  EXPECT_EQ(step.wake_ns, kDeadline + 1 * kS);

  step = next_kill_step(&state, at(kDeadline + 1 * kS), kTimings);
  EXPECT_FALSE(step.term);
  EXPECT_TRUE(step.kill);
  EXPECT_FALSE(step.give_up);
  EXPECT_EQ(step.wake_ns, kDeadline + 3 * kS);

  step = next_kill_step(&state, at(kDeadline + 2 * kS), kTimings);
  EXPECT_TRUE(nothing_due(step));
  EXPECT_EQ(step.wake_ns, kDeadline + 3 * kS);

  step = next_kill_step(&state, at(kDeadline + 3 * kS), kTimings);
  EXPECT_FALSE(step.term);
  EXPECT_FALSE(step.kill);
  EXPECT_TRUE(step.give_up);
}

// A wake-up that comes late (a busy node) does what fell due, counting the next wait from when it did it.
TEST(KillSchedule, LateWakeUpCountsTheGraceFromTheSigterm) {
  KillState state;
  KillStep step = next_kill_step(&state, at(kDeadline + 700 * kMs), kTimings);
  EXPECT_TRUE(step.term);
  EXPECT_EQ(*state.term_ns, kDeadline + 700 * kMs);
  EXPECT_EQ(step.wake_ns, kDeadline + 1700 * kMs);
  EXPECT_TRUE(nothing_due(next_kill_step(&state, at(kDeadline + 1600 * kMs), kTimings)));
  EXPECT_TRUE(next_kill_step(&state, at(kDeadline + 1700 * kMs), kTimings).kill);
}

// With no waits, one wake-up does all three.
TEST(KillSchedule, ZeroWaitsDoEverythingInOneStep) {
  KillState state;
  KillStep step = next_kill_step(&state, at(kDeadline), KillTimings{0, 0, 3 * kS});
  EXPECT_TRUE(step.term);
  EXPECT_TRUE(step.kill);
  EXPECT_TRUE(step.give_up);
}

TEST(KillSchedule, InterruptStopsAtOnce) {
  KillState state;
  KillStep step = next_kill_step(&state, interrupted(50 * kS), kTimings);
  EXPECT_TRUE(step.term);
  EXPECT_EQ(state.reason, KilledBy::Interrupt);
  EXPECT_EQ(step.wake_ns, 51 * kS);
}

// Once SIGTERM went for the deadline, an interrupt changes neither the reason nor the schedule.
TEST(KillSchedule, InterruptAfterSigtermChangesNothing) {
  KillState state;
  ASSERT_TRUE(next_kill_step(&state, at(kDeadline), kTimings).term);
  KillStep step = next_kill_step(&state, interrupted(kDeadline + 500 * kMs), kTimings);
  EXPECT_TRUE(nothing_due(step));
  EXPECT_EQ(state.reason, KilledBy::Deadline);
  EXPECT_EQ(step.wake_ns, kDeadline + 1 * kS);
}

// A rank died abnormally at 40 s: the others get after_death (3 s), then SIGTERM, whatever the deadline does.
TEST(KillSchedule, AbnormalDeathCutsOffTheOthers) {
  KillState state;
  KillStep step = next_kill_step(&state, after_death(41 * kS, 40 * kS), kTimings);
  EXPECT_TRUE(nothing_due(step));
  EXPECT_EQ(state.reason, KilledBy::AfterDeath);
  EXPECT_EQ(step.wake_ns, 43 * kS);
  EXPECT_FALSE(state.follows_deadline());
  // The deadline no longer counts (the supervisor stops moving the cases on): the cut-off stays, whether a deadline
  // given now would come later or earlier.
  EXPECT_EQ(next_kill_step(&state, after_death(42 * kS, 40 * kS, 200 * kS), kTimings).wake_ns, 43 * kS);
  EXPECT_EQ(next_kill_step(&state, after_death(42 * kS, 40 * kS, 42500 * kMs), kTimings).wake_ns, 43 * kS);
  step = next_kill_step(&state, after_death(43 * kS, 40 * kS, 200 * kS), kTimings);
  EXPECT_TRUE(step.term);
  EXPECT_EQ(state.reason, KilledBy::AfterDeath);
}

// The cut-off only ever brings the stop forward: a death whose cut-off is not before the deadline leaves the deadline.
TEST(KillSchedule, DeathNearTheDeadlineLeavesTheDeadline) {
  for (int64_t death : {kDeadline - 3 * kS, kDeadline - 2 * kS}) {  // cut-off at, then after, the deadline
    KillState state;
    KillStep step = next_kill_step(&state, after_death(death + kMs, death), kTimings);
    EXPECT_TRUE(nothing_due(step));
    EXPECT_EQ(state.reason, KilledBy::Deadline) << death;
    EXPECT_EQ(step.wake_ns, kDeadline) << death;
  }
}

// The first look after the deadline passed (a late wake-up) finds a death whose cut-off was earlier still: the
// deadline passed stays the reason (the case reads as a HANG, deadline_passed), not an after-death cut-off.
TEST(KillSchedule, PassedDeadlineStaysTheReason) {
  KillState state;
  KillStep step = next_kill_step(&state, after_death(kDeadline + 5 * kS, 90 * kS), kTimings);
  EXPECT_TRUE(step.term);
  EXPECT_EQ(state.reason, KilledBy::Deadline);
}

// An interrupt while an after-death cut-off is pending stops the ranks at once, for the interrupt.
TEST(KillSchedule, InterruptOverridesAPendingCutOff) {
  KillState state;
  ASSERT_TRUE(nothing_due(next_kill_step(&state, after_death(41 * kS, 40 * kS), kTimings)));
  KillInputs in = after_death(42 * kS, 40 * kS);
  in.interrupt = SIGTERM;
  KillStep step = next_kill_step(&state, in, kTimings);
  EXPECT_TRUE(step.term);
  EXPECT_EQ(state.reason, KilledBy::Interrupt);
}

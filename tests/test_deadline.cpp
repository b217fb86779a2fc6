// The rank deadline rule (common/harness/deadline.cpp): the launcher sets the first case's rank deadline and each
// rank its later cases', from this one rule, so its edges are pinned here.
#include <gtest/gtest.h>

#include <cstdint>

#include "harness/deadline.h"

using namespace vmr;

namespace {
constexpr int64_t kMs = 1000000, kS = 1000000000;
}  // namespace

// Below 10 ns, 10% rounds down to nothing: the ranks and the launcher share the deadline rather than the ranks
// outliving it.
TEST(RankMargin, TinyBudgetsRoundDown) {
  EXPECT_EQ(rank_margin_ns(0), 0);
  EXPECT_EQ(rank_margin_ns(9), 0);
  EXPECT_EQ(rank_margin_ns(10), 1);
  EXPECT_EQ(rank_margin_ns(19), 1);
  EXPECT_EQ(rank_margin_ns(1 * kMs), 100000);  // the shortest budget a rank flag carries (1 ms)
}

// A negative budget cannot come from --timeout (it must be > 0), but a margin must never put the rank's deadline
// after the launcher's.
TEST(RankMargin, NeverNegative) {
  EXPECT_EQ(rank_margin_ns(-1), 0);
  EXPECT_EQ(rank_margin_ns(-10 * kS), 0);
  EXPECT_EQ(rank_margin_ns(INT64_MIN), 0);
}

TEST(RankMargin, TenPercentUpToTheCap) {
  EXPECT_EQ(rank_margin_ns(5 * kS), 500 * kMs);
  EXPECT_EQ(rank_margin_ns(10 * kS - 10), kS - 1);
  EXPECT_EQ(rank_margin_ns(10 * kS), kS);  // where 10% reaches the cap
}

TEST(RankMargin, CappedAtOneSecond) {
  EXPECT_EQ(rank_margin_ns(10 * kS + 10), kS);
  EXPECT_EQ(rank_margin_ns(60 * kS), kS);     // the suite's default timeout
  EXPECT_EQ(rank_margin_ns(86400 * kS), kS);  // the largest --timeout
  EXPECT_EQ(rank_margin_ns(INT64_MAX), kS);
}

TEST(RankDeadline, IsTheLaunchersDeadlineLessTheMargin) {
  const int64_t start = 123 * kS;
  EXPECT_EQ(rank_deadline_ns(start, 1 * kMs), start + kMs - 100000);
  EXPECT_EQ(rank_deadline_ns(start, 2 * kS), start + 2 * kS - 200 * kMs);
  EXPECT_EQ(rank_deadline_ns(start, 60 * kS), start + 59 * kS);
  EXPECT_EQ(rank_deadline_ns(start, 0), start);
}

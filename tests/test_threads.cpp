// vmr::on_threads (harness/threads.h), which concurrent-map runs its threads with, and the placement text
// imported-properties compares (gpu/allocation_facts.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "gpu/allocation_facts.h"
#include "harness/threads.h"

namespace {

using vmr::Status;
using vmr::Verdict;

TEST(OnThreads, EveryThreadRunsItsOwnIndexOnce) {
  std::atomic<int> ran[6] = {};
  EXPECT_TRUE(vmr::on_threads(6, [&](int t) {
                ran[t]++;
                return Status::pass();
              }).ok());
  for (auto& r : ran) EXPECT_EQ(r.load(), 1);
}

// Each thread waits until every thread has started: a helper that ran them one after another would never get there.
TEST(OnThreads, AllThreadsRunAtTheSameTime) {
  constexpr int n = 4;
  std::atomic<int> started{0};
  const Status s = vmr::on_threads(n, [&](int) {
    started++;
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (started.load() < n)
      if (std::chrono::steady_clock::now() > give_up) return Status::fail("the other threads never started");
    return Status::pass();
  });
  EXPECT_TRUE(s.ok()) << s.detail;
}

TEST(OnThreads, TheLowestFailingThreadIsNamedWithItsVerdict) {
  const Status s = vmr::on_threads(8, [](int t) {
    if (t == 5) return Status::fail("five");
    if (t == 3) return Status::harness("three");
    return Status::pass();
  });
  EXPECT_EQ(s.verdict, Verdict::Harness);
  EXPECT_EQ(s.detail, "thread 3 of 8: three");
}

TEST(AllocationFacts, PlacementLeavesOutTheHandleTypes) {
  const vmr_gpu::AllocationFacts owner{1, 1, 0, 1}, imported{1, 1, 0, 0}, elsewhere{1, 1, 1, 1};
  EXPECT_EQ(owner.placement(), "type 1, location type 1 id 0");
  EXPECT_EQ(owner.placement(), imported.placement());
  EXPECT_NE(owner.placement(), elsewhere.placement());
  EXPECT_NE(owner.placement(), (vmr_gpu::AllocationFacts{1, 2, 0, 1}.placement()));
}

}  // namespace

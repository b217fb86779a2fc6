// Every case's buffer, derived from the granule, holds every kernel's footprint: at AMD's 4 KiB minimum granule,
// at 64 KiB, and at CUDA's 2 MiB. And the guard in front of every VMem launch refuses what a plan got wrong.
#include <gtest/gtest.h>

#include "gpu/footprint.h"
#include "gpu/size_plans.h"
#include "gpu/vmem_owners.h"

using namespace vmr_gpu;

namespace {
constexpr size_t kGranules[] = {4096, 64 * 1024, 2 * 1024 * 1024};
constexpr size_t kCounters = 1024;  // AtomicsRound::kCounters and the peer-reimport counters
}  // namespace

TEST(SizePlans, EveryPlanFitsEveryGranule) {
  for (size_t g : kGranules) {
    for (const SizePlan& p :
         {read_plan(g, size_t(64) << 20), read_plan(g, size_t(256) << 20), atomics_plan(g, kCounters),
          pow2_block_plan(g), subrange_second_block_plan(g), peer_reimport_plan(g, kCounters)})
      EXPECT_EQ(plan_problem(p, g), "") << "granule " << g;
  }
}

TEST(SizePlans, BuffersFollowTheGranule) {
  EXPECT_EQ(atomics_plan(4096, kCounters).bytes, 8192u);  // 1024 counters need two 4 KiB pages
  EXPECT_EQ(atomics_plan(2 << 20, kCounters).bytes, size_t(2) << 20);
  EXPECT_EQ(peer_reimport_plan(4096, kCounters).bytes, 12288u);  // 1025 words: three pages
  EXPECT_EQ(pow2_block_plan(65536).bytes, 65536u);
  EXPECT_EQ(subrange_second_block_plan(4096).bytes, 8192u);  // unequal to block 0: what shows rocm-systems#2667
  EXPECT_EQ(read_plan(4096, 1000).bytes, 4096u);
}

// The plans this suite shipped before: one granule for peer-reimport's 1 + 1024 words and for uncached local's 1024
// counters. Fine at CUDA's 2 MiB, past the mapping at AMD's 4 KiB: the check must say so.
TEST(SizePlans, TheOldOneGranulePlansAreCaught) {
  SizePlan old_reimport = peer_reimport_plan(4096, kCounters);
  old_reimport.bytes = 4096;
  EXPECT_NE(plan_problem(old_reimport, 4096).find("of a buffer of 512 words"), std::string::npos)
      << plan_problem(old_reimport, 4096);
  old_reimport.kernels.erase(old_reimport.kernels.begin());  // without k_zero, the adds are the first to overrun
  EXPECT_EQ(plan_problem(old_reimport, 4096), "k_atomic_add touches words [1, 1025) of a buffer of 512 words");
  SizePlan old_local = atomics_plan(4096, kCounters);
  old_local.bytes = 4096;
  EXPECT_NE(plan_problem(old_local, 4096), "");
  old_local.bytes = size_t(2) << 20;
  EXPECT_EQ(plan_problem(old_local, size_t(2) << 20), "");  // why the CUDA reference never saw it
}

TEST(SizePlans, BuffersMustBeWholeGranules) {
  SizePlan p = atomics_plan(4096, kCounters);
  p.bytes = 6000;
  EXPECT_NE(plan_problem(p, 4096).find("whole number"), std::string::npos);
  EXPECT_NE(plan_problem(p, 0), "");
}

TEST(FootprintGuard, RefusesALaunchPastTheMapping) {
  u64 words[512];
  const Span s{words, 512};
  EXPECT_TRUE(guard(s, 0, 512, "k_zero").ok());
  EXPECT_TRUE(guard(s, 1, 511, "k_atomic_add").ok());
  vmr::Status past = guard(s, 1, 1024, "k_atomic_add_device");
  EXPECT_EQ(past.verdict, vmr::Verdict::Harness);
  EXPECT_NE(past.detail.find("k_atomic_add_device would touch words [1, 1025) of a mapping of 512 words"),
            std::string::npos)
      << past.detail;
  EXPECT_EQ(guard(s, 513, 0, "k_store").verdict, vmr::Verdict::Harness);
  EXPECT_EQ(guard(s, 2, size_t(-1), "k_copy").verdict, vmr::Verdict::Harness);  // no wrap-around
  EXPECT_EQ(guard(Span{}, 0, 1, "k_store").verdict, vmr::Verdict::Harness);     // an unmapped block
}

namespace {
int released = 0, unmapped = 0, freed = 0;
struct FakeTraits {
  using handle_type = int;
  using va_type = char*;
  static void release(int) { ++released; }
  static void unmap(char*, size_t) { ++unmapped; }
  static void address_free(char*, size_t) { ++freed; }
};
}  // namespace

TEST(VmemOwners, SpanIsTheMappedSizeAndOwnersReleaseOnce) {
  static char arena[3 * 4096];
  {
    VmemBlock<FakeTraits> b;
    b.range.va = arena;
    b.range.size = sizeof arena;
    b.mem.valid = true;
    b.map.va = b.range.at(4096);
    b.map.size = 8192;
    EXPECT_EQ(b.span().words, 1024u);
    EXPECT_EQ(reinterpret_cast<char*>(b.span().p), arena + 4096);
    b.map.reset();
    EXPECT_EQ(b.span().words, 0u);  // unmapped: nothing may be touched
    EXPECT_EQ(unmapped, 1);
  }
  EXPECT_EQ(unmapped, 1);
  EXPECT_EQ(released, 1);
  EXPECT_EQ(freed, 1);
}

// The size sweep (rocm-systems#4114, iris#532): each step is one granule past its power of two, its probes sit on
// both sides of every 2^31 and 2^32 byte boundary inside it, and its atomics cross the highest one.
TEST(SizeSweep, StepsAreOneGranulePastEachPowerOfTwo) {
  for (size_t g : kGranules) {
    const std::vector<SizeStep> steps = size_sweep_plan(g, kCounters);
    ASSERT_EQ(steps.size(), 3u);
    EXPECT_EQ(steps[0].plan.bytes, size_t(1) << 30);
    EXPECT_EQ(steps[1].plan.bytes, (size_t(2) << 30) + g);
    EXPECT_EQ(steps[2].plan.bytes, (size_t(4) << 30) + g);
    EXPECT_EQ(steps[0].label, "1 GiB");
    EXPECT_EQ(steps[2].label, "4 GiB + 1 granule");
    EXPECT_EQ(steps[2].key, "4g");
    for (const SizeStep& s : steps) EXPECT_EQ(plan_problem(s.plan, g), "") << s.label << " at granule " << g;
  }
}

TEST(SizeSweep, ProbesStraddleTwoToThe31And32Bytes) {
  constexpr size_t g = 2 << 20;
  const std::vector<SizeStep> steps = size_sweep_plan(g, kCounters);
  const size_t w31 = (size_t(1) << 31) / 8, w32 = (size_t(1) << 32) / 8;
  EXPECT_EQ(steps[0].probe_words, (std::vector<size_t>{0, (size_t(1) << 30) / 8 - 1}));
  EXPECT_EQ(steps[1].probe_words, (std::vector<size_t>{0, w31 - 1, w31, w31 + g / 8 - 1}));
  EXPECT_EQ(steps[2].probe_words, (std::vector<size_t>{0, w31 - 1, w31, w32 - 1, w32, w32 + g / 8 - 1}));
  // The byte offsets of the probes past the boundaries really are past 2^31 and 2^32 (no 32-bit wrap in the plan).
  EXPECT_EQ(steps[2].probe_words[4] * 8, size_t(1) << 32);
  EXPECT_GT(steps[2].probe_words.back() * 8, size_t(1) << 32);
}

TEST(SizeSweep, AtomicsCrossTheHighestBoundaryInside) {
  for (size_t g : kGranules) {
    const std::vector<SizeStep> steps = size_sweep_plan(g, kCounters);
    EXPECT_EQ(steps[0].counters_first, (size_t(1) << 30) / 8 - kCounters) << "no boundary inside: the last words";
    EXPECT_EQ(steps[1].counters_first, (size_t(1) << 31) / 8 - kCounters / 2) << "granule " << g;
    EXPECT_EQ(steps[2].counters_first, (size_t(1) << 32) / 8 - kCounters / 2) << "granule " << g;
    for (const SizeStep& s : steps) EXPECT_EQ(s.counters, kCounters);
  }
}

TEST(SizeSweep, AStepOfAnyLengthKeepsItsProbesInside) {
  const SizeStep legacy = size_step(2 << 20, (size_t(2) << 30) + (2 << 20), "2g", "2 GiB + 2 MiB", kCounters);
  EXPECT_EQ(plan_problem(legacy.plan, 2 << 20), "");
  EXPECT_EQ(legacy.probe_words.size(), 4u);
  const SizeStep small = size_step(4096, 4096, "4k", "one page", 16);
  EXPECT_EQ(small.probe_words, (std::vector<size_t>{0, 511}));
  EXPECT_EQ(plan_problem(small.plan, 4096), "");
}

TEST(SizeSweep, FitsInFreeMemoryCountsEveryRankOnTheGpuAndItsHeadroom) {
  constexpr size_t GiB = size_t(1) << 30, g = 2 << 20;
  const size_t four = (4 * GiB) + g;
  EXPECT_TRUE(fits_in_free_memory("4 GiB + 1 granule", four, 0, 2, 2 * (four + GiB)).fits);
  const MemoryFit tight = fits_in_free_memory("4 GiB + 1 granule", four, 0, 2, 2 * (four + GiB) - 1);
  EXPECT_FALSE(tight.fits);
  EXPECT_EQ(tight.reason,
            "4 GiB + 1 granule per rank (4297064448 bytes) does not fit on GPU 0: 2 ranks there need 10741612544 "
            "bytes with 1024 MiB headroom each, 10741612543 bytes free");
  EXPECT_TRUE(fits_in_free_memory("x", four, 3, 1, four + GiB).fits);  // one rank on this GPU: its own share only
  EXPECT_NE(fits_in_free_memory("1 GiB", GiB, 1, 1, GiB).reason.find("1 GiB per rank"), std::string::npos)
      << "the headroom counts";
  const MemoryFit huge = fits_in_free_memory("huge", size_t(-1) / 2, 0, 4, size_t(-1));
  EXPECT_FALSE(huge.fits) << "an overflowing need never fits";
  EXPECT_NE(huge.reason.find("more than"), std::string::npos) << huge.reason;
}

// A granule of 0 from a runtime is the suite's refusal to plan, named, never a division by zero (a SIGFPE would read
// as the rank's CRASH: a verdict of our own making).
TEST(SizeSweep, AGranuleOfZeroIsNamedNotADivisionByZero) {
  for (const SizeStep& s : size_sweep_plan(0, 1024)) EXPECT_EQ(plan_problem(s.plan, 0), "granule is 0") << s.label;
  EXPECT_EQ(plan_problem(read_plan(0, size_t(256) << 20), 0), "granule is 0");
  EXPECT_EQ(plan_problem(atomics_plan(0, 1024), 0), "granule is 0");
}

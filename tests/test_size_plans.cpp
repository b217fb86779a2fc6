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

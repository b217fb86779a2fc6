// The leak cases' memory decision (gpu/process_memory.h): this process's own count decides where it can, the GPU's
// free memory alone never FAILs, and the self-test switch turns on only by its exact value.
#include <gtest/gtest.h>

#include "gpu/process_memory.h"

using namespace vmr_gpu;

namespace {

constexpr uint64_t kMiB = 1ull << 20, kCycle = 64 * kMiB, kGiB = 1024 * kMiB;
constexpr int kCycles = 16;  // threshold: 8 cycles = 512 MiB
constexpr long long kC = (long long)kCycle, kG = (long long)kGiB;

const ProcessMemorySource kNvml{"NVML", true}, kKfd{"KFD", false};

// Readings of a process that held `base`, `base + held` while cycle 0 was mapped, `base + kept` after; the GPU's
// free memory fell by `gpu_fell`.
LeakReadings readings(uint64_t held, long long kept, long long gpu_fell, std::string others = "") {
  LeakReadings r;
  const uint64_t base = 600 * kMiB;
  r.process_before = MemoryReading::of(base);
  r.process_held = MemoryReading::of(base + held);
  r.process_after = MemoryReading::of(uint64_t((long long)base + kept));
  r.device_free_before = 100 * kGiB;
  r.device_free_after = uint64_t((long long)(100 * kGiB) - gpu_fell);
  r.others = std::move(others);
  return r;
}

MemoryJudgement judge(const ProcessMemorySource& s, const LeakReadings& r) {
  return judge_device_memory(s, r, kCycle, kCycles).judgement;
}

}  // namespace

// ctest -j: another test took 2 GiB of the GPU while this process's own count came back: PASS, by NVML.
TEST(ProcessMemory, AnotherProcessGrowingTheGpuIsNotThisProcessesLeak) {
  const MemoryDecision d = judge_device_memory(kNvml, readings(kCycle, 0, 2 * kG), kCycle, kCycles);
  EXPECT_EQ(d.judgement, MemoryJudgement::Returned);
  EXPECT_EQ(d.source, "NVML");
  EXPECT_EQ(d.kept_bytes, 0);
  EXPECT_NE(d.why.find("2048 MiB"), std::string::npos) << d.why;  // the GPU's movement is still said
}

// The planted leak: this process kept 16 cycles' worth; FAIL by its own count, even with the GPU's number flat.
TEST(ProcessMemory, ThisProcessesOwnGrowthIsKept) {
  for (const auto& s : {kNvml, kKfd}) {
    const MemoryDecision d = judge_device_memory(s, readings(kCycle, 16 * kC, 0), kCycle, kCycles);
    EXPECT_EQ(d.judgement, MemoryJudgement::Kept) << s.name;
    EXPECT_EQ(d.kept_bytes, 16 * kC);
    EXPECT_EQ(d.source, s.name);
  }
}

// The threshold is half the cycles' worth, inclusive, as before the per-process count.
TEST(ProcessMemory, TheThresholdIsHalfTheCycles) {
  EXPECT_EQ(judge(kNvml, readings(kCycle, 8 * kC, 0)), MemoryJudgement::Kept);
  EXPECT_EQ(judge(kNvml, readings(kCycle, 8 * kC - 1, 0)), MemoryJudgement::Returned);
}

// A count that did not rise while a cycle was mapped is not this process's (a pid of another process in a PID
// namespace, a driver that does not charge VMem): unavailable, so the GPU's number alone, which cannot FAIL.
TEST(ProcessMemory, ACountBlindToTheHeldCycleCannotJudge) {
  LeakReadings r = readings(kCycle / 2 - 1, 16 * kC, 16 * kC);
  MemoryDecision d = judge_device_memory(kNvml, r, kCycle, kCycles);
  EXPECT_EQ(d.judgement, MemoryJudgement::Undecided);
  EXPECT_EQ(d.source, "device-wide MemGetInfo");
  EXPECT_NE(d.why.find("does not count this process's VMem"), std::string::npos) << d.why;
  EXPECT_EQ(judge(kNvml, readings(kCycle / 2, 16 * kC, 0)), MemoryJudgement::Kept);
}

// Without this process's count, the GPU's number never FAILs: a fall or a rise of the threshold is undecided (and
// says why the count was unavailable); a small change either way is returned.
TEST(ProcessMemory, TheGpuNumberAloneNeverFails) {
  LeakReadings r = readings(0, 0, 0);
  r.process_after = MemoryReading::unknown("NVML reports this process's used memory as NVML_VALUE_NOT_AVAILABLE");
  for (long long fell : {8 * kC, 20 * kG, -8 * kC}) {
    r.device_free_after = uint64_t((long long)r.device_free_before - fell);
    const MemoryDecision d = judge_device_memory(kNvml, r, kCycle, kCycles);
    EXPECT_EQ(d.judgement, MemoryJudgement::Undecided) << fell;
    EXPECT_EQ(d.source, "device-wide MemGetInfo");
    EXPECT_NE(d.why.find("NVML_VALUE_NOT_AVAILABLE"), std::string::npos) << d.why;
    EXPECT_EQ(d.kept_bytes, fell);
  }
  for (long long fell : {0ll, 8 * kC - 1, -8 * kC + 1}) {
    r.device_free_after = uint64_t((long long)r.device_free_before - fell);
    EXPECT_EQ(judge(kNvml, r), MemoryJudgement::Returned) << fell;
  }
}

// Each of the three readings counts: any unknown one makes the count unavailable.
TEST(ProcessMemory, AnyUnknownReadingMakesTheCountUnavailable) {
  for (int which = 0; which < 3; ++which) {
    LeakReadings r = readings(kCycle, 16 * kC, 16 * kC);
    MemoryReading* m[] = {&r.process_before, &r.process_held, &r.process_after};
    *m[which] = MemoryReading::unknown("gone " + std::to_string(which));
    const MemoryDecision d = judge_device_memory(kNvml, r, kCycle, kCycles);
    EXPECT_EQ(d.judgement, MemoryJudgement::Undecided) << which;
    EXPECT_NE(d.why.find("gone " + std::to_string(which)), std::string::npos) << d.why;
  }
}

// KFD's count drops at release even where a mapping keeps the memory (ROCm 7.2): the GPU's loss then decides Kept only
// with no process outside this run on the GPU; with one there it is undecided, naming it; a flat GPU is returned.
TEST(ProcessMemory, AKfdCountBlindToKeptMemoryLeansOnTheGpuOnlyWhenAlone) {
  MemoryDecision d = judge_device_memory(kKfd, readings(kCycle, 0, 16 * kC), kCycle, kCycles);
  EXPECT_EQ(d.judgement, MemoryJudgement::Kept);
  EXPECT_EQ(d.source, "device-wide MemGetInfo");
  EXPECT_EQ(d.kept_bytes, 16 * kC);
  d = judge_device_memory(kKfd, readings(kCycle, 0, 16 * kC, "1 other KFD process on this GPU: pid 7"), kCycle,
                          kCycles);
  EXPECT_EQ(d.judgement, MemoryJudgement::Undecided);
  EXPECT_NE(d.why.find("pid 7"), std::string::npos) << d.why;
  EXPECT_EQ(judge(kKfd, readings(kCycle, 0, 8 * kC - 1)), MemoryJudgement::Returned);
  // NVML keeps what a release left allocated: the GPU's loss is never this process's there.
  EXPECT_EQ(judge(kNvml, readings(kCycle, 0, 16 * kC)), MemoryJudgement::Returned);
}

TEST(ProcessMemory, ThePlantSwitchIsOnOnlyByItsExactValue) {
  bool on = true;
  EXPECT_TRUE(plant_leak_switch(nullptr, "unmap-leak", &on).ok());
  EXPECT_FALSE(on);
  EXPECT_TRUE(plant_leak_switch("", "unmap-leak", &on).ok());
  EXPECT_FALSE(on);
  EXPECT_TRUE(plant_leak_switch("unmap-leak", "unmap-leak", &on).ok());
  EXPECT_TRUE(on);
  for (const char* v : {"1", "yes", "unmap-leak ", "UNMAP-LEAK", "handles-fd-limit"}) {
    vmr::Status s = plant_leak_switch(v, "unmap-leak", &on);
    EXPECT_EQ(s.verdict, vmr::Verdict::Harness) << v;
    EXPECT_FALSE(on) << v;
    EXPECT_NE(s.detail.find("VMR_SELFTEST_PLANT_LEAK"), std::string::npos) << s.detail;
  }
}

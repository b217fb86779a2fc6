// Whether a leak case's cycles kept device memory, judged from this process's own count first. The GPU's free memory
// (MemGetInfo) moves with every process on the GPU: a second test under `ctest -j`, a monitoring agent, another job
// made unmap-leak FAIL on a healthy H200 (issue 34). So the vendor libraries read this process's own count (NVIDIA:
// NVML per process, cuda/nvml_memory.h; AMD: KFD's per-process sysfs, amd/kfd_memory.h), and the decision below
// says which number decided and why. Vendor-neutral and pure: the unit tests run the whole decision table on the CPU.
#pragma once

#include <cstdint>
#include <string>

#include "harness/status.h"

namespace vmr_gpu {

// One reading of a count of device memory; `why_not` says why it is unknown.
struct MemoryReading {
  bool known = false;
  uint64_t bytes = 0;
  std::string why_not;
  static MemoryReading of(uint64_t b) { return {true, b, {}}; }
  static MemoryReading unknown(std::string why) { return {false, 0, std::move(why)}; }
};

// Where this process's count comes from.
struct ProcessMemorySource {
  std::string name;  // e.g. "NVML per-process used memory (nvmlDeviceGetComputeRunningProcesses_v3)"
  // Whether the count still holds memory a release left allocated. NVML's does (the driver charges the process until
  // the memory is freed); KFD's drops at the free ioctl even where a CPU mapping keeps the buffer alive (ROCm 7.2's
  // unmap leak, see amd/kfd_memory.h), so there the GPU's free memory must be read too.
  bool sees_memory_kept_after_release = false;
};

// What a leak case read around its cycles. `held` is read while the first cycle's memory is mapped: a count that did
// not rise by that much does not see this process's VMem (a wrong pid, a driver that does not charge it), and is
// treated as unavailable.
struct LeakReadings {
  MemoryReading process_before, process_held, process_after;
  uint64_t device_free_before = 0, device_free_after = 0;  // MemGetInfo
  // Empty when no process outside this run can hold this GPU; else who does, or why that is unknown (AMD only: read
  // where the process count does not see everything, see ProcessMemorySource).
  std::string others;
};

enum class MemoryJudgement { Returned, Kept, Undecided };

struct MemoryDecision {
  MemoryJudgement judgement = MemoryJudgement::Undecided;
  long long kept_bytes = 0;  // by the number that decided (for Undecided: the GPU's)
  std::string source;        // which number decided: the process source's name, or "device-wide MemGetInfo"
  std::string why;           // one clause: why that number, and for Undecided why nothing could decide
};

// `cycles` cycles of `cycle_bytes` each; memory counts as kept from half the cycles' worth (as before issue 34).
// The rule (never a verdict of our own making):
//  - this process's count decides when it is known and saw the held cycle: Kept from the threshold up. Where it
//    cannot see memory a release left allocated (KFD), a GPU-wide loss of the threshold decides Kept only when no
//    process outside this run holds the GPU; with another there, Undecided.
//  - without this process's count, the GPU's number alone: a loss of the threshold could be another process's
//    allocation and a gain of it another's free hiding ours, so either is Undecided (the case SKIPs, naming the
//    source and why this process's count was unavailable); a change smaller than that both ways is Returned (a leak
//    would then need another process to free almost exactly what leaked, between the two readings).
MemoryDecision judge_device_memory(const ProcessMemorySource& source, const LeakReadings& r, uint64_t cycle_bytes,
                                   int cycles);

// The self-test switch of the leak cases: VMR_SELFTEST_PLANT_LEAK=<case name> makes that case skip one release of a
// handle per cycle, so that a real GPU proves the case FAILs on a leak. Unset or empty: off. Any other value is
// HARNESS naming it, so a typo never runs the case unplanted while the user believes it planted, and no value
// other than the case's own name turns it on.
constexpr const char* kPlantLeakVariable = "VMR_SELFTEST_PLANT_LEAK";
vmr::Status plant_leak_switch(const char* value, const std::string& case_name, bool* on);

}  // namespace vmr_gpu

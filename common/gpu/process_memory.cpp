#include "gpu/process_memory.h"

#include "harness/text.h"

namespace vmr_gpu {

namespace {

constexpr const char* kDeviceWide = "device-wide MemGetInfo";

std::string mib(long long bytes) { return std::to_string(bytes / (1ll << 20)) + " MiB"; }

// Why this process's count cannot decide, or empty when it can: unknown in any reading, or blind to the held cycle.
std::string process_count_problem(const ProcessMemorySource& source, const LeakReadings& r, uint64_t cycle_bytes) {
  for (const MemoryReading* m : {&r.process_before, &r.process_held, &r.process_after})
    if (!m->known) return m->why_not.empty() ? source.name + " unknown" : m->why_not;
  const long long rose = (long long)r.process_held.bytes - (long long)r.process_before.bytes;
  if (rose < (long long)(cycle_bytes / 2))
    return source.name + " rose by " + mib(rose) + " while a cycle of " + mib((long long)cycle_bytes) +
           " was mapped: it does not count this process's VMem";
  return "";
}

}  // namespace

MemoryDecision judge_device_memory(const ProcessMemorySource& source, const LeakReadings& r, uint64_t cycle_bytes,
                                   int cycles) {
  const long long threshold = (long long)(cycles / 2) * (long long)cycle_bytes;
  const long long device_kept = (long long)r.device_free_before - (long long)r.device_free_after;
  MemoryDecision d;
  const std::string problem = process_count_problem(source, r, cycle_bytes);
  if (problem.empty()) {
    d.kept_bytes = (long long)r.process_after.bytes - (long long)r.process_before.bytes;
    d.source = source.name;
    if (d.kept_bytes >= threshold) {
      d.judgement = MemoryJudgement::Kept;
      d.why = "this process's own count";
      return d;
    }
    if (source.sees_memory_kept_after_release || device_kept < threshold) {
      d.judgement = MemoryJudgement::Returned;
      d.why = "this process's own count; the GPU's free memory moved by " + mib(device_kept);
      return d;
    }
    // The process count is blind to memory a release left allocated, and the GPU lost the threshold.
    d.kept_bytes = device_kept;
    d.source = kDeviceWide;
    if (r.others.empty()) {
      d.judgement = MemoryJudgement::Kept;
      d.why = "the GPU's free memory, since " + source.name + " (" +
              mib((long long)r.process_after.bytes - (long long)r.process_before.bytes) +
              ") drops at release even where a mapping keeps the memory, and no process outside this run holds the "
              "GPU";
      return d;
    }
    d.judgement = MemoryJudgement::Undecided;
    d.why = "the GPU lost " + mib(device_kept) + " but " + source.name + " only " +
            mib((long long)r.process_after.bytes - (long long)r.process_before.bytes) +
            ", and another process could have taken it: " + r.others;
    return d;
  }
  d.kept_bytes = device_kept;
  d.source = kDeviceWide;
  if (device_kept >= threshold || -device_kept >= threshold) {
    d.judgement = MemoryJudgement::Undecided;
    d.why = std::string("the GPU's free memory ") + (device_kept > 0 ? "fell" : "rose") + " by " +
            mib(device_kept > 0 ? device_kept : -device_kept) +
            ", which another process could have caused, and this process's own count is unavailable: " + problem;
    return d;
  }
  d.judgement = MemoryJudgement::Returned;
  d.why =
      "the GPU's free memory moved by " + mib(device_kept) + "; this process's own count is unavailable: " + problem;
  return d;
}

vmr::Status plant_leak_switch(const char* value, const std::string& case_name, bool* on) {
  *on = false;
  if (!value || !*value) return vmr::Status::pass();
  if (case_name != value)
    return vmr::Status::harness(std::string(kPlantLeakVariable) + "='" + vmr::printable(value, 80) +
                                "' is not understood: the self-test switch plants a leak only as " +
                                kPlantLeakVariable + "=" + case_name + "; unset it for a real run");
  *on = true;
  return vmr::Status::pass();
}

}  // namespace vmr_gpu

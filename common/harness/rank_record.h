// What a rank tells its launcher, over the status pipe, as it happens: one event a line (the facts it learns, the
// end of each phase, each metric, each case's verdict). A rank that dies has already delivered everything it knew
// up to then; the launcher rebuilds one record per case from the events, and keeps the case in progress as partial.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/status.h"

namespace vmr {

struct Metric {
  std::string name;
  double value = 0;
  std::string unit;
};

struct RankRecord {
  Verdict verdict = Verdict::Harness;
  std::string detail;
  int64_t ready_ns = 0;  // CLOCK_MONOTONIC when the rank passed the harness's start barrier (0: never)
  std::vector<std::pair<std::string, std::string>> info;  // environment facts, in the order reported
  std::vector<std::pair<std::string, double>> phases;     // seconds per phase, in order
  std::vector<Metric> metrics;
};

// The events, each one line with its newline. The stream starts with header(); a case's record starts with the
// stream or with the end of the case before it, and ends with end(). keep_facts() marks the facts reported so far
// (the describe step's) as facts of every later case of the life; the others belong to their case alone.
namespace event {
std::string header();
std::string ready(int64_t ns);
std::string fact(std::string_view key, std::string_view value);
std::string keep_facts();
std::string phase(std::string_view name, double seconds);
std::string metric(const Metric& m);
std::string end(Verdict verdict, std::string_view detail);
}  // namespace event

// The launcher's side: strict, line by line. Any deviation (garbage, a bad number or name, a second header, an
// event before the header, more than 256 facts, phases or metrics in one case) is an error naming the line, after
// which the stream takes nothing more.
class RecordStream {
 public:
  Status take_line(std::string_view line);
  const std::vector<RankRecord>& records() const { return records_; }
  // The case in progress: what the rank delivered of it (facts, phases, metrics) before the stream ended.
  const RankRecord& partial() const { return current_; }
  bool started() const { return started_; }

 private:
  bool started_ = false, ready_seen_ = false;
  size_t lineno_ = 0;
  std::vector<std::pair<std::string, std::string>> life_facts_;
  RankRecord current_;
  std::vector<RankRecord> records_;
};

// A fact a backend reports early (before any call that could block) so that a HANG's reason names what on the node
// could explain it: decide_verdict (verdict_rules.cpp) quotes each deadline-killed rank's value, once per distinct
// value. AMD reports the amdgpu DRM interface version there (amd/driver_versions.h, rocm-systems#9820).
inline constexpr std::string_view kHangContextFact = "hang_context";

// Names used as info keys, phases and metrics: [A-Za-z0-9_.-]+.
bool is_valid_name(std::string_view name);

// Records a fact: a key reported again keeps its first place and takes the new value, so a placeholder such as
// "unknown" set before a probe is replaced by the probe's answer instead of standing beside it (readers keep the
// first value of a key).
void set_fact(std::vector<std::pair<std::string, std::string>>* facts, std::string_view key, std::string_view value);

}  // namespace vmr

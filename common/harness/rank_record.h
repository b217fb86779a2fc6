// The one status record each rank writes to the launcher before it exits. EOF without a complete record means
// the rank died or left mid-protocol; the launcher decides which from its wait status.
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
  int64_t ready_ns = 0;  // CLOCK_MONOTONIC when the rank passed the harness's start barrier
  std::vector<std::pair<std::string, std::string>> info;  // environment facts, in the order reported
  std::vector<std::pair<std::string, double>> phases;     // seconds per phase, in order
  std::vector<Metric> metrics;
};

std::string encode_record(const RankRecord& record);
// Strict: any deviation from the format (garbage, truncation, a bad number or name) is an error naming the line.
Status decode_record(std::string_view text, RankRecord* out);

// Names used as info keys, phases and metrics: [A-Za-z0-9_.-]+.
bool is_valid_name(std::string_view name);

// Records a fact: a key reported again keeps its first place and takes the new value, so a placeholder such as
// "unknown" set before a probe is replaced by the probe's answer instead of standing beside it (readers keep the
// first value of a key).
// A key not yet there is dropped once `facts` holds `cap` of them (a rank printing without end).
void set_fact(std::vector<std::pair<std::string, std::string>>* facts, std::string_view key, std::string_view value,
              size_t cap = SIZE_MAX);

}  // namespace vmr

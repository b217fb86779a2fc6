// What a case sees inside its rank: who it is, the control channel, and where to put environment facts,
// phase times and metrics for the launcher's record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/channel.h"
#include "harness/rank_record.h"

namespace vmr {

class RankContext {
 public:
  // devices[j] is rank j's device, as the launcher assigned it (the rank flag carries all of them).
  RankContext(int rank, std::vector<int> devices, std::string case_name, Mesh* mesh)
      : rank_(rank), devices_(std::move(devices)), case_name_(std::move(case_name)), mesh_(mesh) {}

  int rank() const { return rank_; }
  int ranks() const { return int(devices_.size()); }
  int device() const { return devices_[rank_]; }
  const std::vector<int>& devices() const { return devices_; }
  const std::string& case_name() const { return case_name_; }
  Mesh& mesh() { return *mesh_; }
  Deadline deadline() const { return mesh_->deadline(); }

  // An environment fact: printed at once (the paste-ready block) and kept for the JSON.
  void info(std::string_view key, std::string_view value);
  // Ends the current phase under `name` (setup, exchange, run, verify) and starts the next.
  void phase_done(std::string_view name);
  void metric(std::string_view name, double value, std::string_view unit);

  // Every rank contributes its status; all return the same answer: the first non-PASS by rank order,
  // prefixed with the rank that gave it. Use where one rank alone may be unable to go on (a SKIP).
  Status agree(const Status& mine);
  // The largest of every rank's value (e.g. the slowest rank's time), through the control channel.
  Status max_over_ranks(double mine, double* max);
  // SKIP naming the shortfall when some rank's device is not among the `visible` ones `runtime` reports.
  Status require_devices(int visible, std::string_view runtime) const;

  RankRecord& record() { return record_; }
  void start_phases();
  // Several cases run in one rank life, each with a record of its own: the describe step's facts are kept for every
  // case's record, the rest (verdict, phases, metrics, the case's own facts) starts afresh.
  void keep_facts_so_far() { facts_ = record_.info; }
  void begin_case(std::string name) {
    case_name_ = std::move(name);
    record_ = RankRecord{};
    record_.info = facts_;
  }

 private:
  int rank_;
  std::vector<int> devices_;
  std::string case_name_;
  Mesh* mesh_;
  RankRecord record_;
  std::vector<std::pair<std::string, std::string>> facts_;
  int64_t phase_start_ns_ = 0;
};

}  // namespace vmr

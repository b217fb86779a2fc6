// What a case sees inside its rank: who it is, the control channel, and where to put environment facts,
// phase times and metrics: each goes to the launcher over the status pipe the moment it is known.
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
  // devices[j] is rank j's device, as the launcher assigned it (the rank flag carries all of them); status_fd is the
  // status pipe to the launcher (-1: events go nowhere).
  RankContext(int rank, std::vector<int> devices, Mesh* mesh, int status_fd)
      : rank_(rank), devices_(std::move(devices)), mesh_(mesh), status_fd_(status_fd) {}

  int rank() const { return rank_; }
  int ranks() const { return int(devices_.size()); }
  int device() const { return devices_[rank_]; }
  const std::vector<int>& devices() const { return devices_; }
  Mesh& mesh() { return *mesh_; }

  // An environment fact: printed at once (the paste-ready block) and sent to the launcher.
  void info(std::string_view key, std::string_view value);
  // Ends the current phase under `name` (setup, exchange, run, verify) and starts the next.
  void phase_done(std::string_view name);
  // A metric of the case. One that is not finite (inf, nan) is left out, and the fact dropped_metric.NAME says so:
  // the case's verdict stays its own.
  void metric(std::string_view name, double value, std::string_view unit);

  // Every rank contributes its status; all return the same answer: the first non-PASS by rank order,
  // prefixed with the rank that gave it. Use where one rank alone may be unable to go on (a SKIP).
  Status agree(const Status& mine);
  // The largest of every rank's value (e.g. the slowest rank's time), through the control channel.
  Status max_over_ranks(double mine, double* max);
  // SKIP naming the shortfall when some rank's device is not among the `visible` ones `runtime` reports.
  Status require_devices(int visible, std::string_view runtime) const;

  // The life's protocol (rank_main): the stream's start; the moment this case's ranks passed their barrier; the
  // facts so far (the describe step's) as facts of every later case; a case's end with its verdict (the next case's
  // record starts right after it: the stream names no case, the launcher knows their order).
  void start_stream() { send(event::header()); }
  void ready_now();
  void keep_facts_so_far() { send(event::keep_facts()); }
  void end_case(const Status& result) { send(event::end(result.verdict, result.detail)); }

 private:
  void send(const std::string& event) const;

  int rank_;
  std::vector<int> devices_;
  Mesh* mesh_;
  int status_fd_;
  int64_t phase_start_ns_ = 0;
};

}  // namespace vmr

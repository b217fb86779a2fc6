#include "harness/rank_context.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include "harness/text.h"

namespace vmr {

void RankContext::send(const std::string& event) const {
  if (status_fd_ < 0) return;
  size_t done = 0;
  while (done < event.size()) {  // the rank is the pipe's only writer: a long event may take several writes
    ssize_t n = ::write(status_fd_, event.data() + done, event.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the launcher is gone; nobody is left to tell
    done += size_t(n);
  }
}

void RankContext::info(std::string_view key, std::string_view value) {
  std::printf("env: %.*s = %.*s\n", int(key.size()), key.data(), int(value.size()), value.data());
  std::fflush(stdout);
  send(event::fact(key, value));
}

void RankContext::ready_now() {
  send(event::ready(monotonic_ns()));
  phase_start_ns_ = monotonic_ns();
}

void RankContext::phase_done(std::string_view name) {
  int64_t now = monotonic_ns();
  send(event::phase(name, double(now - phase_start_ns_) / 1e9));
  phase_start_ns_ = now;
}

void RankContext::metric(std::string_view name, double value, std::string_view unit) {
  if (!std::isfinite(value)) {
    // An inf or nan (a rate over a zero time) is no measurement, and the status stream carries finite numbers only:
    // sent, it would end the life as a protocol error, HARNESS in place of the case's verdict. Said as a fact.
    std::string key = "dropped_metric." + std::string(name);
    if (!is_valid_name(key)) key = "dropped_metric";
    info(key, format_double(value) + " " + std::string(unit) + " is not a finite number; the metric is left out");
    return;
  }
  send(event::metric({std::string(name), value, std::string(unit)}));
}

Status RankContext::agree(const Status& mine) {
  std::vector<std::string> all;
  VMR_TRY(mesh_->all_gather(std::string(verdict_name(mine.verdict)) + " " + mine.detail, &all));
  for (int j = 0; j < ranks(); ++j) {
    std::string_view entry = all[j];
    std::string_view name = entry.substr(0, entry.find(' '));
    auto v = verdict_from_name(name);
    if (!v) return Status::harness("protocol: rank " + std::to_string(j) + " sent a bad agreement record");
    if (*v == Verdict::Pass) continue;
    std::string detail = name.size() < entry.size() ? std::string(entry.substr(name.size() + 1)) : "";
    // Every rank returns the same text, so the launcher's verdict reads the same whichever rank it quotes.
    return {*v, "rank " + std::to_string(j) + ": " + detail};
  }
  return Status::pass();
}

Status RankContext::max_over_ranks(double mine, double* max) {
  std::vector<std::string> all;
  VMR_TRY(mesh_->all_gather(format_double(mine), &all));
  *max = mine;
  for (int j = 0; j < ranks(); ++j) {
    double v = 0;
    if (!parse_double(all[j], &v))
      return Status::harness("protocol: rank " + std::to_string(j) + " sent '" + all[j] + "'");
    if (v > *max) *max = v;
  }
  return Status::pass();
}

Status RankContext::require_devices(int visible, std::string_view runtime) const {
  int highest = *std::max_element(devices_.begin(), devices_.end());
  if (highest < visible) return Status::pass();
  return Status::skip("not enough GPUs: " + std::to_string(ranks()) + " ranks want device " + std::to_string(highest) +
                      " but " + std::to_string(visible) + " " + std::string(runtime) + " device(s) are visible");
}

}  // namespace vmr

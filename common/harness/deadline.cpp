#include "harness/deadline.h"

#include <time.h>

#include <algorithm>

namespace vmr {

int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t rank_margin_ns(int64_t budget_ns) {
  // 10%: wide enough that a rank on a busy node still reports first; 1 s is enough for that however long the case.
  constexpr int64_t kMaxMarginNs = 1000000000;
  return std::clamp<int64_t>(budget_ns / 10, 0, kMaxMarginNs);
}

int64_t rank_deadline_ns(int64_t start_ns, int64_t budget_ns) {
  return start_ns + budget_ns - rank_margin_ns(budget_ns);
}

int Deadline::poll_timeout_ms(int cap_ms) const {
  if (at_ns_ == INT64_MAX) return cap_ms;
  int64_t left = at_ns_ - monotonic_ns();
  if (left <= 0) return 0;
  int64_t ms = (left + 999999) / 1000000;
  return int(std::min<int64_t>(ms, cap_ms));
}

}  // namespace vmr

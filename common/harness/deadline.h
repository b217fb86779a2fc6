// One absolute CLOCK_MONOTONIC deadline shared by the launcher and its ranks: the clock is system-wide, so
// the launcher passes the absolute value to each rank and every wait on either side ends at the same instant.
#pragma once

#include <cstdint>

namespace vmr {

int64_t monotonic_ns();

// How long before the launcher's deadline the ranks give up on a case of budget_ns: 10% of the budget (rounded down),
// at most 1 s, never negative. Ranks that give up first can still report whom they waited for before the SIGTERM;
// the launcher sets the first case's deadline and each rank its later cases', so both must use this one rule.
int64_t rank_margin_ns(int64_t budget_ns);
// When a rank gives up on a case that started at start_ns: the launcher's deadline (start_ns + budget_ns) less the
// margin.
int64_t rank_deadline_ns(int64_t start_ns, int64_t budget_ns);

class Deadline {
 public:
  static Deadline at_ns(int64_t ns) { return Deadline(ns); }

  int64_t at_ns() const { return at_ns_; }
  // Milliseconds left for poll(): 0 once passed, rounded up so a wait never ends early, capped at cap_ms.
  int poll_timeout_ms(int cap_ms = 1 << 30) const;

 private:
  explicit Deadline(int64_t at_ns) : at_ns_(at_ns) {}
  int64_t at_ns_;
};

}  // namespace vmr

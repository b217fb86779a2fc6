// One absolute CLOCK_MONOTONIC deadline shared by the launcher and its ranks: the clock is system-wide, so
// the launcher passes the absolute value to each rank and every wait on either side ends at the same instant.
#pragma once

#include <cstdint>

namespace vmr {

int64_t monotonic_ns();

class Deadline {
 public:
  static Deadline after_ms(int64_t ms) { return Deadline(monotonic_ns() + ms * 1000000); }
  static Deadline at_ns(int64_t ns) { return Deadline(ns); }

  int64_t at_ns() const { return at_ns_; }
  // Milliseconds left for poll(): 0 once passed, rounded up so a wait never ends early, capped at cap_ms.
  int poll_timeout_ms(int cap_ms = 1 << 30) const;

 private:
  explicit Deadline(int64_t at_ns) : at_ns_(at_ns) {}
  int64_t at_ns_;
};

}  // namespace vmr

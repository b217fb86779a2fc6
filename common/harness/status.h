// Verdicts and the error-as-value type every layer returns up to a rank's top level.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vmr {

// Ordered by the exit-code contract in README.md; never renumber.
enum class Verdict { Pass, Fail, Usage, Crash, Hang, Skip, Harness };

int exit_code(Verdict v);
// Which verdict a summary of several reports (a run of several cases, a node's runs of one case): the suite's own
// breakage first, then the ways a GPU case can go wrong from the most to the least disruptive; SKIP only when every
// one skipped. (verdict_rules.cpp orders rank records within one case differently: there HANG comes first, as it
// names the wait the others were stuck in.)
int case_summary_precedence(Verdict v);
const char* verdict_name(Verdict v);  // "PASS", "FAIL", ...
// USAGE and HARNESS: the suite's own verdicts (a bad command line, the harness broke), never what the node did; an
// expected table cannot expect one, a bisect cannot judge one, and one points to no runtime's regression thread.
bool is_suite_verdict(Verdict v);
std::optional<Verdict> verdict_from_name(std::string_view name);

struct [[nodiscard]] Status {
  Verdict verdict = Verdict::Pass;
  std::string detail;

  bool ok() const { return verdict == Verdict::Pass; }

  static Status pass(std::string detail = {}) { return {Verdict::Pass, std::move(detail)}; }
  static Status fail(std::string detail) { return {Verdict::Fail, std::move(detail)}; }
  static Status skip(std::string detail) { return {Verdict::Skip, std::move(detail)}; }
  static Status hang(std::string detail) { return {Verdict::Hang, std::move(detail)}; }
  static Status harness(std::string detail) { return {Verdict::Harness, std::move(detail)}; }
};

// "what: strerror(errno)" for a failed libc call; reads errno, so call it first.
std::string errno_text(std::string_view what);

}  // namespace vmr

// Returns early from the enclosing function when a Status-returning call did not pass.
#define VMR_TRY(expr)                                  \
  do {                                                 \
    ::vmr::Status vmr_try_status_ = (expr);            \
    if (!vmr_try_status_.ok()) return vmr_try_status_; \
  } while (0)

// scripts/health-check's one line and exit code, made from the triage's summary.json: the line is what Slurm
// (scontrol ... Reason=) and NHC (die 1 "...") carry as a node's drain reason, so it is one printable line of at
// most 200 bytes with no quote characters, and it names the first row a reader should look at.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pair.h"
#include "report.h"

namespace vmr_tools {

// The health check's exit codes (docs/cluster.md "Health check"): 2 is a bad command line, as in every tool.
enum class Health { Healthy = 0, Unhealthy = 1, NothingRan = 77, Broken = 99 };

// What scripts/health-check knows of the triage it ran, beside its summary.
struct HealthRun {
  int triage_exit = -1;      // scripts/triage's exit status; -1: not given (judged from the summary alone)
  std::string took;          // seconds, as the script measured them ("12.3"); empty: not said
  std::string overran;       // the budget in seconds at which the triage was stopped; empty: it finished
  bool require_gpu = false;  // a node where no GPU case could run is unhealthy, not "nothing ran"
};

struct HealthVerdict {
  Health health = Health::Broken;
  std::string line;  // reason_safe already
};

// The health of a node from its triage. `summary` is null where none could be read (`unreadable_why` says why).
// In order: a stopped triage is Unhealthy; a triage exit other than 0, 1 or 77 is Broken, and so is no summary
// (but exit 77 without one is NothingRan); a problem of the suite (a table problem, a binary the manifest lists that
// is not there) is Broken, the node not judged ("the node was not judged, a suite problem: <the first>"): the same
// on every node of a bad deployment, never a drain; a differing row or exit 1 is Unhealthy; exit 77, or no row on
// GPUs (a non-empty pair) that ran (a triage older than exit 77), is NothingRan (Unhealthy with require_gpu); else
// Healthy. A differing row's detail goes through drain_stable.
HealthVerdict judge_health(const Summary* summary, const std::string& unreadable_why, const HealthRun& run);

// The differing row the line names: the first CHANGED row on a pair of GPUs ("0-1", same-GPU "0-0"), since a pair
// names where to look; else the first CHANGED row of any kind (a mesh, a host run, an unreadable record), in
// summary.json's order. Null when no row differs.
const Row* first_differing_row(const Summary& s);
// A failure's detail as a drain reason: what differs between two runs of one failure becomes '#' (a rank's
// " (pid 123)" is dropped, "pid=123" reads "pid=#", "1.25 s" "# s" with ms, us, ns, min, and an address of 6 or
// more hex digits "0x#"), so that scripts/health-check, which leaves a drain with the very same reason alone, keeps
// the first drain's time instead of draining again every interval. Other numbers (GPU indices, codes) stay.
std::string drain_stable(std::string_view text);
// Text made safe as a Slurm Reason and an NHC die message: control bytes become spaces, runs of spaces one, bytes
// past ASCII '?', and the quote characters " ' ` are dropped (NHC 1.4 passes the message through
// `eval ... "'$*'"`, where a ' ends the quoting and a ` can run a command); longer than max_bytes: cut to end
// in "...".
std::string reason_safe(std::string_view text, size_t max_bytes = 200);

// check_expected --health-line [--summary SUMMARY.json] [--exit N] [--took S] [--overran B] [--require-gpu]:
// prints the line and returns the health's exit code (2 on a bad command line).
int health_line_mode(const std::vector<std::string>& args);

}  // namespace vmr_tools

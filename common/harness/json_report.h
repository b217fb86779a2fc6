// The --json record of a run (schema "vmem-repro-run/1") and the case-level figures it shares with the VERDICT
// output.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "harness/env_block.h"
#include "harness/rank_record.h"
#include "harness/supervisor.h"

namespace vmr {

struct RunSummary {
  std::string binary, backend;
  EnvFacts host, vars;
  std::vector<int> devices;
  std::string device_source;
  std::vector<std::string> not_run;  // the selected cases an interrupt left unstarted, in order
};

// A run's verdict, the label of its VERDICT line (the case, or the cases joined by '+') and its detail.
struct RunVerdict {
  Verdict verdict = Verdict::Skip;
  std::string label;
  std::string detail;
};
// The most severe of the cases' verdicts, "PASS: a,b; FAIL: c" for several. Cases an interrupt left unstarted make
// it HARNESS, "interrupted by SIGINT; not run: c, d; ...", whatever the cases that ran gave: a run that lost cases
// is not their verdict. No case at all is the usage error "no case selected".
RunVerdict summarize_run(const std::vector<CaseResult>& results, const std::vector<std::string>& not_run,
                         int interrupted_by);

// Case-level phases: the launcher's spawn time, then the slowest rank's time for each phase, then the total.
std::vector<std::pair<std::string, double>> case_phases(const CaseResult& c);
// Case-level metrics: the first rank's copy of each name (a case sends each from one rank, or ranks that agree).
std::vector<Metric> case_metrics(const CaseResult& c);

std::string run_json(const RunSummary& run, const std::vector<CaseResult>& results, Verdict verdict,
                     const std::string& detail);

}  // namespace vmr

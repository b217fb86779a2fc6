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
};

// Case-level phases: the launcher's spawn time, then the slowest rank's time for each phase, then the total.
std::vector<std::pair<std::string, double>> case_phases(const CaseResult& c);
// Case-level metrics: ranks agree on them through the channel, so the first rank's copy of each name is taken.
std::vector<Metric> case_metrics(const CaseResult& c);

std::string run_json(const RunSummary& run, const std::vector<CaseResult>& results, Verdict verdict,
                     const std::string& detail);

}  // namespace vmr

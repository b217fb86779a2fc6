// A binary's `--list --json` (common/harness/launcher.cpp writes it, case_policy decides its tags): what the tools
// and, through check_expected --cases, scripts/triage know of a binary's cases. Nothing here decides a tag.
#pragma once

#include <string>
#include <vector>

#include "harness/status.h"

namespace vmr_tools {

struct ListedCase {
  std::string name;
  bool opt_in = false;              // known-crash or self-test: a plain run leaves it out
  std::vector<std::string> labels;  // expected/verdicts.md's labels of the case (the planner reads "gpu-alone")
  bool known_crash = false;         // some row allows CRASH
};

struct CaseList {
  std::string binary;
  std::vector<ListedCase> cases;
};

// Strict: the schema vmem-repro-cases/1, a binary name, and a name and opt_in for every case, no name twice.
vmr::Status parse_case_list(const std::string& json, CaseList* out);
// Lists `binary` the one way every caller does (scripts/lib/case_list.sh's vmr_list_cases: its environment and
// time limit) and parses what it wrote; a listing that fails is the lister's one line, naming the binary.
vmr::Status list_binary(const std::string& binary, CaseList* out);

}  // namespace vmr_tools

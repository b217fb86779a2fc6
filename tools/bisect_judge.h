// One `git bisect run` step's decision: each chosen case's run judged good, bad or not judgeable here, and the
// commit's exit code by git bisect's contract (0 good, 1 bad, 125 skip this commit). What "good" means is the
// user's: the case matches expected/verdicts.md for this node, or the case PASSes.
#pragma once

#include <string>
#include <vector>

#include "harness/expected.h"
#include "run_records.h"

namespace vmr_tools {

enum class GoodIs { Expected, Pass };
enum class Judgement { Good, Bad, Skip };

struct CaseJudgement {
  std::string case_name;  // binary.case
  Judgement judgement = Judgement::Skip;
  std::string why;  // one line
};

// A SKIP (the runtime cannot run the case here), a HARNESS or usage verdict (the suite broke, not the runtime), a
// rank the dynamic loader ended (exit 127: the runtime under test could not start) and an unreadable record are
// Skip, whatever `good` is: no commit is blamed for them. With GoodIs::Expected a run no
// row covers is Skip too (nothing says what it should do); a verdict or reason the row does not allow is Bad.
// `runtime_dirs` (real paths; empty: no check) are the folders the runtime under test was to be loaded from
// (scripts/bisect's --lib folders, else its --rocm ones): an AMD run (backend hip or hsa) is Skip unless each rank
// that names the folders it loaded HIP and ROCr from (hip_runtime_folder, hsa_runtime_folder) names one of them for
// either, and some rank names one; else another runtime ran (the loader found none there, or an RPATH chose first)
// and the verdict says nothing of the commit. The CUDA and host binaries name no such folder: not checked.
CaseJudgement judge_run(const std::vector<vmr::ExpectedRow>& table, const Run& run, GoodIs good,
                        const std::vector<std::string>& runtime_dirs = {});
// The commit: Bad if any case is bad (a bad case is evidence even beside one that could not run), else Skip if any
// case could not be judged, else Good.
Judgement judge_commit(const std::vector<CaseJudgement>& cases);
int bisect_exit_code(Judgement j);        // 0, 1 or 125
const char* judgement_name(Judgement j);  // "good", "bad", "skip"

}  // namespace vmr_tools

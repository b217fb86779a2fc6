#include "bisect_judge.h"

#include <algorithm>
#include <utility>

#include "compare.h"

namespace vmr_tools {

using namespace vmr;

namespace {
// The exit code of a process the dynamic loader ends: a library it needs, or a symbol of one, is missing.
constexpr int kLoaderExitCode = 127;

// Why an AMD run cannot be taken for the runtime under test (judge_run's runtime_dirs); "" when it can. The ranks
// name the folder the loader took each runtime from (amd_env.hip: real paths, the file's own links not followed),
// so a folder is compared whole: the loader searches no subfolder, and a library reached through a link into
// another folder was still found in the one named.
std::string other_runtime(const Run& run, const std::vector<std::string>& dirs) {
  if (dirs.empty() || (run.backend != "hip" && run.backend != "hsa")) return "";
  std::string under;
  for (const auto& d : dirs) under += (under.empty() ? "" : ", ") + d;
  bool named = false;
  for (size_t rank = 0; rank < run.rank_info.size(); ++rank) {
    std::string loaded;
    bool ours = false;
    for (const auto& [key, runtime] :
         {std::pair{"hip_runtime_folder", "HIP"}, std::pair{"hsa_runtime_folder", "ROCr"}}) {
      const auto it = run.rank_info[rank].find(key);
      if (it == run.rank_info[rank].end() || it->second.empty() || it->second[0] != '/') continue;
      loaded += (loaded.empty() ? "" : " and ") + std::string(runtime) + " from " + it->second;
      ours = ours || std::find(dirs.begin(), dirs.end(), it->second) != dirs.end();
    }
    if (loaded.empty()) continue;  // (a rank that named none, e.g. one that ended before its describe step)
    named = true;
    if (!ours)
      return "rank " + std::to_string(rank) + " loaded " + loaded + ", none a runtime folder (" + under +
             "): another runtime ran";
  }
  if (named) return "";
  return "no rank named the folder of the HIP or ROCr library it loaded: not known to have run the runtime in " + under;
}
}  // namespace

CaseJudgement judge_run(const std::vector<ExpectedRow>& table, const Run& run, GoodIs good,
                        const std::vector<std::string>& runtime_dirs) {
  const std::string name = run.binary + "." + run.case_name;
  const std::string seen = std::string(verdict_name(run.verdict)) + (run.detail.empty() ? "" : ": " + run.detail);
  if (!run.error.empty()) return {name, Judgement::Skip, one_line(run.error)};
  if (const std::string why = other_runtime(run, runtime_dirs); !why.empty())
    return {name, Judgement::Skip, one_line(why + ": " + seen)};
  if (run.verdict == Verdict::Skip) return {name, Judgement::Skip, one_line("cannot run here: " + seen)};
  if (is_suite_verdict(run.verdict))
    return {name, Judgement::Skip, one_line("the suite broke, not the runtime: " + seen)};
  // A rank the dynamic loader ended (its 127: a library function of the runtime under test missing, looked up only
  // when the case first called it) never ran the case: this runtime could not start here, as when --list fails.
  for (const auto& end : run.rank_ends)
    if (!end.reported && end.exit_code == kLoaderExitCode)
      return {name, Judgement::Skip, one_line("a rank could not start this runtime (exit 127, the loader's): " + seen)};
  if (good == GoodIs::Pass)
    return {name, run.verdict == Verdict::Pass ? Judgement::Good : Judgement::Bad, one_line(seen)};
  const Comparison c = compare_run(table, run);
  if (c.standing == Standing::NoRow)
    return {name, Judgement::Skip, one_line("no row of the expected table covers this node: " + seen)};
  return {name, c.differs() ? Judgement::Bad : Judgement::Good, one_line(seen + " | " + result_text(c, run))};
}

Judgement judge_commit(const std::vector<CaseJudgement>& cases) {
  bool skipped = cases.empty();
  for (const auto& c : cases) {
    if (c.judgement == Judgement::Bad) return Judgement::Bad;
    skipped = skipped || c.judgement == Judgement::Skip;
  }
  return skipped ? Judgement::Skip : Judgement::Good;
}

int bisect_exit_code(Judgement j) { return j == Judgement::Good ? 0 : j == Judgement::Bad ? 1 : 125; }

const char* judgement_name(Judgement j) { return j == Judgement::Good ? "good" : j == Judgement::Bad ? "bad" : "skip"; }

}  // namespace vmr_tools

// The triage's plan: which exporter:importer GPU pairs each binary runs on, in rounds that never use a GPU twice (a
// round's launches run at once), the --mesh run and its re-plan, and the time the plan is modelled to take.
// scripts/triage runs what this says (through tools/triage_plan.cpp) and only starts, waits for and prints.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pair.h"

namespace vmr_plan {

using vmr_tools::Pair;

// Above this many GPUs every ordered pair (n * (n - 1) launches) would take too long: one pass around the ring.
constexpr int kMaxGpusForEveryPair = 8;

// A pair is tools/pair.h's: GPU indices in rank order (rank 0 exports, rank 1 imports); gpus[0] == gpus[1] is a
// same-GPU pair (two processes on one GPU), the diagonal of the matrix.
using Round = std::vector<Pair>;  // pairs that share no GPU, so they run at once

// What the user asked for: every ordered pair, one pass around the ring, or exactly the pairs of --pairs.
enum class PairMode { All, Ring, Listed };
const char* mode_name(PairMode m);  // "all", "ring", "list"

// --pairs LIST read: the pairs in the order given, indices without leading zeros, or one line saying why not.
struct PairsParsed {
  std::vector<Pair> pairs;
  std::string error;  // "" when read
};
PairsParsed parse_pairs(const std::string& text);
// "" when every index of `pairs` is below `gpus` (a backend without GPUs takes none and is not checked), else the
// line that names the first pair past them.
std::string pairs_past_gpus(const std::vector<Pair>& pairs, const std::string& backend, int gpus);

// Round 0 of a plan: every GPU's same-GPU pair at once (they share no GPU). The first question about a fault: does
// it need a second GPU or only a second process?
Round diagonal_round(int gpus);
// Every ordered pair of two different GPUs by the circle method: GPU 0 stays, the others rotate, and each of the
// n - 1 rotations (n even; with one idle GPU a round when odd) pairs the GPUs into a matching taken both ways, one
// round each: 8 GPUs make 56 pairs in 14 rounds of 4.
std::vector<Round> every_pair_rounds(int gpus);
// 0:1, 1:2, ..., n-1:0 (nothing below 2 GPUs).
std::vector<Pair> ring_pairs(int gpus);
// The pairs in order, each into the first round that has neither of its GPUs yet.
std::vector<Round> greedy_rounds(const std::vector<Pair>& pairs);
// The mode that runs on `gpus`: every pair becomes the ring above kMaxGpusForEveryPair.
PairMode mode_on(PairMode asked, int gpus);
// The rounds of `gpus` GPUs in `mode` (which mode_on has already chosen), after the diagonal round when `diagonal`
// (never for Listed: --pairs names its same-GPU pairs itself). `listed`: the pairs of --pairs.
std::vector<Round> pair_rounds(int gpus, PairMode mode, bool diagonal, const std::vector<Pair>& listed);

// How a binary's launches share GPUs with other binaries' when every round runs at once (no --jobs): Together
// binaries run beside each other, each in its own processes (a case of one reads only its own process's counts);
// an Alone binary has a case that reads the GPU's device-wide state (expected/verdicts.md's label `gpu-alone`: the
// AMD unmap-leak case, whose KFD count cannot see memory a release left allocated, so the GPU's free memory decides,
// which another binary's allocations would move, and KFD counts every other HSA process as on every GPU) and runs
// after them, one such binary at a time and each of its launches alone. A binary that runs a known-crash case
// (--include-crash) is Alone too: a fault that resets the GPU would take the binaries beside it down with it.
enum class Sharing { Together, Alone };
const char* sharing_name(Sharing s);  // "together", "alone"
// The label of expected/verdicts.md that makes a case's binary Alone.
inline constexpr const char* kAloneLabel = "gpu-alone";

// One launch of rounds.txt: "k round binary devices cases sharing". round: a number, "mesh", or "diag<number>" (the
// diagonal after a mesh run); devices: "-" (none), "0,1" (a pair) or "0,1,2" (a mesh); cases joined by '+'.
struct Launch {
  int k = 0;  // 1, 2, ...: the launch's number across the whole triage
  std::string round;
  std::string binary;
  Pair gpus;  // empty: a launch without --devices (a host binary, a GPU binary on a node without GPUs)
  std::vector<std::string> cases;
  Sharing sharing = Sharing::Together;
};
std::string launch_line(const Launch& l);
// The lines of rounds.txt; nullopt where one is not a launch line.
std::optional<std::vector<Launch>> parse_launches(const std::string& text);

// One binary to plan, as triage found it.
struct BinaryAsk {
  std::string binary;
  std::string backend;
  std::optional<int> gpus;  // none: a host binary, one launch without devices
  std::vector<std::string> cases;
  PairMode mode = PairMode::All;
  std::vector<Pair> listed;  // Listed's pairs
  bool mesh = false;         // --mesh
  Sharing sharing = Sharing::Together;
};
// A binary's launches (numbered from `first_k`) and the notes that say what was chosen.
struct BinaryPlan {
  std::vector<Launch> launches;
  std::vector<std::string> notes;
};
BinaryPlan plan_binary(const BinaryAsk& ask, int first_k);
// --mesh's second step: pair runs of `ask.mode` (no diagonal: it ran beside the mesh) for the cases that did not
// pass the mesh run on `ask.gpus` GPUs; `passed`: the cases its record shows as PASS (none for a lost record).
BinaryPlan replan_after_mesh(const BinaryAsk& ask, const std::vector<std::string>& passed, int first_k);

// Whether binaries run beside each other: only where every round runs whole (`jobs` 0). --jobs N and --serial
// promise at most N runs at once, so there the binaries take turns.
inline bool binaries_at_once(int jobs) { return jobs == 0; }

// What the plan is modelled to take, from the seconds each launch took here (by k; a launch not timed counts for
// nothing). A binary's time is its rounds x its mean launch, a round split into waves of `jobs` (0: a whole round at
// once; an Alone binary's one launch a wave); `plan` is the longest Together binary's time plus every Alone binary's
// where binaries_at_once, else the sum. `health_check`: scripts/health-check's plan on 8 GPUs with every case passing,
// per binary that ran pairs one 8-rank mesh launch costed as 4 of its pair launches (each rank imports from every
// other: ranks / 2) and one round of 8 same-GPU pairs costed as one, binaries combined as for `plan` with every round
// whole.
struct Model {
  double plan = 0;
  double health_check = 0;
};
Model model(const std::vector<Launch>& launches, const std::map<int, double>& took, int jobs);

// plan.txt: per case ("binary.case", in the order the launches first name them) the devices of every launch that
// ran it, written "0-1" as the records' names ("repro_x.read 0-0 0-1"); a host launch adds none. The comparison
// reads a listed launch without its record as CHANGED.
std::string cases_run_on(const std::vector<Launch>& launches);

}  // namespace vmr_plan

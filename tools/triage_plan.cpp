// scripts/triage's planner (tools/plan.h): the script asks it what to run and runs just that. Its files are the
// triage's results folder's: rounds.txt (one launch a line, "k round binary devices cases sharing") and plan.txt.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "case_list.h"
#include "flags.h"
#include "input_file.h"
#include "plan.h"
#include "run_records.h"

using namespace vmr_plan;

namespace {

const char kUsage[] =
    "usage: triage_plan --check-pairs LIST [--gpus BACKEND=N]...\n"
    "       triage_plan --binary NAME --backend BACKEND [--gpus N] --cases A+B --list LIST.json\n"
    "                   [--ring | --pairs LIST] [--mesh] --rounds FILE\n"
    "       triage_plan --replan-meshes DIR [--ring] --rounds FILE\n"
    "       triage_plan --cases-run-on FILE\n"
    "       triage_plan --model FILE --took-dir DIR [--jobs N]\n"
    "  --check-pairs  --pairs LIST as read (\"0:1,1:0\", no leading zeros), or one line saying why not (exit 2): each\n"
    "                 pair once, every index below the GPUs of each BACKEND (N GPUs; 0: none, not checked)\n"
    "  --binary       appends the binary's launches (N GPUs; none: a host binary) to FILE, numbered after its\n"
    "                 lines, and prints its notes, one a line; LIST.json (its --list --json) says whether a case\n"
    "                 of A+B is labelled gpu-alone (then it runs after the binaries that run side by side)\n"
    "  --replan-meshes --mesh's pair runs, per mesh run of FILE, for its cases its record in DIR does not show as\n"
    "                 PASS (a lost record: every case); appended to FILE, the notes printed\n"
    "  --cases-run-on plan.txt from rounds.txt: per case the devices of every launch that ran it\n"
    "  --model        \"PLAN HEALTH_CHECK\" seconds: this plan's modelled time from the seconds in DIR/.took.<k>,\n"
    "                 and scripts/health-check's (--mesh on 8 GPUs, every case passing)\n"
    "Exit 0, 2 on a bad command line or input, 99 where a file cannot be read or written.\n";

int usage(const std::string& why) {
  std::fprintf(stderr, "triage_plan: %s\n", why.c_str());
  return 2;
}

std::vector<std::string> cases_of(const std::string& joined) {
  std::vector<std::string> cases;
  std::istringstream in(joined);
  for (std::string c; std::getline(in, c, '+');)
    if (!c.empty()) cases.push_back(c);
  return cases;
}

// rounds.txt read; exit code 0, or 2 / 99 with the line said.
int read_launches(const std::string& path, std::vector<Launch>* launches) {
  std::string text;
  if (vmr::Status st = vmr_tools::read_input_file(path, &text); !st.ok()) {  // (a FIFO or device refused, never read)
    std::fprintf(stderr, "triage_plan: %s\n", vmr_tools::one_line(st.detail).c_str());
    return 99;
  }
  std::optional<std::vector<Launch>> parsed = parse_launches(text);
  if (!parsed) return usage(path + " has a line that is not \"k round binary devices cases sharing\"");
  *launches = *parsed;
  return 0;
}

int append_launches(const std::string& path, const std::vector<Launch>& launches) {
  std::ofstream out(path, std::ios::app);
  for (const Launch& l : launches) out << launch_line(l) << "\n";
  out.flush();
  if (!out) {
    std::fprintf(stderr, "triage_plan: cannot write %s\n", path.c_str());
    return 99;
  }
  return 0;
}

int print_notes(const BinaryPlan& plan) {
  for (const std::string& note : plan.notes) std::printf("%s\n", note.c_str());
  return 0;
}

// The pair mode of --ring / --pairs (none: every ordered pair); false where --pairs does not read.
bool mode_of(bool ring, const std::string& pairs, BinaryAsk* ask, std::string* why) {
  if (ring && !pairs.empty()) return *why = "--ring and --pairs are two answers to one question", false;
  if (ring) ask->mode = PairMode::Ring;
  if (pairs.empty()) return true;
  PairsParsed parsed = parse_pairs(pairs);
  if (!parsed.error.empty()) return *why = parsed.error, false;
  ask->mode = PairMode::Listed;
  ask->listed = parsed.pairs;
  return true;
}

int check_pairs(const std::string& list, const std::vector<std::string>& backends) {
  PairsParsed parsed = parse_pairs(list);
  if (!parsed.error.empty()) return usage(parsed.error);
  for (const std::string& b : backends) {
    const size_t eq = b.rfind('=');
    int gpus = -1;
    if (eq == std::string::npos || std::sscanf(b.c_str() + eq + 1, "%d", &gpus) != 1 || gpus < 0)
      return usage("--gpus " + b + " is not BACKEND=N");
    const std::string past = pairs_past_gpus(parsed.pairs, b.substr(0, eq), gpus);
    if (!past.empty()) return usage(past);
  }
  std::string out;
  for (const Pair& p : parsed.pairs) out += (out.empty() ? "" : ",") + vmr_tools::pair_listed(p);
  std::printf("%s\n", out.c_str());
  return 0;
}

// Alone where a case to run carries kAloneLabel in the binary's listing or is known to crash; exit code 0, or 2 / 99
// with the line said.
int sharing_of(const std::string& list_path, BinaryAsk* ask) {
  std::string text;
  if (const vmr::Status st = vmr_tools::read_input_file(list_path, &text); !st.ok()) {
    std::fprintf(stderr, "triage_plan: %s\n", st.detail.c_str());
    return 99;
  }
  vmr_tools::CaseList list;
  if (const vmr::Status st = vmr_tools::parse_case_list(text, &list); !st.ok())
    return usage(list_path + ": " + st.detail);
  for (const vmr_tools::ListedCase& c : list.cases) {
    const bool runs = std::find(ask->cases.begin(), ask->cases.end(), c.name) != ask->cases.end();
    if (runs && (c.known_crash || std::find(c.labels.begin(), c.labels.end(), kAloneLabel) != c.labels.end()))
      ask->sharing = Sharing::Alone;
  }
  return 0;
}

int plan_one(const std::string& rounds, BinaryAsk ask, const std::string& gpus, bool ring, const std::string& pairs,
             const std::string& list) {
  std::string why;
  if (!mode_of(ring, pairs, &ask, &why)) return usage(why);
  if (int rc = sharing_of(list, &ask)) return rc;
  if (!gpus.empty()) {
    int n = -1;
    if (std::sscanf(gpus.c_str(), "%d", &n) != 1 || n < 0) return usage("--gpus " + gpus + " is not a GPU count");
    ask.gpus = n;
  }
  if (ask.cases.empty()) return usage("--cases names no case");
  std::vector<Launch> before;
  if (int rc = read_launches(rounds, &before)) return rc;
  BinaryPlan plan = plan_binary(ask, int(before.size()) + 1);
  if (int rc = append_launches(rounds, plan.launches)) return rc;
  return print_notes(plan);
}

// Every mesh run's second step, from its record in `results` (<binary>.<devices as 0-1-2>.json).
int replan_meshes(const std::string& rounds, const std::string& results, bool ring) {
  std::vector<Launch> before;
  if (int rc = read_launches(rounds, &before)) return rc;
  std::vector<Launch> added;
  std::vector<std::string> notes;
  for (const Launch& l : before) {
    if (l.round != "mesh") continue;
    BinaryAsk ask;
    ask.binary = l.binary;
    ask.gpus = int(l.gpus.gpus.size());
    ask.cases = l.cases;
    ask.sharing = l.sharing;
    if (ring) ask.mode = PairMode::Ring;
    std::vector<std::string> passed;
    for (const vmr_tools::Run& run :
         vmr_tools::read_record(results, l.binary + "." + vmr_tools::pair_key(l.gpus) + ".json"))
      if (run.error.empty() && run.verdict == vmr::Verdict::Pass) passed.push_back(run.case_name);
    BinaryPlan plan = replan_after_mesh(ask, passed, int(before.size() + added.size()) + 1);
    added.insert(added.end(), plan.launches.begin(), plan.launches.end());
    notes.insert(notes.end(), plan.notes.begin(), plan.notes.end());
  }
  if (int rc = append_launches(rounds, added)) return rc;
  return print_notes({added, notes});
}

int model_of(const std::string& rounds, const std::string& took_dir, const std::string& jobs_text) {
  int jobs = 0;
  if (!jobs_text.empty() && (std::sscanf(jobs_text.c_str(), "%d", &jobs) != 1 || jobs < 0))
    return usage("--jobs " + jobs_text + " is not a number");
  std::vector<Launch> launches;
  if (int rc = read_launches(rounds, &launches)) return rc;
  std::map<int, double> took;
  for (const Launch& l : launches) {
    std::string text;
    double s = 0;
    // (a launch without its time, or whose file cannot be read, is modelled without it)
    if (vmr_tools::read_input_file(took_dir + "/.took." + std::to_string(l.k), &text).ok() &&
        std::sscanf(text.c_str(), "%lf", &s) == 1)
      took[l.k] = s;
  }
  const Model m = model(launches, took, jobs);
  std::printf("%.1f %.1f\n", m.plan, m.health_check);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) return std::fputs(kUsage, stdout), 0;
  std::string check, binary, backend, cases, pairs, rounds, replan_results, run_on, model_file, took_dir, jobs, list;
  std::vector<std::string> gpus;  // --check-pairs: BACKEND=N each; --binary: N, at most once
  bool ring = false, mesh = false;
  vmr_tools::Flags f;
  f.values = {{"--check-pairs", &check},
              {"--binary", &binary},
              {"--backend", &backend},
              {"--cases", &cases},
              {"--pairs", &pairs},
              {"--rounds", &rounds},
              {"--replan-meshes", &replan_results},
              {"--model", &model_file},
              {"--cases-run-on", &run_on},
              {"--took-dir", &took_dir},
              {"--jobs", &jobs},
              {"--list", &list}};
  f.lists = {{"--gpus", &gpus}};
  f.switches = {{"--ring", &ring}, {"--mesh", &mesh}};
  if (args.empty() || !vmr_tools::parse_flags(args, f)) return std::fputs(kUsage, stderr), 2;
  if (args[0] == "--check-pairs") return check_pairs(check, gpus);
  if (args[0] == "--binary" && !rounds.empty() && !backend.empty() && !list.empty() && gpus.size() <= 1) {
    BinaryAsk ask;
    ask.binary = binary;
    ask.backend = backend;
    ask.cases = cases_of(cases);
    ask.mesh = mesh;
    return plan_one(rounds, ask, gpus.empty() ? "" : gpus[0], ring, pairs, list);
  }
  if (args[0] == "--replan-meshes" && !rounds.empty()) return replan_meshes(rounds, replan_results, ring);
  if (args[0] == "--cases-run-on") {
    std::vector<Launch> launches;
    if (int rc = read_launches(run_on, &launches)) return rc;
    return std::fputs(cases_run_on(launches).c_str(), stdout) < 0 ? 99 : 0;
  }
  if (args[0] == "--model" && !took_dir.empty()) return model_of(model_file, took_dir, jobs);
  return std::fputs(kUsage, stderr), 2;
}

#include "plan.h"

#include <algorithm>
#include <set>
#include <sstream>

namespace vmr_plan {

namespace {

Pair pair(int a, int b) { return Pair{{a, b}}; }

std::vector<std::string> split(const std::string& text, char at) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, at)) parts.push_back(part);
  if (!text.empty() && text.back() == at) parts.push_back("");  // "0:1," ends in an empty part, which is refused
  return parts;
}

std::string join(const std::vector<std::string>& parts, const std::string& with) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : with) + p;
  return out;
}

// 1 to 3 digits (a GPU index as --pairs takes it), read without leading zeros; nullopt otherwise.
std::optional<int> gpu_index(const std::string& s) {
  if (s.empty() || s.size() > 3) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Launches of `rounds`, round labels `prefix` + their index from `first_round`, numbered from `*k`.
void add_launches(const std::vector<Round>& rounds, const std::string& prefix, int first_round, const BinaryAsk& ask,
                  const std::vector<std::string>& cases, int* k, std::vector<Launch>* into) {
  int r = first_round;
  for (const Round& round : rounds) {
    for (const Pair& p : round)
      into->push_back({(*k)++, prefix + std::to_string(r), ask.binary, p, cases, ask.sharing});
    ++r;
  }
}

size_t pair_count(const std::vector<Round>& rounds) {
  size_t n = 0;
  for (const Round& r : rounds) n += r.size();
  return n;
}

}  // namespace

const char* sharing_name(Sharing s) { return s == Sharing::Alone ? "alone" : "together"; }

const char* mode_name(PairMode m) {
  switch (m) {
    case PairMode::All:
      return "all";
    case PairMode::Ring:
      return "ring";
    case PairMode::Listed:
      return "list";
  }
  return "?";
}

PairsParsed parse_pairs(const std::string& text) {
  PairsParsed parsed;
  const std::string not_a_list = "--pairs '" + text + "' is not a list such as 0:1,1:0";
  if (text.empty()) return {{}, not_a_list};
  for (const std::string& item : split(text, ',')) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) return {{}, not_a_list};
    const std::optional<int> a = gpu_index(item.substr(0, colon));
    const std::optional<int> b = gpu_index(item.substr(colon + 1));
    if (!a || !b) return {{}, not_a_list};
    // Each pair once: a pair run twice writes one record over the other.
    const Pair p = pair(*a, *b);
    if (std::find(parsed.pairs.begin(), parsed.pairs.end(), p) != parsed.pairs.end())
      return {{}, "--pairs lists " + vmr_tools::pair_listed(p) + " twice"};
    parsed.pairs.push_back(p);
  }
  return parsed;
}

std::string pairs_past_gpus(const std::vector<Pair>& pairs, const std::string& backend, int gpus) {
  if (gpus < 1) return "";  // (it runs once to say why, with no pair)
  for (const Pair& p : pairs) {
    for (int g : p.gpus) {
      if (g >= gpus)
        return "--pairs " + vmr_tools::pair_listed(p) + " names GPU " + std::to_string(g) + ", but " + backend +
               " shows " + std::to_string(gpus) + " GPUs (0 to " + std::to_string(gpus - 1) + ")";
    }
  }
  return "";
}

Round diagonal_round(int gpus) {
  Round r;
  for (int i = 0; i < gpus; ++i) r.push_back(pair(i, i));
  return r;
}

std::vector<Round> every_pair_rounds(int gpus) {
  std::vector<Round> rounds;
  if (gpus < 2) return rounds;
  const int seats = gpus % 2 == 0 ? gpus : gpus + 1;  // seat `gpus` is the idle one when odd
  std::vector<int> rotating;
  for (int i = 1; i < seats; ++i) rotating.push_back(i);
  for (int r = 0; r < seats - 1; ++r) {
    std::vector<int> table{0};
    table.insert(table.end(), rotating.begin(), rotating.end());
    Round forward, backward;
    for (int i = 0; i < seats / 2; ++i) {
      const int a = table[i], b = table[seats - 1 - i];
      if (a >= gpus || b >= gpus) continue;
      forward.push_back(pair(a, b));
      backward.push_back(pair(b, a));
    }
    rounds.push_back(forward);
    rounds.push_back(backward);
    std::rotate(rotating.begin(), rotating.begin() + 1, rotating.end());
  }
  return rounds;
}

std::vector<Pair> ring_pairs(int gpus) {
  std::vector<Pair> pairs;
  if (gpus < 2) return pairs;
  for (int i = 0; i < gpus; ++i) pairs.push_back(pair(i, (i + 1) % gpus));
  return pairs;
}

std::vector<Round> greedy_rounds(const std::vector<Pair>& pairs) {
  std::vector<Round> rounds;
  std::vector<std::set<int>> busy;
  for (const Pair& p : pairs) {
    size_t r = 0;
    while (r < rounds.size() && (busy[r].count(p.gpus[0]) || busy[r].count(p.gpus[1]))) ++r;
    if (r == rounds.size()) {
      rounds.emplace_back();
      busy.emplace_back();
    }
    rounds[r].push_back(p);
    busy[r].insert(p.gpus.begin(), p.gpus.end());
  }
  return rounds;
}

PairMode mode_on(PairMode asked, int gpus) {
  return asked == PairMode::All && gpus > kMaxGpusForEveryPair ? PairMode::Ring : asked;
}

std::vector<Round> pair_rounds(int gpus, PairMode mode, bool diagonal, const std::vector<Pair>& listed) {
  std::vector<Round> rounds;
  if (mode == PairMode::Listed) return greedy_rounds(listed);
  if (diagonal && gpus >= 1) rounds.push_back(diagonal_round(gpus));
  const std::vector<Round> pairs = mode == PairMode::All ? every_pair_rounds(gpus) : greedy_rounds(ring_pairs(gpus));
  rounds.insert(rounds.end(), pairs.begin(), pairs.end());
  return rounds;
}

std::string launch_line(const Launch& l) {
  const std::string devices = l.gpus.empty() ? "-" : vmr_tools::pair_devices(l.gpus);
  return std::to_string(l.k) + " " + l.round + " " + l.binary + " " + devices + " " + join(l.cases, "+") + " " +
         sharing_name(l.sharing);
}

std::optional<std::vector<Launch>> parse_launches(const std::string& text) {
  std::vector<Launch> launches;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    std::istringstream words(line);
    Launch l;
    std::string devices, cases, sharing, more;
    if (!(words >> l.k >> l.round >> l.binary >> devices >> cases >> sharing) || (words >> more) || l.k < 1)
      return std::nullopt;
    // The devices as launch_line writes them, and nothing else ("0-1" or "0:1" here is a file not ours).
    if (devices != "-" && (!vmr_tools::parse_pair(devices, &l.gpus).ok() || vmr_tools::pair_devices(l.gpus) != devices))
      return std::nullopt;
    if (sharing != sharing_name(Sharing::Together) && sharing != sharing_name(Sharing::Alone)) return std::nullopt;
    l.sharing = sharing == sharing_name(Sharing::Alone) ? Sharing::Alone : Sharing::Together;
    l.cases = split(cases, '+');
    launches.push_back(l);
  }
  return launches;
}

BinaryPlan plan_binary(const BinaryAsk& ask, int first_k) {
  BinaryPlan plan;
  int k = first_k;
  const std::string cases = std::to_string(ask.cases.size()) + " case(s)";
  if (!ask.gpus || *ask.gpus < 1) {
    // A host binary runs without devices; a GPU binary with no GPU runs once to say why, in the runtime's own
    // words (no driver, no device, ...), for every case.
    plan.launches.push_back({k, "0", ask.binary, Pair{}, ask.cases, ask.sharing});
    if (ask.gpus)
      plan.notes.push_back(ask.backend + ": no GPU visible; " + ask.binary + " ran its " + cases + " once to show why");
    return plan;
  }
  const int n = *ask.gpus;
  const std::string gpus = std::to_string(n);
  const PairMode mode = mode_on(ask.mode, n);
  if (mode != ask.mode)
    plan.notes.push_back(ask.backend + ": " + gpus + " GPUs is more than " + std::to_string(kMaxGpusForEveryPair) +
                         ": one pass around the ring instead of every ordered pair");
  // --mesh: one launch with a rank on every GPU, and the diagonal (a mesh has no rank pair on one GPU); the pairs
  // come later, for what did not pass it (replan_after_mesh). On 2 GPUs the mesh is the pair itself.
  if (ask.mesh && n >= 3 && mode != PairMode::Listed) {
    Pair all;
    for (int i = 0; i < n; ++i) all.gpus.push_back(i);
    plan.launches.push_back({k++, "mesh", ask.binary, all, ask.cases, ask.sharing});
    add_launches({diagonal_round(n)}, "diag", 0, ask, ask.cases, &k, &plan.launches);
    plan.notes.push_back(ask.binary + ": --mesh on " + gpus + " GPUs: one mesh run and the diagonal (" + gpus +
                         " same-GPU pairs, one round) x " + cases);
    return plan;
  }
  const std::vector<Round> rounds = pair_rounds(n, mode, true, ask.listed);
  add_launches(rounds, "", 0, ask, ask.cases, &k, &plan.launches);
  const size_t pairs = pair_count(rounds);
  if (mode == PairMode::Listed) {
    plan.notes.push_back(ask.backend + ": " + gpus + " GPU(s), the " + std::to_string(pairs) +
                         " pair(s) of --pairs in " + std::to_string(rounds.size()) + " round(s) x " + cases + " of " +
                         ask.binary);
  } else if (n == 1) {
    plan.notes.push_back(ask.backend +
                         ": 1 GPU: its same-GPU pair 0:0 (exporter and importer processes on GPU 0) is the whole "
                         "triage, " +
                         cases + " of " + ask.binary);
  } else {
    plan.notes.push_back(ask.backend + ": " + gpus + " GPUs, the diagonal (" + gpus +
                         " same-GPU pairs, one round) and " + std::to_string(pairs - n) + " pair(s) (" +
                         mode_name(mode) + ") in " + std::to_string(rounds.size() - 1) + " round(s) x " + cases +
                         " of " + ask.binary);
  }
  return plan;
}

BinaryPlan replan_after_mesh(const BinaryAsk& ask, const std::vector<std::string>& passed, int first_k) {
  BinaryPlan plan;
  const int n = ask.gpus.value_or(0);
  const std::string gpus = std::to_string(n);
  std::vector<std::string> failed;
  for (const std::string& c : ask.cases)
    if (std::find(passed.begin(), passed.end(), c) == passed.end()) failed.push_back(c);
  if (failed.empty()) {
    plan.notes.push_back(ask.binary + ": every case passed the mesh run on " + gpus +
                         " GPUs (every rank imports from every other)");
    return plan;
  }
  // No diagonal: it ran beside the mesh run.
  const std::vector<Round> rounds = pair_rounds(n, mode_on(ask.mode, n), false, ask.listed);
  int k = first_k;
  add_launches(rounds, "", 0, ask, failed, &k, &plan.launches);
  plan.notes.push_back(ask.binary + ": the mesh run on " + gpus + " GPUs did not pass " + join(failed, ", ") + ": " +
                       std::to_string(pair_count(rounds)) + " pair runs name the pairs");
  return plan;
}

Model model(const std::vector<Launch>& launches, const std::map<int, double>& took, int jobs) {
  struct Mean {
    double sum = 0;
    int count = 0;
    double value() const { return count > 0 ? sum / count : 0; }
  };
  std::map<std::string, Mean> per_binary, per_binary_pairs;
  std::map<std::pair<std::string, std::string>, int> round_sizes;  // (binary, round) -> launches
  std::map<std::string, Sharing> sharing;
  for (const Launch& l : launches) {
    ++round_sizes[{l.binary, l.round}];
    sharing[l.binary] = l.sharing;
    const auto t = took.find(l.k);
    if (t == took.end()) continue;
    per_binary[l.binary].sum += t->second;
    ++per_binary[l.binary].count;
    // A pair launch (the diagonal's too), not a host launch nor a mesh run: what the health check's model counts.
    if (l.gpus.is_pair()) {
      per_binary_pairs[l.binary].sum += t->second;
      ++per_binary_pairs[l.binary].count;
    }
  }
  // The binaries' times combined: side by side (the longest Together one, then each Alone one) or in turn.
  struct Combined {
    double together = 0, in_turn = 0;
    void add(Sharing s, double t, bool at_once) {
      if (at_once && s == Sharing::Together) {
        together = std::max(together, t);
      } else {
        in_turn += t;
      }
    }
    double value() const { return together + in_turn; }
  };
  std::map<std::string, double> per_binary_plan;
  for (const auto& [key, size] : round_sizes) {
    // An Alone binary runs its launches one at a time (scripts/lib/triage_launch.sh run_plan).
    const int at_once = sharing[key.first] == Sharing::Alone ? 1 : jobs;
    const int waves = at_once > 0 ? (size + at_once - 1) / at_once : 1;
    per_binary_plan[key.first] += waves * per_binary[key.first].value();
  }
  Combined plan, health_check;
  for (const auto& [binary, t] : per_binary_plan) plan.add(sharing[binary], t, binaries_at_once(jobs));
  constexpr int kMeshAsPairLaunches = 8 / 2;
  for (const auto& [binary, mean] : per_binary_pairs)
    health_check.add(sharing[binary], (kMeshAsPairLaunches + 1) * mean.value(), true);
  return {plan.value(), health_check.value()};
}

std::string cases_run_on(const std::vector<Launch>& launches) {
  std::vector<std::string> order;
  std::map<std::string, std::string> devices;
  for (const Launch& l : launches) {
    for (const std::string& c : l.cases) {
      const std::string name = l.binary + "." + c;
      if (!devices.count(name)) order.push_back(name);
      std::string& on = devices[name];
      if (!l.gpus.empty()) on += " " + vmr_tools::pair_key(l.gpus);
    }
  }
  std::string out;
  for (const std::string& name : order) out += name + devices[name] + "\n";
  return out;
}

}  // namespace vmr_plan

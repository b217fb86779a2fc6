// The triage's planner (tools/plan.h): for 1, 2, 3, 8, 9 and 16 GPUs, every pair it means to run is run exactly
// once, no round uses a GPU twice, and the rounds, notes, --pairs, --mesh re-plan, plan.txt and cost model are
// what scripts/triage prints and writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "plan.h"

using namespace vmr_plan;

namespace {

const int kGpuCounts[] = {1, 2, 3, 8, 9, 16};

std::vector<Pair> all_of(const std::vector<Round>& rounds) {
  std::vector<Pair> pairs;
  for (const Round& r : rounds) pairs.insert(pairs.end(), r.begin(), r.end());
  return pairs;
}

std::set<std::pair<int, int>> as_set(const std::vector<Pair>& pairs) {
  std::set<std::pair<int, int>> s;
  for (const Pair& p : pairs) s.insert({p.gpus[0], p.gpus[1]});
  return s;
}

void expect_no_gpu_twice(const std::vector<Round>& rounds, int gpus) {
  for (size_t r = 0; r < rounds.size(); ++r) {
    std::set<int> used;
    for (const Pair& p : rounds[r]) {
      EXPECT_LT(p.gpus[0], gpus);
      EXPECT_LT(p.gpus[1], gpus);
      EXPECT_TRUE(used.insert(p.gpus[0]).second) << "round " << r << " uses GPU " << p.gpus[0] << " twice";
      if (p.gpus[1] != p.gpus[0]) {
        EXPECT_TRUE(used.insert(p.gpus[1]).second) << "round " << r << " uses GPU " << p.gpus[1] << " twice";
      }
    }
  }
}

BinaryAsk ask_of(int gpus, PairMode mode = PairMode::All, bool mesh = false) {
  BinaryAsk ask;
  ask.binary = "repro_x";
  ask.backend = "hip";
  ask.gpus = gpus;
  ask.cases = {"read", "atomics"};
  ask.mode = mode;
  ask.mesh = mesh;
  return ask;
}

// `plan` has `launches` launches, the first written `first`, and the one note `note`.
void expect_plan(const BinaryPlan& plan, size_t launches, const std::string& first, const std::string& note) {
  ASSERT_EQ(plan.launches.size(), launches);
  EXPECT_EQ(launch_line(plan.launches[0]), first);
  EXPECT_EQ(plan.notes, std::vector<std::string>{note});
}

}  // namespace

TEST(Plan, EveryOrderedPairOnceInRoundsThatShareNoGpu) {
  for (int n : kGpuCounts) {
    SCOPED_TRACE(n);
    const std::vector<Round> rounds = every_pair_rounds(n);
    const std::vector<Pair> pairs = all_of(rounds);
    EXPECT_EQ(pairs.size(), size_t(n * (n - 1)));
    EXPECT_EQ(as_set(pairs).size(), pairs.size()) << "a pair twice";
    for (const Pair& p : pairs) EXPECT_NE(p.gpus[0], p.gpus[1]);
    expect_no_gpu_twice(rounds, n);
    // The circle method: n - 1 matchings (n even; n when odd), each taken both ways.
    const size_t matchings = n < 2 ? 0 : size_t(n % 2 == 0 ? n - 1 : n);
    EXPECT_EQ(rounds.size(), 2 * matchings);
    for (const Round& r : rounds) EXPECT_EQ(r.size(), size_t(n / 2));
  }
}

TEST(Plan, EightGpusAreTheDiagonalAnd56PairsIn14RoundsOf4) {
  const std::vector<Round> rounds = pair_rounds(8, mode_on(PairMode::All, 8), true, {});
  ASSERT_EQ(rounds.size(), 15u);
  EXPECT_EQ(as_set(rounds[0]), as_set(diagonal_round(8)));
  for (size_t r = 1; r < rounds.size(); ++r) EXPECT_EQ(rounds[r].size(), 4u);
  EXPECT_EQ(as_set(all_of(rounds)).size(), 64u);
}

TEST(Plan, TheDiagonalIsRoundZeroAndOnlyThere) {
  for (int n : kGpuCounts) {
    for (PairMode mode : {PairMode::All, PairMode::Ring}) {
      SCOPED_TRACE(std::to_string(n) + " " + mode_name(mode));
      const std::vector<Round> rounds = pair_rounds(n, mode_on(mode, n), true, {});
      ASSERT_FALSE(rounds.empty());
      EXPECT_EQ(as_set(rounds[0]), as_set(diagonal_round(n)));
      EXPECT_EQ(rounds[0].size(), size_t(n));
      for (size_t r = 1; r < rounds.size(); ++r)
        for (const Pair& p : rounds[r]) EXPECT_NE(p.gpus[0], p.gpus[1]) << "a same-GPU pair in round " << r;
      expect_no_gpu_twice(rounds, n);
    }
  }
}

TEST(Plan, OneGpuIsItsSameGpuPairAlone) {
  for (PairMode mode : {PairMode::All, PairMode::Ring}) {
    expect_plan(plan_binary(ask_of(1, mode), 1), 1, "1 0 repro_x 0,0 read+atomics together",
                "hip: 1 GPU: its same-GPU pair 0:0 (exporter and importer processes on GPU 0) is the whole triage, 2 "
                "case(s) of repro_x");
  }
}

TEST(Plan, TheRingIsOnePassAroundAfterTheDiagonal) {
  for (int n : kGpuCounts) {
    SCOPED_TRACE(n);
    const std::vector<Round> rounds = pair_rounds(n, PairMode::Ring, true, {});
    std::vector<Pair> pairs = all_of(rounds);
    pairs.erase(pairs.begin(), pairs.begin() + n);  // the diagonal
    std::set<std::pair<int, int>> want;
    for (int i = 0; n >= 2 && i < n; ++i) want.insert({i, (i + 1) % n});
    EXPECT_EQ(as_set(pairs), want);
    EXPECT_EQ(pairs.size(), want.size());
  }
}

TEST(Plan, MoreThanEightGpusFallBackToTheRingAndSaySo) {
  for (int n : kGpuCounts) {
    SCOPED_TRACE(n);
    EXPECT_EQ(mode_on(PairMode::All, n), n > 8 ? PairMode::Ring : PairMode::All);
    EXPECT_EQ(mode_on(PairMode::Listed, n), PairMode::Listed);
    const BinaryPlan plan = plan_binary(ask_of(n), 1);
    const bool said = !plan.notes.empty() && plan.notes[0] == "hip: " + std::to_string(n) +
                                                                  " GPUs is more than 8: one pass around the ring "
                                                                  "instead of every ordered pair";
    EXPECT_EQ(said, n > 8);
    // 9 GPUs: the diagonal and 9 ring pairs, 18 launches; 16: 32.
    if (n > 8) {
      EXPECT_EQ(plan.launches.size(), size_t(2 * n));
    }
  }
}

TEST(Plan, ThePlanNumbersItsLaunchesAndSaysWhatItRuns) {
  const BinaryPlan plan = plan_binary(ask_of(3), 5);
  // 3 same-GPU pairs and 6 ordered pairs
  expect_plan(plan, 9, "5 0 repro_x 0,0 read+atomics together",
              "hip: 3 GPUs, the diagonal (3 same-GPU pairs, one round) and 6 pair(s) (all) in 6 round(s) x 2 case(s) "
              "of repro_x");
  for (size_t i = 0; i < plan.launches.size(); ++i) EXPECT_EQ(plan.launches[i].k, int(5 + i));
}

TEST(Plan, AHostBinaryOrABackendWithoutGpusRunsOnceWithoutDevices) {
  BinaryAsk host = ask_of(0);
  host.gpus.reset();
  const BinaryPlan plan = plan_binary(host, 1);
  ASSERT_EQ(plan.launches.size(), 1u);
  EXPECT_EQ(launch_line(plan.launches[0]), "1 0 repro_x - read+atomics together");
  EXPECT_TRUE(plan.notes.empty());
  expect_plan(plan_binary(ask_of(0), 2), 1, "2 0 repro_x - read+atomics together",
              "hip: no GPU visible; repro_x ran its 2 case(s) once to show why");
}

TEST(Plan, PairsAreReadWholeEachOnceWithoutLeadingZeros) {
  PairsParsed p = parse_pairs("2:0,01:002,0:0");
  ASSERT_EQ(p.error, "");
  ASSERT_EQ(p.pairs.size(), 3u);
  EXPECT_EQ(vmr_tools::pair_listed(p.pairs[1]), "1:2");
  EXPECT_EQ(vmr_tools::pair_listed(p.pairs[2]), "0:0");
  for (const char* bad : {"", "x", "0:1,", ",0:1", "0:1,1:2junk", "junk0:1", "0:1:2", "0-1", "1000:1", "0:"})
    EXPECT_EQ(parse_pairs(bad).error, std::string("--pairs '") + bad + "' is not a list such as 0:1,1:0") << bad;
  EXPECT_EQ(parse_pairs("0:1,1:0,00:1").error, "--pairs lists 0:1 twice");
  EXPECT_EQ(parse_pairs("0:1,1:0").error, "");
}

TEST(Plan, PairsPastTheGpusAreRefusedNamingTheFirst) {
  const std::vector<Pair> pairs = parse_pairs("0:1,0:5,7:0").pairs;
  EXPECT_EQ(pairs_past_gpus(pairs, "host", 2), "--pairs 0:5 names GPU 5, but host shows 2 GPUs (0 to 1)");
  EXPECT_EQ(pairs_past_gpus(pairs, "hip", 6), "--pairs 7:0 names GPU 7, but hip shows 6 GPUs (0 to 5)");
  EXPECT_EQ(pairs_past_gpus(pairs, "hip", 8), "");
  EXPECT_EQ(pairs_past_gpus(pairs, "cuda", 0), "");  // no GPU: it runs once to say why, with no pair
  EXPECT_EQ(pairs_past_gpus(parse_pairs("0:1").pairs, "host", 1),
            "--pairs 0:1 names GPU 1, but host shows 1 GPUs (0 to 0)");
}

TEST(Plan, ListedPairsRunExactlyAsGivenInRoundsThatShareNoGpu) {
  for (int n : kGpuCounts) {
    SCOPED_TRACE(n);
    // Every ordered pair and same-GPU pair, in an order that puts clashing pairs side by side.
    std::vector<Pair> listed;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) listed.push_back(Pair{{a, b}});
    BinaryAsk ask = ask_of(n, PairMode::Listed, true);  // --mesh has no say over --pairs
    ask.listed = listed;
    const std::vector<Round> rounds = pair_rounds(n, PairMode::Listed, true, listed);
    EXPECT_EQ(all_of(rounds).size(), listed.size());
    EXPECT_EQ(as_set(all_of(rounds)), as_set(listed));
    expect_no_gpu_twice(rounds, n);
    const BinaryPlan plan = plan_binary(ask, 1);
    EXPECT_EQ(plan.launches.size(), listed.size());
    for (const Launch& l : plan.launches) EXPECT_NE(l.round, "mesh");
  }
  BinaryAsk two = ask_of(3, PairMode::Listed);
  two.listed = parse_pairs("2:0,1:2").pairs;
  const BinaryPlan plan = plan_binary(two, 1);
  ASSERT_EQ(plan.launches.size(), 2u);
  EXPECT_EQ(launch_line(plan.launches[0]), "1 0 repro_x 2,0 read+atomics together");
  EXPECT_EQ(launch_line(plan.launches[1]), "2 1 repro_x 1,2 read+atomics together");  // 2 is busy in round 0
  EXPECT_EQ(plan.notes, std::vector<std::string>{"hip: 3 GPU(s), the 2 pair(s) of --pairs in 2 round(s) x 2 case(s) of "
                                                 "repro_x"});
}

TEST(Plan, MeshIsOneRunOnEveryGpuAndTheDiagonalFromThreeGpus) {
  for (int n : kGpuCounts) {
    SCOPED_TRACE(n);
    const BinaryPlan plan = plan_binary(ask_of(n, PairMode::All, true), 1);
    if (n < 3) {  // on 2 GPUs the mesh is the pair itself
      for (const Launch& l : plan.launches) EXPECT_NE(l.round, "mesh");
      continue;
    }
    ASSERT_EQ(plan.launches.size(), size_t(n + 1));
    EXPECT_EQ(plan.launches[0].round, "mesh");
    EXPECT_EQ(plan.launches[0].gpus.gpus.size(), size_t(n));
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(plan.launches[i + 1].round, "diag0");
      EXPECT_EQ(vmr_tools::pair_devices(plan.launches[i + 1].gpus), std::to_string(i) + "," + std::to_string(i));
    }
    EXPECT_EQ(plan.notes.back(), "repro_x: --mesh on " + std::to_string(n) + " GPUs: one mesh run and the diagonal (" +
                                     std::to_string(n) + " same-GPU pairs, one round) x 2 case(s)");
  }
}

TEST(Plan, TheMeshReplanRunsPairsOnlyForWhatDidNotPassAndNoDiagonal) {
  for (int n : {3, 8, 9, 16}) {
    SCOPED_TRACE(n);
    BinaryPlan plan = replan_after_mesh(ask_of(n), {"read", "atomics"}, 10);
    EXPECT_TRUE(plan.launches.empty());
    EXPECT_EQ(plan.notes, std::vector<std::string>{"repro_x: every case passed the mesh run on " + std::to_string(n) +
                                                   " GPUs (every rank imports from every other)"});
    plan = replan_after_mesh(ask_of(n), {"read"}, 10);
    const size_t pairs = n > 8 ? size_t(n) : size_t(n * (n - 1));
    ASSERT_EQ(plan.launches.size(), pairs);
    EXPECT_EQ(plan.launches[0].k, 10);
    for (const Launch& l : plan.launches) {
      EXPECT_EQ(l.cases, std::vector<std::string>{"atomics"});
      EXPECT_FALSE(l.gpus.same_gpu());
    }
    EXPECT_EQ(plan.notes.back(), "repro_x: the mesh run on " + std::to_string(n) + " GPUs did not pass atomics: " +
                                     std::to_string(pairs) + " pair runs name the pairs");
  }
  // A lost mesh record passed nothing: every case gets its pairs.
  const BinaryPlan lost = replan_after_mesh(ask_of(3), {}, 1);
  ASSERT_EQ(lost.launches.size(), 6u);
  EXPECT_EQ(lost.launches[0].cases, (std::vector<std::string>{"read", "atomics"}));
  EXPECT_EQ(lost.notes.back(),
            "repro_x: the mesh run on 3 GPUs did not pass read, atomics: 6 pair runs name the pairs");
}

TEST(Plan, RoundsTxtReadsBackAsWritten) {
  const BinaryPlan plan = plan_binary(ask_of(3, PairMode::All, true), 1);
  std::string text;
  for (const Launch& l : plan.launches) text += launch_line(l) + "\n";
  const std::optional<std::vector<Launch>> back = parse_launches(text);
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), plan.launches.size());
  for (size_t i = 0; i < back->size(); ++i) EXPECT_EQ(launch_line((*back)[i]), launch_line(plan.launches[i]));
  EXPECT_FALSE(parse_launches("1 0 repro_x 0,1 read\n"));
  EXPECT_FALSE(parse_launches("1 0 repro_x 0,1 read together extra\n"));
  EXPECT_FALSE(parse_launches("x 0 repro_x 0,1 read together\n"));
  EXPECT_FALSE(parse_launches("1 0 repro_x 0,1 read apart\n"));
  EXPECT_FALSE(parse_launches("1 0 repro_x 0-1 read together\n"));  // not the --devices spelling
  EXPECT_FALSE(parse_launches("1 0 repro_x 0 read together\n"));
}

TEST(Plan, PlanTxtNamesEveryLaunchACaseRanOnAsItsRecordIsNamed) {
  const std::vector<Launch> launches = *parse_launches(
      "1 0 repro_host - read+fault together\n2 mesh repro_x 0,1,2 read+atomics together\n"
      "3 diag0 repro_x 0,0 read+atomics together\n4 0 repro_x 0,1 atomics together\n");
  EXPECT_EQ(cases_run_on(launches),
            "repro_host.read\nrepro_host.fault\nrepro_x.read 0-1-2 0-0\nrepro_x.atomics 0-1-2 0-0 0-1\n");
}

TEST(Plan, TheModelCostsRoundsAtTheMeanLaunchOfTheirBinary) {
  // repro_x: 2 rounds (one of 2 launches, one of 1) at a mean of 2 s; repro_host: one round at 1 s; repro_y: a mesh
  // run of 9 s.
  const std::vector<Launch> launches = *parse_launches(
      "1 0 repro_host - read together\n2 0 repro_x 0,0 read together\n3 0 repro_x 1,1 read together\n"
      "4 1 repro_x 0,1 read together\n5 mesh repro_y 0,1,2 read together\n");
  const std::map<int, double> took = {{1, 1.0}, {2, 1.0}, {3, 3.0}, {4, 2.0}, {5, 9.0}};
  // Every round whole: the binaries side by side, so the longest of them (repro_y's 9 s against repro_x's 4 s).
  Model m = model(launches, took, 0);
  EXPECT_DOUBLE_EQ(m.plan, 9.0);
  // The health check: 5 pair launches of repro_x (a host launch and a mesh run are no pair launch).
  EXPECT_DOUBLE_EQ(m.health_check, 5 * 2.0);
  // --serial: the binaries in turn, and a round of 2 is 2 waves.
  m = model(launches, took, 1);
  EXPECT_DOUBLE_EQ(m.plan, 1.0 + 3 * 2.0 + 9.0);
  // --jobs 2: in turn, a round of 2 one wave.
  m = model(launches, took, 2);
  EXPECT_DOUBLE_EQ(m.plan, 1.0 + 2 * 2.0 + 9.0);
  // A launch not timed (interrupted) counts for nothing; a binary with no timed launch costs nothing.
  m = model(launches, {{4, 2.0}}, 0);
  EXPECT_DOUBLE_EQ(m.plan, 2 * 2.0);
}

TEST(Plan, AnAloneBinaryRunsAfterTheOthersSoItsTimeAdds) {
  // repro_x is alone (a gpu-alone case): its 4 s come after the longest of the others (repro_y's 3 s).
  const std::vector<Launch> launches = *parse_launches(
      "1 0 repro_host - read together\n2 0 repro_x 0,0 leak alone\n3 1 repro_x 0,1 leak alone\n"
      "4 0 repro_y 0,0 read together\n");
  const std::map<int, double> took = {{1, 1.0}, {2, 2.0}, {3, 2.0}, {4, 3.0}};
  EXPECT_DOUBLE_EQ(model(launches, took, 0).plan, 3.0 + 4.0);
  EXPECT_DOUBLE_EQ(model(launches, took, 0).health_check, 5 * 2.0 + 5 * 3.0);
  EXPECT_DOUBLE_EQ(model(launches, took, 1).plan, 1.0 + 4.0 + 3.0);
  // Two launches of an Alone binary in one round run one after the other: 2 x its mean.
  const std::vector<Launch> alone_round = *parse_launches(
      "1 0 repro_x 0,0 leak alone\n2 0 repro_x 1,1 leak alone\n3 0 repro_y 0,0 read together\n"
      "4 0 repro_y 1,1 read together\n");
  EXPECT_DOUBLE_EQ(model(alone_round, {{1, 2.0}, {2, 2.0}, {3, 3.0}, {4, 3.0}}, 0).plan, 3.0 + 2 * 2.0);
  // The plan carries the binary's sharing to every launch, the mesh's and its re-plan's too.
  BinaryAsk ask = ask_of(3, PairMode::All, true);
  ask.sharing = Sharing::Alone;
  for (const Launch& l : plan_binary(ask, 1).launches) EXPECT_EQ(l.sharing, Sharing::Alone) << launch_line(l);
  for (const Launch& l : replan_after_mesh(ask, {}, 1).launches) EXPECT_EQ(l.sharing, Sharing::Alone);
  EXPECT_TRUE(binaries_at_once(0));
  EXPECT_FALSE(binaries_at_once(1));
  EXPECT_FALSE(binaries_at_once(4));
}

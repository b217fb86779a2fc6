// scripts/health-check's line (a node's drain reason in Slurm and NHC) and exit code, from a triage's summary.
#include <gtest/gtest.h>

#include "health_line.h"

using namespace vmr_tools;

namespace {

Row row(const std::string& name, const std::string& pair, const std::string& observed, bool changed,
        const std::string& detail = "") {
  Row r;
  r.name = name;
  r.pair = pair_of(pair);
  r.expected = "PASS";
  r.observed = vmr::verdict_from_name(observed);
  r.detail = detail;
  r.standing = changed ? Standing::WrongVerdict : observed == "SKIP" ? Standing::NotRun : Standing::Ok;
  r.result = changed ? "CHANGED: " + detail : r.not_run() ? "not run (skipped: " + detail + ")" : "OK";
  return r;
}

HealthRun exited(int code, const std::string& took = "") {
  HealthRun run;
  run.triage_exit = code;
  run.took = took;
  return run;
}

}  // namespace

TEST(HealthLine, NamesThePairRowBeforeAMeshRowThatComesFirst) {
  const Summary s =
      summary_of({row("repro_x.atomics", "0-1-2-3", "CRASH", true), row("repro_x.atomics", "0-5", "CRASH", true),
                  row("repro_x.read", "0-1", "PASS", false)});
  const HealthVerdict v = judge_health(&s, "", exited(1));
  EXPECT_EQ(v.health, Health::Unhealthy);
  EXPECT_EQ(v.line, "vmem-repro: repro_x.atomics CRASH 0->5 (expected PASS) (+1 more)");
}

TEST(HealthLine, AMeshRowWhenNoPairRowDiffers) {
  const Summary s =
      summary_of({row("repro_x.read", "", "PASS", false), row("repro_x.atomics", "0-1-2-3", "FAIL", true)});
  EXPECT_EQ(judge_health(&s, "", exited(1)).line, "vmem-repro: repro_x.atomics FAIL mesh 0-1-2-3 (expected PASS)");
}

TEST(HealthLine, AmongPairRowsTheFirstInSummaryOrder) {
  const Summary s =
      summary_of({row("repro_x.read", "2-3", "FAIL", true), row("repro_x.atomics", "0-1", "CRASH", true)});
  EXPECT_EQ(judge_health(&s, "", exited(1)).line, "vmem-repro: repro_x.read FAIL 2->3 (expected PASS) (+1 more)");
}

TEST(HealthLine, SameGpuPairAndHostRow) {
  EXPECT_EQ(pair_arrow(pair_of("0-0")), "0->0");
  EXPECT_EQ(pair_arrow(pair_of("3-1")), "3->1");
  EXPECT_EQ(pair_arrow(pair_of("0-1-2")), "mesh 0-1-2");
  EXPECT_EQ(pair_arrow(pair_of("")), "");
  const Summary same = summary_of({row("repro_x.read", "0-0", "HANG", true)});
  EXPECT_EQ(judge_health(&same, "", exited(1)).line, "vmem-repro: repro_x.read HANG 0->0 (expected PASS)");
  const Summary host = summary_of({row("repro_host_shm.atomics", "", "FAIL", true, "forced")});
  EXPECT_EQ(judge_health(&host, "", exited(1)).line, "vmem-repro: repro_host_shm.atomics FAIL (expected PASS): forced");
}

TEST(HealthLine, CountsEveryOtherDifferingRow) {
  std::vector<Row> rows;
  for (int i = 0; i < 5; ++i) rows.push_back(row("repro_x.atomics", std::to_string(i) + "-7", "CRASH", true));
  rows.push_back(row("repro_x.read", "0-1", "PASS", false));
  const Summary s = summary_of(rows);
  EXPECT_EQ(judge_health(&s, "", exited(1)).line, "vmem-repro: repro_x.atomics CRASH 0->7 (expected PASS) (+4 more)");
}

TEST(HealthLine, QuotesAndNewlinesOfADetailCannotBreakTheReason) {
  const Summary s = summary_of(
      {row("repro_x.read", "0-1", "FAIL", true, "hipMemMap \"failed\"\nwith 'code' `7`\r\n\tMemory access fault")});
  const std::string line = judge_health(&s, "", exited(1)).line;
  EXPECT_EQ(line,
            "vmem-repro: repro_x.read FAIL 0->1 (expected PASS): hipMemMap failed with code 7 Memory access fault");
  EXPECT_EQ(reason_safe("caf\xc3\xa9 \x7f x"), "caf?? x");
}

TEST(HealthLine, CutTo200BytesKeepingTheCountOfOthers) {
  const Summary s = summary_of(
      {row("repro_x.read", "0-1", "FAIL", true, std::string(500, 'd')), row("repro_x.read", "1-0", "FAIL", true)});
  const std::string line = judge_health(&s, "", exited(1)).line;
  EXPECT_EQ(line.size(), 200u);
  EXPECT_EQ(line.substr(0, 60), "vmem-repro: repro_x.read FAIL 0->1 (expected PASS) (+1 more)");
  EXPECT_EQ(line.substr(197), "...");
  EXPECT_EQ(reason_safe(std::string(200, 'a')), std::string(200, 'a'));  // exactly 200: not cut
  EXPECT_EQ(reason_safe(std::string(201, 'a')), std::string(197, 'a') + "...");
}

TEST(HealthLine, HealthyCountsTheRunsAndTheGpus) {
  const Summary s =
      summary_of({row("repro_x.read", "0-1", "PASS", false), row("repro_x.read", "1-0", "PASS", false),
                  row("repro_x.read", "2-2", "PASS", false), row("repro_y.read", "", "SKIP", false, "no driver")});
  const HealthVerdict v = judge_health(&s, "", exited(0, "12.5"));
  EXPECT_EQ(v.health, Health::Healthy);
  EXPECT_EQ(v.line, "vmem-repro: OK, 3 case runs as expected on 3 GPU(s) in 12.5 s");
}

TEST(HealthLine, NothingRanNamesTheFirstSkipReason) {
  const Summary s = summary_of({row("repro_host_shm.read", "", "PASS", false),
                                row("repro_cuda_vmm.read", "", "SKIP", false, "no NVIDIA driver (libcuda.so.1)"),
                                row("repro_cuda_vmm.atomics", "", "SKIP", false, "other")});
  const std::string want = "vmem-repro: no GPU case could run here (no NVIDIA driver (libcuda.so.1))";
  // The triage's 77, and its 0 where a triage without 77 ran no GPU pair (only host rows or skips): the same.
  for (int code : {77, 0}) {
    const HealthVerdict v = judge_health(&s, "", exited(code));
    EXPECT_EQ(v.health, Health::NothingRan) << code;
    EXPECT_EQ(v.line, want);
  }
  HealthRun gpu_required = exited(77);
  gpu_required.require_gpu = true;
  EXPECT_EQ(judge_health(&s, "", gpu_required).health, Health::Unhealthy);
  EXPECT_EQ(judge_health(&s, "", gpu_required).line, want);
}

TEST(HealthLine, NothingRanWithoutASkipNamesTheFirstRowNotRun) {
  Row unbuilt = row("repro_cuda_vmm.read", "", "-", false);
  unbuilt.standing = Standing::NotRun;
  unbuilt.result = "not run (binary not built here)";
  unbuilt.why_not_run = "binary not built here";
  const Summary s = summary_of({row("repro_host_shm.read", "", "PASS", false), unbuilt});
  EXPECT_EQ(judge_health(&s, "", exited(77)).line,
            "vmem-repro: no GPU case could run here (repro_cuda_vmm.read: binary not built here)");
  const HealthVerdict none = judge_health(nullptr, "cannot read x", exited(77));
  EXPECT_EQ(none.health, Health::NothingRan);
  EXPECT_EQ(none.line, "vmem-repro: no GPU case could run here (the triage wrote no summary)");
}

TEST(HealthLine, AStoppedTriageIsUnhealthyWithoutASummary) {
  HealthRun run = exited(124);
  run.overran = "50";
  const HealthVerdict v = judge_health(nullptr, "cannot read x", run);
  EXPECT_EQ(v.health, Health::Unhealthy);
  EXPECT_EQ(v.line, "vmem-repro: health check did not finish in 50 s (GPU runs hung?)");
}

TEST(HealthLine, TheSuiteBrokenIsNotANodeDifference) {
  const Summary s = summary_of({row("repro_x.read", "0-1", "FAIL", true)});
  EXPECT_EQ(judge_health(&s, "", exited(99)).health, Health::Broken);
  EXPECT_EQ(judge_health(&s, "", exited(2)).line, "vmem-repro: the health check could not run (triage exit 2)");
  const HealthVerdict none = judge_health(nullptr, "cannot read /r/summary.json", exited(1));
  EXPECT_EQ(none.health, Health::Broken);
  EXPECT_EQ(none.line, "vmem-repro: the health check could not run (cannot read /r/summary.json)");
}

// A table that does not fit the build, or a binary the manifest lists that is not there, is the same on every node
// of a deployment: the node is not judged (99, which health-check --drain never drains for), whatever rows differ.
TEST(HealthLine, TableProblemsAreTheSuitesNotTheNodes) {
  Summary s = summary_of({row("repro_x.read", "0-1", "FAIL", true), row("repro_x.atomics", "0-1", "PASS", false)});
  s.problems = 2;
  s.problem_lines = {"BUILD: /b/bin/repro_x is not there, though the manifest says this build makes it",
                     "TABLE: case repro_y.new has no row in expected/verdicts.md"};
  for (int code : {1, 0}) {
    const HealthVerdict v = judge_health(&s, "", exited(code));
    EXPECT_EQ(v.health, Health::Broken) << code;
    EXPECT_EQ(v.line,
              "vmem-repro: the node was not judged, a suite problem (+1 more): BUILD: /b/bin/repro_x is not there, "
              "though the manifest says this build makes it");
  }
  s.problem_lines.clear();  // a summary written before the lines were kept: the count
  s.problems = 1;
  EXPECT_EQ(judge_health(&s, "", exited(1)).line,
            "vmem-repro: the node was not judged, a suite problem: 1 table problem(s): expected/verdicts.md does not "
            "fit this build");
}

TEST(HealthLine, AnUnnamedDifferenceIsUnhealthy) {
  Summary s = summary_of({row("repro_x.read", "0-1", "PASS", false)});
  EXPECT_EQ(judge_health(&s, "", exited(1)).health, Health::Unhealthy);
  EXPECT_EQ(judge_health(&s, "", exited(0)).health, Health::Healthy);
}

// The same failure seen on the next interval must give the same reason, or health-check drains again (a new time)
// every interval: no pid, time or address of the run in it.
TEST(HealthLine, TheSameFailureGivesTheSameReason) {
  const Summary first = summary_of({row("repro_x.atomics", "0-1", "CRASH", true,
                                        "rank 1 (pid 48213) killed by SIGSEGV after 1.52 s; Memory access fault by "
                                        "GPU node-2 (Agent handle: 0x55d1c2a0b0e0) on address 0x7f1a2c000000")});
  const Summary again = summary_of({row("repro_x.atomics", "0-1", "CRASH", true,
                                        "rank 1 (pid 7) killed by SIGSEGV after 0.9 s; Memory access fault by "
                                        "GPU node-2 (Agent handle: 0x5601aa0b10f0) on address 0x7f33d8000000")});
  const std::string line = judge_health(&first, "", exited(1)).line;
  EXPECT_EQ(line,
            "vmem-repro: repro_x.atomics CRASH 0->1 (expected PASS): rank 1 killed by SIGSEGV after # s; Memory access "
            "fault by GPU node-2 (Agent handle: 0x#) on address 0x#");
  EXPECT_EQ(judge_health(&again, "", exited(1)).line, line);
}

TEST(HealthLine, DrainStableKeepsWhatNamesTheFailure) {
  EXPECT_EQ(drain_stable("deadline of 20 s passed; rank 0 (pid 123) did not die (futex)"),
            "deadline of # s passed; rank 0 did not die (futex)");
  EXPECT_EQ(drain_stable("pid=99 took 12ms, 3us, 4 ns and 2 min"), "pid=# took #ms, #us, # ns and # min");
  // GPU indices, counts, short codes and numbers inside words stay.
  EXPECT_EQ(drain_stable("GPU 0->1: hipErrorInvalidValue (1), 0x1f, 16 cycles, gfx90a, sm_90, 2 ranks"),
            "GPU 0->1: hipErrorInvalidValue (1), 0x1f, 16 cycles, gfx90a, sm_90, 2 ranks");
  // Sizes and clock times move from run to run: two runs of one leak give one reason.
  EXPECT_EQ(drain_stable("16 cycles of 64 MiB left 2206 MiB in use"), "16 cycles of # MiB left # MiB in use");
  EXPECT_EQ(drain_stable("16 cycles of 64 MiB left 562 MiB in use"),
            drain_stable("16 cycles of 64 MiB left 2206 MiB in use"));
  EXPECT_EQ(drain_stable("moved by 4096 bytes at 12:03:04, 1.5 GB"), "moved by # bytes at #:#, # GB");
  EXPECT_EQ(drain_stable("rank 1 (pid x) v1.5 s"), "rank 1 (pid x) v1.5 s");
}

TEST(HealthLine, ARunThatLeftNoRecordSaysSo) {
  Row missing = row("repro_x.read", "1-0", "-", true);
  missing.detail = "";
  const Summary s = summary_of({missing});
  EXPECT_EQ(judge_health(&s, "", exited(1)).line, "vmem-repro: repro_x.read NO RECORD 1->0 (expected PASS)");
}

TEST(HealthLine, ModeUsage) {
  EXPECT_EQ(health_line_mode({"--health-line"}), 2);                                     // neither summary nor overran
  EXPECT_EQ(health_line_mode({"--health-line", "--summary", "x", "--exit", "300"}), 2);  // not an exit status
  EXPECT_EQ(health_line_mode({"--health-line", "--overran", "50", "--took", "-1"}), 2);  // not seconds
  EXPECT_EQ(health_line_mode({"--health-line", "--overran", "50", "--bogus", "1"}), 2);  // unknown flag
  EXPECT_EQ(health_line_mode({"--health-line", "--overran", "50"}), 1);
  EXPECT_EQ(health_line_mode({"--health-line", "--summary", "/nonexistent/summary.json"}), 99);
}

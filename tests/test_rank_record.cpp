#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <limits>

#include "harness/rank_context.h"
#include "harness/rank_record.h"
#include "harness/text.h"

using namespace vmr;

namespace {
// A life of two cases as a rank sends it: describe facts kept for both, a fact of the first case alone.
std::string two_cases() {
  return event::header() + event::ready(987654321) + event::fact("gfx_arch", "gfx942") +
         event::fact("pools", "coarse fine ext-fine") + event::keep_facts() + event::fact("alloc_type", "Pinned") +
         event::phase("setup", 0.25) + event::phase("run", 1.0 / 3) +
         event::metric({"remote_atomics_per_s", 1.5e9, "ops/s"}) +
         event::end(Verdict::Pass, "exact\nsecond line \\ with backslash") + event::ready(987654400) +
         event::fact("pools", "coarse") + event::end(Verdict::Fail, "hipMemSetAccess: hipErrorInvalidValue");
}

Status take_all(std::string_view text, RecordStream* s) {
  for (auto line : split(text, '\n')) VMR_TRY(s->take_line(line));
  return Status::pass();
}
}  // namespace

TEST(RankRecord, EventsRebuildEachCaseExactly) {
  RecordStream s;
  std::string text = two_cases();
  text.pop_back();  // split() leaves no empty last line
  ASSERT_TRUE(take_all(text, &s).ok());
  ASSERT_EQ(s.records().size(), 2u);
  const RankRecord& a = s.records()[0];
  EXPECT_EQ(a.verdict, Verdict::Pass);
  EXPECT_EQ(a.detail, "exact\nsecond line \\ with backslash");
  EXPECT_EQ(a.ready_ns, 987654321);
  const std::vector<std::pair<std::string, std::string>> facts_a = {
      {"gfx_arch", "gfx942"}, {"pools", "coarse fine ext-fine"}, {"alloc_type", "Pinned"}};
  EXPECT_EQ(a.info, facts_a);
  EXPECT_EQ(a.phases, (std::vector<std::pair<std::string, double>>{{"setup", 0.25}, {"run", 1.0 / 3}}));  // exact
  ASSERT_EQ(a.metrics.size(), 1u);
  EXPECT_EQ(a.metrics[0].value, 1.5e9);
  EXPECT_EQ(a.metrics[0].unit, "ops/s");
  // The second case keeps the describe step's facts (one replaced), not the first case's own; nothing else carries.
  const RankRecord& b = s.records()[1];
  EXPECT_EQ(b.verdict, Verdict::Fail);
  EXPECT_EQ(b.ready_ns, 987654400);
  const std::vector<std::pair<std::string, std::string>> facts_b = {{"gfx_arch", "gfx942"}, {"pools", "coarse"}};
  EXPECT_EQ(b.info, facts_b);
  EXPECT_TRUE(b.phases.empty());
  EXPECT_TRUE(b.metrics.empty());
}

// A rank that dies mid-case has delivered what it knew: the case in progress keeps its facts and phases.
TEST(RankRecord, ARankThatDiesMidCaseHasDeliveredItsFacts) {
  RecordStream s;
  ASSERT_TRUE(take_all("vmem-repro-events 1\nready 5\nfact rocm_release 7.2.4\nphase setup 0.5", &s).ok());
  EXPECT_TRUE(s.records().empty());
  EXPECT_EQ(s.partial().info, (std::vector<std::pair<std::string, std::string>>{{"rocm_release", "7.2.4"}}));
  EXPECT_EQ(s.partial().ready_ns, 5);
  ASSERT_EQ(s.partial().phases.size(), 1u);
}

TEST(RankRecord, GarbageIsRejected) {
  const std::string head = "vmem-repro-events 1\n";
  std::vector<std::string> bad = {
      "hello",
      std::string(1000, '\0'),
      "vmem-repro-events 2",
      "vmem-repro-record 1",
      head + "end MAYBE x",
      head + "end USAGE x",
      head + "end PASS bad\\q",
      head + "end",
      head + "ready -4",
      head + "ready 1\nready 2",
      head + "phase run nan",
      head + "phase run -1",
      head + "metric x 1",
      head + "metric x 1 two words",
      head + "fact bad/key v",
      head + "fact",
      head + "keep-facts now",
      head + "surprise",
      head + "vmem-repro-events 1",
  };
  for (const auto& b : bad) {
    RecordStream s;
    EXPECT_FALSE(take_all(b, &s).ok()) << b;
  }
  // Flipping any single byte of an event's tag must not produce a different valid stream silently.
  const std::string good = two_cases();
  for (size_t i = 0; i < 19; ++i) {
    std::string flipped = good;
    flipped[i] ^= 0x20;
    RecordStream s;
    std::string text = flipped.substr(0, flipped.size() - 1);
    EXPECT_FALSE(take_all(text, &s).ok()) << i;
  }
}

// A fact reported twice (a placeholder, then the probe's answer) is one fact with the last value, in its first place:
// readers keep a key's first value, so an appended second one would be lost.
TEST(RankRecord, AFactReportedAgainTakesTheNewValueInItsFirstPlace) {
  std::vector<std::pair<std::string, std::string>> facts;
  set_fact(&facts, "hip_version", "6.4.3");
  set_fact(&facts, "uncached_accepted", "unknown");
  set_fact(&facts, "alloc_type", "Uncached");
  set_fact(&facts, "uncached_accepted", "no");
  const std::vector<std::pair<std::string, std::string>> want = {
      {"hip_version", "6.4.3"}, {"uncached_accepted", "no"}, {"alloc_type", "Uncached"}};
  EXPECT_EQ(facts, want);
}

// A rank that reports without end is cut off: the 257th fact, phase or metric of one case is an error, while a fact
// reported again is not a new one.
TEST(RankRecord, ACaseHoldsAtMost256FactsPhasesAndMetrics) {
  for (const std::string kind : {"fact", "phase", "metric"}) {
    RecordStream s;
    ASSERT_TRUE(s.take_line("vmem-repro-events 1").ok());
    for (int i = 0; i < 256; ++i) {
      const std::string name = "k" + std::to_string(i);
      const std::string line = kind == "fact"    ? "fact " + name + " v"
                               : kind == "phase" ? "phase " + name + " 1"
                                                 : "metric " + name + " 1 ops/s";
      ASSERT_TRUE(s.take_line(line).ok()) << kind << " " << i;
    }
    if (kind == "fact") {
      EXPECT_TRUE(s.take_line("fact k7 again").ok()) << "a known fact is not a new one";
    }
    const std::string more = kind == "fact" ? "fact k256 v" : kind == "phase" ? "phase k256 1" : "metric k256 1 ops/s";
    Status st = s.take_line(more);
    EXPECT_FALSE(st.ok()) << kind;
    EXPECT_NE(st.detail.find("more than 256"), std::string::npos) << st.detail;
  }
}

// A rate over a zero time is inf: the rank leaves that metric out and says so in a fact, and the case keeps its
// verdict (sent as it was, the launcher refused the stream and the PASS became HARNESS).
TEST(RankRecord, NonFiniteMetricIsDroppedWithANoteAndTheVerdictKept) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    RankContext ctx(0, {0, 1}, nullptr, fds[1]);
    ctx.start_stream();
    ctx.metric("peer_read_kernel_GBps", 12.5, "GB/s");
    ctx.metric("peer_read_copy_GBps", std::numeric_limits<double>::infinity(), "GB/s");
    ctx.metric("kernel_over_copy_bandwidth", std::nan(""), "ratio");
    ctx.end_case(Status::pass("read exactly"));
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, size_t(n));
  ::close(fds[0]);
  ASSERT_FALSE(text.empty());
  text.pop_back();
  RecordStream s;
  Status taken = take_all(text, &s);
  ASSERT_TRUE(taken.ok()) << taken.detail;
  ASSERT_EQ(s.records().size(), 1u);
  const RankRecord& r = s.records()[0];
  EXPECT_EQ(r.verdict, Verdict::Pass);
  ASSERT_EQ(r.metrics.size(), 1u);
  EXPECT_EQ(r.metrics[0].name, "peer_read_kernel_GBps");
  const std::vector<std::pair<std::string, std::string>> notes = {
      {"dropped_metric.peer_read_copy_GBps", "inf GB/s is not a finite number; the metric is left out"},
      {"dropped_metric.kernel_over_copy_bandwidth", "nan ratio is not a finite number; the metric is left out"}};
  EXPECT_EQ(r.info, notes);
}

#include <gtest/gtest.h>

#include "harness/rank_record.h"

using namespace vmr;

namespace {
RankRecord sample() {
  RankRecord r;
  r.verdict = Verdict::Fail;
  r.detail = "hipMemSetAccess: hipErrorInvalidValue\nsecond line \\ with backslash";
  r.ready_ns = 987654321;
  r.info = {{"gfx_arch", "gfx942"}, {"pools", "coarse fine ext-fine"}};
  r.phases = {{"setup", 0.25}, {"run", 1.0 / 3}};
  r.metrics = {{"remote_atomics_per_s", 1.5e9, "ops/s"}};
  return r;
}
}  // namespace

TEST(RankRecord, RoundTripIsExact) {
  RankRecord in = sample(), out;
  ASSERT_TRUE(decode_record(encode_record(in), &out).ok());
  EXPECT_EQ(out.verdict, in.verdict);
  EXPECT_EQ(out.detail, in.detail);
  EXPECT_EQ(out.ready_ns, in.ready_ns);
  EXPECT_EQ(out.info, in.info);
  EXPECT_EQ(out.phases, in.phases);  // exact: doubles print in their shortest exact form
  ASSERT_EQ(out.metrics.size(), 1u);
  EXPECT_EQ(out.metrics[0].value, 1.5e9);
  EXPECT_EQ(out.metrics[0].unit, "ops/s");
}

TEST(RankRecord, EveryTruncationIsRejected) {
  std::string text = encode_record(sample());
  RankRecord out;
  for (size_t n = 0; n < text.size(); ++n)
    EXPECT_FALSE(decode_record(text.substr(0, n), &out).ok()) << "accepted a record cut at " << n;
}

TEST(RankRecord, GarbageIsRejected) {
  const std::string good = encode_record(sample());
  std::vector<std::string> bad = {
      "",
      "hello\n",
      std::string(1000, '\0'),
      "vmem-repro-record 2\nverdict PASS\ndetail \nready_ns 1\nend\n",
      "vmem-repro-record 1\nverdict MAYBE\ndetail \nready_ns 1\nend\n",
      "vmem-repro-record 1\nverdict USAGE\ndetail \nready_ns 1\nend\n",
      "vmem-repro-record 1\nverdict PASS\nverdict PASS\ndetail \nready_ns 1\nend\n",
      "vmem-repro-record 1\nverdict PASS\ndetail \nend\n",
      "vmem-repro-record 1\nverdict PASS\ndetail bad\\q\nready_ns 1\nend\n",
      "vmem-repro-record 1\nverdict PASS\ndetail \nready_ns -4\nend\n",
      "vmem-repro-record 1\nverdict PASS\ndetail \nready_ns 1\nphase run nan\nend\n",
      "vmem-repro-record 1\nverdict PASS\ndetail \nready_ns 1\nmetric x 1\nend\n",
      "vmem-repro-record 1\nverdict PASS\ndetail \nready_ns 1\ninfo bad/key v\nend\n",
      "vmem-repro-record 1\nverdict PASS\ndetail \nready_ns 1\nsurprise\nend\n",
      good + "extra\n",
      good + good,
  };
  RankRecord out;
  for (const auto& b : bad) EXPECT_FALSE(decode_record(b, &out).ok()) << b;
  // Flipping any single byte of the framing words must not produce a different valid record silently.
  for (size_t i = 0; i < 20; ++i) {
    std::string flipped = good;
    flipped[i] ^= 0x20;
    EXPECT_FALSE(decode_record(flipped, &out).ok()) << i;
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
  // Past the cap a new key is dropped, and a key already there still takes its new value.
  set_fact(&facts, "fourth", "x", 3);
  set_fact(&facts, "uncached_accepted", "yes", 3);
  const std::vector<std::pair<std::string, std::string>> capped = {
      {"hip_version", "6.4.3"}, {"uncached_accepted", "yes"}, {"alloc_type", "Uncached"}};
  EXPECT_EQ(facts, capped);
}

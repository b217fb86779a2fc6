#include <gtest/gtest.h>

#include <map>
#include <optional>

#include "harness/options.h"

using namespace vmr;

namespace {

const std::vector<std::string> kCases = {"read", "atomics"};

Status parse(std::vector<const char*> args, Options* o) {
  args.insert(args.begin(), "repro");
  return parse_options(int(args.size()), args.data(), kCases, o);
}

}  // namespace

TEST(Options, GoodCommandLines) {
  Options o;
  ASSERT_TRUE(
      parse({"--case", "read", "--case=atomics", "--ranks", "4", "--timeout", "2.5", "--json", "x.json"}, &o).ok());
  EXPECT_EQ(o.cases, (std::vector<std::string>{"read", "atomics"}));
  EXPECT_EQ(o.ranks, 4);
  EXPECT_DOUBLE_EQ(o.timeout_s, 2.5);
  EXPECT_TRUE(o.timeout_given);
  EXPECT_EQ(o.json_path, "x.json");
  ASSERT_TRUE(parse({"--devices=2,3"}, &o).ok());
  EXPECT_EQ(o.devices, (std::vector<int>{2, 3}));
  ASSERT_TRUE(parse({"--all"}, &o).ok());
  EXPECT_TRUE(o.all);
  ASSERT_TRUE(parse({"--timeout", "0.001"}, &o).ok());  // the shortest: 1 ms
  EXPECT_DOUBLE_EQ(o.timeout_s, 0.001);
  ASSERT_TRUE(parse({}, &o).ok());
  EXPECT_FALSE(o.timeout_given);
  EXPECT_EQ(o.ranks, 0);
}

TEST(Options, BadCommandLinesAreUsageErrorsWithOneLine) {
  const std::vector<std::vector<const char*>> bad = {
      {"--bogus"},
      {"--case"},
      {"--case", "nope"},
      {"--case", "read", "--case", "read"},
      {"--ranks", "1"},
      {"--ranks", "x"},
      {"--ranks", "65"},
      {"--ranks", "2", "--ranks", "3"},
      {"--timeout", "0"},
      {"--timeout", "0.0001"},  // 0 ms as the ranks count it: it was accepted and reported as HANG
      {"--timeout", "0.0009"},
      {"--timeout", "-1"},
      {"--timeout", "abc"},
      {"--timeout", "1e999"},
      {"--devices", "a,b"},
      {"--devices", "0,"},
      {"--devices", "0"},
      {"--ranks", "3", "--devices", "0,1"},
      {"--json"},
      {"--json="},
      {"--list=yes"},
      {"stray"},
      {"--all", "--case", "read"},
      {"--ranks=2x"},
      {"--case="},
  };
  for (const auto& args : bad) {
    Options o;
    Status s = parse(args, &o);
    std::string shown;
    for (auto a : args) shown += std::string(a) + " ";
    EXPECT_EQ(s.verdict, Verdict::Usage) << shown;
    EXPECT_FALSE(s.detail.empty()) << shown;
    EXPECT_EQ(s.detail.find('\n'), std::string::npos) << shown;
  }
}

TEST(Options, DevicesFromCTestResourceGroups) {
  std::map<std::string, std::string> env = {{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                                            {"CTEST_RESOURCE_GROUP_0_GPUS", "id:3,slots:1"},
                                            {"CTEST_RESOURCE_GROUP_1_GPUS", "id:5,slots:1"}};
  auto getenv_fn = [&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  Options o;
  int ranks = 0;
  ASSERT_TRUE(resolve_ranks(o, getenv_fn, &ranks).ok());
  EXPECT_EQ(ranks, 2);
  std::vector<int> devices;
  std::string source;
  ASSERT_TRUE(resolve_devices(o, ranks, getenv_fn, &devices, &source).ok());
  EXPECT_EQ(devices, (std::vector<int>{3, 5}));
  // --devices wins over the environment; no environment means 0..N-1.
  o.devices = {1, 0};
  ASSERT_TRUE(resolve_devices(o, 2, getenv_fn, &devices, &source).ok());
  EXPECT_EQ(devices, (std::vector<int>{1, 0}));
  env["CTEST_RESOURCE_GROUP_1_GPUS"] = "slots:1";
  o.devices.clear();
  EXPECT_EQ(resolve_devices(o, 2, getenv_fn, &devices, &source).verdict, Verdict::Harness);
  auto none = [](const char*) -> const char* { return nullptr; };
  ASSERT_TRUE(resolve_devices(o, 3, none, &devices, &source).ok());
  EXPECT_EQ(devices, (std::vector<int>{0, 1, 2}));
}

// ctest --resource-spec-file sets CTEST_RESOURCE_GROUP_COUNT=0 for the host cases, which ask for no GPUs: that is
// "no groups given" (2 ranks on 0..N-1), not a bad count (seen on the H200 with CMake's ctest, 2026-12-01).
TEST(Options, ZeroResourceGroupsMeansNoneGiven) {
  auto zero = [](const char* k) -> const char* {
    return std::string_view(k) == "CTEST_RESOURCE_GROUP_COUNT" ? "0" : nullptr;
  };
  Options o;
  int ranks = 0;
  ASSERT_TRUE(resolve_ranks(o, zero, &ranks).ok());
  EXPECT_EQ(ranks, kDefaultRanks);
  std::vector<int> devices;
  std::string source;
  ASSERT_TRUE(resolve_devices(o, ranks, zero, &devices, &source).ok());
  EXPECT_EQ(devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(source, "default 0..N-1");
  // a count of 1 is still too few for two ranks
  auto one = [](const char* k) -> const char* {
    return std::string_view(k) == "CTEST_RESOURCE_GROUP_COUNT" ? "1" : nullptr;
  };
  EXPECT_EQ(resolve_ranks(o, one, &ranks).verdict, Verdict::Harness);
}

// Where nothing chose the devices: the ranks folded onto the GPUs the runtime shows when it shows fewer than there
// are ranks (rank i on GPU i % visible), 0..N-1 when it shows enough, none, or nothing could be learned.
TEST(Options, DefaultDevicesFoldOntoTheVisibleGpus) {
  struct Row {
    std::optional<int> visible;
    int ranks;
    std::vector<int> devices;
  };
  const std::vector<Row> rows = {
      {1, 2, {0, 0}},
      {1, 3, {0, 0, 0}},
      {1, 4, {0, 0, 0, 0}},
      {2, 2, {0, 1}},
      {2, 3, {0, 1, 0}},
      {2, 4, {0, 1, 0, 1}},
      {3, 2, {0, 1}},
      {3, 3, {0, 1, 2}},
      {3, 4, {0, 1, 2, 0}},
      {std::nullopt, 2, {0, 1}},
      {std::nullopt, 3, {0, 1, 2}},
      {std::nullopt, 4, {0, 1, 2, 3}},
      {0, 2, {0, 1}},
      {0, 4, {0, 1, 2, 3}},
  };
  for (const auto& row : rows) {
    std::string source;
    const std::string what = std::to_string(row.ranks) + " ranks, " +
                             (row.visible ? std::to_string(*row.visible) : std::string("unknown")) + " visible";
    EXPECT_EQ(default_devices(row.ranks, {row.visible, ""}, &source), row.devices) << what;
    const bool folded = row.visible && *row.visible >= 1 && *row.visible < row.ranks;
    EXPECT_EQ(source.rfind("default: ", 0) == 0, folded) << what << ": " << source;
    if (!folded) {
      EXPECT_EQ(source, "default 0..N-1") << what;
    }
  }
  std::string source;
  (void)default_devices(2, {1, ""}, &source);
  EXPECT_EQ(source, "default: 2 ranks on the 1 visible GPU (same-GPU pair)");
  (void)default_devices(4, {1, ""}, &source);
  EXPECT_EQ(source, "default: 4 ranks on the 1 visible GPU (all on GPU 0)");
  (void)default_devices(3, {2, ""}, &source);
  EXPECT_EQ(source, "default: 3 ranks on the 2 visible GPUs (rank i on GPU i % 2)");
  // A probe that failed is named where the ranks would not say it; the runtime's own refusal (no reason) is not.
  (void)default_devices(2, {std::nullopt, "device-count probe: no answer within 15 s; killed"}, &source);
  EXPECT_EQ(source, "default 0..N-1 (visible devices unknown: device-count probe: no answer within 15 s; killed)");
}

// The runtime is asked only on the default branch: --devices (triage) and CTest's groups cost no probe.
TEST(Options, VisibleDevicesAskedOnlyWhenNothingChose) {
  int asked = 0;
  auto one_gpu = [&] {
    ++asked;
    return VisibleDevices{1, ""};
  };
  std::map<std::string, std::string> env = {{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                                            {"CTEST_RESOURCE_GROUP_0_GPUS", "id:0,slots:1"},
                                            {"CTEST_RESOURCE_GROUP_1_GPUS", "id:1,slots:1"}};
  auto ctest = [&](const char* k) -> const char* {
    auto it = env.find(k);
    return it == env.end() ? nullptr : it->second.c_str();
  };
  auto none = [](const char*) -> const char* { return nullptr; };
  Options o;
  std::vector<int> devices;
  std::string source;
  ASSERT_TRUE(resolve_devices(o, 2, ctest, &devices, &source, one_gpu).ok());
  EXPECT_EQ(devices, (std::vector<int>{0, 1}));
  o.devices = {0, 1};
  ASSERT_TRUE(resolve_devices(o, 2, none, &devices, &source, one_gpu).ok());
  EXPECT_EQ(devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(source, "--devices");
  EXPECT_EQ(asked, 0);
  o.devices.clear();
  ASSERT_TRUE(resolve_devices(o, 2, none, &devices, &source, one_gpu).ok());
  EXPECT_EQ(devices, (std::vector<int>{0, 0}));
  EXPECT_EQ(source, "default: 2 ranks on the 1 visible GPU (same-GPU pair)");
  EXPECT_EQ(asked, 1);
}

TEST(RankFlag, RoundTrip) {
  RankArgs a;
  a.rank = 1;
  a.ranks = 3;
  a.cases = {"peer-reimport", "read"};
  a.timeouts_ms = {60000, 2500};
  a.devices = {4, 2, 0};
  a.status_fd = 3;
  a.ctl_fds = {10, -1, 12};
  a.deadline_ns = 123456789;
  RankArgs b;
  ASSERT_TRUE(parse_rank_flag(format_rank_flag(a), &b).ok());
  EXPECT_EQ(b.rank, 1);
  EXPECT_EQ(b.ranks, 3);
  EXPECT_EQ(b.cases, (std::vector<std::string>{"peer-reimport", "read"}));
  EXPECT_EQ(b.timeouts_ms, (std::vector<int64_t>{60000, 2500}));
  EXPECT_EQ(b.devices, (std::vector<int>{4, 2, 0}));
  EXPECT_EQ(b.status_fd, 3);
  EXPECT_EQ(b.ctl_fds, a.ctl_fds);
  EXPECT_EQ(b.deadline_ns, 123456789);
}

TEST(RankFlag, StrictParsing) {
  const std::string ok = "rank=0,ranks=2,case=read,timeouts_ms=1000,devices=0:1,status=3,ctl=-:11,deadline_ns=5";
  RankArgs a;
  ASSERT_TRUE(parse_rank_flag(std::string(kRankFlag) + ok, &a).ok());
  const std::vector<std::string> bad = {
      "rank=0,ranks=2,case=read,timeouts_ms=1000,devices=0:1,status=3,ctl=-:11",                 // missing key
      ok + ",extra=1",                                                                           // unknown key
      ok + ",rank=0",                                                                            // repeated key
      "rank=2,ranks=2,case=read,timeouts_ms=1000,devices=0:1,status=3,ctl=-:11,deadline_ns=5",   // rank out of range
      "rank=0,ranks=2,case=Read,timeouts_ms=1000,devices=0:1,status=3,ctl=-:11,deadline_ns=5",   // bad case name
      "rank=0,ranks=2,case=read,timeouts_ms=1000,devices=0:1,status=3,ctl=10:11,deadline_ns=5",  // own entry not '-'
      "rank=0,ranks=2,case=read,timeouts_ms=1000,devices=0:1,status=3,ctl=-,deadline_ns=5",      // too few ctl entries
      "rank=0,ranks=2,case=read,timeouts_ms=1000,devices=0:1,status=3x,ctl=-:11,deadline_ns=5",  // junk number
      "rank=0,ranks=2,case=read,timeouts_ms=1000,devices=0:1,status=3,ctl=-:11,deadline_ns=5,",  // empty field
      "rank=0,ranks=2,case=read,devices=0,status=3,ctl=-:11,deadline_ns=5",      // one device for 2 ranks
      "rank=0,ranks=2,case=read,devices=0:1:2,status=3,ctl=-:11,deadline_ns=5",  // too many devices
      "rank=0,ranks=2,case=read,devices=0:-1,status=3,ctl=-:11,deadline_ns=5",   // negative device
  };
  for (const auto& b : bad) EXPECT_FALSE(parse_rank_flag(std::string(kRankFlag) + b, &a).ok()) << b;
  EXPECT_FALSE(parse_rank_flag("--other=" + ok, &a).ok());
  // A rank started by hand with a key left out is told which one.
  Status missing = parse_rank_flag(std::string(kRankFlag) + bad[0], &a);
  EXPECT_NE(missing.detail.find("missing key 'deadline_ns'"), std::string::npos) << missing.detail;
}

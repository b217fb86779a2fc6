// The command line every binary shares, and the one internal flag that makes a process a rank.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/status.h"

namespace vmr {

constexpr int kMaxRanks = 64;
constexpr int kDefaultRanks = 2;
constexpr double kDefaultTimeoutS = 60;
// The shortest --timeout: the deadline each rank gets is whole milliseconds (the rank flag's timeouts_ms).
constexpr double kMinTimeoutS = 0.001;

struct Options {
  bool help = false;
  bool list = false;
  bool all = false;                // run known-crash cases too
  std::vector<std::string> cases;  // empty: every case not known to crash
  int ranks = 0;                   // 0: not given
  std::vector<int> devices;        // empty: not given
  double timeout_s = kDefaultTimeoutS;
  bool timeout_given = false;
  std::string json_path;
};

// Parses argv[1..]. A bad command line is a Usage status with one line saying what is wrong.
// known_cases validates --case; ranks and devices are cross-checked.
Status parse_options(int argc, const char* const* argv, const std::vector<std::string>& known_cases, Options* out);
std::string usage_text(std::string_view binary);

// How many devices the binary's runtime shows (the launcher asks a probe process: device_probe.h). No count: the
// runtime gave none (no runtime, no driver, a probe that failed); why_unknown says why where the ranks will not
// (a runtime's own refusal they report themselves).
struct VisibleDevices {
  std::optional<int> count;
  std::string why_unknown;
};

// The devices when nothing chose them: 0..n-1, or, where the runtime shows at least one GPU but fewer than the
// ranks, the ranks folded onto those it shows (rank i on GPU i % visible: one GPU makes the same-GPU pair), so a
// node with fewer GPUs runs every case rather than SKIP it. Unknown or 0 visible: 0..n-1 (the ranks SKIP with the
// runtime's own answer).
std::vector<int> default_devices(int ranks, const VisibleDevices& visible, std::string* source);

// Devices for ranks 0..n-1: --devices, else CTEST_RESOURCE_GROUP_<i>_GPUS (id:<n>,slots:<k>), else
// default_devices() with what visible_fn answers (asked on that branch only; none given: unknown).
// getenv is injectable for tests.
Status resolve_devices(const Options& opts, int ranks, const std::function<const char*(const char*)>& getenv_fn,
                       std::vector<int>* devices, std::string* source,
                       const std::function<VisibleDevices()>& visible_fn = {});
// Ranks to run: --ranks, else the --devices count, else the CTest resource-group count, else 2.
Status resolve_ranks(const Options& opts, const std::function<const char*(const char*)>& getenv_fn, int* ranks);

// --- the rank flag ---------------------------------------------------------------------------------------------
constexpr std::string_view kRankFlag = "--vmem-repro-rank=";
// The other internal flag: the process only counts the runtime's devices for the launcher (device_probe.h).
constexpr std::string_view kDeviceCountFlag = "--vmem-repro-count-devices";

struct RankArgs {
  int rank = 0;
  int ranks = 0;
  std::vector<std::string> cases;    // run in turn in this rank life ("case=read+atomics")
  std::vector<int64_t> timeouts_ms;  // per case: case k > 0 gets its own deadline when it starts
  std::vector<int> devices;          // the device of every rank; this rank's is devices[rank]
  int status_fd = -1;
  std::vector<int> ctl_fds;  // ctl_fds[j]: socket to rank j; -1 for self
  int64_t deadline_ns = 0;   // absolute CLOCK_MONOTONIC: the first case's
};

std::string format_rank_flag(const RankArgs& a);
// Strict: every key exactly once, nothing else, numbers in range, one ctl fd per other rank.
Status parse_rank_flag(std::string_view arg, RankArgs* out);
bool is_valid_case_name(std::string_view name);

}  // namespace vmr

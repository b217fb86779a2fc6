#include "harness/options.h"

#include <map>
#include <set>

#include "harness/text.h"

namespace vmr {

namespace {

// Every value echoed in a usage error goes through printable(): the error stays one line, whatever was typed.
Status usage(std::string what) { return {Verdict::Usage, std::move(what)}; }

Status parse_device_list(std::string_view text, std::vector<int>* out) {
  out->clear();
  for (std::string_view part : split(text, ',')) {
    int id;
    if (!parse_int(part, 0, 1023, &id))
      return usage("--devices: '" + printable(part) + "' is not a device number (expected e.g. 0,1)");
    out->push_back(id);
  }
  return Status::pass();
}

}  // namespace

std::string usage_text(std::string_view binary) {
  std::string b(binary);
  return "usage: " + b +
         " [--list] [--case NAME]... [--all] [--ranks N] [--devices LIST] [--timeout SECONDS] [--json FILE]\n"
         "  --list            list the cases, one line each (known-crash ones marked); with --json FILE, the\n"
         "                    machine-readable list (tags, labels, CTest properties) written to FILE instead\n"
         "  --case NAME       run this case (repeatable); default: every case not known to crash\n"
         "  --all             with no --case: every case, known-crash ones included\n"
         "  --ranks N         number of ranks (processes), 2.." +
         std::to_string(kMaxRanks) +
         "; default 2\n"
         "  --devices LIST    device per rank, e.g. 0,1; default CTEST_RESOURCE_GROUP_<i>_GPUS, else 0..N-1, or\n"
         "                    where the runtime shows fewer GPUs than ranks, rank i on GPU i % visible (one GPU:\n"
         "                    every rank on GPU 0)\n"
         "  --timeout SECONDS deadline for each case (decimal seconds, 0.001 to 86400); ranks are killed when it\n"
         "                    passes; default 60 s for every 16 ranks begun (64 ranks: 240 s), or the case's own\n"
         "  --json FILE       write the full record (verdicts, environment, phases, metrics) to FILE\n"
         "exit codes: 0 PASS, 1 FAIL, 2 usage, 3 CRASH, 4 HANG, 77 SKIP, 99 harness error\n";
}

Status parse_options(int argc, const char* const* argv, const std::vector<std::string>& known_cases, Options* out) {
  Options o;
  bool json_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    std::string_view name = arg, value;
    bool inline_value = false;
    if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string_view::npos) {
      name = arg.substr(0, arg.find('='));
      value = arg.substr(arg.find('=') + 1);
      inline_value = true;
    }
    auto take_value = [&](std::string_view* v) -> Status {
      if (inline_value) {
        *v = value;
      } else {
        if (i + 1 >= argc) return usage(std::string(name) + " needs a value");
        *v = argv[++i];
      }
      if (v->empty()) return usage(std::string(name) + " needs a non-empty value");
      return Status::pass();
    };
    auto no_value = [&]() -> Status {
      return inline_value ? usage(std::string(name) + " takes no value") : Status::pass();
    };
    std::string_view v;
    if (name == "--help" || name == "-h") {
      VMR_TRY(no_value());
      o.help = true;
    } else if (name == "--list") {
      VMR_TRY(no_value());
      o.list = true;
    } else if (name == "--all") {
      VMR_TRY(no_value());
      o.all = true;
    } else if (name == "--case") {
      VMR_TRY(take_value(&v));
      bool known = false;
      for (const auto& c : known_cases) known = known || c == v;
      if (!known) return usage("unknown case '" + printable(v) + "' (known: " + join(known_cases, ", ") + ")");
      for (const auto& c : o.cases)
        if (c == v) return usage("--case " + std::string(v) + " given twice");
      o.cases.emplace_back(v);
    } else if (name == "--ranks") {
      VMR_TRY(take_value(&v));
      if (o.ranks) return usage("--ranks given twice");
      if (!parse_int(v, 2, kMaxRanks, &o.ranks))
        return usage("--ranks: '" + printable(v) + "' is not a whole number from 2 to " + std::to_string(kMaxRanks));
    } else if (name == "--devices") {
      VMR_TRY(take_value(&v));
      if (!o.devices.empty()) return usage("--devices given twice");
      VMR_TRY(parse_device_list(v, &o.devices));
    } else if (name == "--timeout") {
      VMR_TRY(take_value(&v));
      if (o.timeout_given) return usage("--timeout given twice");
      // At least 1 ms: the ranks' deadline is counted in whole milliseconds, so a shorter one would be 0 ms, a
      // HANG of the suite's own making.
      if (!parse_seconds(v, &o.timeout_s) || o.timeout_s < kMinTimeoutS || o.timeout_s > 86400)
        return usage("--timeout: '" + printable(v) + "' is not a number of seconds from 0.001 (1 ms) to 86400");
      o.timeout_given = true;
    } else if (name == "--json") {
      VMR_TRY(take_value(&v));
      if (json_given) return usage("--json given twice");
      o.json_path = std::string(v);
      json_given = true;
    } else if (arg.rfind("--", 0) == 0) {
      return usage("unknown option '" + printable(name) + "' (see --help)");
    } else {
      return usage("unexpected argument '" + printable(arg) + "' (see --help)");
    }
  }
  if (o.all && !o.cases.empty()) return usage("--all and --case exclude each other");
  if (o.ranks && !o.devices.empty() && int(o.devices.size()) != o.ranks)
    return usage("--devices lists " + std::to_string(o.devices.size()) + " devices but --ranks is " +
                 std::to_string(o.ranks));
  if (!o.ranks && o.devices.size() == 1) return usage("--devices lists one device; at least 2 ranks are needed");
  if (o.devices.size() > size_t(kMaxRanks)) return usage("--devices lists more than " + std::to_string(kMaxRanks));
  *out = std::move(o);
  return Status::pass();
}

namespace {
// CTest's group count, or nullptr when it gave none: with --resource-spec-file, ctest sets
// CTEST_RESOURCE_GROUP_COUNT=0 for a test that asks for no resources (the host cases), which means "not given".
const char* resource_group_count(const std::function<const char*(const char*)>& getenv_fn) {
  const char* count = getenv_fn("CTEST_RESOURCE_GROUP_COUNT");
  return count && std::string_view(count) == "0" ? nullptr : count;
}
}  // namespace

Status resolve_ranks(const Options& opts, const std::function<const char*(const char*)>& getenv_fn, int* ranks) {
  if (opts.ranks) {
    *ranks = opts.ranks;
  } else if (!opts.devices.empty()) {
    *ranks = int(opts.devices.size());
  } else if (const char* count = resource_group_count(getenv_fn)) {
    if (!parse_int(count, 2, kMaxRanks, ranks))
      return Status::harness("CTEST_RESOURCE_GROUP_COUNT='" + printable(count) +
                             "' is not a number of groups from 2 to " + std::to_string(kMaxRanks));
  } else {
    *ranks = kDefaultRanks;
  }
  return Status::pass();
}

Status resolve_devices(const Options& opts, int ranks, const std::function<const char*(const char*)>& getenv_fn,
                       std::vector<int>* devices, std::string* source,
                       const std::function<VisibleDevices()>& visible_fn) {
  if (!opts.devices.empty()) {
    *devices = opts.devices;
    *source = "--devices";
    return Status::pass();
  }
  if (const char* count = resource_group_count(getenv_fn)) {
    int groups;
    if (!parse_int(count, 1, kMaxRanks, &groups))
      return Status::harness("CTEST_RESOURCE_GROUP_COUNT='" + printable(count) +
                             "' is not a number of groups from 1 to " + std::to_string(kMaxRanks));
    if (groups < ranks)
      return Status::harness("CTEST_RESOURCE_GROUP_COUNT=" + std::to_string(groups) + " gives fewer groups than " +
                             std::to_string(ranks) + " ranks");
    devices->clear();
    for (int i = 0; i < ranks; ++i) {
      std::string var = "CTEST_RESOURCE_GROUP_" + std::to_string(i) + "_GPUS";
      const char* spec = getenv_fn(var.c_str());
      // CTest writes "id:<id>,slots:<n>"; a rank takes the first GPU of its group.
      int id;
      std::string_view s = spec ? spec : "";
      if (s.rfind("id:", 0) != 0 || !parse_int(split(s.substr(3), ',')[0], 0, 1023, &id))
        return Status::harness(var + "='" + printable(s) + "' is not of the form id:<n>,slots:<k>");
      devices->push_back(id);
    }
    *source = "CTest resource groups";
    return Status::pass();
  }
  *devices = default_devices(ranks, visible_fn ? visible_fn() : VisibleDevices{}, source);
  return Status::pass();
}

std::vector<int> default_devices(int ranks, const VisibleDevices& visible, std::string* source) {
  const int shown = visible.count.value_or(0);
  const bool fold = shown >= 1 && shown < ranks;
  std::vector<int> devices;
  for (int i = 0; i < ranks; ++i) devices.push_back(fold ? i % shown : i);
  if (!fold) {
    *source = "default 0..N-1";
    if (!visible.count && !visible.why_unknown.empty())
      *source += " (visible devices unknown: " + visible.why_unknown + ")";
    return devices;
  }
  const std::string gpus = shown == 1 ? "the 1 visible GPU" : "the " + std::to_string(shown) + " visible GPUs";
  const std::string how = shown > 1    ? "rank i on GPU i % " + std::to_string(shown)
                          : ranks == 2 ? "same-GPU pair"
                                       : "all on GPU 0";
  *source = "default: " + std::to_string(ranks) + " ranks on " + gpus + " (" + how + ")";
  return devices;
}

// --- rank flag -------------------------------------------------------------------------------------------------

bool is_valid_case_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

std::string format_rank_flag(const RankArgs& a) {
  std::vector<std::string> ctl, devices, timeouts;
  for (int fd : a.ctl_fds) ctl.push_back(fd < 0 ? "-" : std::to_string(fd));
  for (int d : a.devices) devices.push_back(std::to_string(d));
  for (int64_t t : a.timeouts_ms) timeouts.push_back(std::to_string(t));
  return std::string(kRankFlag) + "rank=" + std::to_string(a.rank) + ",ranks=" + std::to_string(a.ranks) +
         ",case=" + join(a.cases, "+") + ",timeouts_ms=" + join(timeouts, "+") + ",devices=" + join(devices, ":") +
         ",status=" + std::to_string(a.status_fd) + ",ctl=" + join(ctl, ":") +
         ",deadline_ns=" + std::to_string(a.deadline_ns);
}

Status parse_rank_flag(std::string_view arg, RankArgs* out) {
  auto bad = [&](std::string why) { return Status::harness("bad rank flag '" + printable(arg) + "': " + why); };
  if (arg.rfind(kRankFlag, 0) != 0) return bad("does not start with " + std::string(kRankFlag));
  std::map<std::string_view, std::string_view> fields;
  for (std::string_view kv : split(arg.substr(kRankFlag.size()), ',')) {
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) return bad("'" + std::string(kv) + "' is not key=value");
    if (!fields.emplace(kv.substr(0, eq), kv.substr(eq + 1)).second)
      return bad("key '" + std::string(kv.substr(0, eq)) + "' repeated");
  }
  const std::set<std::string_view> keys = {"rank",    "ranks",  "case", "timeouts_ms",
                                           "devices", "status", "ctl",  "deadline_ns"};
  for (const auto& [k, v] : fields)
    if (!keys.count(k)) return bad("unknown key '" + std::string(k) + "'");
  for (auto k : keys)
    if (!fields.count(k)) return bad("missing key '" + std::string(k) + "'");
  RankArgs a;
  if (!parse_int(fields["ranks"], 2, kMaxRanks, &a.ranks)) return bad("ranks out of range");
  if (!parse_int(fields["rank"], 0, a.ranks - 1, &a.rank)) return bad("rank out of range");
  for (auto name : split(fields["case"], '+')) {
    if (!is_valid_case_name(name)) return bad("bad case name '" + std::string(name) + "'");
    a.cases.emplace_back(name);
  }
  for (auto t : split(fields["timeouts_ms"], '+')) {
    int64_t ms = 0;
    if (!parse_int64(t, &ms) || ms <= 0 || ms > int64_t(86400) * 1000)
      return bad("bad timeout '" + std::string(t) + "'");
    a.timeouts_ms.push_back(ms);
  }
  if (a.timeouts_ms.size() != a.cases.size()) return bad("timeouts_ms needs one entry per case");
  auto devices = split(fields["devices"], ':');
  if (int(devices.size()) != a.ranks) return bad("devices needs one entry per rank");
  for (auto d : devices) {
    int device = 0;
    if (!parse_int(d, 0, 1023, &device)) return bad("bad device '" + std::string(d) + "'");
    a.devices.push_back(device);
  }
  if (!parse_int(fields["status"], 0, 1 << 20, &a.status_fd)) return bad("bad status fd");
  if (!parse_int64(fields["deadline_ns"], &a.deadline_ns) || a.deadline_ns <= 0) return bad("bad deadline_ns");
  auto ctl = split(fields["ctl"], ':');
  if (int(ctl.size()) != a.ranks) return bad("ctl needs one entry per rank");
  for (int j = 0; j < a.ranks; ++j) {
    int fd = -1;
    if (j == a.rank ? ctl[j] != "-" : !parse_int(ctl[j], 0, 1 << 20, &fd))
      return bad("ctl entry " + std::to_string(j) + " is '" + std::string(ctl[j]) + "'");
    a.ctl_fds.push_back(fd);
  }
  *out = std::move(a);
  return Status::pass();
}

}  // namespace vmr

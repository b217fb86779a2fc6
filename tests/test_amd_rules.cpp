// The AMD runtime conventions decided at run time (amd/amd_rules.h), for the releases a user may run.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <map>
#include <optional>

#include "amd/amd_rules.h"
#include "harness/expected.h"

using namespace vmr_amd;

namespace {
// hipRuntimeGetVersion values: major * 10^7 + minor * 10^5 + build.
constexpr int kHip62 = 60241133, kHip64 = 60443483, kHip70 = 70051831, kHip71 = 70151830, kHip72 = 70253210;

OsHandle decide(int hip, const std::string& release, const char* override_value = nullptr,
                std::optional<bool> pointer_form_accepted = std::nullopt) {
  OsHandleDecision d;
  EXPECT_TRUE(decide_os_handle(hip, release, override_value, pointer_form_accepted, &d).ok());
  EXPECT_FALSE(d.why.empty());
  return d.convention;
}
}  // namespace

TEST(AmdRules, HipVersionText) {
  EXPECT_EQ(hip_version_text(kHip70), "7.0.51831");
  EXPECT_EQ(hip_version_text(kHip62), "6.2.41133");
}

TEST(AmdRules, OsHandleByRuntimeVersion) {
  EXPECT_EQ(decide(kHip62, "6.2.0"), OsHandle::Pointer);
  EXPECT_EQ(decide(kHip64, "6.4.1"), OsHandle::Pointer);
  EXPECT_EQ(decide(kHip70, "7.0.2"), OsHandle::Pointer);
  EXPECT_EQ(decide(kHip70, "7.0.2.1"), OsHandle::Pointer);
  EXPECT_EQ(decide(kHip70, "7.0"), OsHandle::Pointer);  // no .info/version: the runtime's major.minor
  EXPECT_EQ(decide(kHip71, "7.1.0"), OsHandle::Value);
  EXPECT_EQ(decide(kHip71, "7.1"), OsHandle::Value);
  EXPECT_EQ(decide(kHip72, "7.2.0"), OsHandle::Value);
  // The 7.0.2.2 backport reports 7.0's HIP_VERSION but carries the by-value import.
  EXPECT_EQ(decide(kHip70, "7.0.2.2"), OsHandle::Value);
}

// The probe can only prove the pointer form (the by-value form is the one that crashes the other kind of runtime):
// a pointer form that worked wins over the version; a refused one leaves the version to decide.
TEST(AmdRules, OsHandleProbe) {
  EXPECT_EQ(decide(kHip71, "7.1.0", nullptr, true), OsHandle::Pointer);
  EXPECT_EQ(decide(kHip70, "7.0.2", nullptr, true), OsHandle::Pointer);
  EXPECT_EQ(decide(kHip71, "7.1.0", nullptr, false), OsHandle::Value);
  // Refused where the version says pointer (a 7.0.2.2 backport without its .info/version, say): no guess.
  OsHandleDecision d;
  vmr::Status contradiction = decide_os_handle(kHip64, "6.4.1", nullptr, false, &d);
  EXPECT_EQ(contradiction.verdict, vmr::Verdict::Harness);
  EXPECT_NE(contradiction.detail.find("VMR_HIP_OSHANDLE=value or VMR_HIP_OSHANDLE=pointer"), std::string::npos);
  EXPECT_EQ(decide(kHip72, "7.2.0", "pointer", false), OsHandle::Pointer);  // the override wins over both
}

TEST(AmdRules, OsHandleOverride) {
  EXPECT_EQ(decide(kHip72, "7.2.0", "pointer"), OsHandle::Pointer);
  EXPECT_EQ(decide(kHip62, "6.2.0", "value"), OsHandle::Value);
  OsHandleDecision d;
  vmr::Status bad = decide_os_handle(kHip70, "7.0.2", "by-value", std::nullopt, &d);
  EXPECT_EQ(bad.verdict, vmr::Verdict::Harness);
  EXPECT_NE(bad.detail.find("VMR_HIP_OSHANDLE='by-value'"), std::string::npos) << bad.detail;
}

// --- the ROCm release: the loaded runtime's install, then the fallbacks, then HIP's major.minor ------------------

namespace {
using Files = std::map<std::string, std::string>;  // a file system of .info/version files: path -> first line

ReleaseFacts release_on(const Files& files, const std::string& library, int hip, const char* rocm_path = nullptr) {
  return rocm_release(version_files(library, rocm_path), hip, [&](const std::string& path) {
    auto it = files.find(path);
    return it == files.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
}
const std::string kFull = "full", kMajorMinor(vmr::kMajorMinorOnly);
}  // namespace

// HIP is numbered apart from the ROCm release (amd_rules.h): the loaded runtime's own .info/version wins.
TEST(AmdRules, RocmReleaseIsTheLoadedRuntimesInstallWhateverHipSays) {
  // TheRock 10.1.0 with HIP 7.16 (rocm-systems PR #11712 bumps HIP 7.16 -> 7.17 for ROCm 10.2), beside an
  // /opt/rocm of another release.
  constexpr int kHip716 = 71600000;
  ReleaseFacts r = release_on({{"/opt/therock-10.1/.info/version", "10.1.0"}, {"/opt/rocm/.info/version", "7.2.0"}},
                              "/opt/therock-10.1/lib/libamdhip64.so.7", kHip716, "/opt/rocm");
  EXPECT_EQ(r.release, "10.1.0");
  EXPECT_EQ(r.precision, kFull);
  EXPECT_EQ(r.file, "/opt/therock-10.1/.info/version");
  EXPECT_EQ(r.line, "10.1.0");
  EXPECT_NE(r.source.find("the loaded HIP runtime"), std::string::npos) << r.source;
  // A real 7.14.0 install reports HIP 7.13.99004; here from TheRock's Python wheel layout.
  constexpr int kHip71399004 = 71399004;
  EXPECT_EQ(hip_version_text(kHip71399004), "7.13.99004");
  const std::string wheel = "/venv/lib/python3.12/site-packages/_rocm_sdk_core";
  r = release_on({{wheel + "/.info/version", "7.14.0"}}, wheel + "/lib/libamdhip64.so.7", kHip71399004);
  EXPECT_EQ(r.release, "7.14.0");
  EXPECT_EQ(r.precision, kFull);
  // The 7.0.2.2 point build reports 7.0's HIP_VERSION (that of 7.0.2.1) and writes M.m.p.POINT: its by-value
  // import follows from the release.
  r = release_on({{"/opt/rocm-7.0.2/.info/version", "7.0.2.2"}}, "/opt/rocm-7.0.2/lib/libamdhip64.so.7.0.70002",
                 kHip70);
  EXPECT_EQ(r.release, "7.0.2.2");
  EXPECT_EQ(r.precision, kFull);
  EXPECT_EQ(decide(kHip70, r.release), OsHandle::Value);
  // A nightly's pre-release string is kept whole (7.15.0a20260727 < 7.15.0), as is a packaged suffix dropped.
  constexpr int kHip715 = 71500000;
  r = release_on({{"/opt/nightly/.info/version", "7.15.0a20260727"}}, "/opt/nightly/lib/libamdhip64.so.7", kHip715);
  EXPECT_EQ(r.release, "7.15.0a20260727");
  EXPECT_EQ(r.precision, kFull);
  r = release_on({{"/opt/rocm-7.0.2/.info/version", "7.0.2.1-69~22.04"}}, "/opt/rocm-7.0.2/lib/libamdhip64.so.7",
                 kHip70);
  EXPECT_EQ(r.release, "7.0.2.1");
  // A build number in the third field leaves only major.minor, and says so.
  constexpr int kHip714 = 71460850;
  r = release_on({{"/opt/t/.info/version", "7.14.60850"}}, "/opt/t/lib/libamdhip64.so.7", kHip714);
  EXPECT_EQ(r.release, "7.14");
  EXPECT_EQ(r.precision, kMajorMinor);
  EXPECT_NE(r.source.find("build number"), std::string::npos) << r.source;
  r = release_on({{"/opt/t/.info/version", "7.14.2"}}, "/opt/t/lib/libamdhip64.so.7", kHip714);
  EXPECT_EQ(r.release, "7.14.2");  // a patch release keeps its third field
}

// Where the install's root is: the library's directory's parent or grandparent, never "/", never the executable.
TEST(AmdRules, VersionFilesOfTheLoadedRuntimeThenTheFallbacks) {
  auto paths = [](const std::string& library, const char* rocm_path) {
    std::vector<std::string> out;
    for (const auto& f : version_files(library, rocm_path))
      out.push_back(f.path + (f.install == InstallOf::LoadedRuntime ? " loaded"
                              : f.install == InstallOf::RocmPath    ? " ROCM_PATH"
                                                                    : " opt"));
    return out;
  };
  // A runtime whose path is known: only its own install, never $ROCM_PATH or /opt/rocm (another install, maybe).
  EXPECT_EQ(paths("/usr/lib/x86_64-linux-gnu/libamdhip64.so.5.2.50203", "/opt/rocm-6.4.1"),
            (std::vector<std::string>{"/usr/lib/.info/version loaded", "/usr/.info/version loaded"}));
  EXPECT_EQ(paths("/opt/rocm-7.0.2/lib/libamdhip64.so.7", ""),
            (std::vector<std::string>{"/opt/rocm-7.0.2/.info/version loaded", "/opt/.info/version loaded"}));
  EXPECT_TRUE(paths("/lib/libamdhip64.so.6", nullptr).empty());
  // Not the runtime: an executable dladdr named (a canonical PLT entry), or no path at all.
  EXPECT_EQ(paths("/home/u/build/bin/repro_hip_vmem_pinned", nullptr),
            (std::vector<std::string>{"/opt/rocm/.info/version opt"}));
  EXPECT_EQ(paths("(dladdr cannot tell which object defines hipRuntimeGetVersion)", "/r"),
            (std::vector<std::string>{"/r/.info/version ROCM_PATH", "/opt/rocm/.info/version opt"}));
  // A root two levels above the library (Debian's layout, though Debian itself ships no .info/version).
  ReleaseFacts r = release_on({{"/usr/.info/version", "6.4.3"}}, "/usr/lib/x86_64-linux-gnu/libamdhip64.so.6", kHip64);
  EXPECT_EQ(r.release, "6.4.3");
  EXPECT_EQ(r.file, "/usr/.info/version");
  // "/.info/version" belongs to no install.
  r = release_on({{"/.info/version", "6.4.3"}}, "/lib/libamdhip64.so.6", kHip64);
  EXPECT_EQ(r.release, "6.4");
  EXPECT_EQ(r.precision, kMajorMinor);
}

// $ROCM_PATH and /opt/rocm may be other installs: they count only where HIP's major.minor agrees; with none, HIP's
// major.minor, marked as known to major.minor only.
TEST(AmdRules, FallbacksAreCrossCheckedElseHipsMajorMinor) {
  // Debian's 6.4.3 runtime (no .info/version in its install) beside an /opt/rocm-6.4.1: its path is known, so the
  // other install's 6.4.1 is never taken (the unmap-leak row for 6.4.0-6.4.1 would expect a FAIL of a fixed 6.4.3).
  const std::string packaged = "/usr/lib/x86_64-linux-gnu/libamdhip64.so.6";
  ReleaseFacts r = release_on({{"/opt/rocm-6.4.1/.info/version", "6.4.1-120"}, {"/opt/rocm/.info/version", "6.4.1"}},
                              packaged, kHip64, "/opt/rocm-6.4.1");
  EXPECT_EQ(r.release, "6.4");
  EXPECT_EQ(r.precision, kMajorMinor);
  EXPECT_EQ(r.file, "");
  // Where the runtime's path is unknown, the fallbacks, each cross-checked with HIP's major.minor.
  const std::string debian = "(dladdr cannot tell which object defines hipRuntimeGetVersion)";
  r = release_on({}, debian, kHip64);
  EXPECT_EQ(r.release, "6.4");
  EXPECT_EQ(r.precision, kMajorMinor);
  EXPECT_EQ(r.file, "");
  EXPECT_NE(r.source.find("hipRuntimeGetVersion"), std::string::npos) << r.source;
  EXPECT_NE(r.source.find("no readable .info/version"), std::string::npos) << r.source;
  r = release_on({{"/opt/rocm-6.4.1/.info/version", "6.4.1-120"}}, debian, kHip64, "/opt/rocm-6.4.1");
  EXPECT_EQ(r.release, "6.4.1");
  EXPECT_EQ(r.precision, kFull);
  EXPECT_NE(r.source.find("$ROCM_PATH"), std::string::npos) << r.source;
  r = release_on({{"/opt/rocm/.info/version", "6.4.2"}}, debian, kHip64);
  EXPECT_EQ(r.release, "6.4.2");
  // Another install's file is passed over, and named.
  r = release_on({{"/opt/rocm-7.0.2/.info/version", "7.0.2"}, {"/opt/rocm/.info/version", "7.2.0"}}, debian, kHip64,
                 "/opt/rocm-7.0.2");
  EXPECT_EQ(r.release, "6.4");
  EXPECT_EQ(r.precision, kMajorMinor);
  EXPECT_NE(r.source.find("/opt/rocm-7.0.2/.info/version says 7.0.2, not the HIP runtime's 6.4"), std::string::npos)
      << r.source;
  EXPECT_NE(r.source.find("/opt/rocm/.info/version says 7.2.0"), std::string::npos) << r.source;
  // A fallback that disagrees is passed over for the next one that agrees.
  r = release_on({{"/opt/rocm-7.0.2/.info/version", "7.0.2"}, {"/opt/rocm/.info/version", "6.4.3"}}, debian, kHip64,
                 "/opt/rocm-7.0.2");
  EXPECT_EQ(r.release, "6.4.3");
  // A line that names no version is no release ("7": one bare number); the next file decides.
  r = release_on({{"/usr/lib/.info/version", "7"}, {"/usr/.info/version", "7.1.1"}},
                 "/usr/lib/x86_64-linux-gnu/libamdhip64.so.7", kHip71);
  EXPECT_EQ(r.release, "7.1.1");
  r = release_on({{"/opt/rocm/.info/version", ""}}, debian, kHip71);
  EXPECT_EQ(r.release, "7.1");
  EXPECT_NE(r.source.find("names no version"), std::string::npos) << r.source;
}

TEST(AmdRules, PciBusIdKeepsTheFunction) {
  uint32_t domain = 9, bdf = 9;
  ASSERT_TRUE(parse_pci_bus_id("0000:c1:00.0", &domain, &bdf));
  EXPECT_EQ(domain, 0u);
  EXPECT_EQ(bdf, 0xc100u);
  ASSERT_TRUE(parse_pci_bus_id("0001:05:02.3", &domain, &bdf));
  EXPECT_EQ(domain, 1u);
  EXPECT_EQ(bdf, uint32_t(0x05 << 8 | 2 << 3 | 3));
  EXPECT_FALSE(parse_pci_bus_id("0000:c1:00", &domain, &bdf));
  EXPECT_FALSE(parse_pci_bus_id("0000:c1:00.0x", &domain, &bdf));
  EXPECT_FALSE(parse_pci_bus_id("", &domain, &bdf));
}

TEST(AmdRules, MissingCodeObjectNamesArchBuildAndFlag) {
  EXPECT_EQ(missing_code_object("gfx942:sramecc+:xnack-", "gfx90a,gfx942,gfx950"), "");
  EXPECT_EQ(missing_code_object("gfx90a:sramecc+:xnack-", "gfx90a:xnack-"), "");
  std::string why = missing_code_object("gfx942:sramecc+:xnack-", "gfx90a");
  EXPECT_NE(why.find("no code object for gfx942 (built for gfx90a)"), std::string::npos) << why;
  EXPECT_NE(why.find("-DCMAKE_HIP_ARCHITECTURES=gfx942"), std::string::npos) << why;
  EXPECT_NE(missing_code_object("gfx950", "").find("built for nothing"), std::string::npos);
}

// --- HIP device <-> HSA agent pairing on fixture topologies ---------------------------------------------------------

namespace {
std::string uuid_of(int gpu) {  // "GPU-" + 16 hex digits, as HSA_AMD_AGENT_INFO_UUID gives them
  char u[32];
  std::snprintf(u, sizeof u, "GPU-%016x", 0x5a00 + gpu);
  return u;
}
// The HIP device of agent `a` as CLR reports it: the bus id from the BDFID's low 16 bits, the agent's UUID.
HipDeviceId hip_view(const GpuAgentId& a) {
  char b[32];
  const uint32_t bdf = a.bdfid & 0xffff;
  std::snprintf(b, sizeof b, "%04x:%02x:%02x.%x", a.domain, bdf >> 8, (bdf >> 3) & 0x1f, bdf & 7);
  return {b, a.uuid};
}
// Pairs every listed agent's HIP view; the allocation owner, when asked, is `owner` (counting the asks).
std::vector<size_t> paired(const std::vector<GpuAgentId>& agents, const std::vector<size_t>& devices,
                           std::vector<std::string>* how = nullptr, int* asked = nullptr,
                           std::function<std::optional<size_t>(size_t)> owner = nullptr) {
  std::vector<size_t> out;
  for (size_t d : devices) {
    size_t agent = 99;
    std::string way;
    vmr::Status s = pair_device_with_agent(
        hip_view(agents[d]), agents,
        [&]() -> std::optional<size_t> {
          if (asked) ++*asked;
          return owner ? owner(d) : std::nullopt;
        },
        &agent, &way);
    EXPECT_TRUE(s.ok()) << s.detail;
    out.push_back(agent);
    if (how) how->push_back(way);
  }
  return out;
}
}  // namespace

TEST(AgentPairing, UuidTextFromHipBytes) {
  const char bytes[16] = {'0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '5', 'a', '0', '3'};
  EXPECT_EQ(hip_uuid_text(bytes), uuid_of(3));
  const char none[16] = {};
  EXPECT_EQ(hip_uuid_text(none), "");
}

TEST(AgentPairing, Mi250xEightGcdsEachOnItsOwnPciFunction) {
  std::vector<GpuAgentId> agents;
  for (uint32_t bus : {0x29u, 0x2cu, 0x2fu, 0x32u, 0xa9u, 0xacu, 0xafu, 0xb2u})
    agents.push_back({0, bus << 8, uuid_of(int(agents.size()))});
  int asked = 0;
  std::vector<std::string> how;
  EXPECT_EQ(paired(agents, {0, 1, 2, 3, 4, 5, 6, 7}, &how, &asked), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(how[4], "PCI location, UUID agrees");
  // HIP_VISIBLE_DEVICES=6,2 (HIP only) changes nothing: each device names its own location.
  EXPECT_EQ(paired(agents, {6, 2}, nullptr, &asked), (std::vector<size_t>{6, 2}));
  EXPECT_EQ(asked, 0);  // no allocation made where the location decides
}

TEST(AgentPairing, Mi300xSpxEightAgentsAndDomainsApart) {
  std::vector<GpuAgentId> agents;
  for (uint32_t bus : {0x05u, 0x25u, 0x45u, 0x65u, 0x85u, 0xa5u, 0xc5u, 0xe5u})
    agents.push_back({0, bus << 8, uuid_of(int(agents.size()))});
  agents[7].domain = 1;  // the same BDF in another PCI domain is another GPU
  agents.push_back({0, 0xe5u << 8, uuid_of(8)});
  EXPECT_EQ(paired(agents, {0, 1, 2, 3, 4, 5, 6, 7, 8}), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
}

// CPX: 8 agents behind one PCI device. Kernels since 2023 put the partition index in the function bits (each bus id
// differs); the layout rocm-smi-lib decodes puts it in BDFID bits 28-31, where all eight share one bus id.
TEST(AgentPairing, Mi300xCpxPartitionsInTheFunctionBits) {
  std::vector<GpuAgentId> agents;
  for (uint32_t p = 0; p < 8; ++p) agents.push_back({0, 0xc100u | p, uuid_of(0)});  // one UUID for the GPU
  EXPECT_EQ(paired(agents, {0, 1, 2, 3, 4, 5, 6, 7}), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(paired(agents, {5}), (std::vector<size_t>{5}));
}

TEST(AgentPairing, Mi300xCpxSameBdfSiblingsByUuidElseByAllocationOwner) {
  std::vector<GpuAgentId> agents;
  for (uint32_t p = 0; p < 8; ++p) agents.push_back({0, p << 28 | 0xc100u, uuid_of(int(p))});
  agents.push_back({0, 0x0500u, uuid_of(9)});  // another GPU after them
  std::vector<std::string> how;
  int asked = 0;
  // Per-partition UUIDs (kernels from 2025): the UUID decides, HIP_VISIBLE_DEVICES=5,2 included.
  EXPECT_EQ(paired(agents, {5, 2, 8}, &how, &asked), (std::vector<size_t>{5, 2, 8}));
  EXPECT_EQ(how[0], "PCI location and UUID (8 agents there)");
  EXPECT_EQ(asked, 0);
  // One UUID for the whole GPU (older kernels): the owner of an allocation on the device decides.
  for (size_t p = 0; p < 8; ++p) agents[p].uuid = uuid_of(0);
  how.clear();
  EXPECT_EQ(paired(agents, {3, 6}, &how, &asked, [](size_t d) { return std::optional<size_t>(d); }),
            (std::vector<size_t>{3, 6}));
  EXPECT_EQ(asked, 2);
  EXPECT_NE(how[1].find("owner of an allocation"), std::string::npos) << how[1];
  // No UUID at all ("GPU-XX"): the owner again.
  for (size_t p = 0; p < 8; ++p) agents[p].uuid = "GPU-XX";
  EXPECT_EQ(paired(agents, {7}, nullptr, nullptr, [](size_t d) { return std::optional<size_t>(d); }),
            (std::vector<size_t>{7}));
}

TEST(AgentPairing, WhatNothingTellsApartIsHarness) {
  std::vector<GpuAgentId> agents{{0, 0xc100u, uuid_of(0)}, {0, 0xc200u, uuid_of(1)}};
  for (uint32_t p = 0; p < 4; ++p) agents.push_back({0, p << 28 | 0xd100u, uuid_of(5)});
  size_t agent = 0;
  std::string how;
  auto harness = [&](const HipDeviceId& device, std::optional<size_t> owner = std::nullopt) {
    vmr::Status s = pair_device_with_agent(
        device, agents, [&] { return owner; }, &agent, &how);
    EXPECT_EQ(s.verdict, vmr::Verdict::Harness) << s.detail;
    return s.detail;
  };
  EXPECT_NE(harness({"0000:c3:00.0", ""}).find("matches no HSA GPU agent"), std::string::npos);
  EXPECT_NE(harness({"0001:c1:00.0", ""}).find("the HIP device at 0001:c1:00.0"), std::string::npos);
  EXPECT_NE(harness({"0000:c1:00.0", uuid_of(7)}).find("the only HSA GPU agent there (BDFID 0xc100) has"),
            std::string::npos);
  EXPECT_NE(harness({"c1:00.0", ""}).find("not a PCI bus id"), std::string::npos);
  // Four siblings with one UUID: no owner, or an owner elsewhere, tells them apart.
  EXPECT_NE(harness({"0000:d1:00.0", uuid_of(5)}).find("4 HSA GPU agents share that PCI location"), std::string::npos);
  EXPECT_NE(harness({"0000:d1:00.0", ""}, 1).find("agent 1, lie among them"), std::string::npos);
}

TEST(AmdRules, HostAccessToDeviceMemoryIsAskedFromHip72) {
  EXPECT_TRUE(host_access_support(70253211, true).ok());  // 7.2.1
  EXPECT_TRUE(host_access_support(71500000, true).ok());
  const vmr::Status small_bar = host_access_support(71500000, false);
  EXPECT_EQ(small_bar.verdict, vmr::Verdict::Skip);
  EXPECT_NE(small_bar.detail.find("isLargeBar is 0"), std::string::npos) << small_bar.detail;
  for (int before : {60443483, 70051831, 70151831}) {  // 6.4.3, 7.0.2, 7.1.x
    vmr::Status s = host_access_support(before, true);
    EXPECT_EQ(s.verdict, vmr::Verdict::Skip) << before;
    EXPECT_NE(s.detail.find("HIP runtime " + hip_version_text(before)), std::string::npos) << s.detail;
    EXPECT_NE(s.detail.find("would fault"), std::string::npos) << s.detail;
  }
}

TEST(AmdRules, VmmUnsupportedSkipsNamingTheAttribute) {
  EXPECT_TRUE(vmm_support(0, 1, nullptr, std::nullopt).ok());
  vmr::Status off = vmm_support(3, 0, nullptr, true);
  EXPECT_EQ(off.verdict, vmr::Verdict::Skip);
  EXPECT_NE(off.detail.find("hipDeviceAttributeVirtualMemoryManagementSupported is 0 on device 3"), std::string::npos)
      << off.detail;
  EXPECT_NE(off.detail.find("ioctl 1.15"), std::string::npos) << off.detail;
  // HIP_VMEM_MANAGE_SUPPORT off zeroes the attribute, not hipMemCreate: ROCr's answer decides.
  for (const char* value : {"0", "false", "No", "", "yes", "TRUE", "off"}) {
    EXPECT_TRUE(vmm_support(0, 0, value, true).ok()) << value;
    EXPECT_TRUE(vmm_support(0, 0, value, std::nullopt).ok()) << value;  // ROCr did not say: the calls will
    const vmr::Status rocr_says_no = vmm_support(2, 0, value, false);
    EXPECT_EQ(rocr_says_no.verdict, vmr::Verdict::Skip) << value;
    EXPECT_EQ(rocr_says_no.detail.rfind("HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED is false (the KFD", 0), 0u)
        << rocr_says_no.detail;
    EXPECT_NE(rocr_says_no.detail.find("(HIP_VMEM_MANAGE_SUPPORT=" + std::string(value) + " only hides it from HIP)"),
              std::string::npos)
        << rocr_says_no.detail;
  }
  // The flag on (clr: "true" or a non-zero number): the attribute is ROCr's answer, 0 is a SKIP whatever ROCr says.
  for (const char* value : {"1", "true", "2"}) EXPECT_EQ(vmm_support(0, 0, value, true).verdict, vmr::Verdict::Skip);
}

// clr's boolean flags, as rocclr/utils/flags.cpp reads them: exactly "true" or a non-zero number is on.
TEST(AmdRules, ClrFlagOn) {
  EXPECT_TRUE(clr_flag_on(nullptr, true));
  EXPECT_FALSE(clr_flag_on(nullptr, false));
  for (const char* on : {"true", "1", "2", "-1", "1abc"}) EXPECT_TRUE(clr_flag_on(on, false)) << on;
  for (const char* off : {"false", "0", "", "TRUE", "yes", "on", "no"}) EXPECT_FALSE(clr_flag_on(off, true)) << off;
}

// Host-location VMem is asked, not gated: only headers without the enum stop the build from asking.
TEST(AmdRules, HostLocationIsAskedWhereTheHeadersNameIt) {
  EXPECT_TRUE(host_location_build(true, 60443483).ok());  // a 7.0.2.2-style backport of the constants: asked
  const vmr::Status s = host_location_build(false, 60443483);
  EXPECT_EQ(s.verdict, vmr::Verdict::Skip);
  EXPECT_NE(s.detail.find("name no hipMemLocationTypeHost"), std::string::npos) << s.detail;
  EXPECT_NE(s.detail.find("HIP 6.4.43483"), std::string::npos) << s.detail;
}

// The runtime's refusal of the location is a SKIP naming it; any other failure stays the case's.
TEST(AmdRules, HostLocationRefusalIsTheRuntimesAnswer) {
  EXPECT_TRUE(host_location_refusal(vmr::Status::pass()).ok());
  for (const char* refused : {"hipErrorInvalidValue", "hipErrorNotSupported"}) {
    const vmr::Status s = host_location_refusal(vmr::Status::fail(std::string("hipMemCreate returned ") + refused));
    EXPECT_EQ(s.verdict, vmr::Verdict::Skip) << refused;
    EXPECT_NE(s.detail.find(std::string("hipMemCreate returned ") + refused), std::string::npos) << s.detail;
  }
  const vmr::Status oom = host_location_refusal(vmr::Status::fail("hipMemCreate returned hipErrorOutOfMemory"));
  EXPECT_EQ(oom.verdict, vmr::Verdict::Fail);
  EXPECT_EQ(oom.detail, "hipMemCreate returned hipErrorOutOfMemory");
}

// Device memory behind a Host location is a FAIL naming the query; no answer is a fact, never a verdict.
TEST(AmdRules, HostLocationBackingFailsOnDeviceMemoryOnly) {
  std::string fact;
  EXPECT_TRUE(host_location_backing(0, "", &fact).ok());
  EXPECT_EQ(fact.rfind("system memory", 0), 0u) << fact;
  const vmr::Status device = host_location_backing(1, "", &fact);
  EXPECT_EQ(device.verdict, vmr::Verdict::Fail);
  EXPECT_NE(device.detail.find("hsa_amd_vmem_get_alloc_properties_from_handle"), std::string::npos) << device.detail;
  EXPECT_NE(device.detail.find("device memory"), std::string::npos) << device.detail;
  EXPECT_EQ(fact.rfind("device memory", 0), 0u) << fact;
  EXPECT_TRUE(host_location_backing(std::nullopt, "this ROCr has no hsa_amd_vmem_retain_alloc_handle", &fact).ok());
  EXPECT_EQ(fact, "not proven system memory: this ROCr has no hsa_amd_vmem_retain_alloc_handle");
  EXPECT_TRUE(host_location_backing(7, "", &fact).ok());
  EXPECT_EQ(fact.rfind("not proven", 0), 0u) << fact;
}

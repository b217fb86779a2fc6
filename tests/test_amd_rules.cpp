// The AMD runtime conventions decided at run time (amd/amd_rules.h), for the releases a user may run.
#include <gtest/gtest.h>

#include "amd/amd_rules.h"

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

TEST(AmdRules, RocmReleaseFromTheInstallElseTheRuntime) {
  std::string source;
  EXPECT_EQ(rocm_release("7.0.2.1-69~22.04", kHip70, &source), "7.0.2.1");
  EXPECT_NE(source.find(".info/version"), std::string::npos);
  EXPECT_EQ(rocm_release("6.4.1-120", kHip64, &source), "6.4.1");
  EXPECT_EQ(rocm_release("unavailable (/opt/rocm/.info/version not readable)", kHip70, &source), "7.0");
  EXPECT_NE(source.find("major.minor"), std::string::npos);
  EXPECT_EQ(rocm_release("", kHip71, &source), "7.1");
  EXPECT_EQ(rocm_release("7", kHip71, &source), "7.1");  // one bare number is not a release
  // A version file of another install than the HIP runtime loaded does not count.
  EXPECT_EQ(rocm_release("6.4.1-120", kHip70, &source), "7.0");
  EXPECT_NE(source.find("another install"), std::string::npos) << source;
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

#include "amd/amd_rules.h"

#include <cctype>
#include <regex>

#include "harness/expected.h"
#include "harness/text.h"

namespace vmr_amd {

std::string hip_version_text(int v) {
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." + std::to_string(v % 100000);
}

std::string rocm_release(const std::string& info_version_line, int hip_version, std::string* source) {
  size_t n = 0;
  while (n < info_version_line.size() &&
         (std::isdigit(static_cast<unsigned char>(info_version_line[n])) || (info_version_line[n] == '.' && n > 0)))
    ++n;
  std::string leading = info_version_line.substr(0, n);
  while (!leading.empty() && leading.back() == '.') leading.pop_back();
  const std::string runtime = std::to_string(hip_version / 10000000) + "." + std::to_string(hip_version / 100000 % 100);
  const bool same_release = leading.rfind(runtime + ".", 0) == 0 || leading == runtime;
  if (leading.find('.') != std::string::npos && same_release) {
    *source = ".info/version of the ROCm install";
    return leading;
  }
  *source = leading.find('.') == std::string::npos
                ? "hipRuntimeGetVersion (major.minor only: no readable .info/version)"
                : "hipRuntimeGetVersion (major.minor only: the .info/version found says " + leading +
                      ", another install than the HIP runtime loaded)";
  return runtime;
}

const char* os_handle_name(OsHandle c) {
  return c == OsHandle::Value ? "fd by value: (void*)(uintptr_t)fd" : "pointer to the fd: &fd";
}

vmr::Status decide_os_handle(int hip_version, const std::string& release, const char* override_value,
                             std::optional<bool> pointer_form_accepted, OsHandleDecision* out) {
  if (override_value) {
    std::string v = override_value;
    if (v != "value" && v != "pointer")
      return vmr::Status::harness("VMR_HIP_OSHANDLE='" + v + "': expected 'value' or 'pointer'");
    out->convention = v == "value" ? OsHandle::Value : OsHandle::Pointer;
    out->why = "VMR_HIP_OSHANDLE=" + v + " (override)";
    return vmr::Status::pass();
  }
  if (pointer_form_accepted.value_or(false)) {
    out->convention = OsHandle::Pointer;
    out->why =
        "the pointer form imported this process's own export (HIP runtime " + hip_version_text(hip_version) + ")";
    return vmr::Status::pass();
  }
  const std::string probe = !pointer_form_accepted ? "" : "; the pointer form was refused";
  int cmp_71 = 0, cmp_7022 = 0;
  if (hip_version >= 70100000) {
    out->convention = OsHandle::Value;
    out->why = "HIP runtime " + hip_version_text(hip_version) + " >= 7.1 takes the fd by value (rocm-systems PR #759)";
  } else if (vmr::compare_versions(release, "7.0.2.2", &cmp_7022) && cmp_7022 >= 0 &&
             vmr::compare_versions(release, "7.1", &cmp_71) && cmp_71 < 0) {
    out->convention = OsHandle::Value;
    out->why = "ROCm " + release + ": the 7.0.2.2 backport carries rocm-systems PR #759 (fd by value)";
  } else {
    out->convention = OsHandle::Pointer;
    out->why = "HIP runtime " + hip_version_text(hip_version) + " < 7.1 reads *(int*)osHandle";
  }
  if (pointer_form_accepted && out->convention == OsHandle::Pointer)  // refused, yet the version says pointer
    return vmr::Status::harness(
        "hipMemImportFromShareableHandle refused the pointer form (&fd) on a runtime whose "
        "version (" +
        out->why +
        ") says it takes it: set VMR_HIP_OSHANDLE=value or "
        "VMR_HIP_OSHANDLE=pointer for this build");
  out->why += probe;
  return vmr::Status::pass();
}

bool parse_pci_bus_id(const std::string& text, uint32_t* domain, uint32_t* bdf) {
  static const std::regex kBusId("([0-9a-fA-F]{4,8}):([0-9a-fA-F]{2}):([0-9a-fA-F]{2})\\.([0-7])");
  std::smatch m;
  if (!std::regex_match(text, m, kBusId)) return false;
  const unsigned long dev = std::stoul(m[3], nullptr, 16);
  if (dev > 0x1f) return false;
  *domain = uint32_t(std::stoul(m[1], nullptr, 16));
  *bdf = uint32_t(std::stoul(m[2], nullptr, 16) << 8 | dev << 3 | std::stoul(m[4], nullptr, 16));
  return true;
}

std::string missing_code_object(const std::string& device_arch, const std::string& built) {
  const std::string base = device_arch.substr(0, device_arch.find(':'));
  std::vector<std::string> targets;
  std::string list = built;
  for (char& c : list)
    if (c == ',') c = ';';
  for (auto t : vmr::split(list, ';')) {
    t = vmr::trim(t);
    if (t.empty()) continue;
    targets.emplace_back(t);
    if (t.substr(0, t.find(':')) == base) return "";
  }
  return "this build has no code object for " + base + " (built for " +
         (targets.empty() ? std::string("nothing") : vmr::join(targets, ",")) +
         "): reconfigure with -DCMAKE_HIP_ARCHITECTURES=" + base +
         " (or leave it unset with a full ROCm install, "
         "which builds for the GPUs present)";
}

}  // namespace vmr_amd

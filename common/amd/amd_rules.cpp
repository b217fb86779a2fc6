#include "amd/amd_rules.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <regex>

#include "harness/expected.h"
#include "harness/text.h"

namespace vmr_amd {

std::string hip_version_text(int v) {
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." + std::to_string(v % 100000);
}

std::vector<VersionFile> version_files(const std::string& runtime_library, const char* rocm_path) {
  std::vector<VersionFile> out;
  const size_t slash = runtime_library.rfind('/');
  if (slash != std::string::npos && runtime_library.compare(slash + 1, 11, "libamdhip64") == 0) {
    std::string dir = runtime_library.substr(0, slash);  // <root>/lib
    for (int up = 0; up < 2; ++up) {
      const size_t parent = dir.rfind('/');
      if (parent == std::string::npos || parent == 0) break;  // "/" is no install's root
      dir.resize(parent);
      out.push_back({dir + "/.info/version", InstallOf::LoadedRuntime});
    }
  }
  // Where the loaded runtime's path is known, $ROCM_PATH and /opt/rocm are either that install (its files are
  // above already) or another one, and HIP's major.minor cannot tell two patch levels apart: Debian's 6.4.3 (which
  // ships no .info/version) beside an /opt/rocm-6.4.1 would read 6.4.1 and match rows that 6.4.3 no longer meets.
  // So they are asked only where the runtime's path is unknown.
  if (!out.empty() || (slash != std::string::npos && runtime_library.compare(slash + 1, 11, "libamdhip64") == 0))
    return out;
  if (rocm_path && *rocm_path) out.push_back({std::string(rocm_path) + "/.info/version", InstallOf::RocmPath});
  out.push_back({"/opt/rocm/.info/version", InstallOf::OptRocm});
  return out;
}

bool release_of_version_line(const std::string& line, std::string* release, bool* patch_known, std::string* note) {
  // "7.0.2.1-69~22.04" -> "7.0.2.1"; "7.15.0a20260727" (a nightly) stays whole: it is a pre-release of 7.15.0.
  static const std::regex kLeading("^[0-9]+(\\.[0-9]+((a|b|rc)[0-9]*)?)+");
  std::smatch m;
  if (!std::regex_search(line, m, kLeading)) return false;
  *release = m.str(0);
  *patch_known = true;
  note->clear();
  // "7.14.60850": a third field of more than three digits is a build number (HIP's own, as in hip_version), not
  // a patch release; the release is 7.14.
  auto fields = vmr::split(*release, '.');
  if (fields.size() >= 3 && fields[2].size() > 3 &&
      fields[2].find_first_not_of("0123456789") == std::string_view::npos) {
    *note = " (its third field " + std::string(fields[2]) + " is a build number)";
    *release = std::string(fields[0]) + "." + std::string(fields[1]);
  }
  if (vmr::split(*release, '.').size() < 3) *patch_known = false;
  return true;
}

ReleaseFacts rocm_release(const std::vector<VersionFile>& files, int hip_version,
                          const std::function<std::optional<std::string>(const std::string&)>& read_first_line) {
  const std::string runtime = std::to_string(hip_version / 10000000) + "." + std::to_string(hip_version / 100000 % 100);
  std::vector<std::string> passed_over;  // the files not taken, and why
  for (const VersionFile& f : files) {
    std::optional<std::string> line = read_first_line(f.path);
    if (!line) continue;
    std::string release, note;
    bool patch_known = false;
    if (!release_of_version_line(*line, &release, &patch_known, &note)) {
      passed_over.push_back(f.path + " names no version ('" + *line + "')");
      continue;
    }
    const std::string precision = patch_known ? "full" : std::string(vmr::kMajorMinorOnly);
    if (f.install == InstallOf::LoadedRuntime)
      return {release, precision, f.path + ", of the install the loaded HIP runtime belongs to" + note, f.path, *line};
    // A fallback may be another install than the one loaded: only HIP's major.minor can tell, and it tells only
    // for releases whose HIP is numbered as the release (not TheRock's: HIP 7.13 in 7.14.0).
    if (release.rfind(runtime + ".", 0) == 0 || release == runtime)
      return {release, precision,
              f.path + (f.install == InstallOf::RocmPath ? " ($ROCM_PATH)" : "") +
                  ", whose major.minor is the HIP runtime's" + note,
              f.path, *line};
    passed_over.push_back(f.path + " says " + release + ", not the HIP runtime's " + runtime +
                          ": taken for another install");
  }
  std::string why = passed_over.empty() ? "no readable .info/version" : vmr::join(passed_over, "; ");
  return {runtime, std::string(vmr::kMajorMinorOnly),
          "hipRuntimeGetVersion's major.minor (" + why +
              "); HIP is numbered apart from ROCm since TheRock (HIP 7.13 in ROCm 7.14.0, 7.16 in 10.1)",
          "", ""};
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

std::string hip_uuid_text(const char (&bytes)[16]) {
  size_t n = 0;
  while (n < sizeof bytes && bytes[n] != '\0') ++n;
  return n == 0 ? std::string() : "GPU-" + std::string(bytes, n);
}

namespace {
bool uuid_known(const std::string& u) { return u.size() > 4 && u != "GPU-XX"; }

std::string hex(uint32_t v) {
  char out[16];
  std::snprintf(out, sizeof out, "0x%x", v);
  return out;
}
}  // namespace

vmr::Status pair_device_with_agent(const HipDeviceId& device, const std::vector<GpuAgentId>& agents,
                                   const std::function<std::optional<size_t>()>& owner_of_allocation, size_t* agent,
                                   std::string* how) {
  uint32_t domain = 0, bdf = 0;
  if (!parse_pci_bus_id(device.bus_id, &domain, &bdf))
    return vmr::Status::harness("hipDeviceGetPCIBusId gave '" + device.bus_id +
                                "', not a PCI bus id (domain:bus:device.function)");
  std::vector<size_t> candidates;  // this location's agents, in enumeration order
  for (size_t a = 0; a < agents.size(); ++a)
    if (agents[a].domain == domain && (agents[a].bdfid & 0xffff) == bdf) candidates.push_back(a);
  const std::string who = "the HIP device at " + device.bus_id;
  const std::string n = std::to_string(candidates.size());
  if (candidates.empty())
    return vmr::Status::harness(who + " matches no HSA GPU agent (" + std::to_string(agents.size()) +
                                " GPU agent(s); none at that PCI domain and BDF)");
  const bool uuid = uuid_known(device.uuid);
  if (candidates.size() == 1) {
    const GpuAgentId& only = agents[candidates[0]];
    if (uuid && uuid_known(only.uuid) && only.uuid != device.uuid)
      return vmr::Status::harness(who + " has UUID " + device.uuid + ", the only HSA GPU agent there (BDFID " +
                                  hex(only.bdfid) + ") has " + only.uuid);
    *agent = candidates[0];
    *how = uuid && only.uuid == device.uuid ? "PCI location, UUID agrees" : "PCI location";
    return vmr::Status::pass();
  }
  if (uuid) {
    std::vector<size_t> same;
    for (size_t a : candidates)
      if (agents[a].uuid == device.uuid) same.push_back(a);
    if (same.size() == 1) {
      *agent = same[0];
      *how = "PCI location and UUID (" + n + " agents there)";
      return vmr::Status::pass();
    }
  }
  std::optional<size_t> owner = owner_of_allocation();
  if (owner && std::find(candidates.begin(), candidates.end(), *owner) != candidates.end()) {
    *agent = *owner;
    *how = "PCI location and the owner of an allocation on the device (" + n + " agents there)";
    return vmr::Status::pass();
  }
  return vmr::Status::harness(
      who + ": " + n + " HSA GPU agents share that PCI location (BDFID of the first " +
      hex(agents[candidates[0]].bdfid) + ") and " +
      (uuid ? "their UUIDs do not single out " + device.uuid : "HIP gives no UUID") + ", nor does " +
      (owner ? "the owner of an allocation, agent " + std::to_string(*owner) + ", lie among them"
             : "an allocation's owner (hsa_amd_pointer_info) name one"));
}

bool clr_flag_on(const char* value, bool default_value) {
  if (!value) return default_value;
  return std::strcmp(value, "true") == 0 || std::atoi(value) != 0;
}

vmr::Status vmm_support(int device, int attribute_value, const char* manage_support_env,
                        std::optional<bool> hsa_vmem_api) {
  if (attribute_value != 0) return vmr::Status::pass();
  const std::string why =
      "(the KFD driver is older than ioctl 1.15, or libdrm lacks amdgpu_device_get_fd): hipMemCreate and "
      "hipMemAddressReserve would answer hipErrorOutOfMemory";
  if (clr_flag_on(manage_support_env, true))
    return vmr::Status::skip("hipDeviceAttributeVirtualMemoryManagementSupported is 0 on device " +
                             std::to_string(device) + " " + why);
  // The flag off zeroed the attribute without asking ROCr: ROCr's answer is the one that holds.
  if (hsa_vmem_api.value_or(true)) return vmr::Status::pass();
  return vmr::Status::skip("HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED is false " + why +
                           " (HIP_VMEM_MANAGE_SUPPORT=" + manage_support_env + " only hides it from HIP)");
}

vmr::Status host_access_support(int hip_version, bool large_bar) {
  if (hip_version >= kFirstHipWithHostAccessToDeviceMemory && large_bar) return vmr::Status::pass();
  if (hip_version >= kFirstHipWithHostAccessToDeviceMemory)
    return vmr::Status::skip(
        "not a large-BAR device (hipDeviceProp_t::isLargeBar is 0): the host reaches only part "
        "of its memory, so a host read of device memory could fault rather than answer");
  return vmr::Status::skip("HIP runtime " + hip_version_text(hip_version) +
                           ": hipMemSetAccess takes a Host location on device memory from HIP 7.2 (rocm-systems PR "
                           "#1620); 6.4 reads a Host descriptor as GPU 0 and maps nothing for the host, so its "
                           "read would fault");
}

vmr::Status host_location_build(bool header_names_host, int header_hip_version) {
  if (header_names_host) return vmr::Status::pass();
  return vmr::Status::skip("this build's HIP headers (HIP " + hip_version_text(header_hip_version) +
                           ") name no hipMemLocationTypeHost, so it cannot ask the runtime for system memory as "
                           "VMem: build against headers that name it (HIP 7.2's do) to ask");
}

vmr::Status host_location_refusal(const vmr::Status& create) {
  if (create.ok()) return create;
  for (const char* refusal : {"hipErrorInvalidValue", "hipErrorNotSupported"})
    if (create.detail.find(refusal) != std::string::npos)
      return vmr::Status::skip("the runtime refuses a Host location (system memory as VMem): " + create.detail);
  return create;
}

vmr::Status host_location_backing(std::optional<int> pool_location, const std::string& why, std::string* fact) {
  const std::string query = "hsa_amd_vmem_get_alloc_properties_from_handle's pool, HSA_AMD_MEMORY_POOL_INFO_LOCATION";
  if (!pool_location) {
    *fact = "not proven system memory: " + why;
    return vmr::Status::pass();
  }
  if (*pool_location == int(PoolLocation::Cpu)) {
    *fact = "system memory (" + query + " = CPU)";
    return vmr::Status::pass();
  }
  if (*pool_location == int(PoolLocation::Gpu)) {
    *fact = "device memory (" + query + " = GPU)";
    return vmr::Status::fail("hipMemCreate with a Host location gave device memory: " + query +
                             " answers GPU for the owner's mapping (CLR routed Host to the device allocator until "
                             "rocm-systems PR #10020)");
  }
  *fact = "not proven system memory: " + query + " = " + std::to_string(*pool_location) + ", neither CPU nor GPU";
  return vmr::Status::pass();
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

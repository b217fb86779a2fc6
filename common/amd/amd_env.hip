#include <dlfcn.h>
#include <hip/hip_runtime.h>
#include <hip/hip_version.h>
#include <hsa/hsa_ext_amd.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "amd/amd_env.h"
#include "amd/amd_rules.h"
#include "amd/driver_versions.h"
#include "amd/hsa_api.h"
#include "amd/kfd_memory.h"
#include "gpu/gpu_errors.h"
#include "harness/scope_guard.h"

namespace vmr_amd {

using vmr_hsa::hsa_error;
using vmr_hsa::kPoolFlagExtendedScopeFineGrained;

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  if (!std::getline(f, line)) return "unavailable (" + path + " not readable)";
  return line;
}

// A KFD topology node's properties ("name value" lines) for the GPU at this PCI location, read from sysfs: the
// XGMI hive id lives there and nowhere in the HIP or HSA APIs.
std::string kfd_property(uint32_t location_id, uint32_t domain, const std::string& key) {
  for (int node = 0; node < 256; ++node) {
    std::ifstream f("/sys/class/kfd/kfd/topology/nodes/" + std::to_string(node) + "/properties");
    if (!f) {
      if (node > 0) break;
      return "unavailable (no /sys/class/kfd)";
    }
    std::string k, wanted;
    uint64_t v = 0, loc = ~0ull, dom = 0;
    while (f >> k >> v) {
      if (k == "location_id") loc = v;
      if (k == "domain") dom = v;
      if (k == key) wanted = std::to_string(v);
    }
    if (loc == location_id && dom == domain) return wanted.empty() ? "absent" : wanted;
  }
  return "no KFD node at this PCI location";
}

// The loaded object that defines `symbol` for this process (dladdr): hipRuntimeGetVersion names the HIP runtime it
// calls, hsa_init ROCr (linked by the binary itself, so one copy, in the global scope). `library`: its real path, links
// followed (amd_rules version_files reads the release beside it). `folder`: the real path of the folder the loader
// took it from, the file's own links not followed (a TheRock devel tree's lib/ links each library into another
// folder): what scripts/bisect compares with its --lib folders. Where it cannot be told, both say why, in
// parentheses, naming no path (version_files then looks only at $ROCM_PATH and /opt/rocm; bisect skips the run).
struct LoadedObject {
  std::string library, folder;
};
LoadedObject loaded_object_defining(const char* symbol) {
  Dl_info where{};
  void* fn = dlsym(RTLD_DEFAULT, symbol);
  if (!fn || !dladdr(fn, &where) || !where.dli_fname || !*where.dli_fname) {
    const std::string why = std::string("(dladdr cannot tell which object defines ") + symbol + ")";
    return {why, why};
  }
  const std::string name = where.dli_fname;
  const size_t slash = name.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : name.substr(0, slash);
  char real[PATH_MAX];
  LoadedObject out;
  out.library = realpath(name.c_str(), real) ? real : name;
  out.folder = realpath(dir.c_str(), real) ? real : dir;
  return out;
}

std::optional<std::string> first_line_of(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  if (!f || !std::getline(f, line)) return std::nullopt;
  return line;
}

std::string core_file_limit() {
  struct rlimit r {};
  if (getrlimit(RLIMIT_CORE, &r) != 0) return "unknown";
  return r.rlim_cur == RLIM_INFINITY ? "unlimited" : std::to_string(r.rlim_cur);
}

hsa_status_t collect_gpu_agent(hsa_agent_t agent, void* data) {
  auto* out = static_cast<std::vector<std::pair<hsa_agent_t, GpuAgentId>>*>(data);
  hsa_device_type_t type;
  if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS || type != HSA_DEVICE_TYPE_GPU)
    return HSA_STATUS_SUCCESS;
  GpuAgentId id;
  char uuid[64] = {};  // "GPU-" + 16 hex digits + NUL fits in 21 bytes
  hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_BDFID), &id.bdfid);
  hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_DOMAIN), &id.domain);
  hsa_agent_get_info(agent, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_UUID), uuid);
  id.uuid = uuid;
  out->emplace_back(agent, id);
  return HSA_STATUS_SUCCESS;
}

// The agent that owns a small allocation made on the current HIP device: what tells apart agents that share one
// PCI location. hsa_amd_pointer_info's agentOwner is the first agent of the KFD node the memory was allocated on
// (ROCR rocm-6.2.0 src/core/runtime/runtime.cpp:949-957), and hipMalloc allocates from the device's own pool; each
// partition is a KFD node of its own.
std::optional<size_t> owner_of_allocation(const std::vector<std::pair<hsa_agent_t, GpuAgentId>>& agents) {
  void* p = nullptr;
  if (hipMalloc(&p, 4096) != hipSuccess) {
    (void)hipGetLastError();
    return std::nullopt;
  }
  vmr::ScopeExit free_it([&] {
    (void)hipFree(p);
    (void)hipGetLastError();  // nothing of this probe is an error of the next call
  });
  hsa_amd_pointer_info_t info{};
  info.size = sizeof info;
  if (hsa_amd_pointer_info(p, &info, nullptr, nullptr, nullptr) != HSA_STATUS_SUCCESS) return std::nullopt;
  for (size_t a = 0; a < agents.size(); ++a)
    if (agents[a].first.handle == info.agentOwner.handle) return a;
  return std::nullopt;
}

// The HSA agent of HIP device `device` (the current one), paired by amd_rules' pair_device_with_agent: a
// partitioned MI300X has several agents behind one PCI device.
Status agent_for_device(int device, hsa_agent_t* agent, uint32_t* bdfid, uint32_t* domain, std::string* how) {
  char bus_id[32] = {};
  VMR_GPU_TRY(hipDeviceGetPCIBusId, bus_id, int(sizeof bus_id), device);
  HipDeviceId me{bus_id, ""};
  hipUUID uuid{};
  if (hipDeviceGetUuid(&uuid, device) == hipSuccess) me.uuid = hip_uuid_text(uuid.bytes);
  (void)hipGetLastError();  // a device without a UUID is no error of the next call
  std::vector<std::pair<hsa_agent_t, GpuAgentId>> found;
  hsa_status_t s = hsa_iterate_agents(collect_gpu_agent, &found);
  if (s != HSA_STATUS_SUCCESS) return Status::fail(hsa_error("hsa_iterate_agents", s));
  std::vector<GpuAgentId> agents;
  for (const auto& f : found) agents.push_back(f.second);
  size_t chosen = 0;
  std::string way;
  VMR_TRY(pair_device_with_agent(
      me, agents, [&] { return owner_of_allocation(found); }, &chosen, &way));
  *agent = found[chosen].first;
  *bdfid = found[chosen].second.bdfid;
  *domain = found[chosen].second.domain;
  *how = "HSA GPU agent " + std::to_string(chosen) + " of " + std::to_string(found.size()) + " by " + way;
  return Status::pass();
}

// An attribute file of the PCI device (amdgpu's partition modes): at the bus id itself, else at function 0 of the
// same device, since a partition's bus id carries its index in the function bits and is no PCI function of its own.
std::string pci_attribute(const std::string& bus_id, const std::string& name) {
  std::string path = "/sys/bus/pci/devices/" + bus_id + "/" + name;
  std::ifstream f(path);
  if (!f && bus_id.size() > 2)
    f.open(path = "/sys/bus/pci/devices/" + bus_id.substr(0, bus_id.size() - 1) + "0/" + name);
  std::string line;
  if (!f || !std::getline(f, line)) return "unavailable (no " + name + " for this PCI device)";
  return line;
}

hsa_status_t collect_pool(hsa_amd_memory_pool_t pool, void* data) {
  auto* out = static_cast<AgentPools*>(data);
  hsa_amd_segment_t segment;
  bool alloc_allowed = false;
  PoolInfo info;
  info.pool = pool;
  if (hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment) != HSA_STATUS_SUCCESS ||
      segment != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &alloc_allowed);
  if (!alloc_allowed) return HSA_STATUS_SUCCESS;
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &info.flags);
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &info.granule);
  hsa_amd_memory_pool_get_info(pool, HSA_AMD_MEMORY_POOL_INFO_SIZE, &info.size);
  if (info.flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) {
    if (!out->coarse) out->coarse = info;
  } else if (info.flags & kPoolFlagExtendedScopeFineGrained) {
    if (!out->ext_fine) out->ext_fine = info;
  } else if (info.flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) {
    if (!out->fine) out->fine = info;
  }
  return HSA_STATUS_SUCCESS;
}

template <class T>
std::string system_info(int attribute, const char* unknown = "unknown (runtime does not report it)") {
  T value{};
  if (hsa_system_get_info(static_cast<hsa_system_info_t>(attribute), &value) != HSA_STATUS_SUCCESS) return unknown;
  std::ostringstream os;
  os << +value;
  return os.str();
}

std::string link_type_name(uint32_t t) {
  switch (t) {
    case HSA_AMD_LINK_INFO_TYPE_PCIE:
      return "PCIe";
    case HSA_AMD_LINK_INFO_TYPE_XGMI:
      return "XGMI";
    case HSA_AMD_LINK_INFO_TYPE_QPI:
      return "QPI";
    case HSA_AMD_LINK_INFO_TYPE_HYPERTRANSPORT:
      return "HyperTransport";
    case HSA_AMD_LINK_INFO_TYPE_INFINBAND:
      return "InfiniBand";
    default:
      return "link type " + std::to_string(t);
  }
}

}  // namespace

Status agent_pools(hsa_agent_t agent, AgentPools* out) {
  *out = {};
  hsa_status_t s = hsa_amd_agent_iterate_memory_pools(agent, collect_pool, out);
  return s == HSA_STATUS_SUCCESS ? Status::pass() : Status::fail(hsa_error("hsa_amd_agent_iterate_memory_pools", s));
}

std::string describe_pools(const AgentPools& p) {
  auto one = [](const char* name, const std::optional<PoolInfo>& info) {
    return std::string(name) + (info ? " (granule " + std::to_string(info->granule) + " B)" : " (none)");
  };
  return one("coarse", p.coarse) + ", " + one("fine", p.fine) + ", " + one("ext-fine", p.ext_fine);
}

Status count_devices(int* count) {
  hipError_t e = hipGetDeviceCount(count);
  if (e != hipSuccess) return Status::skip(vmr_gpu::gpu_error("hipGetDeviceCount", e));
  return Status::pass();
}

Status describe_rank(RankContext& ctx, Env* out) {
  // First, before HIP: where HIP then sees no device, a /dev/kfd that is missing or not ours to open is the why.
  ctx.info("kfd_ioctl_version", kfd_ioctl_version());
  // Which runtimes the loader chose, before either starts, so a rank that ends in its first HIP call names them too
  // (scripts/bisect skips a run whose HIP and ROCr both came from other folders than its --lib or --rocm ones:
  // tools/bisect_judge.cpp reads the two *_runtime_folder keys).
  const LoadedObject hip = loaded_object_defining("hipRuntimeGetVersion");
  const LoadedObject hsa = loaded_object_defining("hsa_init");
  ctx.info("hip_runtime_library", hip.library);
  ctx.info("hip_runtime_folder", hip.folder);
  ctx.info("hsa_runtime_library", hsa.library);
  ctx.info("hsa_runtime_folder", hsa.folder);
  int count = 0;
  VMR_TRY(count_devices(&count));
  VMR_TRY(ctx.require_devices(count, "HIP"));
  VMR_GPU_TRY(hipSetDevice, ctx.device());

  int driver = 0;
  VMR_GPU_TRY(hipRuntimeGetVersion, &out->hip_version);
  VMR_GPU_TRY(hipDriverGetVersion, &driver);
  ctx.info("hip_version", hip_version_text(out->hip_version) + " (third field: a build number)");
  ctx.info("hip_driver_version", std::to_string(driver));
  ctx.info("hip_headers", std::to_string(HIP_VERSION_MAJOR) + "." + std::to_string(HIP_VERSION_MINOR) + "." +
                              std::to_string(HIP_VERSION_PATCH));
  const ReleaseFacts release =
      rocm_release(version_files(hip.library, std::getenv("ROCM_PATH")), out->hip_version, first_line_of);
  ctx.info("rocm_install", release.file.empty() ? "unavailable (no .info/version taken)" : release.line);
  out->rocm_release = release.release;
  ctx.info("rocm_release", release.release);
  ctx.info("rocm_release_precision", release.precision);
  ctx.info("rocm_release_source", release.source);
  ctx.info("amdgpu_driver", read_first_line("/sys/module/amdgpu/version"));
  // With a core-file limit of 0, CLR 7.2 takes a GPU memory fault as hipErrorIllegalAddress (FAIL); with another
  // limit (or HIP_SKIP_ABORT_ON_GPU_ERROR=0) it aborts (CRASH): the same fault reads differently (verdicts.md).
  ctx.info("core_file_limit", core_file_limit());
  const char* skip_abort = std::getenv("HIP_SKIP_ABORT_ON_GPU_ERROR");
  ctx.info("hip_skip_abort_on_gpu_error",
           !skip_abort   ? "unset (CLR 7.2.4 as built: 1; 7.0/7.1 unverified; no such setting in CLR 6.2-6.4)"
           : *skip_abort ? skip_abort
                         : "(set, empty)");

  hipDeviceProp_t prop{};
  VMR_GPU_TRY(hipGetDeviceProperties, &prop, ctx.device());
  char bus[32] = {};
  (void)hipDeviceGetPCIBusId(bus, sizeof bus, ctx.device());
  std::string arch = prop.gcnArchName;
  ctx.info("device", std::to_string(ctx.device()));
  ctx.info("device_name", prop.name);
  ctx.info("gfx_arch", arch.substr(0, arch.find(':')));
  out->large_bar = prop.isLargeBar != 0;
  ctx.info("large_bar", out->large_bar ? "yes" : "no");
#ifdef VMR_HIP_ARCHS
  ctx.info("built_archs", VMR_HIP_ARCHS);
  if (std::string missing = missing_code_object(arch, VMR_HIP_ARCHS); !missing.empty()) return Status::harness(missing);
#endif
  ctx.info("xnack_target", arch.find("xnack+") != std::string::npos   ? "xnack+"
                           : arch.find("xnack-") != std::string::npos ? "xnack-"
                                                                      : "any");
  ctx.info("pci_bus_id", bus);

  VMR_HSA_TRY(hsa_init);
  uint32_t bdfid = 0, domain = 0;
  std::string how;
  VMR_TRY(agent_for_device(ctx.device(), &out->agent, &bdfid, &domain, &how));
  ctx.info("hsa_agent", how);
  // The amdgpu DRM interface of this GPU's render node, reported before any VMem call: hipMemSetAccess can wait
  // forever on an interface older than 3.64 (rocm-systems#9820), and a HANG's reason then quotes hang_context.
  std::string no_node;
  const std::string node = render_node_of(kKfdRoot, bdfid, domain, &no_node);
  DrmVersion drm;
  if (node.empty())
    drm.why = no_node;
  else
    drm = amdgpu_drm_version(node);
  ctx.info("amdgpu_drm_version", drm_version_fact(drm));
  ctx.info("amdgpu_drm_node", node.empty() ? "unavailable (" + no_node + ")" : node);
  ctx.info(vmr::kHangContextFact, drm_hang_context(drm));
  ctx.info("compute_partition", pci_attribute(bus, "current_compute_partition"));
  ctx.info("memory_partition", pci_attribute(bus, "current_memory_partition"));
  hsa_agent_t me = out->agent;
  char name[64] = {}, uuid[64] = {};
  hsa_agent_get_info(me, HSA_AGENT_INFO_NAME, name);
  hsa_agent_get_info(me, static_cast<hsa_agent_info_t>(HSA_AMD_AGENT_INFO_UUID), uuid);
  ctx.info("agent_name", name);
  ctx.info("uuid", uuid);
  // Firmware: HSA_AMD_AGENT_INFO_UCODE_VERSION (0xA108) and _SDMA_UCODE_VERSION (0xA109), which newer headers name
  // and 5.2.3 does not; a runtime that does not know them answers with an error.
  uint32_t cp_ucode = 0, sdma_ucode = 0;
  bool have_cp = hsa_agent_get_info(me, static_cast<hsa_agent_info_t>(0xA108), &cp_ucode) == HSA_STATUS_SUCCESS;
  bool have_sdma = hsa_agent_get_info(me, static_cast<hsa_agent_info_t>(0xA109), &sdma_ucode) == HSA_STATUS_SUCCESS;
  ctx.info("firmware", "cp " + (have_cp ? std::to_string(cp_ucode) : std::string("unknown")) + ", sdma " +
                           (have_sdma ? std::to_string(sdma_ucode) : std::string("unknown")));
  ctx.info("kfd_hive_id", kfd_property(bdfid, domain, "hive_id"));
  ctx.info("hsa_amd_interface_headers",
           std::to_string(HSA_AMD_INTERFACE_VERSION_MAJOR) + "." + std::to_string(HSA_AMD_INTERFACE_VERSION_MINOR));
  ctx.info("hsa_amd_interface_runtime", system_info<uint16_t>(vmr_hsa::kHsaSystemInfoExtVersionMajor) + "." +
                                            system_info<uint16_t>(vmr_hsa::kHsaSystemInfoExtVersionMinor));
  ctx.info("hsa_vmem_api", system_info<bool>(vmr_hsa::kHsaSystemInfoVirtualMemApiSupported));
  ctx.info("hsa_dmabuf", system_info<bool>(vmr_hsa::kHsaSystemInfoDmabufSupported));
  ctx.info("xnack_enabled", system_info<bool>(vmr_hsa::kHsaSystemInfoXnackEnabled));
  VMR_TRY(agent_pools(me, &out->pools));
  ctx.info("pools", describe_pools(out->pools));
  ctx.info("fine_pool", out->pools.fine ? "yes" : "no");

  for (int j = 0; j < ctx.ranks(); ++j) {
    int peer = ctx.devices()[j];
    if (j == ctx.rank() || peer == ctx.device()) continue;
    uint32_t type = 0, hops = 0;
    int can = 0;
    std::string link = hipExtGetLinkTypeAndHopCount(ctx.device(), peer, &type, &hops) == hipSuccess
                           ? link_type_name(type) + ", " + std::to_string(hops) + " hop(s)"
                           : "unknown";
    (void)hipDeviceCanAccessPeer(&can, ctx.device(), peer);
    ctx.info("link_" + std::to_string(ctx.device()) + "_" + std::to_string(peer),
             link + ", peer access " + (can ? "yes" : "no"));
  }
  return Status::pass();
}

}  // namespace vmr_amd

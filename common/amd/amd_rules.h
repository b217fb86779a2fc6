// Conventions of the AMD runtimes that change between releases inside one soname (libamdhip64.so.7 serves 7.0 and
// 7.1), decided at run time from what the runtime and the install report, never from the headers a binary was
// built with. Pure C++ (no HIP or HSA header), so the unit tests run every decision on the CPU.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/status.h"

namespace vmr_amd {

// hipRuntimeGetVersion's value is HIP_VERSION = major * 10^7 + minor * 10^5 + patch, and patch is a build number
// (clr rocm-6.2.0 hipamd/CMakeLists.txt; ROCm 7.0.2 reports 70051831): "7.0.51831".
std::string hip_version_text(int hip_version);

// The ROCm release the run is on, as the expected table's `rocm_release` conditions compare it. The release is a
// fact of the install, written by rocm-core into <install>/.info/version as M.m.p, or M.m.p.POINT for a point
// build such as 7.0.2.2 (rocm-systems 1b1610fc projects/rocm-core/CMakeLists.txt:123-127, installed to .info at
// :131; TheRock passes it its version.json's M.m.p, TheRock 89553ce3 CMakeLists.txt:175-187 and
// base/CMakeLists.txt:60, and ships .info/** in rocm-core's lib artifact, base/artifact.toml:26-30). The HIP version
// is numbered apart: hipRuntimeGetVersion answers HIP_VERSION (clr f9f995c6 hipamd/src/hip_context.cpp:202-212),
// built from HIP's own VERSION file (hipamd/CMakeLists.txt:94-97, :298), which TheRock reads beside the ROCm version
// as another number (TheRock CMakeLists.txt:189-204) and which AMD bumps on its own: HIP 7.16 -> 7.17 "for new APIs
// added in ROCm 10.2" (rocm-systems PR #11712), HIP 7.13.99004 beside .info/version 7.14.0. So the install's file
// wins over HIP whatever HIP says, and HIP's major.minor names the release only where no file can be trusted.
enum class InstallOf {
  LoadedRuntime,  // the install the loaded libamdhip64 belongs to
  RocmPath,       // $ROCM_PATH: a fallback, which may be another install
  OptRocm,        // /opt/rocm: the same
};
struct VersionFile {
  std::string path;  // <root>/.info/version
  InstallOf install;
};
// Where to look, most trusted first: for the loaded HIP runtime `runtime_library` (its real path, empty where
// unknown; a file not named libamdhip64* is not it) the .info/version of its directory's parent and grandparent
// (<root>/lib, <root>/lib/x86_64-linux-gnu, ROCm 5's <root>/hip/lib), never /'s; only where that path is unknown,
// $ROCM_PATH's (`rocm_path`, nullptr or empty: unset), then /opt/rocm's (they may be another install).
std::vector<VersionFile> version_files(const std::string& runtime_library, const char* rocm_path);

// The release as the table compares it: the leading version of an .info/version line ("7.0.2.1-69~22.04" ->
// "7.0.2.1"; "7.0.2.2" whole; a nightly's "7.15.0a20260727" whole, a pre-release of 7.15.0; "7.14.60850" ->
// "7.14", its third field a build number as in hip_version). False where the line names no version.
// *patch_known: false where only major.minor is left ("7.14"); *note: why, empty otherwise.
bool release_of_version_line(const std::string& line, std::string* release, bool* patch_known, std::string* note);

// The facts describe reports: rocm_release, rocm_release_precision ("full" or vmr::kMajorMinorOnly: the expected
// table then takes "6.4" as any 6.4.p, harness/expected.h), rocm_release_source, and the file read.
struct ReleaseFacts {
  std::string release, precision, source;
  std::string file;  // the .info/version the release came from, empty where none
  std::string line;  // its first line
};
// The release from the first of `files` that names one: the loaded runtime's install wins whatever HIP's version
// is; a fallback ($ROCM_PATH, /opt/rocm) only where its major.minor is the HIP runtime's, else it is taken for
// another install and passed over; with none, the HIP runtime's major.minor, known to major.minor only.
// `read_first_line`: a file's first line, nullopt where it cannot be read.
ReleaseFacts rocm_release(const std::vector<VersionFile>& files, int hip_version,
                          const std::function<std::optional<std::string>(const std::string&)>& read_first_line);

// hipMemImportFromShareableHandle's osHandle. Through 7.0.x CLR reads *(int*)osHandle (clr rocm-6.2.0
// rocclr/device/rocm/rocdevice.cpp:2570; same on the 6.3 branch); from 7.1 it takes the fd itself cast to a
// pointer, as CUDA does (rocm-systems PR #759). The 7.0.2.2 backport build carries #759 but reports the same
// HIP_VERSION as 7.0.2.1 (rocm-systems PR #11020 discussion), so the install's release decides there. Passing the
// wrong one crashes inside the runtime. VMR_HIP_OSHANDLE=value|pointer overrides both, for hotfix builds.
enum class OsHandle { Pointer, Value };
struct OsHandleDecision {
  OsHandle convention = OsHandle::Pointer;
  std::string why;  // one line for the environment block
};
// `override_value`: VMR_HIP_OSHANDLE's value, nullptr when unset; a value other than "value" or "pointer" is a
// HARNESS status naming it. `pointer_form_accepted`: the outcome of importing this process's own export with the
// pointer form (nullopt: not probed). Only the by-value form can crash a runtime of the other convention (it
// dereferences the fd number), so a pointer form that worked decides Pointer whatever the version says; otherwise
// the version decides.
vmr::Status decide_os_handle(int hip_version, const std::string& release, const char* override_value,
                             std::optional<bool> pointer_form_accepted, OsHandleDecision* out);
const char* os_handle_name(OsHandle c);  // "fd by value" / "pointer to the fd"

// hipMemCreate with a POSIX-fd handle type, export and import: ROCm 6.2 and later; 6.0/6.1 answer
// hipErrorNotSupported (clr rocm-6.1.0 hipamd/src/hip_vm.cpp:90-91, :142, :202).
inline constexpr int kFirstHipWithVmemFdExport = 60200000;

// hipMemSetAccess with a Host location on device memory. Up to 6.4 CLR reads only a descriptor's id (hipamd-6.4.3
// hipamd/src/hip_vm.cpp:328-338): a Host descriptor with id 0 grants GPU 0 and answers hipSuccess, no CPU mapping is
// made, and the host's first read of the VA faults. rocm-systems PR #682 (2025-08) added Host locations and refused
// them on device memory, PR #1620 (2025-10-30) allowed them; Debian's 7.2.4 build accepts them. 7.0 and 7.1 are
// unsettled, so a case asks only from HIP 7.2: earlier runtimes SKIP naming why. Nor without a large BAR: the host
// then sees only part of the device's memory, and its read of the rest would fault (SIGBUS) instead of answering.
inline constexpr int kFirstHipWithHostAccessToDeviceMemory = 70200000;
vmr::Status host_access_support(int hip_version, bool large_bar);
// hipMemCreate with a Host location (system memory as VMem) is asked, never gated on a version: whether a build can
// ask at all is its headers' (the 5.2.3 and 6.4.3 headers name no hipMemLocationTypeHost; 7.2.4's driver_types.h:456
// does, value 2; rocm-systems PR #8971: undeclared on 7.0.2; HIPIFY PR #2722 names a 7.0.2.2 backport of the
// constants), and what a runtime does with it is its answer. `header_names_host`: whether this build's headers name
// it (`header_hip_version`: their HIP_VERSION, said as a fact); a build without it SKIPs naming that.
vmr::Status host_location_build(bool header_names_host, int header_hip_version);
// hipMemCreate's (or the granularity query's) answer to a Host location: a refusal of the location type is the
// runtime's to give and a SKIP naming it: hipErrorInvalidValue where CLR knows no Host location (hipamd-6.4.3
// hipamd/src/hip_vm.cpp:88-91 takes only Device) or where a later one refuses this property, hipErrorNotSupported
// where it refuses the handle type (rocm-systems develop 048cb7b7 hip_vm.cpp hipMemCreate). Anything else (out of
// memory, say) stays what it was: the case's failure.
vmr::Status host_location_refusal(const vmr::Status& create);
// Where the memory a Host location got lives, as ROCr records the handle's pool (hsa_amd_vmem_retain_alloc_handle on
// the owner's mapping, hsa_amd_vmem_get_alloc_properties_from_handle, then HSA_AMD_MEMORY_POOL_INFO_LOCATION: ROCR
// 6.4.3 runtime.cpp:3670-3693, the same on rocm-systems release/rocm-rel-7.0 :3731-3754 and develop 1b1610fc; the
// pool is the one the handle was created from; amd_memory_region.cpp:350-356 answers GPU for a device's local
// pool, CPU for system memory). CLR makes a Host handle from a CPU agent's pool (hostVmemAlloc) and device memory
// from the GPU's (rocdevice.cpp deviceVmemAlloc, gpuvm_segment_); from rocm-systems PR #682 (develop, 2025-08-21) until
// PR #10020 (2026-08) it sent every physical request, Host included, to deviceVmemAlloc (7.2.x branched 2025-11-21:
// inferred to carry it; AMD tracks it as a bug, hip-tests Unit_hipMemSetAccessHostDevice_hostalloc): a GPU pool is
// that bug, a FAIL naming the query.
// `pool_location`: 0 CPU, 1 GPU, nullopt where the query could not answer (`why`). *fact: what the record says,
// "system memory ..." or "not proven: ..." (then no verdict is drawn from it).
enum class PoolLocation { Cpu = 0, Gpu = 1 };
vmr::Status host_location_backing(std::optional<int> pool_location, const std::string& why, std::string* fact);

// "0000:c1:00.1" (hipDeviceGetPCIBusId) -> PCI domain and the BDF as HSA_AMD_AGENT_INFO_BDFID packs it:
// bus << 8 | device << 3 | function. The function matters: a virtual function or a partition is not function 0.
bool parse_pci_bus_id(const std::string& text, uint32_t* domain, uint32_t* bdf);

// HIP numbers devices, HSA has agents: which agent is which HIP device. What each side says of a GPU:
struct GpuAgentId {     // an HSA GPU agent, in hsa_iterate_agents order
  uint32_t domain = 0;  // HSA_AMD_AGENT_INFO_DOMAIN
  uint32_t bdfid = 0;   // HSA_AMD_AGENT_INFO_BDFID: KFD's whole location_id (32 bits)
  std::string uuid;     // HSA_AMD_AGENT_INFO_UUID: "GPU-" and 16 hex digits; "GPU-XX" where the GPU has none
};
struct HipDeviceId {   // a HIP device, in HIP's order
  std::string bus_id;  // hipDeviceGetPCIBusId: "dddd:bb:dd.f", built from the BDFID's low 16 bits only
  std::string uuid;    // hipDeviceGetUuid's 16 bytes after "GPU-" (hip_uuid_text), empty when not known
};
// "GPU-" and hipUUID's bytes up to the first NUL: CLR fills them with the 16 characters after HSA's "GPU-" (clr
// rocm-6.2.0 rocclr/device/rocm/rocdevice.cpp:1176-1185), so the result compares equal to the HSA string.
std::string hip_uuid_text(const char (&bytes)[16]);
// The agent of a HIP device (an index into `agents`; *how says how it was found). A device pairs with the GPU
// agents of its PCI domain whose BDFID's low 16 bits equal its bus id's: on kernels that put a partition's index in
// the function bits (MI300X CPX/DPX/QPX, since 2023) that is one agent. Where several share them (the layout with
// the index in BDFID bits 28-31, which rocm-smi-lib decodes), the one with the device's UUID is taken where the UUID
// tells them apart (per-partition UUIDs: kernels from 2025), else the agent that owns an allocation made on the
// device (`owner_of_allocation`, asked only then: an index into `agents`, nullopt when unknown); HIP's own order
// cannot tell them apart, since HIP_VISIBLE_DEVICES hides agents from HIP only. No agent, a UUID that contradicts the
// only agent there, or siblings nothing tells apart is HARNESS.
vmr::Status pair_device_with_agent(const HipDeviceId& device, const std::vector<GpuAgentId>& agents,
                                   const std::function<std::optional<size_t>()>& owner_of_allocation, size_t* agent,
                                   std::string* how);

// hipDeviceAttributeVirtualMemoryManagementSupported: 0 where the KFD is older than ioctl 1.15 or libdrm lacks
// amdgpu_device_get_fd (ROCR rocm-6.2.0 src/core/runtime/runtime.cpp:2092-2110); hipMemCreate and
// hipMemAddressReserve then answer hipErrorOutOfMemory (clr rocm-6.2.0 hipamd/src/hip_vm.cpp:65-68, :111-118), which
// is no verdict on VMem IPC: SKIP naming the attribute. HIP_VMEM_MANAGE_SUPPORT off also zeroes it, without asking
// ROCr (clr rocm-6.2.0 rocclr/device/rocm/rocdevice.cpp:1819-1827), but changes nothing hipMemCreate does: then ROCr's
// own answer decides (`hsa_vmem_api`: HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED, nullopt where the query failed,
// which decides nothing). `manage_support_env`: HIP_VMEM_MANAGE_SUPPORT's value, nullptr when unset.
vmr::Status vmm_support(int device, int attribute_value, const char* manage_support_env,
                        std::optional<bool> hsa_vmem_api);
// How clr reads a boolean flag from its environment variable (rocm-6.2.0 rocclr/utils/flags.cpp:176-177, the same on
// amd-staging): on when the value is exactly "true" or a non-zero number, off for anything else ("false", "no",
// "TRUE", "yes", ""); unset: the flag's default.
bool clr_flag_on(const char* value, bool default_value);

// Empty when `device_arch` ("gfx942:sramecc+:xnack-") has code in `built` (CMAKE_HIP_ARCHITECTURES, ';' or ','
// separated); otherwise the one-line reason naming the device's arch, what was built and the flag to set.
std::string missing_code_object(const std::string& device_arch, const std::string& built);

}  // namespace vmr_amd

// HIP virtual memory management, one call per function, and the owners of what each call creates, so that every
// handle, mapping and reservation is released on every path. Shared by the HIP VMem reproducers. The same vocabulary
// as vmr_hsa (amd/hsa_vmem.h) and vmr_cuda (cuda/cuda_vmem.h): Handle, Reservation, Mapping, Block; a Vmem whose
// create, reserve, map, unmap, set_access, grant_own, export_fd and import_fd the cases and gpu/vmem_share.h call.
#pragma once

#include <hip/hip_runtime.h>
#include <hip/hip_version.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "amd/amd_env.h"
#include "amd/amd_rules.h"
#include "amd/hsa_api.h"
#include "gpu/allocation_facts.h"
#include "gpu/gpu_errors.h"
#include "gpu/vmem_owners.h"
#include "harness/rank_context.h"
#include "harness/scope_guard.h"
#include "harness/status.h"
#include "harness/text.h"

namespace vmr_hip {

using vmr::Status;

// hipMemCreate accepts it from HIP 7.0.2 (CHANGELOG "HIP 7.0.2"; clr PRs #747, #847); older headers do not name it.
inline constexpr auto kAllocTypeUncached = static_cast<hipMemAllocationType>(0x40000000);

// hipDeviceAttributeVirtualMemoryManagementSupported is 89 in every HIP header from 5.3 to 7.2: the enum's values are
// positional after CudaCompatibleBegin = 0. HIP 5.2's header lacks it, so a binary built there asks by the number;
// where the header names it, the build checks that the number is still the same.
constexpr int kVmmSupportedAttribute = 89;
template <class E>
constexpr auto header_vmm_attribute(int) -> decltype(int(E::hipDeviceAttributeVirtualMemoryManagementSupported)) {
  return int(E::hipDeviceAttributeVirtualMemoryManagementSupported);
}
template <class E>
constexpr int header_vmm_attribute(long) {
  return kVmmSupportedAttribute;
}
static_assert(header_vmm_attribute<hipDeviceAttribute_t>(0) == kVmmSupportedAttribute,
              "hipDeviceAttributeVirtualMemoryManagementSupported moved: update kVmmSupportedAttribute");

// hipMemLocationTypeHost is 2 in the HIP 7.x headers (driver_types.h, "id is ignored"), as CUDA's
// CU_MEM_LOCATION_TYPE_HOST; the 5.2 and 6.4 headers do not name it, so a binary built there passes the number.
constexpr int kLocationHost = 2;
template <class E>
constexpr auto header_location_host(int) -> decltype(int(E::hipMemLocationTypeHost)) {
  return int(E::hipMemLocationTypeHost);
}
template <class E>
constexpr int header_location_host(long) {
  return kLocationHost;
}
static_assert(header_location_host<hipMemLocationType>(0) == kLocationHost,
              "hipMemLocationTypeHost moved: update kLocationHost");
// Whether this build's headers name it: a build whose headers do not cannot ask for a Host location as its users
// would (amd_rules.h host_location_build).
template <class E>
constexpr auto header_names_location_host(int) -> decltype(E::hipMemLocationTypeHost, true) {
  return true;
}
template <class E>
constexpr bool header_names_location_host(long) {
  return false;
}
inline constexpr bool kHeaderNamesLocationHost = header_names_location_host<hipMemLocationType>(0);

// What describe_vmem settles once per rank and every later VMem call of the rank needs. One per rank, in the
// binary's state (harness.h), never copied: every owner a call fills points back at it.
struct Session {
  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  hsa_agent_t agent{};  // this rank's HSA agent (vmr_amd::describe_rank paired it with the device): whom unmap asks
  // hipMemImportFromShareableHandle's osHandle convention of this process's runtime (amd/amd_rules.h), decided by
  // describe_vmem from the runtime's version before any case imports (empty until then: no default is guessed).
  std::optional<vmr_amd::OsHandleDecision> convention;

  // Set when ROCr still maps what CLR reported unmapped (Vmem::unmap below, or an owner's unmap at a case's end):
  // CLR then holds a registered entry whose object it freed, and any later VMem call of this process may look it
  // up (7.2.4 finds the next sub-buffer by address; 6.4.3's svmFree and FindMemObj look up by range). From then on
  // the owners release nothing, and every create, reserve, map and import FAILs naming the stale unmap instead of
  // meeting the entry. Leaving it all is safe because a rank ends with _exit (harness/harness.cpp): CLR's
  // exit-time teardown and the fat-binary atexit handler never run. Mutable: it is the runtime's state, found out
  // by a case that holds the session const.
  // Atomic: concurrent-map's threads read it in every call, and any of them may set it.
  mutable std::atomic<bool> teardown_unsafe{false};
  mutable char teardown_reason[200] = "";  // filled during cleanup, where allocating could fail

  void mark_teardown_unsafe(void* va, size_t size) const {
    teardown_unsafe = true;
    std::snprintf(teardown_reason, sizeof teardown_reason,
                  "an earlier hipMemUnmap(%p, %zu) answered hipSuccess, yet ROCr still maps that VA: CLR keeps a "
                  "freed entry for it, so no more VMem calls are made in this rank life",
                  va, size);
  }
  Status still_usable() const { return teardown_unsafe ? Status::fail(teardown_reason) : Status::pass(); }

  // Whether ROCr still maps the middle of [va, va + size) for this rank's agent; nullopt when it cannot be asked.
  // ROCr's lookup has an inclusive end, so the middle is asked: a neighbour that ends at `va` is never taken for it.
  std::optional<bool> rocr_maps(void* va, size_t size, hsa_status_t* answer = nullptr) const {
    if (!vmr_hsa::api.hsa_amd_vmem_get_access) return std::nullopt;
    hsa_access_permission_t perms{};  // 5.2.3's hsa.h names no NONE
    const hsa_status_t s = vmr_hsa::api.hsa_amd_vmem_get_access(static_cast<char*>(va) + size / 2, &perms, agent);
    if (answer) *answer = s;
    return s != HSA_STATUS_ERROR_INVALID_ALLOCATION;
  }
};

// What the owners release with (gpu/vmem_owners.h): the session of the call that filled the owner.
struct Traits {
  using handle_type = hipMemGenericAllocationHandle_t;
  using va_type = void*;
  const Session* session = nullptr;  // null only in an owner no call filled, which releases nothing
  bool stopped() const { return !session || session->teardown_unsafe; }
  void release(handle_type h) const {
    if (!stopped()) (void)hipMemRelease(h);
  }
  // Unchecked by its caller (a destructor), so checked here: a mapping ROCr still holds stops all later VMem use.
  void unmap(va_type va, size_t size) const {
    if (stopped()) return;
    const hipError_t e = hipMemUnmap(va, size);
    (void)hipGetLastError();  // a cleanup's error is not the next call's
    // After an error CLR changed nothing (the mapping stays, nothing dangles); after hipSuccess ROCr must agree.
    if (e == hipSuccess && session->rocr_maps(va, size).value_or(false)) session->mark_teardown_unsafe(va, size);
  }
  void address_free(va_type va, size_t size) const {
    if (!stopped()) (void)hipMemAddressFree(va, size);
  }
};
using Handle = vmr_gpu::VmemHandle<Traits>;
using Reservation = vmr_gpu::VmemReservation<Traits>;
using Mapping = vmr_gpu::VmemMapping<Traits>;
using Block = vmr_gpu::VmemBlock<Traits>;

// hipMemAllocationProp's handle-type field: 6.x headers name it requestedHandleType, 7.x requestedHandleTypes (the
// CUDA spelling); whichever the header has is set.
template <class Prop>
auto set_requested_handle_type(Prop& p, int) -> decltype(p.requestedHandleTypes = {}, void()) {
  p.requestedHandleTypes = hipMemHandleTypePosixFileDescriptor;
}
template <class Prop>
void set_requested_handle_type(Prop& p, long) {
  p.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
}

template <class Prop>
auto requested_handle_type(const Prop& p, int) -> decltype(int(p.requestedHandleTypes)) {
  return int(p.requestedHandleTypes);
}
template <class Prop>
int requested_handle_type(const Prop& p, long) {
  return int(p.requestedHandleType);
}

// The properties of an allocation on `device`, or of system memory (host_location: a Host location, its id
// ignored; amd_rules.h host_location_build and host_location_refusal say when a build and a runtime take it).
inline hipMemAllocationProp vmem_prop(int device, hipMemAllocationType type, bool host_location = false) {
  hipMemAllocationProp prop{};
  prop.type = type;
  set_requested_handle_type(prop, 0);
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = device;
  if (host_location) {  // copied in, not cast: where the header's enum has no Host, 2 lies outside its range
    static_assert(sizeof prop.location.type == sizeof kLocationHost, "hipMemLocationType is not int-sized");
    std::memcpy(&prop.location.type, &kLocationHost, sizeof kLocationHost);
    prop.location.id = 0;
  }
  return prop;
}

inline Status granularity(int device, hipMemAllocationType type, size_t* g, bool host_location = false) {
  hipMemAllocationProp prop = vmem_prop(device, type, host_location);
  VMR_GPU_TRY(hipMemGetAllocationGranularity, g, &prop, hipMemAllocationGranularityMinimum);
  return Status::pass();
}

// Whether some mapping covers `va`, as hipMemGetAccess answers for `device`: hipSuccess (found; flags 0 before any
// access is set, ROCR rocm-6.2.0 runtime.cpp:3391-3393), hipErrorInvalidValue (its "not found") or another error.
// It looks only among real mappings, never the reservations (clr rocm-6.2.0 rocclr/device/rocm/rocdevice.cpp:
// 2520-2523; release/rocm-rel-6.3.0.1 :2519-2522; 6.4.3 :2517-2520; 7.2.4 hip_vm.cpp:203 as built), takes no
// reference and changes nothing.
inline hipError_t mapping_at(void* va, int device) {
  hipMemLocation here{};
  here.type = hipMemLocationTypeDevice;
  here.id = device;
  unsigned long long flags = 0;
  hipError_t found = hipMemGetAccess(&flags, &here, va);
  (void)hipGetLastError();  // the answer is `found`; 7.x keeps the last error until read, and finish() reads it
  return found;
}

// One rank's HIP VMem calls, its session, device and allocation type bound in: the calls the cases and the sharing
// step (gpu/vmem_share.h) make. A cheap view: copy it to change the type (describe's probes do).
struct Vmem {
  const Session* session = nullptr;
  int device = 0;
  hipMemAllocationType type = hipMemAllocationTypePinned;
  bool host_location = false;  // create() makes system memory (a Host location), not memory on `device`

  // Every call that fills an owner or asks ROCr needs the session: a Vmem no describe bound is the suite's bug,
  // said as one (a HARNESS), never a null dereference.
  Status usable() const {
    if (!session) return Status::harness("suite bug: a vmr_hip::Vmem used before describe bound its session");
    return session->still_usable();
  }

  Status create(size_t size, Handle* mem) const {
    VMR_TRY(usable());
    mem->reset();
    mem->traits.session = session;
    hipMemAllocationProp prop = vmem_prop(device, type, host_location);
    VMR_GPU_TRY(hipMemCreate, &mem->h, size, &prop, 0);
    mem->valid = true;
    return Status::pass();
  }

  Status reserve(size_t size, Reservation* r) const {
    VMR_TRY(usable());
    r->traits.session = session;
    VMR_GPU_TRY(hipMemAddressReserve, &r->va, size, 0, nullptr, 0);
    r->size = size;
    return Status::pass();
  }

  // A map counts only once the runtime finds it. clr rocm-6.2.0 to 6.2.2, the release/rocm-rel-6.3.0.1 branch,
  // amd-staging (2024-10), 6.4.3 and 7.2.4 (Debian's builds) answer hipSuccess for a map whose hsa_amd_vmem_map
  // failed (rocm-6.2.0 hipamd/src/hip_vm.cpp:276, 6.3.0.1 :271, 6.4.3 :272, 7.2.4 :302 as built; the command only
  // logs it, rocclr/device/rocm/rocvirtual.cpp:2616-2618); a later CLR returns the error (rocm-systems PR #6982;
  // first release unverified). hipMemUnmap of such a VA dereferences a null sub-buffer up to 6.4.3 (6.2.0
  // hip_vm.cpp:357, 6.3.0.1 :352, 6.4.3 :353) and answers hipErrorInvalidValue in 7.2.4 (:430). mapping_at
  // proves that some mapping covers va, not that it is this handle's: callers map only onto a VA that is fresh or
  // that unmap() below proved empty. "Not found" is a FAIL with the Mapping left empty, so nothing unmaps that VA
  // (hipMemRelease and hipMemAddressFree after it do not crash: 6.2.0 hip_vm.cpp:44-46, :298; 6.3.0.1 :44-46, :293).
  // The silent failure still took hipMemMap's reference on the handle (6.2.0 :265, 6.3.0.1 :260, 6.4.3 :262) and
  // nothing would drop it, leaking the allocation: one hipMemRelease here drops it (one unconditional release
  // each, 6.2.0 :298), and the Handle's own release frees it. Any other hipMemGetAccess error keeps the Mapping, so the
  // map is undone as usual. The message names no bare error code an expected reason (`~hipMemSetAccess returned ...`)
  // could mistake for its own.
  Status map(void* va, size_t size, const Handle& mem, Mapping* m) const {
    VMR_TRY(usable());
    m->traits.session = session;
    int current = 0;
    VMR_GPU_TRY(hipGetDevice, &current);  // before the map: a map must never be left without its owner
    VMR_GPU_TRY(hipMemMap, va, size, 0, mem.h, 0);
    hipError_t found = mapping_at(va, current);
    if (found == hipErrorInvalidValue) {
      mem.traits.release(mem.h);  // the reference the silent failure took; the Handle keeps its own
      return Status::fail(
          "hipMemMap returned hipSuccess, but hipMemGetAccess finds no mapping at that address: the map did not "
          "happen (CLR up to 7.2 at least reports a failed hsa_amd_vmem_map as success); left unmapped, since "
          "hipMemUnmap of such an address dereferences null up to 6.4");
    }
    m->va = va;
    m->size = size;
    if (found != hipSuccess) return Status::fail("after hipMemMap, " + vmr_gpu::gpu_error("hipMemGetAccess", found));
    return Status::pass();
  }

  // An unmap that must have happened before new memory is mapped at the same VA, so that map()'s check proves the new
  // mapping. A failed hipMemUnmap is a FAIL naming it, with the Mapping kept (nothing is mapped over it; its owner
  // tries again at the end, harmless after an error). So is a hipMemUnmap that answered hipSuccess with the mapping
  // still there, as CLR 6.2 to 7.2.4 does when hsa_amd_vmem_unmap fails or is not run (6.2.0 rocvirtual.cpp:2636-2638,
  // 6.4.3 hip_vm.cpp:376 and rocvirtual.cpp:2790-2794, 7.2.4 :471; 6.2 never checks the size, :357). ROCr is asked,
  // not CLR: from 6.4 CLR frees the mapping's sub-buffer even then while its entry stays registered (6.4.3
  // hip_vm.cpp:369, 7.2.4 as built), so hipMemGetAccess would read a freed object. hsa_amd_vmem_get_access reads only
  // ROCr's own table of mappings (ROCR rocm-6.2.0 runtime.cpp:3363-3379, 6.4.3 :3552-3568, rocm-systems
  // release/rocm-rel-7.0 :3613-3629, develop 2025-08 :3624-3640, 7.2.4 as built) and checks the agent only after the
  // address (6.2.0 :3381), so the agent cannot make a mapping look absent (rocr_maps asks at the middle). It must see
  // the mapping before the unmap (map() proved CLR's entry, made only after a successful hsa map), so that "gone"
  // afterwards is evidence.
  Status unmap(Mapping* m) const {
    if (!m->va) return Status::harness("suite bug: vmr_hip::Vmem::unmap of an empty Mapping");
    if (!session) return Status::harness("suite bug: a vmr_hip::Vmem used before describe bound its session");
    // What this adds to map()'s check (CLR asking ROCr at `va` with CLR's agent): this process's own ROCr, the
    // rank's agent and an interior address; a HARNESS here means one of those is not what CLR uses.
    hsa_status_t before = HSA_STATUS_SUCCESS, after = HSA_STATUS_SUCCESS;
    if (!session->rocr_maps(m->va, m->size, &before).value_or(false) || before != HSA_STATUS_SUCCESS)
      return Status::harness("ROCr does not see the mapping CLR reported mapped: " +
                             vmr_hsa::hsa_error("hsa_amd_vmem_get_access", before) +
                             " (is the HSA runtime this process loaded CLR's own?)");
    VMR_GPU_TRY(hipMemUnmap, m->va, m->size);
    // Up to 7.2.4, hipSuccess dropped hipMemMap's reference whatever happened below it (clr rocm-6.2.0 hip_vm.cpp:377,
    // 6.3.0.1 :372, 6.4.3 :374, 7.2.4 as built): a second hipMemUnmap at the end would drop it again and free memory
    // the Handle still releases.
    void* va = m->va;
    m->va = nullptr;
    if (!session->rocr_maps(va, m->size, &after).value_or(true)) return Status::pass();  // ROCr's "va is not mapped"
    session->mark_teardown_unsafe(va, m->size);
    if (after == HSA_STATUS_SUCCESS)
      return Status::fail(
          "hipMemUnmap returned hipSuccess, but hsa_amd_vmem_get_access still finds a mapping there: the HSA unmap "
          "failed or was not run below it; nothing new is mapped over it, nothing more is released");
    return Status::fail("after hipMemUnmap, " + vmr_hsa::hsa_error("hsa_amd_vmem_get_access", after) +
                        " (HSA_STATUS_ERROR_INVALID_ALLOCATION would say: no mapping there)");
  }

  // Read-write access for every device listed on [va, va + size).
  Status set_access(void* va, size_t size, const std::vector<int>& devices) const {
    std::vector<hipMemAccessDesc> desc;
    for (int d : devices) {
      bool listed = false;
      for (const auto& x : desc) listed = listed || x.location.id == d;
      if (listed) continue;
      hipMemAccessDesc a{};
      a.location.type = hipMemLocationTypeDevice;
      a.location.id = d;
      a.flags = hipMemAccessFlagsProtReadWrite;
      desc.push_back(a);
    }
    VMR_GPU_TRY(hipMemSetAccess, va, size, desc.data(), desc.size());
    return Status::pass();
  }
  Status grant_own(void* va, size_t size) const { return set_access(va, size, {device}); }

  // Read-write access for the host (a Host location; its id is ignored) on [va, va + size).
  Status grant_host(void* va, size_t size) const {
    hipMemAccessDesc a{};
    // Copied in, not cast: where the header's enum has no Host, 2 lies outside its range.
    static_assert(sizeof a.location.type == sizeof kLocationHost, "hipMemLocationType is not int-sized");
    std::memcpy(&a.location.type, &kLocationHost, sizeof kLocationHost);
    a.location.id = 0;
    a.flags = hipMemAccessFlagsProtReadWrite;
    VMR_GPU_TRY(hipMemSetAccess, va, size, &a, 1);
    return Status::pass();
  }

  // Whether device `other` can reach this Vmem's device's memory (hipDeviceCanAccessPeer).
  Status peer_can_access(int other, bool* can) const {
    int c = 0;
    VMR_GPU_TRY(hipDeviceCanAccessPeer, &c, other, device);
    *can = c != 0;
    return Status::pass();
  }

  // The calling thread's current device (HIP keeps one per thread).
  Status use_device(int d) const {
    VMR_GPU_TRY(hipSetDevice, d);
    return Status::pass();
  }

  // What hipMemGetAllocationPropertiesFromHandle says of a handle, created here or imported.
  Status properties(const Handle& mem, vmr_gpu::AllocationFacts* f) const {
    hipMemAllocationProp p{};
    VMR_GPU_TRY(hipMemGetAllocationPropertiesFromHandle, &p, mem.h);
    *f = {int(p.type), int(p.location.type), p.location.id, requested_handle_type(p, 0)};
    return Status::pass();
  }

  // What ROCr's pointer query says of `va` (hsa_amd_pointer_info: the call CLR and profilers make on any device
  // pointer); a runtime that cannot answer for it is a FAIL naming the status, one that crashes a CRASH.
  Status pointer_query(void* va, std::string* answer) const {
    hsa_amd_pointer_info_t info{};
    info.size = sizeof info;
    const hsa_status_t s = hsa_amd_pointer_info(va, &info, nullptr, nullptr, nullptr);
    if (s != HSA_STATUS_SUCCESS) return Status::fail(vmr_hsa::hsa_error("hsa_amd_pointer_info", s));
    *answer = "type " + std::to_string(int(info.type)) + ", " + std::to_string(info.sizeInBytes) + " bytes";
    return Status::pass();
  }

  // Where ROCr says the memory mapped at `va` (the start of a hipMemMap of this process's own handle) lives: the
  // location of the pool its handle was made from (vmr_amd::PoolLocation), nullopt with *why where it cannot say.
  // The retain is released at once; it changes no count the case's owners keep.
  std::optional<int> pool_location(void* va, std::string* why) const {
    const auto& api = vmr_hsa::api;
    if (!api.hsa_amd_vmem_retain_alloc_handle || !api.hsa_amd_vmem_get_alloc_properties_from_handle) {
      *why = "this ROCr has no hsa_amd_vmem_retain_alloc_handle or hsa_amd_vmem_get_alloc_properties_from_handle";
      return std::nullopt;
    }
    hsa_amd_vmem_alloc_handle_t h{};
    hsa_status_t s = api.hsa_amd_vmem_retain_alloc_handle(&h, va);
    if (s != HSA_STATUS_SUCCESS) {
      *why = vmr_hsa::hsa_error("hsa_amd_vmem_retain_alloc_handle", s) + " for the owner's mapping";
      return std::nullopt;
    }
    hsa_amd_memory_pool_t pool{};
    hsa_amd_memory_type_t type{};
    s = api.hsa_amd_vmem_get_alloc_properties_from_handle(h, &pool, &type);
    (void)api.hsa_amd_vmem_handle_release(h);  // the retain's reference
    if (s != HSA_STATUS_SUCCESS) {
      *why = vmr_hsa::hsa_error("hsa_amd_vmem_get_alloc_properties_from_handle", s);
      return std::nullopt;
    }
    int location = -1;  // hsa_amd_memory_pool_location_t, an enum of int size
    s = hsa_amd_memory_pool_get_info(pool, static_cast<hsa_amd_memory_pool_info_t>(vmr_hsa::kPoolInfoLocation),
                                     &location);
    if (s != HSA_STATUS_SUCCESS) {
      *why = vmr_hsa::hsa_error("hsa_amd_memory_pool_get_info(HSA_AMD_MEMORY_POOL_INFO_LOCATION)", s);
      return std::nullopt;
    }
    return location;
  }

  // The export writes the fd through its first argument on every release.
  Status export_fd(const Handle& mem, vmr::UniqueFd* fd) const {
    int raw = -1;
    VMR_GPU_TRY(hipMemExportToShareableHandle, &raw, mem.h, hipMemHandleTypePosixFileDescriptor, 0);
    fd->reset(raw);
    return Status::pass();
  }

  Status import_fd(int fd, Handle* mem) const {
    VMR_TRY(usable());
    mem->reset();
    mem->traits.session = session;
    if (!session->convention)
      return Status::harness(
          "suite bug: hipMemImportFromShareableHandle before describe decided the osHandle convention");
    void* os_handle = session->convention->convention == vmr_amd::OsHandle::Value
                          ? reinterpret_cast<void*>(static_cast<uintptr_t>(fd))
                          : static_cast<void*>(&fd);
    VMR_GPU_TRY(hipMemImportFromShareableHandle, &mem->h, os_handle, hipMemHandleTypePosixFileDescriptor);
    mem->valid = true;
    return Status::pass();
  }
};

// Does this runtime take a pointer to the fd? Imports this process's own export with the pointer form: a runtime
// that takes the fd by value reads the pointer's low bits as an fd number nothing has open and answers with an
// error, so this probe cannot crash (the by-value form on a pointer runtime would dereference the fd number).
inline std::optional<bool> probe_pointer_form(const Vmem& pinned, std::string* note) {
  size_t g = 0;
  Handle mem;
  vmr::UniqueFd fd;
  Status ready = granularity(pinned.device, pinned.type, &g);
  if (ready.ok()) ready = pinned.create(g, &mem);
  if (ready.ok()) ready = pinned.export_fd(mem, &fd);
  if (!ready.ok()) {
    *note = "not probed: " + ready.detail;
    return std::nullopt;
  }
  // The import must also map and take access: a runtime that keeps the fd number to import later (ROCr between
  // rocm-systems PRs #6471 and #8440) "accepts" any value at import time and refuses it only there.
  int raw = fd.get();
  Block imported;
  imported.mem.traits.session = pinned.session;
  hipError_t e = hipMemImportFromShareableHandle(&imported.mem.h, &raw, hipMemHandleTypePosixFileDescriptor);
  (void)hipGetLastError();  // the refusal is the answer, not an error of the next call
  if (e != hipSuccess) {
    *note = "refused: " + vmr_gpu::gpu_error("hipMemImportFromShareableHandle(&fd)", e);
    return false;
  }
  imported.mem.valid = true;
  Status usable = pinned.reserve(g, &imported.range);
  if (usable.ok()) {
    usable = pinned.map(imported.range.va, g, imported.mem, &imported.map);
    // A map that did not happen leaves, on clr amd-staging (2024-10) and 6.4.3, a sub-buffer that keeps the
    // reservation's entry alive after hipMemAddressFree (rocclr/platform/memory.cpp:126, :458-462; 6.4.3 removes the
    // entry in neither device.cpp:547-566 nor rocdevice.cpp:2479-2495; 6.2.0 device.cpp:478 and the 6.3.0.1 branch
    // :482 do); a later reservation at the same VA could then crash the cases' hipMemMap. The probe leaks this
    // reservation rather than free it (a case's failed map ends the rank's life).
    if (!usable.ok() && !imported.map.va) imported.range.va = nullptr;
  }
  if (usable.ok()) usable = pinned.grant_own(imported.range.va, g);
  (void)hipGetLastError();
  if (!usable.ok()) {  // the import took the fd, so the convention is not what failed: inconclusive
    *note = "inconclusive: the import was accepted, then " + usable.detail;
    return std::nullopt;
  }
  *note = "accepted (imported, mapped and accessible)";
  return true;
}

// What every HIP VMem binary settles after vmr_amd::describe_rank, all printed: that this runtime exports and
// imports VMem by fd at all (ROCm 6.2), that the device supports VMem (vmr_amd::vmm_support), and which osHandle
// convention its import takes; *session is then ready for every case.
inline Status describe_vmem(vmr::RankContext& ctx, const vmr_amd::Env& env, Session* session) {
  if (env.hip_version < vmr_amd::kFirstHipWithVmemFdExport)
    return Status::skip("HIP runtime " + vmr_amd::hip_version_text(env.hip_version) +
                        ": VMem export/import by POSIX fd needs ROCm 6.2 or later (6.0 and 6.1 answer "
                        "hipErrorNotSupported to hipMemCreate with a handle type)");
  int vmm = 0;
  VMR_GPU_TRY(hipDeviceGetAttribute, &vmm, static_cast<hipDeviceAttribute_t>(kVmmSupportedAttribute), ctx.device());
  ctx.info("vmm_supported", vmm ? "yes" : "no");
  VMR_TRY(vmr_hsa::load_api());      // Vmem::unmap asks ROCr itself (hsa_amd_vmem_get_access)
  std::optional<bool> hsa_vmem_api;  // ROCr's own answer, where HIP_VMEM_MANAGE_SUPPORT hid it from the attribute
  bool answered = false;
  if (hsa_system_get_info(static_cast<hsa_system_info_t>(vmr_hsa::kHsaSystemInfoVirtualMemApiSupported), &answered) ==
      HSA_STATUS_SUCCESS)
    hsa_vmem_api = answered;
  VMR_TRY(vmr_amd::vmm_support(ctx.device(), vmm, std::getenv("HIP_VMEM_MANAGE_SUPPORT"), hsa_vmem_api));
  session->agent = env.agent;
  const char* override_value = std::getenv("VMR_HIP_OSHANDLE");
  std::string probe_note = "not probed: VMR_HIP_OSHANDLE is set";
  std::optional<bool> pointer_form;
  if (!override_value)
    pointer_form = probe_pointer_form({session, ctx.device(), hipMemAllocationTypePinned}, &probe_note);
  VMR_TRY(session->still_usable());  // the probe's own unmap left a mapping ROCr still holds: no case can run after it
  ctx.info("os_handle_pointer_probe", probe_note);
  vmr_amd::OsHandleDecision d;
  VMR_TRY(vmr_amd::decide_os_handle(env.hip_version, env.rocm_release, override_value, pointer_form, &d));
  ctx.info("os_handle_convention", std::string(vmr_amd::os_handle_name(d.convention)) + " (" + d.why + ")");
  session->convention = d;
  return Status::pass();
}

}  // namespace vmr_hip

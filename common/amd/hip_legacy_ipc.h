// Legacy HIP IPC, the baseline PyTorch and vLLM use: hipIpcGetMemHandle on hipMalloc memory in the owner,
// hipIpcOpenMemHandle in each peer process, behind both locks of gpu/legacy_ipc.h. PlainMemory is the one maker of
// PlainAllocation tokens, PlainBackend::ipc_get_handle the one place this suite calls hipIpcGetMemHandle, reached only
// through vmr_gpu::legacy_ipc_export, which asks ROCr first whether the pointer is plain memory (ipc_pointer_facts).
// Never hipMemRetainAllocationHandle for that question: on a hipMalloc pointer CLR reads the null phys_mem_obj of the
// allocation it finds (clr rocm-6.2.0 hipamd/src/hip_vm.cpp:316-317; 6.4.3 :312-313), a SIGSEGV on exactly the memory
// this path exports.
#pragma once

#include <hip/hip_runtime.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdio>
#include <optional>
#include <string>

#include "amd/hsa_api.h"
#include "gpu/footprint.h"
#include "gpu/gpu_errors.h"
#include "gpu/legacy_ipc.h"
#include "harness/status.h"

namespace vmr_hip {

using vmr::Status;

class PlainMemory;
struct PlainBackend {
  using PlainAllocator = PlainMemory;
  using IpcHandle = hipIpcMemHandle_t;
  static constexpr const char* kIpcExportCall = "hipIpcGetMemHandle";
  static vmr_gpu::IpcPointerFacts ipc_pointer_facts(const void* p);
  // The rank's HSA agent, whom ipc_pointer_facts asks (one rank per process; set by the binary's describe step).
  static inline hsa_agent_t agent{};

 private:
  template <class B>
  friend vmr::Status vmr_gpu::legacy_ipc_export(const vmr_gpu::PlainAllocation<B>&, typename B::IpcHandle*);
  static Status ipc_get_handle(void* p, hipIpcMemHandle_t* handle) {
    VMR_GPU_TRY(hipIpcGetMemHandle, handle, p);
    return Status::pass();
  }
};
using PlainAllocation = vmr_gpu::PlainAllocation<PlainBackend>;

// Device memory from hipMalloc on the current device, freed on every path.
class PlainMemory {
 public:
  PlainMemory() = default;
  PlainMemory(const PlainMemory&) = delete;
  PlainMemory& operator=(const PlainMemory&) = delete;
  ~PlainMemory() {
    if (token_) (void)hipFree(token_->ptr());
  }
  Status allocate(size_t bytes) {
    if (token_) return Status::harness("suite bug: PlainMemory allocated twice");
    void* p = nullptr;
    VMR_GPU_TRY(hipMalloc, &p, bytes);
    token_ = PlainAllocation(p, bytes);
    return Status::pass();
  }
  bool valid() const { return token_.has_value(); }
  const PlainAllocation& allocation() const { return *token_; }  // valid() only
  vmr_gpu::Span span() const {
    return token_ ? vmr_gpu::Span{static_cast<vmr_gpu::u64*>(token_->ptr()), token_->bytes() / sizeof(vmr_gpu::u64)}
                  : vmr_gpu::Span{};
  }

 private:
  std::optional<PlainAllocation> token_;
};

// What ROCr says of `p`, asked of PlainBackend::agent. VMem: hsa_amd_vmem_get_access reads only ROCr's own table of
// VMem mappings and answers HSA_STATUS_ERROR_INVALID_ALLOCATION for any other address before it looks at the agent
// (rocr-runtime 6.4.3 runtime.cpp:3552-3572; ROCR rocm-6.2.0 :3363-3381; rocm-systems release/rocm-rel-7.0
// :3613-3629), so any other answer (success, or an agent it refuses) means it found a mapping: VMem. Its range end
// is inclusive, so a plain buffer just past a VMem mapping reads as VMem, a refusal in the safe direction. A ROCr
// without the vmem API (HSA AMD interface before 1.4, ROCm before 6.0) has no VMem at all. Plain: hsa_amd_pointer_info
// says an HSA allocation starting at `p`, the two conditions ROCr's own IPC export checks before it makes the handle
// (rocr-runtime 6.4.3 runtime.cpp:1200-1211). It only asks: the test of the guard asks it of what it must refuse.
inline vmr_gpu::IpcPointerFacts PlainBackend::ipc_pointer_facts(const void* p) {
  vmr_gpu::IpcPointerFacts f;
  if (!vmr_hsa::api.hsa_amd_vmem_get_access) {
    f.vmem = vmr_gpu::VmemAnswer::NotVmem;
    f.vmem_query = "this ROCr has no hsa_amd_vmem_get_access (no VMem API before ROCm 6.0): nothing here is VMem";
  } else {
    hsa_access_permission_t perms{};
    const hsa_status_t s = vmr_hsa::api.hsa_amd_vmem_get_access(const_cast<void*>(p), &perms, agent);
    f.vmem = s == HSA_STATUS_ERROR_INVALID_ALLOCATION                         ? vmr_gpu::VmemAnswer::NotVmem
             : s == HSA_STATUS_SUCCESS || s == HSA_STATUS_ERROR_INVALID_AGENT ? vmr_gpu::VmemAnswer::IsVmem
                                                                              : vmr_gpu::VmemAnswer::Unknown;
    f.vmem_query = s == HSA_STATUS_SUCCESS ? "hsa_amd_vmem_get_access found a VMem mapping there"
                                           : vmr_hsa::hsa_error("hsa_amd_vmem_get_access", s);
  }
  hsa_amd_pointer_info_t info{};
  info.size = sizeof info;
  const hsa_status_t s = hsa_amd_pointer_info(const_cast<void*>(p), &info, nullptr, nullptr, nullptr);
  if (s != HSA_STATUS_SUCCESS) {
    f.capable_query = vmr_hsa::hsa_error("hsa_amd_pointer_info", s);
    return f;
  }
  const bool plain = info.type == HSA_EXT_POINTER_TYPE_HSA && info.agentBaseAddress == p;
  f.capable = plain ? vmr_gpu::IpcCapable::Yes : vmr_gpu::IpcCapable::No;
  char text[160];
  std::snprintf(text, sizeof text, "hsa_amd_pointer_info: type %d, base %p, %zu bytes", int(info.type),
                info.agentBaseAddress, size_t(info.sizeInBytes));
  f.capable_query = text;
  return f;
}

// A peer's view of an owner's hipMalloc memory, closed on every path. CLR refuses any flag but
// hipIpcMemLazyEnablePeerAccess (hipErrorInvalidValue) and an open in the exporting process (hipErrorInvalidContext)
// (clr 6.4.3 hipamd/src/hip_memory.cpp:3764-3779): the ranks are separate processes.
class IpcMapping {
 public:
  IpcMapping() = default;
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;
  ~IpcMapping() {
    if (p_) (void)hipIpcCloseMemHandle(p_);
  }
  Status open(const hipIpcMemHandle_t& handle, size_t bytes) {
    if (p_) return Status::harness("suite bug: IpcMapping opened twice");
    VMR_GPU_TRY(hipIpcOpenMemHandle, &p_, handle, hipIpcMemLazyEnablePeerAccess);
    bytes_ = bytes;
    return Status::pass();
  }
  vmr_gpu::Span span() const {
    return p_ ? vmr_gpu::Span{static_cast<vmr_gpu::u64*>(p_), bytes_ / sizeof(vmr_gpu::u64)} : vmr_gpu::Span{};
  }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

// The handle as text for the control channel (hex: no fd travels, the handle is 64 bytes of data), and back; a
// malformed text is a HARNESS naming it.
inline std::string handle_text(const hipIpcMemHandle_t& h) {
  std::string out;
  char two[3];
  for (char c : h.reserved) {
    std::snprintf(two, sizeof two, "%02x", unsigned(static_cast<unsigned char>(c)));
    out += two;
  }
  return out;
}

inline Status handle_from_text(const std::string& text, hipIpcMemHandle_t* h) {
  if (text.size() != 2 * sizeof h->reserved)
    return Status::harness("suite bug: an IPC handle of " + std::to_string(text.size()) + " hex digits, expected " +
                           std::to_string(2 * sizeof h->reserved));
  for (size_t i = 0; i < sizeof h->reserved; ++i) {
    unsigned v = 0;
    for (char c : text.substr(2 * i, 2)) {
      const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return Status::harness("suite bug: an IPC handle with a non-hex digit at " + std::to_string(2 * i));
      v = v * 16 + unsigned(d);
    }
    h->reserved[i] = static_cast<char>(v);
  }
  return Status::pass();
}

}  // namespace vmr_hip

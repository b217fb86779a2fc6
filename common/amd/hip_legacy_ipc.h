// Legacy HIP IPC, the baseline PyTorch and vLLM use: hipIpcGetMemHandle on hipMalloc memory in the owner,
// hipIpcOpenMemHandle in each peer process, behind both locks of gpu/legacy_ipc.h: the HIP runtime's calls of
// gpu/legacy_ipc_memory.h's PlainMemory (the one maker of PlainAllocation tokens) and IpcMapping.
// PlainBackend::ipc_get_handle is the one place this suite calls hipIpcGetMemHandle, reached only through
// vmr_gpu::legacy_ipc_export, which asks ROCr first whether the pointer is plain memory (ipc_pointer_facts).
// Never hipMemRetainAllocationHandle for that question: on a hipMalloc pointer CLR reads the null phys_mem_obj of the
// allocation it finds (clr rocm-6.2.0 hipamd/src/hip_vm.cpp:316-317; 6.4.3 :312-313), a SIGSEGV on exactly the memory
// this path exports.
#pragma once

#include <hip/hip_runtime.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstddef>
#include <cstdio>
#include <string>

#include "amd/hsa_api.h"
#include "gpu/gpu_errors.h"
#include "gpu/legacy_ipc.h"
#include "gpu/legacy_ipc_memory.h"
#include "harness/status.h"

namespace vmr_hip {

using vmr::Status;

struct PlainBackend {
  using PlainAllocator = vmr_gpu::PlainMemory<PlainBackend>;
  using IpcHandle = hipIpcMemHandle_t;
  static constexpr const char* kIpcExportCall = "hipIpcGetMemHandle";
  static constexpr const char* kPlainMallocCall = "hipMalloc";
  static vmr_gpu::IpcPointerFacts ipc_pointer_facts(const void* p);
  // The rank's HSA agent, whom ipc_pointer_facts asks (one rank per process; set by the binary's describe step).
  static inline hsa_agent_t agent{};
  static Status plain_malloc(void** p, size_t bytes) {
    VMR_GPU_TRY(hipMalloc, p, bytes);
    return Status::pass();
  }
  static void plain_free(void* p) { (void)hipFree(p); }
  // CLR refuses any flag but hipIpcMemLazyEnablePeerAccess (hipErrorInvalidValue) and an open in the exporting
  // process (hipErrorInvalidContext) (clr 6.4.3 hipamd/src/hip_memory.cpp:3764-3779): the ranks are separate
  // processes.
  static Status ipc_open(void** p, const hipIpcMemHandle_t& handle) {
    VMR_GPU_TRY(hipIpcOpenMemHandle, p, handle, hipIpcMemLazyEnablePeerAccess);
    return Status::pass();
  }
  static void ipc_close(void* p) { (void)hipIpcCloseMemHandle(p); }

 private:
  template <class B>
  friend vmr::Status vmr_gpu::legacy_ipc_export(const vmr_gpu::PlainAllocation<B>&, typename B::IpcHandle*);
  static Status ipc_get_handle(void* p, hipIpcMemHandle_t* handle) {
    VMR_GPU_TRY(hipIpcGetMemHandle, handle, p);
    return Status::pass();
  }
};
using PlainAllocation = vmr_gpu::PlainAllocation<PlainBackend>;
using PlainMemory = vmr_gpu::PlainMemory<PlainBackend>;  // device memory from hipMalloc, freed on every path
using IpcMapping = vmr_gpu::IpcMapping<PlainBackend>;    // a peer's view of an owner's hipMalloc memory
// Instantiated here, ahead of any code that includes this header: an explicit specialization of PlainMemory or of its
// allocate (a second maker of tokens) is then a compile error (tests/legacy_ipc_guard.cmake tries both on CUDA's).
inline constexpr auto kPlainMemoryAllocate = &PlainMemory::allocate;

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

}  // namespace vmr_hip

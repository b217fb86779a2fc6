// The guard in front of legacy IPC (cudaIpcGetMemHandle, hipIpcGetMemHandle): it takes only memory of the runtime's
// plain allocator (cudaMalloc, hipMalloc). A VMem address handed to hipIpcGetMemHandle takes a ROCm 7.0.0 node down
// (clr#265, rocm-systems#4263: a kernel BUG, and the VRAM leaked until reboot), so no case may be able to do it, not
// even a known-crash one. Two locks, vendor-neutral here, each backend's export behind both:
//   - at compile time, a backend's export takes only a PlainAllocation<Backend>, whose constructor is private and
//     befriended only by Backend::PlainAllocator (the backend's cudaMalloc / hipMalloc owner): a VMem mapping, a
//     Span or a raw pointer does not convert (tests/legacy_ipc_guard.cmake compiles each attempt and expects the
//     compiler to refuse it);
//   - at run time, legacy_ipc_export asks the runtime what the pointer is (legacy_ipc_export_check) and refuses
//     anything it does not positively know to be plain memory as a HARNESS verdict, the IPC call never made; the
//     backend's raw export is private, befriended to legacy_ipc_export only (tests/test_legacy_ipc.cpp).
// Only the backends' guard headers (common/<backend>/*legacy_ipc.h) name the IPC export call, and the standalone
// minimal files (tests/legacy_ipc_guard.cmake greps the tree for it).
//
// A backend: struct B {
//   using PlainAllocator = ...;  using IpcHandle = ...;                  // its plain allocator, its IPC handle type
//   (the HIP and CUDA backends' allocator is gpu/legacy_ipc_memory.h's PlainMemory<B>, over their calls listed there)
//   static constexpr const char* kIpcExportCall = "cudaIpcGetMemHandle";
//   static IpcPointerFacts ipc_pointer_facts(const void*);               // only asks
//   (private, legacy_ipc_export its friend)
//   static vmr::Status ipc_get_handle(void*, IpcHandle*);                // the IPC call itself
// };
#pragma once

#include <cstddef>
#include <string>

#include "harness/status.h"

namespace vmr_gpu {

// Memory the backend's plain allocator made: the only thing a legacy IPC export accepts. Copyable (a copy is the same
// plain memory), never made from anything else.
template <class Backend>
class PlainAllocation {
 public:
  void* ptr() const { return p_; }
  size_t bytes() const { return bytes_; }

 private:
  friend typename Backend::PlainAllocator;
  PlainAllocation(void* p, size_t bytes) : p_(p), bytes_(bytes) {}
  void* p_;
  size_t bytes_;
};

// What the runtime says of the pointer about to be exported, each answer with the call and result it came from.
enum class VmemAnswer { IsVmem, NotVmem, Unknown };  // cuMemRetainAllocationHandle / hipMemRetainAllocationHandle
enum class IpcCapable { Yes, No, Unknown };          // CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE and the like
struct IpcPointerFacts {
  VmemAnswer vmem = VmemAnswer::Unknown;
  std::string vmem_query;  // "cuMemRetainAllocationHandle returned CUDA_ERROR_INVALID_VALUE (...)"
  IpcCapable capable = IpcCapable::Unknown;
  std::string capable_query;
};

// PASS only when no answer says VMem or not capable and at least one positively says plain; otherwise HARNESS
// naming both answers and `ipc_call`, which the caller then never makes.
inline vmr::Status legacy_ipc_export_check(const IpcPointerFacts& f, const std::string& ipc_call) {
  const bool vmem = f.vmem == VmemAnswer::IsVmem, refused = f.capable == IpcCapable::No;
  const bool known_plain = f.vmem == VmemAnswer::NotVmem || f.capable == IpcCapable::Yes;
  if (!vmem && !refused && known_plain) return vmr::Status::pass();
  const std::string why = vmem      ? "it is a VMem mapping"
                          : refused ? "the runtime says it is not legacy-IPC capable"
                                    : "the runtime could not say it is plain memory";
  return vmr::Status::harness("suite bug, " + ipc_call + " refused before the call: " + why + " (" + f.vmem_query +
                              "; " + f.capable_query +
                              "); a VMem address given to legacy IPC crashes ROCm 7.0.0 nodes (clr#265, "
                              "rocm-systems#4263)");
}

// The one legacy IPC export: the runtime's answers on the pointer first, the IPC call only on memory they call plain.
template <class Backend>
vmr::Status legacy_ipc_export(const PlainAllocation<Backend>& a, typename Backend::IpcHandle* handle) {
  VMR_TRY(legacy_ipc_export_check(Backend::ipc_pointer_facts(a.ptr()), Backend::kIpcExportCall));
  return Backend::ipc_get_handle(a.ptr(), handle);
}

}  // namespace vmr_gpu

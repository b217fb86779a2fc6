// Legacy CUDA IPC, the baseline PyTorch and vLLM use: cudaIpcGetMemHandle on cudaMalloc memory in the owner,
// cudaIpcOpenMemHandle in each peer process, behind both locks of gpu/legacy_ipc.h: the CUDA runtime's calls of
// gpu/legacy_ipc_memory.h's PlainMemory (the one maker of PlainAllocation tokens) and IpcMapping. ipc_export is the
// one place this suite calls cudaIpcGetMemHandle, and it asks the driver first whether the pointer is plain memory
// (ipc_pointer_facts).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "cuda/cuda_api.h"
#include "gpu/gpu_errors.h"
#include "gpu/legacy_ipc.h"
#include "gpu/legacy_ipc_memory.h"

namespace vmr_cuda {

struct PlainBackend {
  using PlainAllocator = vmr_gpu::PlainMemory<PlainBackend>;
  using IpcHandle = cudaIpcMemHandle_t;
  static constexpr const char* kIpcExportCall = "cudaIpcGetMemHandle";
  static constexpr const char* kPlainMallocCall = "cudaMalloc";
  static vmr_gpu::IpcPointerFacts ipc_pointer_facts(const void* p);
  static Status plain_malloc(void** p, size_t bytes) {
    VMR_GPU_TRY(cudaMalloc, p, bytes);
    return Status::pass();
  }
  static void plain_free(void* p) { (void)cudaFree(p); }
  // cudaIpcOpenMemHandle with cudaIpcMemLazyEnablePeerAccess (the only flag there is) in this process.
  static Status ipc_open(void** p, const cudaIpcMemHandle_t& handle) {
    VMR_GPU_TRY(cudaIpcOpenMemHandle, p, handle, cudaIpcMemLazyEnablePeerAccess);
    return Status::pass();
  }
  static void ipc_close(void* p) { (void)cudaIpcCloseMemHandle(p); }

 private:
  template <class B>
  friend vmr::Status vmr_gpu::legacy_ipc_export(const vmr_gpu::PlainAllocation<B>&, typename B::IpcHandle*);
  static Status ipc_get_handle(void* p, cudaIpcMemHandle_t* handle) {
    VMR_GPU_TRY(cudaIpcGetMemHandle, handle, p);
    return Status::pass();
  }
};
using PlainAllocation = vmr_gpu::PlainAllocation<PlainBackend>;
using PlainMemory = vmr_gpu::PlainMemory<PlainBackend>;  // device memory from cudaMalloc, freed on every path
using IpcMapping = vmr_gpu::IpcMapping<PlainBackend>;    // a peer's view of an owner's cudaMalloc memory
// Instantiated here, ahead of any code that includes this header: an explicit specialization of PlainMemory or of its
// allocate (a second maker of tokens) is then a compile error (tests/legacy_ipc_guard.cmake tries both).
inline constexpr auto kPlainMemoryAllocate = &PlainMemory::allocate;

// What the driver says of `p`: CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE (0 on a cuMemMap'd range, 1 on
// cudaMalloc memory: the driver's own word for legacy IPC), and, where that is not a plain 1, whether a cuMemMap'd
// range holds it (cuMemRetainAllocationHandle finds its handle, released at once). Plain memory is not put to the
// retain: its refusal (CUDA_ERROR_INVALID_VALUE) is an API error compute-sanitizer would report on every export. Takes
// a raw pointer because it only asks; the vmem-guard case asks it of a VMem mapping to prove the refusal.
inline vmr_gpu::IpcPointerFacts PlainBackend::ipc_pointer_facts(const void* p) {
  vmr_gpu::IpcPointerFacts f;
  int capable = 0;
  CUresult r = api.cuPointerGetAttribute(&capable, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
                                         reinterpret_cast<CUdeviceptr>(p));
  if (r == CUDA_SUCCESS) {
    f.capable = capable ? vmr_gpu::IpcCapable::Yes : vmr_gpu::IpcCapable::No;
    f.capable_query = "CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE is " + std::to_string(capable);
  } else {
    f.capable_query = api.error("cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE)", r);
  }
  if (f.capable == vmr_gpu::IpcCapable::Yes) {
    f.vmem_query = "cuMemRetainAllocationHandle not asked (the driver calls it legacy-IPC capable)";
    return f;
  }
  CUmemGenericAllocationHandle h{};
  r = api.cuMemRetainAllocationHandle(&h, const_cast<void*>(p));
  if (r == CUDA_SUCCESS) {
    (void)api.cuMemRelease(h);  // the retain took a reference
    f.vmem = vmr_gpu::VmemAnswer::IsVmem;
    f.vmem_query = "cuMemRetainAllocationHandle found its allocation handle";
  } else {
    // CUDA_ERROR_INVALID_VALUE: no cuMemMap'd range holds it; any other answer says nothing either way.
    f.vmem = r == CUDA_ERROR_INVALID_VALUE ? vmr_gpu::VmemAnswer::NotVmem : vmr_gpu::VmemAnswer::Unknown;
    f.vmem_query = api.error("cuMemRetainAllocationHandle", r);
  }
  return f;
}

// The owner's export (gpu/legacy_ipc.h legacy_ipc_export): the driver's answers first, then cudaIpcGetMemHandle only
// on memory they call plain.
inline Status ipc_export(const PlainAllocation& a, cudaIpcMemHandle_t* handle) {
  return vmr_gpu::legacy_ipc_export(a, handle);
}

}  // namespace vmr_cuda

// Legacy CUDA IPC, the baseline PyTorch and vLLM use: cudaIpcGetMemHandle on cudaMalloc memory in the owner,
// cudaIpcOpenMemHandle in each peer process, behind both locks of gpu/legacy_ipc.h. PlainMemory is the one maker of
// PlainAllocation tokens, ipc_export the one place this suite calls cudaIpcGetMemHandle, and it asks the driver
// first whether the pointer is plain memory (ipc_pointer_facts).
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <optional>
#include <string>

#include "cuda/cuda_api.h"
#include "gpu/footprint.h"
#include "gpu/gpu_errors.h"
#include "gpu/legacy_ipc.h"

namespace vmr_cuda {

class PlainMemory;
struct PlainBackend {
  using PlainAllocator = PlainMemory;
  using IpcHandle = cudaIpcMemHandle_t;
  static constexpr const char* kIpcExportCall = "cudaIpcGetMemHandle";
  static vmr_gpu::IpcPointerFacts ipc_pointer_facts(const void* p);

 private:
  template <class B>
  friend vmr::Status vmr_gpu::legacy_ipc_export(const vmr_gpu::PlainAllocation<B>&, typename B::IpcHandle*);
  static Status ipc_get_handle(void* p, cudaIpcMemHandle_t* handle) {
    VMR_GPU_TRY(cudaIpcGetMemHandle, handle, p);
    return Status::pass();
  }
};
using PlainAllocation = vmr_gpu::PlainAllocation<PlainBackend>;

// Device memory from cudaMalloc on the current device, freed on every path.
class PlainMemory {
 public:
  PlainMemory() = default;
  PlainMemory(const PlainMemory&) = delete;
  PlainMemory& operator=(const PlainMemory&) = delete;
  ~PlainMemory() {
    if (token_) (void)cudaFree(token_->ptr());
  }
  Status allocate(size_t bytes) {
    if (token_) return Status::harness("suite bug: PlainMemory allocated twice");
    void* p = nullptr;
    VMR_GPU_TRY(cudaMalloc, &p, bytes);
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

// A peer's view of an owner's cudaMalloc memory, closed on every path.
class IpcMapping {
 public:
  IpcMapping() = default;
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;
  ~IpcMapping() {
    if (p_) (void)cudaIpcCloseMemHandle(p_);
  }
  // cudaIpcOpenMemHandle with cudaIpcMemLazyEnablePeerAccess (the only flag there is) in this process.
  Status open(const cudaIpcMemHandle_t& handle, size_t bytes) {
    if (p_) return Status::harness("suite bug: IpcMapping opened twice");
    VMR_GPU_TRY(cudaIpcOpenMemHandle, &p_, handle, cudaIpcMemLazyEnablePeerAccess);
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

// The handle as text for the control channel (hex), and back; a malformed text is a HARNESS naming it.
inline std::string handle_text(const cudaIpcMemHandle_t& h) {
  std::string out;
  char two[3];
  for (unsigned char c : h.reserved) {
    std::snprintf(two, sizeof two, "%02x", c);
    out += two;
  }
  return out;
}

inline Status handle_from_text(const std::string& text, cudaIpcMemHandle_t* h) {
  if (text.size() != 2 * sizeof h->reserved)
    return Status::harness("an IPC handle of " + std::to_string(text.size()) + " hex digits, expected " +
                           std::to_string(2 * sizeof h->reserved));
  const auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  for (size_t i = 0; i < sizeof h->reserved; ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return Status::harness("an IPC handle with a non-hex digit near " + std::to_string(2 * i));
    h->reserved[i] = char(hi * 16 + lo);
  }
  return Status::pass();
}

}  // namespace vmr_cuda

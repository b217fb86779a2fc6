// Compiled by tests/legacy_ipc_guard.cmake once per VMR_GUARD_TRY: try 0 (the allocator's token) must compile, every
// other try hands a legacy IPC export something that is not a PlainAllocation, or makes a second maker of the token
// (an explicit specialization of the backend's plain allocator), and must be refused by the compiler.
// VMR_GUARD_CUDA: the tries against vmr_cuda::ipc_export (host code: cuda_runtime_api.h only); otherwise against a
// stand-in backend, so the token itself is proven where no CUDA toolkit is installed.
#include "gpu/legacy_ipc.h"

#ifdef VMR_GUARD_CUDA
#include "cuda/cuda_legacy_ipc.h"
#include "cuda/cuda_vmem.h"

#if VMR_GUARD_TRY == 7  // a second maker of tokens: the plain allocator specialized for the backend
template <>
class vmr_gpu::PlainMemory<vmr_cuda::PlainBackend> {
 public:
  static vmr_cuda::PlainAllocation forge(void* p) { return vmr_cuda::PlainAllocation(p, 64); }
  vmr::Status allocate(size_t) { return vmr::Status::pass(); }
  vmr_cuda::PlainAllocation allocation() const { return forge(nullptr); }
};
#elif VMR_GUARD_TRY == 8  // a second maker of tokens: the plain allocator's allocate specialized to take a VMem VA
template <>
vmr::Status vmr_gpu::PlainMemory<vmr_cuda::PlainBackend>::allocate(size_t va) {
  token_ = vmr_cuda::PlainAllocation(reinterpret_cast<void*>(va), 64);
  return vmr::Status::pass();
}
#endif

int main() {
  cudaIpcMemHandle_t h;
  vmr_cuda::PlainMemory plain;
  (void)plain.allocate(64);
  vmr_cuda::Block block;  // a VMem mapping, as every VMem case holds one
  void* raw = plain.allocation().ptr();
#if VMR_GUARD_TRY == 0
  vmr_cuda::PlainAllocation copy = plain.allocation();  // a copy is still the allocator's
  return vmr_cuda::ipc_export(copy, &h).ok() ? 0 : 1;
#elif VMR_GUARD_TRY == 1
  return vmr_cuda::ipc_export(raw, &h).ok();  // a raw pointer
#elif VMR_GUARD_TRY == 2
  return vmr_cuda::ipc_export(block.range.va, &h).ok();  // a VMem VA (CUdeviceptr)
#elif VMR_GUARD_TRY == 3
  return vmr_cuda::ipc_export(block.span(), &h).ok();  // a VMem mapping's span
#elif VMR_GUARD_TRY == 4
  return vmr_cuda::ipc_export(vmr_cuda::PlainAllocation(raw, 64), &h).ok();  // the token made outside the allocator
#elif VMR_GUARD_TRY == 5
  return vmr_cuda::ipc_export({reinterpret_cast<void*>(block.range.va), 64}, &h).ok();  // brace-made from a VMem VA
#elif VMR_GUARD_TRY == 6
  return vmr_cuda::PlainBackend::ipc_get_handle(raw, &h).ok();  // the raw export, past the run-time check
#elif VMR_GUARD_TRY == 7
  return vmr_cuda::ipc_export(vmr_gpu::PlainMemory<vmr_cuda::PlainBackend>::forge(raw), &h).ok();
#elif VMR_GUARD_TRY == 8
  vmr_cuda::PlainMemory forged;
  (void)forged.allocate(block.range.va);
  return vmr_cuda::ipc_export(forged.allocation(), &h).ok();
#endif
}

#else
#include <cstddef>

namespace standin {
class Allocator;
struct Backend {
  using PlainAllocator = Allocator;
};
using Token = vmr_gpu::PlainAllocation<Backend>;
class Allocator {
 public:
  static Token make(void* p, size_t n) { return Token(p, n); }
  static vmr_gpu::PlainAllocation<struct OtherBackend> make_other(void* p, size_t n);
};
struct OtherBackend {  // another backend's plain memory: a token of another type
  using PlainAllocator = Allocator;
};
inline vmr_gpu::PlainAllocation<OtherBackend> Allocator::make_other(void* p, size_t n) { return {p, n}; }
int ipc_export(const Token& t) { return t.ptr() != nullptr; }
}  // namespace standin

int main() {
  static char memory[64];
#if VMR_GUARD_TRY == 0
  standin::Token copy = standin::Allocator::make(memory, sizeof memory);
  return standin::ipc_export(copy) ? 0 : 1;
#elif VMR_GUARD_TRY == 1
  return standin::ipc_export(memory);  // a raw pointer
#elif VMR_GUARD_TRY == 2
  return standin::ipc_export(standin::Token(memory, 64));  // the token made outside the allocator
#elif VMR_GUARD_TRY == 3
  return standin::ipc_export({memory, 64});  // brace-made
#elif VMR_GUARD_TRY == 4
  standin::Token t;  // default-made, to be filled later
  return standin::ipc_export(t);
#elif VMR_GUARD_TRY == 5
  return standin::ipc_export(standin::Allocator::make_other(memory, 64));  // another backend's token
#elif VMR_GUARD_TRY == 6
  return vmr_gpu::legacy_ipc_export(memory, nullptr).ok();  // the generic export with a raw pointer
#endif
}
#endif

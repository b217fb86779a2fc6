// Legacy IPC's memory, written once for HIP and CUDA: the owner's plain allocation (PlainMemory, the one maker of
// gpu/legacy_ipc.h's PlainAllocation tokens), a peer's opened handle (IpcMapping), and the handle as text for the
// control channel. A backend's guard header (common/<backend>/*_legacy_ipc.h) supplies its runtime's calls in the
// Backend struct of gpu/legacy_ipc.h, which also has
//   using PlainAllocator = vmr_gpu::PlainMemory<Backend>;
//   static constexpr const char* kPlainMallocCall = "cudaMalloc";        // as the vmem-guard case names it
//   static vmr::Status plain_malloc(void** p, size_t bytes);             // cudaMalloc / hipMalloc, current device
//   static void plain_free(void* p);                                     // cudaFree / hipFree
//   static vmr::Status ipc_open(void** p, const IpcHandle& handle);      // cudaIpcOpenMemHandle / hipIpc...
//   static void ipc_close(void* p);                                      // cudaIpcCloseMemHandle / hipIpc...
// and instantiates PlainMemory<Backend>::allocate at once (takes its address), so that no later explicit
// specialization can make a second maker of its tokens (tests/legacy_ipc_guard.cmake tries both kinds).
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

#include "gpu/footprint.h"
#include "gpu/legacy_ipc.h"
#include "harness/status.h"

namespace vmr_gpu {

// Device memory from the backend's plain allocator on the current device, freed on every path.
template <class Backend>
class PlainMemory {
 public:
  PlainMemory() = default;
  PlainMemory(const PlainMemory&) = delete;
  PlainMemory& operator=(const PlainMemory&) = delete;
  ~PlainMemory() {
    if (token_) Backend::plain_free(token_->ptr());
  }
  vmr::Status allocate(size_t bytes) {
    if (token_) return vmr::Status::harness("suite bug: PlainMemory allocated twice");
    void* p = nullptr;
    VMR_TRY(Backend::plain_malloc(&p, bytes));
    token_ = PlainAllocation<Backend>(p, bytes);
    return vmr::Status::pass();
  }
  bool valid() const { return token_.has_value(); }
  const PlainAllocation<Backend>& allocation() const { return *token_; }  // valid() only
  Span span() const { return token_ ? Span{static_cast<u64*>(token_->ptr()), token_->bytes() / sizeof(u64)} : Span{}; }

 private:
  std::optional<PlainAllocation<Backend>> token_;
};

// A peer's view of an owner's plain memory, opened from its IPC handle in this process, closed on every path.
template <class Backend>
class IpcMapping {
 public:
  IpcMapping() = default;
  IpcMapping(const IpcMapping&) = delete;
  IpcMapping& operator=(const IpcMapping&) = delete;
  ~IpcMapping() {
    if (p_) Backend::ipc_close(p_);
  }
  vmr::Status open(const typename Backend::IpcHandle& handle, size_t bytes) {
    if (p_) return vmr::Status::harness("suite bug: IpcMapping opened twice");
    VMR_TRY(Backend::ipc_open(&p_, handle));
    bytes_ = bytes;
    return vmr::Status::pass();
  }
  Span span() const { return p_ ? Span{static_cast<u64*>(p_), bytes_ / sizeof(u64)} : Span{}; }

 private:
  void* p_ = nullptr;
  size_t bytes_ = 0;
};

// The handle (cudaIpcMemHandle_t, hipIpcMemHandle_t: 64 bytes of data in `reserved`, no fd) as hex text for the
// control channel, and back; a malformed text is a HARNESS naming it (the text came from handle_text in a rank of
// this run).
template <class IpcHandle>
std::string handle_text(const IpcHandle& h) {
  std::string out;
  char two[3];
  for (char c : h.reserved) {
    std::snprintf(two, sizeof two, "%02x", unsigned(static_cast<unsigned char>(c)));
    out += two;
  }
  return out;
}

template <class IpcHandle>
vmr::Status handle_from_text(const std::string& text, IpcHandle* h) {
  if (text.size() != 2 * sizeof h->reserved)
    return vmr::Status::harness("suite bug: an IPC handle of " + std::to_string(text.size()) +
                                " hex digits, expected " + std::to_string(2 * sizeof h->reserved));
  const auto nibble = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
  for (size_t i = 0; i < sizeof h->reserved; ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return vmr::Status::harness("suite bug: an IPC handle with a non-hex digit at " + std::to_string(2 * i));
    h->reserved[i] = static_cast<char>(hi * 16 + lo);
  }
  return vmr::Status::pass();
}

}  // namespace vmr_gpu

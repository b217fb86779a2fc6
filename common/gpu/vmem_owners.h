// The owners of what every VMem API creates, written once: a backend names its handle and VA types and its three
// release calls in a traits struct, and its namespace gives the owners the suite's names (Handle, Reservation,
// Mapping, Block). Each release runs on every path, early returns included. Vendor-neutral: no runtime header.
//
// struct Traits {
//   using handle_type = ...;  using va_type = ...;       // e.g. hipMemGenericAllocationHandle_t and void*
//   void release(handle_type) const;                      // hipMemRelease / hsa_amd_vmem_handle_release / cuMemRelease
//   void unmap(va_type, size_t) const;                    // hipMemUnmap / hsa_amd_vmem_unmap / cuMemUnmap
//   void address_free(va_type, size_t) const;             // hipMemAddressFree / hsa_amd_vmem_address_free / ...
// };
// Each owner holds its own Traits value, set by the call that filled it: a backend whose release depends on the
// rank's session (vmr_hip: a stale unmap stops all releases) keeps the session there; the others' are empty.
#pragma once

#include <cstddef>
#include <type_traits>

#include "gpu/footprint.h"

namespace vmr_gpu {

template <class Traits>
struct VmemHandle {  // physical memory, created or imported
  Traits traits{};
  typename Traits::handle_type h{};
  bool valid = false;
  VmemHandle() = default;
  VmemHandle(const VmemHandle&) = delete;
  VmemHandle& operator=(const VmemHandle&) = delete;
  ~VmemHandle() { reset(); }
  void reset() {
    if (valid) traits.release(h);
    valid = false;
  }
};

template <class Traits>
struct VmemReservation {  // a VA range
  using va_type = typename Traits::va_type;
  Traits traits{};
  va_type va{};
  size_t size = 0;
  VmemReservation() = default;
  VmemReservation(const VmemReservation&) = delete;
  VmemReservation& operator=(const VmemReservation&) = delete;
  ~VmemReservation() {
    if (va) traits.address_free(va, size);
  }
  // The VA `offset` bytes into the range, in the API's own VA type.
  va_type at(size_t offset) const {
    if constexpr (std::is_pointer_v<va_type>)
      return static_cast<char*>(va) + offset;
    else
      return va + offset;
  }
};

template <class Traits>
struct VmemMapping {  // physical memory mapped at a VA
  Traits traits{};
  typename Traits::va_type va{};
  size_t size = 0;
  VmemMapping() = default;
  VmemMapping(const VmemMapping&) = delete;
  VmemMapping& operator=(const VmemMapping&) = delete;
  ~VmemMapping() { reset(); }
  void reset() {
    if (va) traits.unmap(va, size);
    va = {};
  }
  // What kernels may touch: the mapped words (empty once unmapped).
  Span span() const { return {reinterpret_cast<u64*>(va), va ? size / sizeof(u64) : 0}; }
};

// Members in this order so that destruction unmaps, then releases, then frees the VA.
template <class Traits>
struct VmemBlock {
  VmemReservation<Traits> range;
  VmemHandle<Traits> mem;
  VmemMapping<Traits> map;
  u64* ptr() const { return reinterpret_cast<u64*>(range.va); }
  Span span() const { return map.span(); }
};

}  // namespace vmr_gpu

// CUDA driver-API virtual memory, one driver call per function, and the owners of what each call creates, so that
// every handle, mapping and reservation is released on every path. The same vocabulary as vmr_hip (amd/hip_vmem.h)
// and vmr_hsa (amd/hsa_vmem.h): Handle, Reservation, Mapping, Block; a Vmem whose create, reserve, map, unmap,
// set_access, grant_own, export_fd and import_fd the cases and gpu/vmem_share.h call.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuda/cuda_api.h"
#include "cuda/cuda_rules.h"
#include "gpu/allocation_facts.h"
#include "gpu/gpu_errors.h"
#include "gpu/vmem_owners.h"
#include "harness/scope_guard.h"

namespace vmr_cuda {

using u64 = unsigned long long;

// What the owners release with (gpu/vmem_owners.h).
struct Traits {
  using handle_type = CUmemGenericAllocationHandle;
  using va_type = CUdeviceptr;
  void release(handle_type h) const { (void)api.cuMemRelease(h); }
  void unmap(va_type va, size_t size) const { (void)api.cuMemUnmap(va, size); }
  void address_free(va_type va, size_t size) const { (void)api.cuMemAddressFree(va, size); }
};
using Handle = vmr_gpu::VmemHandle<Traits>;
using Reservation = vmr_gpu::VmemReservation<Traits>;
using Mapping = vmr_gpu::VmemMapping<Traits>;
using Block = vmr_gpu::VmemBlock<Traits>;

inline CUmemAllocationProp pinned_fd_prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

inline Status granularity(int device, size_t* g) {
  CUmemAllocationProp prop = pinned_fd_prop(device);
  VMR_CU_TRY(api.cuMemGetAllocationGranularity, g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  return Status::pass();
}

// Makes `device` current in this process, its primary context made (cudaSetDevice, then cudaFree(nullptr) for
// runtimes before CUDA 12 that make it lazily). A refusal the compute mode explains is a SKIP naming it
// (context_refused); `processes`: how many processes this case opens the device from.
inline Status open_device(int device, int processes) {
  const char* call = "cudaSetDevice";
  cudaError_t e = cudaSetDevice(device);
  if (e == cudaSuccess) {
    call = "cudaFree";
    e = cudaFree(nullptr);
  }
  if (e == cudaSuccess) return Status::pass();
  int mode = -1;  // unknown: the refusal stays a FAIL
  CUdevice dev;
  if (api.cuDeviceGet(&dev, device) == CUDA_SUCCESS)
    (void)api.cuDeviceGetAttribute(&mode, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, dev);
  return context_refused(device, mode, processes, int(e), vmr_gpu::gpu_error(call, e));
}

// One rank's driver calls, its device bound in: the calls the cases and the sharing step (gpu/vmem_share.h) make.
struct Vmem {
  int device = 0;

  Status create(size_t size, Handle* mem) const {
    mem->reset();
    CUmemAllocationProp prop = pinned_fd_prop(device);
    VMR_CU_TRY(api.cuMemCreate, &mem->h, size, &prop, 0);
    mem->valid = true;
    return Status::pass();
  }

  Status reserve(size_t size, Reservation* r) const {
    VMR_CU_TRY(api.cuMemAddressReserve, &r->va, size, 0, 0, 0);
    r->size = size;
    return Status::pass();
  }

  Status map(CUdeviceptr va, size_t size, const Handle& mem, Mapping* m) const {
    VMR_CU_TRY(api.cuMemMap, va, size, 0, mem.h, 0);
    m->va = va;
    m->size = size;
    return Status::pass();
  }

  // An unmap that must have happened before new memory is mapped at the same VA (as vmr_hip::Vmem::unmap): a
  // failed cuMemUnmap is a FAIL naming it, with the Mapping kept, so nothing is mapped over it.
  Status unmap(Mapping* m) const {
    VMR_CU_TRY(api.cuMemUnmap, m->va, m->size);
    m->va = {};
    return Status::pass();
  }

  // Read-write access for each device in `devices` on [va, va + size).
  Status set_access(CUdeviceptr va, size_t size, const std::vector<int>& devices) const {
    std::vector<CUmemAccessDesc> desc;
    for (int d : devices) {
      bool listed = std::any_of(desc.begin(), desc.end(), [&](const CUmemAccessDesc& x) { return x.location.id == d; });
      if (listed) continue;
      CUmemAccessDesc a{};
      a.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      a.location.id = d;
      a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      desc.push_back(a);
    }
    VMR_CU_TRY(api.cuMemSetAccess, va, size, desc.data(), desc.size());
    return Status::pass();
  }
  Status grant_own(CUdeviceptr va, size_t size) const { return set_access(va, size, {device}); }

  // The access device `dev` has to the mapping at va, as the driver keeps it (cuMemGetAccess):
  // CU_MEM_ACCESS_FLAGS_PROT_NONE, _READ or _READWRITE.
  Status access_of(CUdeviceptr va, int dev, unsigned long long* flags) const {
    CUmemLocation where{};
    where.type = CU_MEM_LOCATION_TYPE_DEVICE;
    where.id = dev;
    VMR_CU_TRY(api.cuMemGetAccess, flags, &where, va);
    return Status::pass();
  }

  // Read-write access for the host (a Host location; its id is ignored) on [va, va + size).
  Status grant_host(CUdeviceptr va, size_t size) const {
    CUmemAccessDesc a{};
    a.location.type = CU_MEM_LOCATION_TYPE_HOST;
    a.location.id = 0;
    a.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    VMR_CU_TRY(api.cuMemSetAccess, va, size, &a, 1);
    return Status::pass();
  }

  // Whether device `other` can reach this Vmem's device's memory (cudaDeviceCanAccessPeer).
  Status peer_can_access(int other, bool* can) const {
    int c = 0;
    VMR_GPU_TRY(cudaDeviceCanAccessPeer, &c, other, device);
    *can = c != 0;
    return Status::pass();
  }

  // The calling thread's current device: the runtime makes its primary context current for the driver calls too.
  // Another device than this Vmem's is a peer rank's in every case that reaches one, so two processes open it.
  Status use_device(int d) const { return open_device(d, d == device ? 1 : 2); }

  // What cuMemGetAllocationPropertiesFromHandle says of a handle, created here or imported.
  Status properties(const Handle& mem, vmr_gpu::AllocationFacts* f) const {
    CUmemAllocationProp p{};
    VMR_CU_TRY(api.cuMemGetAllocationPropertiesFromHandle, &p, mem.h);
    *f = {int(p.type), int(p.location.type), p.location.id, int(p.requestedHandleTypes)};
    return Status::pass();
  }

  // What the driver's pointer query says of `va` (cuPointerGetAttribute: the device it lives on); a driver that
  // cannot answer for it is a FAIL naming the error, one that crashes a CRASH.
  Status pointer_query(CUdeviceptr va, std::string* answer) const {
    int ordinal = -1;
    VMR_CU_TRY(api.cuPointerGetAttribute, &ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va);
    *answer = "device ordinal " + std::to_string(ordinal);
    return Status::pass();
  }

  Status export_fd(const Handle& mem, vmr::UniqueFd* fd) const {
    int raw = -1;
    VMR_CU_TRY(api.cuMemExportToShareableHandle, &raw, mem.h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    fd->reset(raw);
    return Status::pass();
  }

  Status import_fd(int fd, Handle* mem) const {
    mem->reset();
    // CUDA takes the fd by value, cast to a pointer.
    VMR_CU_TRY(api.cuMemImportFromShareableHandle, &mem->h, reinterpret_cast<void*>(uintptr_t(fd)),
               CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    mem->valid = true;
    return Status::pass();
  }
};

}  // namespace vmr_cuda

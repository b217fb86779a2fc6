// repro_cuda_vmm: the CUDA driver-API reference of the scenarios the ROCm reproducers run.
//
// Every rank owns VMem memory and is a peer of every other rank's:
//   owner: cuMemCreate (pinned, POSIX-fd handle type) -> cuMemAddressReserve -> cuMemMap
//          -> cuMemSetAccess (owner and every peer device) -> cuMemExportToShareableHandle
//   peer:  receive the fd (SCM_RIGHTS) -> cuMemImportFromShareableHandle -> reserve -> map -> set access
// then reads, system-scope atomics, and the power-of-two allocator's remap life cycle. A ROCm bug report is
// stronger when the same scenario, written the same way, passes here.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "cuda_driver.h"
#include "gpu_host.h"
#include "repro.h"
#include "text.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using vmr_gpu::kBlocks;
using vmr_gpu::kThreads;
using vmr_gpu::u64;
using namespace vmr_gpu;  // the shared kernels and host helpers: k_*, read_words, verify_pattern, ...

vmr::CudaDriver drv;           // one rank per process: the table is this rank's
std::vector<int> rank_devices;  // the device of every rank, gathered before any case


// --- VMem building blocks: one driver call each, and the owner of what it creates -----------------------------

struct Handle {  // physical memory (created or imported)
  CUmemGenericAllocationHandle h = 0;
  Handle() = default;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  void reset() {
    if (h) drv.cuMemRelease(h);
    h = 0;
  }
};

struct Reservation {  // a VA range
  CUdeviceptr va = 0;
  size_t size = 0;
  Reservation() = default;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() {
    if (va) drv.cuMemAddressFree(va, size);
  }
};

struct Mapping {  // physical memory mapped at a VA
  CUdeviceptr va = 0;
  size_t size = 0;
  Mapping() = default;
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { reset(); }
  void reset() {
    if (va) drv.cuMemUnmap(va, size);
    va = 0;
  }
};

// Members in this order so that destruction unmaps, then releases, then frees the VA.
struct Block {
  Reservation range;
  Handle mem;
  Mapping map;
  u64* ptr() const { return reinterpret_cast<u64*>(range.va); }
};

CUmemAllocationProp pinned_fd_prop(int device) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = device;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return prop;
}

Status granularity(int device, size_t* g) {
  CUmemAllocationProp prop = pinned_fd_prop(device);
  CU_TRY(drv, cuMemGetAllocationGranularity(g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  return Status::pass();
}

Status create(int device, size_t size, Handle* mem) {
  mem->reset();
  CUmemAllocationProp prop = pinned_fd_prop(device);
  CU_TRY(drv, cuMemCreate(&mem->h, size, &prop, 0));
  return Status::pass();
}

Status reserve(size_t size, Reservation* r) {
  CU_TRY(drv, cuMemAddressReserve(&r->va, size, 0, 0, 0));
  r->size = size;
  return Status::pass();
}

Status map(CUdeviceptr va, size_t size, const Handle& mem, Mapping* m) {
  CU_TRY(drv, cuMemMap(va, size, 0, mem.h, 0));
  m->va = va;
  m->size = size;
  return Status::pass();
}

// Read-write access for each device in `devices` on [va, va + size).
Status set_access(CUdeviceptr va, size_t size, const std::vector<int>& devices) {
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
  CU_TRY(drv, cuMemSetAccess(va, size, desc.data(), desc.size()));
  return Status::pass();
}

Status export_fd(const Handle& mem, UniqueFd* fd) {
  int raw = -1;
  CU_TRY(drv, cuMemExportToShareableHandle(&raw, mem.h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  fd->reset(raw);
  return Status::pass();
}

Status import_fd(int fd, Handle* mem) {
  mem->reset();
  // CUDA takes the fd by value, cast to a pointer.
  CU_TRY(drv, cuMemImportFromShareableHandle(&mem->h, reinterpret_cast<void*>(uintptr_t(fd)),
                                             CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  return Status::pass();
}

// --- the two halves of the shared-memory story ------------------------------------------------------------------

// Owner: memory on this rank's device, mapped, accessible to every rank's device, exported as a dma-buf style fd.
Status allocate_exported(RankContext& ctx, size_t size, Block* b, UniqueFd* fd) {
  VMR_TRY(create(ctx.device(), size, &b->mem));
  VMR_TRY(reserve(size, &b->range));
  VMR_TRY(map(b->range.va, size, b->mem, &b->map));
  VMR_TRY(set_access(b->range.va, size, rank_devices));
  return export_fd(b->mem, fd);
}

// Peer: the owner's memory imported from its fd, mapped into a VA range of our own, accessible to our device.
Status import_block(RankContext& ctx, int fd, size_t size, Block* b) {
  VMR_TRY(import_fd(fd, &b->mem));
  if (!b->range.va) VMR_TRY(reserve(size, &b->range));
  VMR_TRY(map(b->range.va, size, b->mem, &b->map));
  return set_access(b->range.va, size, {ctx.device()});
}

// Every rank sends its fd to every other rank and imports every other rank's memory.
Status exchange(RankContext& ctx, const UniqueFd& own_fd, size_t size, std::vector<Block>* peers) {
  *peers = std::vector<Block>(ctx.ranks());
  return ctx.mesh().share_fd(own_fd.get(), {}, [&](int j, int fd, const std::string&) {
    return import_block(ctx, fd, size, &(*peers)[j]);
  });
}

// --- kernels: the driver names the error (CUDA_ERROR_ILLEGAL_ADDRESS), so synchronise through it ----------------

}  // namespace

Status vmr_gpu::finish(const char* what) {
  cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) return Status::fail(gpu_error(what, launch));
  CUresult r = drv.cuCtxSynchronize();
  return r == CUDA_SUCCESS ? Status::pass() : Status::fail(drv.error((std::string("cuCtxSynchronize after ") + what).c_str(), r));
}

namespace {

// --- what every case needs: the driver, the device, VMM and P2P support ------------------------------------------

std::string uuid_text(const CUuuid& u) {
  char buf[64];
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::snprintf(buf, sizeof buf, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return buf;
}

Status device_attribute(CUdevice dev, CUdevice_attribute attr, const char* name, int* value) {
  CUresult r = drv.cuDeviceGetAttribute(value, attr, dev);
  return r == CUDA_SUCCESS ? Status::pass() : Status::fail(drv.error((std::string("cuDeviceGetAttribute(") + name + ")").c_str(), r));
}

Status describe_cuda(RankContext& ctx) {
  VMR_TRY(vmr::load_cuda_driver(&drv));
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return Status::skip(gpu_error("cudaGetDeviceCount", e));
  std::vector<std::string> devs;
  VMR_TRY(ctx.mesh().all_gather(std::to_string(ctx.device()), &devs));
  rank_devices.clear();
  for (const auto& d : devs) rank_devices.push_back(std::stoi(d));
  int highest = *std::max_element(rank_devices.begin(), rank_devices.end());
  if (highest >= count)
    return Status::skip("not enough GPUs: " + std::to_string(ctx.ranks()) + " ranks want device " +
                        std::to_string(highest) + " but " + std::to_string(count) + " CUDA device(s) are visible");
  if ((e = cudaSetDevice(ctx.device())) != cudaSuccess) return Status::fail(gpu_error("cudaSetDevice", e));
  if ((e = cudaFree(nullptr)) != cudaSuccess)  // makes the primary context current for the driver calls
    return Status::fail(gpu_error("cudaFree(0) creating the primary context", e));

  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  drv.cuDriverGetVersion(&driver);
  ctx.info("cuda_runtime_version", std::to_string(runtime));
  ctx.info("cuda_driver_version", std::to_string(driver));
  CUdevice dev;
  CU_TRY(drv, cuDeviceGet(&dev, ctx.device()));
  cudaDeviceProp prop{};
  if ((e = cudaGetDeviceProperties(&prop, ctx.device())) != cudaSuccess)
    return Status::fail(gpu_error("cudaGetDeviceProperties", e));
  char bus[32] = {};
  cudaDeviceGetPCIBusId(bus, sizeof bus, ctx.device());
  CUuuid uuid{};
  CU_TRY(drv, cuDeviceGetUuid(&uuid, dev));
  ctx.info("device", std::to_string(ctx.device()));
  ctx.info("device_name", prop.name);
  ctx.info("compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor));
  ctx.info("pci_bus_id", bus);
  ctx.info("uuid", uuid_text(uuid));

  int vmm = 0, posix_fd = 0;
  VMR_TRY(device_attribute(dev, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, "VMM", &vmm));
  VMR_TRY(device_attribute(dev, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, "POSIX fd", &posix_fd));
  if (!vmm) return Status::skip("device " + std::to_string(ctx.device()) + ": CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED is 0");
  if (!posix_fd)
    return Status::skip("device " + std::to_string(ctx.device()) +
                        ": CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED is 0");
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  ctx.info("vmm_granularity", std::to_string(g));

  // Each pair this rank touches, both ways: access, native atomics, performance rank.
  for (int j = 0; j < ctx.ranks(); ++j) {
    int peer = rank_devices[j];
    if (j == ctx.rank() || peer == ctx.device()) continue;
    CUdevice pdev;
    CU_TRY(drv, cuDeviceGet(&pdev, peer));
    std::vector<std::string> facts;
    for (auto [from, to] : {std::pair{dev, pdev}, std::pair{pdev, dev}}) {
      int can = 0, access = 0, atomics = 0, perf = 0;
      CU_TRY(drv, cuDeviceCanAccessPeer(&can, from, to));
      CU_TRY(drv, cuDeviceGetP2PAttribute(&access, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, from, to));
      CU_TRY(drv, cuDeviceGetP2PAttribute(&atomics, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, from, to));
      CU_TRY(drv, cuDeviceGetP2PAttribute(&perf, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, from, to));
      std::string pair = std::to_string(int(from)) + "->" + std::to_string(int(to));
      facts.push_back(pair + " access=" + std::to_string(access) + " native_atomics=" + std::to_string(atomics) +
                      " perf_rank=" + std::to_string(perf));
      if (!can) return Status::skip("cuDeviceCanAccessPeer(" + pair + ") is 0");
      if (!atomics) return Status::skip("CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED(" + pair + ") is 0");
    }
    ctx.info("p2p_" + std::to_string(ctx.device()) + "_" + std::to_string(peer), vmr::join(facts, "; "));
  }
  return Status::pass();
}

// --- cases ---------------------------------------------------------------------------------------------------------

constexpr size_t kReadBytes = size_t(256) << 20;

Status case_read(RankContext& ctx) {
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  const size_t size = round_up(kReadBytes, g), n = size / sizeof(u64);
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(ctx, size, &own, &fd));
  k_fill_pattern<<<kBlocks, kThreads>>>(own.ptr(), n, u64(ctx.rank()));
  VMR_TRY(finish("k_fill_pattern"));
  u64 own_sum = 0;
  VMR_TRY(checksum(own.ptr(), size, &own_sum));
  ctx.phase_done("setup");

  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, fd, size, &peers));
  ctx.phase_done("exchange");

  std::vector<const u64*> peer_ptrs;
  for (const auto& b : peers) peer_ptrs.push_back(b.ptr());
  VMR_TRY(verify_peer_reads(ctx, peer_ptrs, n, own_sum));
  ctx.phase_done("verify");

  // Bandwidth of reading the next rank's memory: a kernel (best of a few grid sizes), and the copy engine
  // (cuMemcpyDtoD) on the same buffer in the same run. One rank at a time, so that no other rank's traffic shares
  // the link: the figures are one direction's.
  const int next = (ctx.rank() + 1) % ctx.ranks();
  DeviceBuffer<u64> local, cell;
  VMR_TRY(local.alloc(n));
  VMR_TRY(cell.alloc(1));
  const CUdeviceptr src = peers[next].range.va;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx.device());
  double kernel_s = 1e30, copy_s = 0;
  int best_blocks = 0;
  for (int turn = 0; turn < ctx.ranks(); ++turn) {
    if (turn == ctx.rank()) {
      for (int per_sm : {1, 2, 4, 8}) {
        double t = 0;
        VMR_TRY(time_best(5, [&] {
          k_checksum<<<sms * per_sm, kThreads>>>(reinterpret_cast<const ulonglong2*>(src), size / 16, cell.p);
          return Status::pass();
        }, &t));
        if (t < kernel_s) kernel_s = t, best_blocks = sms * per_sm;
      }
      VMR_TRY(time_best(5, [&] {
        CU_TRY(drv, cuMemcpyDtoD(reinterpret_cast<CUdeviceptr>(local.p), src, size));
        return Status::pass();
      }, &copy_s));
    }
    VMR_TRY(ctx.mesh().barrier("bandwidth-turn-" + std::to_string(turn)));
  }
  ctx.info("peer_read_kernel_grid", std::to_string(best_blocks) + " blocks x " + std::to_string(kThreads) + " threads");
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("read-done"));  // owners keep their memory until every peer is done
  ctx.metric("peer_read_kernel_GBps", size / kernel_s / 1e9, "GB/s");
  ctx.metric("peer_read_copy_GBps", size / copy_s / 1e9, "GB/s");
  ctx.metric("kernel_over_copy_bandwidth", copy_s / kernel_s, "ratio");
  return Status::pass(std::to_string(size >> 20) + " MiB of every rank read exactly by every peer (pattern and checksum)");
}

// Counters per rank, and the adds every peer makes into them.
constexpr u64 kCounters = 1024;
constexpr u64 kAddsPerThread = 64;

Status case_atomics(RankContext& ctx) {
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  const size_t size = round_up(kCounters * sizeof(u64), g);
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(ctx, size, &own, &fd));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, fd, size, &peers));
  std::vector<u64*> peer_ptrs;
  for (const auto& b : peers) peer_ptrs.push_back(b.ptr());
  ctx.phase_done("exchange");

  // System scope drives the verdict.
  AtomicsRound sys;
  VMR_TRY(remote_atomics_round(ctx, own.ptr(), peer_ptrs, true, "system", &sys));
  ctx.phase_done("run");
  if (!sys.mismatch.empty()) return Status::fail("system-scope atomics: " + sys.mismatch);
  double slowest = 0;
  VMR_TRY(ctx.max_over_ranks(sys.secs, &slowest));
  const double adds = double(ctx.ranks()) * (ctx.ranks() - 1) * kBlocks * kThreads * sys.adds_per_thread;
  ctx.metric("remote_system_atomics_per_s", adds / slowest, "ops/s");

  // Device scope: information only (over NVLink with native P2P atomics it is expected exact too).
  AtomicsRound dev;
  VMR_TRY(remote_atomics_round(ctx, own.ptr(), peer_ptrs, false, "device", &dev));
  ctx.info("device_scope_atomics", dev.mismatch.empty() ? "exact" : "not exact: " + dev.mismatch);
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("atomics-done"));
  return Status::pass("system scope: each of " + std::to_string(sys.counters) + " counters per rank holds exactly " +
                      std::to_string(sys.expect) + " (" + std::to_string(ctx.ranks() - 1) + " peers x " +
                      std::to_string(kBlocks * kThreads) + " threads x " + std::to_string(sys.adds_per_thread) +
                      " adds / counters); device scope " + (dev.mismatch.empty() ? "exact" : "NOT exact"));
}

// --- the power-of-two allocator's VA life cycle --------------------------------------------------------------------

constexpr int kPow2Blocks = 4;  // one reservation, blocks of one granule each

// Free block `b` and reuse it the way that works on ROCm: unmap + release the old memory, create + map new memory at
// the same VA, then set access from the BASE over the cumulative mapped size.
Status renew_block(RankContext& ctx, const Reservation& range, size_t g, int b, Handle* mem, Mapping* m) {
  m->reset();
  mem->reset();
  VMR_TRY(create(ctx.device(), g, mem));
  VMR_TRY(map(range.va + b * g, g, *mem, m));
  return set_access(range.va, range.size, {ctx.device()});
}

Status case_remap(RankContext& ctx) {
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  Reservation range;
  VMR_TRY(reserve(kPow2Blocks * g, &range));
  Handle mem[kPow2Blocks];
  Mapping maps[kPow2Blocks];
  for (int b = 0; b < kPow2Blocks; ++b) {
    VMR_TRY(create(ctx.device(), g, &mem[b]));
    VMR_TRY(map(range.va + b * g, g, mem[b], &maps[b]));
    VMR_TRY(set_access(range.va, (b + 1) * g, {ctx.device()}));  // base VA, cumulative size
  }
  const size_t words = g / sizeof(u64);
  auto block_ptr = [&](int b) { return reinterpret_cast<u64*>(range.va + b * g); };
  for (int b = 0; b < kPow2Blocks; ++b) k_fill_pattern<<<kBlocks, kThreads>>>(block_ptr(b), words, u64(b));
  VMR_TRY(finish("k_fill_pattern"));
  ctx.phase_done("setup");

  const int reused = 2;
  VMR_TRY(renew_block(ctx, range, g, reused, &mem[reused], &maps[reused]));
  k_fill_pattern<<<kBlocks, kThreads>>>(block_ptr(reused), words, u64(100 + ctx.rank()));
  VMR_TRY(finish("k_fill_pattern after remap"));
  ctx.phase_done("run");

  VMR_TRY(verify_pattern(block_ptr(reused), words, 100 + ctx.rank(), "remapped block"));
  for (int b = 0; b < kPow2Blocks; ++b)
    if (b != reused) VMR_TRY(verify_pattern(block_ptr(b), words, b, "untouched block " + std::to_string(b)));
  ctx.phase_done("verify");
  return Status::pass("block 2 of 4 remapped at the same VA (unmap, release, create, map, set access from base); "
                      "new data exact, other blocks intact");
}

Status case_set_access_subrange(RankContext& ctx) {
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  Reservation range;
  VMR_TRY(reserve(2 * g, &range));
  Handle mem[2];
  Mapping maps[2];
  VMR_TRY(create(ctx.device(), g, &mem[0]));
  VMR_TRY(map(range.va, g, mem[0], &maps[0]));
  VMR_TRY(set_access(range.va, g, {ctx.device()}));
  VMR_TRY(create(ctx.device(), g, &mem[1]));
  VMR_TRY(map(range.va + g, g, mem[1], &maps[1]));
  ctx.phase_done("setup");
  // The call ROCm 7.x rejects with hipErrorInvalidValue (rocm-systems#2667): access on a block not at the base.
  VMR_TRY(set_access(range.va + g, g, {ctx.device()}));
  auto* second = reinterpret_cast<u64*>(range.va + g);
  k_fill_pattern<<<kBlocks, kThreads>>>(second, g / sizeof(u64), 7);
  VMR_TRY(finish("k_fill_pattern on the sub-range"));
  ctx.phase_done("run");
  VMR_TRY(verify_pattern(second, g / sizeof(u64), 7, "sub-range block"));
  ctx.phase_done("verify");
  return Status::pass("cuMemSetAccess(base + granule, granule) accepted; the block reads back exactly");
}

Status case_set_access_hole(RankContext& ctx) {
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  Reservation range;
  VMR_TRY(reserve(3 * g, &range));
  Handle mem[2];
  Mapping maps[2];
  VMR_TRY(create(ctx.device(), g, &mem[0]));
  VMR_TRY(map(range.va, g, mem[0], &maps[0]));
  VMR_TRY(create(ctx.device(), g, &mem[1]));
  VMR_TRY(map(range.va + 2 * g, g, mem[1], &maps[1]));  // the middle granule stays unmapped: a hole
  ctx.phase_done("setup");
  // What an allocator that released physical memory at free time would have to do.
  VMR_TRY(set_access(range.va, 3 * g, {ctx.device()}));
  ctx.phase_done("run");
  // Accepted: then both mapped blocks must really be usable. (On the H200 pair they are not: the driver returns
  // CUDA_SUCCESS but grants access only up to the hole, and the first write beyond it faults. ROCm says no.)
  for (int b : {0, 2}) {
    auto* p = reinterpret_cast<u64*>(range.va + b * g);
    k_fill_pattern<<<kBlocks, kThreads>>>(p, g / sizeof(u64), u64(b));
    Status written = finish("k_fill_pattern");
    if (!written.ok())
      return Status::fail("cuMemSetAccess(base, 3 granules, middle one unmapped) returned CUDA_SUCCESS, but block " +
                          std::to_string(b) + " is not accessible: " + written.detail);
    VMR_TRY(verify_pattern(p, g / sizeof(u64), b, "block " + std::to_string(b) + " beside the hole"));
  }
  ctx.phase_done("verify");
  return Status::pass("cuMemSetAccess accepted a range with an unmapped hole; both mapped blocks read back exactly");
}

// The owner remaps its block and bumps a generation; every peer notices, drops its stale mapping, imports the new
// fd, maps, sets access, and its atomics must land in the owner's new memory exactly.
Status case_peer_reimport(RankContext& ctx) {
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(ctx, g, &own, &fd));
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, fd, g, &peers));
  ctx.phase_done("setup");

  // Generation 2: new physical memory at the same VA, word 0 stamped with the generation.
  const u64 generation = 2;
  own.map.reset();
  own.mem.reset();
  VMR_TRY(create(ctx.device(), g, &own.mem));
  VMR_TRY(map(own.range.va, g, own.mem, &own.map));
  VMR_TRY(set_access(own.range.va, g, rank_devices));
  k_zero<<<kBlocks, kThreads>>>(own.ptr(), g / sizeof(u64));
  k_store<<<1, 1>>>(own.ptr(), generation);
  VMR_TRY(finish("k_zero + k_store of the generation"));
  VMR_TRY(export_fd(own.mem, &fd));
  const std::string announced = "generation " + std::to_string(generation);
  VMR_TRY(ctx.mesh().share_fd(fd.get(), announced, [&](int j, int peer_fd, const std::string& note) {
    if (note != announced) return Status::harness("rank " + std::to_string(j) + " announced '" + note + "'");
    peers[j].map.reset();  // the stale mapping: unmap, release, then import the new memory at the same VA
    VMR_TRY(import_block(ctx, peer_fd, g, &peers[j]));
    // The new mapping must show the owner's stamp: a bounded wait, never a hung GPU.
    return wait_for_stamp(peers[j].ptr(), generation, "rank " + std::to_string(j) + "'s");
  }));
  VMR_TRY(ctx.mesh().barrier("reimported"));
  ctx.phase_done("exchange");

  for (int j = 0; j < ctx.ranks(); ++j)
    if (j != ctx.rank()) k_atomic_add_system<<<kBlocks, kThreads>>>(peers[j].ptr() + 1, kCounters, kAddsPerThread);
  VMR_TRY(finish("k_atomic_add_system"));
  VMR_TRY(ctx.mesh().barrier("added"));
  ctx.phase_done("run");
  const u64 expect = u64(ctx.ranks() - 1) * kBlocks * kThreads * kAddsPerThread / kCounters;
  VMR_TRY(check_stamp_and_counters(own.ptr(), generation, kCounters, expect));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("verified"));
  return Status::pass("peers re-imported generation 2 at the same VA; their system-scope atomics reached the new "
                      "memory exactly (" + std::to_string(expect) + " per counter)");
}

// Self-test: the last rank writes through a VA it unmapped. The GPU fault must come back as a FAIL naming the
// driver's error, and the other ranks must hear about it rather than wait.
Status write_through_unmapped(RankContext& ctx) {
  size_t g = 0;
  VMR_TRY(granularity(ctx.device(), &g));
  Block b;
  VMR_TRY(create(ctx.device(), g, &b.mem));
  VMR_TRY(reserve(g, &b.range));
  VMR_TRY(map(b.range.va, g, b.mem, &b.map));
  VMR_TRY(set_access(b.range.va, g, {ctx.device()}));
  b.map.reset();  // unmapped; the VA stays reserved
  k_store<<<1, 1>>>(b.ptr(), 1);
  VMR_TRY(finish("k_store through an unmapped VA"));
  return Status::fail("a kernel wrote through an unmapped VA without an error");
}

Status case_fault(RankContext& ctx) {
  return ctx.agree(ctx.rank() == ctx.ranks() - 1 ? write_through_unmapped(ctx) : Status::pass());
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::ReproBinary binary{
      "repro_cuda_vmm",
      {"cuda", describe_cuda},
      {
          {"read", "every peer reads each owner's 256 MiB exactly; kernel vs cuMemcpyDtoD peer bandwidth", case_read},
          {"atomics", "every rank adds into every peer's counters at system scope (exact); device scope as info",
           case_atomics},
          {"remap", "pow2 allocator: remap a block at the same VA, set access from the base; data exact", case_remap},
          {"set-access-subrange", "cuMemSetAccess on a block not at the reservation base (ROCm 7.x rejects it)",
           case_set_access_subrange},
          {"set-access-hole", "cuMemSetAccess from the base over a range with an unmapped hole",
           case_set_access_hole},
          {"peer-reimport", "owner remaps and bumps the generation; peers re-import; atomics reach the new memory",
           case_peer_reimport},
          {"fault", "self-test: a kernel writes through an unmapped VA (expected FAIL, CUDA_ERROR_ILLEGAL_ADDRESS)",
           case_fault},
      }};
  return vmr::repro_main(binary, argc, argv);
}

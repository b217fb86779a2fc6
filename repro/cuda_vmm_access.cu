// repro_cuda_vmm_access: the CUDA driver-API twins of repro_hip_vmem_access's cases, the same names and the same
// steps, so that a ROCm report can say what the same program does on CUDA (each case's story is told in
// repro/hip_vmem_access.hip's header). On one GPU (`--devices 0,0`) the grant-order cases SKIP: they need a second
// GPU in the same process.
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cuda/cuda_rank.h"
#include "cuda/cuda_vmem.h"
#include "gpu/gpu_host.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"
#include "harness/threads.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using namespace vmr_gpu;
using vmr_cuda::api;
using vmr_cuda::Block;

using RankState = vmr_cuda::RankState;  // what describe() learns once per rank and every case reads

Status describe(RankContext& ctx, RankState* state) { return vmr_cuda::describe_rank(ctx, state); }

// --- cases (line for line as repro/hip_vmem_access.hip) ----------------------------------------------------------
// twin-begin(access): tests/twins.sh checks that these lines are repro/cuda_vmm_access.cu's cases but for API names.

constexpr size_t kAccessBytes = size_t(4) << 20;

// Each rank's own memory granted to its device and to the next rank's, one call per device in `owner_last`'s
// order. Both GPUs then write and read it through the same VA: a GPU left with stale pages reads what the
// other did not write (a check on one GPU alone would read back its own stale pages and pass).
Status grant_in_order(RankContext& ctx, const RankState& state, bool owner_last) {
  const int other = ctx.devices()[(ctx.rank() + 1) % ctx.ranks()];
  VMR_TRY(ctx.agree(other != ctx.device()
                        ? Status::pass()
                        : Status::skip("needs two different GPUs in --devices (each rank grants its own and the "
                                       "next rank's): only another GPU's attach of the memory moves it")));
  bool reachable = false;
  VMR_TRY(state.cuda.peer_can_access(other, &reachable));
  VMR_TRY(ctx.agree(reachable ? Status::pass()
                              : Status::skip("GPU " + std::to_string(other) + " cannot access GPU " +
                                             std::to_string(ctx.device()) + "'s memory (no peer access)")));
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  VMR_TRY(state.cuda.create(size, &own.mem));
  VMR_TRY(state.cuda.reserve(size, &own.range));
  VMR_TRY(state.cuda.map(own.range.va, size, own.mem, &own.map));
  const std::vector<int> order =
      owner_last ? std::vector<int>{other, ctx.device()} : std::vector<int>{ctx.device(), other};
  for (int d : order) VMR_TRY(state.cuda.set_access(own.range.va, size, {d}));
  const std::string granted = "granted GPU " + std::to_string(order[0]) + ", then GPU " + std::to_string(order[1]);
  ctx.phase_done("setup");
  const int by_owner = ctx.rank(), by_other = ctx.ranks() + ctx.rank();  // two patterns no rank writes elsewhere
  VMR_TRY(fill_pattern(own.span(), by_owner, "the owner's memory"));
  {
    VMR_TRY(state.cuda.use_device(other));
    vmr::ScopeExit back([&] { (void)state.cuda.use_device(ctx.device()); });
    VMR_TRY(verify_pattern(own.span(), by_owner,
                           "GPU " + std::to_string(other) + " reading what the owner wrote (" + granted + ")"));
    VMR_TRY(fill_pattern(own.span(), by_other, "the owner's memory from GPU " + std::to_string(other)));
  }
  VMR_TRY(state.cuda.use_device(ctx.device()));
  VMR_TRY(verify_pattern(own.span(), by_other,
                         "the owner reading what GPU " + std::to_string(other) + " wrote (" + granted + ")"));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("verified"));
  return Status::pass("each GPU read exactly what the other wrote through the owner's VA, " + granted);
}

Status case_grant_owner_first(RankContext& ctx, const RankState& state) { return grant_in_order(ctx, state, false); }
Status case_grant_owner_last(RankContext& ctx, const RankState& state) { return grant_in_order(ctx, state, true); }

Status case_host_access_imported(RankContext& ctx, const RankState& state) {
  VMR_TRY(ctx.agree(state.host_access_support()));
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.cuda, size, &own, &fd));
  VMR_TRY(fill_pattern(own.span(), ctx.rank(), "the owner's memory"));
  // The control: a runtime that grants the host no access to device memory at all cannot show the regression.
  const Status local = state.cuda.grant_host(own.range.va, size);
  VMR_TRY(ctx.agree(
      local.ok() ? Status::pass()
                 : Status::skip("no host access to device memory, not even on a local handle: " + local.detail)));
  VMR_TRY(host_verify_pattern(own.span(), ctx.rank(), "the host reading its own rank's memory"));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  ctx.phase_done("exchange");
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    const Status imported = state.cuda.grant_host(peers[j].range.va, size);
    if (!imported.ok())
      return Status::fail("host access to rank " + std::to_string(j) + "'s imported handle: " + imported.detail +
                          " (the same call on this rank's own handle succeeded)");
    VMR_TRY(
        host_verify_pattern(peers[j].span(), j, "the host reading rank " + std::to_string(j) + "'s imported memory"));
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass("host access granted on local and imported handles; the host read every owner's pattern exactly");
}

// Only the location can be compared: what else an imported handle gets wrong (its size, rocm-systems PR #11606)
// stays inside the runtime, and cuMemAllocationProp has no size.
Status case_imported_properties(RankContext& ctx, const RankState& state) {
  // An owner on another GPU: the only way a wrong location id can show. Said first: the expected table reads it.
  bool other_gpu = false;
  for (int j = 0; j < ctx.ranks(); ++j) other_gpu = other_gpu || ctx.devices()[j] != ctx.device();
  ctx.info("owners_on_other_gpus", other_gpu ? "yes" : "no");
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.cuda, size, &own, &fd));
  AllocationFacts mine;
  VMR_TRY(state.cuda.properties(own.mem, &mine));
  std::vector<std::string> owners;
  VMR_TRY(ctx.mesh().all_gather(mine.placement(), &owners));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  ctx.phase_done("exchange");
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    AllocationFacts theirs;
    VMR_TRY(state.cuda.properties(peers[j].mem, &theirs));
    ctx.info("imported_handle_types_" + std::to_string(j), std::to_string(theirs.handle_types));
    if (theirs.placement() != owners[j])
      return Status::fail("cuMemGetAllocationPropertiesFromHandle on rank " + std::to_string(j) +
                          "'s imported handle says " + theirs.placement() +
                          "; on the owner's own handle: " + owners[j]);
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("asked"));
  return Status::pass("every imported handle describes its owner's allocation as the owner's handle does (" +
                      owners[ctx.rank()] + ")");
}

// The driver's pointer query on an imported mapping (the twin of ROCr's hsa_amd_pointer_info, which dereferenced
// null on imported handles: rocm-systems PR #11449).
Status case_pointer_info_imported(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  Block own;
  UniqueFd fd;
  VMR_TRY(allocate_exported(state.cuda, size, &own, &fd));
  std::string mine;
  VMR_TRY(state.cuda.pointer_query(own.range.va, &mine));
  ctx.info("pointer_query_own", mine);
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  ctx.phase_done("exchange");
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    std::string theirs;
    VMR_TRY(state.cuda.pointer_query(peers[j].range.va, &theirs));
    ctx.info("pointer_query_imported_" + std::to_string(j), theirs);
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("asked"));
  return Status::pass("the pointer query answered for this rank's own mapping (" + mine + ") and every imported one");
}

// The thread's reproducer: 200 fresh 64 MiB maps, each written by one kernel right after set-access and checked by
// the next.
constexpr int kFreshMaps = 200;
constexpr size_t kFreshMapBytes = size_t(64) << 20;

Status case_map_then_use(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kFreshMapBytes).bytes;
  ctx.phase_done("setup");
  int bad_maps = 0, first_bad_map = -1;
  u64 bad_words = 0;
  PatternCounter counter;  // one pair of result cells for every round
  VMR_TRY(counter.prepare());
  for (int i = 0; i < kFreshMaps; ++i) {
    Block b;
    VMR_TRY(state.cuda.create(size, &b.mem));
    VMR_TRY(state.cuda.reserve(size, &b.range));
    VMR_TRY(state.cuda.map(b.range.va, size, b.mem, &b.map));
    VMR_TRY(state.cuda.grant_own(b.range.va, size));
    VMR_TRY(start_fill_pattern(b.span(), i));  // at once: no delay after the grant
    // The count follows the fill in stream order, so one wait covers both: each wait for the device costs a time
    // slice when other processes share the GPU (a triage's other binaries).
    u64 bad = 0, first = 0;
    const std::string waited = "k_fill_pattern and k_verify_pattern on fresh map " + std::to_string(i);
    VMR_TRY(counter.count(b.span(), i, &bad, &first, waited.c_str()));
    if (bad == 0) continue;
    bad_words += bad;
    if (bad_maps++ == 0) first_bad_map = i;
  }
  ctx.phase_done("run");
  ctx.info("fresh_maps_corrupted", std::to_string(bad_maps) + " of " + std::to_string(kFreshMaps));
  VMR_TRY(ctx.mesh().barrier("used"));
  if (bad_maps)
    return Status::fail(std::to_string(bad_maps) + " of " + std::to_string(kFreshMaps) +
                        " fresh maps used at once lost stores: " + std::to_string(bad_words) +
                        " words differ from what the kernel wrote, first in map " + std::to_string(first_bad_map));
  return Status::pass(std::to_string(kFreshMaps) + " fresh maps of " + std::to_string(size >> 20) +
                      " MiB, each written by a kernel right after set-access, all read back exactly");
}

// Each thread imports its own one of the previous rank's allocations again and again, and maps, grants and reads
// it, while the other threads do the same: imports racing maps and set-access (ROCm/mori PR #476).
constexpr int kMapThreads = 8, kRoundsPerThread = 8;

Status import_rounds(const RankState& state, int fd, size_t size, int owner_tag) {
  VMR_TRY(state.cuda.use_device(state.cuda.device));
  for (int round = 0; round < kRoundsPerThread; ++round) {
    Block b;
    VMR_TRY(import_block(state.cuda, fd, size, &b));
    VMR_TRY(verify_pattern(b.span(), owner_tag, "round " + std::to_string(round)));
  }
  return Status::pass();
}

Status case_concurrent_map(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kAccessBytes).bytes;
  const int from = (ctx.rank() + ctx.ranks() - 1) % ctx.ranks();
  std::vector<Block> own(kMapThreads);
  std::vector<UniqueFd> received(kMapThreads);  // the previous rank's allocations, one per thread
  for (int t = 0; t < kMapThreads; ++t) {
    UniqueFd fd;
    VMR_TRY(allocate_exported(state.cuda, size, &own[t], &fd));
    VMR_TRY(fill_pattern(own[t].span(), ctx.rank() * kMapThreads + t, "allocation " + std::to_string(t)));
    VMR_TRY(ctx.mesh().share_fd(fd.get(), {}, [&](int j, int peer_fd, const std::string&) {
      if (j != from) return Status::pass();
      received[t].reset(::dup(peer_fd));
      return received[t].valid() ? Status::pass() : Status::harness(vmr::errno_text("dup of the received fd"));
    }));
  }
  ctx.phase_done("setup");
  const Status rounds = vmr::on_threads(
      kMapThreads, [&](int t) { return import_rounds(state, received[t].get(), size, from * kMapThreads + t); });
  ctx.phase_done("run");
  VMR_TRY(ctx.agree(rounds));
  return Status::pass(std::to_string(kMapThreads) + " threads at once, each importing, mapping, granting and reading " +
                      "rank " + std::to_string(from) + "'s memory " + std::to_string(kRoundsPerThread) +
                      " times: every word exact");
}

// Allocations mapped one after another into one reservation and each granted on its own, not from the
// reservation's base, as a growing pool does: the sizes of rocm-systems#2516 (PR #2568's test) and of #2667.
const std::vector<std::vector<size_t>> kSizeSeries = {{2379776, 7864320, 6533120}, {4096, 8192, 16384}};

Status grant_series(const RankState& state, const std::vector<size_t>& wanted, std::string* done) {
  std::vector<size_t> sizes;
  size_t total = 0;
  for (size_t w : wanted) total += sizes.emplace_back(round_up(w, state.granule));
  vmr_cuda::Reservation range;  // declared first: freed after every mapping and handle
  std::vector<vmr_cuda::Handle> mems(sizes.size());
  std::vector<vmr_cuda::Mapping> maps(sizes.size());
  VMR_TRY(state.cuda.reserve(total, &range));
  size_t offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    VMR_TRY(state.cuda.create(sizes[i], &mems[i]));
    VMR_TRY(state.cuda.map(range.at(offset), sizes[i], mems[i], &maps[i]));
    const Status granted = state.cuda.grant_own(range.at(offset), sizes[i]);
    if (!granted.ok())
      return {granted.verdict, "mapping " + std::to_string(i + 1) + " of " + std::to_string(sizes.size()) + " (" +
                                   std::to_string(sizes[i]) + " bytes at offset " + std::to_string(offset) +
                                   " of one reservation): " + granted.detail};
    VMR_TRY(write_and_check(maps[i].span(), int(i),
                            std::to_string(sizes[i]) + " bytes at offset " + std::to_string(offset)));
    offset += sizes[i];
  }
  std::vector<std::string> listed;
  for (size_t s : sizes) listed.push_back(std::to_string(s));
  *done = vmr::join(listed, " + ");
  return Status::pass();
}

Status case_set_access_sizes(RankContext& ctx, const RankState& state) {
  ctx.phase_done("setup");
  std::vector<std::string> series;
  for (const auto& wanted : kSizeSeries) {
    std::string done;
    VMR_TRY(grant_series(state, wanted, &done));
    series.push_back(done);
  }
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("granted"));
  return Status::pass("each mapping granted on its own and written and read whole, in reservations of " +
                      vmr::join(series, " and ") + " bytes");
}

// twin-end(access)

// --- host memory shared as VMem (rocm-systems#10232: an imported system-memory dma-buf mapped on one GPU only;
// #8971/#9359: host-location VMem compiled and failed at run time before ROCm 7.2) ------------------------------------

constexpr size_t kHostLocationBytes = size_t(64) << 20;
// CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (145) by number: CUDA 13 headers name it, older ones do
// not, and a driver that does not know it answers CUDA_ERROR_INVALID_VALUE.
constexpr CUdevice_attribute kHostVmmAttribute = CUdevice_attribute(145);

// The host location the driver offers shareable VMem at on this device, or none (prop->location stays the device's);
// *support says what the driver answered. CU_MEM_LOCATION_TYPE_HOST is "not IPC capable": cuMemCreate refuses it any
// handle type (CUDA_ERROR_INVALID_VALUE; cuda.h, cuMemCreate; seen on the H200, driver 580.159.04), so the one host
// location a POSIX fd can share is Host NUMA, at the device's nearest node (0 where the system has no NUMA).
Status host_location(int device, CUmemAllocationProp* prop, std::string* support) {
  CUdevice dev;
  VMR_CU_TRY(api.cuDeviceGet, &dev, device);
  int host = 0, host_numa = 0, numa_id = -1;
  const CUresult on_host = api.cuDeviceGetAttribute(&host, kHostVmmAttribute, dev);
  const CUresult on_numa =
      api.cuDeviceGetAttribute(&host_numa, CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev);
  const CUresult numa = api.cuDeviceGetAttribute(&numa_id, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, dev);
  const auto answer = [](CUresult r, int v, const char* name) {
    return r == CUDA_SUCCESS ? std::to_string(v) : api.error(std::string("cuDeviceGetAttribute(") + name + ")", r);
  };
  *support = "HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED " +
             answer(on_numa, host_numa, "HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED") + ", HOST_NUMA_ID " +
             answer(numa, numa_id, "HOST_NUMA_ID") + ", HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED " +
             answer(on_host, host, "145") + " (Host allocations are not IPC capable)";
  *prop = vmr_cuda::pinned_fd_prop(device);
  if (on_numa == CUDA_SUCCESS && host_numa) {
    prop->location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    prop->location.id = numa == CUDA_SUCCESS && numa_id >= 0 ? numa_id : 0;
  }
  return Status::pass();
}

// Each rank's host-location VMem (POSIX-fd handle), written by its own GPU, exported; every peer imports it, maps it
// twice (two VAs of one process on its GPU) and reads the owner's pattern through both: with --devices 0,1 two GPUs
// map one host allocation, with --devices 0,0 the same GPU holds it from two processes.
Status case_host_location(RankContext& ctx, const RankState& state) {
  CUmemAllocationProp prop{};
  std::string support;
  VMR_TRY(host_location(ctx.device(), &prop, &support));
  ctx.info("host_vmm_support", support);
  const bool offered = prop.location.type != CU_MEM_LOCATION_TYPE_DEVICE;
  VMR_TRY(ctx.agree(offered
                        ? Status::pass()
                        : Status::skip("GPU " + std::to_string(ctx.device()) +
                                       ": the driver offers no shareable host location for VMem (" + support + ")")));
  const std::string where = "CU_MEM_LOCATION_TYPE_HOST_NUMA " + std::to_string(prop.location.id);
  ctx.info("host_location", where);
  size_t g = 0;
  CUresult r = api.cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  const size_t size = r == CUDA_SUCCESS ? read_plan(g, kHostLocationBytes).bytes : 0;
  Block own;
  std::string refusal = r == CUDA_SUCCESS ? "" : api.error("cuMemGetAllocationGranularity", r);
  if (r == CUDA_SUCCESS) {
    r = api.cuMemCreate(&own.mem.h, size, &prop, 0);
    own.mem.valid = r == CUDA_SUCCESS;
    if (r != CUDA_SUCCESS) refusal = api.error("cuMemCreate", r);
  }
  // The driver's own answer where it offers the location yet refuses it with a POSIX-fd handle type.
  VMR_TRY(ctx.agree(refusal.empty()
                        ? Status::pass()
                        : Status::skip(where + " with a POSIX-fd handle refused: " + refusal + " (" + support + ")")));
  ctx.info("host_location_granularity", std::to_string(g));
  VMR_TRY(state.cuda.reserve(size, &own.range));
  VMR_TRY(state.cuda.map(own.range.va, size, own.mem, &own.map));
  VMR_TRY(state.cuda.grant_own(own.range.va, size));
  VMR_TRY(fill_pattern(own.span(), ctx.rank(), "the owner's host-location memory"));
  u64 own_sum = 0;
  VMR_TRY(checksum(own.span(), &own_sum));
  UniqueFd fd;
  VMR_TRY(state.cuda.export_fd(own.mem, &fd));
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.cuda, fd, size, &peers));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  for (int j = 0; j < ctx.ranks(); ++j) {  // the same import mapped again at a second VA of this process
    if (j == ctx.rank()) continue;
    vmr_cuda::Reservation again;
    vmr_cuda::Mapping second;
    VMR_TRY(state.cuda.reserve(size, &again));
    VMR_TRY(state.cuda.map(again.va, size, peers[j].mem, &second));
    VMR_TRY(state.cuda.grant_own(again.va, size));
    VMR_TRY(verify_pattern(second.span(), j, "rank " + std::to_string(j) + "'s host memory at a second VA"));
  }
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));  // owners keep their memory until every peer is done
  return Status::pass(std::to_string(size >> 20) + " MiB of " + where +
                      " VMem per rank, written by its GPU, exported as a POSIX fd; every peer read it exactly "
                      "through two mappings");
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      "repro_cuda_vmm_access",
      "cuda",
      describe,
      {
          {"grant-owner-first", "own memory granted to its GPU, then to another; each GPU reads what the other wrote",
           case_grant_owner_first},
          {"grant-owner-last", "the same, the owner's GPU granted last (XLA's workaround)", case_grant_owner_last},
          {"host-location",
           "host-NUMA-location VMem exported as a POSIX fd, imported and mapped twice by every peer, each reading "
           "the owner's pattern",
           case_host_location},
          {"host-access-imported",
           "cuMemSetAccess with a Host location on a local, then an imported handle; the "
           "host reads the pattern",
           case_host_access_imported},
          {"imported-properties", "an imported handle's allocation type and location match the owner's handle's",
           case_imported_properties},
          {"pointer-info-imported", "the runtime's pointer query on this rank's own and on every imported mapping",
           case_pointer_info_imported},
          {"concurrent-map", "8 threads import, map, set access and read the previous rank's memory at the same time",
           case_concurrent_map},
          {"set-access-sizes", "set-access over allocations of sizes that are not powers of two, all kept",
           case_set_access_sizes},
          {"map-then-use",
           "200 fresh 64 MiB maps, each written by a kernel right after set-access; lost stores counted",
           case_map_then_use},
      },
      vmr_cuda::count_devices};
  return vmr::repro_main(binary, argc, argv);
}

// repro_hip_vmem_regressions: VMem IPC regressions ROCm users hit in 2026, each as a two-process case, with its CUDA
// twin in repro_cuda_vmm (the same case name and the same steps through the driver API).
//
//   import-close-fd       the importer closes its dma-buf fd right after hipMemImportFromShareableHandle (it owns
//                         the fd), then reserves, maps and sets access; where ROCr defers the per-GPU import to
//                         set-access time (rocm-systems PR #6471) it meets an fd that is gone
//   reexport-after-close  the owner exports, closes that fd, and exports the same allocation again for its peers;
//                         where ROCr keeps the first descriptor, the second export hands out a closed one (EBADF)
//   unmap-leak            create / map / set access / unmap / release cycles, each VA kept reserved, device memory and
//                         open fds counted before and after: from 7.2 each map also made a CPU mapping of the
//                         device that unmap never removed, so the memory came back only at hipMemAddressFree
//                         (rocm-systems PR #4363, backported by ROCm/mori)
//   handles-fd-limit      many handles under a low RLIMIT_NOFILE (one dma-buf fd held per handle caps VMem under
//                         the stock `ulimit -n`: rocm-systems#10604)
//   map-one-granule       one granule reserved, created, mapped and granted to its own GPU, then written and read:
//                         ROCm 7.14 userspace waits forever in hipMemSetAccess on an amdgpu DRM interface older than
//                         3.64 (rocm-systems#9820); HIP only (no export, nothing for the CUDA twin to compare)
#include <fcntl.h>
#include <hip/hip_runtime.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "amd/hip_memory_meter.h"
#include "amd/hip_rank.h"
#include "amd/hip_vmem.h"
#include "gpu/gpu_host.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"
#include "harness/open_fds.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using vmr::UniqueFd;
using namespace vmr_gpu;
using vmr_hip::Block;
using vmr_hip::Handle;
using vmr_hip::Mapping;
using vmr_hip::MemoryMeter;
using vmr_hip::Reservation;

constexpr hipMemAllocationType kType = hipMemAllocationTypePinned;

using RankState = vmr_hip::RankState;  // what describe() learns once per rank and every case reads

Status describe(RankContext& ctx, RankState* state) { return vmr_hip::describe_rank(ctx, kType, state); }

// --- cases (line for line as the regression cases of repro/cuda_vmm.cu) -----------------------------------------
// twin-begin(regressions): tests/twins.sh checks that these lines are repro/cuda_vmm.cu's regression cases but for
// API names.

constexpr size_t kRegressionBytes = size_t(4) << 20;

Status case_import_close_fd(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kRegressionBytes).bytes;
  Block own;
  UniqueFd fd;
  u64 own_sum = 0;
  VMR_TRY(owner_with_pattern(ctx, state.hip, size, &own, &fd, &own_sum));
  ctx.phase_done("setup");
  std::vector<Block> peers(ctx.ranks());
  VMR_TRY(ctx.mesh().share_fd(fd.get(), {}, [&](int j, int peer_fd, const std::string&) {
    Block& b = peers[j];
    UniqueFd mine(::dup(peer_fd));  // the importer's own fd, as an application that received it holds it
    if (!mine.valid()) return Status::harness(vmr::errno_text("dup of the received fd"));
    VMR_TRY(state.hip.import_fd(mine.get(), &b.mem));
    mine.reset();  // closed right after the import, before reserve, map and set access
    VMR_TRY(state.hip.reserve(size, &b.range));
    VMR_TRY(state.hip.map(b.range.va, size, b.mem, &b.map));
    return state.hip.grant_own(b.range.va, size);
  }));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass(
      "each peer closed its fd right after hipMemImportFromShareableHandle, then mapped, set "
      "access and read the owner's pattern exactly");
}

Status case_reexport_after_close(RankContext& ctx, const RankState& state) {
  const size_t size = read_plan(state.granule, kRegressionBytes).bytes;
  Block own;
  UniqueFd first;
  u64 own_sum = 0;
  VMR_TRY(owner_with_pattern(ctx, state.hip, size, &own, &first, &own_sum));
  first.reset();  // the first export's fd closed, as after a consumer that received it is done
  UniqueFd second;
  VMR_TRY(state.hip.export_fd(own.mem, &second));  // the same allocation exported again
  if (::fcntl(second.get(), F_GETFD) < 0) {
    const std::string why = vmr::errno_text("fcntl");  // before anything else can change errno
    return Status::fail("the second hipMemExportToShareableHandle returned success, but its fd " +
                        std::to_string(second.get()) + " is not open (" + why +
                        "): the runtime handed out the descriptor closed after the first export");
  }
  ctx.phase_done("setup");
  std::vector<Block> peers;
  VMR_TRY(exchange(ctx, state.hip, second, size, &peers));
  ctx.phase_done("exchange");
  VMR_TRY(verify_peer_reads(ctx, spans_of(peers), own_sum));
  ctx.phase_done("verify");
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass(
      "a second hipMemExportToShareableHandle after the first fd was closed gave an fd every peer "
      "imported and read exactly");
}

// Each cycle maps new memory into a reservation of its own, uses it, unmaps and releases it, and keeps the VA
// reserved, as an allocator that keeps its VA does; what the cycles leave behind is counted: this process's own
// device memory (gpu/process_memory.h decides which count may judge, and says which did) and open fds. (One
// reservation reused by every cycle would hide the 7.2 leak: each new map at the same VA replaces the mapping the last
// unmap left, freeing its memory.) VMR_SELFTEST_PLANT_LEAK=unmap-leak leaves each cycle's handle unreleased: the
// self-test that this case FAILs on a real leak.
constexpr int kLeakCycles = 16;
constexpr size_t kLeakBytes = size_t(64) << 20;

Status case_unmap_leak(RankContext& ctx, const RankState& state) {
  bool plant = false;
  VMR_TRY(plant_leak_switch(std::getenv(kPlantLeakVariable), "unmap-leak", &plant));
  if (plant)
    ctx.info("selftest_planted_leak",
             std::string(kPlantLeakVariable) + "=unmap-leak: each cycle's handle is left unreleased (a self-test)");
  const size_t size = read_plan(state.granule, kLeakBytes).bytes;
  std::vector<Reservation> ranges(kLeakCycles);  // every VA stays reserved to the end
  for (auto& range : ranges) VMR_TRY(state.hip.reserve(size, &range));
  MemoryMeter meter;
  VMR_TRY(meter.open(state));
  ctx.phase_done("setup");
  // Measured while no rank holds cycle memory (ranks may share a GPU): the barriers keep every rank's cycles out
  // of every other rank's two readings.
  size_t fds_before = 0, fds_after = 0;
  LeakReadings mem;
  VMR_TRY(ctx.mesh().barrier("before-cycles"));
  VMR_TRY(vmr::count_open_fds(&fds_before));
  VMR_TRY(meter.read(&mem.process_before, &mem.device_free_before));
  VMR_TRY(ctx.mesh().barrier("measured-before"));
  for (int cycle = 0; cycle < kLeakCycles; ++cycle) {
    Handle mem_handle;
    Mapping map;
    VMR_TRY(state.hip.create(size, &mem_handle));
    VMR_TRY(state.hip.map(ranges[cycle].va, size, mem_handle, &map));
    VMR_TRY(state.hip.grant_own(ranges[cycle].va, size));
    VMR_TRY(write_and_check(map.span(), cycle, "cycle " + std::to_string(cycle)));
    if (cycle == 0) mem.process_held = meter.process();  // proof that the count sees this process's VMem
    VMR_TRY(state.hip.unmap(&map));       // checked; the Handle's release follows at the end of the cycle
    if (plant) mem_handle.valid = false;  // the planted leak: never released (the process's exit frees it)
  }
  VMR_TRY(ctx.mesh().barrier("cycled"));
  VMR_TRY(vmr::count_open_fds(&fds_after));
  VMR_TRY(meter.read(&mem.process_after, &mem.device_free_after));
  mem.others = meter.others();
  ctx.phase_done("run");
  const MemoryDecision kept = judge_device_memory(meter.source(), mem, size, kLeakCycles);
  const long long fds = (long long)fds_after - (long long)fds_before;
  ctx.info("unmap_cycles_left", std::to_string(kept.kept_bytes >> 20) + " MiB of device memory and " +
                                    std::to_string(fds) + " fds over " + std::to_string(kLeakCycles) + " cycles of " +
                                    std::to_string(size >> 20) + " MiB");
  ctx.info("device_memory_source", kept.source + ": " + kept.why);
  VMR_TRY(ctx.mesh().barrier("measured-after"));
  const std::string planted = plant ? " (leak planted by " + std::string(kPlantLeakVariable) + ", a self-test)" : "";
  if (kept.judgement == MemoryJudgement::Kept)
    return Status::fail("device memory not returned after hipMemUnmap + hipMemRelease while the VA stays reserved: " +
                        std::to_string(kLeakCycles) + " cycles of " + std::to_string(size >> 20) + " MiB left " +
                        std::to_string(kept.kept_bytes >> 20) + " MiB in use, by " + kept.source + " (" + kept.why +
                        ")" + planted);
  if (fds >= kLeakCycles / 2)
    return Status::fail(std::to_string(kLeakCycles) + " map / unmap / release cycles left " + std::to_string(fds) +
                        " more fds open (" + std::to_string(fds_before) + " -> " + std::to_string(fds_after) + ")");
  if (kept.judgement == MemoryJudgement::Undecided)
    return Status::skip("whether " + std::to_string(kLeakCycles) + " cycles of " + std::to_string(size >> 20) +
                        " MiB returned their device memory is undecided: " + kept.why + planted);
  return Status::pass(std::to_string(kLeakCycles) + " create / map / unmap / release cycles of " +
                      std::to_string(size >> 20) + " MiB, each VA kept reserved: device memory back (" +
                      std::to_string(kept.kept_bytes >> 20) + " MiB apart, by " + kept.source + "), open fds " +
                      std::to_string(fds_before) + " -> " + std::to_string(fds_after) + planted);
}

// Each rank creates kHandles one-granule handles with at most kFdHeadroom more fds allowed than it holds.
constexpr int kHandles = 256, kFdHeadroom = 64;

Status case_handles_fd_limit(RankContext& ctx, const RankState& state) {
  size_t open = 0;
  VMR_TRY(vmr::count_open_fds(&open));
  rlimit old{};
  if (::getrlimit(RLIMIT_NOFILE, &old) != 0) return Status::harness(vmr::errno_text("getrlimit(RLIMIT_NOFILE)"));
  rlimit low = old;
  low.rlim_cur = std::min<rlim_t>(old.rlim_cur, open + kFdHeadroom);
  if (::setrlimit(RLIMIT_NOFILE, &low) != 0) return Status::harness(vmr::errno_text("setrlimit(RLIMIT_NOFILE)"));
  const auto restore_limit = [&] { (void)::setrlimit(RLIMIT_NOFILE, &old); };
  vmr::ScopeExit restore(restore_limit);
  ctx.phase_done("setup");
  std::vector<Handle> handles(kHandles);
  int created = 0;  // how many were made before the first refusal, if any
  bool refused = false;
  std::string refusal;
  for (; created < kHandles; ++created) {
    const Status made = state.hip.create(state.granule, &handles[created]);
    if (!made.ok()) {
      refused = true;
      refusal = made.detail;
      break;
    }
  }
  restore_limit();  // before counting: with every fd slot taken, listing /proc/self/fd fails (EMFILE)
  size_t held = 0;
  VMR_TRY(vmr::count_open_fds(&held));
  ctx.phase_done("run");
  ctx.info("open_fds_with_handles",
           std::to_string(open) + " -> " + std::to_string(held) + " with " + std::to_string(created) + " handles");
  VMR_TRY(ctx.mesh().barrier("created"));
  if (refused)
    return Status::fail("handle " + std::to_string(created + 1) + " of " + std::to_string(kHandles) + " (" +
                        std::to_string(state.granule) + " bytes each) with RLIMIT_NOFILE " +
                        std::to_string(low.rlim_cur) + " and " + std::to_string(open) + " fds open: " + refusal);
  return Status::pass(std::to_string(kHandles) + " handles created under RLIMIT_NOFILE " +
                      std::to_string(low.rlim_cur) + "; open fds " + std::to_string(open) + " -> " +
                      std::to_string(held));
}

// twin-end(regressions)

// rocm-systems#9820's own reproducer, in each rank alone: the grant is the call that waits forever where 7.14's
// libhsakmt waits for a GEM_VA timeline point an amdgpu DRM interface older than 3.64 never signals. The describe
// step reported the interface (amdgpu_drm_version) and hang_context before its own first grant, so a HANG here, or
// in describe, names it (harness/rank_record.h).
Status case_map_one_granule(RankContext& ctx, const RankState& state) {
  Block own;
  VMR_TRY(state.hip.create(state.granule, &own.mem));
  VMR_TRY(state.hip.reserve(state.granule, &own.range));
  VMR_TRY(state.hip.map(own.range.va, state.granule, own.mem, &own.map));
  ctx.phase_done("setup");
  VMR_TRY(state.hip.set_access(own.range.va, state.granule, {ctx.device()}));
  ctx.phase_done("run");
  VMR_TRY(write_and_check(own.span(), ctx.rank(), "one granule after hipMemSetAccess"));
  ctx.phase_done("verify");
  return Status::pass("one granule (" + std::to_string(state.granule) +
                      " bytes) mapped, granted to its own GPU and read back exactly");
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      "repro_hip_vmem_regressions",
      "hip",
      describe,
      {
          {"import-close-fd", "each peer closes its fd right after the import, then maps, sets access and reads",
           case_import_close_fd},
          {"reexport-after-close", "the owner exports, closes the fd, exports again; peers import the second fd",
           case_reexport_after_close},
          {"unmap-leak", "create / map / unmap / release cycles, each VA kept reserved; device memory and fds counted",
           case_unmap_leak},
          {"handles-fd-limit", "256 one-granule handles under RLIMIT_NOFILE of the open fds + 64",
           case_handles_fd_limit},
          {"map-one-granule", "one granule mapped and granted to its own GPU, then written and read (#9820's hang)",
           case_map_one_granule},
      },
      vmr_amd::count_devices};
  return vmr::repro_main(binary, argc, argv);
}

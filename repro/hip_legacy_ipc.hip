// repro_hip_legacy_ipc: legacy HIP IPC on hipMalloc memory, the baseline a maintainer asks about first ("does
// hipIpcGetMemHandle work on this node?") and what PyTorch and vLLM share memory with.
//
//   owner: hipMalloc -> fill its pattern -> hipIpcGetMemHandle (behind gpu/legacy_ipc.h's two locks)
//          -> the 64-byte handle to every peer over the control channel (data, no fd)
//   peer:  hipIpcOpenMemHandle(hipIpcMemLazyEnablePeerAccess) -> read every word / system-scope atomics
//
// At 256 MiB and at 2 GiB + one granule per rank (rocm-systems#4114: ROCr's dma-buf IPC server kept each export's
// length in an int, so above 2 GiB it could not export the fd and the importer hung; fixed by rocm-systems PRs #1945
// on develop and #1999 for 7.2). Each case also runs under HSA_ENABLE_IPC_MODE_LEGACY=1 (the `-legacy-mode` twins,
// rocm-systems#2209: hipIpcGetMemHandle answers hipErrorInvalidValue with it, and vLLM's images set it): ROCr reads
// the variable once, at start (rocr-runtime 6.4.3 core/util/flag.h:244-245: any value but "0" means the KFD IPC
// ioctls, "Legacy mode by default"), so the launcher starts the ranks with it (harness/case_environment.h); the
// other cases start with it removed, so they test the runtime's own default whatever the caller's shell holds. The
// legacy mode exports through AMDKFD_IOC_IPC_EXPORT_HANDLE, which libhsakmt lists among the "non-upstream ioctls"
// (rocr-runtime 6.4.3 libhsakmt/include/hsakmt/linux/kfd_ioctl.h:1730-1736, src/fmm.c:3905): only the amdgpu
// DKMS driver has it.
#include <hip/hip_runtime.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "amd/amd_env.h"
#include "amd/hip_legacy_ipc.h"
#include "amd/hip_read_bandwidth.h"
#include "amd/hip_vmem.h"
#include "amd/hsa_api.h"
#include "gpu/gpu_host.h"
#include "gpu/legacy_ipc_vmem_guard.h"
#include "gpu/size_plans.h"
#include "gpu/size_rounds.h"
#include "gpu/vmem_share.h"
#include "harness/harness.h"
#include "harness/read_direction.h"

namespace {

using vmr::RankContext;
using vmr::Status;
using namespace vmr_gpu;

constexpr const char* kBinary = "repro_hip_legacy_ipc";
constexpr const char* kLegacyVariable = "HSA_ENABLE_IPC_MODE_LEGACY";
constexpr const char* kDefaultMode = "HSA_ENABLE_IPC_MODE_LEGACY";   // removed: the runtime's own default
constexpr const char* kLegacyMode = "HSA_ENABLE_IPC_MODE_LEGACY=1";  // rocm-systems#2209, vLLM's images
constexpr size_t kSmall = size_t(256) << 20;
constexpr size_t kLarge = (size_t(2) << 30);  // + one granule (size_plans.h size_step)

struct RankState {
  vmr_amd::Env amd;
  size_t granule = 0;  // the granule of the pool hipMalloc takes device memory from (ROCr's coarse pool)
};

Status describe(RankContext& ctx, RankState* state) {
  const char* mode = std::getenv(kLegacyVariable);
  ctx.info("hsa_enable_ipc_mode_legacy", mode ? mode : "(unset)");  // as this rank's ROCr reads it
  VMR_TRY(vmr_amd::describe_rank(ctx, &state->amd));
  // The guard asks ROCr whether a pointer is VMem (amd/hip_legacy_ipc.h). A ROCr without the whole vmem API (before
  // ROCm 6.0) has no VMem at all: the legacy cases still run there, the guard saying so ("no VMem API").
  const Status vmem_api = vmr_hsa::load_api();
  if (vmem_api.verdict == vmr::Verdict::Skip) {
    vmr_hsa::api.hsa_amd_vmem_get_access = nullptr;  // only a whole API counts
    ctx.info("hsa_vmem_api", vmem_api.detail);
  } else {
    VMR_TRY(vmem_api);
  }
  vmr_hip::PlainBackend::agent = state->amd.agent;
  state->granule = state->amd.pools.coarse ? state->amd.pools.coarse->granule : 0;
  if (state->granule == 0) state->granule = 4096;  // ROCr's allocation granule is the page (amd_memory_region.cpp)
  ctx.info("plain_granularity", std::to_string(state->granule));
  return Status::pass();
}

// The step's plan, and SKIP (every rank the same) naming the size where some rank's GPU cannot hold it.
Status plan_step(RankContext& ctx, const RankState& state, size_t bytes, const std::string& key,
                 const std::string& label, SizeStep* step) {
  *step = size_step(state.granule, bytes, key, label, AtomicsRound::kCounters);
  const std::string problem = plan_problem(step->plan, state.granule);
  if (!problem.empty()) return Status::harness("suite bug: " + label + " plan: " + problem);
  return agree_fit(ctx, label, step->plan.bytes);
}

// Every rank's hipMalloc memory, filled with its pattern and exported; peers[j] is rank j's, opened here.
Status share(RankContext& ctx, const SizeStep& step, vmr_hip::PlainMemory* own, std::vector<vmr_hip::IpcMapping>* peers,
             u64* own_sum) {
  VMR_TRY(own->allocate(step.plan.bytes));
  VMR_TRY(fill_pattern(own->span(), ctx.rank(), "the owner's hipMalloc memory"));
  VMR_TRY(checksum(own->span(), own_sum));
  hipIpcMemHandle_t handle{};
  VMR_TRY(vmr_gpu::legacy_ipc_export(own->allocation(), &handle));
  ctx.phase_done("setup");
  std::vector<std::string> handles;
  VMR_TRY(ctx.mesh().all_gather(handle_text(handle), &handles));
  *peers = std::vector<vmr_hip::IpcMapping>(ctx.ranks());
  for (int j = 0; j < ctx.ranks(); ++j) {
    if (j == ctx.rank()) continue;
    hipIpcMemHandle_t theirs{};
    VMR_TRY(handle_from_text(handles[j], &theirs));
    VMR_TRY((*peers)[j].open(theirs, step.plan.bytes));
  }
  VMR_TRY(ctx.mesh().barrier("opened"));  // no owner frees before every peer opened
  ctx.phase_done("exchange");
  return Status::pass();
}

std::vector<Span> spans_of_mappings(const std::vector<vmr_hip::IpcMapping>& peers) {
  std::vector<Span> out;
  for (const auto& m : peers) out.push_back(m.span());
  return out;
}

Status read_case(RankContext& ctx, const RankState& state, size_t bytes, const std::string& key,
                 const std::string& label) {
  SizeStep step;
  VMR_TRY(plan_step(ctx, state, bytes, key, label, &step));
  vmr_hip::PlainMemory own;
  std::vector<vmr_hip::IpcMapping> peers;
  u64 own_sum = 0;
  VMR_TRY(share(ctx, step, &own, &peers, &own_sum));
  VMR_TRY(verify_peer_reads(ctx, spans_of_mappings(peers), own_sum));
  VMR_TRY(probe_round(ctx, own.span(), spans_of_mappings(peers), step.probe_words));
  ctx.phase_done("verify");
  // Kernel and copy-engine read bandwidth of the source rank's memory, in the metrics every read case reports.
  VMR_TRY(vmr_hip::peer_read_bandwidth(ctx, spans_of_mappings(peers)[vmr::read_source_rank(ctx.rank(), ctx.ranks())]));
  VMR_TRY(ctx.mesh().barrier("read-done"));
  return Status::pass(label +
                      " of hipMalloc memory per rank, shared by hipIpcGetMemHandle, read exactly by every "
                      "peer; " +
                      std::to_string(step.probe_words.size()) + " probe words written and read back");
}

Status atomics_case(RankContext& ctx, const RankState& state, size_t bytes, const std::string& key,
                    const std::string& label) {
  SizeStep step;
  VMR_TRY(plan_step(ctx, state, bytes, key, label, &step));
  vmr_hip::PlainMemory own;
  std::vector<vmr_hip::IpcMapping> peers;
  u64 own_sum = 0;
  VMR_TRY(share(ctx, step, &own, &peers, &own_sum));
  AtomicsRound sys;
  VMR_TRY(atomics_across(ctx, own.span(), spans_of_mappings(peers), step, "remote_system_atomics_per_s", &sys));
  ctx.phase_done("run");
  VMR_TRY(ctx.mesh().barrier("atomics-done"));
  return Status::pass("system-scope atomics into peers' hipMalloc memory (" + label + ", counters from byte " +
                      std::to_string(step.counters_first * sizeof(u64)) + ") exact: " + std::to_string(sys.expect) +
                      " per counter");
}

std::string large_label(const RankState& state) {
  return "2 GiB + 1 granule (" + std::to_string(state.granule) + " bytes)";
}

Status read_256m(RankContext& ctx, const RankState& s) { return read_case(ctx, s, kSmall, "256m", "256 MiB"); }
Status atomics_256m(RankContext& ctx, const RankState& s) { return atomics_case(ctx, s, kSmall, "256m", "256 MiB"); }
Status read_2g(RankContext& ctx, const RankState& s) {
  return read_case(ctx, s, kLarge + s.granule, "2g", large_label(s));
}
Status atomics_2g(RankContext& ctx, const RankState& s) {
  return atomics_case(ctx, s, kLarge + s.granule, "2g", large_label(s));
}

// The guard itself on this runtime (gpu/legacy_ipc_vmem_guard.h, the twin of repro_cuda_legacy_ipc's): what ROCr says
// of a VMem mapping and of hipMalloc memory, and legacy_ipc_export_check refusing the first and passing the second;
// no IPC call is made. It needs VMem (describe_vmem: ROCm 6.2 and a GPU with VMM, else SKIP with the reason).
Status vmem_guard(RankContext& ctx, const RankState& state) {
  vmr_hip::Session session;
  VMR_TRY(vmr_hip::describe_vmem(ctx, state.amd, &session));
  const vmr_hip::Vmem vmem{&session, ctx.device(), hipMemAllocationTypePinned};
  size_t g = 0;
  VMR_TRY(vmr_hip::granularity(ctx.device(), vmem.type, &g));
  vmr_hip::Block mapped;
  VMR_TRY(map_own(vmem, g, &mapped));
  return legacy_ipc_vmem_guard<vmr_hip::PlainBackend>(ctx, mapped, g);
}

}  // namespace

int main(int argc, char** argv) {
  static const vmr::Binary<RankState> binary{
      kBinary,
      "hip",
      describe,
      {
          {"read-256m", "every peer reads each owner's 256 MiB of hipMalloc memory through legacy IPC", read_256m, 0,
           kDefaultMode},
          {"atomics-256m", "every peer adds at system scope into each owner's 256 MiB through legacy IPC", atomics_256m,
           0, kDefaultMode},
          {"read-2g", "as read-256m at 2 GiB + 1 granule, words past 2^31 bytes written and read back (#4114)", read_2g,
           0, kDefaultMode},
          {"atomics-2g", "as atomics-256m at 2 GiB + 1 granule, the counters across 2^31 bytes (#4114)", atomics_2g, 0,
           kDefaultMode},
          {"read-256m-legacy-mode", "read-256m with HSA_ENABLE_IPC_MODE_LEGACY=1 (#2209)", read_256m, 0, kLegacyMode},
          {"atomics-256m-legacy-mode", "atomics-256m with HSA_ENABLE_IPC_MODE_LEGACY=1 (#2209)", atomics_256m, 0,
           kLegacyMode},
          {"read-2g-legacy-mode", "read-2g with HSA_ENABLE_IPC_MODE_LEGACY=1 (#2209)", read_2g, 0, kLegacyMode},
          {"atomics-2g-legacy-mode", "atomics-2g with HSA_ENABLE_IPC_MODE_LEGACY=1 (#2209)", atomics_2g, 0,
           kLegacyMode},
          {"vmem-guard",
           "the legacy IPC guard on this runtime: refuses a VMem mapping, passes hipMalloc memory (no IPC "
           "call)",
           vmem_guard, 0, kDefaultMode},
      },
      vmr_amd::count_devices};
  return vmr::repro_main(binary, argc, argv);
}

// The vmem-guard case of the legacy IPC binaries (repro_hip_legacy_ipc, repro_cuda_legacy_ipc), written once over the
// backend of gpu/legacy_ipc.h: the run-time lock shown on this node's runtime, with no IPC call made.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>

#include "gpu/legacy_ipc.h"
#include "gpu/legacy_ipc_memory.h"
#include "harness/rank_context.h"
#include "harness/status.h"

namespace vmr_gpu {

// What Backend::ipc_pointer_facts says of `vmem` (a VMem block this rank mapped, map_own in gpu/vmem_share.h) and of
// `bytes` of the backend's plain memory, each as a fact of the rank ("legacy_ipc_on_vmem", "legacy_ipc_on_cudamalloc"),
// and legacy_ipc_export_check's decision on each: PASS when it refuses the VMem and passes the plain memory; a guard
// that lets the VMem through is the suite's bug (HARNESS), and one that refuses the plain memory says why (HARNESS:
// it would refuse every legacy IPC case here).
template <class Backend, class Block>
vmr::Status legacy_ipc_vmem_guard(vmr::RankContext& ctx, const Block& vmem, size_t bytes) {
  typename Backend::PlainAllocator plain;
  VMR_TRY(plain.allocate(bytes));
  ctx.phase_done("setup");
  const IpcPointerFacts on_vmem = Backend::ipc_pointer_facts(vmem.ptr());
  const IpcPointerFacts on_plain = Backend::ipc_pointer_facts(plain.allocation().ptr());
  const std::string plain_call = Backend::kPlainMallocCall;
  std::string plain_fact = "legacy_ipc_on_";
  for (char c : plain_call) plain_fact += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  ctx.info("legacy_ipc_on_vmem", on_vmem.vmem_query + "; " + on_vmem.capable_query);
  ctx.info(plain_fact, on_plain.vmem_query + "; " + on_plain.capable_query);
  const vmr::Status vmem_check = legacy_ipc_export_check(on_vmem, Backend::kIpcExportCall);
  const vmr::Status plain_check = legacy_ipc_export_check(on_plain, Backend::kIpcExportCall);
  ctx.phase_done("run");
  if (vmem_check.verdict != vmr::Verdict::Harness)
    return vmr::Status::harness("suite bug: the legacy IPC guard lets a VMem mapping through (" + on_vmem.vmem_query +
                                "; " + on_vmem.capable_query + ")");
  if (!plain_check.ok()) return plain_check;
  return vmr::Status::pass("the guard refuses a VMem mapping (" + on_vmem.vmem_query + "; " + on_vmem.capable_query +
                           ") and passes " + plain_call + " memory (" + on_plain.vmem_query + "; " +
                           on_plain.capable_query + "); no IPC call made");
}

}  // namespace vmr_gpu

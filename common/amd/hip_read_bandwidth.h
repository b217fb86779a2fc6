// The HIP read cases' bandwidth figures (gpu/read_bandwidth.h: the metrics of the CUDA read case, same names and
// units): a kernel's read of the source rank's mapping and a copy-engine copy of it, each timed with HIP events.
// Any HIP read case calls vmr_hip::peer_read_bandwidth(ctx, src) once its reads are verified: the VMem read of
// repro/hip_vmem_pinned_uncached.hip, and the legacy IPC read cases, whose hipIpcOpenMemHandle mappings CLR knows as
// well.
#pragma once

#include <hip/hip_runtime.h>

#include "gpu/read_bandwidth.h"

namespace vmr_hip {

// hipMemcpyDeviceToDeviceNoCU is 1024 in the 6.x and 7.x headers (driver_types.h); 5.2's does not name it, so a
// binary built there passes the number (its runtime refuses it, and no VMem case runs before 6.2 anyway).
constexpr int kMemcpyDeviceToDeviceNoCU = 1024;
template <class E>
constexpr auto header_memcpy_no_cu(int) -> decltype(int(E::hipMemcpyDeviceToDeviceNoCU)) {
  return int(E::hipMemcpyDeviceToDeviceNoCU);
}
template <class E>
constexpr int header_memcpy_no_cu(long) {
  return kMemcpyDeviceToDeviceNoCU;
}
static_assert(header_memcpy_no_cu<hipMemcpyKind>(0) == kMemcpyDeviceToDeviceNoCU,
              "hipMemcpyDeviceToDeviceNoCU moved: update kMemcpyDeviceToDeviceNoCU");

// The copy path, said once for the fact peer_read_copy_path. CLR turns this kind into a copy command whose engine
// preference is SDMA where source and destination are memory of one device, as a mapping of imported memory is in
// the importer (clr rocm-6.2.0 hipamd/src/hip_memory.cpp:447-479): the copy engines, as CUDA's copy figure.
inline constexpr const char* kCopyPath =
    "hipMemcpy(DeviceToDeviceNoCU) into a hipMalloc buffer: CLR asks for the SDMA engines (hip_memory.cpp:475-477 "
    "at clr rocm-6.2.0)";

// Measures the reads of `src` (the mapping of read_source_rank's memory in this rank) in turns and reports the
// facts and metrics (gpu/read_bandwidth.h). Every rank must call it: the turns are barriers.
inline vmr::Status peer_read_bandwidth(vmr::RankContext& ctx, const vmr_gpu::Span& src) {
  vmr_gpu::ReadBandwidth bw;
  const vmr_gpu::CopyOnce copy = [](const vmr_gpu::Span& from, const vmr_gpu::Span& into) {
    return vmr_gpu::gpu_check("hipMemcpy(DeviceToDeviceNoCU)",
                              hipMemcpy(into.p, from.p, from.words * sizeof(vmr_gpu::u64),
                                        static_cast<hipMemcpyKind>(kMemcpyDeviceToDeviceNoCU)));
  };
  VMR_TRY(vmr_gpu::measure_peer_read(ctx, src, kCopyPath, copy, "", &bw));
  vmr_gpu::report_read_bandwidth(ctx, bw);
  return vmr::Status::pass();
}

}  // namespace vmr_hip

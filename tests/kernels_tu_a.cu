// Two translation units that both include the shared GPU headers (with kernels_tu_b.cu). The kernels of
// gpu/gpu_kernels.h must have internal linkage, or the link fails (multiple definitions); the helpers of
// gpu/gpu_host.h too, or the two TUs share one copy of an inline helper that launches one TU's kernel (a silent
// one-definition violation), which main finds by comparing their addresses. Each TU takes the kernel's address, so
// the compiler emits the kernel and its registration. Built by nvcc and, as .hip copies, by hipcc
// (tests/CMakeLists.txt); main does not touch a GPU.
#include "gpu/gpu_host.h"

const void* kernel_of_tu_a() { return reinterpret_cast<const void*>(&vmr_gpu::k_zero); }
const void* helper_of_tu_a() { return reinterpret_cast<const void*>(&vmr_gpu::zero_words); }

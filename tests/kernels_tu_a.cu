// Two translation units that both include the shared GPU headers (with kernels_tu_b.cu): the binary links only
// while the kernels of gpu/gpu_kernels.h and the helpers of gpu/gpu_host.h have internal linkage, so a header
// change that breaks the one-definition rule fails the build. Each TU takes a kernel's address, so the compiler
// emits the kernel and its registration (an unused kernel would leave nothing to collide). Built by nvcc and, as
// .hip copies, by hipcc (tests/CMakeLists.txt); main does not touch a GPU.
#include "gpu/gpu_host.h"

const void* kernel_of_tu_a() { return reinterpret_cast<const void*>(&vmr_gpu::k_zero); }

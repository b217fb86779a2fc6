// Two translation units that both include the shared kernels (with kernels_tu_b.cu): the binary links only while
// every kernel of gpu/gpu_kernels.h has internal linkage, so a header change that breaks the one-definition rule
// fails the build. Built by nvcc and, as .hip copies, by hipcc (tests/CMakeLists.txt).
#include "gpu/gpu_kernels.h"

int kernels_tu_a() { return vmr_gpu::pattern_word(1, 2) == vmr_gpu::pattern_word(1, 2) ? 0 : 1; }

// The second translation unit of the one-definition check (see kernels_tu_a.cu): its k_zero is its own.
#include "gpu/gpu_host.h"

const void* kernel_of_tu_a();

int main() { return kernel_of_tu_a() == reinterpret_cast<const void*>(&vmr_gpu::k_zero) ? 1 : 0; }

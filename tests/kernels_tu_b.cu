// The second translation unit of the one-definition check (see kernels_tu_a.cu): its kernel and helper are its own.
#include <cstdio>

#include "gpu/gpu_host.h"

const void* kernel_of_tu_a();
const void* helper_of_tu_a();

int main() {
  if (kernel_of_tu_a() == reinterpret_cast<const void*>(&vmr_gpu::k_zero)) {
    std::puts("both translation units launch one k_zero: gpu_kernels.h lost its internal linkage");
    return 1;
  }
  if (helper_of_tu_a() == reinterpret_cast<const void*>(&vmr_gpu::zero_words)) {
    std::puts("both translation units share one zero_words: gpu_host.h lost its internal linkage");
    return 1;
  }
  return 0;
}

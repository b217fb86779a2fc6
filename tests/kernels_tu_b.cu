// The second translation unit of the one-definition check (see kernels_tu_a.cu); main does not touch a GPU.
#include "gpu/gpu_kernels.h"

int kernels_tu_a();

int main() { return kernels_tu_a(); }

// A stand-in for another process on the same GPU (a second test under `ctest -j`, another job): it allocates and
// frees device memory in a loop, so that the GPU's free memory jumps by gigabytes while a leak case counts. Used by
// the device checks of the per-process count (issue 34); needs a GPU, so no CTest test runs it.
//   gpu_neighbour_cuda DEVICE SECONDS [MIB]     (MIB: the largest block, default 4096)
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s DEVICE SECONDS [MIB]\n", argv[0]);
    return 2;
  }
  const int device = std::atoi(argv[1]);
  const double seconds = std::atof(argv[2]);
  const size_t largest = size_t(argc > 3 ? std::atol(argv[3]) : 4096) << 20;
  if (cudaSetDevice(device) != cudaSuccess) {
    std::fprintf(stderr, "gpu_neighbour: cudaSetDevice(%d) failed\n", device);
    return 1;
  }
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  unsigned long rounds = 0, failed = 0;
  for (unsigned step = 0; std::chrono::steady_clock::now() < end; ++step) {
    // 1/4, 2/4, 3/4, 4/4 of the largest block, held 5 to 40 ms, then freed and idle as long.
    const size_t bytes = largest / 4 * (1 + step % 4);
    void* p = nullptr;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
      ++failed;
      (void)cudaGetLastError();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    (void)cudaMemset(p, 0, bytes);  // touched, as a real job's memory is
    (void)cudaDeviceSynchronize();
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * (step % 8)));
    (void)cudaFree(p);
    ++rounds;
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + 5 * ((step + 3) % 8)));
  }
  std::printf("gpu_neighbour: %lu allocate / free rounds of up to %zu MiB on device %d, %lu refused\n", rounds,
              largest >> 20, device, failed);
  return 0;
}

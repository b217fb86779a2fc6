// Minimal reproducer from vmem-repro (legacy IPC, what PyTorch and vLLM share GPU memory with): the owner's hipMalloc
// memory goes to a second process through hipIpcGetMemHandle / hipIpcOpenMemHandle; the peer adds into it with
// system-scope atomics (or, with -DREAD, reads every word). rocm-systems#2209: with HSA_ENABLE_IPC_MODE_LEGACY=1
// (-DLEGACY, vLLM's images set it) hipIpcGetMemHandle answers hipErrorInvalidValue; rocm-systems#4114: over 2 GB
// (-DBIG: 2 GiB + 2 MiB, words past byte 2^31) the dma-buf IPC path hung. Without -DLEGACY the variable is removed,
// so the runtime's own default is what runs. hipMalloc memory only: never hand legacy IPC a VMem address (clr#265).
// suite case: repro_hip_legacy_ipc.atomics-256m
// variant READ: repro_hip_legacy_ipc.read-256m
// variant BIG: repro_hip_legacy_ipc.atomics-2g
// variant BIG_READ: repro_hip_legacy_ipc.read-2g
// variant LEGACY: repro_hip_legacy_ipc.atomics-256m-legacy-mode
// variant LEGACY_READ: repro_hip_legacy_ipc.read-256m-legacy-mode
// variant LEGACY_BIG: repro_hip_legacy_ipc.atomics-2g-legacy-mode
// variant LEGACY_BIG_READ: repro_hip_legacy_ipc.read-2g-legacy-mode
// build: hipcc -O2 -std=c++17 -o hip_legacy_ipc hip_legacy_ipc.hip
// run:   ./hip_legacy_ipc [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <hip/hip_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#if defined(READ) || defined(BIG_READ) || defined(LEGACY_READ) || defined(LEGACY_BIG_READ)
static const bool kRead = true;
#else
static const bool kRead = false;
#endif
#if defined(BIG) || defined(BIG_READ) || defined(LEGACY_BIG) || defined(LEGACY_BIG_READ)
static constexpr size_t kBytes = (size_t(2) << 30) + (size_t(2) << 20);
#else
static constexpr size_t kBytes = size_t(256) << 20;
#endif
#if defined(LEGACY) || defined(LEGACY_READ) || defined(LEGACY_BIG) || defined(LEGACY_BIG_READ)
static const bool kLegacyMode = true;
#else
static const bool kLegacyMode = false;
#endif
static constexpr size_t kWords = kBytes / 8, kCounters = 1024,
                        kAdds = 64;  // counters: the last words, past 2^31 if BIG

static void check(hipError_t e, const char* call) {  // _exit: no runtime teardown can turn this FAIL into a crash
  if (e != hipSuccess)
    std::printf("VERDICT: FAIL hip_legacy_ipc %s returned %s\n", call, hipGetErrorName(e)), std::fflush(stdout),
        _exit(1);
}
#define HIP_CHECK(call) check((call), #call)

__device__ __host__ unsigned long long pattern(size_t i) { return i * 0x9E3779B97F4A7C15ull ^ 0x5a5aull; }
__global__ void k_fill(unsigned long long* p, size_t n) {  // the pattern, then the counters zeroed
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = i < n - kCounters ? pattern(i) : 0;
}
__global__ void k_verify(const unsigned long long* p, size_t n, unsigned long long* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n - kCounters; i += size_t(gridDim.x) * blockDim.x)
    if (p[i] != pattern(i)) atomicAdd(bad, 1ull);
}
__global__ void k_add(unsigned long long* c, unsigned long long adds) {
  unsigned long long t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned long long k = 0; k < adds; ++k) atomicAdd_system(&c[(t + k) % kCounters], 1ull);
}

// The peer: receive the handle, open it, read every word or add into the counters, close it.
static int peer(int sock, int device) {
  hipIpcMemHandle_t handle;
  if (read(sock, &handle, sizeof handle) != ssize_t(sizeof handle)) return 99;
  HIP_CHECK(hipSetDevice(device));
  void* va = nullptr;
  HIP_CHECK(hipIpcOpenMemHandle(&va, handle, hipIpcMemLazyEnablePeerAccess));
  unsigned long long* p = static_cast<unsigned long long*>(va);
  if (kRead) {
    unsigned long long *bad = nullptr, got = 0;
    HIP_CHECK(hipMalloc(&bad, sizeof got));
    HIP_CHECK(hipMemset(bad, 0, sizeof got));
    k_verify<<<1024, 256>>>(p, kWords, bad);
    HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not a wrong read
    HIP_CHECK(hipMemcpy(&got, bad, sizeof got, hipMemcpyDeviceToHost));
    if (got != 0)
      return std::printf("VERDICT: FAIL hip_legacy_ipc %llu of %zu words differ from the owner's pattern\n", got,
                         kWords - kCounters),
             1;
  } else {
    k_add<<<264, 256>>>(p + kWords - kCounters, kAdds);
    HIP_CHECK(hipGetLastError());
    HIP_CHECK(hipDeviceSynchronize());
  }
  HIP_CHECK(hipIpcCloseMemHandle(va));
  return write(sock, "d", 1) == 1 ? 0 : 99;
}

static int run(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--peer") == 0) return peer(std::atoi(argv[2]), std::atoi(argv[3]));
  // Before the runtime reads it (the peer inherits it through execl).
  if (kLegacyMode ? setenv("HSA_ENABLE_IPC_MODE_LEGACY", "1", 1) : unsetenv("HSA_ENABLE_IPC_MODE_LEGACY")) return 99;
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || count == 0)
    return std::printf("VERDICT: SKIP hip_legacy_ipc no AMD GPU\n"), 77;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  std::printf("devices: %d,%d  HSA_ENABLE_IPC_MODE_LEGACY %s\n", owner, other, kLegacyMode ? "=1" : "unset");
  HIP_CHECK(hipSetDevice(owner));
  size_t free_bytes = 0, total = 0;
  HIP_CHECK(hipMemGetInfo(&free_bytes, &total));
  if (free_bytes < 2 * kBytes + (size_t(1) << 30))  // both ranks may share the GPU
    return std::printf("VERDICT: SKIP hip_legacy_ipc %zu bytes free on GPU %d, too few\n", free_bytes, owner), 77;
  unsigned long long* p = nullptr;
  HIP_CHECK(hipMalloc(&p, kBytes));
  k_fill<<<1024, 256>>>(p, kWords);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  hipIpcMemHandle_t handle;
  check(hipIpcGetMemHandle(&handle, p), "hipIpcGetMemHandle");
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[2][16];
    std::snprintf(a[0], 16, "%d", sv[1]), std::snprintf(a[1], 16, "%d", other);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);  // so that a peer that dies ends the read below
  if (peer_pid < 0 || write(sv[0], &handle, sizeof handle) != ssize_t(sizeof handle)) return 99;
  char done = 0;
  const bool finished = read(sv[0], &done, 1) == 1;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return std::printf("VERDICT: CRASH hip_legacy_ipc the peer (GPU %d) was killed by signal %d (%s)\n", other,
                       WTERMSIG(status), strsignal(WTERMSIG(status))),
           3;
  if (!finished || WEXITSTATUS(status) != 0)
    return std::printf("VERDICT: FAIL hip_legacy_ipc the peer exited %d (its line above says why)\n",
                       WEXITSTATUS(status)),
           WEXITSTATUS(status) == 99 ? 99 : 1;
  if (!kRead) {
    static unsigned long long got[kCounters];
    HIP_CHECK(hipMemcpy(got, p + kWords - kCounters, sizeof got, hipMemcpyDeviceToHost));
    const unsigned long long expect = 264ull * 256 * kAdds / kCounters;
    for (size_t i = 0; i < kCounters; ++i)
      if (got[i] != expect)
        return std::printf("VERDICT: FAIL hip_legacy_ipc system-scope atomics: counter %zu holds %llu, not %llu\n", i,
                           got[i], expect),
               1;
  }
  std::printf("VERDICT: PASS hip_legacy_ipc GPU %d %s GPU %d's %zu bytes of hipMalloc memory through legacy IPC\n",
              other, kRead ? "read every word of" : "added exactly at system scope into", owner, kBytes);
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}

// Minimal reproducer from vmem-repro, the CUDA side of ROCm/iris#418: a second process imports cuMemCreate memory
// through a POSIX fd and adds into it with system-scope atomics, the same steps as hip_vmem_atomics.hip through the
// driver API. It passes on NVIDIA (an H200, driver 580.159.04): a ROCm report is stronger beside it.
// One direction at system scope; the suite's case also adds the other way at once, then at device scope.
// suite case: repro_cuda_vmm.atomics
// build: nvcc -O2 -std=c++17 -o cuda_vmm_atomics cuda_vmm_atomics.cu -lcuda
// run:   ./cuda_vmm_atomics [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG); without the NVIDIA driver the loader refuses to start
//        it (127, "libcuda.so.1: cannot open"), which the suite counts as SKIP
#include <cuda.h>
#include <cuda_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

static const char* name_of(CUresult e) {
  const char* name = "?";
  return cuGetErrorName(e, &name), name;
}
static const char* name_of(cudaError_t e) { return cudaGetErrorName(e); }
template <class Error>  // the runtime's teardown must not turn this FAIL into a crash: _exit
static void check(Error e, const char* call) {
  if (e)
    std::printf("VERDICT: FAIL cuda_vmm_atomics %s returned %s\n", call, name_of(e)), std::fflush(stdout), _exit(1);
}
#define CHECK(call) check((call), #call)

static const size_t kCounters = 1024, kAdds = 64;  // adds per thread: 264 x 256 threads x 64 spread over 1024

__global__ void k_add(unsigned long long* c, size_t n, unsigned long long adds) {
  unsigned long long t = blockIdx.x * blockDim.x + threadIdx.x;
  for (unsigned long long k = 0; k < adds; ++k) atomicAdd_system(&c[(t + k) % n], 1ull);
}
__global__ void k_copy(unsigned long long* dst, const unsigned long long* src, size_t n) {
  __threadfence_system();  // the peer's adds must be visible to these reads
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) dst[i] = src[i];
}

// One byte over the socket, with `fd` attached (SCM_RIGHTS); with fd < 0, receives one and returns it.
static int pass_fd(int sock, int fd) {
  char byte = 'f', control[CMSG_SPACE(sizeof(int))] = {};
  iovec iov{&byte, 1};
  msghdr msg{};
  msg.msg_iov = &iov, msg.msg_iovlen = 1, msg.msg_control = control, msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  if (fd < 0) {
    if (recvmsg(sock, &msg, 0) != 1 || !(c = CMSG_FIRSTHDR(&msg))) return -1;
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
  }
  c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

// Reserve, map, grant this process's device read-write: the VA the kernels use.
static unsigned long long* map_here(CUmemGenericAllocationHandle h, size_t size, int device) {
  CUdeviceptr va = 0;
  CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
  CHECK(cuMemMap(va, size, 0, h, 0));
  CUmemAccessDesc access{{CU_MEM_LOCATION_TYPE_DEVICE, device}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CHECK(cuMemSetAccess(va, size, &access, 1));
  return reinterpret_cast<unsigned long long*>(va);
}

static CUmemAllocationProp prop{};  // of the owner's memory: pinned on its GPU, with POSIX-fd handles

// Fills `prop` for `device`; the counters rounded up to its minimum granularity.
static size_t buffer_size(int device) {
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED, prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE, prop.location.id = device;
  size_t g = 0;
  CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  return (kCounters * sizeof(unsigned long long) + g - 1) / g * g;
}

// The peer: receive the fd, import, map, add into the owner's counters at system scope.
static int peer(int sock, int owner_device, int device) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  CHECK(cudaSetDevice(device));
  CHECK(cudaFree(nullptr));  // the primary context, current for the driver calls
  CUmemGenericAllocationHandle h;
  CHECK(cuMemImportFromShareableHandle(&h, reinterpret_cast<void*>(size_t(fd)),
                                       CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  unsigned long long* counters = map_here(h, buffer_size(owner_device), device);
  k_add<<<264, 256>>>(counters, kCounters, kAdds);
  CHECK(cudaGetLastError());  // a launch refused (no code object for this GPU) is not lost atomics
  CHECK(cudaDeviceSynchronize());
  return write(sock, "d", 1) == 1 ? 0 : 99;
}

static int run(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0)
    return std::printf("VERDICT: SKIP cuda_vmm_atomics no NVIDIA GPU\n"), 77;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  if (owner >= count || other >= count)
    return std::printf("VERDICT: SKIP cuda_vmm_atomics not enough GPUs: %d visible\n", count), 77;
  for (int w = 0; w < 2; ++w) {  // the suite's describe, for both GPUs: VMM, POSIX fd; on two, P2P and native atomics
    CUdevice d, o;
    int v[4] = {0, 0, 1, 1};
    CHECK(cuDeviceGet(&d, w ? other : owner)), CHECK(cuDeviceGet(&o, w ? owner : other));
    CHECK(cuDeviceGetAttribute(&v[0], CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d));
    CHECK(cuDeviceGetAttribute(&v[1], CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, d));
    if (owner != other) CHECK(cuDeviceCanAccessPeer(&v[2], d, o));
    if (owner != other) CHECK(cuDeviceGetP2PAttribute(&v[3], CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, d, o));
    if (!v[0] || !v[1] || !v[2] || !v[3])
      return std::printf("VERDICT: SKIP cuda_vmm_atomics GPUs %d,%d: no VMM/POSIX-fd/P2P/atomics\n", owner, other), 77;
  }
  // Owner: create, map, zero, export.
  CHECK(cudaSetDevice(owner));
  CHECK(cudaFree(nullptr));
  const size_t size = buffer_size(owner);
  CUmemGenericAllocationHandle h;
  CHECK(cuMemCreate(&h, size, &prop, 0));
  unsigned long long* counters = map_here(h, size, owner);
  // Zeroed and read back through a kernel from ordinary device memory, as the ROCm twin must.
  unsigned long long *bounce = nullptr, got[kCounters];
  CHECK(cudaMalloc(&bounce, sizeof got));
  CHECK(cudaMemset(bounce, 0, sizeof got));
  k_copy<<<4, 256>>>(counters, bounce, kCounters);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int fd = -1;
  CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked CUDA runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[3][16];
    std::snprintf(a[0], 16, "%d", sv[1]), std::snprintf(a[1], 16, "%d", owner), std::snprintf(a[2], 16, "%d", other);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);  // so that a peer that dies ends the read below
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  char done = 0;
  const bool finished = read(sv[0], &done, 1) == 1;
  int status = 0;
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return std::printf("VERDICT: CRASH cuda_vmm_atomics the peer (GPU %d) was killed by signal %d (%s)\n", other,
                       WTERMSIG(status), strsignal(WTERMSIG(status))),
           3;
  if (!finished || WEXITSTATUS(status) != 0)
    return std::printf("VERDICT: FAIL cuda_vmm_atomics the peer exited %d (its line above says why)\n",
                       WEXITSTATUS(status)),
           WEXITSTATUS(status) == 99 ? 99 : 1;
  k_copy<<<4, 256>>>(bounce, counters, kCounters);
  CHECK(cudaMemcpy(got, bounce, sizeof got, cudaMemcpyDeviceToHost));
  const unsigned long long expect = 264ull * 256 * kAdds / kCounters;
  for (size_t i = 0; i < kCounters; ++i)
    if (got[i] != expect)
      return std::printf("VERDICT: FAIL cuda_vmm_atomics system-scope atomics: counter %zu holds %llu, not %llu\n", i,
                         got[i], expect),
             1;
  std::printf("VERDICT: PASS cuda_vmm_atomics GPU %d's system-scope atomics into GPU %d's memory: all exact\n", other,
              owner);
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}

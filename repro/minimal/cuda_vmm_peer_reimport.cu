// Minimal reproducer from vmem-repro, the CUDA side of the VA life cycle of iris's power-of-two VMem allocator
// (vmem-repro's seed 001; ROCm/iris#418): the owner renews its memory at the same VA (cuMemUnmap, cuMemRelease,
// cuMemCreate, cuMemMap, cuMemSetAccess), stamps word 0 with generation 2 and exports the new handle; the peer,
// which mapped generation 1 from the owner's POSIX fd, unmaps and releases it, imports the new fd at the same VA,
// must see the stamp there, and its system-scope atomics must land in the new memory exactly. It passes on NVIDIA
// (this file on one H200, driver 580.159.04, 2026-12-02; the suite's case also on 2x H200): the reference for
// repro_pow2_remap.peer-reimport on ROCm.
// One direction; the suite's case has every rank renew its own memory and re-import every other rank's at once.
// The owner zeroes, stamps and reads back its own memory with the driver's copies (cuMemsetD8, cuMemcpyHtoD,
// cuMemcpyDtoH) where the suite's case runs kernels: the peer's steps are kernels in both.
// suite case: repro_cuda_vmm.peer-reimport
// build: nvcc -O2 -std=c++17 -o cuda_vmm_peer_reimport cuda_vmm_peer_reimport.cu -lcuda
// run:   ./cuda_vmm_peer_reimport [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
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

typedef unsigned long long u64;
#define SAY(verdict, ...) std::printf("VERDICT: " verdict " cuda_vmm_peer_reimport " __VA_ARGS__)

// A failed call ends the process with _exit: the runtime's teardown must not turn the FAIL into a crash.
static void check(CUresult e, const char* call) {
  const char* name = "?";
  if (e != CUDA_SUCCESS)
    cuGetErrorName(e, &name), SAY("FAIL", "%s returned %s\n", call, name), std::fflush(stdout), _exit(1);
}
static void check(cudaError_t e, const char* call) {
  if (e != cudaSuccess) SAY("FAIL", "%s returned %s\n", call, cudaGetErrorName(e)), std::fflush(stdout), _exit(1);
}
#define CHECK(call) check((call), #call)
// After a launch, as the suite's finish(): the launch's error, then the driver's own name for what the kernel did.
#define FINISH(kernel) check(cudaGetLastError(), kernel), check(cuCtxSynchronize(), "cuCtxSynchronize() after " kernel)

// Word 0 the generation stamp, words 1..1024 the counters: 264 x 256 threads x 64 adds, 4224 per counter.
static const u64 kCounters = 1024, kAdds = 64, kGeneration = 2, kExpect = 264 * 256 * kAdds / kCounters;

// Until *flag == value, or a trap after `timeout` GPU clock cycles: a lost stamp ends as a FAIL, not a hung GPU.
__global__ void k_wait(const volatile u64* flag, u64 value, long long timeout) {
  for (const long long start = clock64(); *flag != value;)
    if (clock64() - start > timeout) __trap();
}
__global__ void k_add(u64* c, u64 n, u64 adds) {  // 264 x 256 threads x 64 adds spread over n counters
  u64 t = blockIdx.x * u64(blockDim.x) + threadIdx.x;
  for (u64 k = 0; k < adds; ++k) atomicAdd_system(&c[(t + k) % n], 1ull);
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

static CUmemAllocationProp prop{};  // of the owner's memory: pinned on its GPU, with POSIX-fd handles
static size_t size = 0;             // of the owner's memory

// This process's GPU and its primary context (current for the driver calls), the buffer's size ((1 + 1024) words
// rounded up to the owner's granularity, as the suite's peer_reimport_plan), and a VA range reserved for it.
static CUdeviceptr setup(int device, int owner) {
  CHECK(cudaSetDevice(device));
  CHECK(cudaFree(nullptr));
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED, prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE, prop.location.id = owner;
  CUdeviceptr va = 0;
  CHECK(cuMemGetAllocationGranularity(&size, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));  // the granule, first
  size = ((1 + kCounters) * sizeof(u64) + size - 1) / size * size;
  CHECK(cuMemAddressReserve(&va, size, 0, 0, 0));
  return va;
}

// With `old`, first unmaps it from `va` (checked: new memory goes there next) and releases it (unchecked, as the
// suite's). Then new memory (fd < 0: the owner's), or the fd's (the peer's; CUDA takes the fd by value, and it is
// closed after), mapped at `va` (reserved already) and granted read-write to this process's device.
static CUmemGenericAllocationHandle map_at(CUdeviceptr va, int dev, int fd, const CUmemGenericAllocationHandle* old) {
  CUmemGenericAllocationHandle h;
  if (old) CHECK(cuMemUnmap(va, size)), (void)cuMemRelease(*old);
  if (fd < 0) CHECK(cuMemCreate(&h, size, &prop, 0));
  if (fd >= 0) CHECK(cuMemImportFromShareableHandle(&h, (void*)size_t(fd), CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  if (fd >= 0) close(fd);
  CHECK(cuMemMap(va, size, 0, h, 0));
  CUmemAccessDesc access{{CU_MEM_LOCATION_TYPE_DEVICE, dev}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  CHECK(cuMemSetAccess(va, size, &access, 1));
  return h;
}

// The suite's describe step, for both processes' GPUs: SKIP without VMM or POSIX-fd handles, or, on two GPUs,
// without peer access or native atomics either way.
static bool skips(int owner, int other) {
  CUdevice d[2];
  int v[8] = {0, 0, 0, 0, 1, 1, 1, 1};  // VMM and POSIX fd of each; peer access and native atomics each way
  CHECK(cuDeviceGet(&d[0], owner));
  CHECK(cuDeviceGet(&d[1], other));
  for (int w = 0; w < 2; ++w) {
    CHECK(cuDeviceGetAttribute(&v[w], CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d[w]));
    CHECK(cuDeviceGetAttribute(&v[2 + w], CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, d[w]));
    if (owner != other) CHECK(cuDeviceCanAccessPeer(&v[4 + w], d[w], d[1 - w]));
    if (owner != other)
      CHECK(cuDeviceGetP2PAttribute(&v[6 + w], CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, d[w], d[1 - w]));
  }
  for (int x : v)
    if (!x) return SAY("SKIP", "GPUs %d,%d: no VMM, no POSIX fd, or no peer access or native atomics\n", owner, other);
  return false;
}

// The peer: map generation 1 from the owner's fd; on generation 2's fd, drop the stale mapping (the VA stays
// reserved), import and map the new memory there, wait for the stamp, then add into the counters.
static int peer(int sock, int owner_device, int device) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  const CUdeviceptr va = setup(device, owner_device);
  CUmemGenericAllocationHandle h = map_at(va, device, fd, nullptr);
  if (write(sock, "1", 1) != 1 || (fd = pass_fd(sock, -1)) < 0) return 99;  // generation 1 mapped; the next fd
  h = map_at(va, device, fd, &h);  // the stale mapping goes; the VA stays reserved
  k_wait<<<1, 1>>>(reinterpret_cast<u64*>(va), kGeneration, 2000000000ll);
  FINISH("k_wait (a trap: the generation stamp never appeared through the re-imported mapping)");
  k_add<<<264, 256>>>(reinterpret_cast<u64*>(va) + 1, kCounters, kAdds);
  FINISH("k_add (system scope) into the re-imported memory");
  return write(sock, "d", 1) == 1 ? 0 : 99;
}

static int run(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) return SAY("SKIP", "no NVIDIA GPU\n"), 77;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  if (owner >= count || other >= count) return SAY("SKIP", "not enough GPUs: %d visible\n", count), 77;
  if (skips(owner, other)) return 77;          // before any allocation call: the suite's describe SKIPs come first
  const CUdeviceptr va = setup(owner, owner);  // the owner's generation 1: reserve, create, map, grant, export
  CUmemGenericAllocationHandle h = map_at(va, owner, -1, nullptr);
  int fd = -1, fd2 = -1, sv[2], status = 0;
  CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked CUDA runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[3][16];
    std::snprintf(a[0], 16, "%d", sv[1]), std::snprintf(a[1], 16, "%d", owner), std::snprintf(a[2], 16, "%d", other);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);  // so that a peer that dies ends the reads below
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  char byte = 0;
  bool finished = read(sv[0], &byte, 1) == 1;  // the peer mapped generation 1
  if (finished) {
    // Generation 2: new memory at the same VA, zeroed and stamped, exported; the peer gets the new fd.
    h = map_at(va, owner, -1, &h);
    CHECK(cuMemsetD8(va, 0, size));
    CHECK(cuMemcpyHtoD(va, &kGeneration, sizeof kGeneration));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemExportToShareableHandle(&fd2, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    close(fd);                                                          // generation 1's, as the suite's
    finished = pass_fd(sv[0], fd2) == 0 && read(sv[0], &byte, 1) == 1;  // re-imported and added
  }
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return SAY("CRASH", "the peer was killed by signal %d (%s)\n", WTERMSIG(status), strsignal(WTERMSIG(status))), 3;
  if (!finished || WEXITSTATUS(status) != 0)
    return SAY("FAIL", "the peer exited with status %d\n", WEXITSTATUS(status)), WEXITSTATUS(status) == 99 ? 99 : 1;
  u64 got[1 + kCounters];  // word 0 must still hold the stamp, and every counter exactly its count
  CHECK(cuMemcpyDtoH(got, va, sizeof got));
  for (u64 w = 0; w <= kCounters; ++w)
    if (got[w] != (w ? kExpect : kGeneration))
      return SAY("FAIL", "word %llu holds %llu, expected exactly %llu\n", w, got[w], w ? kExpect : kGeneration), 1;
  SAY("PASS", "the peer re-imported generation 2 at the same VA; all its system-scope adds landed there exactly\n");
  return 0;
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}

// Minimal reproducer from vmem-repro (rocm-systems PR #3889; ROCm/mori PRs #455, #476): ROCr's import of a VMem fd
// (VMemoryImportShareableHandle) takes no lock against the map and set-access of other threads (rocr-6.4.3
// runtime.cpp:3604, :3659 against :3221, :3459). Threads of one process that import, map, grant and read at once then
// get hipMemSetAccess hipErrorInvalidValue (mori #476: a 7.2.4 image, gfx950, ~47 % of runs with 8 threads), words
// that differ, a map that silently did not happen, or a crash (mori #455). Fixed by #3889 (develop, 2026-03; TheRock
// from 7.13); no legacy release carries it. Intermittent: any of those, or PASS, on an unfixed runtime.
// One direction: the owner (the suite's rank 0) exports 8 allocations and the peer (rank 1) imports them on 8 threads;
// in the suite each rank also exports to the other and imports on 8 threads of its own, so a run here has one racing
// process, not two. The first thread to fail ends the peer (the suite names the lowest-numbered one after all end);
// the pattern is simpler, and ROCr is not asked whether each unmap happened.
// suite case: repro_hip_vmem_access.concurrent-map
// build: hipcc -O2 -std=c++17 -o hip_concurrent_map hip_concurrent_map.hip
// run:   ./hip_concurrent_map [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <hip/hip_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

// Also from a thread: _exit ends the process at once, with no runtime teardown under the other threads.
#define FAIL(...) (std::printf("VERDICT: FAIL hip_concurrent_map " __VA_ARGS__), std::fflush(stdout), _exit(1))
static thread_local std::string g_where;             // which peer thread fails: "GPU 1, thread 3 of 8: "
static void check(hipError_t e, const char* call) {  // names the function only, as the suite's details do
  if (e != hipSuccess)
    FAIL("%s%.*s returned %s\n", g_where.c_str(), int(std::strcspn(call, "(")), call, hipGetErrorName(e));
}
#define HIP_CHECK(call) check((call), #call)

using u64 = unsigned long long;
static const int kThreads = 8, kRounds = 8;    // each thread imports, maps, grants and reads its allocation 8 times
static const size_t kBytes = size_t(4) << 20;  // rounded up to the granule
static bool g_by_value = false;                // hipMemImportFromShareableHandle takes the fd itself, not &fd

// Writes the pattern of `tag` over [p, p + n); with `bad`, counts the words that differ from it instead.
__global__ void k_pattern(u64* p, size_t n, u64 tag, u64* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (const u64 want = (tag << 40) ^ i ^ 0x9e3779b97f4a7c15ull; !bad)  // never 0
      p[i] = want;
    else if (p[i] != want)
      atomicAdd(bad, 1ull);
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

// Reserve, map, grant `device` read-write. CLR up to 7.2 at least answers hipSuccess for a map that failed below
// it: hipMemGetAccess then finds no mapping (hipErrorInvalidValue; left so: unmapping it dereferences null up to 6.4).
static u64* map_granted(hipMemGenericAllocationHandle_t h, size_t size, int device) {
  void* va = nullptr;
  HIP_CHECK(hipMemAddressReserve(&va, size, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(va, size, 0, h, 0));
  hipMemLocation here{hipMemLocationTypeDevice, device};
  u64 flags = 0;
  if (const hipError_t found = hipMemGetAccess(&flags, &here, va); found != hipSuccess)
    FAIL("%shipMemMap returned hipSuccess, but hipMemGetAccess there returned %s: the map did not happen\n",
         g_where.c_str(), hipGetErrorName(found));
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  HIP_CHECK(hipMemSetAccess(va, size, &access, 1));
  return static_cast<u64*>(va);
}

// Peer thread t: 8 times, import the owner's allocation t from `fd`, map and grant it, read it whole through a
// kernel into ordinary device memory (hipMemcpy silently skips VMem VAs), unmap and release it.
static void import_rounds(int fd, size_t size, int device, int t) {
  g_where = "GPU " + std::to_string(device) + ", thread " + std::to_string(t) + " of 8: ";
  HIP_CHECK(hipSetDevice(device));  // HIP's current device is per thread
  for (int round = 0; round < kRounds; ++round) {
    hipMemGenericAllocationHandle_t h;
    HIP_CHECK(
        hipMemImportFromShareableHandle(&h, g_by_value ? reinterpret_cast<void*>(size_t(fd)) : static_cast<void*>(&fd),
                                        hipMemHandleTypePosixFileDescriptor));
    u64 *va = map_granted(h, size, device), *cell = nullptr, bad = 0;
    HIP_CHECK(hipMalloc(&cell, sizeof bad));
    HIP_CHECK(hipMemcpy(cell, &bad, sizeof bad, hipMemcpyHostToDevice));
    k_pattern<<<264, 256>>>(va, size / sizeof(u64), t, cell);
    HIP_CHECK(hipGetLastError()), HIP_CHECK(hipDeviceSynchronize());  // a launch refused (no code object) is no race
    HIP_CHECK(hipMemcpy(&bad, cell, sizeof bad, hipMemcpyDeviceToHost));
    HIP_CHECK(hipFree(cell));
    if (bad) FAIL("%sround %d: %llu words differ from the owner's pattern\n", g_where.c_str(), round, bad);
    (void)hipMemUnmap(va, size), (void)hipMemRelease(h), (void)hipMemAddressFree(va, size), (void)hipGetLastError();
  }
}

// The peer: receives the owner's 8 fds, then 8 threads at once each import, map, grant and read one of them. It says
// the verdict (FAIL from a thread, or PASS), the last line, unless it dies.
static int peer(int sock, int device, int version, size_t size) {
  int fds[kThreads];
  for (int t = 0; t < kThreads; ++t)
    if ((fds[t] = pass_fd(sock, -1)) < 0) return 99;
  // The import reads *(int*)osHandle up to HIP 7.0 and takes the fd itself from 7.1, as CUDA does. Below 7.1 it is
  // tried once with &fd first: a 7.0.2 backport that takes the fd by value (the same version) refuses it. Its error
  // stays in this thread (HIP's last error is per thread).
  hipMemGenericAllocationHandle_t probe;
  HIP_CHECK(hipSetDevice(device));
  if (!(g_by_value = version >= 70100000 ||
                     hipMemImportFromShareableHandle(&probe, &fds[0], hipMemHandleTypePosixFileDescriptor)))
    (void)hipMemRelease(probe);
  std::thread threads[kThreads];
  for (int t = 0; t < kThreads; ++t) threads[t] = std::thread(import_rounds, fds[t], size, device, t);
  for (std::thread& thread : threads) thread.join();
  std::printf("VERDICT: PASS hip_concurrent_map GPU %d: 8 threads x 8 import-map-grant-reads: all exact\n", device);
  return 0;
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]), std::strtoull(argv[5], nullptr, 10));
  int count = 0, version = 0, vmm[2] = {};  // VMM support: hipDeviceAttributeVirtualMemoryManagementSupported, 89
  if (hipGetDeviceCount(&count) != hipSuccess) count = 0;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  if (owner >= count || other >= count || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 ||
      hipDeviceGetAttribute(&vmm[0], static_cast<hipDeviceAttribute_t>(89), owner) ||
      hipDeviceGetAttribute(&vmm[1], static_cast<hipDeviceAttribute_t>(89), other) || !vmm[0] || !vmm[1])
    return std::printf("VERDICT: SKIP hip_concurrent_map no such AMD GPUs, HIP %d < 6.2 or no VMM\n", version), 77;
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  // Owner: 8 allocations, each created, mapped, granted, filled with its own pattern and exported.
  HIP_CHECK(hipSetDevice(owner));
  hipMemAllocationProp prop{};  // requestedHandleType: in every header (7.2's union has both names)
  prop.type = hipMemAllocationTypePinned, prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;
  prop.location.type = hipMemLocationTypeDevice, prop.location.id = owner;
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  const size_t size = (kBytes + g - 1) / g * g;
  int fds[kThreads], sv[2];
  for (int t = 0; t < kThreads; ++t) {
    hipMemGenericAllocationHandle_t h;
    HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
    u64* va = map_granted(h, size, owner);
    HIP_CHECK(hipMemExportToShareableHandle(&fds[t], h, hipMemHandleTypePosixFileDescriptor, 0));
    k_pattern<<<264, 256>>>(va, size / sizeof(u64), t, nullptr);
    HIP_CHECK(hipGetLastError()), HIP_CHECK(hipDeviceSynchronize());
  }
  std::fflush(stdout);  // what the peer says must come after
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    const std::string a[4] = {std::to_string(sv[1]), std::to_string(other), std::to_string(version),
                              std::to_string(size)};
    execl("/proc/self/exe", argv[0], "--peer", a[0].c_str(), a[1].c_str(), a[2].c_str(), a[3].c_str(),
          static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);  // so that a peer that dies ends the sends below
  for (int t = 0; t < kThreads && peer_pid > 0; ++t)
    if (pass_fd(sv[0], fds[t]) != 0) break;  // the peer died: its exit says how
  int status = 0;                            // the owner's memory stays until the peer is done
  if (peer_pid < 0 || waitpid(peer_pid, &status, 0) != peer_pid) return 99;
  if (WIFSIGNALED(status))
    return std::printf("VERDICT: CRASH hip_concurrent_map the peer (GPU %d) was killed by signal %d (%s)\n", other,
                       WTERMSIG(status), strsignal(WTERMSIG(status))),
           3;
  if (WEXITSTATUS(status) > 1)  // 0 and 1: the peer said its verdict
    return std::printf("VERDICT: FAIL hip_concurrent_map the peer exited with status %d\n", WEXITSTATUS(status)),
           WEXITSTATUS(status) == 99 ? 99 : 1;
  return WEXITSTATUS(status);
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}

// Minimal reproducer from vmem-repro (ROCm/iris#418, its power-of-two VMem allocator): the owner of hipMemCreate
// memory exported to a second process renews it at the same VA (unmap, release, create, map, set access), stamps it
// with generation 2 and exports the new memory; the peer, which still maps the old memory, unmaps it, imports the new
// fd at the same VA of its own, sees the stamp (a bounded wait), and adds into the new memory at agent scope; the
// owner's counts must be exact. Agent scope: system-scope atomics on hipMemCreate memory are hip_vmem_atomics.hip.
// One direction; the suite's case renews both ranks' memory and adds both ways at once, and waits for the stamp in a
// kernel of its own before the adds (here each thread of the adding kernel waits for it). hipMemUnmap is taken at its
// word; the suite also asks ROCr (hsa_amd_vmem_get_access) that each unmap happened, a FAIL where CLR answered
// hipSuccess for one that did not. The fds are left open; the suite closes each once it is imported or replaced.
// suite case: repro_pow2_remap.peer-reimport
// build: hipcc -O2 -std=c++17 -o hip_pow2_peer_reimport hip_pow2_peer_reimport.hip
// run:   ./hip_pow2_peer_reimport [OWNER_GPU PEER_GPU]  (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <hip/hip_runtime.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// The verdict line, then the exit code that goes with it. A failed call is a FAIL naming it; the process leaves
// without the runtime's teardown (see main).
#define VERDICT(rc, word, fmt, ...) \
  (std::printf("VERDICT: " word " hip_pow2_peer_reimport " fmt "\n", ##__VA_ARGS__), std::fflush(stdout), (rc))
#define HIP_CHECK(call) \
  if (const hipError_t e = (call)) _exit(VERDICT(1, "FAIL", "%s returned %s", #call, hipGetErrorName(e)))

// Word 0 of the owner's renewed memory holds the generation, the counters follow; adds per thread: 264 x 256
// threads x 64 spread over 1024 counters.
static const unsigned long long kGeneration = 2, kCounters = 1024, kAdds = 64;

// Every thread waits until word 0 shows the generation (at most 2e9 GPU clock cycles: a stamp that never comes is a
// FAIL, not a hung GPU), then adds 1 kAdds times into the counters after it, at agent scope.
__global__ void k_stamp_then_add(unsigned long long* p, unsigned long long* late) {
  const unsigned long long t = blockIdx.x * blockDim.x + threadIdx.x, start = clock64();
  while (*static_cast<volatile unsigned long long*>(p) != kGeneration)
    if (clock64() - start > 2000000000ull) return void(*late = 1);
  for (unsigned long long k = 0; k < kAdds; ++k) atomicAdd(&p[1 + (t + k) % kCounters], 1ull);
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

// Map at `va` (reserved here when null) and grant this process's device read-write. A map counts only once the
// runtime finds it: CLR up to 7.2 answers hipSuccess for a map whose HSA map failed.
static unsigned long long* map_here(hipMemGenericAllocationHandle_t h, size_t size, int device, void* va) {
  if (!va) HIP_CHECK(hipMemAddressReserve(&va, size, 0, nullptr, 0));
  HIP_CHECK(hipMemMap(va, size, 0, h, 0));
  hipMemAccessDesc access{{hipMemLocationTypeDevice, device}, hipMemAccessFlagsProtReadWrite};
  unsigned long long flags = 0;
  const hipError_t found = hipMemGetAccess(&flags, &access.location, va);
  if (found) _exit(VERDICT(1, "FAIL", "hipMemMap returned hipSuccess; hipMemGetAccess: %s", hipGetErrorName(found)));
  HIP_CHECK(hipMemSetAccess(va, size, &access, 1));
  return static_cast<unsigned long long*>(va);
}

static hipMemGenericAllocationHandle_t import(int fd, int version) {
  // Up to HIP 7.0 the import reads *(int*)osHandle; from 7.1 it takes the fd itself, as CUDA does.
  void* by_value = reinterpret_cast<void*>(size_t(fd));
  hipMemGenericAllocationHandle_t h;
  hipError_t e =
      hipMemImportFromShareableHandle(&h, version < 70100000 ? &fd : by_value, hipMemHandleTypePosixFileDescriptor);
  // A 7.0.2 backport takes the fd by value (same version); its refusal is read off first, no error of a later call.
  if (e != hipSuccess && version < 70100000)
    e = ((void)hipGetLastError(), hipMemImportFromShareableHandle(&h, by_value, hipMemHandleTypePosixFileDescriptor));
  if (e) _exit(VERDICT(1, "FAIL", "hipMemImportFromShareableHandle returned %s", hipGetErrorName(e)));
  return h;
}

// The peer: import generation 1 and map it; on generation 2, drop the stale mapping, import the new fd at the same
// VA, wait for the owner's stamp through it, add into the counters after it.
static int peer(int sock, int device, size_t size, int version) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  HIP_CHECK(hipSetDevice(device));
  hipMemGenericAllocationHandle_t h = import(fd, version);
  unsigned long long *va = map_here(h, size, device, nullptr), *late = nullptr, waited = 0;
  if (write(sock, "1", 1) != 1 || (fd = pass_fd(sock, -1)) < 0) return 99;
  HIP_CHECK(hipMemUnmap(va, size));  // the stale mapping goes; the VA range stays this process's
  HIP_CHECK(hipMemRelease(h));
  map_here(import(fd, version), size, device, va);
  HIP_CHECK(hipMalloc(&late, sizeof waited));
  HIP_CHECK(hipMemset(late, 0, sizeof waited));
  k_stamp_then_add<<<264, 256>>>(va, late);
  HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not a lost stamp or lost adds
  HIP_CHECK(hipMemcpy(&waited, late, sizeof waited, hipMemcpyDeviceToHost));
  if (waited) _exit(VERDICT(1, "FAIL", "the generation stamp never appeared through the re-imported mapping"));
  return write(sock, "d", 1) == 1 ? 0 : 99;
}

static int run(int argc, char** argv) {
  if (argc == 6 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10), std::atoi(argv[5]));
  int count = 0, version = 0, vmm = 0, peer_vmm = 0;  // hipDeviceAttributeVirtualMemoryManagementSupported, 89
  const bool any = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  const auto kVmm = static_cast<hipDeviceAttribute_t>(89);
  if (!any || owner >= count || other >= count || hipRuntimeGetVersion(&version) != hipSuccess || version < 60200000 ||
      hipDeviceGetAttribute(&vmm, kVmm, owner) || hipDeviceGetAttribute(&peer_vmm, kVmm, other) || !vmm || !peer_vmm)
    return VERDICT(77, "SKIP", "no GPUs %d and %d, HIP %d before 6.2 (no VMem fd export) or no VMM", owner, other,
                   version);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  // Owner, generation 1: create, map, export. The buffer: the generation word and the counters, in whole granules.
  HIP_CHECK(hipSetDevice(owner));
  hipMemAllocationProp prop{};
  prop.type = hipMemAllocationTypePinned;
  prop.requestedHandleType = hipMemHandleTypePosixFileDescriptor;  // in every header (7.2's union has both names)
  prop.location.type = hipMemLocationTypeDevice;
  prop.location.id = owner;
  size_t g = 0;
  HIP_CHECK(hipMemGetAllocationGranularity(&g, &prop, hipMemAllocationGranularityMinimum));
  const size_t size = ((1 + kCounters) * sizeof(unsigned long long) + g - 1) / g * g;
  hipMemGenericAllocationHandle_t h;
  HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
  unsigned long long *va = map_here(h, size, owner, nullptr), *bounce = nullptr, got[1 + kCounters] = {};
  int fd = -1, sv[2];
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  char step = 0, a[4][24];        // a: the peer's arguments
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    std::snprintf(a[0], 24, "%d", sv[1]), std::snprintf(a[1], 24, "%d", other), std::snprintf(a[2], 24, "%zu", size);
    std::snprintf(a[3], 24, "%d", version);
    execl("/proc/self/exe", argv[0], "--peer", a[0], a[1], a[2], a[3], static_cast<char*>(nullptr));
    _exit(99);
  }
  close(sv[1]);  // so that a peer that dies ends the reads below
  if (peer_pid < 0 || pass_fd(sv[0], fd) != 0) return 99;
  bool finished = read(sv[0], &step, 1) == 1;  // the peer has mapped generation 1
  // Generation 2: new memory at the same VA, zeroed and stamped through a kernel from ordinary device memory (hipMemset
  // and hipMemcpy do not work on VMem VAs on some releases), exported anew.
  HIP_CHECK(hipMemUnmap(va, size));
  HIP_CHECK(hipMemRelease(h));
  HIP_CHECK(hipMemCreate(&h, size, &prop, 0));
  map_here(h, size, owner, va);
  HIP_CHECK(hipMalloc(&bounce, size));
  HIP_CHECK(hipMemset(bounce, 0, size));
  HIP_CHECK(hipMemcpy(bounce, &kGeneration, sizeof kGeneration, hipMemcpyHostToDevice));
  k_copy<<<4, 256>>>(va, bounce, size / sizeof kGeneration);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemExportToShareableHandle(&fd, h, hipMemHandleTypePosixFileDescriptor, 0));
  finished = finished && pass_fd(sv[0], fd) == 0 && read(sv[0], &step, 1) == 1;  // the peer has added
  int status = 0;
  waitpid(peer_pid, &status, 0);
  if (WIFSIGNALED(status))
    return VERDICT(3, "CRASH", "the peer (GPU %d) was killed by signal %d (%s)", other, WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
  if (!finished || WEXITSTATUS(status) != 0)
    return VERDICT(WEXITSTATUS(status) == 99 ? 99 : 1, "FAIL", "the peer exited with status %d", WEXITSTATUS(status));
  k_copy<<<4, 256>>>(bounce, va, 1 + kCounters);  // read back the same way
  HIP_CHECK(hipMemcpy(got, bounce, sizeof got, hipMemcpyDeviceToHost));
  const unsigned long long expect = 264ull * 256 * kAdds / kCounters;
  if (got[0] != kGeneration) return VERDICT(1, "FAIL", "generation word overwritten: %llu", got[0]);
  for (size_t i = 1; i <= kCounters; ++i)
    if (got[i] != expect)
      return VERDICT(1, "FAIL", "after re-import, counter %zu holds %llu, expected exactly %llu", i - 1, got[i],
                     expect);
  return VERDICT(0, "PASS", "the peer re-imported generation 2 at the same VA; agent-scope adds exact (%llu each)",
                 expect);
}

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}

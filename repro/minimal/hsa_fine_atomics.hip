// Minimal reproducer from vmem-repro (ROCm/iris#418), the path that works: memory from the GPU's FINE-grained pool
// through the HSA virtual memory API (hsa_amd_vmem_handle_create, reserve, map, set access, export a dma-buf fd),
// imported by a second process, which adds into it with system-scope atomics; every count must be exact. The same
// adds into hipMemCreate memory, which takes the coarse-grained pool, end in a GPU fault on some nodes
// (hip_vmem_atomics.hip). Each process grants only its own agent; the exporter's pool decides the grain.
// One direction at system scope; the suite's case also adds the other way at once, then at agent scope. The agent
// of a HIP device is the one that owns a hipMalloc allocation on it (hsa_amd_pointer_info), the suite's last way to
// pair them after the PCI location and the UUID. HSA is called through the runtime HIP already loaded (dlsym), so the
// build line needs no -lhsa-runtime64.
// suite case: repro_hsa_fine_grained.atomics
// build: hipcc -O2 -std=c++17 -o hsa_fine_atomics hsa_fine_atomics.hip
// run:   ./hsa_fine_atomics [OWNER_GPU PEER_GPU]        (default 0 1, or 0 0 on a one-GPU node)
// exit:  0 PASS, 1 FAIL, 3 CRASH (the peer died by a signal), 77 SKIP, 99 the program itself broke (no deadline:
//        the suite's case kills a hung peer and says HANG)
#include <dlfcn.h>
#include <hip/hip_runtime.h>
#include <hsa/hsa_ext_amd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

// The verdict line, then the exit code that goes with it.
#define VERDICT(rc, word, fmt, ...) \
  (std::printf("VERDICT: " word " hsa_fine_atomics " fmt "\n", ##__VA_ARGS__), std::fflush(stdout), (rc))

// The hsa_amd_vmem_* API came with HSA AMD interface 1.4, ROCm 6.0 (ROCR rocm-6.0.0 src/inc/hsa_ext_amd.h:51-59;
// rocm-5.7.0 is 1.3); Debian's 5.2.3 header is 1.0 and lacks it, so there this program can only SKIP.
#define HAS_HSA_VMEM (HSA_AMD_INTERFACE_VERSION_MAJOR > 1 || HSA_AMD_INTERFACE_VERSION_MINOR >= 4)
#if HAS_HSA_VMEM
// A failed call is the verdict, FAIL naming it; the process leaves without the runtime's teardown (see main).
#define HIP_CHECK(call) \
  if (const hipError_t e = (call)) _exit(VERDICT(1, "FAIL", "%s returned %s", #call, hipGetErrorName(e)))
// HSA through the runtime HIP loaded (libamdhip64 needs libhsa-runtime64), each function looked up by name; a
// failure names the status as hsa_status_string does ("HSA_STATUS_ERROR_INVALID_ALLOCATION: The requested ...").
#define HSA(fn) reinterpret_cast<decltype(&::fn)>(dlsym(RTLD_DEFAULT, #fn))
#define HSA_CHECK(fn, ...) \
  if (const hsa_status_t s = HSA(fn)(__VA_ARGS__)) _exit(VERDICT(1, "FAIL", "%s returned %s", #fn, hsa_text(s)))
static const char* hsa_text(hsa_status_t s) {
  const char* text = "a status hsa_status_string does not know";
  return HSA(hsa_status_string)(s, &text), text;
}

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

// The agent's first pool whose global flags say FINE_GRAINED (handle 0: none), the one the suite calls fine. ROCR
// lists it only in an XGMI hive or with HSA_FORCE_FINE_GRAIN_PCIE=1; FINE, EXTENDED_SCOPE_FINE and COARSE exclude
// each other, and the flags are set, and RUNTIME_ALLOC_ALLOWED is true, for the same heaps: system and frame buffer
// (ROCR rocm-6.2.0 src/core/runtime/amd_memory_region.cpp:344-362, :381-391; the same on rocm-systems develop).
static hsa_status_t first_fine(hsa_amd_memory_pool_t pool, void* first) {
  uint32_t flags = 0;
  HSA(hsa_amd_memory_pool_get_info)(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
  auto* fine = static_cast<hsa_amd_memory_pool_t*>(first);
  if (!fine->handle && (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED)) *fine = pool;
  return HSA_STATUS_SUCCESS;
}

// Makes `device` current; returns its HSA agent, the one that owns memory hipMalloc takes from the device's own pool
// (ROCR rocm-6.2.0 src/core/runtime/runtime.cpp:947-957: the first agent of the allocation's KFD node), and that
// agent's fine pool in `fine`.
static hsa_amd_memory_pool_t fine{0};
static hsa_agent_t use_device(int device) {
  void* p = nullptr;
  HIP_CHECK(hipSetDevice(device));
  HIP_CHECK(hipMalloc(&p, 4096));
  hsa_amd_pointer_info_t info{};
  info.size = sizeof info;
  HSA_CHECK(hsa_amd_pointer_info, p, &info, nullptr, nullptr, nullptr);
  HSA_CHECK(hsa_amd_agent_iterate_memory_pools, info.agentOwner, first_fine, &fine);
  return info.agentOwner;
}

// Reserve, map, grant this process's agent read-write: the VA the kernels use.
static unsigned long long* map_here(hsa_amd_vmem_alloc_handle_t h, size_t size, hsa_agent_t agent) {
  void* va = nullptr;
  HSA_CHECK(hsa_amd_vmem_address_reserve, &va, size, 0, 0);
  HSA_CHECK(hsa_amd_vmem_map, va, size, 0, h, 0);
  const hsa_amd_memory_access_desc_t access{HSA_ACCESS_PERMISSION_RW, agent};
  HSA_CHECK(hsa_amd_vmem_set_access, va, size, &access, 1);
  return static_cast<unsigned long long*>(va);
}

// The peer: receive the fd, import (HSA takes the fd by value), map, add into the owner's counters at system scope.
static int peer(int sock, int device, size_t size) {
  int fd = pass_fd(sock, -1);
  if (fd < 0) return 99;
  const hsa_agent_t agent = use_device(device);
  if (!fine.handle) return 77;  // the suite's case SKIPs unless every rank's device has one
  hsa_amd_vmem_alloc_handle_t h;
  HSA_CHECK(hsa_amd_vmem_import_shareable_handle, fd, &h);
  unsigned long long* counters = map_here(h, size, agent);
  k_add<<<264, 256>>>(counters, kCounters, kAdds);
  HIP_CHECK(hipGetLastError());  // a launch refused (no code object for this GPU) is not lost atomics
  HIP_CHECK(hipDeviceSynchronize());
  return write(sock, "d", 1) == 1 ? 0 : 99;
}

static int run(int argc, char** argv) {
  if (argc == 5 && std::strcmp(argv[1], "--peer") == 0)
    return peer(std::atoi(argv[2]), std::atoi(argv[3]), std::strtoull(argv[4], nullptr, 10));
  int count = 0;
  const bool any = hipGetDeviceCount(&count) == hipSuccess && count > 0;
  const int owner = argc == 3 ? std::atoi(argv[1]) : 0, other = argc == 3 ? std::atoi(argv[2]) : (count > 1);
  if (!any || owner >= count || other >= count) return VERDICT(77, "SKIP", "no GPU %d or %d", owner, other);
  std::printf("devices: %d,%d\n", owner, other);  // the suite's --devices for the same run
  bool vmem = false;                              // HIP has opened the HSA runtime (hsa_init) already
  if (!dlsym(RTLD_DEFAULT, "hsa_amd_vmem_import_shareable_handle") ||
      (HSA(hsa_system_get_info)(HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED, &vmem) == HSA_STATUS_SUCCESS && !vmem))
    return VERDICT(77, "SKIP", "no hsa_amd_vmem_* API (ROCm 6.0), or VIRTUAL_MEM_API_SUPPORTED is false");
  const hsa_agent_t agent = use_device(owner);
  if (!fine.handle) return VERDICT(77, "SKIP", "device %d has no FINE_GRAINED global pool", owner);
  // Owner: create from the fine pool (a whole number of its granules), map, zero, export.
  size_t granule = 0;
  HSA_CHECK(hsa_amd_memory_pool_get_info, fine, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE, &granule);
  const size_t size = (kCounters * sizeof(unsigned long long) + granule - 1) / granule * granule;
  hsa_amd_vmem_alloc_handle_t h;
  HSA_CHECK(hsa_amd_vmem_handle_create, fine, size, MEMORY_TYPE_NONE, 0, &h);
  unsigned long long* counters = map_here(h, size, agent);
  // Zeroed by a kernel from ordinary device memory: HIP's memset and memcpy do not know HSA VMem VAs.
  unsigned long long *bounce = nullptr, got[kCounters];
  HIP_CHECK(hipMalloc(&bounce, sizeof got));
  HIP_CHECK(hipMemset(bounce, 0, sizeof got));
  k_copy<<<4, 256>>>(counters, bounce, kCounters);
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
  int fd = -1;
  HSA_CHECK(hsa_amd_vmem_export_shareable_handle, &fd, h, 0);
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 99;
  const pid_t peer_pid = fork();  // the peer execs this program again: a forked HIP runtime is not usable
  if (peer_pid == 0) {
    close(sv[0]);
    char a[3][24];
    std::snprintf(a[0], 24, "%d", sv[1]), std::snprintf(a[1], 24, "%d", other), std::snprintf(a[2], 24, "%zu", size);
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
    return VERDICT(3, "CRASH", "the peer (GPU %d) was killed by signal %d (%s)", other, WTERMSIG(status),
                   strsignal(WTERMSIG(status)));
  if (WEXITSTATUS(status) == 77) return VERDICT(77, "SKIP", "device %d has no FINE_GRAINED global pool", other);
  if (!finished || WEXITSTATUS(status) != 0)
    return VERDICT(WEXITSTATUS(status) == 99 ? 99 : 1, "FAIL", "the peer exited with status %d", WEXITSTATUS(status));
  // Read back the same way, through a kernel into ordinary device memory.
  k_copy<<<4, 256>>>(bounce, counters, kCounters);
  HIP_CHECK(hipMemcpy(got, bounce, sizeof got, hipMemcpyDeviceToHost));
  const unsigned long long expect = 264ull * 256 * kAdds / kCounters;
  for (size_t i = 0; i < kCounters; ++i)
    if (got[i] != expect) return VERDICT(1, "FAIL", "counter %zu holds %llu, expected exactly %llu", i, got[i], expect);
  return VERDICT(0, "PASS", "GPU %d's system-scope atomics into GPU %d's fine-grained VMem: all exact", other, owner);
}
#else  // Debian's ROCm 5.2.3 (interface 1.0)
static int run(int, char**) { return VERDICT(77, "SKIP", "HSA headers lack hsa_amd_vmem_* (interface 1.4, ROCm 6.0)"); }
#endif

// Both processes leave without the runtime's teardown, as the suite's ranks do: a crash there is not the verdict.
int main(int argc, char** argv) {
  const int rc = run(argc, argv);
  std::fflush(stdout);
  _exit(rc);
}

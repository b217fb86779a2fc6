// KFD's per-process sysfs (amd/kfd_memory.h), read from a fake tree: the gpu_id of a topology node, this process's
// vram_<gpu_id>, and the other processes on the GPU that are not ranks of this run.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "amd/kfd_memory.h"

namespace {

struct FakeTree {
  std::string root;
  FakeTree() {
    char dir[] = "/tmp/vmr-kfd-XXXXXX";
    root = ::mkdtemp(dir) ? dir : "";
  }
  ~FakeTree() {
    if (!root.empty()) (void)std::system(("rm -rf '" + root + "'").c_str());
  }
  void write(const std::string& path, const std::string& text) const {
    size_t at = 0;
    while ((at = path.find('/', at + 1)) != std::string::npos) ::mkdir((root + "/" + path.substr(0, at)).c_str(), 0755);
    std::ofstream(root + "/" + path) << text;
  }
};

}  // namespace

TEST(KfdMemory, TheGpuIdOfATopologyNode) {
  FakeTree t;
  ASSERT_FALSE(t.root.empty());
  t.write("kfd/topology/nodes/0/gpu_id", "0\n");  // the CPU node
  t.write("kfd/topology/nodes/1/gpu_id", "53763\n");
  t.write("kfd/topology/nodes/2/gpu_id", "garbage\n");
  uint32_t id = 0;
  std::string why;
  EXPECT_TRUE(vmr_amd::kfd_gpu_id(t.root + "/kfd", 1, &id, &why)) << why;
  EXPECT_EQ(id, 53763u);
  for (uint32_t node : {0u, 2u, 3u}) {
    EXPECT_FALSE(vmr_amd::kfd_gpu_id(t.root + "/kfd", node, &id, &why)) << node;
    EXPECT_NE(why.find("nodes/" + std::to_string(node) + "/gpu_id"), std::string::npos) << why;
  }
}

TEST(KfdMemory, ThisProcessesVram) {
  FakeTree t;
  t.write("kfd/proc/4242/vram_53763", "1073741824\n");
  t.write("kfd/proc/4242/vram_1111", "5\n");
  t.write("kfd/proc/4243/vram_53763", "12x\n");
  vmr_gpu::MemoryReading m = vmr_amd::kfd_process_vram(t.root + "/kfd", 4242, 53763);
  ASSERT_TRUE(m.known) << m.why_not;
  EXPECT_EQ(m.bytes, 1ull << 30);
  m = vmr_amd::kfd_process_vram(t.root + "/kfd", 4243, 53763);
  EXPECT_FALSE(m.known);
  EXPECT_NE(m.why_not.find("proc/4243/vram_53763"), std::string::npos) << m.why_not;
  EXPECT_FALSE(vmr_amd::kfd_process_vram(t.root + "/kfd", 4244, 53763).known);
  EXPECT_FALSE(vmr_amd::kfd_source().sees_memory_kept_after_release);
}

// Ranks of this run (children of one supervisor, pid 900) and processes on other GPUs are no one else; a process
// outside the run with the GPU open is named; an unreadable list is said, never taken as "no one".
TEST(KfdMemory, OtherProcessesOnTheGpuOutsideThisRun) {
  FakeTree t;
  const std::string kfd = t.root + "/kfd", proc = t.root + "/proc";
  t.write("kfd/proc/4242/vram_53763", "0\n");  // this process
  t.write("kfd/proc/4243/vram_53763", "0\n");  // its sibling rank
  t.write("proc/4243/status", "Name:\trepro\nPPid:\t900\n");
  t.write("kfd/proc/5000/vram_1111", "1\n");  // on another GPU
  t.write("proc/5000/status", "PPid:\t1\n");
  EXPECT_EQ(vmr_amd::kfd_other_processes(kfd, proc, 53763, 4242, 900), "");
  t.write("kfd/proc/6000/vram_53763", "2147483648\n");  // another job
  t.write("proc/6000/status", "PPid:\t1\n");
  std::string others = vmr_amd::kfd_other_processes(kfd, proc, 53763, 4242, 900);
  EXPECT_NE(others.find("1 other KFD process on this GPU: pid 6000 (2048 MiB)"), std::string::npos) << others;
  // Its status unreadable (another PID namespace, or gone): not known to be of this run, so named.
  t.write("kfd/proc/7000/vram_53763", "0\n");
  others = vmr_amd::kfd_other_processes(kfd, proc, 53763, 4242, 900);
  EXPECT_NE(others.find("2 other KFD processes"), std::string::npos) << others;
  others = vmr_amd::kfd_other_processes(t.root + "/nothing", proc, 53763, 4242, 900);
  EXPECT_NE(others.find("unknown"), std::string::npos) << others;
}

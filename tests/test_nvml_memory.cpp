// NVML's per-process rows (cuda/nvml_memory.h): this process's row by pid, and every way it is unknown.
#include <gtest/gtest.h>

#include "cuda/nvml_memory.h"

using vmr_cuda::kNvmlValueNotAvailable;
using vmr_cuda::memory_of_pid;
using vmr_cuda::NvmlProcessRow;

TEST(NvmlMemory, TheRowOfThisPidAmongOthers) {
  const std::vector<NvmlProcessRow> rows = {{100, 5ull << 30}, {4242, 600ull << 20}, {7, 1ull << 20}};
  vmr_gpu::MemoryReading m = memory_of_pid(rows, 4242);
  ASSERT_TRUE(m.known) << m.why_not;
  EXPECT_EQ(m.bytes, 600ull << 20);
}

TEST(NvmlMemory, NoRowSeveralRowsOrNotAvailableAreUnknown) {
  vmr_gpu::MemoryReading m = memory_of_pid({{100, 1}, {101, 2}}, 4242);
  EXPECT_FALSE(m.known);
  EXPECT_NE(m.why_not.find("pid 4242 is not among the 2 compute processes"), std::string::npos) << m.why_not;
  m = memory_of_pid({{4242, 1}, {4242, 2}}, 4242);
  EXPECT_FALSE(m.known);
  EXPECT_NE(m.why_not.find("2 times"), std::string::npos) << m.why_not;
  m = memory_of_pid({{4242, kNvmlValueNotAvailable}}, 4242);
  EXPECT_FALSE(m.known);
  EXPECT_NE(m.why_not.find("NVML_VALUE_NOT_AVAILABLE"), std::string::npos) << m.why_not;
  m = memory_of_pid({}, 4242);
  EXPECT_FALSE(m.known);
}

// A library that cannot be loaded makes every read unknown, naming it (no crash, no verdict).
TEST(NvmlMemory, AMissingLibraryIsUnknownNamingIt) {
  vmr_cuda::NvmlProcessMemory nvml("0000:19:00.0", "libvmr-no-such-nvml.so.1");
  vmr_gpu::MemoryReading m = nvml.read(1);
  EXPECT_FALSE(m.known);
  EXPECT_NE(m.why_not.find("cannot load libvmr-no-such-nvml.so.1"), std::string::npos) << m.why_not;
  EXPECT_TRUE(vmr_cuda::nvml_source().sees_memory_kept_after_release);
}

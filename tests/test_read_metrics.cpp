// The read cases' bandwidth metrics (gpu/read_metrics.h): the figures, and the names and units of the CUDA read
// case (repro/cuda_vmm.cu), so that the HIP and HSA read cases fill the same cells of the matrix, the summary and
// Prometheus (which takes a metric in GB/s for a bandwidth).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gpu/read_metrics.h"

TEST(ReadMetrics, TheCudaReadCasesNamesAndUnits) {
  const auto m = vmr_gpu::read_bandwidth_metrics(size_t(2) << 30, 0.5, 1.0);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_DOUBLE_EQ(m[0].value, double(size_t(2) << 30) / 0.5 / 1e9);
  EXPECT_DOUBLE_EQ(m[1].value, double(size_t(2) << 30) / 1.0 / 1e9);
  EXPECT_DOUBLE_EQ(m[2].value, 2.0);  // the kernel twice as fast as the copy
  std::ifstream f(std::string(VMR_SOURCE_DIR) + "/repro/cuda_vmm.cu");
  std::stringstream cuda;
  cuda << f.rdbuf();
  ASSERT_FALSE(cuda.str().empty());
  for (const auto& one : m) {
    const size_t at = cuda.str().find("ctx.metric(\"" + one.name + "\"");
    ASSERT_NE(at, std::string::npos) << one.name << " is no metric of the CUDA read case";
    const std::string line = cuda.str().substr(at, cuda.str().find('\n', at) - at);
    EXPECT_NE(line.find("\"" + one.unit + "\")"), std::string::npos) << one.name << " in " << one.unit << ": " << line;
  }
  EXPECT_EQ(m[0].unit, "GB/s");  // what tools/prom.cpp exports as a bandwidth
}

TEST(ReadMetrics, NoCopyFigureNoCopyMetric) {
  const auto m = vmr_gpu::read_bandwidth_metrics(1000000000, 0.25, 0);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "peer_read_kernel_GBps");
  EXPECT_DOUBLE_EQ(m[0].value, 4.0);
}

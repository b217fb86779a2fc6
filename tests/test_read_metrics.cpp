// The read cases' bandwidth metrics (gpu/read_metrics.h): the figures, and the names and units every backend's read
// case reports through it, so that the CUDA, HIP and HSA read cases fill the same cells of the matrix, the summary and
// Prometheus (which takes a metric in GB/s for a bandwidth).
#include <gtest/gtest.h>

#include "gpu/read_metrics.h"

TEST(ReadMetrics, EveryBackendsNamesAndUnits) {
  const auto m = vmr_gpu::read_bandwidth_metrics(size_t(2) << 30, 0.5, 1.0);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_DOUBLE_EQ(m[0].value, double(size_t(2) << 30) / 0.5 / 1e9);
  EXPECT_DOUBLE_EQ(m[1].value, double(size_t(2) << 30) / 1.0 / 1e9);
  EXPECT_DOUBLE_EQ(m[2].value, 2.0);  // the kernel twice as fast as the copy
  // The names and units every backend's read case reports (gpu/read_bandwidth.h, cuda/cuda_peer_bandwidth.h,
  // amd/hip_read_bandwidth.h): the ones dashboards, docs/cluster.md and tools/prom.cpp know.
  EXPECT_EQ(m[0].name, "peer_read_kernel_GBps");
  EXPECT_EQ(m[1].name, "peer_read_copy_GBps");
  EXPECT_EQ(m[1].unit, "GB/s");
  EXPECT_EQ(m[2].name, "kernel_over_copy_bandwidth");
  EXPECT_EQ(m[2].unit, "ratio");
  EXPECT_EQ(m[0].unit, "GB/s");  // what tools/prom.cpp exports as a bandwidth
}

TEST(ReadMetrics, NoCopyFigureNoCopyMetric) {
  const auto m = vmr_gpu::read_bandwidth_metrics(1000000000, 0.25, 0);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "peer_read_kernel_GBps");
  EXPECT_DOUBLE_EQ(m[0].value, 4.0);
}

// The CUDA reference's GPU-free decisions (cuda/cuda_rules.h): a context refused by the compute mode is a SKIP that
// names the mode, never the FAIL that would drain a cluster node whose GPUs are EXCLUSIVE_PROCESS.
#include <gtest/gtest.h>

#include "cuda/cuda_rules.h"

using namespace vmr_cuda;

namespace {
const std::string kBusy = "cudaSetDevice returned cudaErrorDevicesUnavailable (CUDA-capable device(s) is/are busy)";
}

TEST(CudaRules, ComputeModeNames) {
  EXPECT_EQ(compute_mode_name(0), "DEFAULT");
  EXPECT_EQ(compute_mode_name(2), "PROHIBITED");
  EXPECT_EQ(compute_mode_name(3), "EXCLUSIVE_PROCESS");
  EXPECT_EQ(compute_mode_name(1), "unknown (1)");
}

TEST(CudaRules, ExclusiveProcessWithTheSameGpuPairSkipsNamingTheMode) {
  const vmr::Status s = context_refused(0, kComputeModeExclusiveProcess, 2, kErrorDeviceUnavailable, kBusy);
  EXPECT_EQ(s.verdict, vmr::Verdict::Skip);
  EXPECT_EQ(s.detail,
            "device 0 is in compute mode EXCLUSIVE_PROCESS and this case needs it in 2 processes at once: only one "
            "may hold it (run under MPS, or after nvidia-smi -c DEFAULT); " +
                kBusy);
}

// One process of the case on the GPU and still refused: another holds it, and on the idle node a health check runs
// on that is a GPU no job can use, so the node must not read healthy.
TEST(CudaRules, ExclusiveProcessHeldByAnotherProcessFails) {
  const vmr::Status s = context_refused(3, kComputeModeExclusiveProcess, 1, kErrorDeviceUnavailable, kBusy);
  EXPECT_EQ(s.verdict, vmr::Verdict::Fail);
  EXPECT_EQ(s.detail,
            "device 3 is in compute mode EXCLUSIVE_PROCESS and another process holds it (a job, or a context a dead "
            "job left behind: nvidia-smi --query-compute-apps=pid,process_name --format=csv names it); " +
                kBusy);
}

// Whatever the driver answers there: cuda.h documents CUDA_ERROR_UNKNOWN for a context made on a PROHIBITED GPU.
TEST(CudaRules, ProhibitedSkipsWhateverTheError) {
  for (int error : {kErrorDeviceUnavailable, 999}) {
    const vmr::Status s = context_refused(1, kComputeModeProhibited, 1, error, kBusy);
    EXPECT_EQ(s.verdict, vmr::Verdict::Skip) << error;
    EXPECT_EQ(s.detail,
              "device 1 is in compute mode PROHIBITED: no process may create a context on it (nvidia-smi "
              "-c DEFAULT); " +
                  kBusy);
  }
}

// Anything else stays the FAIL naming the call: a DEFAULT-mode GPU that refuses a context is broken (or out of
// memory), another error in EXCLUSIVE_PROCESS is not the mode's doing, and a mode that could not be read (-1) tells
// nothing.
TEST(CudaRules, OtherRefusalsFail) {
  for (auto [mode, error] :
       {std::pair{kComputeModeDefault, kErrorDeviceUnavailable}, std::pair{1, kErrorDeviceUnavailable},
        std::pair{kComputeModeExclusiveProcess, 2}, std::pair{-1, kErrorDeviceUnavailable}}) {
    const vmr::Status s = context_refused(0, mode, 2, error, "cudaFree returned X");
    EXPECT_EQ(s.verdict, vmr::Verdict::Fail) << mode << " " << error;
    EXPECT_EQ(s.detail, "cudaFree returned X");
  }
}

// A build without code for the GPU (an sm_80-only build on an H200) must SKIP naming the GPU's sm and the targets
// built: every launch would fail "no kernel image", a FAIL that is the build's, and health-check would drain.
namespace {
const std::string kNoImage =
    "cudaFuncGetAttributes returned cudaErrorNoKernelImageForDevice (no kernel image is "
    "available for execution on the device)";
}

TEST(CudaRules, KernelImagePresentPasses) {
  EXPECT_EQ(missing_kernel_image(0, 9, 0, 0, "", "75-real,80-real,90-real,120").verdict, vmr::Verdict::Pass);
}

TEST(CudaRules, NoKernelImageSkipsNamingTheSmAndTheTargets) {
  const vmr::Status s = missing_kernel_image(1, 9, 0, kErrorNoKernelImageForDevice, kNoImage, "80-real");
  EXPECT_EQ(s.verdict, vmr::Verdict::Skip);
  EXPECT_EQ(s.detail,
            "device 1: this build has no code for sm_90 (built for 80-real): reconfigure with "
            "-DCMAKE_CUDA_ARCHITECTURES=90 (or leave it unset: every architecture nvcc supports); " +
                kNoImage);
}

TEST(CudaRules, NoKernelImageNamesMinorAndEmptyTargets) {
  const vmr::Status s = missing_kernel_image(0, 8, 9, kErrorNoKernelImageForDevice, kNoImage, "");
  EXPECT_EQ(s.verdict, vmr::Verdict::Skip);
  EXPECT_NE(s.detail.find("no code for sm_89 (built for nothing)"), std::string::npos) << s.detail;
}

// Only PTX newer than the driver's compiler: still the build's fault (real code for the GPU fixes it).
TEST(CudaRules, PtxNewerThanTheDriverSkips) {
  const vmr::Status s = missing_kernel_image(0, 8, 0, kErrorUnsupportedPtxVersion, "e", "120-virtual");
  EXPECT_EQ(s.verdict, vmr::Verdict::Skip);
  EXPECT_NE(s.detail.find("sm_80 is PTX newer than this driver compiles (built for 120-virtual)"), std::string::npos)
      << s.detail;
}

// Any other answer is no statement about the build: the FAIL it was, named.
TEST(CudaRules, OtherErrorOfTheImageCheckFails) {
  const vmr::Status s =
      missing_kernel_image(0, 9, 0, 98, "cudaFuncGetAttributes returned cudaErrorInvalidDeviceFunction", "90");
  EXPECT_EQ(s.verdict, vmr::Verdict::Fail);
  EXPECT_EQ(s.detail, "cudaFuncGetAttributes returned cudaErrorInvalidDeviceFunction");
}

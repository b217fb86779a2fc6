// The environment variables that change what the GPU runtimes do (or which GPUs they see): the one list, kept in
// every run's record and environment block (env_block.cpp) and printed by scripts/collect-env, which reads the two
// arrays below from this file: one quoted name a line between "= {" and "};", so keep that form.
#pragma once

namespace vmr {

// clang-format off
// Always listed, "(unset)" when absent: the device selection and the switches a bug report is first asked about.
inline constexpr const char* kRuntimeVariables[] = {
    "HIP_VISIBLE_DEVICES",
    "ROCR_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
    "AMD_LOG_LEVEL",
    "HSA_XNACK",
    "HSA_FORCE_FINE_GRAIN_PCIE",
};
// Besides those, every variable set whose name starts so (NVIDIA_: the container toolkit's GPU selection).
inline constexpr const char* kRuntimeVariablePrefixes[] = {
    "HSA_",
    "HIP_",
    "ROCR_",
    "AMD_",
    "GPU_",
    "CUDA_",
    "NCCL_",
    "NVIDIA_",
    "CTEST_RESOURCE_",
    "VMR_",
};
// clang-format on

}  // namespace vmr

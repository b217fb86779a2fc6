// The unit-test binary is also a reproducer binary: the launcher tests exec /proc/self/exe, which lands here
// with the rank flag and runs one of the rank-side cases in test_rank_cases.cpp, or with the device-count flag and
// answers with their fake backend count.
#include <gtest/gtest.h>

#include <string_view>

#include "harness/options.h"
#include "test_rank_cases.h"

int main(int argc, char** argv) {
  if (argc >= 2 && (std::string_view(argv[1]).rfind(vmr::kRankFlag, 0) == 0 || argv[1] == vmr::kDeviceCountFlag))
    return vmr::repro_main(vmr_test::rank_cases(), argc, argv);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

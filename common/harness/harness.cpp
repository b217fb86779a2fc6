// One program, three roles: a process started with the rank flag is a rank, one started with the device-count flag
// the launcher's device probe, any other the launcher.
#include "harness/harness.h"

#include <unistd.h>

#include <cstdio>
#include <string_view>

#include "harness/device_probe.h"
#include "harness/launcher.h"
#include "harness/options.h"
#include "harness/rank_process.h"

namespace vmr {

int repro_main(const ReproBinary& bin, int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]).rfind(kRankFlag, 0) == 0) {
    int code = rank_main(bin, argc, argv);
    // _exit: a GPU runtime's exit-time teardown must not turn a reported verdict into a crash (and vmr_hip leaves
    // its VMem unreleased after a stale unmap, which only _exit makes safe: amd/hip_vmem.h teardown_unsafe).
    std::fflush(nullptr);
    ::_exit(code);
  }
  if (argc >= 2 && std::string_view(argv[1]) == kDeviceCountFlag) {
    int code = device_count_main(bin, argc, argv);
    std::fflush(nullptr);
    ::_exit(code);  // as a rank: no runtime teardown after the answer
  }
  return launcher_main(bin, argc, argv);
}

}  // namespace vmr

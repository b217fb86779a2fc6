// How many devices the binary's runtime shows, asked by the launcher of a child process: the launcher itself never
// loads a GPU runtime (a GPU fault must not reach the process CTest starts, and CUDA must not be initialised before
// a fork), so a probe (fork + exec of /proc/self/exe with kDeviceCountFlag) calls the backend's count and writes
// the number to a pipe. Only asked when nothing chose the devices (options.h default_devices).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <string>

#include "harness/binary_table.h"
#include "harness/options.h"

namespace vmr {

// A GPU runtime's start takes well under a second on one GPU and a few on eight; a probe that has not answered in
// this long is killed, and the ranks run on 0..N-1. Within CTest's 90 s above a case's 60 s and its kill.
constexpr double kDeviceProbeTimeoutS = 15;

struct DeviceProbe {
  std::string exe = "/proc/self/exe";
  double timeout_s = kDeviceProbeTimeoutS;
  double kill_wait_s = 2.0;  // after SIGKILL, how long to wait for a probe stuck in the kernel
  // Set by the launcher's SIGINT/SIGTERM/SIGHUP handler: the probe is stopped at once.
  const volatile sig_atomic_t* interrupt = nullptr;
};

struct ProbeAnswer {
  VisibleDevices visible;
  pid_t pid = -1;      // the probe's process (gone, reaped, unless `stuck`)
  bool stuck = false;  // it ignored SIGKILL (in the kernel) and was left
};

// Starts the probe, reads its answer under the deadline, kills its process group when the deadline passes or the
// launcher is interrupted, and reaps it: no probe is left behind on any path but one stuck in the kernel.
ProbeAnswer probe_visible_devices(const DeviceProbe& probe);

// The probe's side: in the process started with kDeviceCountFlag, the backend's count written to fd 3 as
// "visible=N\n"; the exit code is the count's verdict's (SKIP where the runtime shows none it can name).
int device_count_main(const ReproBinary& bin, int argc, char** argv);

}  // namespace vmr

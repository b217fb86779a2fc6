// How a rank ended, from its waitpid status.
#pragma once

#include <string>

namespace vmr {

struct ExitInfo {
  bool signaled = false;
  int code = 0;    // exit code when !signaled
  int signal = 0;  // signal number when signaled
  bool core_dumped = false;
};

ExitInfo classify_wait_status(int wstatus);
std::string signal_name(int sig);  // "SIGSEGV"; "signal 64" when the number has no name
std::string describe(
    const ExitInfo& e);  // "exited with code 1" / "killed by SIGSEGV (Segmentation fault), core dumped"

}  // namespace vmr

#include "harness/wait_status.h"

#include <string.h>
#include <sys/wait.h>

namespace vmr {

ExitInfo classify_wait_status(int wstatus) {
  ExitInfo e;
  if (WIFSIGNALED(wstatus)) {
    e.signaled = true;
    e.signal = WTERMSIG(wstatus);
    e.core_dumped = WCOREDUMP(wstatus);
  } else if (WIFEXITED(wstatus)) {
    e.code = WEXITSTATUS(wstatus);
  }
  return e;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

std::string describe(const ExitInfo& e) {
  if (!e.signaled) return "exited with code " + std::to_string(e.code);
  std::string out = "killed by " + signal_name(e.signal);
  const char* text = sigdescr_np(e.signal);
  if (text) out += std::string(" (") + text + ")";
  if (e.core_dumped) out += ", core dumped";
  return out;
}

}  // namespace vmr

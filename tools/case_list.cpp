#include "case_list.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "harness/deadline.h"
#include "harness/json.h"
#include "harness/options.h"
#include "harness/scope_guard.h"
#include "harness/text.h"
#include "input_file.h"
#include "run_records.h"

namespace vmr_tools {

using namespace vmr;

Status parse_case_list(const std::string& json, CaseList* out) {
  JsonValue v;
  VMR_TRY(parse_json(json, &v));
  if (v.get_string("schema") != "vmem-repro-cases/1") return Status::harness("not a vmem-repro case list");
  CaseList list;
  list.binary = v.get_string("binary");
  const JsonValue* cases = v.get("cases");
  if (list.binary.empty() || !cases || cases->type != JsonValue::Array)
    return Status::harness("a case list without its binary or cases");
  for (const auto& c : cases->arr) {
    const JsonValue* opt_in = c.get("opt_in");
    ListedCase lc{c.get_string("name"), opt_in && opt_in->type == JsonValue::Bool && opt_in->b, {}};
    if (!is_valid_case_name(lc.name) || !opt_in || opt_in->type != JsonValue::Bool)
      return Status::harness("case list of " + list.binary + ": a case without a valid name and opt_in");
    if (const JsonValue* labels = c.get("labels"); labels && labels->type == JsonValue::Array) {
      for (const auto& l : labels->arr) {
        if (l.type != JsonValue::String) return Status::harness("case list of " + list.binary + ": a label not text");
        lc.labels.push_back(l.str);
      }
    }
    for (const auto& seen : list.cases)
      if (seen.name == lc.name) return Status::harness("case list of " + list.binary + " names " + lc.name + " twice");
    list.cases.push_back(lc);
  }
  *out = std::move(list);
  return Status::pass();
}

Status list_binary(const std::string& binary, CaseList* out, int timeout_s) {
  const char* tmpdir = ::getenv("TMPDIR");
  std::string path = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/vmr-case-list-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0)
    return Status::harness("cannot make a temporary file for " + binary + " --list --json: " + std::strerror(errno));
  ::close(fd);
  ScopeExit remove([&] { ::unlink(path.c_str()); });
  ::signal(SIGCHLD, SIG_DFL);  // handed down ignored, the kernel would reap the child and waitpid fail
  const pid_t pid = ::fork();
  if (pid < 0) return Status::harness("fork for " + binary + " --list --json failed: " + std::strerror(errno));
  if (pid == 0) {
    // As scripts/lib/case_list.sh lists for CMake, triage and bisect: the HIP runtime must not start at load time.
    ::setenv("HIP_ENABLE_DEFERRED_LOADING", "1", 1);
    ::execl(binary.c_str(), binary.c_str(), "--list", "--json", path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Bounded: a binary that hangs while listing (a runtime started at load time, say) must not hang triage.
  int status = 0;
  const int64_t give_up = monotonic_ns() + int64_t(timeout_s) * 1000000000;
  for (;;) {
    const pid_t reaped = ::waitpid(pid, &status, WNOHANG);
    if (reaped == pid) break;
    if (reaped < 0 && errno != EINTR) return Status::harness("waitpid for " + binary + " --list --json failed");
    if (monotonic_ns() > give_up) {
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return Status::harness(binary + " --list --json did not finish in " + std::to_string(timeout_s) + " s: killed");
    }
    ::usleep(10000);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Status::harness(binary + " --list --json " +
                           (WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                              : "was killed by signal " + std::to_string(WTERMSIG(status))));
  std::string text;
  VMR_TRY(read_input_file(path, &text, "what " + binary + " --list --json wrote"));
  return parse_case_list(text, out);
}

}  // namespace vmr_tools

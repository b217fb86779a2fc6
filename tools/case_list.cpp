#include "case_list.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

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
    ListedCase lc{c.get_string("name"), opt_in && opt_in->type == JsonValue::Bool && opt_in->b, {}, false};
    if (!is_valid_case_name(lc.name) || !opt_in || opt_in->type != JsonValue::Bool)
      return Status::harness("case list of " + list.binary + ": a case without a valid name and opt_in");
    if (const JsonValue* crash = c.get("known_crash"); crash && crash->type == JsonValue::Bool)
      lc.known_crash = crash->b;
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

// The one lister (scripts/lib/case_list.sh) holds the policy (the runtime's deferred loading, the time limit) and
// says in one line why a listing failed; built in from the checkout this was built from.
#ifndef VMR_CASE_LISTER
#define VMR_CASE_LISTER "scripts/lib/case_list.sh"
#endif

Status list_binary(const std::string& binary, CaseList* out) {
  const std::string lister = VMR_CASE_LISTER;
  if (::access(lister.c_str(), R_OK) != 0)
    return Status::harness("cannot list " + binary + ": the lister " + lister + " is not there (" +
                           std::strerror(errno) + ")");
  const char* tmpdir = ::getenv("TMPDIR");
  std::string path = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/vmr-case-list-XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0)
    return Status::harness("cannot make a temporary file for " + binary + " --list --json: " + std::strerror(errno));
  ::close(fd);
  const std::string said_path = path + ".said";
  ScopeExit remove([&] {
    ::unlink(path.c_str());
    ::unlink(said_path.c_str());
  });
  ::signal(SIGCHLD, SIG_DFL);  // handed down ignored, the kernel would reap the child and waitpid fail
  const pid_t pid = ::fork();
  if (pid < 0) return Status::harness("fork for " + binary + " --list --json failed: " + std::strerror(errno));
  if (pid == 0) {
    // The lister's one line on failure goes to a file of ours; stdout is the binary's human list, not wanted.
    const int said = ::open(said_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (said < 0 || null < 0 || ::dup2(said, 2) < 0 || ::dup2(null, 1) < 0) ::_exit(126);
    ::execlp("bash", "bash", "-c", "source \"$0\" && vmr_list_cases \"$1\" \"$2\"", lister.c_str(), binary.c_str(),
             path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return Status::harness("waitpid for " + binary + " --list --json failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string said;
    (void)read_input_file(said_path, &said, "the lister's stderr");
    said = one_line(std::string(trim(said)));
    if (said.empty())
      said = "bash " + lister + " for " + binary + " --list --json " +
             (WIFEXITED(status) ? "exited " + std::to_string(WEXITSTATUS(status))
                                : "was killed by signal " + std::to_string(WTERMSIG(status)));
    return Status::harness(said);
  }
  std::string text;
  VMR_TRY(read_input_file(path, &text, "what " + binary + " --list --json wrote"));
  return parse_case_list(text, out);
}

}  // namespace vmr_tools

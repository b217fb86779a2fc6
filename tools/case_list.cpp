#include "case_list.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "harness/json.h"
#include "harness/options.h"
#include "harness/scope_guard.h"
#include "harness/text.h"
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
    ListedCase lc{c.get_string("name"), opt_in && opt_in->type == JsonValue::Bool && opt_in->b};
    if (!is_valid_case_name(lc.name) || !opt_in || opt_in->type != JsonValue::Bool)
      return Status::harness("case list of " + list.binary + ": a case without a valid name and opt_in");
    list.cases.push_back(lc);
  }
  *out = std::move(list);
  return Status::pass();
}

Status list_binary(const std::string& binary, CaseList* out) {
  char path[] = "/tmp/vmr-case-list-XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return Status::harness("cannot make a temporary file for " + binary + " --list --json");
  ::close(fd);
  ScopeExit remove([&] { ::unlink(path); });
  const pid_t pid = ::fork();
  if (pid < 0) return Status::harness("fork for " + binary + " --list --json failed");
  if (pid == 0) {
    ::execl(binary.c_str(), binary.c_str(), "--list", "--json", path, static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  pid_t reaped;
  do reaped = ::waitpid(pid, &status, 0);
  while (reaped < 0 && errno == EINTR);
  if (reaped != pid) return Status::harness("waitpid for " + binary + " --list --json failed");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return Status::harness(binary + " --list --json failed");
  std::string text;
  if (!read_file(path, &text)) return Status::harness("cannot read what " + binary + " --list --json wrote");
  return parse_case_list(text, out);
}

}  // namespace vmr_tools

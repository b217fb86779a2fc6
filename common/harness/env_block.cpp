#include "harness/env_block.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string_view>

#include "harness/runtime_variables.h"
#include "harness/text.h"

extern char** environ;

#ifndef VMEM_REPRO_VERSION
#define VMEM_REPRO_VERSION "unknown"
#endif

namespace vmr {

namespace {

std::string first_value(const char* path, const std::string& key, char sep) {
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    size_t at = line.find(sep);
    if (at == std::string::npos) continue;
    std::string k = line.substr(0, at);
    k.erase(k.find_last_not_of(" \t") + 1);
    if (k != key) continue;
    std::string v = line.substr(at + 1);
    v.erase(0, v.find_first_not_of(" \t\""));
    v.erase(v.find_last_not_of(" \t\"") + 1);
    return v;
  }
  return "unknown";
}

}  // namespace

EnvFacts host_environment(const std::string& binary, const std::string& backend) {
  EnvFacts f;
  f.emplace_back("binary", binary);
  f.emplace_back("version", VMEM_REPRO_VERSION);
  f.emplace_back("backend", backend);
  utsname u{};
  if (::uname(&u) == 0) {
    f.emplace_back("host", u.nodename);
    // The node as a fleet report names it: Slurm's name for it (several Slurm nodes may share one host), else the host.
    const char* slurm_node = ::getenv("SLURMD_NODENAME");
    f.emplace_back("node", slurm_node && *slurm_node ? slurm_node : u.nodename);
    f.emplace_back("kernel", std::string(u.sysname) + " " + u.release + " " + u.version + " " + u.machine);
  }
  f.emplace_back("os", first_value("/etc/os-release", "PRETTY_NAME", '='));
  f.emplace_back("cpu", first_value("/proc/cpuinfo", "model name", ':') + " (" +
                            std::to_string(::sysconf(_SC_NPROCESSORS_ONLN)) + " online)");
  return f;
}

EnvFacts runtime_variables() { return runtime_variables(environ); }

EnvFacts runtime_variables(const char* const* env) {
  const auto value_of = [&](std::string_view name) -> const char* {
    for (const char* const* e = env; e && *e; ++e)
      if (std::strncmp(*e, name.data(), name.size()) == 0 && (*e)[name.size()] == '=') return *e + name.size() + 1;
    return nullptr;
  };
  EnvFacts vars;
  for (const char* name : kRuntimeVariables) {
    const char* v = value_of(name);
    vars.emplace_back(name, v ? v : "(unset)");
  }
  for (const char* const* e = env; e && *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    std::string k = kv.substr(0, eq);
    bool relevant = std::any_of(std::begin(kRuntimeVariablePrefixes), std::end(kRuntimeVariablePrefixes),
                                [&](const char* p) { return k.rfind(p, 0) == 0; });
    bool listed = std::any_of(vars.begin(), vars.end(), [&](auto& p) { return p.first == k; });
    if (relevant && !listed) vars.emplace_back(k, kv.substr(eq + 1));
  }
  std::sort(vars.begin() + std::size(kRuntimeVariables), vars.end());
  return vars;
}

std::string format_env_block(const EnvFacts& host, const EnvFacts& vars) {
  std::string out = "=== environment (paste into bug reports) ===\n";
  // Values come from the machine and the environment: printable() keeps each on its line, whatever they hold.
  for (const auto& [k, v] : host) out += k + ": " + printable(v, 400) + "\n";
  out += "env:";
  for (const auto& [k, v] : vars) out += " " + printable(k, 100) + "=" + printable(v, 400);
  out += "\n";
  return out;
}

}  // namespace vmr

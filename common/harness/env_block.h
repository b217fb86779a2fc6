// The paste-ready environment block printed at the start of every run: the host facts the launcher can read
// without touching a GPU runtime. Backends add their facts from inside the ranks (RankContext::info).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace vmr {

using EnvFacts = std::vector<std::pair<std::string, std::string>>;

EnvFacts host_environment(const std::string& binary, const std::string& backend);
// The variables of harness/runtime_variables.h: the named ones always ("(unset)" when absent), then every other
// one set with one of its prefixes, sorted; of the launcher's environment, or of `env` (environ-style, null-terminated:
// the environment a case's ranks get, case_environment.h).
EnvFacts runtime_variables();
EnvFacts runtime_variables(const char* const* env);
std::string format_env_block(const EnvFacts& host, const EnvFacts& vars);

}  // namespace vmr

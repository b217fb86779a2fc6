// A case's own environment (binary_table.h Case::environment): the variables its ranks must find set or absent before
// any GPU runtime starts, since the runtimes read them once, at start (ROCr reads HSA_ENABLE_IPC_MODE_LEGACY when it
// initialises: rocr-runtime 6.4.3 core/util/flag.h:244). The launcher starts fresh ranks wherever it changes between
// two cases and hands the ranks the launcher's environment with these changes (supervisor.h LaunchPlan). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/status.h"

namespace vmr {

struct EnvChange {
  std::string name;
  bool set = false;   // false: removed
  std::string value;  // when set
  bool operator==(const EnvChange& o) const { return name == o.name && set == o.set && value == o.value; }
};

// `NAME=VALUE` and `NAME` (removed) separated by blanks; a name is [A-Za-z_][A-Za-z0-9_]*, named once. Anything
// else is the binary's own mistake: HARNESS naming it.
Status parse_environment_changes(std::string_view text, std::vector<EnvChange>* out);

// `base` (an environ-style array, null-terminated) with every variable the changes name left out, then the ones
// they set, in their order.
std::vector<std::string> changed_environment(const char* const* base, const std::vector<EnvChange>& changes);

// One line for the case's run line and its record: "HSA_ENABLE_IPC_MODE_LEGACY=1, FOO unset"; "" for none.
std::string environment_text(const std::vector<EnvChange>& changes);

}  // namespace vmr

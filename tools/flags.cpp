#include "flags.h"

#include <algorithm>

namespace vmr_tools {

namespace {

template <typename T>
T* find_flag(const std::vector<std::pair<const char*, T*>>& table, const std::string& flag) {
  auto it = std::find_if(table.begin(), table.end(), [&](const auto& f) { return flag == f.first; });
  return it == table.end() ? nullptr : it->second;
}

}  // namespace

bool parse_flags(const std::vector<std::string>& args, const Flags& flags) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--", 0) != 0) {
      if (!flags.words) return false;
      flags.words->push_back(a);
      continue;
    }
    if (bool* on = find_flag(flags.switches, a)) {
      *on = true;
      continue;
    }
    std::string* value = find_flag(flags.values, a);
    std::vector<std::string>* list = find_flag(flags.lists, a);
    if ((!value && !list) || i + 1 >= args.size()) return false;
    if (value)
      *value = args[++i];
    else
      list->push_back(args[++i]);
  }
  return true;
}

}  // namespace vmr_tools

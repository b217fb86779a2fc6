// The tools' command lines: every flag but a switch takes one value, a flag the tool does not know is a usage error
// (exit 2), and so is a word where the tool takes none. One parser, so that check_expected's modes and fleet_report
// read their arguments alike.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace vmr_tools {

struct Flags {
  std::vector<std::pair<const char*, std::string*>> values;              // one value each (the last one given wins)
  std::vector<std::pair<const char*, std::vector<std::string>*>> lists;  // may be given again, each value kept
  std::vector<std::pair<const char*, bool*>> switches;                   // no value
  std::vector<std::string>* words = nullptr;                             // the words that are not flags; null: none
};

// False on a flag that is not among `flags`, a flag without its value, or a word where none is taken.
bool parse_flags(const std::vector<std::string>& args, const Flags& flags);

}  // namespace vmr_tools

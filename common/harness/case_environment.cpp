#include "harness/case_environment.h"

#include <cctype>

#include "harness/text.h"

namespace vmr {

namespace {

bool valid_name(std::string_view n) {
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

}  // namespace

Status parse_environment_changes(std::string_view text, std::vector<EnvChange>* out) {
  out->clear();
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ' || text[i] == '\t') {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && text[end] != ' ' && text[end] != '\t') ++end;
    const std::string_view word = text.substr(i, end - i);
    i = end;
    EnvChange c;
    const size_t eq = word.find('=');
    c.name = std::string(word.substr(0, eq));
    c.set = eq != std::string_view::npos;
    if (c.set) c.value = std::string(word.substr(eq + 1));
    if (!valid_name(c.name))
      return Status::harness("suite bug: a case's environment names '" + printable(std::string(word), 80) +
                             "', not NAME=VALUE or NAME");
    for (const auto& o : *out)
      if (o.name == c.name) return Status::harness("suite bug: a case's environment names " + c.name + " twice");
    out->push_back(std::move(c));
  }
  return Status::pass();
}

std::vector<std::string> changed_environment(const char* const* base, const std::vector<EnvChange>& changes) {
  std::vector<std::string> env;
  for (const char* const* e = base; e && *e; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool changed = false;
    for (const auto& c : changes) changed = changed || c.name == name;
    if (!changed) env.emplace_back(entry);
  }
  for (const auto& c : changes)
    if (c.set) env.push_back(c.name + "=" + c.value);
  return env;
}

std::string environment_text(const std::vector<EnvChange>& changes) {
  std::string out;
  for (const auto& c : changes) {
    if (!out.empty()) out += ", ";
    out += c.set ? c.name + "=" + c.value : c.name + " unset";
  }
  return out;
}

}  // namespace vmr

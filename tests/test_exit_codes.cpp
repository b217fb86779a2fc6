// The verdict contract's exit codes live in one place, vmr::exit_code (common/harness/status.cpp). Every other
// statement of them is checked against it here: each table of README.md and docs/ whose rows name a verdict and an
// exit code, and scripts/lib/minimal.sh's decoding of a minimal file's exit code.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "harness/status.h"

namespace {

constexpr vmr::Verdict kAll[] = {vmr::Verdict::Pass, vmr::Verdict::Fail, vmr::Verdict::Usage,  vmr::Verdict::Crash,
                                 vmr::Verdict::Hang, vmr::Verdict::Skip, vmr::Verdict::Harness};

// The verdict a table's first cell names: its name ("PASS", "HARNESS"), or the README's words for the suite's own
// two ("usage error", "harness error").
std::optional<vmr::Verdict> verdict_of_cell(std::string cell) {
  if (cell == "usage error") return vmr::Verdict::Usage;
  if (cell == "harness error") return vmr::Verdict::Harness;
  for (auto& c : cell) c = char(std::toupper(static_cast<unsigned char>(c)));
  return vmr::verdict_from_name(cell);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every "| <verdict> | <number> | ..." row of the Markdown file at `path`, as (line, verdict, code).
struct TableRow {
  int line;
  vmr::Verdict verdict;
  int code;
};
std::vector<TableRow> verdict_rows(const std::string& path) {
  std::vector<TableRow> rows;
  std::istringstream in(read_file(path));
  const std::regex row(R"(^\|\s*([A-Za-z ]+?)\s*\|\s*([0-9]+)\s*\|)");
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    if (auto v = verdict_of_cell(m[1].str())) rows.push_back({n, *v, std::stoi(m[2].str())});
  }
  return rows;
}

std::string shell_output(const std::string& command) {
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return "(popen failed)";
  std::array<char, 256> buf{};
  while (std::fgets(buf.data(), int(buf.size()), p)) out += buf.data();
  ::pclose(p);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

TEST(ExitCodes, EveryVerdictHasItsOwnCode) {
  std::map<int, vmr::Verdict> seen;
  for (auto v : kAll) {
    auto [it, added] = seen.emplace(vmr::exit_code(v), v);
    EXPECT_TRUE(added) << vmr::verdict_name(v) << " shares exit " << it->first << " with "
                       << vmr::verdict_name(it->second);
  }
}

TEST(ExitCodes, TheReadmesTablesSayWhatTheCodeDoes) {
  // README.md and every page of docs/ (a page added later is read too).
  std::vector<std::string> files = {std::string(VMR_SOURCE_DIR) + "/README.md"};
  const std::filesystem::path docs = std::filesystem::path(VMR_SOURCE_DIR) / "docs";
  for (const auto& entry : std::filesystem::directory_iterator(docs))
    if (entry.path().extension() == ".md") files.push_back(entry.path().string());
  EXPECT_GE(files.size(), 5u) << "docs/ has too few pages: is VMR_SOURCE_DIR the source folder?";
  int complete_tables = 0;
  for (const auto& file : files) {
    auto rows = verdict_rows(file);
    std::map<vmr::Verdict, int> named;
    for (const auto& r : rows) {
      EXPECT_EQ(r.code, vmr::exit_code(r.verdict))
          << file << ":" << r.line << " gives " << vmr::verdict_name(r.verdict) << " exit " << r.code;
      named[r.verdict] = r.code;
    }
    complete_tables += named.size() == std::size(kAll);
  }
  EXPECT_GE(complete_tables, 1) << "no table of README.md or docs/ lists all seven verdicts with their exit codes";
}

TEST(ExitCodes, MinimalFilesDecodeEveryCodeToItsVerdict) {
  const std::string lib = std::string(VMR_SOURCE_DIR) + "/scripts/lib/minimal.sh";
  for (auto v : kAll) {
    const std::string said = shell_output("bash -c 'source \"" + lib + "\" && vmr_minimal_verdict " +
                                          std::to_string(vmr::exit_code(v)) + "' 2>&1");
    EXPECT_EQ(said, vmr::verdict_name(v)) << "vmr_minimal_verdict " << vmr::exit_code(v);
  }
}

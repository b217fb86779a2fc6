// The JUnit XML both tools write (check_expected --junit, fleet_report --junit), so that CI systems show each case
// as a test: one writer, one escaping, the counts computed from the cases themselves.
#pragma once

#include <string>
#include <vector>

namespace vmr_tools {

struct JunitCase {
  enum class Outcome { Pass, Failure, Skipped, Error };
  std::string classname, name;
  Outcome outcome = Outcome::Pass;
  std::string message;  // the one-line reason (failure, skip or error)
  std::string text;     // the failure's body, if any
};

struct JunitSuite {
  std::string name;
  std::vector<JunitCase> cases;
};

// <testsuites name="NAME"> with each suite and the totals of tests, failures, errors and skipped.
std::string junit_xml(const std::string& name, const std::vector<JunitSuite>& suites);

}  // namespace vmr_tools

#include "junit.h"

#include <sstream>

#include "run_records.h"

namespace vmr_tools {

namespace {

struct Counts {
  size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  void add(const Counts& o) { tests += o.tests, failures += o.failures, errors += o.errors, skipped += o.skipped; }
  std::string attributes() const {
    return "tests=\"" + std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"" +
           std::to_string(errors) + "\" skipped=\"" + std::to_string(skipped) + "\"";
  }
};

std::string case_xml(const JunitCase& c, Counts* n) {
  ++n->tests;
  std::string x = "    <testcase classname=\"" + xml_escape(c.classname) + "\" name=\"" + xml_escape(c.name) + "\">";
  const std::string message = "message=\"" + xml_escape(c.message) + "\"";
  switch (c.outcome) {
    case JunitCase::Outcome::Pass:
      break;
    case JunitCase::Outcome::Failure:
      ++n->failures;
      x += "<failure " + message + (c.text.empty() ? "/>" : ">" + xml_escape(c.text) + "</failure>");
      break;
    case JunitCase::Outcome::Skipped:
      ++n->skipped;
      x += "<skipped " + message + "/>";
      break;
    case JunitCase::Outcome::Error:
      ++n->errors;
      x += "<error " + message + "/>";
      break;
  }
  return x + "</testcase>\n";
}

}  // namespace

std::string junit_xml(const std::string& name, const std::vector<JunitSuite>& suites) {
  Counts all;
  std::ostringstream body;
  for (const auto& s : suites) {
    Counts n;
    std::string cases;
    for (const auto& c : s.cases) cases += case_xml(c, &n);
    body << "  <testsuite name=\"" << xml_escape(s.name) << "\" " << n.attributes() << ">\n"
         << cases << "  </testsuite>\n";
    all.add(n);
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" + xml_escape(name) + "\" " +
         all.attributes() + ">\n" + body.str() + "</testsuites>\n";
}

}  // namespace vmr_tools

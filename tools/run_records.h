// The run records a triage or a CTest run leaves (<binary>[.<devices>].json, one case or several each), read as one
// Run per case: what check_expected compares with expected/ and scripts/fleet aggregates over nodes.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/expected.h"
#include "harness/rank_record.h"

namespace vmr_tools {

using vmr::Facts;
using vmr::Verdict;

bool read_file(const std::string& path, std::string* out);
// Outside text (folder and node names, case names, facts, reasons) made safe for a report: one line (control bytes
// as \xNN, so a newline cannot forge a table row or a console line) and valid UTF-8 (else U+FFFD).
std::string one_line(const std::string& s);
// The same for Markdown, where a `|` would end a table cell (or start one in a heading a table follows): escaped.
std::string md_text(const std::string& s);
// Text for an XML attribute or element (JUnit reports): one line, control bytes escaped, valid UTF-8 (else U+FFFD:
// the file says it is UTF-8), & < > " as entities.
std::string xml_escape(const std::string& s);

// One run of one case, as its JSON record tells it.
struct Run {
  std::string file, binary, backend, case_name, pair;  // pair: "0-1" when the run chose its devices (--devices)
  Verdict verdict = Verdict::Harness;
  std::string detail, metric;        // metric: the case's first metric, short
  std::vector<vmr::Metric> metrics;  // every case-level metric, in the record's order (a Prometheus textfile's)
  Facts facts;                       // environment, then rank 0's info
  std::vector<std::map<std::string, std::string>> rank_info;
  std::vector<std::vector<std::string>> stderr_tails;  // per rank
  std::string error;                                   // the record could not be read

  // The command that reruns this case where it ran. Every '-' of the pair becomes ',': a mesh's "0-1-2" is
  // --devices 0,1,2 (the binary refuses "0,1-2" with exit 2).
  std::string command() const {
    std::string devices = pair;
    std::replace(devices.begin(), devices.end(), '-', ',');
    return binary + " --case " + case_name + (devices.empty() ? "" : " --devices " + devices);
  }
};

// The runs of one record: one per case (a launch may run several cases in one rank life).
std::vector<Run> read_record(const std::string& dir, const std::string& file);
// Every record (*.json but summary.json) of a results folder, in file name order.
std::vector<Run> read_runs(const std::string& dir);

}  // namespace vmr_tools

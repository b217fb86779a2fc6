// The run records a triage or a CTest run leaves (<binary>[.<devices>].json, one case or several each), read as one
// Run per case: what check_expected compares with expected/ and scripts/fleet aggregates over nodes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/expected.h"
#include "harness/rank_record.h"
#include "pair.h"

namespace vmr_tools {

using vmr::Facts;
using vmr::Verdict;

// Outside text (folder and node names, case names, facts, reasons) made safe for a report: one line (control bytes
// as \xNN, so a newline cannot forge a table row or a console line) and valid UTF-8 (else U+FFFD).
std::string one_line(const std::string& s);
// What a markup language needs of outside text besides & < > " as entities (markup_escape's options).
struct MarkupRules {
  size_t max_bytes;     // printable's cap on the text before escaping
  bool apostrophe;      // ' as &#39; too (HTML: safe inside a single-quoted attribute value)
  bool xml_chars_only;  // U+FFFE and U+FFFF as U+FFFD (no XML 1.0 characters: a parser refuses the whole file)
};
// `s` for an element or a quoted attribute of markup: one line (control bytes as \xNN), valid UTF-8 (else U+FFFD),
// & < > " (and per `rules` ') as entities. The one escaper of html_text (tools/html.h) and xml_escape.
std::string markup_escape(const std::string& s, const MarkupRules& rules);
// Text for an XML attribute or element (JUnit reports): one line, control bytes escaped, valid UTF-8 (else U+FFFD:
// the file says it is UTF-8) of XML 1.0 characters only (U+FFFE and U+FFFF as U+FFFD), & < > " as entities.
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
  // Per rank, as the record says how it ended: its exit code where it exited (none where a signal ended it or it was
  // not reaped), and whether it left its status record.
  struct RankEnd {
    std::optional<int> exit_code;
    bool reported = false;
  };
  std::vector<RankEnd> rank_ends;
  std::string error;  // the record could not be read
  // The file was refused before it was read (not a regular file, a symlink out of its folder, too large; or the
  // folder could not be listed): a problem of the input, never a verdict on the node that left it.
  bool refused = false;

  // The command that reruns this case where it ran: a mesh's "0-1-2" is --devices 0,1,2.
  std::string command() const {
    const std::string devices = pair_devices(pair_of(pair));
    return binary + " --case " + case_name + (devices.empty() ? "" : " --devices " + devices);
  }
};

// A metric as a report's cell shows it: "12.5 GB/s" (four significant digits, then the unit).
std::string metric_text(const vmr::Metric& m);

// The runs of the record `text` (of the file `file`): one per case (a launch may run several cases in one rank
// life).
std::vector<Run> parse_record(const std::string& file, const std::string& text);
// The runs of the record `file` of the folder `dir` (read as tools/input_file.h's read_folder_file says).
std::vector<Run> read_record(const std::string& dir, const std::string& file);
// Every record (*.json but summary.json) of a results folder, in file name order; a folder that cannot be listed is
// one refused run naming it.
std::vector<Run> read_runs(const std::string& dir);

}  // namespace vmr_tools

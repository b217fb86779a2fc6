// A triage as a Prometheus textfile, for node_exporter's textfile collector (--collector.textfile.directory): the
// cluster's alerting and dashboards read a node's verdicts, bandwidths and the triage's own outcome from there
// beside the node's other health metrics. The caller writes it through write_report (report.h), whose temporary
// file ".NAME.prom.XXXXXX" does not end in ".prom", so the collector never reads half a file.
//
// Every family is a gauge with one # HELP and one # TYPE line before its samples; families come in a fixed order,
// the samples of each sorted by their labels, so two writes of one triage are the same bytes. A family without
// samples is left out. Label values and HELP texts are valid UTF-8 with their escapes (prom_label_value,
// prom_help_text) and no raw control byte; values are C-locale floats.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report.h"
#include "run_records.h"

namespace vmr_tools {

// What the triage knows of its own run, beside the comparison.
struct PromFacts {
  double took_s = 0;          // the triage's wall time
  int exit_code = 0;          // the triage's exit code (0, 1, 77, 99, ...)
  std::string outcome;        // "as_expected" | "changed" | "nothing_ran" | "error"
  int64_t finished_unix = 0;  // when it finished, seconds since the epoch
};

// The outcome scripts/triage reports for its exit code: 0 as_expected, 1 changed, 77 nothing_ran, else error.
std::string prom_outcome(int exit_code);

// The textfile: per summary row (case x pair) its verdict and whether it CHANGED; per run the case-level metrics
// in GB/s (as bytes/s) and ops/s; the triage's duration, exit code, outcome, finish time and row counts.
std::string prom_textfile(const Summary& s, const PromFacts& f);

// A label value as the text format takes it: valid UTF-8 (else U+FFFD), \ " and newline escaped as \\ \" \n, and
// any other control byte (which the format has no escape for) as the reports write it, \xNN, its backslash escaped:
// CR reads back as the text "\x0d", never as a raw CR that splits the line for a line-based reader.
std::string prom_label_value(const std::string& s);
// A # HELP text as the text format takes it: the same, but only \ and newline are escaped there (a \" would be an
// unknown escape), so a double quote stays as it is.
std::string prom_help_text(const std::string& s);
// A sample value as the text format takes it, in any locale: the shortest text that reads back exactly, NaN,
// +Inf or -Inf.
std::string prom_value(double v);

}  // namespace vmr_tools

// report.html: a triage's verdicts as a page (tools/html.h: one self-contained file), beside its report.md.
#pragma once

#include <string>

#include "report.h"

namespace vmr_tools {

// From the summary.json the comparison wrote (as report.md): the counts, each case's exporter x importer matrix
// (rank 0's GPU x rank 1's, every cell coloured by its verdict, its text on hover), then every row, those that differ
// from expected/verdicts.md first, and the node's facts.
std::string report_html(const Summary& s);

}  // namespace vmr_tools

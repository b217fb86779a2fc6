// The fleet report's model: every node's triage folder read, the nodes named, a cell per case and node, the
// majority of each case and the nodes that differ, with the facts that set them apart. fleet_report's main reads
// the command line and writes what this computes (see the top of tools/fleet_report.cpp for the rules).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "report.h"
#include "run_records.h"

namespace vmr_tools {

struct Node {
  std::string name, dir, why;  // why: empty when it answered
  std::vector<Run> runs;
  std::map<std::string, std::string> facts;  // the facts every run of the node agrees on
  std::vector<std::string> problems;         // records it left that the report could not use, its table problems
  Summary summary;                           // its triage's own summary.json (no rows where it could not be read)
  // Files of its folder the reader refused (tools/input_file.h): input problems, never the node's (in no cell).
  std::vector<std::string> refused;
};

// One node's verdict over one case's runs: "PASS 56/56", "CRASH 3/56: 0->5, 2->5, 7->5".
// A planned run that left no record (a row "-" of the node's summary.json) is CHANGED and counts in `missing`; a
// cell of such runs only takes the verdict HARNESS (the launch left nothing to judge) for the majority.
struct Cell {
  Verdict verdict = Verdict::Skip;
  int worst = 0, total = 0, changed = 0, missing = 0;
  std::vector<std::string> pairs;  // of the worst verdict
  std::string text() const;
};

struct Majority {
  Verdict verdict = Verdict::Skip;
  bool tie = false;  // another verdict has as many nodes
  std::string text() const;
};

struct Difference {
  std::string case_name;
  Verdict verdict;
  std::vector<std::string> nodes, others;
  std::vector<std::pair<std::string, std::string>> facts;  // key, value the odd nodes share
  std::vector<int> others_differing;
};

using Cells = std::map<std::string, std::map<std::string, Cell>>;  // case -> node -> cell

struct Report {
  std::vector<Node> nodes;
  std::set<std::string> cases;
  Cells cells;
  std::vector<Difference> differences;
  std::map<std::string, Majority> majority;                               // per case
  std::map<std::string, std::map<std::string, std::string>> other_facts;  // key -> node -> value
  int silent = 0, problems = 0, refused = 0;
};

// "0->1" for a pair, "mesh 0-1-2" for a mesh run (pair_arrow), "-" for none.
std::string arrow(const std::string& pair);

// The nodes of `dirs` (and of the node list `nodes_file`, where given: those without a folder did not answer),
// named and sorted, each with the facts its runs agree on. Usage status naming the folder given twice (by its real
// path: "d/./n3", "d/n3/" and a symlink to d/n3 are d/n3); harness status where the node list cannot be read.
vmr::Status gather_nodes(const std::vector<std::string>& dirs, const std::string& nodes_file, const std::string& out,
                         std::vector<Node>* nodes);
// Cells, majorities, differences and the facts that differ without a verdict change, over `r->nodes`. A node's
// cell of a case is CHANGED at least as often as its own summary.json says (a triage's CHANGED is never lost).
void analyse_fleet(const std::vector<vmr::ExpectedRow>& table, Report* r);

std::string fleet_json(const Report& r);
std::string fleet_md(const Report& r);
// The console summary: counts, the nodes that did not answer, their problems, the files refused, each difference.
std::string fleet_console(const Report& r);
// One testcase per case, pair and node: a failure for a record that could not be used or a verdict other than
// expected/'s; a node that did not answer is one error, and so is each file of its folder that was refused.
std::string fleet_junit(const Report& r, const std::vector<vmr::ExpectedRow>& table);

}  // namespace vmr_tools

// The fleet report's model: every node's triage summary.json read, the nodes named, a cell per case and node, the
// majority of each case and the nodes that differ, with the facts that set them apart. fleet_report's main reads
// the command line and writes what this computes (see the top of tools/fleet_report.cpp for the rules).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "report.h"

namespace vmr_tools {

struct Node {
  std::string name, dir, why;                // why: empty when it answered
  std::map<std::string, std::string> facts;  // its summary's node facts (its records agree on each), less its name
  std::vector<std::string> problems;         // records its triage could not use, its table problems, a summary not read
  Summary summary;    // its triage's own summary.json: every cell of the node is made from its rows
  bool read = false;  // its summary.json was read (its rows and facts are in the report)
  // The input's problems, never the node's (in no cell): a file of its folder its triage or this report refused
  // (tools/input_file.h), a folder without summary.json, a summary of another version of the tools.
  std::vector<std::string> refused;
};

// One node's verdict over one case's rows of its summary: "PASS 56/56", "CRASH 3/56: 0->5, 2->5, 7->5". `changed`
// counts the rows its triage found CHANGED. A planned run that left no record (a missing_record row) is CHANGED and
// counts in `missing`; a cell of such runs only takes the verdict HARNESS (the launch left nothing to judge) for the
// majority.
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

// The nodes of `dirs` (and of the node list `nodes_file`, where given: those without a folder did not answer),
// named and sorted, each with its summary.json read. Usage status naming the folder given twice (by its real
// path: "d/./n3", "d/n3/" and a symlink to d/n3 are d/n3); harness status where the node list cannot be read.
vmr::Status gather_nodes(const std::vector<std::string>& dirs, const std::string& nodes_file, const std::string& out,
                         std::vector<Node>* nodes);
// Cells, majorities, differences and the facts that differ without a verdict change, over `r->nodes`: from each
// node's summary.json alone, each row as its own triage compared it (nothing is compared again here).
void analyse_fleet(Report* r);

std::string fleet_json(const Report& r);
std::string fleet_md(const Report& r);
// The console summary: counts, the nodes that did not answer, their problems, the files refused, each difference.
std::string fleet_console(const Report& r);
// One testcase per row of each node's summary that had a run (case and pair): a failure for a record that could not
// be used, a planned run without a record or a CHANGED row; a SKIP a skip; a node that did not answer is one error,
// and so is each input problem of its folder.
std::string fleet_junit(const Report& r);

}  // namespace vmr_tools

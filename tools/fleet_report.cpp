// The fleet report: every node's triage results (one folder per node) in one table that names the odd nodes out
// and what sets them apart. scripts/fleet runs it after a Slurm run, or over folders gathered any other way.
//
//   fleet_report --table expected/verdicts.md --out DIR [--nodes FILE] [--junit FILE] NODE_DIR...
//
// A node is named by the name its records carry ("node": SLURMD_NODENAME under Slurm, else the host name), or by
// its folder's name where two folders carry the same one (several Slurm nodes on one host without Slurm's name), or
// by its folder's path as given where those are equal too (n1 gathered under two parents); the same folder given
// twice (its real path: "d/./n3", "d/n3/", a symlink to d/n3) is refused. A folder whose records name more than one
// node is named by the folder: a stray record of another node cannot rename it, and is a problem of that node. A node
// that did not answer (a name of --nodes with no folder, a folder missing, still INCOMPLETE, or without a summary) is
// reported as such; a record a node left that cannot be read is a problem of that node. For every case a node differs
// in (from the majority of nodes, or from expected/), the facts every such node shares and at least one other node does
// not are listed, ranked by how many of the others differ; facts that differ between nodes with no verdict change are
// listed apart. A tie for the majority goes to PASS where PASS is among the tied (else to the verdict first in the
// contract's order) and is reported as a tie. A node's own summary.json counts too: a planned run that left no record
// (a cell "+ 1 planned run(s) without a record") and the CHANGED rows its triage found make the node differ, its table
// problems (and a summary that cannot be read) are problems of that node. Writes DIR/fleet.json, fleet.md, fleet.html,
// prints a summary. A file of a node folder that no triage writes (a FIFO, a device, a symlink out of the folder, a
// file over tools/input_file.h's cap) is refused unread and named: an input problem, in no cell and none of the node's
// problems. Exit 0 every node answered and agrees; 1 a node differs, did not answer or has a problem; 2 a bad
// command line or table, or one folder given twice (by its real path); 99 no node at all (no NODE_DIR, --nodes
// naming none), a node list that could not be read or a report that could not be written (each named; no report
// written), or a file refused (the report written without it).
#include <cstdio>
#include <string>
#include <vector>

#include "compare.h"
#include "flags.h"
#include "fleet.h"
#include "fleet_html.h"
#include "report.h"
#include "run_records.h"

namespace {

using namespace vmr;
using namespace vmr_tools;

struct Options {
  std::string table, out, nodes_file, junit;
  std::vector<std::string> dirs;
};

bool parse_args(const std::vector<std::string>& args, Options* o) {
  Flags f;
  f.values = {{"--table", &o->table}, {"--out", &o->out}, {"--nodes", &o->nodes_file}, {"--junit", &o->junit}};
  f.words = &o->dirs;
  return parse_flags(args, f) && !o->table.empty() && !o->out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args({argv + 1, argv + argc}, &o)) {
    std::fprintf(stderr, "usage: fleet_report --table FILE --out DIR [--nodes FILE] [--junit FILE] NODE_DIR...\n");
    return 2;
  }
  std::vector<ExpectedRow> table;
  Report r;
  Status st = load_expected_table(o.table, &table);
  if (st.ok()) st = gather_nodes(o.dirs, o.nodes_file, o.out, &r.nodes);
  if (!st.ok()) {
    std::fprintf(stderr, "fleet_report: %s\n", one_line(st.detail).c_str());
    return st.verdict == Verdict::Usage ? 2 : 99;
  }
  if (r.nodes.empty()) {  // "every node agrees" of no node at all would pass a fleet run that reached none
    std::fprintf(stderr, "fleet_report: no node to report on (no NODE_DIR given%s)\n",
                 o.nodes_file.empty() ? "" : ", and the node list names none");
    return 99;
  }
  analyse_fleet(table, &r);
  // Every file, then the console; a file that could not be written is named, and the report is not "written".
  const bool written = write_reports("fleet_report", {{o.out + "/fleet.json", [&] { return fleet_json(r); }},
                                                      {o.out + "/fleet.md", [&] { return fleet_md(r); }},
                                                      {o.out + "/fleet.html", [&] { return fleet_html(r); }},
                                                      {o.junit, [&] { return fleet_junit(r, table); }}});
  std::fputs(fleet_console(r).c_str(), stdout);
  if (!written) return 99;
  std::printf("fleet report: %s/fleet.md, %s/fleet.json\n", one_line(o.out).c_str(), one_line(o.out).c_str());
  if (r.refused) return 99;  // the report is short of files it could not take: the input's problem, not a node's
  return r.silent || r.problems || !r.differences.empty() ? 1 : 0;
}

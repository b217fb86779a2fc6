// The fleet report: every node's triage results (one folder per node) in one table that names the odd nodes out
// and what sets them apart. scripts/fleet runs it after a Slurm run, or over folders gathered any other way.
//
//   fleet_report --out DIR [--nodes FILE] [--junit FILE] NODE_DIR...
//
// Of each node folder the report reads its triage's summary.json and nothing else: its rows (binary, case, pair, the
// verdict observed, how it stands against expected/ as that triage compared it) make the node's cells, and its node
// facts (each one every record of the node agrees on) set nodes apart; nothing is compared again here. A node is
// named by the name its summary carries ("node": SLURMD_NODENAME under Slurm, else the host name), or by its folder's
// name where it carries none (its records named several nodes: the triage kept those of the folder's node and made
// each other one an unreadable record, a problem of this node) or where two folders carry the same one (several
// Slurm nodes on one host without Slurm's name), or by its folder's path as given where those are equal too (n1
// gathered under two parents); the same folder given twice (its real path: "d/./n3", "d/n3/", a symlink to d/n3) is
// refused. A node that did not answer (a name of --nodes with no folder, a folder missing or still INCOMPLETE) is
// reported as such; a record its triage could not use, its table problems and a summary that is no JSON or no summary
// are problems of that node. For every case a node differs in (from the majority of nodes, or from expected/: a row its
// triage found CHANGED), the facts every such node shares and at least one other node does not are listed, ranked by
// how many of the others differ; facts that differ between nodes with no verdict change are listed apart. A tie for
// the majority goes to PASS where PASS is among the tied (else to the verdict first in the contract's order) and is
// reported as a tie. A planned run that left no record (a cell "+ 1 planned run(s) without a record") makes the node
// differ. Writes DIR/fleet.json, DIR/fleet.md and DIR/fleet.html (tools/fleet_html.h), prints a summary. The input's
// problems are named once each, in no cell and none of the node's problems: a folder without summary.json (no finished
// triage's), a summary of another version of the tools, a summary.json that is no file a triage writes (a FIFO, a
// device, a symlink out of the folder, over tools/input_file.h's cap), what this reader cannot look at (a file given
// as the folder, a folder or summary.json its permissions keep from this user: the system's reason), a file its triage
// refused (its summary's INPUT: lines). Exit 0 every node answered and agrees; 1 a node differs, did not answer or has
// a problem; 2 a bad command line, or one folder given twice (by its real path); 99 no node at all (no NODE_DIR,
// --nodes naming none), a node list that could not be read or a report that could not be written (each named; no report
// written), or an input problem (the report written without it).
#include <cstdio>
#include <string>
#include <vector>

#include "flags.h"
#include "fleet.h"
#include "fleet_html.h"
#include "report.h"

namespace {

using namespace vmr;
using namespace vmr_tools;

struct Options {
  std::string out, nodes_file, junit;
  std::vector<std::string> dirs;
};

bool parse_args(const std::vector<std::string>& args, Options* o) {
  Flags f;
  f.values = {{"--out", &o->out}, {"--nodes", &o->nodes_file}, {"--junit", &o->junit}};
  f.words = &o->dirs;
  return parse_flags(args, f) && !o->out.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args({argv + 1, argv + argc}, &o)) {
    std::fprintf(stderr, "usage: fleet_report --out DIR [--nodes FILE] [--junit FILE] NODE_DIR...\n");
    return 2;
  }
  Report r;
  Status st = gather_nodes(o.dirs, o.nodes_file, o.out, &r.nodes);
  if (!st.ok()) {
    std::fprintf(stderr, "fleet_report: %s\n", one_line(st.detail).c_str());
    return st.verdict == Verdict::Usage ? 2 : 99;
  }
  if (r.nodes.empty()) {  // "every node agrees" of no node at all would pass a fleet run that reached none
    std::fprintf(stderr, "fleet_report: no node to report on (no NODE_DIR given%s)\n",
                 o.nodes_file.empty() ? "" : ", and the node list names none");
    return 99;
  }
  analyse_fleet(&r);
  // Every file, then the console; a file that could not be written is named, and the report is not "written".
  const bool written = write_reports("fleet_report", {{o.out + "/fleet.json", [&] { return fleet_json(r); }},
                                                      {o.out + "/fleet.md", [&] { return fleet_md(r); }},
                                                      {o.out + "/fleet.html", [&] { return fleet_html(r); }},
                                                      {o.junit, [&] { return fleet_junit(r); }}});
  std::fputs(fleet_console(r).c_str(), stdout);
  if (!written) return 99;
  std::printf("fleet report: %s/fleet.md, %s/fleet.json\n", one_line(o.out).c_str(), one_line(o.out).c_str());
  if (r.refused) return 99;  // the report is short of files it could not take: the input's problem, not a node's
  return r.silent || r.problems || !r.differences.empty() ? 1 : 0;
}

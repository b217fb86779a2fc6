// The fleet report: every node's triage results (one folder per node) in one table that names the odd nodes out
// and what sets them apart. scripts/fleet runs it after a Slurm run, or over folders gathered any other way.
//
//   fleet_report --table expected/verdicts.md --out DIR [--nodes FILE] [--junit FILE] NODE_DIR...
//
// A node is named by the name its records carry ("node": SLURMD_NODENAME under Slurm, else the host name), or by
// its folder's name where two folders carry the same one (several Slurm nodes on one host without Slurm's name), or
// by its folder's path as given where those are equal too (n1 gathered under two parents); the same folder given
// twice is refused. A folder whose records name more than one node is named by the folder: a stray record of another
// node cannot rename it, and is a problem of that node. A node that did not answer (a name of --nodes with no
// folder, a folder missing, still INCOMPLETE, or without a summary) is reported as such; a record a node left that
// cannot be read is a problem of that node. For every case a node differs in (from the majority of nodes, or from
// expected/), the facts every such node shares and at least one other node does not are listed, ranked by how many
// of the others differ; facts that differ between nodes with no verdict change are listed apart. A tie for the
// majority goes to PASS where PASS is among the tied (else to the verdict first in the contract's order) and is
// reported as a tie. Writes DIR/fleet.json and DIR/fleet.md, prints a summary. Exit 0 every node answered and
// agrees; 1 a node differs, did not answer or has a problem; 2 a bad command line; 3 a report could not be written.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "harness/json.h"
#include "harness/text.h"
#include "junit.h"
#include "run_records.h"

namespace {

using namespace vmr;
using namespace vmr_tools;

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string basename_of(const std::string& path) {
  const std::string p = without_trailing_slashes(path);
  return p.substr(p.find_last_of('/') + 1);
}

// A code span whose fence is longer than any run of backticks in the text, so a backtick in a fact cannot end it.
std::string md_code(const std::string& s) {
  const std::string t = one_line(s);
  size_t longest = 0, run = 0;
  for (char c : t) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
  const std::string fence(longest + 1, '`');
  const std::string pad = !t.empty() && (t.front() == '`' || t.back() == '`') ? " " : "";
  return fence + pad + t + pad + fence;
}

struct Node {
  std::string name, dir, why;  // why: empty when it answered
  std::vector<Run> runs;
  std::map<std::string, std::string> facts;  // the facts every run of the node agrees on
  std::vector<std::string> problems;         // records it left that the report could not use
};

// One node's verdict over one case's runs: "PASS 56/56", "CRASH 3/56: 0->5, 2->5, 7->5".
struct Cell {
  Verdict verdict = Verdict::Skip;
  int worst = 0, total = 0, changed = 0;
  std::vector<std::string> pairs;  // of the worst verdict
  std::string text() const {
    std::string t = std::string(verdict_name(verdict)) + " " + std::to_string(worst) + "/" + std::to_string(total);
    if (verdict != Verdict::Pass && verdict != Verdict::Skip && !pairs.empty()) {
      std::vector<std::string> shown(pairs.begin(), pairs.begin() + std::min<size_t>(pairs.size(), 8));
      t += ": " + join(shown, ", ") + (pairs.size() > 8 ? ", ..." : "");
    }
    if (changed) t += " (" + std::to_string(changed) + " CHANGED)";
    return t;
  }
};

std::string arrow(const std::string& pair) {
  auto ids = split(pair, '-');
  if (ids.size() == 2) return std::string(ids[0]) + "->" + std::string(ids[1]);
  return pair.empty() ? "-" : "mesh " + pair;
}

struct Options {
  std::string table, out, nodes_file, junit;
  std::vector<std::string> dirs;
};

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string* into) {
      if (i + 1 >= argc) return false;
      *into = argv[++i];
      return true;
    };
    if (a == "--table") {
      if (!value(&o->table)) return false;
    } else if (a == "--out") {
      if (!value(&o->out)) return false;
    } else if (a == "--nodes") {
      if (!value(&o->nodes_file)) return false;
    } else if (a == "--junit") {
      if (!value(&o->junit)) return false;
    } else if (a.rfind("--", 0) == 0) {
      return false;
    } else {
      o->dirs.push_back(a);
    }
  }
  return !o->table.empty() && !o->out.empty();
}

// The node a folder holds: the one its records name, else its folder's name (see the top of this file). A record
// naming another node than the folder's among records that disagree is left out, as a problem of this node.
void name_node(Node* n) {
  const std::string folder = basename_of(n->dir);
  std::set<std::string> named;
  for (const auto& r : n->runs)
    if (auto it = r.facts.find("node"); r.error.empty() && it != r.facts.end()) named.insert(it->second);
  n->name = named.size() == 1 ? *named.begin() : folder;
  if (named.size() < 2) return;
  for (auto& r : n->runs)
    if (auto it = r.facts.find("node"); r.error.empty() && it != r.facts.end() && it->second != folder)
      r.error = "run record " + r.file + " is a record of node " + it->second + ", not of " + folder;
}

Node load_node(const std::string& dir) {
  Node n;
  n.dir = dir;
  if (!exists(dir))
    n.why = "no results folder";
  else if (exists(dir + "/INCOMPLETE"))
    n.why = "its triage did not finish (INCOMPLETE)";
  else if (!exists(dir + "/summary.json"))
    n.why = "no summary.json: its triage did not finish";
  if (exists(dir)) n.runs = read_runs(dir);
  name_node(&n);
  // Each record that could not be used, once (a record of several cases gives one run each).
  std::set<std::string> seen;
  for (const auto& r : n.runs)
    if (!r.error.empty() && seen.insert(r.error).second) n.problems.push_back(r.error);
  return n;
}

// The last k components of a folder's path ("r1/n1" for 2), the whole path where it has fewer.
std::string tail_of(const std::string& dir, int k) {
  const std::string p = without_trailing_slashes(dir);
  size_t at = p.size();
  for (int i = 0; i < k; ++i) {
    const size_t slash = at == 0 ? std::string::npos : p.rfind('/', at - 1);
    if (slash == std::string::npos) return p;
    at = slash;
  }
  return p.substr(at + 1);
}

// Names recorded twice (several Slurm nodes on one host without Slurm's name): the folders' names tell them apart;
// where those are equal too (n1 gathered from two racks), the shortest tails of their paths that differ. False, with
// the folder, where two are still equal with their whole paths: the same folder given twice.
bool make_names_unique(std::vector<Node>* nodes, std::string* twice) {
  for (int k = 1;; ++k) {
    std::map<std::string, int> seen;
    for (const auto& n : *nodes) ++seen[n.name];
    bool duplicates = false, whole_paths = true;  // every equal name already a whole path: nothing left to add
    for (auto& n : *nodes) {
      if (seen[n.name] < 2) continue;
      duplicates = true;
      whole_paths &= n.name == without_trailing_slashes(n.dir);
      *twice = n.dir;
      n.name = tail_of(n.dir, k);
    }
    if (!duplicates) return true;
    if (whole_paths) return false;
  }
}

// Nodes Slurm gave the job (one name a line) that left no folder at all.
bool add_unanswered(const std::string& nodes_file, const std::string& out, std::vector<Node>* nodes) {
  std::string text;
  if (!read_file(nodes_file, &text)) return false;
  for (auto line : split(text, '\n')) {
    std::string name(trim(line));
    if (name.empty()) continue;
    bool have = std::any_of(nodes->begin(), nodes->end(), [&](const Node& n) { return n.name == name; });
    if (!have)
      nodes->push_back(Node{name, out + "/" + name, "no results folder (the node did not answer)", {}, {}, {}});
  }
  return true;
}

// Facts every run of a node agrees on; identity keys are left out (they differ by definition).
void agree_facts(Node* n) {
  static const std::set<std::string> identity = {"node", "host", "binary", "backend"};
  std::map<std::string, std::set<std::string>> values;
  for (const auto& r : n->runs)
    if (r.error.empty())
      for (const auto& [k, v] : r.facts) values[k].insert(v);
  for (const auto& [k, vs] : values)
    if (vs.size() == 1 && !identity.count(k)) n->facts[k] = *vs.begin();
}

using Cells = std::map<std::string, std::map<std::string, Cell>>;  // case -> node -> cell

void add_to_cell(Cell* cell, const Run& r, const std::vector<ExpectedRow>& table) {
  ++cell->total;
  const ExpectedRow* want = find_expected(table, r.binary, r.case_name, r.facts);
  if (r.verdict != Verdict::Skip && (!want || match_expected(*want, r.verdict, r.detail) != Match::Ok)) ++cell->changed;
  if (cell->total == 1 || case_summary_precedence(r.verdict) > case_summary_precedence(cell->verdict)) {
    cell->verdict = r.verdict;
    cell->worst = 0;
    cell->pairs.clear();
  }
  if (r.verdict == cell->verdict) {
    ++cell->worst;
    cell->pairs.push_back(arrow(r.pair));
  }
}

Cells make_cells(const std::vector<Node>& nodes, const std::vector<ExpectedRow>& table, std::set<std::string>* cases) {
  Cells cells;
  for (const auto& n : nodes) {
    if (!n.why.empty()) continue;
    for (const auto& r : n.runs) {
      if (!r.error.empty()) continue;
      const std::string c = r.binary + "." + r.case_name;
      cases->insert(c);
      add_to_cell(&cells[c][n.name], r, table);
    }
  }
  return cells;
}

struct Majority {
  Verdict verdict = Verdict::Skip;
  bool tie = false;  // another verdict has as many nodes
  std::string text() const {
    return tie ? std::string("a tie, ") + verdict_name(verdict) + " taken as the majority"
               : std::string("majority ") + verdict_name(verdict);
  }
};

// The verdict most nodes give; ties as the top of this file says (the map iterates in the contract's order).
Majority majority_of(const std::map<Verdict, std::vector<std::string>>& by) {
  Majority m;
  size_t most = 0;
  for (const auto& [v, ns] : by)
    if (ns.size() > most || (ns.size() == most && v == Verdict::Pass)) m.verdict = v, most = ns.size();
  for (const auto& [v, ns] : by) m.tie |= v != m.verdict && ns.size() == most;
  return m;
}

struct Difference {
  std::string case_name;
  Verdict verdict;
  std::vector<std::string> nodes, others;
  std::vector<std::pair<std::string, std::string>> facts;  // key, value the odd nodes share
  std::vector<int> others_differing;
};

struct Analysis {
  std::vector<Difference> differences;
  std::map<std::string, Majority> majority;  // per case
  std::set<std::string> separating_keys;
};

// Facts equal on every odd node and different on at least one other: ranked by how many others differ.
void separate(Difference* d, const std::vector<std::string>& odd, const std::vector<Node>& nodes,
              std::set<std::string>* separating_keys) {
  auto facts_of = [&](const std::string& name) -> const std::map<std::string, std::string>& {
    for (const auto& n : nodes)
      if (n.name == name) return n.facts;
    static const std::map<std::string, std::string> none;
    return none;
  };
  for (const auto& [k, val] : facts_of(odd[0])) {
    bool shared = std::all_of(odd.begin(), odd.end(), [&](const std::string& n) {
      auto f = facts_of(n);
      auto it = f.find(k);
      return it != f.end() && it->second == val;
    });
    if (!shared) continue;
    int differing = 0;
    for (const auto& other : d->others) {
      auto f = facts_of(other);
      auto it = f.find(k);
      differing += it == f.end() || it->second != val;
    }
    if (differing == 0) continue;
    d->facts.emplace_back(k, val);
    d->others_differing.push_back(differing);
    separating_keys->insert(k);
  }
  std::vector<size_t> order(d->facts.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return d->others_differing[a] > d->others_differing[b]; });
  Difference sorted = *d;
  for (size_t i = 0; i < order.size(); ++i) {
    sorted.facts[i] = d->facts[order[i]];
    sorted.others_differing[i] = d->others_differing[order[i]];
  }
  *d = sorted;
}

Analysis analyse(const std::set<std::string>& cases, Cells& cells, const std::vector<Node>& nodes) {
  Analysis a;
  for (const auto& c : cases) {
    std::map<Verdict, std::vector<std::string>> by;
    for (const auto& [node, cell] : cells[c]) by[cell.verdict].push_back(node);
    const Majority majority = a.majority[c] = majority_of(by);
    for (const auto& [v, ns] : by) {
      std::vector<std::string> odd;
      for (const auto& node : ns)
        if (v != majority.verdict || cells[c][node].changed) odd.push_back(node);
      if (odd.empty()) continue;
      Difference d{c, v, odd, {}, {}, {}};
      for (const auto& [node, cell] : cells[c])
        if (std::find(odd.begin(), odd.end(), node) == odd.end()) d.others.push_back(node);
      separate(&d, odd, nodes, &a.separating_keys);
      a.differences.push_back(d);
    }
  }
  return a;
}

// Facts that differ between answering nodes without setting a difference apart: key -> node -> value. A fact one
// node reports and another does not differs too (an HSA_* setting made on one node only).
std::map<std::string, std::map<std::string, std::string>> other_facts(const std::vector<Node>& nodes,
                                                                      const std::set<std::string>& separating) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::set<std::string> keys;
  for (const auto& n : nodes)
    if (n.why.empty())
      for (const auto& [k, v] : n.facts) keys.insert(k);
  std::map<std::string, std::set<std::string>> values;
  for (const auto& n : nodes)
    if (n.why.empty())
      for (const auto& k : keys) values[k].insert(n.facts.count(k) ? n.facts.at(k) : "(not reported)");
  for (const auto& [k, vs] : values)
    if (vs.size() > 1 && !separating.count(k))
      for (const auto& n : nodes)
        if (n.why.empty()) out[k][n.name] = n.facts.count(k) ? n.facts.at(k) : "(not reported)";
  return out;
}

struct Report {
  std::vector<Node> nodes;
  std::set<std::string> cases;
  Cells cells;
  Analysis analysis;
  std::map<std::string, std::map<std::string, std::string>> other_facts;
  int silent = 0, problems = 0;
};

std::string fleet_json(const Report& r) {
  JsonWriter j;
  j.begin_object().key("schema").value("vmem-repro-fleet/1").key("nodes").begin_array();
  for (const auto& n : r.nodes) {
    j.begin_object().key("name").value(n.name).key("folder").value(n.dir).key("answered").value(n.why.empty());
    if (!n.why.empty()) j.key("why").value(n.why);
    j.key("problems").begin_array();
    for (const auto& p : n.problems) j.value(p);
    j.end_array().key("facts").begin_object();
    for (const auto& [k, v] : n.facts) j.key(k).value(v);
    j.end_object().end_object();
  }
  j.end_array().key("cases").begin_array();
  for (const auto& c : r.cases) {
    const Majority& m = r.analysis.majority.at(c);
    j.begin_object().key("case").value(c).key("majority").value(verdict_name(m.verdict)).key("tie").value(m.tie);
    j.key("cells").begin_object();
    for (const auto& [node, cell] : r.cells.at(c)) j.key(node).value(cell.text());
    j.end_object().end_object();
  }
  j.end_array().key("differences").begin_array();
  for (const auto& d : r.analysis.differences) {
    j.begin_object().key("case").value(d.case_name).key("verdict").value(verdict_name(d.verdict));
    j.key("nodes").begin_array();
    for (const auto& n : d.nodes) j.value(n);
    j.end_array().key("separating_facts").begin_array();
    for (size_t i = 0; i < d.facts.size(); ++i)
      j.begin_object()
          .key("fact")
          .value(d.facts[i].first)
          .key("value")
          .value(d.facts[i].second)
          .key("other_nodes_differing")
          .value(d.others_differing[i])
          .key("other_nodes")
          .value(int(d.others.size()))
          .end_object();
    j.end_array().end_object();
  }
  j.end_array().key("facts_without_verdict_change").begin_object();
  for (const auto& [k, by_node] : r.other_facts) {
    j.key(k).begin_object();
    for (const auto& [node, v] : by_node) j.key(node).value(v);
    j.end_object();
  }
  j.end_object().end_object();
  return j.str() + "\n";
}

void md_table(std::ostringstream& md, const Report& r) {
  md << "| node |";
  for (const auto& c : r.cases) md << " " << md_text(c) << " |";
  md << "\n| --- |";
  for (size_t i = 0; i < r.cases.size(); ++i) md << " --- |";
  md << "\n";
  for (const auto& n : r.nodes) {
    md << "| " << md_text(n.name) << " |";
    for (const auto& c : r.cases) {
      auto it = r.cells.at(c).find(n.name);
      md << " " << (!n.why.empty() ? "did not answer" : it == r.cells.at(c).end() ? "-" : it->second.text()) << " |";
    }
    md << "\n";
  }
}

std::string fleet_md(const Report& r) {
  const auto& differences = r.analysis.differences;
  std::ostringstream md;
  md << "# vmem-repro fleet report\n\n"
     << r.nodes.size() << " node(s), " << r.silent << " did not answer, " << differences.size() << " difference(s), "
     << r.problems << " problem(s).\n\n";
  md_table(md, r);
  if (r.silent) {
    md << "\n## Nodes that did not answer\n\n";
    for (const auto& n : r.nodes)
      if (!n.why.empty()) md << "- " << md_text(n.name) << ": " << md_text(n.why) << "\n";
  }
  if (r.problems) {
    md << "\n## Problems\n\n";
    for (const auto& n : r.nodes)
      for (const auto& p : n.problems) md << "- " << md_text(n.name) << ": " << md_text(p) << "\n";
  }
  md << "\n## Differences\n\n";
  if (differences.empty()) md << "None: every answering node gives each case the majority's verdict, as expected.\n";
  for (const auto& d : differences) {
    std::vector<std::string> names;
    for (const auto& n : d.nodes) names.push_back(md_text(n));
    md << "### " << md_text(d.case_name) << ": " << verdict_name(d.verdict) << " on " << join(names, ", ") << " ("
       << r.analysis.majority.at(d.case_name).text() << ")\n\n";
    if (d.facts.empty()) md << "No fact sets these nodes apart from the others.\n\n";
    for (size_t i = 0; i < d.facts.size(); ++i)
      md << "- " << md_code(d.facts[i].first + " = " + d.facts[i].second) << " on all of them; differs on "
         << d.others_differing[i] << " of " << d.others.size() << " other node(s)\n";
    md << "\n";
  }
  if (!r.other_facts.empty()) {
    md << "## Facts that differ with no verdict change\n\n";
    for (const auto& [k, by_node] : r.other_facts) {
      std::vector<std::string> parts;
      for (const auto& [node, v] : by_node) parts.push_back(md_text(node) + ": " + md_text(v));
      md << "- " << md_code(k) << ": " << join(parts, "; ") << "\n";
    }
  }
  return md.str();
}

void print_summary(const Report& r) {
  const auto& differences = r.analysis.differences;
  std::printf("fleet: %zu node(s), %d did not answer, %zu difference(s), %d problem(s)\n", r.nodes.size(), r.silent,
              differences.size(), r.problems);
  for (const auto& n : r.nodes)
    if (!n.why.empty())
      std::printf("  node %s did not answer: %s\n", one_line(n.name).c_str(), one_line(n.why).c_str());
  for (const auto& n : r.nodes)
    for (const auto& p : n.problems) std::printf("  node %s: %s\n", one_line(n.name).c_str(), one_line(p).c_str());
  for (const auto& d : differences) {
    std::vector<std::string> names;
    for (const auto& n : d.nodes) names.push_back(one_line(n));
    std::printf("  %s: %s on %s (%s)", one_line(d.case_name).c_str(), verdict_name(d.verdict), join(names, ",").c_str(),
                r.analysis.majority.at(d.case_name).text().c_str());
    if (!d.facts.empty())
      std::printf("; set apart by %s = %s (%d of %zu others differ)", one_line(d.facts[0].first).c_str(),
                  one_line(d.facts[0].second).c_str(), d.others_differing[0], d.others.size());
    std::printf("\n");
  }
}

// One testcase per case, pair and node: a failure for a record that could not be used or a verdict other than
// expected/'s; a node that did not answer is one error.
std::string junit_report(const Report& r, const std::vector<ExpectedRow>& table) {
  std::vector<JunitSuite> suites;
  for (const auto& n : r.nodes) {
    JunitSuite suite{n.name, {}};
    if (!n.why.empty()) {  // a node that did not answer is one error
      suite.cases.push_back({"fleet." + n.name, "answered", JunitCase::Outcome::Error, n.why, ""});
      suites.push_back(std::move(suite));
      continue;
    }
    for (const auto& run : n.runs) {
      JunitCase c;
      c.classname = "fleet." + n.name + "." + run.binary;
      c.name = run.case_name + (run.pair.empty() ? "" : "[" + arrow(run.pair) + "]");
      const ExpectedRow* want =
          run.error.empty() ? find_expected(table, run.binary, run.case_name, run.facts) : nullptr;
      if (!run.error.empty()) {
        c.outcome = JunitCase::Outcome::Failure;
        c.message = run.error;
      } else if (run.verdict == Verdict::Skip) {
        c.outcome = JunitCase::Outcome::Skipped;
        c.message = run.detail;
      } else if (!want || match_expected(*want, run.verdict, run.detail) != Match::Ok) {
        c.outcome = JunitCase::Outcome::Failure;
        c.message = std::string(verdict_name(run.verdict)) + ", expected " + (want ? verdict_cell(*want) : "no row");
        c.text = run.detail;
      }
      suite.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(suite));
  }
  return junit_xml("vmem-repro fleet", suites);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    std::fprintf(stderr, "usage: fleet_report --table FILE --out DIR [--nodes FILE] [--junit FILE] NODE_DIR...\n");
    return 2;
  }
  std::string text;
  std::vector<ExpectedRow> table;
  if (!read_file(o.table, &text) || !parse_expected_table(text, &table).ok()) {
    std::fprintf(stderr, "fleet_report: cannot read the expected table %s\n", one_line(o.table).c_str());
    return 2;
  }

  Report r;
  for (const auto& dir : o.dirs) r.nodes.push_back(load_node(dir));
  std::string twice;
  if (!make_names_unique(&r.nodes, &twice)) {
    std::fprintf(stderr, "fleet_report: the folder %s is given twice\n", one_line(twice).c_str());
    return 2;
  }
  if (!o.nodes_file.empty() && !add_unanswered(o.nodes_file, o.out, &r.nodes)) {
    std::fprintf(stderr, "fleet_report: cannot read the node list %s\n", one_line(o.nodes_file).c_str());
    return 99;
  }
  std::sort(r.nodes.begin(), r.nodes.end(), [](const Node& a, const Node& b) { return a.name < b.name; });
  for (auto& n : r.nodes) {
    agree_facts(&n);
    if (!n.why.empty()) n.problems.clear();  // its records are not read into the report: not answering says it all
    r.problems += int(n.problems.size());
    r.silent += !n.why.empty();
  }
  r.cells = make_cells(r.nodes, table, &r.cases);
  r.analysis = analyse(r.cases, r.cells, r.nodes);
  r.other_facts = other_facts(r.nodes, r.analysis.separating_keys);

  // Every file, then the console; a file that could not be written is named, and the report is not "written".
  std::vector<std::string> unwritten;
  auto write = [&](const std::string& path, const std::string& content) {
    if (Status st = write_text_file(path, content); !st.ok()) unwritten.push_back(st.detail);
  };
  write(o.out + "/fleet.json", fleet_json(r));
  write(o.out + "/fleet.md", fleet_md(r));
  if (!o.junit.empty()) write(o.junit, junit_report(r, table));
  print_summary(r);
  for (const auto& e : unwritten) std::fprintf(stderr, "fleet_report: %s\n", one_line(e).c_str());
  if (!unwritten.empty()) return 99;
  std::printf("fleet report: %s/fleet.md, %s/fleet.json\n", one_line(o.out).c_str(), one_line(o.out).c_str());
  return r.silent || r.problems || !r.analysis.differences.empty() ? 1 : 0;
}

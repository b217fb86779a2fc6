#include "fleet.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <sstream>

#include "compare.h"
#include "harness/json.h"
#include "harness/text.h"
#include "input_file.h"
#include "junit.h"
#include "markdown.h"
#include "report.h"

namespace vmr_tools {

using namespace vmr;

namespace {

// Whether `path` is there (stat follows a symlink). An answer other than "there" or "not there" (ENOENT) is
// `why`'s, naming the path and errno: a folder this reader may not search (another user's, mode 700), a file given
// as a folder. Never "not there": that would read as a node that did not answer, or a folder without a summary.
bool exists(const std::string& path, std::string* why, struct stat* st = nullptr) {
  struct stat own {};
  if (::stat(path.c_str(), st ? st : &own) == 0) return true;
  if (errno != ENOENT && why->empty()) *why = errno_text("cannot look at " + path);
  return false;
}

std::string without_trailing_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

std::string basename_of(const std::string& path) {
  const std::string p = without_trailing_slashes(path);
  return p.substr(p.find_last_of('/') + 1);
}

// Its triage's summary.json read into the node: its name (the "node" fact its records agree on, else its folder's
// name), its facts, and as problems of the node each record its triage could not use and its table problems. The
// input's problems (a file its triage refused, a summary of another version) go to `refused`.
void read_node_summary(Node* n, const std::string& text) {
  const Status st = read_summary_json(text, n->dir + "/summary.json", &n->summary);
  if (!st.ok()) {
    n->summary = Summary{};
    // (a summary of another version of the tools: the input's problem, never a verdict on the node)
    if (is_other_summary_version(text))
      n->refused.push_back(one_line(st.detail));
    else
      n->problems.push_back("its triage's summary: " + one_line(st.detail));
    return;
  }
  static const std::set<std::string> identity = {"node", "host"};  // they differ between nodes by definition
  for (const auto& [k, v] : n->summary.node)
    if (!identity.count(k)) n->facts[k] = v;
  if (auto it = n->summary.node.find("node"); it != n->summary.node.end() && !it->second.empty()) n->name = it->second;
  std::set<std::string> seen;  // each record that could not be used, once
  for (const auto& row : n->summary.rows)
    if (row.standing == Standing::Unreadable && seen.insert(row.detail).second) n->problems.push_back(row.detail);
  std::vector<std::string> table_problems;
  for (const auto& line : n->summary.problem_lines)
    if (line.rfind(kInputProblem, 0) == 0)  // a file of its folder its triage refused: the input's, not the node's
      n->refused.push_back(line.substr(std::string(kInputProblem).size()));
    else
      table_problems.push_back(line);
  if (const int count = n->summary.problems - int(n->refused.size()); count > 0)
    n->problems.push_back("its triage found " + std::to_string(count) + " table problem(s)" +
                          (table_problems.empty() ? "" : ", the first: " + table_problems[0]));
  n->read = true;
}

// A node's folder: did it answer, and what its triage's summary.json says (the one file of it the report reads).
Node load_node(const std::string& dir) {
  Node n;
  n.dir = dir;
  n.name = basename_of(dir);
  // What this reader cannot look at is the input's problem (refused, exit 99), never the node's: its folder or its
  // summary.json unreadable here (permissions, a file given as the folder) says nothing of the node.
  std::string cannot;
  struct stat folder {};
  if (!exists(dir, &cannot, &folder)) {
    if (cannot.empty())
      n.why = "no results folder";
    else
      n.refused.push_back(cannot);
  } else if (!S_ISDIR(folder.st_mode)) {
    n.refused.push_back(dir + " is not a folder: a node folder is the results folder its triage wrote");
  } else if (exists(dir + "/INCOMPLETE", &cannot)) {
    n.why = "its triage did not finish (INCOMPLETE)";
  } else if (!cannot.empty()) {
    n.refused.push_back(cannot);
  } else if (!exists(dir + "/summary.json", &cannot)) {
    // (a triage that stops leaves INCOMPLETE: a folder with neither is no triage's, and says nothing of the node)
    n.refused.push_back(cannot.empty() ? dir + " has no summary.json: not a finished triage's folder" : cannot);
  } else {
    std::string text;
    const Status read = read_folder_file(dir, "summary.json", &text);
    // Not a file a triage writes (a FIFO, a symlink out of the folder, ...), or one this reader may not read.
    if (!read.ok())
      n.refused.push_back(one_line(read.detail));
    else
      read_node_summary(&n, text);
  }
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

// "F is given twice (it is E again)" for the folder F of `dirs` that names one E already named (by its real path:
// "d/./n3", "d/n3/", a symlink to d/n3); "" where none does. Counted twice, a node would sway every majority it is in.
// (Folders that are not there have no real path: make_names_unique tells those apart by the paths as given.)
std::string folder_named_twice(const std::vector<std::string>& dirs) {
  std::map<std::string, std::string> first;  // real path -> the folder as first given
  for (const auto& dir : dirs) {
    const std::string real = real_path(dir);
    if (real.empty()) continue;
    if (auto [it, added] = first.emplace(real, dir); !added)
      return dir + " is given twice (it is " + it->second + " again)";
  }
  return "";
}

// Nodes Slurm gave the job (one name a line) that left no folder at all.
Status add_unanswered(const std::string& nodes_file, const std::string& out, std::vector<Node>* nodes) {
  std::string text;
  // Refused or unreadable alike: the report cannot say which nodes did not answer (exit 99, as fleet_report says).
  if (Status st = read_input_file(nodes_file, &text, "the node list " + nodes_file); !st.ok())
    return Status::harness(st.detail);
  for (auto line : split(text, '\n')) {
    std::string name(trim(line));
    if (name.empty()) continue;
    // Answered where a node carries the name, or its folder does (scripts/fleet writes each node's into OUT/<name>):
    // a summary naming its node otherwise (the host name of a triage run outside Slurm) is no silent node.
    bool have = std::any_of(nodes->begin(), nodes->end(),
                            [&](const Node& n) { return n.name == name || basename_of(n.dir) == name; });
    if (!have) {
      Node n;
      n.name = name;
      n.dir = out + "/" + name;
      n.why = "no results folder (the node did not answer)";
      nodes->push_back(std::move(n));
    }
  }
  return Status::pass();
}

// One row of a node's summary in its cell: a run's verdict (the worst one, with its pairs), CHANGED as its triage
// found it; a planned run that left no record is CHANGED and `missing`, and a cell of only such runs takes HARNESS
// (the launch left nothing to judge) for the majority.
void add_row(Cell* cell, const Row& row) {
  if (!row.observed) {
    ++cell->missing;
    ++cell->changed;
    if (cell->total == 0) cell->verdict = Verdict::Harness;
    return;
  }
  const Verdict v = *row.observed;
  ++cell->total;
  if (row.changed()) ++cell->changed;
  if (cell->total == 1 || case_summary_precedence(v) > case_summary_precedence(cell->verdict)) {
    cell->verdict = v;
    cell->worst = 0;
    cell->pairs.clear();
  }
  if (v == cell->verdict) {
    ++cell->worst;
    const std::string shown = pair_arrow(row.pair);
    cell->pairs.push_back(shown.empty() ? "-" : shown);
  }
}

// Every answering node's cells, from its summary's rows: each row with a run behind it (a verdict, or a planned run
// that left none). A row not run for want of a run (a binary not built there, a case not planned) is in no cell; an
// unusable record is a problem of the node (read_node_summary).
Cells make_cells(const std::vector<Node>& nodes, std::set<std::string>* cases) {
  Cells cells;
  for (const auto& n : nodes) {
    if (!n.why.empty()) continue;
    for (const auto& row : n.summary.rows) {
      if (row.standing == Standing::Unreadable || (!row.observed && row.standing != Standing::MissingRecord)) continue;
      cases->insert(row.name);
      add_row(&cells[row.name][n.name], row);
    }
  }
  return cells;
}

// The verdict most nodes give; ties as the top of tools/fleet_report.cpp says (the map iterates in the contract's
// order).
Majority majority_of(const std::map<Verdict, std::vector<std::string>>& by) {
  Majority m;
  size_t most = 0;
  for (const auto& [v, ns] : by)
    if (ns.size() > most || (ns.size() == most && v == Verdict::Pass)) m.verdict = v, most = ns.size();
  for (const auto& [v, ns] : by) m.tie |= v != m.verdict && ns.size() == most;
  return m;
}

// Facts equal on every odd node and different on at least one other: ranked by how many others differ.
void separate(Difference* d, const std::vector<std::string>& odd, const std::vector<Node>& nodes,
              std::set<std::string>* separating_keys) {
  auto facts_of = [&](const std::string& name) -> const std::map<std::string, std::string>& {
    for (const auto& n : nodes)
      if (n.name == name) return n.facts;
    static const std::map<std::string, std::string> none;
    return none;
  };
  for (const auto& fact : facts_of(odd[0])) {
    // (named copies, not structured bindings: C++17 lambdas cannot capture those, which clang refuses)
    const std::string& k = fact.first;
    const std::string& val = fact.second;
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

// Each case's majority, and a difference for each verdict some node gives it against the majority or expected/.
void find_differences(Report* r, std::set<std::string>* separating_keys) {
  for (const auto& c : r->cases) {
    auto& cells = r->cells[c];
    std::map<Verdict, std::vector<std::string>> by;
    for (const auto& [node, cell] : cells) by[cell.verdict].push_back(node);
    const Majority majority = r->majority[c] = majority_of(by);
    for (const auto& [v, ns] : by) {
      std::vector<std::string> odd;
      for (const auto& node : ns)
        if (v != majority.verdict || cells[node].changed) odd.push_back(node);
      if (odd.empty()) continue;
      Difference d{c, v, odd, {}, {}, {}};
      for (const auto& [node, cell] : cells)
        if (std::find(odd.begin(), odd.end(), node) == odd.end()) d.others.push_back(node);
      separate(&d, odd, r->nodes, separating_keys);
      r->differences.push_back(d);
    }
  }
}

// Facts that differ between the nodes whose summary was read without setting a difference apart: key -> node ->
// value. A fact one node reports and another does not differs too (an HSA_* setting made on one node only).
std::map<std::string, std::map<std::string, std::string>> other_facts(const std::vector<Node>& nodes,
                                                                      const std::set<std::string>& separating) {
  std::map<std::string, std::map<std::string, std::string>> out;
  std::set<std::string> keys;
  for (const auto& n : nodes)
    if (n.read)
      for (const auto& [k, v] : n.facts) keys.insert(k);
  std::map<std::string, std::set<std::string>> values;
  for (const auto& n : nodes)
    if (n.read)
      for (const auto& k : keys) values[k].insert(n.facts.count(k) ? n.facts.at(k) : "(not reported)");
  for (const auto& [k, vs] : values)
    if (vs.size() > 1 && !separating.count(k))
      for (const auto& n : nodes)
        if (n.read) out[k][n.name] = n.facts.count(k) ? n.facts.at(k) : "(not reported)";
  return out;
}

}  // namespace

std::string Cell::text() const {
  std::string t = total == 0
                      ? std::string("no record")
                      : std::string(verdict_name(verdict)) + " " + std::to_string(worst) + "/" + std::to_string(total);
  if (verdict != Verdict::Pass && verdict != Verdict::Skip && !pairs.empty()) {
    std::vector<std::string> shown(pairs.begin(), pairs.begin() + std::min<size_t>(pairs.size(), 8));
    t += ": " + join(shown, ", ") + (pairs.size() > 8 ? ", ..." : "");
  }
  if (missing)
    t += (total ? " + " : " of ") + std::to_string(missing) + " planned run(s)" + (total ? " without a record" : "");
  if (changed) t += " (" + std::to_string(changed) + " CHANGED)";
  return t;
}

std::string Majority::text() const {
  return tie ? std::string("a tie, ") + verdict_name(verdict) + " taken as the majority"
             : std::string("majority ") + verdict_name(verdict);
}

Status gather_nodes(const std::vector<std::string>& dirs, const std::string& nodes_file, const std::string& out,
                    std::vector<Node>* nodes) {
  if (const std::string twice = folder_named_twice(dirs); !twice.empty())
    return {Verdict::Usage, "the folder " + twice};
  for (const auto& dir : dirs) nodes->push_back(load_node(dir));
  std::string twice;
  if (!make_names_unique(nodes, &twice)) return {Verdict::Usage, "the folder " + twice + " is given twice"};
  if (!nodes_file.empty()) VMR_TRY(add_unanswered(nodes_file, out, nodes));
  std::sort(nodes->begin(), nodes->end(), [](const Node& a, const Node& b) { return a.name < b.name; });
  return Status::pass();
}

void analyse_fleet(Report* r) {
  for (const auto& n : r->nodes) {
    r->problems += int(n.problems.size());
    r->refused += int(n.refused.size());
    r->silent += !n.why.empty();
  }
  r->cells = make_cells(r->nodes, &r->cases);
  std::set<std::string> separating_keys;
  find_differences(r, &separating_keys);
  r->other_facts = other_facts(r->nodes, separating_keys);
}

std::string fleet_json(const Report& r) {
  JsonWriter j;
  j.begin_object().key("schema").value("vmem-repro-fleet/1").key("nodes").begin_array();
  for (const auto& n : r.nodes) {
    j.begin_object().key("name").value(n.name).key("folder").value(n.dir).key("answered").value(n.why.empty());
    if (!n.why.empty()) j.key("why").value(n.why);
    j.key("problems").begin_array();
    for (const auto& p : n.problems) j.value(p);
    j.end_array().key("refused_files").begin_array();
    for (const auto& p : n.refused) j.value(p);
    j.end_array().key("facts").begin_object();
    for (const auto& [k, v] : n.facts) j.key(k).value(v);
    j.end_object().end_object();
  }
  j.end_array().key("cases").begin_array();
  for (const auto& c : r.cases) {
    const Majority& m = r.majority.at(c);
    j.begin_object().key("case").value(c).key("majority").value(verdict_name(m.verdict)).key("tie").value(m.tie);
    j.key("cells").begin_object();
    for (const auto& [node, cell] : r.cells.at(c)) j.key(node).value(cell.text());
    j.end_object().end_object();
  }
  j.end_array().key("differences").begin_array();
  for (const auto& d : r.differences) {
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

namespace {

// ", 2 file(s) refused" where the reader refused some, else nothing (the counts line as it always was).
std::string refused_count(const Report& r) {
  return r.refused ? ", " + std::to_string(r.refused) + " file(s) refused" : "";
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

}  // namespace

std::string fleet_md(const Report& r) {
  const auto& differences = r.differences;
  std::ostringstream md;
  md << "# vmem-repro fleet report\n\n"
     << r.nodes.size() << " node(s), " << r.silent << " did not answer, " << differences.size() << " difference(s), "
     << r.problems << " problem(s)" << refused_count(r) << ".\n\n";
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
  if (r.refused) {
    md << "\n## Files refused\n\nNot records a triage writes: the report's input problems, not the nodes'. The "
          "report leaves them out.\n\n";
    for (const auto& n : r.nodes)
      for (const auto& p : n.refused) md << "- " << md_text(n.name) << ": " << md_text(p) << "\n";
  }
  md << "\n## Differences\n\n";
  if (differences.empty()) md << "None: every answering node gives each case the majority's verdict, as expected.\n";
  for (const auto& d : differences) {
    std::vector<std::string> names;
    for (const auto& n : d.nodes) names.push_back(md_text(n));
    md << "### " << md_text(d.case_name) << ": " << verdict_name(d.verdict) << " on " << join(names, ", ") << " ("
       << r.majority.at(d.case_name).text() << ")\n\n";
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

std::string fleet_console(const Report& r) {
  std::ostringstream os;
  os << "fleet: " << r.nodes.size() << " node(s), " << r.silent << " did not answer, " << r.differences.size()
     << " difference(s), " << r.problems << " problem(s)" << refused_count(r) << "\n";
  for (const auto& n : r.nodes)
    if (!n.why.empty()) os << "  node " << one_line(n.name) << " did not answer: " << one_line(n.why) << "\n";
  for (const auto& n : r.nodes)
    for (const auto& p : n.problems) os << "  node " << one_line(n.name) << ": " << one_line(p) << "\n";
  for (const auto& n : r.nodes)
    for (const auto& p : n.refused)
      os << "  input problem (not node " << one_line(n.name) << "'s): " << one_line(p) << "\n";
  for (const auto& d : r.differences) {
    std::vector<std::string> names;
    for (const auto& n : d.nodes) names.push_back(one_line(n));
    os << "  " << one_line(d.case_name) << ": " << verdict_name(d.verdict) << " on " << join(names, ",") << " ("
       << r.majority.at(d.case_name).text() << ")";
    if (!d.facts.empty())
      os << "; set apart by " << one_line(d.facts[0].first) << " = " << one_line(d.facts[0].second) << " ("
         << d.others_differing[0] << " of " << d.others.size() << " others differ)";
    os << "\n";
  }
  return os.str();
}

std::string fleet_junit(const Report& r) {
  std::vector<JunitSuite> suites;
  for (const auto& n : r.nodes) {
    JunitSuite suite{n.name, {}};
    for (const auto& p : n.refused)  // an error (the suite's input), never a failure of the node
      suite.cases.push_back({"fleet." + n.name, "input", JunitCase::Outcome::Error, p, ""});
    if (!n.why.empty()) {  // a node that did not answer is one error
      suite.cases.push_back({"fleet." + n.name, "answered", JunitCase::Outcome::Error, n.why, ""});
      suites.push_back(std::move(suite));
      continue;
    }
    for (const auto& row : n.summary.rows) {
      if (!row.observed && row.standing == Standing::NotRun) continue;  // no run behind it: in no cell either
      JunitCase c;
      c.classname = "fleet." + n.name + (row.binary.empty() ? "" : "." + row.binary);
      const std::string where = pair_arrow(row.pair);
      c.name = (row.case_name.empty() ? row.name : row.case_name) + (where.empty() ? "" : "[" + where + "]");
      if (row.standing == Standing::Unreadable) {
        c.outcome = JunitCase::Outcome::Failure;
        c.message = row.detail;
      } else if (!row.observed) {  // a planned run that left no record
        c.outcome = JunitCase::Outcome::Failure;
        c.message = "no record: " + row.result;
      } else if (row.not_run()) {
        c.outcome = JunitCase::Outcome::Skipped;
        c.message = row.detail;
      } else if (row.changed()) {
        c.outcome = JunitCase::Outcome::Failure;
        c.message = std::string(verdict_name(*row.observed)) + ", expected " + row.expected;
        c.text = row.detail;
      }
      suite.cases.push_back(std::move(c));
    }
    suites.push_back(std::move(suite));
  }
  return junit_xml("vmem-repro fleet", suites);
}

}  // namespace vmr_tools

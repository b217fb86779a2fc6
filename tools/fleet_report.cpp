// The fleet report: every node's triage results (one folder per node) in one table that names the odd nodes out
// and what sets them apart. scripts/fleet runs it after a Slurm run, or over folders gathered any other way.
//
//   fleet_report --table expected/verdicts.md --out DIR [--nodes FILE] [--junit FILE] NODE_DIR...
//
// A node is named by the name its records carry ("node": SLURMD_NODENAME under Slurm, else the host name), or by
// its folder's name where two folders carry the same one (several Slurm nodes on one host without Slurm's name).
// A node that did not answer (no folder, a folder still INCOMPLETE, no summary) is reported as such. For every case
// a node differs in (from the majority of nodes, or from expected/), the facts every such node shares and at least
// one other node does not are listed, ranked by how many of the others differ; facts that differ between nodes with
// no verdict change are listed apart. Writes DIR/fleet.json and DIR/fleet.md, prints a summary; exit 1 when a node
// differs or did not answer.
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "harness/expected.h"
#include "harness/json.h"
#include "harness/text.h"
#include "run_records.h"

namespace {

using namespace vmr;
using namespace vmr_tools;

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string basename_of(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path.substr(path.find_last_of('/') + 1);
}

struct Node {
  std::string name, dir, why;  // why: empty when it answered
  std::vector<Run> runs;
  std::map<std::string, std::string> facts;  // the facts every run of the node agrees on
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
    std::fprintf(stderr, "fleet_report: cannot read the expected table %s\n", o.table.c_str());
    return 2;
  }

  // --- the nodes -------------------------------------------------------------------------------------------------
  std::vector<Node> nodes;
  for (const auto& dir : o.dirs) {
    Node n;
    n.dir = dir;
    n.name = basename_of(dir);
    if (!exists(dir))
      n.why = "no results folder";
    else if (exists(dir + "/INCOMPLETE"))
      n.why = "its triage did not finish (INCOMPLETE)";
    else if (!exists(dir + "/summary.json"))
      n.why = "no summary.json: its triage did not finish";
    if (exists(dir)) n.runs = read_runs(dir);
    for (const auto& r : n.runs)
      if (auto it = r.facts.find("node"); it != r.facts.end()) {
        n.name = it->second;
        break;
      }
    nodes.push_back(std::move(n));
  }
  // Names recorded twice (several Slurm nodes on one host without Slurm's name): the folders name them.
  std::map<std::string, int> seen;
  for (const auto& n : nodes) ++seen[n.name];
  for (auto& n : nodes)
    if (seen[n.name] > 1) n.name = basename_of(n.dir);
  // Nodes Slurm gave the job that left no folder at all.
  if (!o.nodes_file.empty() && read_file(o.nodes_file, &text))
    for (auto line : split(text, '\n')) {
      std::string name(trim(line));
      if (name.empty()) continue;
      bool have = std::any_of(nodes.begin(), nodes.end(), [&](const Node& n) { return n.name == name; });
      if (!have) nodes.push_back(Node{name, o.out + "/" + name, "no results folder (the node did not answer)", {}, {}});
    }
  std::sort(nodes.begin(), nodes.end(), [](const Node& a, const Node& b) { return a.name < b.name; });

  // Facts every run of a node agrees on; identity keys are left out (they differ by definition).
  const std::set<std::string> identity = {"node", "host", "binary", "backend"};
  for (auto& n : nodes) {
    std::map<std::string, std::set<std::string>> values;
    for (const auto& r : n.runs)
      if (r.error.empty())
        for (const auto& [k, v] : r.facts) values[k].insert(v);
    for (const auto& [k, vs] : values)
      if (vs.size() == 1 && !identity.count(k)) n.facts[k] = *vs.begin();
  }

  // --- node x case cells -----------------------------------------------------------------------------------------
  std::set<std::string> cases;
  std::map<std::string, std::map<std::string, Cell>> cells;  // case -> node -> cell
  for (const auto& n : nodes) {
    if (!n.why.empty()) continue;
    for (const auto& r : n.runs) {
      if (!r.error.empty()) continue;
      const std::string c = r.binary + "." + r.case_name;
      cases.insert(c);
      Cell& cell = cells[c][n.name];
      ++cell.total;
      const ExpectedRow* want = find_expected(table, r.binary, r.case_name, r.facts);
      if (r.verdict != Verdict::Skip && (!want || match_expected(*want, r.verdict, r.detail) != Match::Ok))
        ++cell.changed;
      if (cell.total == 1 || case_summary_precedence(r.verdict) > case_summary_precedence(cell.verdict)) {
        cell.verdict = r.verdict;
        cell.worst = 0;
        cell.pairs.clear();
      }
      if (r.verdict == cell.verdict) {
        ++cell.worst;
        cell.pairs.push_back(arrow(r.pair));
      }
    }
  }

  // --- the odd nodes out, and what sets them apart -------------------------------------------------------------
  struct Difference {
    std::string case_name;
    Verdict verdict;
    std::vector<std::string> nodes, others;
    std::vector<std::pair<std::string, std::string>> facts;  // key, value the odd nodes share
    std::vector<int> others_differing;
  };
  std::vector<Difference> differences;
  std::map<std::string, std::string> majority_of;
  std::set<std::string> separating_keys;
  auto facts_of = [&](const std::string& name) -> const std::map<std::string, std::string>& {
    for (const auto& n : nodes)
      if (n.name == name) return n.facts;
    static const std::map<std::string, std::string> none;
    return none;
  };
  for (const auto& c : cases) {
    std::map<Verdict, std::vector<std::string>> by;
    for (const auto& [node, cell] : cells[c]) by[cell.verdict].push_back(node);
    Verdict majority = Verdict::Skip;
    size_t most = 0;
    for (const auto& [v, ns] : by)
      if (ns.size() > most || (ns.size() == most && v == Verdict::Pass)) majority = v, most = ns.size();
    majority_of[c] = verdict_name(majority);
    for (const auto& [v, ns] : by) {
      std::vector<std::string> odd;
      for (const auto& node : ns)
        if (v != majority || cells[c][node].changed) odd.push_back(node);
      if (odd.empty()) continue;
      Difference d{c, v, odd, {}, {}, {}};
      for (const auto& [node, cell] : cells[c])
        if (std::find(odd.begin(), odd.end(), node) == odd.end()) d.others.push_back(node);
      // Facts equal on every odd node and different on at least one other: ranked by how many others differ.
      for (const auto& [k, val] : facts_of(odd[0])) {
        bool shared = std::all_of(odd.begin(), odd.end(), [&](const std::string& n) {
          auto f = facts_of(n);
          auto it = f.find(k);
          return it != f.end() && it->second == val;
        });
        if (!shared) continue;
        int differing = 0;
        for (const auto& other : d.others) {
          auto f = facts_of(other);
          auto it = f.find(k);
          differing += it == f.end() || it->second != val;
        }
        if (differing == 0) continue;
        d.facts.emplace_back(k, val);
        d.others_differing.push_back(differing);
        separating_keys.insert(k);
      }
      std::vector<size_t> order(d.facts.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(),
                       [&](size_t a, size_t b) { return d.others_differing[a] > d.others_differing[b]; });
      Difference sorted = d;
      for (size_t i = 0; i < order.size(); ++i) {
        sorted.facts[i] = d.facts[order[i]];
        sorted.others_differing[i] = d.others_differing[order[i]];
      }
      differences.push_back(sorted);
    }
  }
  // Facts that differ between answering nodes without setting a difference apart.
  std::map<std::string, std::map<std::string, std::string>> other_facts;  // key -> node -> value
  {
    // A fact one node reports and another does not differs too (an HSA_* setting made on one node only).
    std::set<std::string> keys;
    for (const auto& n : nodes)
      if (n.why.empty())
        for (const auto& [k, v] : n.facts) keys.insert(k);
    std::map<std::string, std::set<std::string>> values;
    for (const auto& n : nodes)
      if (n.why.empty())
        for (const auto& k : keys) values[k].insert(n.facts.count(k) ? n.facts.at(k) : "(not reported)");
    for (const auto& [k, vs] : values)
      if (vs.size() > 1 && !separating_keys.count(k))
        for (const auto& n : nodes)
          if (n.why.empty()) other_facts[k][n.name] = n.facts.count(k) ? n.facts.at(k) : "(not reported)";
  }

  // --- fleet.json, fleet.md, the console -------------------------------------------------------------------------
  const int silent = int(std::count_if(nodes.begin(), nodes.end(), [](const Node& n) { return !n.why.empty(); }));
  JsonWriter j;
  j.begin_object().key("schema").value("vmem-repro-fleet/1").key("nodes").begin_array();
  for (const auto& n : nodes) {
    j.begin_object().key("name").value(n.name).key("folder").value(n.dir).key("answered").value(n.why.empty());
    if (!n.why.empty()) j.key("why").value(n.why);
    j.key("facts").begin_object();
    for (const auto& [k, v] : n.facts) j.key(k).value(v);
    j.end_object().end_object();
  }
  j.end_array().key("cases").begin_array();
  for (const auto& c : cases) {
    j.begin_object().key("case").value(c).key("majority").value(majority_of[c]).key("cells").begin_object();
    for (const auto& [node, cell] : cells[c]) j.key(node).value(cell.text());
    j.end_object().end_object();
  }
  j.end_array().key("differences").begin_array();
  for (const auto& d : differences) {
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
  for (const auto& [k, by_node] : other_facts) {
    j.key(k).begin_object();
    for (const auto& [node, v] : by_node) j.key(node).value(v);
    j.end_object();
  }
  j.end_object().end_object();
  std::ofstream(o.out + "/fleet.json") << j.str() << "\n";

  std::ostringstream md;
  md << "# vmem-repro fleet report\n\n"
     << nodes.size() << " node(s), " << silent << " did not answer, " << differences.size()
     << " difference(s).\n\n| node |";
  for (const auto& c : cases) md << " " << c << " |";
  md << "\n| --- |";
  for (size_t i = 0; i < cases.size(); ++i) md << " --- |";
  md << "\n";
  for (const auto& n : nodes) {
    md << "| " << n.name << " |";
    for (const auto& c : cases) {
      auto it = cells[c].find(n.name);
      md << " " << (!n.why.empty() ? "did not answer" : it == cells[c].end() ? "-" : it->second.text()) << " |";
    }
    md << "\n";
  }
  if (silent) {
    md << "\n## Nodes that did not answer\n\n";
    for (const auto& n : nodes)
      if (!n.why.empty()) md << "- " << n.name << ": " << n.why << "\n";
  }
  md << "\n## Differences\n\n";
  if (differences.empty()) md << "None: every answering node gives each case the majority's verdict, as expected.\n";
  for (const auto& d : differences) {
    md << "### " << d.case_name << ": " << verdict_name(d.verdict) << " on " << join(d.nodes, ", ") << " (majority "
       << majority_of[d.case_name] << ")\n\n";
    if (d.facts.empty()) md << "No fact sets these nodes apart from the others.\n\n";
    for (size_t i = 0; i < d.facts.size(); ++i)
      md << "- `" << d.facts[i].first << " = " << d.facts[i].second << "` on all of them; differs on "
         << d.others_differing[i] << " of " << d.others.size() << " other node(s)\n";
    md << "\n";
  }
  if (!other_facts.empty()) {
    md << "## Facts that differ with no verdict change\n\n";
    for (const auto& [k, by_node] : other_facts) {
      std::vector<std::string> parts;
      for (const auto& [node, v] : by_node) parts.push_back(node + ": " + v);
      md << "- `" << k << "`: " << join(parts, "; ") << "\n";
    }
  }
  std::ofstream(o.out + "/fleet.md") << md.str();

  std::printf("fleet: %zu node(s), %d did not answer, %zu difference(s)\n", nodes.size(), silent, differences.size());
  for (const auto& n : nodes)
    if (!n.why.empty()) std::printf("  node %s did not answer: %s\n", n.name.c_str(), n.why.c_str());
  for (const auto& d : differences) {
    std::printf("  %s: %s on %s (majority %s)", d.case_name.c_str(), verdict_name(d.verdict),
                join(d.nodes, ",").c_str(), majority_of[d.case_name].c_str());
    if (!d.facts.empty())
      std::printf("; set apart by %s = %s (%d of %zu others differ)", d.facts[0].first.c_str(),
                  d.facts[0].second.c_str(), d.others_differing[0], d.others.size());
    std::printf("\n");
  }
  std::printf("fleet report: %s/fleet.md, %s/fleet.json\n", o.out.c_str(), o.out.c_str());

  if (!o.junit.empty()) {
    std::ostringstream x;
    int tests = 0, failures = 0, skipped = 0, errors = silent;
    std::ostringstream body;
    for (const auto& n : nodes) {
      if (!n.why.empty()) {
        body << "  <testsuite name=\"" << xml_escape(n.name)
             << "\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">\n"
             << "    <testcase classname=\"fleet." << xml_escape(n.name) << "\" name=\"answered\"><error message=\""
             << xml_escape(n.why) << "\"/></testcase>\n  </testsuite>\n";
        ++tests;
        continue;
      }
      std::ostringstream cases_xml;
      int t = 0, f = 0, s = 0;
      for (const auto& r : n.runs) {
        ++t;
        cases_xml << "    <testcase classname=\"fleet." << xml_escape(n.name) << "." << xml_escape(r.binary)
                  << "\" name=\"" << xml_escape(r.case_name + (r.pair.empty() ? "" : "[" + arrow(r.pair) + "]"))
                  << "\">";
        const ExpectedRow* want = r.error.empty() ? find_expected(table, r.binary, r.case_name, r.facts) : nullptr;
        if (!r.error.empty()) {
          cases_xml << "<failure message=\"" << xml_escape(r.error) << "\"/>";
          ++f;
        } else if (r.verdict == Verdict::Skip) {
          cases_xml << "<skipped message=\"" << xml_escape(r.detail) << "\"/>";
          ++s;
        } else if (!want || match_expected(*want, r.verdict, r.detail) != Match::Ok) {
          cases_xml << "<failure message=\""
                    << xml_escape(std::string(verdict_name(r.verdict)) + ", expected " +
                                  (want ? verdict_cell(*want) : "no row"))
                    << "\">" << xml_escape(r.detail) << "</failure>";
          ++f;
        }
        cases_xml << "</testcase>\n";
      }
      tests += t, failures += f, skipped += s;
      body << "  <testsuite name=\"" << xml_escape(n.name) << "\" tests=\"" << t << "\" failures=\"" << f
           << "\" errors=\"0\" skipped=\"" << s << "\">\n"
           << cases_xml.str() << "  </testsuite>\n";
    }
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"vmem-repro fleet\" tests=\"" << tests
      << "\" failures=\"" << failures << "\" errors=\"" << errors << "\" skipped=\"" << skipped << "\">\n"
      << body.str() << "</testsuites>\n";
    std::ofstream(o.junit) << x.str();
  }
  return silent || !differences.empty() ? 1 : 0;
}

#include "fleet_html.h"

#include <algorithm>
#include <map>
#include <set>

#include "harness/text.h"
#include "html.h"

namespace vmr_tools {

using namespace vmr;

namespace {

using Cases = std::map<std::string, std::set<std::string>>;  // node -> the cases it differs in

// Where a node's row goes: 0 it differs in some case, 1 it did not answer or has a problem, 2 it agrees.
int standing_of(const Node& n, const Cases& differing) {
  if (differing.count(n.name)) return 0;
  return !n.why.empty() || !n.problems.empty() ? 1 : 2;
}

std::vector<const Node*> nodes_in_order(const Report& r, const Cases& differing) {
  std::vector<const Node*> order;
  for (const auto& n : r.nodes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(), [&](const Node* a, const Node* b) {
    return standing_of(*a, differing) < standing_of(*b, differing);
  });
  return order;
}

// The row header's title: the node's whole name (a long one is cut on the page) and what sets it apart, in words.
std::string node_title(const Node& n, const Cases& differing) {
  std::vector<std::string> parts;
  if (auto it = differing.find(n.name); it != differing.end())
    parts.push_back("differs in " + std::to_string(it->second.size()) +
                    " case(s): " + join(std::vector<std::string>(it->second.begin(), it->second.end()), ", "));
  if (!n.why.empty()) parts.push_back("did not answer: " + n.why);
  for (const auto& p : n.problems) parts.push_back("problem: " + p);
  return n.name + ": " + (parts.empty() ? "agrees with the majority and expected/verdicts.md" : join(parts, "; "));
}

const Cell* cell_of(const Report& r, const std::string& case_name, const std::string& node) {
  const auto by_node = r.cells.find(case_name);
  if (by_node == r.cells.end()) return nullptr;
  const auto it = by_node->second.find(node);
  return it == by_node->second.end() ? nullptr : &it->second;
}

void td(std::string* out, const std::string& cls, const std::string& title, const std::string& text) {
  *out += "<td class=\"" + cls + "\" title=\"" + html_text(title) + "\">" + html_text(text) + "</td>";
}

// The columns: the cases some node differs in first (on a wide fleet the rest are a scroll away), then the others.
std::vector<std::string> cases_in_order(const Report& r) {
  std::set<std::string> differ;
  for (const auto& d : r.differences) differ.insert(d.case_name);
  std::vector<std::string> order(r.cases.begin(), r.cases.end());
  std::stable_partition(order.begin(), order.end(), [&](const std::string& c) { return differ.count(c) > 0; });
  return order;
}

std::string heatmap(const Report& r, const Cases& differing) {
  const std::vector<std::string> cases = cases_in_order(r);
  std::string out = "<table id=\"heatmap\">\n<thead><tr><th>node</th>";
  for (const auto& c : cases)
    out += "<th class=\"case\" title=\"" + html_text(c) + "\"><span>" + html_text(c) + "</span></th>";
  out += "</tr>\n<tr class=\"majority\"><th>majority</th>";
  for (const auto& c : cases) {
    const auto m = r.majority.find(c);
    if (m == r.majority.end())
      td(&out, "v-none", "no node ran it", "-");
    else
      td(&out, verdict_class(m->second.verdict), m->second.text(), verdict_name(m->second.verdict));
  }
  out += "</tr></thead>\n<tbody>\n";
  out.reserve(out.size() + r.nodes.size() * r.cases.size() * 64);
  for (const Node* n : nodes_in_order(r, differing)) {
    const bool differs = differing.count(n->name) > 0;
    out += std::string("<tr") + (differs ? " class=\"differs\"" : "") + "><th title=\"" +
           html_text(node_title(*n, differing)) + "\">" + html_text(n->name) + "</th>";
    for (const auto& c : cases) {
      if (!n->why.empty()) {
        td(&out, "v-silent", "did not answer: " + n->why, "n/a");
        continue;
      }
      const Cell* cell = cell_of(r, c, n->name);
      if (!cell)
        td(&out, "v-none", "no run of this case on this node", "-");
      else  // (a cell of planned runs that left no record holds no verdict of the node's: "none")
        td(&out, verdict_class(cell->verdict) + (cell->changed ? " changed" : ""), cell->text(),
           cell->total == 0 ? "none" : verdict_name(cell->verdict));
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string names(const std::vector<std::string>& nodes) {
  std::vector<std::string> escaped;
  for (const auto& n : nodes) escaped.push_back(html_text(n));
  return join(escaped, ", ");
}

// Beside the map: each difference with the facts its nodes share and others lack, the facts that differ with no
// verdict change (grouped by value), the nodes that did not answer and the problems.
std::string side(const Report& r) {
  std::string out = "<h2>Differences</h2>\n";
  if (r.differences.empty())
    out += "<p>None: every answering node gives each case the majority's verdict, as expected.</p>\n";
  for (const auto& d : r.differences) {
    const auto m = r.majority.find(d.case_name);
    out += "<h3>" + html_text(d.case_name) + ": <span class=\"" + verdict_class(d.verdict) + "\">" +
           verdict_name(d.verdict) + "</span> on " + names(d.nodes) + " (" +
           (m == r.majority.end() ? std::string("no majority") : html_text(m->second.text())) + ")</h3>\n";
    if (d.facts.empty()) out += "<p>No fact sets these nodes apart from the others.</p>\n";
    if (!d.facts.empty()) out += "<ul>\n";
    for (size_t i = 0; i < d.facts.size(); ++i)
      out += "<li><code>" + html_text(d.facts[i].first + " = " + d.facts[i].second) +
             "</code> on all of them; differs on " +
             std::to_string(i < d.others_differing.size() ? d.others_differing[i] : 0) + " of " +
             std::to_string(d.others.size()) + " other node(s)</li>\n";
    if (!d.facts.empty()) out += "</ul>\n";
  }
  if (!r.other_facts.empty()) {
    out += "<h2>Facts that differ with no verdict change</h2>\n<ul>\n";
    for (const auto& [k, by_node] : r.other_facts) {
      std::map<std::string, std::vector<std::string>> by_value;
      for (const auto& [node, v] : by_node) by_value[v].push_back(node);
      std::vector<std::string> parts;
      for (const auto& [v, ns] : by_value) parts.push_back("<code>" + html_text(v) + "</code> on " + names(ns));
      out += "<li><code>" + html_text(k) + "</code>: " + join(parts, "; ") + "</li>\n";
    }
    out += "</ul>\n";
  }
  std::string silent, problems, refused;
  for (const auto& n : r.nodes) {
    if (!n.why.empty()) silent += "<li>" + html_text(n.name) + ": " + html_text(n.why) + "</li>\n";
    for (const auto& p : n.problems) problems += "<li>" + html_text(n.name) + ": " + html_text(p) + "</li>\n";
    for (const auto& p : n.refused) refused += "<li>" + html_text(n.name) + ": " + html_text(p) + "</li>\n";
  }
  if (!silent.empty()) out += "<h2>Nodes that did not answer</h2>\n<ul>\n" + silent + "</ul>\n";
  if (!problems.empty()) out += "<h2>Problems</h2>\n<ul>\n" + problems + "</ul>\n";
  // (as fleet.md's: a node whose summary was refused has no cell, and the page must say why)
  if (!refused.empty())
    out +=
        "<h2>Files refused</h2>\n<p>Not records a triage writes: the report's input problems, not the nodes'. The "
        "report leaves them out.</p>\n<ul>\n" +
        refused + "</ul>\n";
  return out;
}

}  // namespace

std::string fleet_html(const Report& r) {
  Cases differing;
  for (const auto& d : r.differences)
    for (const auto& n : d.nodes) differing[n].insert(d.case_name);
  int silent = 0, problems = 0, refused = 0;
  for (const auto& n : r.nodes) {
    silent += !n.why.empty();
    problems += int(n.problems.size());
    refused += int(n.refused.size());
  }
  std::string body = "<h1>vmem-repro fleet report</h1>\n<p>" + std::to_string(r.nodes.size()) + " node(s), " +
                     std::to_string(silent) + " did not answer, " + std::to_string(differing.size()) + " differ, " +
                     std::to_string(r.differences.size()) + " difference(s), " + std::to_string(problems) +
                     " problem(s)" + (refused ? ", " + std::to_string(refused) + " file(s) refused" : "") +
                     ". Nodes that differ come first; fleet.md and fleet.json hold the same report.</p>\n" +
                     verdict_legend(true) + "<div class=\"split\">\n<div class=\"map\">\n" + heatmap(r, differing) +
                     "</div>\n<div class=\"side\">\n" + side(r) + "</div>\n</div>\n";
  return html_page("vmem-repro fleet report", body);
}

}  // namespace vmr_tools

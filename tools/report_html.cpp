#include "report_html.h"

#include <algorithm>

#include "harness/text.h"
#include "html.h"

namespace vmr_tools {

using namespace vmr;

namespace {

std::string matrix_table(const PairMatrix& m) {
  std::string out = "<h3>" + html_text(m.name) + "</h3>\n<table class=\"matrix\" data-case=\"" + html_text(m.name) +
                    "\">\n<tr><th>rank 0 \\ rank 1</th>";
  for (const auto& g : m.gpus) out += "<th>GPU " + html_text(g) + "</th>";
  out += "</tr>\n";
  for (const auto& e : m.gpus) {
    out += "<tr><th>GPU " + html_text(e) + "</th>";
    for (const auto& i : m.gpus) {
      const auto it = m.cells.find({e, i});
      const std::string cls = it == m.cells.end()
                                  ? "v-none"
                                  : verdict_class_of_name(it->second.observed) + (it->second.changed ? " changed" : "");
      const std::string text = m.text(e, i);
      out += "<td class=\"" + cls + "\" title=\"" +
             html_text("rank 0 on GPU " + e + ", rank 1 on GPU " + i + ": " + text) + "\">" + html_text(text) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</table>\n";
}

std::string rows_table(const Summary& s) {
  std::vector<const Row*> rows;
  for (const auto& r : s.rows) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) { return a->changed() > b->changed(); });
  std::string out =
      "<table class=\"rows\">\n<tr><th>case</th><th>pair</th><th>expected</th><th>observed</th><th>result</th>"
      "<th>threads</th></tr>\n";
  for (const Row* r : rows) {
    const std::string observed = observed_text(*r);
    out += "<tr><td>" + html_text(r->name) + "</td><td>" + (r->pair.empty() ? "-" : html_text(pair_key(r->pair))) +
           "</td><td>" + html_text(r->expected) + "</td><td class=\"" + verdict_class_of_name(observed) +
           (r->changed() ? " changed" : "") + "\" title=\"" + html_text(r->detail) + "\">" + html_text(observed) +
           "</td><td class=\"result\">" + html_text(r->result) + "</td><td>" +
           (points_to_threads(*r) ? html_text(join(r->issues, ", ")) : "") + "</td></tr>\n";
  }
  return out + "</table>\n";
}

std::string node_facts(const Summary& s) {
  std::string out =
      "<details><summary>The node's facts (" + std::to_string(s.node.size()) + ")</summary>\n<table class=\"facts\">\n";
  for (const auto& [k, v] : s.node) out += "<tr><th>" + html_text(k) + "</th><td>" + html_text(v) + "</td></tr>\n";
  return out + "</table>\n</details>\n";
}

}  // namespace

std::string report_html(const Summary& s) {
  std::string node;
  for (const char* key : {"node", "host"})
    if (auto it = s.node.find(key); node.empty() && it != s.node.end()) node = it->second;
  std::string body = "<h1>vmem-repro triage" + (node.empty() ? "" : " on " + html_text(node)) + "</h1>\n<p>" +
                     html_text(counts_text(s)) + ". Rows that differ from expected/verdicts.md come first; report.md " +
                     "and summary.json hold the same comparison.</p>\n";
  if (!s.problem_lines.empty()) {
    body += "<h2>Table problems</h2>\n<ul>\n";
    for (const auto& p : s.problem_lines) body += "<li>" + html_text(p) + "</li>\n";
    body += "</ul>\n";
  }
  body += verdict_legend(false);
  const auto matrices = pair_matrices(s.rows, true);
  if (!matrices.empty()) {
    body += "<h2>Rank 0's GPU x rank 1's GPU</h2>\n<p>Rows: rank 0's GPU, columns: rank 1's; " +
            html_text(kMatrixCellDirection) + ".</p>\n";
    for (const auto& m : matrices) body += matrix_table(m);
  }
  body += "<h2>Rows</h2>\n" + rows_table(s) + node_facts(s);
  return html_page("vmem-repro triage" + (node.empty() ? "" : " on " + node), body);
}

}  // namespace vmr_tools

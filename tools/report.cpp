#include "report.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "compare.h"
#include "harness/json.h"
#include "harness/output_file.h"
#include "harness/scope_guard.h"
#include "harness/text.h"
#include "junit.h"
#include "markdown.h"

namespace vmr_tools {

using namespace vmr;

namespace {

// Each text list of a row, read as summary_json writes it; false where it is not a list of text.
bool read_texts(const JsonValue& v, const char* key, std::vector<std::string>* out) {
  const JsonValue* list = v.get(key);
  if (!list || list->type != JsonValue::Array) return false;
  for (const auto& e : list->arr) {
    if (e.type != JsonValue::String) return false;
    out->push_back(e.str);
  }
  return true;
}

bool read_verdicts(const JsonValue& v, const char* key, std::vector<Verdict>* out) {
  std::vector<std::string> names;
  if (!read_texts(v, key, &names)) return false;
  for (const auto& n : names) {
    const auto verdict = verdict_from_name(n);
    if (!verdict) return false;
    out->push_back(*verdict);
  }
  return true;
}

bool read_metrics(const JsonValue& v, std::vector<Metric>* out) {
  const JsonValue* list = v.get("metrics");
  if (!list || list->type != JsonValue::Array) return false;
  for (const auto& m : list->arr) {
    const JsonValue* value = m.get("value");
    const JsonValue* name = m.get("name");
    const JsonValue* unit = m.get("unit");
    if (!value || value->type != JsonValue::Number || !name || name->type != JsonValue::String || !unit ||
        unit->type != JsonValue::String)
      return false;
    out->push_back({name->str, value->num, unit->str});
  }
  return true;
}

// The GPU indices of a row: [] where the run did not choose its GPUs, else two or more.
bool read_gpus(const JsonValue& v, Pair* pair) {
  const JsonValue* list = v.get("gpus");
  if (!list || list->type != JsonValue::Array || list->arr.size() == 1) return false;
  Pair p;
  for (const auto& g : list->arr) {
    if (g.type != JsonValue::Number || g.num < 0 || g.num != double(int(g.num))) return false;
    p.gpus.push_back(int(g.num));
  }
  *pair = p;
  return true;
}

// Fills a row from one element of summary.json's "rows"; false where it is not one.
bool read_row(const JsonValue& v, Row* r) {
  if (v.type != JsonValue::Object) return false;
  const std::pair<const char*, std::string Row::*> fields[] = {
      {"name", &Row::name},         {"binary", &Row::binary},          {"case", &Row::case_name},
      {"expected", &Row::expected}, {"result", &Row::result},          {"detail", &Row::detail},
      {"evidence", &Row::evidence}, {"why_not_run", &Row::why_not_run}};
  for (const auto& [key, member] : fields) {
    const JsonValue* f = v.get(key);
    if (!f || f->type != JsonValue::String) return false;
    r->*member = f->str;
  }
  if (!standing_from_name(v.get_string("standing"), &r->standing) || !read_gpus(v, &r->pair) ||
      !read_verdicts(v, "allowed", &r->allowed) || !read_texts(v, "reasons", &r->reasons) ||
      !read_texts(v, "issues", &r->issues) || !read_metrics(v, &r->metrics))
    return false;
  // The observed verdict, or null where there is none (no record, or one that could not be read: the standing says).
  const JsonValue* observed = v.get("observed");
  if (!observed) return false;
  if (observed->type == JsonValue::Null) {
    r->observed.reset();
    return r->standing == Standing::Unreadable || r->standing == Standing::MissingRecord ||
           r->standing == Standing::NotRun;
  }
  r->observed = observed->type == JsonValue::String ? verdict_from_name(observed->str) : std::nullopt;
  return r->observed.has_value();
}

bool read_count(const JsonValue& v, const char* key, int* out) {
  const JsonValue* n = v.get(key);
  if (!n || n->type != JsonValue::Number || n->num < 0 || n->num != double(int(n->num))) return false;
  *out = int(n->num);
  return true;
}

void matrix_md(std::ostringstream& os, const PairMatrix& m) {
  os << "\n#### " << md_text(m.name) << "\n\n| rank 0 \\ rank 1 |";
  for (const auto& d : m.gpus) os << " GPU " << md_text(d) << " |";
  os << "\n| --- |";
  for (size_t i = 0; i < m.gpus.size(); ++i) os << " --- |";
  os << "\n";
  for (const auto& e : m.gpus) {
    os << "| GPU " + md_text(e) + " |";
    for (const auto& i : m.gpus)  // (a run's cell is outside text; "-" and "not run" are this report's own words)
      os << " " << (m.cells.count({e, i}) ? md_text(m.text(e, i)) : m.text(e, i)) << " |";
    os << "\n";
  }
}

void matrix_text(std::ostringstream& os, const PairMatrix& m) {
  os << "\n"
     << m.name << " (rows: rank 0's GPU, columns: rank 1's GPU; " << kMatrixCellDirection << ")\n"
     << std::string(12, ' ');
  for (const auto& d : m.gpus) os << " " << std::left << std::setw(28) << ("GPU " + d);
  os << "\n";
  for (const auto& e : m.gpus) {
    os << "  GPU " + e + std::string(e.size() < 6 ? 6 - e.size() : 0, ' ');
    for (const auto& i : m.gpus) os << " " << std::left << std::setw(28) << m.text(e, i);
    os << "\n";
  }
}

}  // namespace

std::string observed_text(const Row& r) {
  if (r.observed) return verdict_name(*r.observed);
  return r.standing == Standing::Unreadable ? "?" : "-";
}

std::string first_metric_text(const Row& r) { return r.metrics.empty() ? "" : metric_text(r.metrics.front()); }

bool points_to_threads(const Row& r) {
  // Only what the node did points to a runtime's regression: a HARNESS or USAGE row (the suite broke: too few file
  // descriptors, a bad option), an unreadable record ("?") or a planned run without one ("-") would blame ROCm's
  // thread for the suite's own trouble, or for what nobody saw.
  const auto& v = r.observed;
  if (r.issues.empty() || !v || is_suite_verdict(*v)) return false;
  return r.changed() || *v == Verdict::Fail || *v == Verdict::Crash || *v == Verdict::Hang;
}

bool some_gpu_case_ran(const std::vector<Row>& rows) {
  for (const auto& r : rows)
    if (!r.pair.empty() && !r.not_run()) return true;
  return false;
}

void count_rows(Summary* s) {
  s->ok = s->changed = s->not_run = 0;
  for (const auto& r : s->rows) {
    s->ok += !r.changed() && !r.not_run();
    s->changed += r.changed();
    s->not_run += r.not_run();
  }
}

Summary summary_of(std::vector<Row> rows) {
  Summary s;
  s.rows = std::move(rows);
  count_rows(&s);
  return s;
}

namespace {

void write_texts(JsonWriter& j, const char* key, const std::vector<std::string>& texts) {
  j.key(key).begin_array();
  for (const auto& t : texts) j.value(t);
  j.end_array();
}

void write_row(JsonWriter& j, const Row& r) {
  j.begin_object().key("name").value(r.name).key("binary").value(r.binary).key("case").value(r.case_name);
  j.key("gpus").begin_array();
  for (int g : r.pair.gpus) j.value(g);
  j.end_array();
  if (r.observed)
    j.key("observed").value(verdict_name(*r.observed));
  else
    j.key("observed").null();
  j.key("standing").value(standing_name(r.standing)).key("why_not_run").value(r.why_not_run);
  j.key("allowed").begin_array();
  for (Verdict v : r.allowed) j.value(verdict_name(v));
  j.end_array();
  write_texts(j, "reasons", r.reasons);
  j.key("expected").value(r.expected).key("result").value(r.result).key("detail").value(r.detail);
  j.key("evidence").value(r.evidence);
  write_texts(j, "issues", r.issues);
  j.key("metrics").begin_array();
  for (const auto& m : r.metrics)
    j.begin_object().key("name").value(m.name).key("value").value(m.value).key("unit").value(m.unit).end_object();
  j.end_array().end_object();
}

}  // namespace

std::string summary_json(const Summary& s) {
  JsonWriter j;
  j.begin_object().key("schema").value(kSummarySchema);
  j.key("ok").value(s.ok).key("changed").value(s.changed).key("not_run").value(s.not_run);
  j.key("table_problems").value(s.problems);
  write_texts(j, "problem_lines", s.problem_lines);
  j.key("node").begin_object();
  for (const auto& [k, v] : s.node) j.key(k).value(v);
  j.end_object().key("rows").begin_array();
  for (const auto& r : s.rows) write_row(j, r);
  j.end_array().end_object();
  return j.str() + "\n";
}

Status read_summary_json(std::string_view text, const std::string& source, Summary* s) {
  JsonValue v;
  Status st = parse_json(text, &v);
  if (!st.ok()) return Status::harness(source + " is not JSON: " + st.detail);
  const std::string schema = v.get_string("schema");
  if (schema != kSummarySchema && schema.rfind("vmem-repro-summary/", 0) == 0)
    return Status::harness(source + " is " + schema + ", not " + kSummarySchema +
                           ": a summary of another version of the tools (run the triage again)");
  const JsonValue* rows = v.get("rows");
  const JsonValue* node = v.get("node");
  if (schema != kSummarySchema || !rows || rows->type != JsonValue::Array || !node || node->type != JsonValue::Object ||
      !read_count(v, "ok", &s->ok) || !read_count(v, "changed", &s->changed) ||
      !read_count(v, "not_run", &s->not_run) || !read_count(v, "table_problems", &s->problems) ||
      !read_texts(v, "problem_lines", &s->problem_lines))
    return Status::harness(source + " is not a summary check_expected wrote (" + kSummarySchema + ")");
  for (const auto& [k, fact] : node->obj) {
    if (fact.type != JsonValue::String) return Status::harness(source + " has a node fact that is not text: " + k);
    s->node[k] = fact.str;
  }
  for (const auto& e : rows->arr) {
    Row r;
    if (!read_row(e, &r)) return Status::harness(source + " has a row that is not one check_expected wrote");
    s->rows.push_back(std::move(r));
  }
  // Its counts are its rows' (count_rows) and its problems its lines: a summary whose counts say otherwise (edited by
  // hand, or two summaries spliced) would give each reader another story, the health line its rows' and bug-report's
  // first line its counts'.
  Summary counted;
  counted.rows = s->rows;
  count_rows(&counted);
  if (counted.ok != s->ok || counted.changed != s->changed || counted.not_run != s->not_run ||
      s->problems != int(s->problem_lines.size()))
    return Status::harness(source + " counts " + counts_text(*s) + " where its rows and problem lines are " +
                           std::to_string(counted.ok) + " OK, " + std::to_string(counted.changed) + " CHANGED, " +
                           std::to_string(counted.not_run) + " not run, " + std::to_string(s->problem_lines.size()) +
                           " table problems: not a summary check_expected wrote");
  return Status::pass();
}

bool is_other_summary_version(std::string_view text) {
  JsonValue v;
  if (!parse_json(text, &v).ok()) return false;
  const std::string schema = v.get_string("schema");
  return schema != kSummarySchema && schema.rfind("vmem-repro-summary/", 0) == 0;
}

std::vector<std::string> unlisted_binaries(const Summary& s) {
  std::vector<std::string> out;
  for (const auto& r : s.rows)
    if (r.not_run() && r.why_not_run == kUnlistedWhy && std::find(out.begin(), out.end(), r.binary) == out.end())
      out.push_back(r.binary);
  return out;
}

std::string counts_text(const Summary& s) {
  return std::to_string(s.ok) + " OK, " + std::to_string(s.changed) + " CHANGED, " + std::to_string(s.not_run) +
         " not run, " + std::to_string(s.problems) + " table problems";
}

namespace {

// The rows that point to known regressions, one line each: the case, its pair, what it did, and its threads (with
// their addresses in Markdown).
std::string thread_lines(const Summary& s, bool markdown) {
  std::ostringstream os;
  for (const auto& r : s.rows) {
    if (!points_to_threads(r)) continue;
    std::vector<std::string> shown;
    // A label read back from a summary.json is a link only where it is a thread's label (owner/repo#N): any other
    // text is text.
    for (const auto& t : r.issues)
      shown.push_back(!markdown            ? std::string(t)
                      : is_thread_label(t) ? "[" + std::string(t) + "](" + thread_url(t) + ")"
                                           : md_text(std::string(t)));
    const auto text = [&](const std::string& v) { return markdown ? md_text(v) : v; };
    os << (markdown ? "- " : "  ") << text(r.name) << (r.pair.empty() ? "" : " " + text(pair_key(r.pair))) << ": "
       << text(observed_text(r)) << (r.changed() ? " (CHANGED)" : "") << " -> " << join(shown, ", ") << "\n";
  }
  return os.str();
}

}  // namespace

std::string console_table(const Summary& s) {
  std::ostringstream os;
  auto line = [&](const std::string& name, const std::string& pair, const std::string& expected,
                  const std::string& observed, const std::string& result) {
    os << std::left << std::setw(40) << name << " " << std::setw(6) << pair << " " << std::setw(9) << expected << " "
       << std::setw(9) << observed << " " << result << "\n";
  };
  line("case", "pair", "expected", "observed", "result");
  // Rows with no run behind them, one line per reason (on a one-GPU CUDA node 31 of 48 rows are the AMD binaries not
  // built there, and the rows that matter scrolled away): how many, why, and of which binaries. summary.json and
  // report.md keep every row.
  std::vector<std::string> reasons;
  std::map<std::string, std::vector<std::pair<std::string, int>>> binaries_of;  // reason -> (binary, rows)
  for (const auto& r : s.rows) {
    // A run that SKIPped stays a row: its case, pair and reason are what a reader must see (a SKIP of the suite's
    // own making above all). Only rows with no run behind them fold.
    if (!r.not_run() || r.observed) {
      line(r.name, r.pair.empty() ? "-" : pair_key(r.pair), r.expected, observed_text(r), r.result);
      continue;
    }
    const std::string why = r.why_not_run.empty() ? r.result : "not run (" + r.why_not_run + ")";
    auto& binaries = binaries_of[why];
    if (binaries.empty()) reasons.push_back(why);
    const std::string binary = r.binary.empty() ? r.name : r.binary;
    auto it = std::find_if(binaries.begin(), binaries.end(), [&](const auto& b) { return b.first == binary; });
    if (it == binaries.end()) it = binaries.insert(binaries.end(), {binary, 0});
    ++it->second;
  }
  for (const auto& why : reasons) {
    int rows = 0;
    std::string of;
    for (const auto& [binary, n] : binaries_of[why]) {
      rows += n;
      of += (of.empty() ? "" : ", ") + binary + " (" + std::to_string(n) + ")";
    }
    os << rows << (rows == 1 ? " case run " : " case runs ") << why << ": " << of << "\n";
  }
  os << counts_text(s) << "\n";
  const std::string threads = thread_lines(s, false);
  if (!threads.empty()) os << "known regressions these rows point to:\n" << threads;
  return os.str();
}

std::string PairMatrix::text(const std::string& row, const std::string& column) const {
  auto it = cells.find({row, column});
  return it != cells.end() ? it->second.text : row == column ? "-" : "not run";
}

std::vector<PairMatrix> pair_matrices(const std::vector<Row>& rows, bool every_case) {
  std::map<std::string, PairMatrix> by_case;  // mesh runs first, then the pairs' own runs over their cells
  for (bool mesh_pass : {true, false})
    for (const auto& r : rows) {
      std::vector<std::string> ids;
      for (int id : r.pair.gpus) ids.push_back(std::to_string(id));
      if (ids.size() < 2 || (ids.size() > 2) != mesh_pass) continue;
      const std::string metric = first_metric_text(r);
      const MatrixCell cell{observed_text(r) + (metric.empty() ? "" : " " + metric) +
                                (r.changed() ? " (CHANGED)" : "") + (mesh_pass ? " (mesh)" : ""),
                            observed_text(r), r.changed()};
      PairMatrix& m = by_case[r.name];
      m.name = r.name;
      if (mesh_pass) {
        for (const auto& exp : ids)
          for (const auto& imp : ids)
            if (exp != imp) m.cells[{exp, imp}] = cell;
      } else {
        m.cells[{ids[0], ids[1]}] = cell;  // rank 0's GPU, rank 1's
      }
      for (const auto& id : ids) m.gpus.insert(id);
    }
  std::set<std::string> failed;  // cases with a row that differs or did not pass
  for (const auto& r : rows)
    if (r.changed() || (r.observed && *r.observed != Verdict::Pass && *r.observed != Verdict::Skip))
      failed.insert(r.name);
  std::vector<PairMatrix> out;
  for (auto& [name, m] : by_case)
    if (every_case || m.gpus.size() >= 2 || failed.count(name)) out.push_back(std::move(m));
  return out;
}

std::string matrices(const std::vector<Row>& rows, bool markdown, bool every_case) {
  std::ostringstream os;
  for (const auto& m : pair_matrices(rows, every_case)) {
    if (markdown)
      matrix_md(os, m);
    else
      matrix_text(os, m);
  }
  return os.str();
}

std::string verdicts_md(const Summary& s) {
  std::ostringstream md;
  md << "## Verdicts against expected/verdicts.md\n\n"
     << counts_text(s) << ".\n\n| case | pair | expected | observed | result |\n"
     << "| --- | --- | --- | --- | --- |\n";
  for (const auto& r : s.rows)
    md << "| " << md_text(r.name) << " | " << (r.pair.empty() ? "-" : md_text(pair_key(r.pair))) << " | "
       << md_text(r.expected) << " | " << md_text(observed_text(r)) << " | " << md_text(r.result) << " |\n";
  const std::string threads = thread_lines(s, true);
  if (!threads.empty()) md << "\n### Known regressions these rows point to\n\n" << threads;
  std::string m = matrices(s.rows, true, true);
  if (!m.empty())
    md << "\n### Rank 0's GPU x rank 1's GPU\n\nRows: rank 0's GPU, columns: rank 1's; " << kMatrixCellDirection
       << ".\n"
       << m;
  return md.str();
}

std::string rows_junit(const std::vector<Row>& rows) {
  JunitSuite suite{"vmem-repro triage", {}};
  for (const auto& r : rows) {
    JunitCase c;
    c.classname = r.name.substr(0, r.name.find('.'));
    c.name = r.name.substr(r.name.find('.') + 1) + (r.pair.empty() ? "" : "[" + pair_key(r.pair) + "]");
    if (r.changed()) {
      c.outcome = JunitCase::Outcome::Failure;
      c.message = observed_text(r) + ", expected " + r.expected;
      c.text = r.result;
    } else if (r.not_run()) {
      c.outcome = JunitCase::Outcome::Skipped;
      c.message = r.result;
    }
    suite.cases.push_back(std::move(c));
  }
  return junit_xml("vmem-repro", {suite});
}

std::string triage_report_md(const TriageFacts& t, const Summary& s) {
  std::ostringstream md;
  md << "# vmem-repro triage, " << md_text(t.when) << "\n\n- node: " << md_text(t.node) << "\n- " << md_text(t.launches)
     << " launches in " << md_text(t.took) << " s (" << md_text(t.concurrency) << "; modelled " << md_text(t.modelled)
     << " s)\n";
  for (const auto& note : t.notes) md << "- backend " << md_text(note) << "\n";
  md << "\n" << verdicts_md(s);
  return md.str();
}

namespace {

// A row a bug report names: a run that did not pass, or differs from what expected/ says of this node (as the
// triage's comparison found).
bool reportable(const Row& r) {
  return r.observed && (!(*r.observed == Verdict::Pass || *r.observed == Verdict::Skip) || r.changed());
}

// The rows a bug report names, by case and then pair ("0-1" before "1-2": the order of the triage's record files),
// so that a case's first failing pair heads its step and its others follow as they ran.
std::vector<const Row*> reportable_rows(const Summary& s) {
  std::vector<const Row*> rows;
  for (const auto& r : s.rows)
    if (reportable(r)) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const Row* a, const Row* b) {
    return std::make_pair(a->name, pair_key(a->pair)) < std::make_pair(b->name, pair_key(b->pair));
  });
  return rows;
}

// The record's run behind a row (its binary, case and GPUs), for what the summary does not hold; null where none.
const Run* run_of_row(const Row& r, const std::vector<Run>& runs) {
  for (const auto& run : runs)
    if (run.error.empty() && run.binary == r.binary && run.case_name == r.case_name && pair_of(run.pair) == r.pair)
      return &run;
  return nullptr;
}

}  // namespace

std::string failing_runs_tsv(const Summary& s) {
  std::ostringstream os;
  for (const Row* row : reportable_rows(s)) {
    const Row& r = *row;
    // No field but the last is empty: the shell's `read` takes a tab as blank space, so two tabs in a row are one
    // and every later field would move left (a summary row without a binary or an expected verdict, edited by hand).
    const auto field = [](const std::string& text) { return text.empty() ? std::string("-") : one_line(text); };
    os << field(r.binary) << "\t" << field(r.case_name) << "\t" << field(pair_devices(r.pair)) << "\t"
       << verdict_name(*r.observed) << "\t" << field(r.expected) << "\t" << one_line(r.detail)
       << "\n";  // one_line writes a tab as \x09: the fields stay apart
  }
  return os.str();
}

std::string failures_md(const Summary& s, const std::vector<Run>& runs) {
  std::ostringstream os;
  for (const Row* row : reportable_rows(s)) {
    const Row& r = *row;
    std::vector<std::string> threads;  // none for the suite's own verdict (points_to_threads says why)
    if (!is_suite_verdict(*r.observed))
      for (const auto& t : r.issues)
        threads.push_back(is_thread_label(t) ? "[" + t + "](" + thread_url(t) + ")" : md_text(t));
    const std::string devices = pair_devices(r.pair);
    os << "#### " << md_text(r.name) << (r.pair.empty() ? "" : " on GPU pair " + md_text(pair_key(r.pair))) << ": "
       << verdict_name(*r.observed) << " (expected " << md_text(r.expected) << ")\n\n"
       << (threads.empty() ? "" : "Known regression this points to: " + join(threads, ", ") + "\n\n")
       << md_text(r.detail) << "\n\n"
       << md_fence(one_line(r.binary + " --case " + r.case_name + (devices.empty() ? "" : " --devices " + devices)));
    const Run* run = run_of_row(r, runs);
    // A row without a readable record of its case and pair (a launch that left none, a record that did not parse)
    // says so: otherwise its missing stderr reads as ranks that printed nothing.
    if (!run) os << "\nNo readable run record of this case and pair: no rank's stderr to show.\n";
    for (size_t k = 0; run && k < run->stderr_tails.size(); ++k) {
      if (run->stderr_tails[k].empty()) continue;
      std::string lines;
      for (const auto& line : run->stderr_tails[k]) lines += line + "\n";
      os << "\nrank " << k << ", last stderr lines:\n\n" << md_fence(lines);
    }
    os << "\n";
  }
  return os.str();
}

std::string gpus_md(const std::vector<Run>& runs) {
  static const char* kKeys[] = {"device_name",   "gfx_arch", "agent_name",          "compute_capability",
                                "pci_bus_id",    "uuid",     "xnack_target",        "xnack_enabled",
                                "kfd_hive_id",   "pools",    "hip_version",         "rocm_install",
                                "amdgpu_driver", "firmware", "cuda_driver_version", "cuda_runtime_version"};
  std::set<std::string> seen;
  std::ostringstream os;
  for (const auto& run : runs)
    for (const auto& info : run.rank_info) {
      auto id = info.find("uuid");
      auto pci = info.find("pci_bus_id");
      std::string key = id != info.end() ? id->second : pci != info.end() ? pci->second : "";
      if (key.empty() || !seen.insert(key).second) continue;
      os << "- GPU " << (info.count("device") ? md_text(info.at("device")) : "?") << ":";
      for (const char* k : kKeys)
        if (auto it = info.find(k); it != info.end()) os << " " << md_text(k) << "=" << md_text(it->second) << ";";
      os << "\n";
    }
  return os.str();
}

// Per case, not per record: one record holds every case of a launch, and a backend whose every case SKIPped has
// not run (a node without an AMD GPU is a reference run, not an AMD one).
std::string backends_ran(const std::vector<Run>& runs) {
  std::set<std::string> ran;
  for (const auto& run : runs)
    if (run.error.empty() && run.verdict != Verdict::Skip && !run.backend.empty()) ran.insert(one_line(run.backend));
  std::string out;
  for (const auto& b : ran) out += b + "\n";
  return out;
}

// Read from the parsed records, so any JSON writer's escapes are understood and nothing but valid one-line UTF-8
// reaches the report.
std::string rocm_versions_md(const std::vector<Run>& runs) {
  static const char* kKeys[] = {"rocm_release", "hip_version", "rocm_install", "hip_headers",
                                "hsa_amd_interface_runtime"};
  std::set<std::string> lines;
  for (const auto& run : runs) {
    if (run.backend != "hip" && run.backend != "hsa") continue;
    for (const auto& info : run.rank_info)
      for (const char* k : kKeys)
        if (auto it = info.find(k); it != info.end()) lines.insert(std::string("- ") + k + ": " + md_text(it->second));
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

Status write_report(const std::string& path, std::string_view text) { return write_output_file(path, text); }

bool write_reports(const char* tool, const std::vector<Output>& outputs) {
  bool all = true;
  for (const auto& out : outputs) {
    if (out.path.empty()) continue;
    Status w = write_report(out.path, out.text());
    if (!w.ok()) {
      std::fprintf(stderr, "%s: %s\n", tool, one_line(w.detail).c_str());
      all = false;
    }
  }
  return all;
}

}  // namespace vmr_tools

// The tools' library: the one observed-vs-expected rule (check_expected's rows, bug-report's failures and the
// fleet's cells all read it), and summary.json read back as written (the triage's report.md is made from it).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "bisect_judge.h"
#include "case_list.h"
#include "compare.h"
#include "flags.h"
#include "harness/deadline.h"
#include "report.h"
#include "run_records.h"
#include "verdict_check.h"

using namespace vmr;
using namespace vmr_tools;

namespace {

// A row as check_expected makes it, of the fields the reports show: the pair as a record writes it ("0-1"), the
// observed verdict by its name ("-" or "?": none), a metric as "VALUE UNIT" and the issues joined by ','.
Row row_of(const std::string& name, const std::string& pair, const std::string& expected, const std::string& observed,
           const std::string& result, const std::string& detail, const std::string& metric, const std::string& evidence,
           Standing standing, const std::string& issues) {
  Row r;
  r.name = name;
  r.pair = pair_of(pair);
  r.expected = expected;
  r.observed = verdict_from_name(observed);
  r.result = result;
  r.detail = detail;
  if (!metric.empty()) {
    const size_t space = metric.find(' ');
    r.metrics.push_back({"metric", std::stod(metric.substr(0, space)), metric.substr(space + 1)});
  }
  r.evidence = evidence;
  r.standing = standing;
  for (size_t at = 0; at < issues.size();) {
    const size_t comma = std::min(issues.find(',', at), issues.size());
    r.issues.push_back(issues.substr(at, comma - at));
    at = comma + 1;
  }
  return r;
}

std::vector<ExpectedRow> table_of(const std::string& rows) {
  const std::string t =
      "| binary | case | condition | verdict | labels | evidence |\n| --- | --- | --- | --- | --- | --- |\n" + rows;
  std::vector<ExpectedRow> table;
  Status st = parse_expected_table(t, &table, "test table");
  EXPECT_TRUE(st.ok()) << st.detail;
  return table;
}

vmr_tools::Run run_of(const std::string& binary, const std::string& case_name, Verdict v, const std::string& detail) {
  vmr_tools::Run r;
  r.file = binary + ".json";
  r.binary = binary;
  r.case_name = case_name;
  r.verdict = v;
  r.detail = detail;
  return r;
}

// Rows on lines 3, 4 and 5 (the header and its rule are lines 1 and 2).
const std::vector<ExpectedRow>& table() {
  static const std::vector<ExpectedRow> t = table_of(
      "| repro_x | read | * | PASS | - | seed 000 |\n"
      "| repro_x | atomics | rocm_release<6.2 | SKIP | - | no API |\n"
      "| repro_x | atomics | * | CRASH/FAIL ~Memory access fault | - | iris#418 |\n");
  return t;
}

}  // namespace

TEST(Compare, SkipIsNotRunWhateverTheRowExpects) {
  const Comparison c = compare_run(table(), run_of("repro_x", "read", Verdict::Skip, "no NVIDIA driver"));
  EXPECT_EQ(c.standing, Standing::NotRun);
  EXPECT_FALSE(c.differs());
  EXPECT_EQ(c.expected(), "PASS");
  EXPECT_EQ(result_text(c, run_of("repro_x", "read", Verdict::Skip, "no NVIDIA driver")),
            "not run (skipped: no NVIDIA driver)");
}

TEST(Compare, TheFirstRowWhoseConditionHoldsDecides) {
  vmr_tools::Run old = run_of("repro_x", "atomics", Verdict::Crash, "Memory access fault by GPU node-2");
  old.facts["rocm_release"] = "6.1";
  EXPECT_EQ(compare_run(table(), old).standing, Standing::WrongVerdict) << "ROCm 6.1 expects SKIP, not CRASH";
  old.facts["rocm_release"] = "7.0.2";
  const Comparison c = compare_run(table(), old);
  EXPECT_EQ(c.standing, Standing::Ok);
  EXPECT_EQ(result_text(c, old), "OK");
}

TEST(Compare, ARightVerdictForTheWrongReasonDiffers) {
  vmr_tools::Run r = run_of("repro_x", "atomics", Verdict::Fail, "hipMalloc returned hipErrorOutOfMemory");
  r.facts["rocm_release"] = "7.0";
  const Comparison c = compare_run(table(), r);
  EXPECT_EQ(c.standing, Standing::WrongReason);
  EXPECT_TRUE(c.differs());
  EXPECT_EQ(result_text(c, r),
            "CHANGED: the verdict is as expected but not its reason (none of 'Memory access fault' in: hipMalloc "
            "returned hipErrorOutOfMemory) (expected per line 5: iris#418)");
}

TEST(Compare, ARunNoRowCoversDiffersAndAnUnreadableRecordToo) {
  const vmr_tools::Run stray = run_of("repro_y", "read", Verdict::Pass, "");
  const Comparison c = compare_run(table(), stray);
  EXPECT_EQ(c.standing, Standing::NoRow);
  EXPECT_TRUE(c.differs()) << "a PASS of a case the table does not know is no evidence of anything";
  EXPECT_EQ(c.expected(), "-");
  EXPECT_EQ(result_text(c, stray), "CHANGED:  (expected per line 0: no row matches this node)");
  vmr_tools::Run cut = stray;
  cut.error = "unreadable run record repro_y.json";
  EXPECT_EQ(compare_run(table(), cut).standing, Standing::Unreadable);
  EXPECT_EQ(result_text(compare_run(table(), cut), cut), "CHANGED: unreadable run record repro_y.json");
}

// A release known only to major.minor meets a patch-level row (unmap-leak's 6.4.0/6.4.1 FAIL): that row and the
// next that holds are both expected, each with its own reasons, and a CHANGED names them both.
TEST(Compare, AReleaseKnownToMajorMinorOnlyIsJudgedByEveryRowItMayMeet) {
  const std::vector<ExpectedRow> t = table_of(  // lines 3, 4, 5
      "| repro_x | leak | rocm_release>=6.4 & rocm_release<6.4.2 | FAIL ~not returned | - | hip#3781 |\n"
      "| repro_x | leak | rocm_release>=7.2 & rocm_release<7.3 | FAIL ~not returned | - | pr801 |\n"
      "| repro_x | leak | * | PASS | - | fixed |\n");
  auto run_on = [](const std::string& release, const std::string& precision, Verdict v, const std::string& detail) {
    vmr_tools::Run r = run_of("repro_x", "leak", v, detail);
    r.facts["rocm_release"] = release;
    r.facts["rocm_release_precision"] = precision;
    return r;
  };
  const std::string mm(kMajorMinorOnly);
  const Comparison pass = compare_run(t, run_on("6.4", mm, Verdict::Pass, ""));
  EXPECT_EQ(pass.standing, Standing::Ok);
  EXPECT_EQ(pass.row->line, 5);
  EXPECT_EQ(pass.expected(), "FAIL ~not returned or PASS");
  const Comparison fail = compare_run(t, run_on("6.4", mm, Verdict::Fail, "device memory not returned"));
  EXPECT_EQ(fail.standing, Standing::Ok);
  EXPECT_EQ(fail.row->line, 3);
  // With its patch level known, 6.4.2's FAIL is CHANGED; 6.4.0's reads as before.
  EXPECT_EQ(compare_run(t, run_on("6.4.2", "full", Verdict::Fail, "device memory not returned")).standing,
            Standing::WrongVerdict);
  EXPECT_EQ(compare_run(t, run_on("6.4", "full", Verdict::Pass, "")).standing, Standing::WrongVerdict);
  // A FAIL for another reason, and a CRASH no row allows, name both rows.
  const vmr_tools::Run oom = run_on("6.4", mm, Verdict::Fail, "hipErrorOutOfMemory");
  const Comparison why = compare_run(t, oom);
  EXPECT_EQ(why.standing, Standing::WrongReason);
  EXPECT_EQ(result_text(why, oom),
            "CHANGED: the verdict is as expected but not its reason (none of 'not returned' in: hipErrorOutOfMemory) "
            "(expected per line 3: hip#3781; or per line 5: fixed)");
  const vmr_tools::Run crash = run_on("6.4", mm, Verdict::Crash, "killed by SIGSEGV");
  const Comparison wrong = compare_run(t, crash);
  EXPECT_EQ(wrong.standing, Standing::WrongVerdict);
  EXPECT_EQ(result_text(wrong, crash),
            "CHANGED: killed by SIGSEGV (expected per line 3: hip#3781; or per line 5: fixed)");
}

// A binary's --list --json as the tools read it: triage's cases come from opt_in, never from a tag's spelling.
// scripts/bug-report reads these lines to find each failing run's minimal reproducer and the GPUs it ran on.
TEST(Report, FailingRunsAreTheOnesABugReportNames) {
  vmr_tools::Run ok = run_of("repro_x", "read", Verdict::Pass, "");
  vmr_tools::Run skipped = run_of("repro_x", "read", Verdict::Skip, "no GPU");
  vmr_tools::Run crash = run_of("repro_x", "atomics", Verdict::Crash, "Memory access fault by GPU node-2");
  crash.pair = "0-1";
  vmr_tools::Run wrong = run_of("repro_x", "read", Verdict::Fail, "words\tdiffer");
  wrong.pair = "2-0-1";  // a mesh run: --devices takes it as 2,0,1
  Row cut;               // a record that could not be read, and a planned run that left none: no verdict to report
  cut.name = "repro_x.read.2-0-1.json";
  cut.standing = Standing::Unreadable;
  Row lost = row_of_run(table(), wrong);
  lost.observed.reset();
  lost.standing = Standing::MissingRecord;
  const auto rows = [](const std::vector<vmr_tools::Run>& runs) {
    std::vector<Row> out;
    for (const auto& run : runs) out.push_back(row_of_run(table(), run));
    return out;
  };
  EXPECT_EQ(failing_runs_tsv(Summary{}), "");
  std::vector<Row> all = rows({ok, skipped, crash, wrong});
  all.push_back(cut);
  all.push_back(lost);
  EXPECT_EQ(failing_runs_tsv(summary_of(all)),
            "repro_x\tatomics\t0,1\tCRASH\tCRASH/FAIL ~Memory access fault\tMemory access fault by GPU node-2\n"
            "repro_x\tread\t2,0,1\tFAIL\tPASS\twords\\x09differ\n");
  vmr_tools::Run stray = run_of("repro_y", "read", Verdict::Pass, "");  // no row: a PASS that differs
  EXPECT_EQ(failing_runs_tsv(summary_of(rows({stray}))), "repro_y\tread\t-\tPASS\t-\t\n");
  // A row without a binary, a case or an expected verdict (a summary edited by hand): "-", never an empty field,
  // which the shell's `read` would merge with the next tab and shift every later field.
  Row bare = row_of_run(table(), crash);
  bare.binary = bare.case_name = bare.expected = "";
  EXPECT_EQ(failing_runs_tsv(summary_of({bare})), "-\t-\t0,1\tCRASH\t-\tMemory access fault by GPU node-2\n");
  // failures_md: each such row with its rerun command, and its record's stderr tails (which the summary lacks);
  // another pair's record of the case lends it none.
  crash.stderr_tails = {{}, {"Memory access fault by GPU node-2 on address 0x7f00. Reason: Page not present"}};
  vmr_tools::Run other_pair = crash;
  other_pair.pair = "1-0";
  other_pair.stderr_tails = {{"rank 0 of another pair"}};
  const std::string md = failures_md(summary_of(rows({ok, crash})), {ok, other_pair, crash});
  EXPECT_NE(md.find("atomics on GPU pair 0-1: CRASH (expected CRASH/FAIL "), std::string::npos) << md;
  EXPECT_NE(md.find("repro_x --case atomics --devices 0,1"), std::string::npos) << md;
  EXPECT_NE(md.find("rank 1, last stderr lines:\n\n```\nMemory access fault by GPU node-2"), std::string::npos) << md;
  EXPECT_EQ(md.find("another pair"), std::string::npos) << md;
  EXPECT_EQ(md.find("repro_x.read"), std::string::npos) << md;
  EXPECT_EQ(md.find("No readable run record"), std::string::npos) << md;
  // Its record gone (only another pair's left): the section says there is none, not an empty stderr.
  const std::string unrecorded = failures_md(summary_of(rows({ok, crash})), {ok, other_pair});
  EXPECT_NE(unrecorded.find("No readable run record of this case and pair: no rank's stderr to show."),
            std::string::npos)
      << unrecorded;
  EXPECT_EQ(unrecorded.find("another pair"), std::string::npos) << unrecorded;
}

TEST(CaseList, ReadsNamesAndOptInStrictly) {
  CaseList list;
  ASSERT_TRUE(parse_case_list(R"({"schema":"vmem-repro-cases/1","binary":"repro_x","backend":"hip","cases":[
      {"name":"read","opt_in":false,"labels":["amd"]},{"name":"atomics","opt_in":true,"known_crash":true}]})",
                              &list)
                  .ok());
  EXPECT_EQ(list.binary, "repro_x");
  ASSERT_EQ(list.cases.size(), 2u);
  EXPECT_EQ(list.cases[0].name, "read");
  EXPECT_FALSE(list.cases[0].opt_in);
  EXPECT_TRUE(list.cases[1].opt_in);
  const char* bad[] = {
      R"({"schema":"vmem-repro-cases/2","binary":"repro_x","cases":[]})",                 // another schema
      R"({"schema":"vmem-repro-cases/1","cases":[]})",                                    // no binary
      R"({"schema":"vmem-repro-cases/1","binary":"repro_x","cases":[{"name":"read"}]})",  // no opt_in
      R"({"schema":"vmem-repro-cases/1","binary":"repro_x","cases":[{"name":"a b","opt_in":false}]})",  // bad name
      R"({"schema":"vmem-repro-cases/1","binary":"repro_x","cases":[{"name":"read","opt_in":"no"}]})",  // not a bool
      "read  every peer reads [known-crash]\n",  // the human --list
      R"({"schema":"vmem-repro-cases/1","binary":"repro_x","cases":[{"name":"read","opt_in":false},
          {"name":"read","opt_in":true}]})",     // one name twice
  };
  for (const char* b : bad) EXPECT_FALSE(parse_case_list(b, &list).ok()) << b;
}

// Listing goes through the one lister (scripts/lib/case_list.sh): the runtime's loading deferred whatever the
// caller's environment says, and a binary killed after writing its list is a failure in the lister's words.
TEST(CaseList, ListsTheOneWayEveryCallerDoes) {
  char dir[] = "/tmp/vmr-one-lister-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string eager = std::string(dir) + "/eager", crashes = std::string(dir) + "/crashes";
  const char* list = R"({"schema":"vmem-repro-cases/1","binary":"repro_x","backend":"hip","cases":[)"
                     R"({"name":"read","opt_in":false}]})";
  {
    std::ofstream f(eager);
    f << "#!/bin/sh\n[ \"$HIP_ENABLE_DEFERRED_LOADING\" = 1 ] || exec sleep 30\necho '" << list << "' >\"$3\"\n";
    std::ofstream g(crashes);
    g << "#!/bin/sh\necho '" << list << "' >\"$3\"\necho 'about to die' >&2\nkill -SEGV $$\n";
  }
  ASSERT_EQ(::chmod(eager.c_str(), 0755), 0);
  ASSERT_EQ(::chmod(crashes.c_str(), 0755), 0);
  ::setenv("VMR_LIST_TIMEOUT_S", "2", 1);
  ::setenv("HIP_ENABLE_DEFERRED_LOADING", "0", 1);
  CaseList listed, crashed;
  const vmr::Status eager_status = vmr_tools::list_binary(eager, &listed);
  const vmr::Status crash_status = vmr_tools::list_binary(crashes, &crashed);
  ::unsetenv("VMR_LIST_TIMEOUT_S");
  ::unsetenv("HIP_ENABLE_DEFERRED_LOADING");
  ::unlink(eager.c_str());
  ::unlink(crashes.c_str());
  ::rmdir(dir);
  EXPECT_TRUE(eager_status.ok()) << eager_status.detail;
  ASSERT_EQ(listed.cases.size(), 1u);
  EXPECT_EQ(listed.cases[0].name, "read");
  EXPECT_FALSE(crash_status.ok());
  EXPECT_EQ(crash_status.detail, crashes + " --list --json was killed by signal 11 (its last line: about to die)");
}

// A binary that never finishes listing is killed after the timeout, and the failure says so.
TEST(CaseList, ABinaryThatHangsWhileListingIsKilled) {
  char dir[] = "/tmp/vmr-hanging-list-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string script = std::string(dir) + "/hangs";
  {
    std::ofstream f(script);
    f << "#!/bin/sh\nexec sleep 30\n";
  }
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  CaseList list;
  const int64_t t0 = vmr::monotonic_ns();
  ::setenv("VMR_LIST_TIMEOUT_S", "1", 1);  // the lister's limit, for this test of a hang
  vmr::Status s = vmr_tools::list_binary(script, &list);
  ::unsetenv("VMR_LIST_TIMEOUT_S");
  const double took_s = double(vmr::monotonic_ns() - t0) / 1e9;
  ::unlink(script.c_str());
  ::rmdir(dir);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.detail.find("did not finish in 1 s"), std::string::npos) << s.detail;
  EXPECT_LT(took_s, 20) << "the list was waited for, not killed";
}

// A bisect step's judgement: good and bad only from a verdict the runtime gave; SKIP, HARNESS, usage and an
// unreadable record are never blamed on a commit, in either meaning of good.
TEST(Bisect, JudgesEachRunByTheChosenMeaningOfGood) {
  using vmr_tools::GoodIs;
  using vmr_tools::Judgement;
  const auto judged = [](const vmr_tools::Run& r, GoodIs g) { return judge_run(table(), r, g).judgement; };
  const vmr_tools::Run crash = run_of("repro_x", "atomics", Verdict::Crash, "Memory access fault by GPU node-2");
  EXPECT_EQ(judged(crash, GoodIs::Expected), Judgement::Good);  // the row expects this crash
  EXPECT_EQ(judged(crash, GoodIs::Pass), Judgement::Bad);
  const vmr_tools::Run other = run_of("repro_x", "atomics", Verdict::Crash, "killed by SIGSEGV");
  EXPECT_EQ(judged(other, GoodIs::Expected), Judgement::Bad);  // an allowed verdict for none of the row's reasons
  const vmr_tools::Run fixed = run_of("repro_x", "atomics", Verdict::Pass, "exact");
  EXPECT_EQ(judged(fixed, GoodIs::Expected), Judgement::Bad);  // a fix is a change too, when good means "expected"
  EXPECT_EQ(judged(fixed, GoodIs::Pass), Judgement::Good);
  for (Verdict v : {Verdict::Skip, Verdict::Harness, Verdict::Usage})
    for (GoodIs g : {GoodIs::Expected, GoodIs::Pass})
      EXPECT_EQ(judged(run_of("repro_x", "read", v, "x"), g), Judgement::Skip) << verdict_name(v);
  vmr_tools::Run unreadable = run_of("repro_x", "read", Verdict::Pass, "");
  unreadable.error = "unreadable run record repro_x.json";
  EXPECT_EQ(judged(unreadable, GoodIs::Pass), Judgement::Skip);
  EXPECT_EQ(judged(run_of("repro_y", "read", Verdict::Pass, ""), GoodIs::Expected), Judgement::Skip);  // no row
  EXPECT_EQ(judged(run_of("repro_y", "read", Verdict::Pass, ""), GoodIs::Pass), Judgement::Good);
}

// A rank the dynamic loader ended (127 and no status record: a function of the runtime under test missing at its
// first call) never ran the case: the harness's FAIL for it is skipped, in either meaning of good, as the record says.
// A rank that exited otherwise, or 127 after its record, leaves the verdict to judge.
TEST(Bisect, ARankTheLoaderEndedIsSkippedNotBlamed) {
  using vmr_tools::GoodIs;
  using vmr_tools::Judgement;
  const std::vector<vmr_tools::Run> runs = vmr_tools::parse_record(
      "repro_x.json",
      R"({"binary":"repro_x","cases":[{"case":"read","verdict":"FAIL","detail":"rank 0 (pid 7) left mid-protocol: )"
      R"(exited with code 127 without a status record","ranks":[{"exit_code":127,"signal":null,"verdict":null},)"
      R"({"exit_code":null,"signal":"SIGKILL","verdict":null}]}]})");
  ASSERT_EQ(runs.size(), 1u);
  ASSERT_EQ(runs[0].rank_ends.size(), 2u);
  EXPECT_EQ(runs[0].rank_ends[0].exit_code.value_or(-1), 127);
  EXPECT_FALSE(runs[0].rank_ends[0].reported);
  EXPECT_FALSE(runs[0].rank_ends[1].exit_code.has_value());
  for (GoodIs g : {GoodIs::Expected, GoodIs::Pass}) {
    const vmr_tools::CaseJudgement j = judge_run(table(), runs[0], g);
    EXPECT_EQ(j.judgement, Judgement::Skip);
    EXPECT_EQ(j.why.rfind("a rank could not start this runtime (exit 127, the loader's): FAIL: rank 0", 0), 0u)
        << j.why;
  }
  vmr_tools::Run failed = runs[0];
  failed.rank_ends[0].exit_code = 1;  // a rank that exited 1 without its record: the harness's FAIL stands
  EXPECT_EQ(judge_run(table(), failed, GoodIs::Pass).judgement, Judgement::Bad);
  vmr_tools::Run reported = runs[0];
  reported.rank_ends[0].reported = true;  // 127 after its record: its verdict is the record's
  EXPECT_EQ(judge_run(table(), reported, GoodIs::Pass).judgement, Judgement::Bad);
}

// --lib and --rocm (judge_run's runtime_dirs): an AMD run counts only where the ranks loaded HIP or ROCr from one of
// those folders; one that loaded another runtime, or named none, is skipped, never judged as the commit's. Folders
// are compared whole: the loader searches no subfolder ("/b/lib64" and "/b/lib/sub" are not "/b/lib").
TEST(Bisect, AnAmdRunOfAnotherRuntimeIsSkippedNotJudged) {
  using vmr_tools::GoodIs;
  using vmr_tools::Judgement;
  const std::vector<std::string> dirs = {"/clr/build/hipamd/lib", "/rocm/lib"};
  vmr_tools::Run run = run_of("repro_x", "read", Verdict::Pass, "exact");
  run.backend = "hip";
  run.rank_info = {{{"hip_runtime_folder", "/clr/build/hipamd/lib"}, {"hsa_runtime_folder", "/opt/rocm/lib"}},
                   {{"hip_runtime_folder", "/clr/build/hipamd/lib"}}};
  EXPECT_EQ(judge_run(table(), run, GoodIs::Pass, dirs).judgement, Judgement::Good);  // HIP from --lib: a ROCr too
  EXPECT_EQ(judge_run(table(), run, GoodIs::Pass).judgement, Judgement::Good);        // no folders: no check
  vmr_tools::Run system = run;
  system.rank_info[1]["hip_runtime_folder"] = "/opt/rocm-7.0.0/lib";
  vmr_tools::CaseJudgement j = judge_run(table(), system, GoodIs::Pass, dirs);
  EXPECT_EQ(j.judgement, Judgement::Skip);
  EXPECT_EQ(j.why.rfind("rank 1 loaded HIP from /opt/rocm-7.0.0/lib, none a runtime folder (/clr/build/hipamd/lib, "
                        "/rocm/lib): another runtime ran: PASS: exact",
                        0),
            0u)
      << j.why;
  for (const char* near : {"/clr/build/hipamd/lib64", "/clr/build/hipamd/lib/sub", "/clr/build/hipamd"}) {
    vmr_tools::Run other = run;
    for (auto& info : other.rank_info) info = {{"hip_runtime_folder", near}};
    EXPECT_EQ(judge_run(table(), other, GoodIs::Pass, dirs).judgement, Judgement::Skip) << near;
  }
  vmr_tools::Run unnamed = run;
  for (auto& info : unnamed.rank_info) info = {{"hip_runtime_folder", "(dladdr cannot tell which object ...)"}};
  j = judge_run(table(), unnamed, GoodIs::Pass, dirs);
  EXPECT_EQ(j.judgement, Judgement::Skip);
  EXPECT_EQ(j.why.rfind("no rank named the folder of the HIP or ROCr library it loaded", 0), 0u) << j.why;
  vmr_tools::Run hsa = unnamed;
  hsa.backend = "hsa";
  hsa.rank_info[0]["hsa_runtime_folder"] = "/rocm/lib";  // a ROCr bisect: ROCr from --lib, HIP from elsewhere
  hsa.verdict = Verdict::Fail;
  EXPECT_EQ(judge_run(table(), hsa, GoodIs::Pass, dirs).judgement, Judgement::Bad);
  vmr_tools::Run cuda = unnamed;
  cuda.backend = "cuda";  // names no runtime folder: not checked
  EXPECT_EQ(judge_run(table(), cuda, GoodIs::Pass, dirs).judgement, Judgement::Good);
}

TEST(Bisect, ACommitIsBadIfAnyCaseIsEvenBesideOneThatCouldNotRun) {
  using vmr_tools::CaseJudgement;
  using vmr_tools::Judgement;
  const CaseJudgement good{"a", Judgement::Good, ""}, bad{"b", Judgement::Bad, ""}, skip{"c", Judgement::Skip, ""};
  EXPECT_EQ(judge_commit({good, good}), Judgement::Good);
  EXPECT_EQ(judge_commit({skip, bad}), Judgement::Bad);
  EXPECT_EQ(judge_commit({good, skip}), Judgement::Skip);
  EXPECT_EQ(judge_commit({}), Judgement::Skip);
  EXPECT_EQ(bisect_exit_code(Judgement::Good), 0);
  EXPECT_EQ(bisect_exit_code(Judgement::Bad), 1);
  EXPECT_EQ(bisect_exit_code(Judgement::Skip), 125);
}

TEST(Summary, ReadsBackAsWritten) {
  Summary s;
  s.rows.push_back(row_of("repro_x.read", "0-1", "PASS", "PASS", "OK", "read exactly", "333.5 GB/s", "seed",
                          Standing::Ok, "iris#418"));
  s.rows.push_back(row_of("repro_x.read", "1-0", "PASS", "FAIL", "CHANGED: 12 words | differ\nhere", "d", "", "e",
                          Standing::WrongVerdict, "iris#418,openxla/xla#46576"));
  s.rows.push_back(row_of("repro_x.atomics", "", "CRASH", "SKIP", "not run (skipped: no GPU \xc3\xa9)", "", "", "",
                          Standing::NotRun, ""));
  s.rows[0].metrics = {{"read_gbps", 333.5, "GB/s"}, {"ops", 12, "ops/s"}};
  s.rows[1].binary = "repro_x";
  s.rows[1].case_name = "read";
  s.rows[1].allowed = {Verdict::Crash, Verdict::Fail};
  s.rows[1].reasons = {"Memory access fault", "quote \" and \\"};
  s.rows[2].why_not_run = "skipped: no GPU \xc3\xa9";
  Row lost = s.rows[1];
  lost.observed.reset();
  lost.standing = Standing::MissingRecord;
  lost.pair = pair_of("2-3-4");
  s.rows.push_back(lost);
  Row unreadable;
  unreadable.name = "repro_x.0-1.json";
  unreadable.observed.reset();
  unreadable.standing = Standing::Unreadable;
  s.rows.push_back(unreadable);
  count_rows(&s);
  s.problems = 2;
  s.problem_lines = {"TABLE: case repro_x.new has no row in t.md", "BUILD: /b/bin/repro_y is not there"};
  s.node = {{"rocm_release", "6.4.1"}, {"device_name", "AMD Instinct MI300X"}};
  Summary back;
  Status st = read_summary_json(summary_json(s), "summary.json", &back);
  ASSERT_TRUE(st.ok()) << st.detail;
  EXPECT_EQ(verdicts_md(back), verdicts_md(s));
  EXPECT_EQ(summary_json(back), summary_json(s));
  EXPECT_EQ(back.ok, 1);
  EXPECT_EQ(back.changed, 3);
  EXPECT_EQ(back.not_run, 1);
  EXPECT_EQ(back.problems, 2);
  EXPECT_EQ(back.problem_lines, s.problem_lines);  // what the health line names
  EXPECT_TRUE(back.rows[1].changed());
  EXPECT_TRUE(back.rows[2].not_run());
  EXPECT_EQ(back.rows[1].issues, (std::vector<std::string>{"iris#418", "openxla/xla#46576"}));
  // Typed, as written: the pair as GPU indices, the verdict or none, the standing, what was allowed, the metrics.
  const std::string json = summary_json(s);
  EXPECT_NE(json.find("\"gpus\":[1,0],\"observed\":\"FAIL\",\"standing\":\"changed_verdict\""), std::string::npos)
      << json;
  EXPECT_NE(json.find("\"gpus\":[2,3,4],\"observed\":null,\"standing\":\"missing_record\""), std::string::npos);
  EXPECT_NE(json.find("\"gpus\":[],\"observed\":null,\"standing\":\"unreadable_record\""), std::string::npos);
  EXPECT_NE(json.find("\"issues\":[\"iris#418\",\"openxla/xla#46576\"]"), std::string::npos);
  EXPECT_NE(json.find("\"metrics\":[{\"name\":\"read_gbps\",\"value\":333.5,\"unit\":\"GB/s\"}"), std::string::npos);
  EXPECT_EQ(first_metric_text(back.rows[0]), "333.5 GB/s");
  EXPECT_EQ(back.rows[1].allowed, s.rows[1].allowed);
  EXPECT_EQ(back.rows[1].reasons, s.rows[1].reasons);
  EXPECT_EQ(back.rows[1].binary + "." + back.rows[1].case_name, "repro_x.read");
  EXPECT_EQ(back.rows[2].why_not_run, s.rows[2].why_not_run);
  EXPECT_EQ(observed_text(back.rows[3]), "-");
  EXPECT_EQ(back.rows[3].standing, Standing::MissingRecord);
  EXPECT_EQ(back.rows[3].pair, pair_of("2-3-4"));
  EXPECT_EQ(observed_text(back.rows[4]), "?");
  EXPECT_EQ(back.rows[4].standing, Standing::Unreadable);
  EXPECT_EQ(back.node, s.node);
  EXPECT_EQ(counts_text(back), "1 OK, 3 CHANGED, 1 not run, 2 table problems");
}

// Every standing has one name in summary.json, read back as itself; no other name is one.
TEST(Summary, StandingNamesReadBack) {
  for (Standing st : {Standing::Ok, Standing::NotRun, Standing::WrongVerdict, Standing::WrongReason, Standing::NoRow,
                      Standing::Unreadable, Standing::MissingRecord}) {
    Standing back = Standing::Ok;
    ASSERT_TRUE(standing_from_name(standing_name(st), &back)) << standing_name(st);
    EXPECT_EQ(back, st) << standing_name(st);
  }
  Standing none = Standing::Ok;
  EXPECT_FALSE(standing_from_name("OK", &none));
  EXPECT_FALSE(standing_from_name("", &none));
  EXPECT_TRUE(standing_differs(Standing::MissingRecord));
  EXPECT_FALSE(standing_differs(Standing::NotRun));
}

// A CHANGED or failing row names the threads of its case, with their addresses in report.md; a row that passes as
// expected, or a case that names none, points nowhere.
TEST(Summary, ChangedAndFailingRowsPointToTheirThreads) {
  Summary s;
  s.rows.push_back(row_of("repro_x.read", "0-1", "PASS", "PASS", "OK", "", "", "", Standing::Ok, "iris#418"));
  s.rows.push_back(row_of("repro_x.atomics", "0-1", "CRASH", "CRASH", "OK", "", "", "", Standing::Ok, "iris#418"));
  s.rows.push_back(row_of("repro_x.remap", "1-0", "PASS", "FAIL", "CHANGED: x", "", "", "", Standing::WrongVerdict,
                          "rocm-systems#2667,openxla/xla#46576"));
  s.rows.push_back(row_of("repro_x.hole", "1-0", "PASS", "FAIL", "CHANGED: y", "", "", "", Standing::WrongVerdict, ""));
  count_rows(&s);
  const std::string console = console_table(s), md = verdicts_md(s);
  EXPECT_EQ(console.substr(console.find("known regressions these rows point to:")),
            "known regressions these rows point to:\n  repro_x.atomics 0-1: CRASH -> iris#418\n"
            "  repro_x.remap 1-0: FAIL (CHANGED) -> rocm-systems#2667, openxla/xla#46576\n");
  EXPECT_NE(md.find("- repro_x.remap 1-0: FAIL (CHANGED) -> [rocm-systems#2667]"
                    "(https://github.com/ROCm/rocm-systems/issues/2667), [openxla/xla#46576]"
                    "(https://github.com/openxla/xla/issues/46576)\n"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("repro_x.read 0-1: PASS"), std::string::npos);
}

// The suite's own trouble (HARNESS from too few file descriptors, USAGE), an unreadable record ("?") and a planned
// run without one ("-") are no regression of the runtime: however CHANGED, such a row points to no thread, in the
// console, report.md or a bug report's failures; the node's own FAIL beside them still does.
TEST(Summary, RowsOfTheSuitesOwnVerdictPointToNoThread) {
  Summary s;
  for (const char* seen : {"HARNESS", "USAGE", "?", "-"})
    s.rows.push_back(
        row_of("repro_x.atomics", "0-1", "CRASH", seen, "CHANGED: x", "", "", "", Standing::WrongVerdict, "iris#418"));
  s.rows.push_back(
      row_of("repro_x.atomics", "1-0", "CRASH", "FAIL", "CHANGED: y", "", "", "", Standing::WrongVerdict, "iris#418"));
  count_rows(&s);
  const std::string console = console_table(s), md = verdicts_md(s);
  EXPECT_EQ(console.substr(console.find("known regressions these rows point to:")),
            "known regressions these rows point to:\n  repro_x.atomics 1-0: FAIL (CHANGED) -> iris#418\n");
  EXPECT_EQ(md.find("0-1: "), std::string::npos) << md;
  EXPECT_NE(md.find("- repro_x.atomics 1-0: FAIL (CHANGED) -> [iris#418]"), std::string::npos) << md;

  const auto threaded = table_of("| repro_x | atomics | * | CRASH | iris#418 | seed |\n");
  vmr_tools::Run harness = run_of("repro_x", "atomics", Verdict::Harness, "socketpair: Too many open files");
  vmr_tools::Run usage = run_of("repro_x", "atomics", Verdict::Usage, "bad --devices");
  vmr_tools::Run fail = run_of("repro_x", "atomics", Verdict::Fail, "words differ");
  const Summary own = summary_of({row_of_run(threaded, harness), row_of_run(threaded, usage)});
  EXPECT_EQ(failures_md(own, {}).find("Known regression"), std::string::npos) << failures_md(own, {});
  EXPECT_NE(
      failures_md(summary_of({row_of_run(threaded, fail)}), {}).find("Known regression this points to: [iris#418]"),
      std::string::npos);
}

TEST(Expected, ThreadLabelsAreRepositoryHashNumber) {
  EXPECT_TRUE(is_thread_label("iris#418"));
  EXPECT_TRUE(is_thread_label("openxla/xla#46576"));
  for (const char* no : {"amd", "pow2", "#418", "iris#", "iris#41a", "a/b/c#1", "/xla#1", "xla/#1", "ir is#1"})
    EXPECT_FALSE(is_thread_label(no)) << no;
  EXPECT_EQ(thread_url("iris#418"), "https://github.com/ROCm/iris/issues/418");
  EXPECT_EQ(thread_url("openxla/xla#46576"), "https://github.com/openxla/xla/issues/46576");
}

TEST(Summary, RefusesWhatIsNotOne) {
  Summary s;
  EXPECT_FALSE(read_summary_json("{}", "summary.json", &s).ok());
  EXPECT_FALSE(read_summary_json("{\"schema\":\"vmem-repro-summary/2\",\"ok\":1", "summary.json", &s).ok());
  const Status st = read_summary_json(
      "{\"schema\":\"vmem-repro-summary/2\",\"ok\":1,\"changed\":0,\"not_run\":0,\"table_problems\":0,"
      "\"problem_lines\":[],\"node\":{},\"rows\":[{\"case\":\"x.y\"}]}",
      "s.json", &s);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.detail.find("s.json"), std::string::npos) << st.detail;
  // Another version of the summary (the last one's, or a later one's) is named, in one line.
  for (const char* version : {"vmem-repro-summary/1", "vmem-repro-summary/3"}) {
    Summary old;
    const Status refused = read_summary_json(
        std::string("{\"schema\":\"") + version +
            "\",\"ok\":0,\"changed\":0,\"not_run\":0,\"table_problems\":0,\"problem_lines\":[],\"rows\":[]}",
        "old.json", &old);
    EXPECT_EQ(refused.detail, std::string("old.json is ") + version +
                                  ", not vmem-repro-summary/2: a summary of another version of the tools (run the "
                                  "triage again)");
  }
}

// A summary whose counts are not its rows' (a CHANGED row under "changed":0, edited by hand) or whose table problems
// are not its lines is refused in one line naming the file and both stories: else the health line (rows) and
// bug-report's counts line would tell two.
TEST(Summary, RefusesCountsItsRowsDoNotGive) {
  Summary s;
  s.rows.push_back(row_of("repro_x.read", "0-1", "PASS", "PASS", "OK", "", "", "", Standing::Ok, ""));
  s.rows.push_back(row_of("repro_x.read", "1-0", "PASS", "FAIL", "CHANGED: x", "", "", "", Standing::WrongVerdict, ""));
  count_rows(&s);
  s.problems = 1;
  s.problem_lines = {"TABLE: case repro_x.new has no row in t.md"};
  const std::string good = summary_json(s);
  Summary back;
  ASSERT_TRUE(read_summary_json(good, "s.json", &back).ok());
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
  };
  for (const auto& [from, to] :
       std::vector<std::pair<std::string, std::string>>{{"\"changed\":1", "\"changed\":0"},
                                                        {"\"ok\":1", "\"ok\":2"},
                                                        {"\"not_run\":0", "\"not_run\":3"},
                                                        {"\"table_problems\":1", "\"table_problems\":0"}}) {
    Summary odd;
    const Status st = read_summary_json(edited(from, to), "s.json", &odd);
    EXPECT_FALSE(st.ok()) << to;
    EXPECT_EQ(st.verdict, Verdict::Harness) << to;
    EXPECT_EQ(st.detail.find('\n'), std::string::npos) << st.detail;
    EXPECT_NE(st.detail.find("s.json counts "), std::string::npos) << st.detail;
    EXPECT_NE(st.detail.find("its rows and problem lines are 1 OK, 1 CHANGED, 0 not run, 1 table problems"),
              std::string::npos)
        << st.detail;
  }
}

// The diagonal of a matrix is the same-GPU pair: its run fills the cell; a mesh fills every cell but the diagonal,
// which then reads "-" as does a diagonal no run reached; a pair of two GPUs without a run reads "not run".
TEST(Matrix, TheDiagonalShowsTheSameGpuRunAndAMeshLeavesItEmpty) {
  std::vector<Row> rows;
  rows.push_back(row_of("repro_x.read", "0-0", "PASS", "FAIL", "CHANGED: x", "", "", "", Standing::WrongVerdict, ""));
  rows.push_back(row_of("repro_x.read", "0-1", "PASS", "PASS", "OK", "", "", "", Standing::Ok, ""));
  const std::string text = matrices(rows, true, true);
  EXPECT_NE(text.find("| GPU 0 | FAIL (CHANGED) | PASS |"), std::string::npos) << text;
  EXPECT_NE(text.find("| GPU 1 | not run | - |"), std::string::npos) << text;
  std::vector<Row> mesh = {row_of("repro_x.read", "0-1-2", "PASS", "PASS", "OK", "", "", "", Standing::Ok, "")};
  const std::string m = matrices(mesh, true, true);
  EXPECT_NE(m.find("| GPU 1 | PASS (mesh) | - | PASS (mesh) |"), std::string::npos) << m;
}

// "Nothing could run" is no GPU row with a verdict: host rows (no pair) and skipped GPU rows do not count, a GPU
// row that ran does, CHANGED or not.
TEST(Summary, SomeGpuCaseRanOnlyWhereAPairRanToAVerdict) {
  std::vector<Row> rows;
  rows.push_back(row_of("repro_host.read", "", "PASS", "PASS", "OK", "", "", "", Standing::Ok, ""));
  rows.push_back(
      row_of("repro_x.read", "", "PASS", "SKIP", "not run (skipped: no GPU)", "", "", "", Standing::NotRun, ""));
  rows.push_back(row_of("repro_x.read", "0-1", "PASS", "SKIP", "not run (skipped)", "", "", "", Standing::NotRun, ""));
  EXPECT_FALSE(some_gpu_case_ran(rows));
  rows.push_back(row_of("repro_x.read", "0-0", "PASS", "FAIL", "CHANGED: x", "", "", "", Standing::WrongVerdict, ""));
  EXPECT_TRUE(some_gpu_case_ran(rows));
}

// The tools' flags given again: a list flag (--binary, --case, --note) keeps every value in the order given (a
// triage names each binary it built; a bisect judges each case), a one-value flag (--record, --table) the last.
TEST(Flags, AListFlagKeepsEveryValueAndAOneValueFlagTheLast) {
  std::string record, table_path;
  std::vector<std::string> binaries;
  bool matrix = false;
  Flags f;
  f.values = {{"--record", &record}, {"--table", &table_path}};
  f.lists = {{"--binary", &binaries}};
  f.switches = {{"--matrix", &matrix}};
  ASSERT_TRUE(parse_flags(
      {"--binary", "a", "--record", "r1.json", "--matrix", "--binary", "b", "--record", "r2.json", "--binary", "a"},
      f));
  EXPECT_EQ(binaries, (std::vector<std::string>{"a", "b", "a"}));
  EXPECT_EQ(record, "r2.json");
  EXPECT_TRUE(matrix);
  EXPECT_EQ(table_path, "");
  EXPECT_FALSE(parse_flags({"--binary", "a", "--binary"}, f));  // the second one without its value
  EXPECT_FALSE(parse_flags({"--binary", "a", "stray"}, f));     // a word where none is taken
}

// Whose facts a run carries (what expected/'s conditions and the fleet's separating facts read): the launcher's
// environment, its variables by name, then the exporter's (rank 0's) info of that very case; never rank 1's, never
// another case's, and no rank renames the node. Each rank's own info and stderr stay in its slot.
TEST(RunRecords, ARunCarriesTheEnvironmentAndRankZerosFactsOfItsOwnCase) {
  char dir[] = "/tmp/vmr-record-facts-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/repro_x.0-1.json";
  {
    std::ofstream f(path);  // ("(unset)" holds the end of a plain raw string: the delimiter is needed)
    f << R"record({"schema":"vmem-repro-run/1","binary":"repro_x","backend":"hip","verdict":"FAIL",
      "environment":{"node":"n7","host":"h7","os":"Debian 12","ranks_seen":2,
        "variables":{"HSA_XNACK":"1","HIP_VISIBLE_DEVICES":"(unset)"}},
      "options":{"ranks":2,"devices":[0,1],"device_source":"--devices"},
      "cases":[{"case":"read","verdict":"PASS","detail":"exact","metrics":{},"ranks":[
        {"info":{"gfx_arch":"gfx942","device":"0","first_case_only":"yes","node":"forged","pools":3},
         "stderr_tail":["r0"]},
        {"info":{"gfx_arch":"gfx90a","device":"1","peer_only":"yes"},"stderr_tail":["r1a","r1b"]}]},
       {"case":"atomics","verdict":"FAIL","detail":"lost","metrics":{},"ranks":[
        {"info":{"gfx_arch":"gfx950","device":"0"},"stderr_tail":[]},
        {"info":{"gfx_arch":"gfx90a","device":"1"},"stderr_tail":[]}]}]})record";
  }
  const std::vector<vmr_tools::Run> runs = read_record(dir, "repro_x.0-1.json");
  ::unlink(path.c_str());
  ::rmdir(dir);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].error, "");
  const Facts launch = {
      {"node", "n7"}, {"host", "h7"}, {"os", "Debian 12"}, {"HSA_XNACK", "1"}, {"HIP_VISIBLE_DEVICES", "(unset)"}};
  Facts read = launch;
  read.insert({{"gfx_arch", "gfx942"}, {"device", "0"}, {"first_case_only", "yes"}});
  EXPECT_EQ(runs[0].facts, read);
  Facts atomics = launch;
  atomics.insert({{"gfx_arch", "gfx950"}, {"device", "0"}});
  EXPECT_EQ(runs[1].facts, atomics);
  ASSERT_EQ(runs[0].rank_info.size(), 2u);
  EXPECT_EQ(runs[0].rank_info[1],
            (std::map<std::string, std::string>{{"gfx_arch", "gfx90a"}, {"device", "1"}, {"peer_only", "yes"}}));
  EXPECT_EQ(runs[0].stderr_tails, (std::vector<std::vector<std::string>>{{"r0"}, {"r1a", "r1b"}}));
  EXPECT_EQ(runs[1].command(), "repro_x --case atomics --devices 0,1");
}

// Every spelling of a pair the suite and its readers use is one Pair, and each format is one spelling.
TEST(Pair, EverySpellingParsesToOnePair) {
  for (const char* text : {"0-1", "0,1", "0:1", "0->1", "GPU 0 -> GPU 1"}) {
    Pair p;
    ASSERT_TRUE(parse_pair(text, &p).ok()) << text;
    EXPECT_EQ(p.gpus, (std::vector<int>{0, 1})) << text;
  }
  Pair mesh;
  ASSERT_TRUE(parse_pair("3-1-12", &mesh).ok());
  EXPECT_EQ(mesh.gpus, (std::vector<int>{3, 1, 12}));
  EXPECT_EQ(pair_key(mesh), "3-1-12");
  EXPECT_EQ(pair_devices(mesh), "3,1,12");
  EXPECT_EQ(pair_arrow(mesh), "mesh 3-1-12");
  const Pair same = pair_of("GPU 2 -> GPU 2");
  EXPECT_EQ(pair_key(same), "2-2");
  EXPECT_EQ(pair_devices(same), "2,2");
  EXPECT_EQ(pair_arrow(same), "2->2");
  Pair none;
  EXPECT_TRUE(parse_pair("", &none).ok());
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(pair_key(none) + pair_devices(none) + pair_arrow(none), "");
}

TEST(Pair, BadTextIsOneUsageError) {
  for (const char* text : {"0", "0-", "-1", "0--1", "a-b", "0-1,2", "0;1", "0- 1x", "GPU", "99999999999-0"}) {
    Pair p{{7}};
    const Status st = parse_pair(text, &p);
    EXPECT_EQ(st.verdict, Verdict::Usage) << text;
    EXPECT_NE(st.detail.find("is not a GPU pair"), std::string::npos) << text;
    EXPECT_TRUE(p.empty()) << text;
    EXPECT_TRUE(pair_of(text).empty()) << text;
  }
}

// The console fits a screen: every row that ran stays, the rows not run are one line per reason with their
// binaries, and the counts still count every row.
TEST(Report, TheConsoleFoldsRowsNotRunIntoOneLinePerReason) {
  std::vector<Row> rows;
  rows.push_back(row_of("repro_cuda_vmm.read", "0-0", "PASS", "PASS", "OK", "", "", "", Standing::Ok, ""));
  rows.push_back(
      row_of("repro_cuda_vmm.atomics", "0-0", "PASS", "FAIL", "CHANGED: x", "", "", "", Standing::WrongVerdict, ""));
  for (const char* name : {"repro_hip_a.read", "repro_hip_a.atomics", "repro_hip_b.read"}) {
    Row r = row_of(name, "", "SKIP", "-", "not run (binary not built here)", "", "", "", Standing::NotRun, "");
    r.binary = std::string(name).substr(0, std::string(name).find('.'));
    r.why_not_run = "binary not built here";
    rows.push_back(r);
  }
  Row skipped = row_of("repro_cuda_vmm.grant", "0-0", "SKIP/PASS", "SKIP", "not run (skipped: one GPU)", "", "", "",
                       Standing::NotRun, "");
  skipped.binary = "repro_cuda_vmm";
  skipped.why_not_run = "skipped: one GPU";
  rows.push_back(skipped);
  const std::string text = console_table(summary_of(rows));
  EXPECT_NE(text.find("repro_cuda_vmm.read "), std::string::npos) << text;
  EXPECT_NE(text.find("repro_cuda_vmm.atomics "), std::string::npos) << text;
  EXPECT_NE(text.find("\n3 case runs not run (binary not built here): repro_hip_a (2), repro_hip_b (1)\n"),
            std::string::npos)
      << text;
  // A run that SKIPped is a row, with its case and pair, never folded away.
  EXPECT_NE(text.find("repro_cuda_vmm.grant "), std::string::npos) << text;
  EXPECT_EQ(text.find("case run not run (skipped"), std::string::npos) << text;
  EXPECT_EQ(text.find("repro_hip_a.read"), std::string::npos) << text;
  EXPECT_NE(text.find("1 OK, 1 CHANGED, 4 not run"), std::string::npos) << text;
  // One GPU and nothing failed: no matrix on the console (report.md keeps every one); a failing case keeps its own.
  const std::string console = matrices(rows, false, false);
  EXPECT_EQ(console.find("repro_cuda_vmm.read"), std::string::npos) << console;
  EXPECT_NE(console.find("repro_cuda_vmm.atomics"), std::string::npos) << console;
  EXPECT_NE(matrices(rows, false, true).find("repro_cuda_vmm.read"), std::string::npos);
}

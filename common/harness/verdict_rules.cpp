// How a case's verdict follows from what its ranks did: the precedence of root causes (a signal death, then the
// deadline, then a rank that left without a record, then the records themselves).
#include <algorithm>

#include "harness/supervisor.h"
#include "harness/text.h"

namespace vmr {

namespace {

std::string quote_tail(const std::deque<std::string>& tail, size_t lines) {
  std::vector<std::string> last;
  for (size_t i = tail.size() > lines ? tail.size() - lines : 0; i < tail.size(); ++i)
    if (!tail[i].empty()) last.push_back(tail[i]);
  if (last.empty()) return "";
  std::string out = "; last stderr: \"";
  for (size_t i = 0; i < last.size(); ++i) out += (i ? " | " : "") + last[i];
  return out + "\"";
}

std::string rank_name(const RankOutcome& rank) {
  return "rank " + std::to_string(rank.rank) + " (pid " + std::to_string(rank.pid) + ")";
}

// Which rank's own record explains a case (only when no rank died by a signal, passed the deadline or left without
// a record): a HANG report names the wait that timed out, which is the root cause the others waited on.
int rank_record_precedence(Verdict v) {
  switch (v) {
    case Verdict::Hang:
      return 5;
    case Verdict::Harness:
      return 4;
    case Verdict::Fail:
      return 3;
    case Verdict::Skip:
      return 2;
    default:
      return 1;
  }
}

}  // namespace

double CaseResult::spawn_s() const {
  int64_t last = 0;
  for (const auto& rank : ranks) {
    if (!rank.has_record || rank.record.ready_ns == 0) return -1;
    last = std::max(last, rank.record.ready_ns);
  }
  return ranks.empty() ? -1 : double(last - start_ns) / 1e9;
}

void decide_verdict(CaseResult* r, double timeout_s) {
  if (r->interrupted_by) {
    r->verdict = Verdict::Harness;
    r->detail = std::string("interrupted by ") + signal_name(r->interrupted_by) +
                ": the ranks were stopped before the case ended, so it has no verdict";
    return;
  }
  std::vector<const RankOutcome*> by_end;
  for (const auto& rank : r->ranks) by_end.push_back(&rank);
  std::stable_sort(by_end.begin(), by_end.end(), [](auto* a, auto* b) {
    return (a->reaped ? a->end_ns : INT64_MAX) < (b->reaped ? b->end_ns : INT64_MAX);
  });
  auto set = [&](Verdict v, std::string d) {
    r->verdict = v;
    r->detail = std::move(d);
  };

  // 1. A rank died by a signal the launcher did not send: the root cause, whatever followed.
  for (const RankOutcome* rank : by_end)
    if (rank->reaped && rank->exit.signaled && rank->killed == KilledBy::None)
      return set(Verdict::Crash, rank_name(*rank) + " " + describe(rank->exit) + quote_tail(rank->stderr_tail, 3));

  // 2. The deadline passed with ranks still running.
  if (r->deadline_passed) {
    std::vector<std::string> stuck;
    for (const auto& rank : r->ranks) {
      if (rank.killed != KilledBy::Deadline) continue;
      std::string s = rank_name(rank);
      if (!rank.reaped)
        s += " did not die (" + rank.wchan + ")";
      else
        s += " " + describe(rank.exit);
      stuck.push_back(s);
    }
    for (const auto& rank : r->ranks)
      if (rank.has_record && rank.record.verdict == Verdict::Hang)
        stuck.push_back("rank " + std::to_string(rank.rank) + " reported: " + rank.record.detail);
    std::vector<std::string> contexts;  // what the killed ranks said could explain a hang, each said once
    for (const auto& rank : r->ranks) {
      if (rank.killed != KilledBy::Deadline) continue;
      for (const auto& [key, value] : rank.record.info)
        if (key == kHangContextFact && std::find(contexts.begin(), contexts.end(), value) == contexts.end())
          contexts.push_back(value);
    }
    stuck.insert(stuck.end(), contexts.begin(), contexts.end());
    return set(Verdict::Hang, "deadline of " + format_double(timeout_s) + " s passed; " + join(stuck, "; "));
  }

  // 3. A rank ended without a readable record.
  for (const RankOutcome* rank : by_end) {
    if (rank->has_record) continue;
    if (rank->killed == KilledBy::AfterDeath) continue;  // reported through the rank that died first
    if (!rank->record_error.empty() || (!rank->exit.signaled && rank->exit.code == exit_code(Verdict::Harness)))
      return set(Verdict::Harness, rank_name(*rank) + " " + describe(rank->exit) + ": " +
                                       (rank->record_error.empty() ? "no status record" : rank->record_error) +
                                       quote_tail(rank->stderr_tail, 3));
    return set(Verdict::Fail, rank_name(*rank) + " left mid-protocol: " + describe(rank->exit) +
                                  " without a status record" + quote_tail(rank->stderr_tail, 3));
  }

  // 4. The ranks that reported (the rest were killed after one of these ended abnormally): the exit code must
  //    agree with the record (a rank that went on to the next case must have reported PASS or SKIP), then the most
  //    severe record wins.
  //    Among equals the rank that ended first wins: the others usually failed because it left.
  const RankOutcome* worst = nullptr;
  for (const RankOutcome* rank : by_end) {
    if (!rank->has_record) continue;
    if (rank->went_on ? rank->record.verdict != Verdict::Pass && rank->record.verdict != Verdict::Skip
                      : rank->exit.signaled || rank->exit.code != exit_code(rank->record.verdict))
      return set(Verdict::Harness,
                 rank_name(*rank) + " " + describe(rank->exit) + " but reported " + verdict_name(rank->record.verdict));
    if (!worst || rank_record_precedence(rank->record.verdict) > rank_record_precedence(worst->record.verdict))
      worst = rank;
  }
  if (!worst) return set(Verdict::Harness, "no rank reported");
  std::vector<std::string> killed;
  for (const auto& rank : r->ranks)
    if (!rank.has_record) killed.push_back(std::to_string(rank.rank));
  std::string after = killed.empty() ? "" : " (then killed rank " + join(killed, ", ") + ", still running)";
  if (worst->record.verdict == Verdict::Pass) {
    if (!killed.empty()) return set(Verdict::Harness, "ranks passed but rank " + join(killed, ", ") + " was killed");
    std::string detail;
    for (const auto& rank : r->ranks)
      if (detail.empty()) detail = rank.record.detail;
    return set(Verdict::Pass, detail);
  }
  // Ranks that agreed (RankContext::agree) already name the rank the answer came from.
  bool agreed = std::all_of(r->ranks.begin(), r->ranks.end(), [&](const RankOutcome& x) {
    return x.has_record && x.record.verdict == worst->record.verdict && x.record.detail == worst->record.detail;
  });
  std::string who = agreed && r->ranks.size() > 1 ? "" : "rank " + std::to_string(worst->rank) + ": ";
  set(worst->record.verdict, who + worst->record.detail + after);
}

}  // namespace vmr

// See violation_html.h: the views of the etcd checker's and the watch checker's violations, with
// a sentence for each rule/guarantee saying what it means (from the checkers' headers).
#include <algorithm>
#include <cctype>

#include "reports/violation_html.h"
#include "base/parse_number.h"

namespace dst::reports {

namespace {

const char* etcd_rule_meaning(const std::string& rule) {
  static const std::pair<const char*, const char*> kMeanings[] = {
      {"duplicate-revision", "Every write gets its own revision; two acknowledged writes were answered with the same one."},
      {"sources-disagree", "Watch events and returned key-values are observations of one history; two of them disagree about one key at one revision."},
      {"write-effect", "An acknowledged write must have exactly its effect at its revision, applied to the state before it."},
      {"write-response", "A write's response (prev_kv, deleted count, nested range results) must match the state before it."},
      {"txn-succeeded", "A txn's succeeded flag must be what its compares give on the state at its revision."},
      {"lost-write", "A watch that covers a write's revision and key must deliver it."},
      {"misplaced-write", "An acknowledged write's value can only appear at the revision it was answered with."},
      {"real-time", "An operation that completed before another started must be ordered (have a lower revision) before it."},
      {"stale-read", "A linearizable read must see everything that completed before it started."},
      {"read-result", "A read must return the state at its revision."},
      {"value-never-written", "Every value observed must have been written by some request."},
      {"failed-write-visible", "A write that certainly failed must have no visible effect."},
      {"unknown-write-too-early", "A write with unknown outcome may take effect only after it was sent."},
      {"unexplained-event", "Every observed event must be explained by a request or a lease expiry."},
      {"future-revision", "No revision can be served that no write created."},
      {"compaction", "Compaction raises the compact revision; a linearizable read cannot read below one compacted before it started."},
      {"lease", "After an acknowledged revoke, no key keeps or attaches the lease."},
  };
  for (const auto& [r, m] : kMeanings)
    if (rule == r) return m;
  return "";
}

const char* watch_guarantee_meaning(checker::watch::Guarantee g) {
  using G = checker::watch::Guarantee;
  switch (g) {
    case G::kOrdered: return "Event revisions never decrease along a watch.";
    case G::kUnique: return "No (revision, key) event is delivered twice, resumes included.";
    case G::kAtomic: return "The matching events of one revision arrive in one response.";
    case G::kReliable: return "No matching event between the watch's start and the last revision it observed is lost.";
    case G::kResumable: return "A resumed watch continues with the first matching event after the last one seen.";
    case G::kBookmarkable: return "A progress notification at R means every matching event up to R was already delivered.";
    case G::kFilter: return "Only keys in the watched range, filters respected, nothing before the start revision.";
    case G::kPrevKv: return "prev_kv is the key's state at revision - 1 (absent if it did not exist), when asked for.";
    case G::kIsCreate: return "A PUT has create_revision == mod_revision (and version 1) iff the key did not exist.";
    case G::kCompaction: return "A cancel by compaction names a compact revision above the revision the watch needed.";
    case G::kConsistent: return "Write responses and all watches agree on what happened at each revision.";
  }
  return "";
}

// Numbers following `prefix` at a word start in `text`: "op 12" -> 12, "@412" -> 412.
void numbers_after(const std::string& text, const std::string& prefix, std::vector<int64_t>& out) {
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at + 1)) {
    if (at > 0 && std::isalnum(static_cast<unsigned char>(text[at - 1])) && prefix[0] != '@') continue;
    size_t i = at + prefix.size(), j = i;
    while (j < text.size() && j - i < 18 && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) out.push_back(parse_i64(std::string_view(text).substr(i, j - i)).value_or(0));
  }
}

template <typename T>
void add_unique(std::vector<T>& v, T x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

}  // namespace

ViolationView from_etcd_violation(const history::History& history, const checker::etcd::EtcdViolation& violation) {
  ViolationView v;
  v.rule = violation.rule;
  v.title = "Not linearizable (etcd model): " + violation.rule +
            (violation.revision ? " at revision " + std::to_string(violation.revision) : "");
  const std::string meaning = etcd_rule_meaning(violation.rule);
  const std::string rev = "revision " + std::to_string(violation.revision);
  const bool names_revision = violation.revision == 0 || violation.message.find(rev) != std::string::npos;
  v.explanation = (meaning.empty() ? "" : meaning + " ") + "Seen: " + violation.message +
                  (names_revision ? "." : " (" + rev + ").");
  for (uint64_t id : violation.ops)
    if (id < history.operations.size()) add_unique(v.ops, id);
  if (violation.revision) v.revisions.push_back(violation.revision);
  v.lines = violation.lines;
  return v;
}

ViolationView from_watch_violation(const history::History& history, const checker::watch::Violation& violation) {
  using checker::watch::Violation;
  ViolationView v;
  v.rule = checker::watch::guarantee_name(violation.guarantee);
  v.title = "Watch guarantee violated: " + v.rule;
  std::string where = violation.watch_id == Violation::kNoWatch
                          ? "Write responses"
                          : "Watch " + std::to_string(violation.watch_id) + " (client " + std::to_string(violation.client) +
                                ", member " + std::to_string(violation.member) + ")";
  v.explanation = std::string(watch_guarantee_meaning(violation.guarantee)) + " " + where + " at " +
                  checker::watch::format_ns(violation.at_ns) + ": " + violation.what;
  v.detected_at_ns = violation.at_ns;
  if (violation.watch_id != Violation::kNoWatch && violation.watch_id < history.watches.size()) {
    v.watches.push_back(violation.watch_id);
    // The revisions of the offending response.
    for (const history::WatchSegment& s : history.watches[violation.watch_id].segments)
      for (const history::WatchResponse& r : s.responses)
        if (r.at_ns == violation.at_ns)
          for (const mvccpb::Event& e : r.response.events()) add_unique(v.revisions, e.kv().mod_revision());
  }
  // Operations and revisions the evidence names.
  std::vector<int64_t> ops, revs;
  for (const std::string* text : {&violation.what}) numbers_after(*text, "op ", ops), numbers_after(*text, "@", revs);
  for (const std::string& line : violation.evidence) numbers_after(line, "op ", ops), numbers_after(line, "@", revs);
  for (int64_t id : ops)
    if (id >= 0 && static_cast<uint64_t>(id) < history.operations.size()) add_unique(v.ops, static_cast<uint64_t>(id));
  for (int64_t r : revs)
    if (r > 0) add_unique(v.revisions, r);
  v.lines = violation.evidence;
  return v;
}

ViolationView from_evidence(const history::History& history, const checker::suite::Evidence& e) {
  ViolationView v;
  v.rule = e.rule.empty() ? e.check : e.rule;
  v.title = (e.check == "kube" ? "Kubernetes check violated: " : e.check + " violated: ") + v.rule;
  v.explanation = "Seen: " + e.message + (e.at_ns >= 0 ? " (at " + checker::watch::format_ns(e.at_ns) + ")." : ".");
  for (uint64_t id : e.ops)
    if (id < history.operations.size()) add_unique(v.ops, id);
  for (uint64_t id : e.watches)
    if (id < history.watches.size()) add_unique(v.watches, id);
  for (int64_t r : e.revisions) add_unique(v.revisions, r);
  v.detected_at_ns = e.at_ns;
  v.lines = e.lines;
  return v;
}

}  // namespace dst::reports

#include "checker/watch/watch_checker.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "base/assert.h"
#include "checker/watch/truth.h"
#include "history/restore_epochs.h"

namespace dst::checker::watch {

namespace {

// Violations collected before the report keeps the earliest `violations_kept`: bounds memory on a
// history where every event is wrong, while still letting the report pick the first ones in time.
constexpr size_t kViolationsCollectedMax = 10'000;

using WatchCreateRequest = etcdserverpb::WatchCreateRequest;

// Collects violations with the per-(watch, guarantee) and overall bounds; counts every one.
class Sink {
 public:
  explicit Sink(Report& report) : report_(report) {}

  void add(Violation v) {
    ++report_.violations_total;
    ++report_.violations_by_guarantee[static_cast<size_t>(v.guarantee)];
    size_t& n = per_watch_[{v.watch_id, static_cast<int>(v.guarantee)}];
    if (++n > kViolationsPerWatchGuaranteeMax || collected_.size() >= kViolationsCollectedMax) return;
    collected_.push_back(std::move(v));
  }
  void add_counted(std::vector<Violation> kept, size_t total) {
    report_.violations_total += total;
    report_.violations_by_guarantee[static_cast<size_t>(Guarantee::kConsistent)] += total;
    for (auto& v : kept) collected_.push_back(std::move(v));
  }
  void finish(size_t kept) {
    std::stable_sort(collected_.begin(), collected_.end(),
                     [](const Violation& a, const Violation& b) { return a.at_ns < b.at_ns; });
    if (collected_.size() > kept) collected_.resize(kept);
    report_.violations = std::move(collected_);
  }

 private:
  Report& report_;
  std::map<std::pair<uint64_t, int>, size_t> per_watch_;
  std::vector<Violation> collected_;
};

// Where in a watch something arrived.
struct Position {
  size_t segment = 0;
  size_t response = 0;
  size_t group = 0;  // responses joined by `fragment` form one group (one logical response)
  uint32_t member = 0;
  int64_t at_ns = 0;
  std::string describe() const {
    return "seg " + std::to_string(segment) + " resp " + std::to_string(response) + " (member " +
           std::to_string(member) + ") at " + format_ns(at_ns);
  }
};

// A truth event the watch should have received and had not when `detected` (a later revision, a
// progress notification, a resume or the end of its revision's response) showed it missing.
struct Missing {
  Guarantee guarantee = Guarantee::kReliable;
  Position detected;
  std::string why;
};

std::string describe_truth(int64_t revision, const TruthEvent& e) {
  std::string s = e.type == mvccpb::Event::PUT ? "PUT '" : "DELETE '";
  s += e.key + "'";
  if (e.type == mvccpb::Event::PUT && e.value) s += "='" + *e.value + "'";
  return "truth: " + s + " @" + std::to_string(revision) + " from " + e.source.describe();
}

std::string describe_state(const KeyState& s) {
  switch (s.kind) {
    case KeyState::Kind::kUnknown:
      return "unknown";
    case KeyState::Kind::kAbsent:
      return "absent";
    case KeyState::Kind::kPresent:
      break;
  }
  std::string r = "present @" + std::to_string(s.mod_revision);
  if (s.value) r += " value '" + *s.value + "'";
  if (s.create_revision) r += " create " + std::to_string(*s.create_revision);
  if (s.version) r += " version " + std::to_string(*s.version);
  return r;
}

// Walks one watch's segments and responses in order, checking each guarantee as it goes.
class WatchWalk {
 public:
  WatchWalk(const Truth& truth, const history::Watch& watch, const Options& options, Sink& sink, Report& report)
      : truth_(truth), watch_(watch), options_(options), sink_(sink), report_(report) {}

  void run() {
    for (size_t s = 0; s < watch_.segments.size(); ++s) run_segment(s);
    report_missing();
  }

 private:
  struct Matcher {
    KeyRange range;
    bool no_put = false;
    bool no_delete = false;
    bool prev_kv = false;
    int64_t start = 0;
    explicit Matcher(const WatchCreateRequest& req) : range{req.key(), req.range_end()} {
      for (int f : req.filters()) {
        if (f == WatchCreateRequest::NOPUT) no_put = true;
        if (f == WatchCreateRequest::NODELETE) no_delete = true;
      }
      prev_kv = req.prev_kv();
      start = req.start_revision();
    }
    bool type_wanted(mvccpb::Event::EventType t) const { return t == mvccpb::Event::PUT ? !no_put : !no_delete; }
    bool matches(const std::string& key, mvccpb::Event::EventType t) const {
      return range.contains(key) && type_wanted(t);
    }
  };

  void run_segment(size_t s) {
    const history::WatchSegment& seg = watch_.segments[s];
    const Matcher m(seg.request);
    if (s == 0 || canceled_by_compaction_ || cursor_ == 0) {
      // A fresh start: the first segment, or a new watch after a compaction lost history.
      cursor_ = seg.request.start_revision();
      resuming_ = false;
    } else {
      resuming_ = true;
      resume_floor_ = cursor_;
      check_resume_start(s, m);
    }
    canceled_by_compaction_ = false;
    size_t group = 0;
    for (size_t r = 0; r < seg.responses.size(); ++r) {
      const auto& wr = seg.responses[r];
      const auto& resp = wr.response;
      ++report_.responses;
      Position pos{s, r, group, seg.member, wr.at_ns};
      if (resp.created()) {
        if (cursor_ == 0 && resp.header().revision() > 0) cursor_ = resp.header().revision() + 1;
      } else if (resp.canceled()) {
        check_cancel(resp, pos);
        break;
      } else if (resp.events_size() == 0) {
        progress(m, resp.header().revision(), pos);
      } else {
        for (const auto& ev : resp.events()) event(m, ev, pos);
      }
      if (!resp.fragment()) {
        end_group(m, pos);
        ++group;
      }
    }
  }

  // A resumed segment asks the server for its start revision: a start above the next revision the
  // watch needed skips whatever the truth has in between.
  void check_resume_start(size_t s, const Matcher& m) {
    const int64_t start = watch_.segments[s].request.start_revision();
    if (start <= cursor_) return;
    const auto& seg = watch_.segments[s];
    Position pos{s, 0, 0, seg.member, seg.created_ns};
    find_missing(m, cursor_, start - 1, Guarantee::kResumable, pos,
                 "the watch was resumed from revision " + std::to_string(start) + " though it had seen only up to " +
                     std::to_string(cursor_ - 1));
    cursor_ = start;
  }

  void progress(const Matcher& m, int64_t revision, const Position& pos) {
    if (revision <= 0) return;
    if (cursor_ > 0 && revision >= cursor_) {
      find_missing(
          m, cursor_, revision, Guarantee::kBookmarkable, pos,
          "a progress notification at revision " + std::to_string(revision) + " arrived before this matching event");
    }
    if (revision > last_progress_) {
      last_progress_ = revision;
      last_progress_pos_ = pos;
    }
    cursor_ = std::max(cursor_, revision + 1);
    resuming_ = false;
  }

  void event(const Matcher& m, const mvccpb::Event& ev, const Position& pos) {
    ++report_.events;
    const int64_t rev = ev.kv().mod_revision();
    const std::string& key = ev.kv().key();
    const std::string shown = pos.describe() + ": " + describe_event(ev);
    if (!m.range.contains(key)) {
      report(Guarantee::kFilter, pos, "event for key '" + key + "' outside the watched range", {shown});
      return;
    }
    if (!m.type_wanted(ev.type())) {
      report(Guarantee::kFilter, pos, "event of a type the watch filtered out (NOPUT/NODELETE)", {shown});
      return;
    }
    const auto id = std::make_pair(rev, key);
    missing_.erase(id);  // arriving late is reported below as whatever rule the late arrival breaks
    if (delivered_.count(id) > 0) {
      report(Guarantee::kUnique, pos, "event delivered a second time", {shown, "first: " + delivered_[id].describe()});
      return;
    }
    delivered_[id] = pos;
    if (rev < last_event_) {
      report(Guarantee::kOrdered, pos,
             "event at revision " + std::to_string(rev) + " after an event at revision " + std::to_string(last_event_),
             {last_event_pos_.describe() + ": event @" + std::to_string(last_event_), shown});
      return;
    }
    if (rev <= last_progress_) {
      report(Guarantee::kBookmarkable, pos,
             "event at revision " + std::to_string(rev) + " after a progress notification at revision " +
                 std::to_string(last_progress_),
             {last_progress_pos_.describe() + ": progress @" + std::to_string(last_progress_), shown});
      return;
    }
    if (m.start > 0 && rev < m.start) {
      report(Guarantee::kFilter, pos, "event below the segment's start revision " + std::to_string(m.start), {shown});
      return;
    }
    if (rev == last_event_ && (pos.segment != last_event_pos_.segment || pos.group != last_event_pos_.group)) {
      report(Guarantee::kAtomic, pos, "revision " + std::to_string(rev) + " split across two responses",
             {last_event_pos_.describe() + ": first part of @" + std::to_string(rev), shown});
    } else if (rev > last_event_ || last_event_ == 0) {
      new_revision(m, rev, pos);
    }
    check_content(m, ev, pos, shown);
    last_event_ = rev;
    last_event_pos_ = pos;
    group_revisions_.insert(rev);
  }

  void new_revision(const Matcher& m, int64_t rev, const Position& pos) {
    if (cursor_ == 0) cursor_ = rev;  // from "now", without a creation ack: the first event fixes it
    if (rev > cursor_) {
      if (resuming_) {
        find_missing(m, cursor_, rev - 1, Guarantee::kResumable, pos,
                     "the resumed segment's first event is at revision " + std::to_string(rev) +
                         ", skipping this matching event after the last revision seen (" +
                         std::to_string(resume_floor_ - 1) + ")");
      } else {
        find_missing(m, cursor_, rev - 1, Guarantee::kReliable, pos,
                     "the watch received revision " + std::to_string(rev) + " but never this earlier matching event");
      }
    }
    cursor_ = std::max(cursor_, rev + 1);
    resuming_ = false;
  }

  // At the end of a (logical) response: every matching truth event of a revision it delivered
  // should have been in it.
  void end_group(const Matcher& m, const Position& pos) {
    for (int64_t rev : group_revisions_) {
      const Revision* truth_rev = truth_.at(rev);
      if (truth_rev == nullptr) continue;
      for (const auto& [key, e] : truth_rev->events) {
        if (!m.matches(key, e.type) || delivered_.count({rev, key}) > 0 || missing_.count({rev, key}) > 0) continue;
        missing_[{rev, key}] =
            Missing{Guarantee::kReliable, pos,
                    "revision " + std::to_string(rev) + " was delivered without this matching event"};
      }
    }
    group_revisions_.clear();
  }

  // Records every matching truth event in [from, to] not yet delivered as missing; reported at the
  // end of the watch unless it arrives later (then the late arrival is the violation reported).
  void find_missing(const Matcher& m, int64_t from, int64_t to, Guarantee g, const Position& pos,
                    const std::string& why) {
    const auto& revs = truth_.revisions();
    for (auto it = revs.lower_bound(from); it != revs.end() && it->first <= to; ++it) {
      for (const auto& [key, e] : it->second.events) {
        const auto id = std::make_pair(it->first, key);
        if (!m.matches(key, e.type) || delivered_.count(id) > 0 || missing_.count(id) > 0) continue;
        missing_[id] = Missing{g, pos, why};
      }
    }
  }

  void report_missing() {
    // One violation per (guarantee, detection point): the events it lists share one cause.
    std::map<std::tuple<int, size_t, size_t, std::string>, std::vector<std::pair<int64_t, std::string>>> groups;
    std::map<std::tuple<int, size_t, size_t, std::string>, const Missing*> first;
    for (const auto& [id, miss] : missing_) {
      auto k =
          std::make_tuple(static_cast<int>(miss.guarantee), miss.detected.segment, miss.detected.response, miss.why);
      groups[k].push_back(id);
      first.emplace(k, &miss);
    }
    for (const auto& [k, ids] : groups) {
      const Missing& miss = *first[k];
      std::vector<std::string> evidence{miss.detected.describe() + ": where it showed missing"};
      for (size_t i = 0; i < ids.size() && i < kEvidenceEventsMax; ++i) {
        const Revision* rev = truth_.at(ids[i].first);
        DST_ASSERT(rev != nullptr);
        evidence.push_back(describe_truth(ids[i].first, rev->events.at(ids[i].second)));
      }
      if (ids.size() > kEvidenceEventsMax)
        evidence.push_back("... and " + std::to_string(ids.size() - kEvidenceEventsMax) + " more");
      report(miss.guarantee, miss.detected,
             std::to_string(ids.size()) + " matching event(s) never delivered: " + miss.why, std::move(evidence));
    }
  }

  void check_cancel(const etcdserverpb::WatchResponse& resp, const Position& pos) {
    const int64_t compact = resp.compact_revision();
    if (compact <= 0) return;
    canceled_by_compaction_ = true;
    const std::string shown = pos.describe() + ": canceled, compact_revision " + std::to_string(compact);
    if (cursor_ > 0 && cursor_ >= compact) {
      report(Guarantee::kCompaction, pos,
             "canceled by compaction at " + std::to_string(compact) + " though the watch needed revision " +
                 std::to_string(cursor_) + ", which that compaction keeps",
             {shown});
    }
    if (options_.compactions_recorded && compact > truth_.compaction_revision_max_before(pos.at_ns)) {
      report(Guarantee::kCompaction, pos,
             "canceled with compact revision " + std::to_string(compact) +
                 " but no compaction that high was requested before",
             {shown});
    }
  }

  // prev_kv and is-create, against the truth's state of the key before the event.
  void check_content(const Matcher& m, const mvccpb::Event& ev, const Position& pos, const std::string& shown) {
    const int64_t rev = ev.kv().mod_revision();
    const Revision* truth_rev = truth_.at(rev);
    const TruthEvent* te = nullptr;
    if (truth_rev != nullptr) {
      auto it = truth_rev->events.find(ev.kv().key());
      if (it != truth_rev->events.end() && it->second.type == ev.type()) te = &it->second;
    }
    check_prev_kv(m, ev, te, pos, shown);
    if (ev.type() == mvccpb::Event::PUT) check_is_create(ev, te, pos, shown);
  }

  void check_prev_kv(const Matcher& m, const mvccpb::Event& ev, const TruthEvent* te, const Position& pos,
                     const std::string& shown) {
    if (!m.prev_kv) {
      if (ev.has_prev_kv())
        report(Guarantee::kPrevKv, pos, "prev_kv given though the watch did not ask for it", {shown});
      return;
    }
    if (te == nullptr || te->before.kind == KeyState::Kind::kUnknown) return;
    const KeyState& b = te->before;
    std::string wrong;
    if (b.kind == KeyState::Kind::kAbsent) {
      if (ev.has_prev_kv()) wrong = "prev_kv given but the key did not exist before";
    } else if (!ev.has_prev_kv()) {
      // etcd omits prev_kv when the revision before the event is compacted (a watch started at
      // the compaction revision): allowed once a compaction past it was requested.
      const bool compacted = !options_.compactions_recorded ||
                             ev.kv().mod_revision() - 1 < truth_.compaction_revision_max_before(pos.at_ns);
      if (!compacted) wrong = "prev_kv missing but the key existed before";
    } else {
      const auto& p = ev.prev_kv();
      if (p.key() != te->key || p.mod_revision() != b.mod_revision)
        wrong = "prev_kv is not the key's last version";
      else if (b.value && p.value() != *b.value)
        wrong = "prev_kv has the wrong value";
      else if (b.lease && !options_.partial_kvs && p.lease() != *b.lease)
        wrong = "prev_kv has the wrong lease";
      else if (b.create_revision && recorded(p.create_revision()) && p.create_revision() != *b.create_revision)
        wrong = "prev_kv has the wrong create_revision";
      else if (b.version && recorded(p.version()) && p.version() != *b.version)
        wrong = "prev_kv has the wrong version";
    }
    if (!wrong.empty())
      report(Guarantee::kPrevKv, pos, wrong,
             {shown, "truth before @" + std::to_string(ev.kv().mod_revision()) + ": " + describe_state(b)});
  }

  // Whether an event's create_revision or version was recorded: always in dst's own runs; an
  // imported one (Options::partial_kvs) records 0 for "not known".
  bool recorded(int64_t field) const { return !options_.partial_kvs || field != 0; }

  void check_is_create(const mvccpb::Event& ev, const TruthEvent* te, const Position& pos, const std::string& shown) {
    const auto& kv = ev.kv();
    const bool is_create = kv.create_revision() == kv.mod_revision();
    std::string wrong;
    if (is_create != (kv.version() == 1)) {
      wrong = "create_revision == mod_revision disagrees with version == 1";
    } else if (te != nullptr && te->before.kind != KeyState::Kind::kUnknown &&
               is_create != (te->before.kind == KeyState::Kind::kAbsent)) {
      wrong = is_create ? "marked as a creation but the key existed before"
                        : "not marked as a creation but the key did not exist before";
    } else if (te != nullptr && te->create_revision && recorded(kv.create_revision()) &&
               kv.create_revision() != *te->create_revision) {
      wrong = "create_revision differs from the truth's " + std::to_string(*te->create_revision);
    } else if (te != nullptr && te->version && recorded(kv.version()) && kv.version() != *te->version) {
      wrong = "version differs from the truth's " + std::to_string(*te->version);
    }
    if (!wrong.empty()) {
      std::vector<std::string> evidence{shown};
      if (te != nullptr) evidence.push_back("truth before: " + describe_state(te->before));
      report(Guarantee::kIsCreate, pos, wrong, std::move(evidence));
    }
  }

  void report(Guarantee g, const Position& pos, std::string what, std::vector<std::string> evidence) {
    Violation v;
    v.guarantee = g;
    v.watch_id = watch_.id;
    v.client = watch_.client;
    v.member = pos.member;
    v.at_ns = pos.at_ns;
    v.what = std::move(what);
    v.evidence = std::move(evidence);
    sink_.add(std::move(v));
  }

  const Truth& truth_;
  const history::Watch& watch_;
  const Options& options_;
  Sink& sink_;
  Report& report_;

  // The next revision whose matching events the watch has not yet been shown to have in full
  // (0: not known yet, a watch "from now" before its creation ack or first event).
  int64_t cursor_ = 0;
  bool resuming_ = false;     // in a resumed segment, before its first event or progress
  int64_t resume_floor_ = 0;  // the cursor when the segment resumed
  bool canceled_by_compaction_ = false;
  int64_t last_event_ = 0;
  Position last_event_pos_;
  int64_t last_progress_ = 0;
  Position last_progress_pos_;
  std::map<std::pair<int64_t, std::string>, Position> delivered_;
  std::map<std::pair<int64_t, std::string>, Missing> missing_;
  std::set<int64_t> group_revisions_;
};

}  // namespace

namespace {

Report check_timeline(const history::History& history, const Options& options);

// Each timeline of revisions across restores (history/restore_epochs.h) checked on its own; a
// restored cluster's watch answered below the revision it starts at is reported as inconsistent.
Report check_across_restores(const history::History& history, const Options& options) {
  Report out;
  std::vector<Violation> kept;
  for (const history::RevisionWentBack& w : history::revisions_went_back(history)) {
    if (!w.watch) continue;
    ++out.violations_total;
    ++out.violations_by_guarantee[static_cast<size_t>(Guarantee::kConsistent)];
    Violation v;
    v.guarantee = Guarantee::kConsistent;
    v.watch_id = w.op;
    v.at_ns = history.restores[w.restore - 1].restore_ns;
    v.what = w.message;
    kept.push_back(std::move(v));
  }
  // A violation two timelines share (a truth conflict among the operations both keep) is
  // reported once; the counts add up the timelines'.
  std::set<std::tuple<int, uint64_t, int64_t, std::string>> seen;
  for (size_t k = 0; k <= history.restores.size(); ++k) {
    const history::RestoreTimeline tl = history::restore_timeline(history, k);  // one copy at a time
    Report r = check_timeline(tl.history, options);
    out.violations_total += r.violations_total;
    for (size_t g = 0; g < kGuaranteeCount; ++g) out.violations_by_guarantee[g] += r.violations_by_guarantee[g];
    out.watches = std::max(out.watches, r.watches);
    out.responses += r.responses;
    out.events += r.events;
    out.revisions_known += r.revisions_known;
    out.revisions_complete += r.revisions_complete;
    for (Violation& v : r.violations) {
      if (!seen.insert({static_cast<int>(v.guarantee), v.watch_id, v.at_ns, v.what}).second) continue;
      v.what = "[" + tl.label + "] " + v.what;
      kept.push_back(std::move(v));
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Violation& a, const Violation& b) { return a.at_ns < b.at_ns; });
  if (kept.size() > options.violations_kept) kept.resize(options.violations_kept);
  out.violations = std::move(kept);
  return out;
}

}  // namespace

Report check(const history::History& history, const Options& options) {
  if (!history.restores.empty()) return check_across_restores(history, options);
  return check_timeline(history, options);
}

namespace {

Report check_timeline(const history::History& history, const Options& options) {
  Report report;
  Sink sink(report);
  std::vector<Violation> conflicts;
  size_t conflicts_total = 0;
  const Truth truth =
      Truth::build(history, conflicts, options.violations_kept, conflicts_total, options.partial_kvs);
  sink.add_counted(std::move(conflicts), conflicts_total);
  for (const auto& w : history.watches) {
    ++report.watches;
    WatchWalk(truth, w, options, sink, report).run();
  }
  for (const auto& [revision, rev] : truth.revisions()) {
    if (rev.events.empty()) continue;
    ++report.revisions_known;
    if (rev.complete()) ++report.revisions_complete;
  }
  sink.finish(options.violations_kept);
  return report;
}

}  // namespace

const char* guarantee_name(Guarantee g) {
  switch (g) {
    case Guarantee::kOrdered:
      return "ordered";
    case Guarantee::kUnique:
      return "unique";
    case Guarantee::kAtomic:
      return "atomic";
    case Guarantee::kReliable:
      return "reliable";
    case Guarantee::kResumable:
      return "resumable";
    case Guarantee::kBookmarkable:
      return "bookmarkable";
    case Guarantee::kFilter:
      return "filter";
    case Guarantee::kPrevKv:
      return "prev_kv";
    case Guarantee::kIsCreate:
      return "is_create";
    case Guarantee::kCompaction:
      return "compaction";
    case Guarantee::kConsistent:
      return "consistent";
  }
  return "?";
}

std::string format_ns(int64_t ns) {
  if (ns == history::kNeverReturned) return "never";
  const bool negative = ns < 0;
  const uint64_t abs = negative ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  std::string micros = std::to_string((abs / 1000) % 1'000'000);
  micros.insert(0, 6 - micros.size(), '0');
  return (negative ? "-" : "") + std::to_string(abs / 1'000'000'000) + "." + micros + "s";
}

std::string Violation::to_string() const {
  std::string s = guarantee_name(guarantee);
  s += ": ";
  if (watch_id != kNoWatch)
    s += "watch " + std::to_string(watch_id) + " (client " + std::to_string(client) + ", member " +
         std::to_string(member) + ") ";
  s += "at " + format_ns(at_ns) + ": " + what;
  for (const auto& e : evidence) s += "\n    " + e;
  return s;
}

std::string Report::to_string() const {
  std::string s = ok() ? "watch: ok" : "watch: VIOLATED";
  s += " (" + std::to_string(watches) + " watches, " + std::to_string(responses) + " responses, " +
       std::to_string(events) + " events; truth " + std::to_string(revisions_known) + " revisions, " +
       std::to_string(revisions_complete) + " complete)\n";
  if (ok()) return s;
  s += std::to_string(violations_total) + " violation(s):";
  for (size_t g = 0; g < kGuaranteeCount; ++g) {
    if (violations_by_guarantee[g] == 0) continue;
    s +=
        " " + std::string(guarantee_name(static_cast<Guarantee>(g))) + "=" + std::to_string(violations_by_guarantee[g]);
  }
  s += "\n";
  for (const auto& v : violations) s += "  " + v.to_string() + "\n";
  if (violations.size() < violations_total)
    s += "  ... " + std::to_string(violations_total - violations.size()) + " more not shown\n";
  return s;
}

}  // namespace dst::checker::watch

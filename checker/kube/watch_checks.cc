// watch-events and watch-bookmark: every WATCH stream an informer got, against etcd's events
// under the prefix after the watch's start.
//
// Like the etcd watch checker, a stream is walked once with a cursor: the first revision not yet
// shown complete. An event at revision r shows every revision below r complete (events come in
// revision order); a BOOKMARK at B shows B complete. Whatever etcd made in a revision shown
// complete and the stream had not delivered is missing, unless it arrives later: then the late
// arrival is the violation (out of order, or after a bookmark that covered it). The last revision
// delivered may stay partial: the stream may end in the middle of a multi-key txn.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "checker/kube/checks.h"
#include "checker/watch/violation.h"

namespace dst::checker::kube::internal {

namespace {

using EventType = history::KubeWatchEvent::Type;

// The key's state just before an event, as far as it is known.
struct Before {
  PrefixState::Kind kind = PrefixState::Kind::kUnknown;
  std::optional<std::string> value;
};

Before before_of(const PrefixTruth& truth, const PrefixEvent& e) {
  const PrefixState s = truth.state(e.key, e.revision - 1);
  if (s.kind != PrefixState::Kind::kUnknown) return Before{s.kind, s.value};
  // A write response's prev_kv (the apiservers delete with it) may still tell.
  if (e.truth == nullptr) return {};
  const watch::KeyState& b = e.truth->before;
  if (b.kind == watch::KeyState::Kind::kAbsent) return Before{PrefixState::Kind::kAbsent, std::nullopt};
  if (b.kind == watch::KeyState::Kind::kPresent) return Before{PrefixState::Kind::kPresent, b.value};
  return {};
}

class WatchWalk {
 public:
  WatchWalk(const Context& ctx, const history::KubeWatch& w) : ctx_(ctx), w_(w) {}

  void run() {
    cursor_ = w_.from_rv > 0 ? w_.from_rv + 1 : 0;
    if (w_.from_rv <= 0) ++ctx_.tally(Check::kWatchEvents).skipped;  // no start: nothing is missing before the first
    for (size_t i = 0; i < w_.events.size(); ++i) {
      if (w_.events[i].type == EventType::kBookmark)
        bookmark(i);
      else
        event(i);
    }
    report_missing();
  }

 private:
  struct Missing {
    Check check = Check::kWatchEvents;
    size_t detected = 0;  // the event or bookmark that showed it missing
    std::string why;
    size_t before = SIZE_MAX;  // the highest event delivered until then (SIZE_MAX: none)
  };
  using Id = std::pair<int64_t, std::string>;

  void bookmark(size_t i) {
    ++ctx_.tally(Check::kWatchBookmark).checked;
    const int64_t b = w_.events[i].object.resource_version;
    if (cursor_ > 0 && b >= cursor_)
      find_missing(cursor_, b, Check::kWatchBookmark, i, "a BOOKMARK at rv " + std::to_string(b) + " came first");
    cursor_ = std::max(cursor_, b + 1);
    if (b > last_bookmark_) {
      last_bookmark_ = b;
      last_bookmark_index_ = i;
    }
  }

  void event(size_t i) {
    const history::KubeWatchEvent& e = w_.events[i];
    const int64_t r = e.object.resource_version;
    const std::string& key = e.object.key;
    const std::string shown = "seen:     " + describe_event(e, i);
    if (!ctx_.truth.contains(key)) {
      report(Check::kWatchEvents, i, "an event for a key outside the prefix '" + ctx_.truth.prefix() + "'", {shown});
      return;
    }
    if (w_.from_rv > 0 && r <= w_.from_rv) {
      report(Check::kWatchEvents, i,
             "an event at rv " + std::to_string(r) + ", not after the watch's start rv " + std::to_string(w_.from_rv),
             {shown});
      return;
    }
    const Id id{r, key};
    missing_.erase(id);  // a late arrival is reported as what it breaks, below
    if (auto d = delivered_.find(id); d != delivered_.end()) {
      report(Check::kWatchEvents, i, "the same change delivered twice (rv " + std::to_string(r) + ")",
             {"first:    " + describe_event(w_.events[d->second], d->second), shown});
      return;
    }
    delivered_.emplace(id, i);
    if (r <= last_bookmark_) {
      report(Check::kWatchBookmark, i,
             "an event at rv " + std::to_string(r) + " after a BOOKMARK at rv " + std::to_string(last_bookmark_) +
                 " that said everything up to it was delivered",
             {"bookmark: " + describe_event(w_.events[last_bookmark_index_], last_bookmark_index_), shown});
    } else if (r < max_rev_) {
      report(Check::kWatchEvents, i,
             "out of order: an event at rv " + std::to_string(r) + " after one at rv " + std::to_string(max_rev_),
             {"earlier:  " + describe_event(w_.events[max_rev_index_], max_rev_index_), shown});
    }
    if (r > max_rev_) {
      if (cursor_ == 0) cursor_ = r;
      if (cursor_ < r)
        find_missing(cursor_, r - 1, Check::kWatchEvents, i, "the stream went on to rv " + std::to_string(r) + " before them");
      cursor_ = std::max(cursor_, r);
      max_rev_ = r;
      max_rev_index_ = i;
    }
    check_content(i, shown);
  }

  // Whether the event is the change etcd made: it made one there, of this type, with this value.
  void check_content(size_t i, const std::string& shown) {
    const history::KubeWatchEvent& e = w_.events[i];
    const int64_t r = e.object.resource_version;
    const std::string& key = e.object.key;
    Tally& tally = ctx_.tally(Check::kWatchEvents);
    const PrefixEvent* te = ctx_.truth.event(r, key);
    if (te == nullptr) {
      if (ctx_.truth.may_have_unknown_event(key, r)) {
        ++tally.skipped;
        return;
      }
      ++tally.checked;
      std::vector<std::string> evidence{shown};
      evidence.push_back("etcd made no change to '" + key + "' at revision " + std::to_string(r) + "; it was " +
                         ctx_.truth.state(key, r).describe() + " there");
      report(Check::kWatchEvents, i, "an event for a change etcd never made", std::move(evidence));
      return;
    }
    ++tally.checked;
    const Before before = te->deleted ? Before{} : before_of(ctx_.truth, *te);
    std::string wrong;
    if (te->deleted) {
      if (e.type != EventType::kDeleted) wrong = "etcd deleted the key, the event is " + std::string(history::kube_event_type_name(e.type));
      else {
        const Before last = before_of(ctx_.truth, *te);
        if (last.kind == PrefixState::Kind::kPresent && last.value && *last.value != e.object.value)
          wrong = "DELETED carries '" + e.object.value + "' but the key's last value was '" + *last.value + "'";
      }
    } else if (e.type == EventType::kDeleted) {
      wrong = "etcd put the key, the event is DELETED";
    } else if (before.kind == PrefixState::Kind::kAbsent && e.type != EventType::kAdded) {
      wrong = "the key did not exist before: ADDED expected";
    } else if (before.kind == PrefixState::Kind::kPresent && e.type != EventType::kModified) {
      wrong = "the key existed before: MODIFIED expected";
    } else if (te->value && *te->value != e.object.value) {
      wrong = "wrong value, etcd put '" + *te->value + "'";
    }
    if (!wrong.empty())
      report(Check::kWatchEvents, i, "the event is not etcd's change: " + wrong,
             {shown, "expected: " + describe_etcd(*te)});
  }

  // Every etcd event in [from, to] not delivered yet is missing, as shown by event/bookmark i.
  void find_missing(int64_t from, int64_t to, Check check, size_t i, const std::string& why) {
    const auto& events = ctx_.truth.events();
    for (auto it = events.lower_bound(from); it != events.end() && it->first <= to; ++it) {
      for (const auto& [key, pe] : it->second) {
        Id id{it->first, key};
        if (delivered_.count(id) > 0 || missing_.count(id) > 0) continue;
        missing_.emplace(std::move(id), Missing{check, i, why, max_rev_ > 0 ? max_rev_index_ : SIZE_MAX});
      }
    }
  }

  void report_missing() {
    // One violation per (check, detection point): the events it lists share one cause.
    std::map<std::tuple<int, size_t, std::string>, std::vector<const Id*>> groups;
    std::map<std::tuple<int, size_t, std::string>, size_t> before;
    for (const auto& [id, m] : missing_) {
      const std::tuple<int, size_t, std::string> k{static_cast<int>(m.check), m.detected, m.why};
      groups[k].push_back(&id);
      before.emplace(k, m.before);
    }
    for (const auto& [k, ids] : groups) {
      const auto& [check, detected, why] = k;
      std::vector<std::string> lines;
      for (const Id* id : ids) lines.push_back("expected: " + describe_etcd(*ctx_.truth.event(id->first, id->second)));
      std::vector<std::string> evidence;
      if (const size_t b = before.at(k); b != SIZE_MAX) evidence.push_back("before:   " + describe_event(w_.events[b], b));
      append_capped(evidence, lines);
      evidence.push_back("seen:     " + describe_event(w_.events[detected], detected));
      report(static_cast<Check>(check), detected,
             std::to_string(ids.size()) + " change(s) etcd made were never delivered: " + why, std::move(evidence));
    }
  }

  void report(Check check, size_t i, std::string what, std::vector<std::string> evidence) {
    evidence.insert(evidence.begin(), describe_watch(w_));
    ctx_.violation(check, w_.apiserver, w_.events[i].at_ns, std::move(what), std::move(evidence));
  }

  const Context& ctx_;
  const history::KubeWatch& w_;
  int64_t cursor_ = 0;  // the first revision not yet shown complete (0: not known yet)
  int64_t max_rev_ = 0;
  size_t max_rev_index_ = 0;
  int64_t last_bookmark_ = 0;
  size_t last_bookmark_index_ = 0;
  std::map<Id, size_t> delivered_;  // -> event index
  std::map<Id, Missing> missing_;
};

// The informer held `held` and watched from a later rv: etcd's events in between never reach it.
void check_skipped_start(const Context& ctx, const history::KubeWatch& w, int64_t held, const std::string& held_by) {
  std::vector<std::string> lines;
  const auto& events = ctx.truth.events();
  for (auto it = events.upper_bound(held); it != events.end() && it->first <= w.from_rv; ++it)
    for (const auto& [key, pe] : it->second) lines.push_back("expected: " + describe_etcd(pe));
  if (lines.empty()) return;
  std::vector<std::string> evidence{held_by, describe_watch(w)};
  append_capped(evidence, lines);
  ctx.violation(Check::kWatchEvents, w.apiserver, w.created_ns,
                "the informer held rv " + std::to_string(held) + " but watched from rv " + std::to_string(w.from_rv) +
                    ", skipping " + std::to_string(lines.size()) + " change(s) etcd made in between",
                std::move(evidence));
}

}  // namespace

void check_watches(const Context& ctx) {
  InformerModel model;  // the rv the informer holds when it starts each watch
  for (const Step& step : steps_of(ctx.informer)) {
    if (step.list != nullptr) {
      if (step.list->ok) model.list(*step.list);
      continue;
    }
    const history::KubeWatch& w = *step.watch;
    if (model.rv() > 0 && w.from_rv > model.rv()) check_skipped_start(ctx, w, model.rv(), model.rv_by().describe());
    WatchWalk(ctx, w).run();
    for (size_t i = 0; i < w.events.size(); ++i)
      if (!model.event(w, i)) break;  // the informer refused it and ended the watch
  }
}

}  // namespace dst::checker::kube::internal

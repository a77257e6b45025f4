#include "checker/kube/prefix_truth.h"

#include <algorithm>
#include <functional>
#include <utility>


namespace dst::checker::kube {

namespace {

// The revision an ok write was answered with (0: not a write, or none readable).
int64_t write_revision(const history::Operation& op) {
  const auto& req = op.request;
  const auto& resp = op.response;
  if (req.has_put() && resp.has_put()) return resp.put().header().revision();
  if (req.has_delete_range() && resp.has_delete_range()) return resp.delete_range().header().revision();
  if (req.has_txn() && resp.has_txn()) return resp.txn().header().revision();
  return 0;
}

bool is_write(const etcdserverpb::ApiRequest& req) { return req.has_put() || req.has_delete_range() || req.has_txn(); }

// Every put a request makes or may make (both branches of a txn).
void each_put_op(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops,
                 const std::function<void(const etcdserverpb::PutRequest&)>& f) {
  for (const auto& op : ops) {
    if (op.has_request_put()) f(op.request_put());
    if (op.has_request_txn()) {
      each_put_op(op.request_txn().success(), f);
      each_put_op(op.request_txn().failure(), f);
    }
  }
}
void each_put(const etcdserverpb::ApiRequest& req, const std::function<void(const etcdserverpb::PutRequest&)>& f) {
  if (req.has_put()) f(req.put());
  if (req.has_txn()) {
    each_put_op(req.txn().success(), f);
    each_put_op(req.txn().failure(), f);
  }
}

// etcd's prefix range end: the prefix with its last byte below 0xff incremented; empty: no bound.
std::string prefix_end(std::string p) {
  while (!p.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(p.back());
    if (last < 0xff) {
      ++last;
      return p;
    }
    p.pop_back();
  }
  return p;
}

const std::string kNul(1, '\0');

bool exists_in(const std::vector<int64_t>& sorted, int64_t after, int64_t through) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), after);
  return it != sorted.end() && *it <= through;
}

}  // namespace

// --- PrefixState -------------------------------------------------------------------------------

std::string PrefixState::describe() const {
  switch (kind) {
    case Kind::kUnknown: return "unknown";
    case Kind::kAbsent: return "absent";
    case Kind::kPresent: break;
  }
  return (value ? "'" + *value + "'" : std::string("(value unknown)")) + " rv " + std::to_string(mod_revision);
}

// --- PrefixTruth -------------------------------------------------------------------------------

void PrefixTruth::Touch::add(const Touch& t) {
  all = all || t.all;
  keys.insert(t.keys.begin(), t.keys.end());
}

PrefixTruth::PrefixTruth(const watch::Truth& truth, const RevisionClock& clock, const history::History& history,
                         std::string prefix)
    : prefix_(std::move(prefix)), prefix_end_(prefix_end(prefix_)), clock_(clock) {
  add_events(truth);
  add_reads(history);
  for (auto& [key, facts] : facts_) {
    // At one revision an event says more than a read (it names its source): it sorts last.
    std::stable_sort(facts.begin(), facts.end(), [](const Fact& a, const Fact& b) {
      return a.revision != b.revision ? a.revision < b.revision : !a.from_event && b.from_event;
    });
  }
  std::sort(reads_.begin(), reads_.end());
  reads_.erase(std::unique(reads_.begin(), reads_.end()), reads_.end());
  classify(truth, history);
}

bool PrefixTruth::contains(const std::string& key) const { return key.compare(0, prefix_.size(), prefix_) == 0; }

bool PrefixTruth::range_meets_prefix(const std::string& key, const std::string& range_end) const {
  if (range_end.empty()) return contains(key);
  if (range_end == kNul) return prefix_end_.empty() || key < prefix_end_;
  return range_end > prefix_ && (prefix_end_.empty() || key < prefix_end_);
}

bool PrefixTruth::range_covers_prefix(const std::string& key, const std::string& range_end) const {
  if (range_end.empty()) return false;
  const bool from_start = key <= prefix_ || (key == kNul && range_end == kNul);
  const bool to_end = range_end == kNul || (!prefix_end_.empty() && range_end >= prefix_end_);
  return from_start && to_end;
}

PrefixTruth::Touch PrefixTruth::touch_of(const etcdserverpb::ApiRequest& req) const {
  Touch t;
  if (req.has_put() && contains(req.put().key())) t.keys.insert(req.put().key());
  if (req.has_delete_range()) {
    const auto& d = req.delete_range();
    if (d.range_end().empty()) {
      if (contains(d.key())) t.keys.insert(d.key());
    } else if (range_meets_prefix(d.key(), d.range_end())) {
      t.all = true;
    }
  }
  if (req.has_txn()) {
    touch_of_ops(req.txn().success(), t);
    touch_of_ops(req.txn().failure(), t);
  }
  return t;
}

void PrefixTruth::touch_of_ops(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops,
                               Touch& out) const {
  for (const auto& op : ops) {
    etcdserverpb::ApiRequest one;
    if (op.has_request_put()) *one.mutable_put() = op.request_put();
    else if (op.has_request_delete_range()) *one.mutable_delete_range() = op.request_delete_range();
    else if (op.has_request_txn()) *one.mutable_txn() = op.request_txn();
    else continue;
    out.add(touch_of(one));
  }
}

void PrefixTruth::add_events(const watch::Truth& truth) {
  for (const auto& [revision, rev] : truth.revisions()) {
    for (const auto& [key, te] : rev.events) {
      if (!contains(key)) continue;
      PrefixEvent e;
      e.revision = revision;
      e.key = key;
      e.deleted = te.type == mvccpb::Event::DELETE;
      if (!e.deleted) e.value = te.value;
      e.truth = &te;
      events_[revision][key] = std::move(e);
      keys_.insert(key);
    }
  }
  for (const auto& [revision, by_key] : events_) {
    for (const auto& [key, e] : by_key) {
      facts_[key].push_back(Fact{revision, true, !e.deleted, revision, e.value, &e});
    }
  }
}

// An ok range over all of P (no limit cut, whole values) tells every key's state at its revision.
void PrefixTruth::add_reads(const history::History& history) {
  for (const auto& op : history.operations) {
    if (op.outcome != history::Outcome::kOk || !op.request.has_range() || !op.response.has_range()) continue;
    const auto& req = op.request.range();
    const auto& resp = op.response.range();
    if (!range_covers_prefix(req.key(), req.range_end())) continue;
    if ((req.limit() > 0 && resp.more()) || req.keys_only() || req.count_only()) continue;
    if (req.min_mod_revision() != 0 || req.max_mod_revision() != 0 || req.min_create_revision() != 0 ||
        req.max_create_revision() != 0)
      continue;
    const int64_t at = req.revision() > 0 ? req.revision() : resp.header().revision();
    if (at <= 0) continue;
    reads_.push_back(at);
    for (const auto& kv : resp.kvs()) {
      if (!contains(kv.key())) continue;
      facts_[kv.key()].push_back(Fact{at, false, true, kv.mod_revision(), kv.value(), nullptr});
      keys_.insert(kv.key());
      if (kv.lease() != 0) first_open_[kv.key()] = 2;
    }
  }
}

// Revisions at which a watch over all of P (no filters) showed it had delivered every P-event.
std::vector<std::pair<int64_t, int64_t>> PrefixTruth::covered_revisions(const history::History& history) const {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (const auto& w : history.watches) {
    for (const auto& seg : w.segments) {
      const auto& req = seg.request;
      if (req.filters_size() > 0 || !range_covers_prefix(req.key(), req.range_end())) continue;
      int64_t start = req.start_revision();
      int64_t through = 0;
      for (const auto& wr : seg.responses) {
        const auto& resp = wr.response;
        if (resp.created()) {
          if (start <= 0 && resp.header().revision() > 0) start = resp.header().revision() + 1;
          continue;
        }
        if (resp.canceled()) break;
        if (resp.events_size() == 0) {
          if (start > 0) through = std::max(through, resp.header().revision());
          continue;
        }
        int64_t low = INT64_MAX, high = 0;
        for (const auto& ev : resp.events()) {
          low = std::min(low, ev.kv().mod_revision());
          high = std::max(high, ev.kv().mod_revision());
        }
        if (start <= 0) start = low;
        // A fragment may stop in the middle of its last revision.
        through = std::max(through, resp.fragment() ? high - 1 : high);
      }
      const int64_t from = std::max<int64_t>(start, 2);
      if (start > 0 && from <= through) runs.emplace_back(from, through);
    }
  }
  std::sort(runs.begin(), runs.end());
  std::vector<std::pair<int64_t, int64_t>> merged;
  for (const auto& run : runs) {
    if (!merged.empty() && run.first <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, run.second);
    else
      merged.push_back(run);
  }
  return merged;
}

void PrefixTruth::open_from(const std::string& key, int64_t from) {
  auto [it, fresh] = first_open_.emplace(key, from);
  if (!fresh) it->second = std::min(it->second, from);
}

// Opens the keys whose changes the history cannot place: keys given a lease (a revocation or
// expiry may delete them at any revision), unknown writes (any revision after their invocation).
// Returns the ok writes the truth could not pin to their revision, by that revision.
std::map<int64_t, PrefixTruth::Touch> PrefixTruth::open_keys_of_leases_and_writes(const watch::Truth& truth,
                                                                                  const history::History& history) {
  // Keys ever given a lease: a revocation or expiry may delete them at any open revision.
  for (const auto& [revision, by_key] : events_) {
    for (const auto& [key, e] : by_key) {
      if (e.truth->lease && *e.truth->lease != 0) open_from(key, 2);
    }
  }
  // Ok writes the truth could not pin to their revision: only that revision may hold their changes.
  std::map<int64_t, Touch> unpinned;
  for (const auto& op : history.operations) {
    if (op.outcome == history::Outcome::kFailed) continue;
    each_put(op.request, [&](const etcdserverpb::PutRequest& p) {
      if (p.lease() != 0 && contains(p.key())) open_from(p.key(), 2);
    });
    if (!is_write(op.request)) continue;
    const Touch t = touch_of(op.request);
    if (!t.all && t.keys.empty()) continue;
    const int64_t r = op.outcome == history::Outcome::kOk && !op.response.has_error() ? write_revision(op) : 0;
    if (r > 0) {
      const watch::Revision* rev = truth.at(r);
      const bool pinned = rev != nullptr && rev->counted_by && rev->counted_by->kind == watch::Source::Kind::kOperation &&
                          rev->counted_by->id == op.id;
      if (!pinned) unpinned[r].add(t);
      continue;
    }
    // Unknown outcome: any revision made after it was invoked.
    const int64_t from = clock_.existed_before(op.invoke_ns) + 1;
    if (t.all) first_open_all_ = std::min(first_open_all_, from);
    for (const auto& k : t.keys) open_from(k, from);
  }
  return unpinned;
}

void PrefixTruth::classify(const watch::Truth& truth, const history::History& history) {
  int64_t highest = clock_.highest();
  if (!events_.empty()) highest = std::max(highest, events_.rbegin()->first);
  if (!reads_.empty()) highest = std::max(highest, reads_.back());
  if (highest > kRevisionsTrackedMax) {
    unknown_above_ = kRevisionsTrackedMax;
    highest = kRevisionsTrackedMax;
  }
  const std::map<int64_t, Touch> unpinned = open_keys_of_leases_and_writes(truth, history);
  auto doubt = [&](int64_t r, const Touch& t) {
    if (t.all) doubt_all_.push_back(r);
    for (const auto& k : t.keys) doubt_key_[k].push_back(r);
  };
  const auto covered = covered_revisions(history);
  auto cover = covered.begin();
  auto mark_open = [&](int64_t r) {
    if (!open_.empty() && open_.back().second == r - 1)
      open_.back().second = r;
    else
      open_.emplace_back(r, r);
  };
  for (int64_t r = 2; r <= highest; ++r) {
    while (cover != covered.end() && cover->second < r) ++cover;
    if (cover != covered.end() && cover->first <= r) {
      r = std::min(cover->second, highest);  // the whole run is known
      continue;
    }
    const watch::Revision* rev = truth.at(r);
    if (rev != nullptr && rev->complete()) continue;
    if (rev != nullptr && rev->counted_by && rev->counted_by->kind == watch::Source::Kind::kOperation) {
      // A known write whose events are not all known: only what its request could touch.
      const uint64_t id = rev->counted_by->id;
      Touch all;
      all.all = true;  // operations are by id; if not, anything may have changed
      const bool by_id = id < history.operations.size() && history.operations[id].id == id;
      doubt(r, by_id ? touch_of(history.operations[id].request) : all);
      continue;
    }
    mark_open(r);
    if (auto it = unpinned.find(r); it != unpinned.end()) doubt(r, it->second);
  }
  // Whatever came after every revision the history shows: made by unknown writes or leases only.
  mark_open(highest + 1);
}

bool PrefixTruth::uncertain_between(const std::string& key, int64_t after, int64_t through) const {
  if (through <= after) return false;
  if (through > unknown_above_) return true;
  int64_t from = first_open_all_;
  if (auto it = first_open_.find(key); it != first_open_.end()) from = std::min(from, it->second);
  if (from != INT64_MAX) {
    // The first open run ending after the later of `after` and `from - 1` ...
    const int64_t lo = std::max(after, from - 1);
    auto run = std::upper_bound(open_.begin(), open_.end(), lo,
                                [](int64_t v, const std::pair<int64_t, int64_t>& x) { return v < x.second; });
    // ... holds a revision in (lo, through].
    if (run != open_.end() && std::max(run->first, lo + 1) <= through) return true;
  }
  if (exists_in(doubt_all_, after, through)) return true;
  auto it = doubt_key_.find(key);
  return it != doubt_key_.end() && exists_in(it->second, after, through);
}

const PrefixEvent* PrefixTruth::event(int64_t revision, const std::string& key) const {
  auto it = events_.find(revision);
  if (it == events_.end()) return nullptr;
  auto e = it->second.find(key);
  return e == it->second.end() ? nullptr : &e->second;
}

bool PrefixTruth::may_have_unknown_event(const std::string& key, int64_t revision) const {
  if (event(revision, key) != nullptr) return false;
  return uncertain_between(key, revision - 1, revision);
}

PrefixState PrefixTruth::state(const std::string& key, int64_t revision) const {
  PrefixState s;
  s.kind = PrefixState::Kind::kAbsent;
  s.since = 1;
  if (revision <= 1) return s;
  const Fact* fact = nullptr;
  if (auto it = facts_.find(key); it != facts_.end()) {
    const auto& facts = it->second;
    auto f = std::upper_bound(facts.begin(), facts.end(), revision,
                              [](int64_t r, const Fact& x) { return r < x.revision; });
    if (f != facts.begin()) fact = &*std::prev(f);
  }
  auto read = std::upper_bound(reads_.begin(), reads_.end(), revision);
  const int64_t read_at = read == reads_.begin() ? 0 : *std::prev(read);
  if (fact != nullptr && fact->revision >= read_at) {
    s.since = fact->revision;
    s.event = fact->event;
    if (fact->present) {
      s.kind = PrefixState::Kind::kPresent;
      s.mod_revision = fact->mod_revision;
      s.value = fact->value;
    }
  } else if (read_at > 0) {
    s.since = read_at;  // a read of P without the key: absent there
  }
  if (uncertain_between(key, s.since, revision)) {
    PrefixState unknown;
    unknown.since = s.since;
    return unknown;
  }
  return s;
}

const PrefixEvent* PrefixTruth::last_event(const std::string& key) const {
  auto it = facts_.find(key);
  if (it == facts_.end()) return nullptr;
  for (auto f = it->second.rbegin(); f != it->second.rend(); ++f)
    if (f->from_event) return f->event;
  return nullptr;
}

}  // namespace dst::checker::kube

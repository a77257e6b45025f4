#include "checker/kube/prefix_truth.h"
#include "base/key_range.h"

#include <algorithm>
#include <functional>
#include <utility>


namespace dst::checker::kube {

namespace {

// etcd's prefix range end (base/key_range.h), held here as empty for "no bound" where etcd says "\0".
std::string prefix_end(const std::string& p) {
  std::string end = prefix_range_end(p);
  return end == std::string(1, '\0') ? std::string() : end;
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
                         const PrefixIndex& index, std::string prefix)
    : prefix_(std::move(prefix)), prefix_end_(prefix_end(prefix_)), clock_(clock) {
  add_events(index);
  add_reads(index);
  for (auto& [key, facts] : facts_) {
    // At one revision an event says more than a read (it names its source): it sorts last.
    std::stable_sort(facts.begin(), facts.end(), [](const Fact& a, const Fact& b) {
      return a.revision != b.revision ? a.revision < b.revision : !a.from_event && b.from_event;
    });
  }
  std::sort(reads_.begin(), reads_.end());
  reads_.erase(std::unique(reads_.begin(), reads_.end()), reads_.end());
  classify(truth, history, index);
}

template <typename T, typename KeyOf>
std::pair<typename std::vector<T>::const_iterator, typename std::vector<T>::const_iterator>
PrefixTruth::keys_in_prefix(const std::vector<T>& sorted, KeyOf key_of) const {
  auto first = std::lower_bound(sorted.begin(), sorted.end(), prefix_,
                                [&](const T& x, const std::string& p) { return key_of(x) < p; });
  auto last = first;
  while (last != sorted.end() && contains(key_of(*last))) ++last;
  return {first, last};
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
  if (req.has_put()) touch_put(req.put(), t);
  if (req.has_delete_range()) touch_delete(req.delete_range(), t);
  if (req.has_txn()) touch_txn(req.txn(), t);
  return t;
}

void PrefixTruth::touch_put(const etcdserverpb::PutRequest& put, Touch& out) const {
  if (contains(put.key())) out.keys.insert(put.key());
}

void PrefixTruth::touch_delete(const etcdserverpb::DeleteRangeRequest& del, Touch& out) const {
  if (del.range_end().empty()) {
    if (contains(del.key())) out.keys.insert(del.key());
  } else if (range_meets_prefix(del.key(), del.range_end())) {
    out.all = true;
  }
}

void PrefixTruth::touch_txn(const etcdserverpb::TxnRequest& txn, Touch& out) const {
  touch_of_ops(txn.success(), out);
  touch_of_ops(txn.failure(), out);
}

void PrefixTruth::touch_of_ops(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops,
                               Touch& out) const {
  for (const auto& op : ops) {
    if (op.has_request_put()) touch_put(op.request_put(), out);
    if (op.has_request_delete_range()) touch_delete(op.request_delete_range(), out);
    if (op.has_request_txn()) touch_txn(op.request_txn(), out);
  }
}

void PrefixTruth::add_events(const PrefixIndex& index) {
  const auto [first, last] =
      keys_in_prefix(index.events(), [](const PrefixIndex::KeyedEvent& e) -> const std::string& { return *e.key; });
  for (auto it = first; it != last; ++it) {
    const watch::TruthEvent& te = *it->event;
    PrefixEvent e;
    e.revision = it->revision;
    e.key = *it->key;
    e.deleted = te.type == mvccpb::Event::DELETE;
    if (!e.deleted) e.value = te.value;
    e.truth = &te;
    keys_.insert(e.key);
    events_[it->revision][*it->key] = std::move(e);
  }
  for (const auto& [revision, by_key] : events_) {
    for (const auto& [key, e] : by_key) {
      facts_[key].push_back(Fact{revision, true, !e.deleted, revision, e.value, &e});
    }
  }
}

// An ok range over all of P (no limit cut, whole values) tells every key's state at its revision.
void PrefixTruth::add_reads(const PrefixIndex& index) {
  for (const auto& read : index.reads()) {
    if (range_covers_prefix(read.key, read.range_end)) add_read(read);
  }
}

void PrefixTruth::add_read(const PrefixIndex::CompleteRead& read) {
  reads_.push_back(read.at);
  const auto& kvs = read.response->kvs();
  auto first = kvs.begin();
  if (read.sorted) {
    first = std::lower_bound(kvs.begin(), kvs.end(), prefix_,
                             [](const mvccpb::KeyValue& kv, const std::string& p) { return kv.key() < p; });
  }
  for (auto kv = first; kv != kvs.end(); ++kv) {
    if (!contains(kv->key())) {
      if (read.sorted) break;  // past P
      continue;
    }
    facts_[kv->key()].push_back(Fact{read.at, false, true, kv->mod_revision(), kv->value(), nullptr});
    keys_.insert(kv->key());
    if (kv->lease() != 0) first_open_[kv->key()] = 2;
  }
}

// Revisions at which a watch over all of P (no filters) showed it had delivered every P-event.
std::vector<std::pair<int64_t, int64_t>> PrefixTruth::covered_revisions(const PrefixIndex& index) const {
  std::vector<std::pair<int64_t, int64_t>> runs;
  for (const auto& run : index.watch_runs()) {
    if (range_covers_prefix(run.key, run.range_end)) runs.emplace_back(run.from, run.through);
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
std::map<int64_t, PrefixTruth::Touch> PrefixTruth::open_keys_of_leases_and_writes(const PrefixIndex& index) {
  // Keys ever given a lease: a revocation or expiry may delete them at any open revision.
  for (const auto& [revision, by_key] : events_) {
    for (const auto& [key, e] : by_key) {
      if (e.truth->lease && *e.truth->lease != 0) open_from(key, 2);
    }
  }
  const auto [lease_first, lease_last] = keys_in_prefix(index.lease_keys(), [](const std::string& k) -> const std::string& { return k; });
  for (auto it = lease_first; it != lease_last; ++it) open_from(*it, 2);
  // Ok writes the truth could not pin to their revision: only that revision may hold their changes.
  // Unknown outcomes: any revision made after they were invoked. `key` nullptr: all of P.
  std::map<int64_t, Touch> unpinned;
  auto touched = [&](const PrefixIndex::Write& w, const std::string* key) {
    if (w.revision > 0) {
      if (w.pinned) return;
      Touch& t = unpinned[w.revision];
      if (key != nullptr) t.keys.insert(*key);
      else t.all = true;
    } else if (key != nullptr) {
      open_from(*key, w.open_from);
    } else {
      first_open_all_ = std::min(first_open_all_, w.open_from);
    }
  };
  const auto [point_first, point_last] =
      keys_in_prefix(index.point_keys(), [](const std::pair<std::string, uint32_t>& p) -> const std::string& { return p.first; });
  for (auto it = point_first; it != point_last; ++it) touched(index.writes()[it->second], &it->first);
  for (const uint32_t w : index.range_writes()) {
    const auto& ranges = index.writes()[w].ranges;
    if (std::any_of(ranges.begin(), ranges.end(), [&](const auto& r) { return range_meets_prefix(r.first, r.second); }))
      touched(index.writes()[w], nullptr);
  }
  return unpinned;
}

void PrefixTruth::classify(const watch::Truth& truth, const history::History& history, const PrefixIndex& index) {
  int64_t highest = clock_.highest();
  if (!events_.empty()) highest = std::max(highest, events_.rbegin()->first);
  if (!reads_.empty()) highest = std::max(highest, reads_.back());
  if (highest > kRevisionsTrackedMax) {
    unknown_above_ = kRevisionsTrackedMax;
    highest = kRevisionsTrackedMax;
  }
  const std::map<int64_t, Touch> unpinned = open_keys_of_leases_and_writes(index);
  auto doubt = [&](int64_t r, const Touch& t) {
    if (t.all) doubt_all_.push_back(r);
    for (const auto& k : t.keys) doubt_key_[k].push_back(r);
  };
  const auto covered = covered_revisions(index);
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

#include "checker/watch/truth.h"

#include <algorithm>
#include <set>
#include <utility>

#include "base/assert.h"

namespace dst::checker::watch {

namespace {

using etcdserverpb::RequestOp;
using etcdserverpb::ResponseOp;

KeyState present_from(const mvccpb::KeyValue& kv) {
  KeyState s;
  s.kind = KeyState::Kind::kPresent;
  s.mod_revision = kv.mod_revision();
  s.value = kv.value();
  s.lease = kv.lease();
  s.create_revision = kv.create_revision();
  s.version = kv.version();
  return s;
}

KeyState absent() {
  KeyState s;
  s.kind = KeyState::Kind::kAbsent;
  return s;
}

// The events one write (or one txn branch, recursively) made, and how many there were.
struct WriteEffect {
  std::vector<TruthEvent> events;
  int64_t count = 0;
};

void add_put(const etcdserverpb::PutRequest& req, const etcdserverpb::PutResponse* resp, WriteEffect& out) {
  TruthEvent e;
  e.type = mvccpb::Event::PUT;
  e.key = req.key();
  if (!req.ignore_value()) e.value = req.value();
  if (!req.ignore_lease()) e.lease = req.lease();
  if (req.prev_kv() && resp != nullptr)
    e.before_from_response = resp->has_prev_kv() ? present_from(resp->prev_kv()) : absent();
  out.events.push_back(std::move(e));
  out.count += 1;
}

void add_delete(const etcdserverpb::DeleteRangeRequest& req, const etcdserverpb::DeleteRangeResponse& resp,
                WriteEffect& out) {
  out.count += resp.deleted();
  if (resp.deleted() <= 0) return;
  auto deleted = [&](const std::string& key) {
    TruthEvent e;
    e.type = mvccpb::Event::DELETE;
    e.key = key;
    return e;
  };
  if (req.prev_kv() && resp.prev_kvs_size() == resp.deleted()) {
    for (const auto& kv : resp.prev_kvs()) {
      TruthEvent e = deleted(kv.key());
      e.before_from_response = present_from(kv);
      out.events.push_back(std::move(e));
    }
  } else if (req.range_end().empty() && resp.deleted() == 1) {
    out.events.push_back(deleted(req.key()));
  }
}

// False if the response does not fit the request (then nothing is learned from it).
bool add_txn(const etcdserverpb::TxnRequest& req, const etcdserverpb::TxnResponse& resp, WriteEffect& out) {
  const auto& branch = resp.succeeded() ? req.success() : req.failure();
  if (branch.size() != resp.responses_size()) return false;
  for (int i = 0; i < branch.size(); ++i) {
    const RequestOp& op = branch[i];
    const ResponseOp& r = resp.responses(i);
    if (op.has_request_put()) {
      if (!r.has_response_put()) return false;
      add_put(op.request_put(), &r.response_put(), out);
    } else if (op.has_request_delete_range()) {
      if (!r.has_response_delete_range()) return false;
      add_delete(op.request_delete_range(), r.response_delete_range(), out);
    } else if (op.has_request_txn()) {
      if (!r.has_response_txn() || !add_txn(op.request_txn(), r.response_txn(), out)) return false;
    }
  }
  return true;
}

bool covers_every_key(const etcdserverpb::WatchCreateRequest& req) {
  return req.filters_size() == 0 && req.range_end() == std::string(1, '\0') &&
         (req.key().empty() || req.key() == std::string(1, '\0'));
}

bool same(const std::optional<std::string>& a, const std::optional<std::string>& b) { return !a || !b || *a == *b; }
bool same(const std::optional<int64_t>& a, const std::optional<int64_t>& b) { return !a || !b || *a == *b; }

}  // namespace

std::string Source::describe() const {
  if (kind == Kind::kOperation)
    return "op " + std::to_string(id) + " (client " + std::to_string(client) + ", member " + std::to_string(member) +
           ") returned " + format_ns(at_ns);
  return "watch " + std::to_string(id) + " (client " + std::to_string(client) + ") seg " + std::to_string(segment) +
         " on member " + std::to_string(member) + " resp " + std::to_string(response) + " at " + format_ns(at_ns);
}

bool KeyRange::contains(const std::string& k) const {
  if (range_end.empty()) return k == key;
  if (range_end == std::string(1, '\0')) return k >= key;
  return k >= key && k < range_end;
}

const Revision* Truth::at(int64_t revision) const {
  auto it = revisions_.find(revision);
  return it == revisions_.end() ? nullptr : &it->second;
}

int64_t Truth::compaction_revision_max_before(int64_t at_ns) const {
  int64_t max = 0;
  for (const auto& [invoke_ns, revision] : compactions_)
    if (invoke_ns < at_ns) max = std::max(max, revision);
  return max;
}

Truth Truth::build(const history::History& history, std::vector<Violation>& conflicts, size_t conflicts_max,
                   size_t& conflicts_total, bool partial_kvs) {
  Truth t;
  t.partial_kvs_ = partial_kvs;
  t.conflicts_ = &conflicts;
  t.conflicts_max_ = conflicts_max;
  t.conflicts_total_ = &conflicts_total;
  for (const auto& op : history.operations) t.add_operation(op);
  // A restore with --mark-compacted compacted the new cluster at its first revision R + B; in a
  // timeline of restore_epochs.h (where the restore's revision is the snapshot's R) that keeps
  // R + 1 on.
  for (const auto& r : history.restores)
    if (r.bump > 0) t.compactions_.emplace_back(r.restore_ns, r.revision + 1);
  for (const auto& w : history.watches) t.add_watch(w);
  t.check_counts();
  t.replay();
  t.conflicts_ = nullptr;
  t.conflicts_total_ = nullptr;
  return t;
}

void Truth::conflict(int64_t revision, const Source& a, const Source& b, std::string what) {
  ++*conflicts_total_;
  if (conflicts_->size() >= conflicts_max_) return;
  Violation v;
  v.guarantee = Guarantee::kConsistent;
  const Source& blamed = b.kind == Source::Kind::kWatch ? b : a;
  if (blamed.kind == Source::Kind::kWatch) v.watch_id = blamed.id;
  v.client = blamed.client;
  v.member = blamed.member;
  v.at_ns = blamed.at_ns;
  v.what = "revision " + std::to_string(revision) + ": " + what;
  v.evidence = {a.describe(), b.describe()};
  conflicts_->push_back(std::move(v));
}

void Truth::add_operation(const history::Operation& op) {
  const auto& req = op.request;
  if (req.has_compaction() && op.outcome != history::Outcome::kFailed) {
    compactions_.emplace_back(op.invoke_ns, req.compaction().revision());
  }
  if (op.outcome != history::Outcome::kOk || op.response.has_error()) return;
  WriteEffect effect;
  int64_t revision = 0;
  if (req.has_put() && op.response.has_put()) {
    add_put(req.put(), &op.response.put(), effect);
    revision = op.response.put().header().revision();
  } else if (req.has_delete_range() && op.response.has_delete_range()) {
    add_delete(req.delete_range(), op.response.delete_range(), effect);
    revision = op.response.delete_range().header().revision();
  } else if (req.has_txn() && op.response.has_txn()) {
    if (!add_txn(req.txn(), op.response.txn(), effect)) return;
    revision = op.response.txn().header().revision();
  } else {
    return;
  }
  // A write that changed nothing (a delete of absent keys, a read-only txn) makes no revision.
  if (effect.count == 0 || revision <= 0) return;
  Source source;
  source.kind = Source::Kind::kOperation;
  source.id = op.id;
  source.client = op.client;
  source.member = op.member;
  source.at_ns = op.return_ns;
  count_events(revision, effect.count, source);
  for (auto& e : effect.events) {
    e.source = source;
    add_event(revision, std::move(e));
  }
}

void Truth::add_watch(const history::Watch& watch) {
  for (size_t s = 0; s < watch.segments.size(); ++s) {
    const auto& seg = watch.segments[s];
    // A watch of every key without filters tells how many events each revision it delivered has.
    const bool counts = covers_every_key(seg.request);
    std::map<int64_t, std::set<std::string>> keys_by_revision;
    Source source;
    source.kind = Source::Kind::kWatch;
    source.id = watch.id;
    source.client = watch.client;
    source.member = seg.member;
    source.segment = s;
    for (size_t r = 0; r < seg.responses.size(); ++r) {
      const auto& resp = seg.responses[r];
      source.response = r;
      source.at_ns = resp.at_ns;
      for (const auto& ev : resp.response.events()) {
        const int64_t revision = ev.kv().mod_revision();
        if (revision <= 0) continue;  // malformed; the per-watch checks report it
        if (counts) keys_by_revision[revision].insert(ev.kv().key());
        if (repeats_known_event(revision, ev)) continue;
        TruthEvent e;
        e.type = ev.type();
        e.key = ev.kv().key();
        if (ev.type() == mvccpb::Event::PUT) {
          e.value = ev.kv().value();
          if (!partial_kvs_) e.lease = ev.kv().lease();
          if (!partial_kvs_ || ev.kv().create_revision() != 0) e.create_revision = ev.kv().create_revision();
          if (!partial_kvs_ || ev.kv().version() != 0) e.version = ev.kv().version();
        }
        e.source = source;
        add_event(revision, std::move(e));
      }
    }
    if (!counts) continue;
    source.response = 0;
    for (const auto& [revision, keys] : keys_by_revision) {
      Revision& rev = revisions_[revision];
      if (rev.events_expected >= 0) continue;  // a write's count is better evidence; reliable judges the watch
      rev.events_expected = static_cast<int64_t>(keys.size());
      rev.counted_by = source;
    }
  }
}

// True when add_event would change nothing: the revision already holds this key's event with
// every field this one tells, equal (most events of a fan-out are one event seen by many watches).
bool Truth::repeats_known_event(int64_t revision, const mvccpb::Event& ev) const {
  auto rev = revisions_.find(revision);
  if (rev == revisions_.end()) return false;
  auto it = rev->second.events.find(ev.kv().key());
  if (it == rev->second.events.end()) return false;
  const TruthEvent& known = it->second;
  if (known.type != ev.type()) return false;
  if (ev.type() != mvccpb::Event::PUT) return true;
  const mvccpb::KeyValue& kv = ev.kv();
  return known.value == kv.value() && known.lease == kv.lease() && known.create_revision == kv.create_revision() &&
         known.version == kv.version();
}

void Truth::count_events(int64_t revision, int64_t count, const Source& source) {
  Revision& rev = revisions_[revision];
  if (rev.counted_by && rev.counted_by->kind == Source::Kind::kOperation) {
    conflict(revision, *rev.counted_by, source, "two writes were answered with the same revision");
    return;
  }
  rev.events_expected = count;
  rev.counted_by = source;
}

void Truth::add_event(int64_t revision, TruthEvent event) {
  Revision& rev = revisions_[revision];
  auto it = rev.events.find(event.key);
  if (it == rev.events.end()) {
    if (event.create_revision) event.meta_source = event.source;
    std::string key = event.key;
    rev.events.emplace(std::move(key), std::move(event));
    return;
  }
  TruthEvent& known = it->second;
  std::string differs;
  if (known.type != event.type)
    differs = "type";
  else if (!same(known.value, event.value))
    differs = "value";
  else if (!same(known.lease, event.lease))
    differs = "lease";
  else if (!same(known.create_revision, event.create_revision))
    differs = "create_revision";
  else if (!same(known.version, event.version))
    differs = "version";
  if (!differs.empty()) {
    const bool meta = differs == "create_revision" || differs == "version";
    const Source& first = meta && known.meta_source ? *known.meta_source : known.source;
    conflict(revision, first, event.source,
             "the sources disagree about the " + differs + " of key '" + event.key + "'");
    return;
  }
  if (!known.value) known.value = event.value;
  if (!known.lease) known.lease = event.lease;
  if (!known.create_revision && event.create_revision) {
    known.create_revision = event.create_revision;
    known.meta_source = event.source;
  }
  if (!known.version) known.version = event.version;
  if (!known.before_from_response) known.before_from_response = event.before_from_response;
}

void Truth::check_counts() {
  for (const auto& [revision, rev] : revisions_) {
    if (!rev.counted_by || rev.counted_by->kind != Source::Kind::kOperation) continue;
    if (static_cast<int64_t>(rev.events.size()) <= rev.events_expected) continue;
    for (const auto& [key, e] : rev.events) {
      if (e.source.kind != Source::Kind::kWatch) continue;
      conflict(revision, *rev.counted_by, e.source,
               "the write made " + std::to_string(rev.events_expected) + " event(s) but " +
                   std::to_string(rev.events.size()) + " are known; '" + key + "' is one more than it made");
      break;
    }
  }
}

void Truth::replay() {
  struct Entry {
    KeyState state;
    uint64_t epoch = 0;
  };
  std::map<std::string, Entry> keys;
  // Every revision that is missing or not completely known starts a new epoch: states set before
  // it may have been changed by its unknown events. Keys never written are absent in epoch 0 (the
  // store starts empty at revision 1).
  uint64_t epoch = 0;
  auto lookup = [&](const std::string& key) {
    auto it = keys.find(key);
    if (it == keys.end()) return epoch == 0 ? absent() : KeyState{};
    return it->second.epoch == epoch ? it->second.state : KeyState{};
  };
  int64_t previous = 1;
  for (auto& [revision, rev] : revisions_) {
    if (revision != previous + 1) ++epoch;
    previous = revision;
    for (auto& [key, e] : rev.events) {
      e.before = lookup(key);
      if (e.before.kind == KeyState::Kind::kUnknown && e.before_from_response) e.before = *e.before_from_response;
      if (e.type != mvccpb::Event::PUT || e.before.kind == KeyState::Kind::kUnknown) continue;
      // What the replay knows wins over what a watch said: the per-watch checks compare against it.
      const bool existed = e.before.kind == KeyState::Kind::kPresent;
      if (!existed) {
        e.create_revision = revision;
        e.version = 1;
      } else {
        if (e.before.create_revision) e.create_revision = e.before.create_revision;
        if (e.before.version) e.version = *e.before.version + 1;
        if (!e.value) e.value = e.before.value;
        if (!e.lease) e.lease = e.before.lease;
      }
    }
    if (!rev.complete()) ++epoch;
    for (const auto& [key, e] : rev.events) {
      Entry& entry = keys[key];
      entry.epoch = epoch;
      if (e.type == mvccpb::Event::DELETE) {
        entry.state = absent();
        continue;
      }
      entry.state = KeyState{KeyState::Kind::kPresent, revision, e.value, e.lease, e.create_revision, e.version};
    }
  }
}

std::string describe_event(const mvccpb::Event& event) {
  const auto& kv = event.kv();
  std::string s = event.type() == mvccpb::Event::PUT ? "PUT " : "DELETE ";
  s += "'" + kv.key() + "'";
  if (event.type() == mvccpb::Event::PUT) {
    s += "='" + kv.value() + "' @" + std::to_string(kv.mod_revision()) + " (create " +
         std::to_string(kv.create_revision()) + ", version " + std::to_string(kv.version());
    if (kv.lease() != 0) s += ", lease " + std::to_string(kv.lease());
    s += ")";
  } else {
    s += " @" + std::to_string(kv.mod_revision());
  }
  if (event.has_prev_kv()) {
    s += " prev '" + event.prev_kv().value() + "' @" + std::to_string(event.prev_kv().mod_revision());
  }
  return s;
}

}  // namespace dst::checker::watch

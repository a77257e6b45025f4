// The truth timeline of the etcd checker: which write made each revision and what it changed,
// from acknowledged writes (their response revision), watch events and the key-values responses
// returned; replayed in revision order into the Timeline (every key's state at every revision).
#include <algorithm>
#include <functional>

#include "checker/linearizability/etcd_internal.h"

namespace dst::checker::etcd {

namespace {

using etcdserverpb::ApiRequest;
using history::Outcome;

// Whether an acknowledged txn changed anything (and so made a new revision): its executed branch
// holds a put, or a delete that deleted something, here or in a nested txn's executed branch.
bool txn_changed(const etcdserverpb::TxnRequest& req, const etcdserverpb::TxnResponse& resp) {
  const auto& ops = resp.succeeded() ? req.success() : req.failure();
  for (int i = 0; i < ops.size(); ++i) {
    if (ops[i].has_request_put()) return true;
    if (i >= resp.responses_size()) continue;
    const auto& r = resp.responses(i);
    if (ops[i].has_request_delete_range() && r.response_delete_range().deleted() > 0) return true;
    if (ops[i].has_request_txn() && r.has_response_txn() && txn_changed(ops[i].request_txn(), r.response_txn()))
      return true;
  }
  return false;
}

bool can_write(const ApiRequest& r) {
  switch (r.request_case()) {
    case ApiRequest::kPut:
    case ApiRequest::kDeleteRange:
    case ApiRequest::kLeaseRevoke: return true;
    case ApiRequest::kTxn: {
      for (const auto* b : {&r.txn().success(), &r.txn().failure()})
        for (const auto& op : *b)
          if (!op.has_request_range()) return true;
      return false;
    }
    default: return false;
  }
}

void put_values(const etcdserverpb::TxnRequest& t, std::vector<std::string>* out) {
  for (const auto* b : {&t.success(), &t.failure()})
    for (const auto& op : *b) {
      if (op.has_request_put()) out->push_back(op.request_put().value());
      if (op.has_request_txn()) put_values(op.request_txn(), out);
    }
}

std::string seconds(int64_t ns) { return std::to_string(static_cast<double>(ns) / 1e9) + "s"; }

}  // namespace

Fact observed_put(const mvccpb::KeyValue& kv, bool partial_kvs, std::string source, uint64_t op_id) {
  Fact f{false, kv_from_proto(kv), true, std::move(source), op_id};
  if (!partial_kvs) return f;
  f.lease_known = false;
  f.kv.lease = 0;
  f.full = kv.create_revision() != 0 && kv.version() != 0;
  return f;
}

bool fact_fits(const Fact& f, const Slot& s) {
  if (s.uncertain()) return true;
  if (f.is_delete) return !s.present();
  if (!s.present()) return false;
  if (f.kv.value != s.kv.value || f.kv.mod_revision != s.kv.mod_revision) return false;
  if (f.lease_known && f.kv.lease != s.kv.lease) return false;
  if ((f.full || f.kv.version != 0) && f.kv.version != s.kv.version) return false;
  return !f.full || f.kv.create_revision == s.kv.create_revision;
}

namespace {

std::string fact_text(const std::string& key, const Fact& f) {
  if (f.is_delete) return "DELETE " + key + " seen by " + f.source;
  return "PUT " + key + " = " + describe_slot(Slot::present_kv(f.kv)) + " seen by " + f.source;
}

}  // namespace

void Checker::index_operations() {
  const auto& ops = h_.operations;
  claims_.assign(ops.size(), false);
  position_.assign(ops.size(), 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    const history::Operation& op = ops[i];
    std::vector<std::string> values;
    if (op.request.has_put()) values.push_back(op.request.put().value());
    if (op.request.has_txn()) put_values(op.request.txn(), &values);
    for (std::string& v : values) {
      auto& w = writers_of_value_[v];
      if (w.empty() || w.back() != i) w.push_back(i);
    }
    if (op.outcome == Outcome::kUnknown && can_write(op.request)) unknown_writes_.push_back(i);
    if (op.outcome != Outcome::kOk) continue;
    const int64_t rev = history::response_revision(op.response);
    position_[i] = rev;
    if (rev > max_rev_) {
      max_rev_ = rev;
      max_rev_source_ = op_line(i);
    }
    const auto& req = op.request;
    bool claims = req.has_put() || (req.has_delete_range() && op.response.delete_range().deleted() > 0) ||
                  (req.has_txn() && txn_changed(req.txn(), op.response.txn()));
    claims_[i] = claims;
    if (claims) {
      auto [it, fresh] = claimant_.emplace(rev, i);
      if (!fresh)
        violation("duplicate-revision", "two acknowledged writes answered with the same revision", rev,
                  {it->second, i});
    }
    if (req.has_lease_revoke()) {
      revokes_at_[rev].push_back(i);
      auto [it, fresh] = revoked_.emplace(req.lease_revoke().id(), std::make_pair(rev, i));
      if (!fresh && rev < it->second.first) it->second = {rev, i};
    }
  }
  out_.stats.unknown_writes = unknown_writes_.size();
}

// One observation of `key` at `rev` (a returned key-value, a watch event): the first one is the
// fact; later ones must agree with it, or the sources disagree.
void Checker::add_fact(int64_t rev, const std::string& key, Fact f) {
  if (rev < 2) return;
  ++steps_;
  if (rev > max_rev_) {
    max_rev_ = rev;
    max_rev_source_ = f.source;
  }
  if (!f.is_delete) value_seen_at_.emplace(f.kv.value, rev);
  auto& slot = facts_[rev];
  auto it = slot.find(key);
  if (it == slot.end()) {
    slot.emplace(key, std::move(f));
    return;
  }
  Fact& old = it->second;
  const bool leases_agree = !old.lease_known || !f.lease_known || old.kv.lease == f.kv.lease;
  const bool versions_agree = old.kv.version == 0 || f.kv.version == 0 || old.kv.version == f.kv.version;
  const bool agree = old.is_delete == f.is_delete &&
                     (f.is_delete || (old.kv.value == f.kv.value && leases_agree && versions_agree &&
                                      (!old.full || !f.full || old.kv == f.kv)));
  // A returned key-value that disagrees with a watch is the returning operation's fault, reported
  // by that operation's own check (read-result, write-response): keep the watch's fact.
  if (!agree && (old.op_id != UINT64_MAX || f.op_id != UINT64_MAX)) {
    if (old.op_id != UINT64_MAX && f.op_id == UINT64_MAX) old = std::move(f);
    return;
  }
  if (!agree) {
    std::vector<size_t> ops;
    for (uint64_t id : {old.op_id, f.op_id})
      if (id != UINT64_MAX) ops.push_back(static_cast<size_t>(id));
    violation("sources-disagree", "two observations of key " + key + " at one revision differ", rev, ops,
              {fact_text(key, old), fact_text(key, f)});
    return;
  }
  if (!old.full && f.full) old = std::move(f);
}

void Checker::collect_facts() {
  auto add = [&](int64_t rev, const std::string& key, Fact f) { add_fact(rev, key, std::move(f)); };
  auto add_kv = [&](const mvccpb::KeyValue& kv, const std::string& source, uint64_t op_id) {
    add(kv.mod_revision(), kv.key(), observed_put(kv, options_.partial_kvs, source, op_id));
  };
  // Key-values in responses: ranges (not keys-only), put prev_kv, delete prev_kvs, nested in txns.
  for (size_t i = 0; i < h_.operations.size(); ++i) {
    const history::Operation& op = h_.operations[i];
    if (op.outcome != Outcome::kOk) continue;
    const std::string src = "op " + std::to_string(op.id);
    auto from_range = [&](const etcdserverpb::RangeRequest& q, const etcdserverpb::RangeResponse& r) {
      if (q.keys_only()) return;
      for (const auto& kv : r.kvs()) add_kv(kv, src, op.id);
    };
    std::function<void(const etcdserverpb::TxnRequest&, const etcdserverpb::TxnResponse&)> from_txn =
        [&](const etcdserverpb::TxnRequest& q, const etcdserverpb::TxnResponse& r) {
          const auto& ops = r.succeeded() ? q.success() : q.failure();
          for (int j = 0; j < ops.size() && j < r.responses_size(); ++j) {
            const auto& rr = r.responses(j);
            if (ops[j].has_request_range() && rr.has_response_range()) from_range(ops[j].request_range(), rr.response_range());
            if (rr.has_response_put() && rr.response_put().has_prev_kv()) add_kv(rr.response_put().prev_kv(), src, op.id);
            if (rr.has_response_delete_range())
              for (const auto& kv : rr.response_delete_range().prev_kvs()) add_kv(kv, src, op.id);
            if (ops[j].has_request_txn() && rr.has_response_txn()) from_txn(ops[j].request_txn(), rr.response_txn());
          }
        };
    if (op.request.has_range() && op.response.has_range()) from_range(op.request.range(), op.response.range());
    if (op.response.has_put() && op.response.put().has_prev_kv()) add_kv(op.response.put().prev_kv(), src, op.id);
    if (op.response.has_delete_range())
      for (const auto& kv : op.response.delete_range().prev_kvs()) add_kv(kv, src, op.id);
    if (op.request.has_txn() && op.response.has_txn()) from_txn(op.request.txn(), op.response.txn());
  }
  // Watch events (and their prev_kv).
  for (const history::Watch& w : h_.watches)
    for (size_t s = 0; s < w.segments.size(); ++s)
      for (const history::WatchResponse& wr : w.segments[s].responses) {
        std::string src;
        const std::function<const std::string&()> source = [&]() -> const std::string& {
          if (src.empty()) src = "watch " + std::to_string(w.id) + " seg " + std::to_string(s) + " at " + seconds(wr.at_ns);
          return src;
        };
        for (const mvccpb::Event& e : wr.response.events()) {
          add_watched(e.kv(), e.type() == mvccpb::Event::DELETE, source);
          if (e.has_prev_kv() && e.prev_kv().mod_revision() > 0) add_watched(e.prev_kv(), false, source);
        }
      }
}

void Checker::add_watched(const mvccpb::KeyValue& kv, bool is_delete, const std::function<const std::string&()>& source) {
  if (repeats_fact(kv, is_delete)) {
    ++steps_;  // counted as add_fact counts it
    return;
  }
  if (is_delete) {
    add_fact(kv.mod_revision(), kv.key(), Fact{true, {}, false, source(), UINT64_MAX});
  } else {
    add_fact(kv.mod_revision(), kv.key(), observed_put(kv, options_.partial_kvs, source(), UINT64_MAX));
  }
}

// True when add_fact would change nothing: a fact for the key and revision is already held and
// agrees field for field (a full one, for a PUT), so it is neither replaced nor in conflict, and
// the revision and value are already noted.
bool Checker::repeats_fact(const mvccpb::KeyValue& kv, bool is_delete) const {
  auto slot = facts_.find(kv.mod_revision());
  if (slot == facts_.end()) return false;
  auto it = slot->second.find(kv.key());
  if (it == slot->second.end()) return false;
  const Fact& old = it->second;
  if (old.is_delete || is_delete) return old.is_delete && is_delete;
  return old.full && old.lease_known && old.kv.value == kv.value() && old.kv.create_revision == kv.create_revision() &&
         old.kv.mod_revision == kv.mod_revision() && old.kv.version == kv.version() && old.kv.lease == kv.lease();
}

void Checker::collect_coverage() {
  for (const history::Watch& w : h_.watches)
    for (size_t s = 0; s < w.segments.size(); ++s) {
      const history::WatchSegment& seg = w.segments[s];
      if (seg.request.filters_size() > 0) continue;  // a filtered watch does not show every event
      Coverage c;
      c.key = seg.request.key();
      c.end = seg.request.range_end();
      c.name = "watch " + std::to_string(w.id) + " seg " + std::to_string(s) + " (n" + std::to_string(seg.member) + ")";
      c.from = seg.request.start_revision();
      for (const history::WatchResponse& wr : seg.responses) {
        const auto& r = wr.response;
        if (r.canceled()) break;
        if (r.created()) {
          if (c.from <= 0) c.from = r.header().revision() + 1;
          continue;
        }
        for (const mvccpb::Event& e : r.events()) {
          c.to = std::max(c.to, e.kv().mod_revision());
          c.seen.emplace(e.kv().mod_revision(), e.kv().key());
        }
        if (r.events_size() == 0 && r.header().revision() > 0) c.to = std::max(c.to, r.header().revision());
      }
      if (c.from <= 0 || c.to < c.from) continue;
      coverage_.push_back(std::move(c));
    }
  for (size_t i = 0; i < coverage_.size(); ++i) {
    const Coverage& c = coverage_[i];
    const size_t hi = static_cast<size_t>(std::min(c.to, max_rev_) / kChunk);
    if (coverage_by_chunk_.size() <= hi) coverage_by_chunk_.resize(hi + 1);
    for (size_t k = static_cast<size_t>(c.from / kChunk); k <= hi; ++k) coverage_by_chunk_[k].push_back(i);
  }
}

bool Checker::covered(int64_t r, const std::string& key) const {
  bool yes = false;
  for_covering(r, [&](const Coverage& c) { yes = yes || in_range(key, c.key, c.end); });
  return yes;
}

bool Checker::bound_revisions() {
  // The per-revision tables are sized by the highest revision: a corrupt or absurd one must not
  // allocate without bound. Each revision needs a write request or a lease expiry; a revision far
  // beyond everything the history holds is reported instead of replayed.
  size_t records = h_.operations.size();
  for (const history::Watch& w : h_.watches)
    for (const auto& seg : w.segments) records += seg.responses.size();
  const size_t possible = 4 * records + 1024;
  if (max_rev_ > static_cast<int64_t>(possible)) {
    violation("future-revision",
              "revision " + std::to_string(max_rev_) + " observed, far beyond what the " + std::to_string(records) +
                  " recorded operations and watch responses could have made",
              max_rev_, {}, {"seen by " + max_rev_source_});
    return false;
  }
  return true;
}

void Checker::compute_first_observed() {
  first_observed_.assign(static_cast<size_t>(max_rev_) + 2, Observation{});
  auto note = [&](int64_t rev, int64_t at, const std::function<std::string()>& source) {
    if (rev < 2 || rev > max_rev_) return;
    Observation& o = first_observed_[static_cast<size_t>(rev)];
    if (at < o.at) o = Observation{at, source()};
  };
  for (size_t i = 0; i < h_.operations.size(); ++i)
    if (position_[i] > 0) note(position_[i], h_.operations[i].return_ns, [&] { return op_line(i); });
  for (const history::Watch& w : h_.watches)
    for (size_t s = 0; s < w.segments.size(); ++s)
      for (const history::WatchResponse& wr : w.segments[s].responses) {
        int64_t m = wr.response.header().revision();
        for (const auto& e : wr.response.events()) m = std::max(m, e.kv().mod_revision());
        note(m, wr.at_ns, [&] {
          return "watch " + std::to_string(w.id) + " seg " + std::to_string(s) + " response at " + seconds(wr.at_ns) +
                 " showing revision " + std::to_string(m);
        });
      }
  for (int64_t r = max_rev_ - 1; r >= 0; --r) {
    auto& here = first_observed_[static_cast<size_t>(r)];
    const auto& above = first_observed_[static_cast<size_t>(r) + 1];
    if (above.at < here.at) here = above;
  }
}

void Checker::replay_revision(int64_t r) {
  static const std::map<std::string, Fact> kNone;
  auto f = facts_.find(r);
  const auto& facts = f == facts_.end() ? kNone : f->second;
  if (auto c = claimant_.find(r); c != claimant_.end()) return replay_claimed(r, c->second, facts);
  if (replay_lease_revoke(r, facts)) return;
  if (!facts.empty()) return replay_observed(r, facts);
  replay_gap(r);
}

void Checker::replay_claimed(int64_t r, size_t op, const std::map<std::string, Fact>& facts) {
  const history::Operation& o = h_.operations[op];
  Execution e = execute(tl_, r - 1, o.request, &o.response, &steps_);
  writer_[static_cast<size_t>(r)] = Writer{Writer::Kind::kOkWrite, op};
  ++out_.stats.revisions_by_ok_write;
  check_ok_write_response(r, op, e);
  if (e.changes.empty() && !e.uncertain)
    violation("write-effect", "acknowledged with a new revision, but changes nothing on the state before it", r,
              {op});
  for (const auto& [key, fact] : facts) {
    // Returned key-values are judged by their operation's own check; watches are judged here.
    if (fact.op_id != UINT64_MAX) continue;
    auto it = e.changes.find(key);
    if (it == e.changes.end() ? e.uncertain : fact_fits(fact, it->second)) continue;
    violation(!fact.is_delete && !writers_of_value_.count(fact.kv.value) ? "value-never-written" : "write-effect", "what was observed at the write's revision is not what the write does", r, {op},
              {fact_text(key, fact),
               "the write makes " + key + " " + (it == e.changes.end() ? "unchanged" : describe_slot(it->second)),
               "before: " + state_line(r - 1, key)});
  }
  apply(r, std::move(e.changes), facts, !e.uncertain);
}

bool Checker::replay_lease_revoke(int64_t r, const std::map<std::string, Fact>& facts) {
  auto it = revokes_at_.find(r);
  if (it == revokes_at_.end()) return false;
  for (size_t op : it->second) {
    const int64_t lease = h_.operations[op].request.lease_revoke().id();
    std::vector<std::string> keys = tl_.keys_with_lease(lease, r - 1);
    steps_ += tl_.key_count();
    if (keys.empty()) continue;  // a revoke of a lease without keys makes no revision
    std::map<std::string, Slot> changes;
    for (const std::string& k : keys) changes[k] = Slot::absent();
    bool consistent = true;
    for (const auto& [key, fact] : facts) consistent = consistent && changes.count(key) && fact.is_delete;
    if (!consistent) continue;
    writer_[static_cast<size_t>(r)] = Writer{Writer::Kind::kLease, op};
    ++out_.stats.revisions_by_lease;
    apply(r, std::move(changes), facts, true);
    return true;
  }
  return false;
}

void Checker::bind_unknown(int64_t r, size_t op) {
  writer_[static_cast<size_t>(r)] = Writer{Writer::Kind::kUnknownWrite, op};
  ++out_.stats.revisions_by_unknown_write;
  auto [it, fresh] = bound_.emplace(op, r);
  if (!fresh && it->second != r)
    violation("sources-disagree", "one write with unknown outcome observed taking effect at two revisions", r, {op},
              {"also at revision " + std::to_string(it->second)});
}

void Checker::apply(int64_t r, std::map<std::string, Slot> changes, const std::map<std::string, Fact>& facts,
                    bool complete) {
  // Observations fill in what the execution could not know. When the changes are complete (a
  // certain execution) an observation of another key is not trusted: its source is judged.
  for (const auto& [key, fact] : facts) {
    auto it = changes.find(key);
    if (it != changes.end() && !it->second.uncertain()) continue;
    if (it == changes.end() && complete) continue;
    if (fact.is_delete) changes[key] = Slot::absent();
    else if (fact.full && fact.lease_known) changes[key] = Slot::present_kv(fact.kv);
    else changes[key] = Slot::uncertain_slot();
  }
  check_lost(r, writer_[static_cast<size_t>(r)].op, changes);
  for (auto& [key, slot] : changes) {
    ++steps_;
    if (slot.uncertain()) uncertain_revs_.insert(r);
    if (slot.present() && slot.kv.lease != 0) {
      auto rv = revoked_.find(slot.kv.lease);
      if (rv != revoked_.end() && rv->second.first < r)
        violation("lease", "key " + key + " attached to lease " + std::to_string(slot.kv.lease) +
                               " after the lease's acknowledged revoke",
                  r, {rv->second.second}, {"at revision " + std::to_string(r) + ": " + describe_slot(slot)});
    }
    tl_.set(key, r, std::move(slot));
  }
}

void Checker::check_lost(int64_t r, size_t op, const std::map<std::string, Slot>& changes) {
  for_covering(r, [&](const Coverage& c) {
    for (const auto& [key, slot] : changes) {
      if (slot.uncertain() || !in_range(key, c.key, c.end) || c.seen.count({r, key})) continue;
      std::vector<size_t> ops;
      if (op != SIZE_MAX) ops.push_back(op);
      violation("lost-write",
                "a watch that covered the revision and key did not see the change (" + c.name + " covered " +
                    std::to_string(c.from) + ".." + std::to_string(c.to) + ")",
                r, ops, {"revision " + std::to_string(r) + " makes " + key + " " + describe_slot(slot)});
      return;
    }
  });
}

}  // namespace dst::checker::etcd

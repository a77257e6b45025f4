// Revisions no acknowledged write claims: find what made them. Observed puts name their writer by
// value (every written value is unique); observed deletes and unobserved revisions (gaps) are
// explained by the unknown-outcome writes and lease expiries that fit. Exactly one fit is taken;
// several (or none) leave the keys they might have touched uncertain.
#include <algorithm>

#include "checker/linearizability/etcd_internal.h"

namespace dst::checker::etcd {

namespace {

using history::Outcome;

std::string fact_line(const std::string& key, const Fact& f) {
  if (f.is_delete) return "DELETE " + key + " seen by " + f.source;
  return "PUT " + key + " = " + describe_slot(Slot::present_kv(f.kv)) + " seen by " + f.source;
}

// Whether a request may delete `key` (a prefilter before executing it).
bool may_delete(const etcdserverpb::TxnRequest& t, const std::string& key);
bool may_delete_op(const etcdserverpb::RequestOp& op, const std::string& key) {
  if (op.has_request_delete_range())
    return in_range(key, op.request_delete_range().key(), op.request_delete_range().range_end());
  return op.has_request_txn() && may_delete(op.request_txn(), key);
}
bool may_delete(const etcdserverpb::TxnRequest& t, const std::string& key) {
  for (const auto* b : {&t.success(), &t.failure()})
    for (const auto& op : *b)
      if (may_delete_op(op, key)) return true;
  return false;
}
bool may_delete(const etcdserverpb::ApiRequest& r, const std::string& key) {
  if (r.has_delete_range()) return in_range(key, r.delete_range().key(), r.delete_range().range_end());
  return r.has_txn() && may_delete(r.txn(), key);
}

void put_values(const etcdserverpb::TxnRequest& t, std::vector<std::string>* out) {
  for (const auto* b : {&t.success(), &t.failure()})
    for (const auto& op : *b) {
      if (op.has_request_put()) out->push_back(op.request_put().value());
      if (op.has_request_txn()) put_values(op.request_txn(), out);
    }
}

}  // namespace

void Checker::collect_key_observations() {
  for (size_t i = 0; i < h_.operations.size(); ++i) {
    const history::Operation& o = h_.operations[i];
    if (o.outcome != Outcome::kOk || !o.request.has_range() || !o.response.has_range()) continue;
    const auto& q = o.request.range();
    const int64_t at = q.revision() > 0 ? q.revision() : position_[i];
    for (const auto& kv : o.response.range().kvs()) {
      key_observations_[kv.key()].push_back(
          KeyObservation{at, true, kv.mod_revision(), kv.create_revision(), kv.version()});
      note_put(kv.key(), kv.mod_revision(), kv.create_revision());
    }
    if (q.range_end().empty() && !q.count_only() && o.response.range().kvs_size() == 0)
      key_observations_[q.key()].push_back(KeyObservation{at, false, 0, 0, 0});
  }
  for (const auto& [rev, facts] : facts_)
    for (const auto& [key, fact] : facts) {
      if (fact.is_delete || !fact.full) continue;
      note_put(key, rev, fact.kv.create_revision);
      key_observations_[key].push_back(KeyObservation{rev, true, rev, fact.kv.create_revision, fact.kv.version});
    }
  for (auto& [key, obs] : key_observations_)
    std::sort(obs.begin(), obs.end(), [](const KeyObservation& a, const KeyObservation& b) {
      return a.at != b.at ? a.at < b.at : (a.present != b.present ? a.present < b.present : a.mod < b.mod);
    });
}

void Checker::note_put(const std::string& key, int64_t mod, int64_t create) {
  if (mod >= 2) put_at_[mod].emplace(key, false);
  if (create >= 2) put_at_[create][key] = true;
}

// Observations refute a change at r: a read at Q >= r that saw the key unchanged since a revision
// below r, or created below r (so neither deleted nor created again at r), or of a version the
// change would exceed; a read at exactly r that saw it absent, or one that saw it created at
// r + 1, for a put; and a key seen put or created at r that the change does not put or create. (A read's own correctness is judged by its check; a wrong read can only make a
// revision stay unexplained or bind a different candidate in a history that already has a
// violation.)
bool Checker::refuted(int64_t r, const std::map<std::string, Slot>& changes) {
  if (auto p = put_at_.find(r); p != put_at_.end())
    for (const auto& [key, created] : p->second) {
      ++steps_;
      auto c = changes.find(key);
      if (c == changes.end()) return true;
      if (c->second.uncertain()) continue;
      if (!c->second.present() || (created && c->second.kv.create_revision != r)) return true;
    }
  for (const auto& [key, slot] : changes) {
    auto it = key_observations_.find(key);
    if (it == key_observations_.end() || slot.uncertain()) continue;
    const auto& obs = it->second;
    auto o = std::lower_bound(obs.begin(), obs.end(), r, [](const KeyObservation& x, int64_t v) { return x.at < v; });
    for (; o != obs.end(); ++o) {
      ++steps_;
      if (o->present && o->mod < r) return true;
      // Created at r + 1: absent at r.
      if (o->present && o->create == r + 1 && slot.present()) return true;
      if (!o->present || o->create <= 0) {
        if (!o->present && o->at == r && slot.present()) return true;
        continue;
      }
      // The incarnation created at o->create lives from before r through o->mod >= r.
      if (o->create < r && (!slot.present() || slot.kv.create_revision != o->create)) return true;
      // Of that incarnation, the change at r makes version x; the observation's version counts
      // every put up to o->mod, one of them at o->mod: x <= version, and x < version if o->mod > r.
      if (slot.present() && slot.kv.create_revision == o->create && o->version > 0 &&
          (slot.kv.version > o->version || (o->mod > r && slot.kv.version >= o->version) ||
           (o->mod == r && slot.kv.version != o->version)))
        return true;
      // A later write than r was seen (of an incarnation whose creation is known). Every later
      // observation sees that incarnation at a higher version (a weaker version bound, the same
      // creation bound) or one created after it (nothing it can say about r): stop here. Scanning
      // on to the history's end made this quadratic: 26 M of a 1 M-operation history's 31 M steps.
      if (o->mod > r) break;
    }
  }
  return false;
}

void Checker::replay_observed(int64_t r, const std::map<std::string, Fact>& facts) {
  std::set<size_t> cands;
  bool bad = false;
  for (const auto& [key, fact] : facts) {
    if (fact.is_delete) continue;
    std::vector<size_t> src;
    if (fact.op_id != UINT64_MAX) src.push_back(static_cast<size_t>(fact.op_id));
    auto w = writers_of_value_.find(fact.kv.value);
    if (w == writers_of_value_.end()) {
      violation("value-never-written", "a value observed that no request wrote", r, src, {fact_line(key, fact)});
      bad = true;
      continue;
    }
    for (size_t op : w->second) {
      const history::Operation& o = h_.operations[op];
      if (o.outcome == Outcome::kUnknown) {
        cands.insert(op);
        continue;
      }
      bad = true;
      std::vector<size_t> ops = src;
      ops.push_back(op);
      if (o.outcome == Outcome::kFailed) {
        violation("failed-write-visible", "the value of a write that certainly failed was observed", r, ops,
                  {fact_line(key, fact)});
      } else {
        violation("misplaced-write", "the value of an acknowledged write observed at another revision", r, ops,
                  {fact_line(key, fact), claims_[op] ? "the write was acknowledged at revision " + std::to_string(position_[op])
                                                     : "the write was acknowledged without making a revision"});
      }
    }
  }
  if (bad || cands.size() > 1) {
    if (!bad)
      violation("duplicate-revision", "the values of two different writes observed at one revision", r,
                std::vector<size_t>(cands.begin(), cands.end()));
    writer_[static_cast<size_t>(r)] = Writer{Writer::Kind::kUncertain, SIZE_MAX};
    apply(r, {}, facts, false);
    return;
  }
  if (cands.empty()) return explain_deletes(r, facts);
  const size_t op = *cands.begin();
  Execution e = execute(tl_, r - 1, h_.operations[op].request, nullptr, &steps_);
  for (const auto& [key, fact] : facts) {
    auto it = e.changes.find(key);
    if (it == e.changes.end() ? e.uncertain : fact_fits(fact, it->second)) continue;
    violation("write-effect",
              "a write with unknown outcome observed at this revision, but on the state before it the write does "
              "something else",
              r, {op},
              {fact_line(key, fact),
               "the write makes " + key + " " + (it == e.changes.end() ? "unchanged" : describe_slot(it->second)),
               "before: " + state_line(r - 1, key)});
    writer_[static_cast<size_t>(r)] = Writer{Writer::Kind::kUncertain, SIZE_MAX};
    apply(r, {}, facts, false);
    return;
  }
  bind_unknown(r, op);
  apply(r, std::move(e.changes), facts, !e.uncertain);
}

void Checker::explain_deletes(int64_t r, const std::map<std::string, Fact>& facts) {
  std::vector<Candidate> cands;
  auto consistent = [&](const std::map<std::string, Slot>& changes) {
    if (changes.empty()) return false;
    for (const auto& [key, fact] : facts) {
      auto it = changes.find(key);
      if (it == changes.end() || !fact_fits(fact, it->second)) return false;
    }
    for (const auto& [key, slot] : changes)
      if (!facts.count(key) && covered(r, key)) return false;  // a watch saw revision r without it
    return true;
  };
  const std::string& first_key = facts.begin()->first;
  for (size_t op : unknown_writes_) {
    if (bound_.count(op) || h_.operations[op].invoke_ns >= first_observed_[static_cast<size_t>(r)].at) continue;
    if (!may_delete(h_.operations[op].request, first_key) || too_early(r, op)) continue;
    Execution e = execute(tl_, r - 1, h_.operations[op].request, nullptr, &steps_);
    if (consistent(e.changes) && !refuted(r, e.changes)) cands.push_back(Candidate{op, 0, std::move(e.changes)});
  }
  // A lease expiry (or a revoke whose answer was lost): every key of one lease, deleted at once.
  Slot first = tl_.at(first_key, r - 1);
  if (first.present() && first.kv.lease != 0) {
    Candidate c{SIZE_MAX, first.kv.lease, {}};
    for (const std::string& k : tl_.keys_with_lease(first.kv.lease, r - 1)) c.changes[k] = Slot::absent();
    steps_ += tl_.key_count();
    if (consistent(c.changes) && !refuted(r, c.changes)) cands.push_back(std::move(c));
  }
  order_candidates(r, cands);
  resolve(r, facts, std::move(cands), false);
}

// A revision whose only evidence is deletions (a watch saw them, no acknowledged write claims
// it) needs an unknown-outcome write that may delete that key, or a lease expiry. Writes such a
// revision may need later are tried last at the choices before it, so the first assignment
// leaves each its explainer; without that the search tries every order of the writes in the
// gaps before it (1.5 M combinations on an ordinary swarm history) before it finds one.
void Checker::index_delete_needs() {
  needed_until_.assign(h_.operations.size(), 0);
  for (const auto& [r, facts] : facts_) {
    if (facts.empty() || claimant_.count(r) || !facts.begin()->second.is_delete) continue;
    const std::string& key = facts.begin()->first;
    for (size_t op : unknown_writes_) {
      const history::Operation& o = h_.operations[op];
      if (o.invoke_ns < first_observed_[static_cast<size_t>(r)].at && may_delete(o.request, key))
        needed_until_[op] = std::max(needed_until_[op], r);
    }
    steps_ += unknown_writes_.size();
  }
}

void Checker::order_candidates(int64_t r, std::vector<Candidate>& cands) const {
  auto needed_later = [&](const Candidate& c) { return c.op != SIZE_MAX && needed_until_[c.op] > r; };
  std::stable_sort(cands.begin(), cands.end(),
                   [&](const Candidate& a, const Candidate& b) { return !needed_later(a) && needed_later(b); });
}

void Checker::replay_gap(int64_t r) {
  ++out_.stats.gaps;
  std::vector<Candidate> cands;
  // Whether "no candidate" is certain: every key's state before r is known and every write sent
  // in time was executed on it without an uncertain read.
  bool certain = uncertain_revs_.empty();
  size_t considered = 0;
  auto uncovered = [&](const std::map<std::string, Slot>& changes) {
    for (const auto& [key, slot] : changes)
      if (covered(r, key)) return false;
    return !changes.empty();
  };
  auto examine = [&](size_t op) {
    const history::Operation& o = h_.operations[op];
    if (bound_.count(op) || o.invoke_ns >= first_observed_[static_cast<size_t>(r)].at) return;
    std::vector<std::string> values;
    if (o.request.has_put()) values.push_back(o.request.put().value());
    if (o.request.has_txn()) put_values(o.request.txn(), &values);
    if (std::any_of(values.begin(), values.end(), [&](const std::string& v) { return value_seen_at_.count(v); }))
      return;  // observed elsewhere: it made another revision
    Execution e;
    ++considered;
    if (o.request.has_lease_revoke()) {
      for (const std::string& k : tl_.keys_with_lease(o.request.lease_revoke().id(), r - 1)) e.changes[k] = Slot::absent();
      steps_ += tl_.key_count();
    } else {
      e = execute(tl_, r - 1, o.request, nullptr, &steps_);
    }
    certain = certain && !e.uncertain;
    if (too_early(r, op)) return;
    if (uncovered(e.changes) && !refuted(r, e.changes)) cands.push_back(Candidate{op, 0, std::move(e.changes)});
  };
  std::vector<const std::vector<size_t>*> set_aside;
  for (size_t op : gap_candidates(r, set_aside)) examine(op);
  // Lease expiries: each lease that holds keys at r - 1.
  std::map<int64_t, std::map<std::string, Slot>> by_lease;
  tl_.for_keys("\0", std::string(1, '\0'), [&](const std::string& k) {
    Slot s = tl_.at(k, r - 1);
    if (s.present() && s.kv.lease != 0) by_lease[s.kv.lease][k] = Slot::absent();
  });
  steps_ += tl_.key_count();
  for (auto& [lease, changes] : by_lease)
    if (uncovered(changes) && !refuted(r, changes)) cands.push_back(Candidate{SIZE_MAX, lease, std::move(changes)});
  if (cands.empty() && certain) {
    // Only now does it matter what the set-aside writes would do: whether one's execution is
    // uncertain, and how many were considered. None can become a candidate (gap_candidates).
    for (const std::vector<size_t>* group : set_aside)
      for (size_t op : *group) examine(op);
    DST_ASSERT_MSG(cands.empty(), "a write set aside for gap " + std::to_string(r) + " was a candidate after all");
  }
  if (cands.empty() && certain)
    violation("future-revision",
              "revision " + std::to_string(r) +
                  " was served, but no acknowledged write made it and no unknown-outcome write or lease expiry can "
                  "have made it on the state before it",
              r, {},
              {"first seen: " + first_observed_[static_cast<size_t>(r)].source,
               std::to_string(considered) + " unknown-outcome write(s) sent before that and not seen elsewhere; " +
                   std::to_string(by_lease.size()) +
                   " lease(s) holding keys; each changes nothing, or a key a watch saw unchanged, or one a later "
                   "read saw unchanged, or completes after an operation that saw a later revision"});
  order_candidates(r, cands);
  resolve(r, {}, std::move(cands), true);
}

void Checker::resolve(int64_t r, const std::map<std::string, Fact>& facts, std::vector<Candidate> cands, bool gap) {
  const bool all_same = cands.size() > 1 && std::all_of(cands.begin(), cands.end(), [&](const Candidate& c) {
    return c.changes == cands.front().changes;
  });
  std::optional<size_t> pick;
  if (cands.size() == 1) pick = 0;
  else if (cands.size() > 1 && !all_same) pick = choose(r, cands.size());  // the search tries each
  if (pick) {
    Candidate& c = cands[*pick];
    if (gap && cands.size() == 1) ++out_.stats.gaps_explained;
    if (cands.size() > 1) ++out_.stats.revisions_searched;
    if (c.op != SIZE_MAX) {
      bind_unknown(r, c.op);
    } else {
      writer_[static_cast<size_t>(r)] = Writer{Writer::Kind::kLease, SIZE_MAX, c.lease};
      ++out_.stats.revisions_by_lease;
    }
    apply(r, std::move(c.changes), facts, true);
    return;
  }
  writer_[static_cast<size_t>(r)] = Writer{Writer::Kind::kUncertain, SIZE_MAX};
  if (all_same) {  // who did it is unknown, what it did is not
    apply(r, std::move(cands.front().changes), facts, true);
    return;
  }
  if (cands.empty() && !gap) {
    bool certain = true;
    for (const auto& [key, fact] : facts) certain = certain && !tl_.at(key, r - 1).uncertain();
    if (certain) {
      std::vector<std::string> lines;
      for (const auto& [key, fact] : facts) lines.push_back(fact_line(key, fact) + "; before: " + state_line(r - 1, key));
      violation("unexplained-event", "deletions that no request and no lease expiry can explain", r, {}, lines);
    }
  }
  // Every key a candidate may have touched is uncertain from r on (facts fill in what they tell).
  std::map<std::string, Slot> changes;
  for (const Candidate& c : cands)
    for (const auto& [key, slot] : c.changes)
      if (!facts.count(key)) changes[key] = Slot::uncertain_slot();
  if (cands.empty() && gap) {
    // Nothing fits: any key no watch covered at r may have changed.
    tl_.for_keys("\0", std::string(1, '\0'), [&](const std::string& k) {
      if (!covered(r, k)) changes[k] = Slot::uncertain_slot();
    });
  }
  if (!changes.empty() || gap) uncertain_revs_.insert(r);
  apply(r, std::move(changes), facts, false);
}

}  // namespace dst::checker::etcd

// The index of unknown-outcome writes that lets a gap skip the ones that cannot have made it
// (etcd_internal.h, "etcd_gap_index.cc").
#include <algorithm>

#include "checker/linearizability/etcd_internal.h"

namespace dst::checker::etcd {

namespace {

// The first key each writing branch puts, or nullopt when some writing branch changes keys only
// by deletion or by a nested txn (whether a deletion changes anything depends on the state).
std::optional<std::vector<std::string>> branch_keys(const etcdserverpb::ApiRequest& req) {
  if (req.has_put()) {
    if (req.put().ignore_value() || req.put().ignore_lease()) return std::nullopt;  // may change nothing
    return std::vector<std::string>{req.put().key()};
  }
  if (!req.has_txn()) return std::nullopt;
  std::vector<std::string> keys;
  for (const auto* branch : {&req.txn().success(), &req.txn().failure()}) {
    const std::string* first_put = nullptr;
    bool writes = false;
    for (const etcdserverpb::RequestOp& op : *branch) {
      if (op.has_request_txn()) return std::nullopt;
      if (op.has_request_delete_range()) writes = true;
      if (!op.has_request_put()) continue;
      writes = true;
      const auto& put = op.request_put();
      if (put.ignore_value() || put.ignore_lease()) return std::nullopt;
      if (!first_put) first_put = &put.key();
    }
    if (!writes) continue;  // changes nothing: never a candidate through this branch
    if (!first_put) return std::nullopt;
    keys.push_back(*first_put);
  }
  if (keys.empty()) return std::nullopt;
  return keys;
}

}  // namespace

void Checker::index_gap_candidates() {
  for (size_t op : unknown_writes_) {
    ++steps_;
    std::optional<std::vector<std::string>> keys = branch_keys(h_.operations[op].request);
    if (keys) unknown_by_branch_keys_[std::move(*keys)].push_back(op);
    else unknown_unindexed_.push_back(op);
  }
}

bool Checker::stale_at(int64_t r, const std::string& key) const {
  auto it = key_observations_.find(key);
  if (it == key_observations_.end()) return false;
  const auto& obs = it->second;
  auto o = std::lower_bound(obs.begin(), obs.end(), r, [](const KeyObservation& x, int64_t v) { return x.at < v; });
  return o != obs.end() && o->present && o->mod < r;
}

std::vector<size_t> Checker::gap_candidates(int64_t r, std::vector<const std::vector<size_t>*>& set_aside) {
  if (!uncertain_revs_.empty()) return unknown_writes_;
  std::vector<size_t> ops = unknown_unindexed_;
  for (const auto& [keys, writes] : unknown_by_branch_keys_) {
    steps_ += keys.size();
    const bool hopeless = std::all_of(keys.begin(), keys.end(), [&](const std::string& k) {
      return covered(r, k) || stale_at(r, k);
    });
    if (hopeless) set_aside.push_back(&writes);
    else ops.insert(ops.end(), writes.begin(), writes.end());
  }
  std::sort(ops.begin(), ops.end());  // unknown_writes_ order: the search's candidate order is unchanged
  return ops;
}

}  // namespace dst::checker::etcd

#include "checker/kube/prefix_index.h"

#include <algorithm>

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

// What a write may change, both branches of a txn alike: keys put or deleted alone, delete ranges,
// and the keys it puts with a lease.
struct Reach {
  std::vector<std::string> keys;
  std::vector<std::pair<std::string, std::string>> ranges;
  std::vector<std::string> lease_keys;

  void put(const etcdserverpb::PutRequest& p) {
    keys.push_back(p.key());
    if (p.lease() != 0) lease_keys.push_back(p.key());
  }
  void remove(const etcdserverpb::DeleteRangeRequest& d) {
    if (d.range_end().empty())
      keys.push_back(d.key());
    else
      ranges.emplace_back(d.key(), d.range_end());
  }
  void ops(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& list) {
    for (const auto& op : list) {
      if (op.has_request_put()) put(op.request_put());
      if (op.has_request_delete_range()) remove(op.request_delete_range());
      if (op.has_request_txn()) txn(op.request_txn());
    }
  }
  void txn(const etcdserverpb::TxnRequest& t) {
    ops(t.success());
    ops(t.failure());
  }
};

// Revisions an unfiltered watch segment showed complete (every event in its range delivered), as
// [from, through]; from > through when it showed none.
std::pair<int64_t, int64_t> covered_by(const history::WatchSegment& seg) {
  int64_t start = seg.request.start_revision();
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
  if (start <= 0) return {1, 0};
  return {std::max<int64_t>(start, 2), through};
}

}  // namespace

PrefixIndex::PrefixIndex(const watch::Truth& truth, const RevisionClock& clock, const history::History& history) {
  for (const auto& op : history.operations) {
    if (op.outcome == history::Outcome::kFailed) continue;
    add_write(op, truth, clock);
    add_read(op);
  }
  std::sort(point_keys_.begin(), point_keys_.end());
  point_keys_.erase(std::unique(point_keys_.begin(), point_keys_.end()), point_keys_.end());
  std::sort(lease_keys_.begin(), lease_keys_.end());
  lease_keys_.erase(std::unique(lease_keys_.begin(), lease_keys_.end()), lease_keys_.end());
  for (const auto& [revision, rev] : truth.revisions()) {
    for (const auto& [key, te] : rev.events) events_.push_back(KeyedEvent{&key, revision, &te});
  }
  // Stable: one key's events stay in revision order.
  std::stable_sort(events_.begin(), events_.end(),
                   [](const KeyedEvent& a, const KeyedEvent& b) { return *a.key < *b.key; });
  add_watch_runs(history);
}

void PrefixIndex::add_write(const history::Operation& op, const watch::Truth& truth, const RevisionClock& clock) {
  Reach reach;
  if (op.request.has_put()) reach.put(op.request.put());
  if (op.request.has_txn()) reach.txn(op.request.txn());
  lease_keys_.insert(lease_keys_.end(), reach.lease_keys.begin(), reach.lease_keys.end());
  if (!is_write(op.request)) return;
  if (op.request.has_delete_range()) reach.remove(op.request.delete_range());
  if (reach.keys.empty() && reach.ranges.empty()) return;
  Write w;
  w.revision = op.outcome == history::Outcome::kOk && !op.response.has_error() ? write_revision(op) : 0;
  if (w.revision > 0) {
    const watch::Revision* rev = truth.at(w.revision);
    w.pinned = rev != nullptr && rev->counted_by && rev->counted_by->kind == watch::Source::Kind::kOperation &&
               rev->counted_by->id == op.id;
  } else {
    // Unknown outcome: any revision made after it was invoked.
    w.open_from = clock.existed_before(op.invoke_ns) + 1;
  }
  w.ranges = std::move(reach.ranges);
  const auto index = static_cast<uint32_t>(writes_.size());
  for (auto& key : reach.keys) point_keys_.emplace_back(std::move(key), index);
  if (!w.ranges.empty()) range_writes_.push_back(index);
  writes_.push_back(std::move(w));
}

void PrefixIndex::add_read(const history::Operation& op) {
  if (op.outcome != history::Outcome::kOk || !op.request.has_range() || !op.response.has_range()) return;
  const auto& req = op.request.range();
  const auto& resp = op.response.range();
  if ((req.limit() > 0 && resp.more()) || req.keys_only() || req.count_only()) return;
  if (req.min_mod_revision() != 0 || req.max_mod_revision() != 0 || req.min_create_revision() != 0 ||
      req.max_create_revision() != 0)
    return;
  const int64_t at = req.revision() > 0 ? req.revision() : resp.header().revision();
  if (at <= 0) return;
  const bool sorted = std::is_sorted(resp.kvs().begin(), resp.kvs().end(),
                                     [](const mvccpb::KeyValue& a, const mvccpb::KeyValue& b) { return a.key() < b.key(); });
  reads_.push_back(CompleteRead{req.key(), req.range_end(), at, &resp, sorted});
}

void PrefixIndex::add_watch_runs(const history::History& history) {
  for (const auto& w : history.watches) {
    for (const auto& seg : w.segments) {
      if (seg.request.filters_size() > 0) continue;
      const auto [from, through] = covered_by(seg);
      if (from <= through) watch_runs_.push_back(WatchRun{seg.request.key(), seg.request.range_end(), from, through});
    }
  }
}

}  // namespace dst::checker::kube

#include "checker/watch/history_builder.h"

#include "base/assert.h"
#include "checker/watch/truth.h"

namespace dst::checker::watch::testing {

namespace {
constexpr int64_t kStepNs = 1'000'000;  // every recorded action is 1 ms after the previous one
}

etcdserverpb::WatchCreateRequest watch_request(const std::string& key, const std::string& range_end,
                                               int64_t start_revision, bool prev_kv) {
  etcdserverpb::WatchCreateRequest r;
  r.set_key(key);
  r.set_range_end(range_end);
  r.set_start_revision(start_revision);
  r.set_prev_kv(prev_kv);
  return r;
}

int64_t HistoryBuilder::tick() { return now_ns_ += kStepNs; }

history::Operation& HistoryBuilder::record(history::Outcome outcome) {
  history::Operation op;
  op.id = history_.operations.size();
  op.client = 100;
  op.member = 1;
  op.invoke_ns = tick();
  op.return_ns = outcome == history::Outcome::kUnknown ? history::kNeverReturned : tick();
  op.outcome = outcome;
  history_.operations.push_back(std::move(op));
  return history_.operations.back();
}

int64_t HistoryBuilder::apply(const std::vector<TxnWrite>& writes, int64_t lease) {
  std::vector<mvccpb::Event> events;
  const int64_t next = revision_ + 1;
  for (const auto& w : writes) {
    KeyState& st = store_[w.key];
    mvccpb::Event e;
    if (st.exists) *e.mutable_prev_kv() = st.kv;
    if (w.is_delete) {
      if (!st.exists) continue;
      e.set_type(mvccpb::Event::DELETE);
      e.mutable_kv()->set_key(w.key);
      e.mutable_kv()->set_mod_revision(next);
      st.exists = false;
      st.kv.Clear();
    } else {
      e.set_type(mvccpb::Event::PUT);
      mvccpb::KeyValue kv;
      kv.set_key(w.key);
      kv.set_value(w.value);
      kv.set_lease(lease);
      kv.set_mod_revision(next);
      kv.set_create_revision(st.exists ? st.kv.create_revision() : next);
      kv.set_version(st.exists ? st.kv.version() + 1 : 1);
      st.exists = true;
      st.kv = kv;
      *e.mutable_kv() = kv;
    }
    events.push_back(std::move(e));
  }
  if (events.empty()) return revision_;
  revision_ = next;
  events_[next] = std::move(events);
  return next;
}

int64_t HistoryBuilder::put(const std::string& key, const std::string& value, int64_t lease, history::Outcome outcome,
                            bool applied) {
  const int64_t rev = applied ? apply({{key, value, false}}, lease) : revision_;
  history::Operation& op = record(outcome);
  auto* put = op.request.mutable_put();
  put->set_key(key);
  put->set_value(value);
  put->set_lease(lease);
  if (outcome == history::Outcome::kOk) {
    op.response.mutable_put()->mutable_header()->set_revision(rev);
  }
  return rev;
}

int64_t HistoryBuilder::del(const std::string& key, history::Outcome outcome) {
  const bool existed = store_.count(key) > 0 && store_[key].exists;
  const int64_t rev = apply({{key, "", true}}, 0);
  history::Operation& op = record(outcome);
  op.request.mutable_delete_range()->set_key(key);
  if (outcome == history::Outcome::kOk) {
    op.response.mutable_delete_range()->mutable_header()->set_revision(rev);
    op.response.mutable_delete_range()->set_deleted(existed ? 1 : 0);
  }
  return rev;
}

int64_t HistoryBuilder::del_range(const std::string& key, const std::string& range_end, bool prev_kv,
                                  history::Outcome outcome) {
  const KeyRange range{key, range_end};
  std::vector<TxnWrite> writes;
  std::vector<mvccpb::KeyValue> prevs;
  for (const auto& [k, st] : store_) {
    if (!st.exists || !range.contains(k)) continue;
    writes.push_back({k, "", true});
    prevs.push_back(st.kv);
  }
  const int64_t rev = apply(writes, 0);
  history::Operation& op = record(outcome);
  auto* req = op.request.mutable_delete_range();
  req->set_key(key);
  req->set_range_end(range_end);
  req->set_prev_kv(prev_kv);
  if (outcome == history::Outcome::kOk) {
    auto* resp = op.response.mutable_delete_range();
    resp->mutable_header()->set_revision(rev);
    resp->set_deleted(static_cast<int64_t>(writes.size()));
    if (prev_kv)
      for (const auto& kv : prevs) *resp->add_prev_kvs() = kv;
  }
  return rev;
}

int64_t HistoryBuilder::txn(const std::vector<TxnWrite>& writes, history::Outcome outcome) {
  std::vector<bool> existed;
  for (const auto& w : writes) existed.push_back(store_.count(w.key) > 0 && store_[w.key].exists);
  const int64_t rev = apply(writes, 0);
  history::Operation& op = record(outcome);
  auto* req = op.request.mutable_txn();
  auto* resp = outcome == history::Outcome::kOk ? op.response.mutable_txn() : nullptr;
  if (resp != nullptr) {
    resp->set_succeeded(true);
    resp->mutable_header()->set_revision(rev);
  }
  for (size_t i = 0; i < writes.size(); ++i) {
    auto* r = req->add_success();
    if (writes[i].is_delete) {
      r->mutable_request_delete_range()->set_key(writes[i].key);
      if (resp != nullptr) {
        auto* d = resp->add_responses()->mutable_response_delete_range();
        d->mutable_header()->set_revision(rev);
        d->set_deleted(existed[i] ? 1 : 0);
      }
    } else {
      r->mutable_request_put()->set_key(writes[i].key);
      r->mutable_request_put()->set_value(writes[i].value);
      if (resp != nullptr) resp->add_responses()->mutable_response_put()->mutable_header()->set_revision(rev);
    }
  }
  return rev;
}

void HistoryBuilder::compact(int64_t revision) {
  history::Operation& op = record(history::Outcome::kOk);
  op.request.mutable_compaction()->set_revision(revision);
  op.response.mutable_compaction()->mutable_header()->set_revision(revision_);
}

const std::vector<mvccpb::Event>& HistoryBuilder::events_at(int64_t revision) const {
  static const std::vector<mvccpb::Event> kNone;
  auto it = events_.find(revision);
  return it == events_.end() ? kNone : it->second;
}

std::vector<mvccpb::Event> HistoryBuilder::matching(const etcdserverpb::WatchCreateRequest& request, int64_t from,
                                                    int64_t to) const {
  const KeyRange range{request.key(), request.range_end()};
  bool no_put = false, no_delete = false;
  for (int f : request.filters()) {
    no_put |= f == etcdserverpb::WatchCreateRequest::NOPUT;
    no_delete |= f == etcdserverpb::WatchCreateRequest::NODELETE;
  }
  std::vector<mvccpb::Event> out;
  for (auto it = events_.lower_bound(from); it != events_.end() && it->first <= to; ++it) {
    for (const auto& e : it->second) {
      if (!range.contains(e.kv().key())) continue;
      if (e.type() == mvccpb::Event::PUT ? no_put : no_delete) continue;
      mvccpb::Event copy = e;
      if (!request.prev_kv()) copy.clear_prev_kv();
      out.push_back(std::move(copy));
    }
  }
  return out;
}

size_t HistoryBuilder::watch(const etcdserverpb::WatchCreateRequest& request, uint32_t client, uint32_t member) {
  history::Watch w;
  w.id = history_.watches.size();
  w.client = client;
  history::WatchSegment seg;
  seg.member = member;
  seg.created_ns = tick();
  seg.request = request;
  w.segments.push_back(std::move(seg));
  history_.watches.push_back(std::move(w));
  return history_.watches.size() - 1;
}

history::WatchSegment& HistoryBuilder::current(size_t w) {
  DST_ASSERT(w < history_.watches.size());
  return history_.watches[w].segments.back();
}

void HistoryBuilder::created(size_t w, int64_t header_revision) {
  history::WatchResponse r{tick(), {}};
  r.response.mutable_header()->set_revision(header_revision);
  r.response.set_created(true);
  r.response.set_watch_id(static_cast<int64_t>(w));
  current(w).responses.push_back(std::move(r));
}

size_t HistoryBuilder::deliver(size_t w, int64_t from, int64_t to) {
  const auto events = matching(current(w).request, from, to);
  if (events.empty()) return SIZE_MAX;  // an empty response would read as a progress notification
  return respond(w, events);
}

size_t HistoryBuilder::respond(size_t w, const std::vector<mvccpb::Event>& events) {
  history::WatchResponse r{tick(), {}};
  r.response.mutable_header()->set_revision(revision_);
  r.response.set_watch_id(static_cast<int64_t>(w));
  for (const auto& e : events) *r.response.add_events() = e;
  current(w).responses.push_back(std::move(r));
  return current(w).responses.size() - 1;
}

void HistoryBuilder::progress(size_t w, int64_t revision, int64_t watch_id) {
  history::WatchResponse r{tick(), {}};
  r.response.mutable_header()->set_revision(revision);
  r.response.set_watch_id(watch_id);
  current(w).responses.push_back(std::move(r));
}

void HistoryBuilder::cancel(size_t w, int64_t compact_revision) {
  history::WatchResponse r{tick(), {}};
  r.response.set_canceled(true);
  r.response.set_compact_revision(compact_revision);
  r.response.set_watch_id(static_cast<int64_t>(w));
  current(w).responses.push_back(std::move(r));
}

void HistoryBuilder::resume(size_t w, int64_t start_revision, uint32_t member) {
  history::WatchSegment& old = current(w);
  old.broken = true;
  history::WatchSegment seg;
  seg.member = member;
  seg.created_ns = tick();
  seg.request = old.request;
  seg.request.set_start_revision(start_revision);
  history_.watches[w].segments.push_back(std::move(seg));
}

}  // namespace dst::checker::watch::testing

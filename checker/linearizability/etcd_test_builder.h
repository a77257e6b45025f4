// A small builder of hand-made etcd histories for the etcd checker's tests: operations with
// times in milliseconds, requests and responses in one line each, and watches.
#pragma once

#include <string>
#include <vector>

#include "history/history.h"

namespace dst::checker::etcd::testing {

inline mvccpb::KeyValue kv(const std::string& key, const std::string& value, int64_t create, int64_t mod,
                           int64_t version, int64_t lease = 0) {
  mvccpb::KeyValue k;
  k.set_key(key);
  k.set_value(value);
  k.set_create_revision(create);
  k.set_mod_revision(mod);
  k.set_version(version);
  k.set_lease(lease);
  return k;
}

inline etcdserverpb::ApiRequest put_req(const std::string& key, const std::string& value, int64_t lease = 0,
                                        bool prev_kv = false) {
  etcdserverpb::ApiRequest r;
  r.mutable_put()->set_key(key);
  r.mutable_put()->set_value(value);
  r.mutable_put()->set_lease(lease);
  r.mutable_put()->set_prev_kv(prev_kv);
  return r;
}

inline etcdserverpb::ApiResponse put_resp(int64_t rev, const mvccpb::KeyValue* prev = nullptr) {
  etcdserverpb::ApiResponse r;
  r.mutable_put()->mutable_header()->set_revision(rev);
  if (prev) *r.mutable_put()->mutable_prev_kv() = *prev;
  return r;
}

inline etcdserverpb::ApiRequest get_req(const std::string& key, const std::string& end = "", int64_t revision = 0,
                                        bool serializable = false) {
  etcdserverpb::ApiRequest r;
  r.mutable_range()->set_key(key);
  r.mutable_range()->set_range_end(end);
  r.mutable_range()->set_revision(revision);
  r.mutable_range()->set_serializable(serializable);
  return r;
}

inline etcdserverpb::ApiResponse range_resp(int64_t rev, const std::vector<mvccpb::KeyValue>& kvs) {
  etcdserverpb::ApiResponse r;
  r.mutable_range()->mutable_header()->set_revision(rev);
  for (const auto& k : kvs) *r.mutable_range()->add_kvs() = k;
  r.mutable_range()->set_count(static_cast<int64_t>(kvs.size()));
  return r;
}

inline etcdserverpb::ApiRequest del_req(const std::string& key, const std::string& end = "") {
  etcdserverpb::ApiRequest r;
  r.mutable_delete_range()->set_key(key);
  r.mutable_delete_range()->set_range_end(end);
  return r;
}

inline etcdserverpb::ApiResponse del_resp(int64_t rev, int64_t deleted) {
  etcdserverpb::ApiResponse r;
  r.mutable_delete_range()->mutable_header()->set_revision(rev);
  r.mutable_delete_range()->set_deleted(deleted);
  return r;
}

// txn if(mod(key) == mod) then put key=value else get key
inline etcdserverpb::ApiRequest cas_req(const std::string& key, int64_t mod, const std::string& value) {
  etcdserverpb::ApiRequest r;
  auto* c = r.mutable_txn()->add_compare();
  c->set_key(key);
  c->set_target(etcdserverpb::Compare::MOD);
  c->set_result(etcdserverpb::Compare::EQUAL);
  c->set_mod_revision(mod);
  auto* p = r.mutable_txn()->add_success()->mutable_request_put();
  p->set_key(key);
  p->set_value(value);
  r.mutable_txn()->add_failure()->mutable_request_range()->set_key(key);
  return r;
}

inline etcdserverpb::ApiResponse cas_ok(int64_t rev) {
  etcdserverpb::ApiResponse r;
  r.mutable_txn()->mutable_header()->set_revision(rev);
  r.mutable_txn()->set_succeeded(true);
  r.mutable_txn()->add_responses()->mutable_response_put()->mutable_header()->set_revision(rev);
  return r;
}

inline etcdserverpb::ApiResponse cas_failed(int64_t rev, const std::vector<mvccpb::KeyValue>& kvs) {
  etcdserverpb::ApiResponse r;
  r.mutable_txn()->mutable_header()->set_revision(rev);
  r.mutable_txn()->set_succeeded(false);
  *r.mutable_txn()->add_responses()->mutable_response_range() = range_resp(rev, kvs).range();
  return r;
}

inline mvccpb::Event put_event(const mvccpb::KeyValue& k) {
  mvccpb::Event e;
  e.set_type(mvccpb::Event::PUT);
  *e.mutable_kv() = k;
  return e;
}

inline mvccpb::Event delete_event(const std::string& key, int64_t rev) {
  mvccpb::Event e;
  e.set_type(mvccpb::Event::DELETE);
  e.mutable_kv()->set_key(key);
  e.mutable_kv()->set_mod_revision(rev);
  return e;
}

class HistoryBuilder {
 public:
  static constexpr int64_t kMs = 1'000'000;

  // Returns the operation's index (= id). return_ms < 0: never returned.
  size_t op(uint32_t client, int64_t invoke_ms, int64_t return_ms, etcdserverpb::ApiRequest req,
            etcdserverpb::ApiResponse resp, history::Outcome outcome = history::Outcome::kOk) {
    history::Operation o;
    o.id = h.operations.size();
    o.client = client;
    o.member = 1;
    o.invoke_ns = invoke_ms * kMs;
    o.return_ns = return_ms < 0 ? history::kNeverReturned : return_ms * kMs;
    o.request = std::move(req);
    o.response = std::move(resp);
    o.outcome = outcome;
    h.operations.push_back(std::move(o));
    return h.operations.size() - 1;
  }
  size_t unknown(uint32_t client, int64_t invoke_ms, etcdserverpb::ApiRequest req) {
    return op(client, invoke_ms, -1, std::move(req), {}, history::Outcome::kUnknown);
  }
  size_t failed(uint32_t client, int64_t invoke_ms, int64_t return_ms, etcdserverpb::ApiRequest req) {
    etcdserverpb::ApiResponse r;
    r.mutable_error()->set_code(3);
    r.mutable_error()->set_message("etcdserver: refused");
    return op(client, invoke_ms, return_ms, std::move(req), std::move(r), history::Outcome::kFailed);
  }

  // A watch on [key, end) from start_revision with one segment; returns its index.
  size_t watch(const std::string& key, const std::string& end, int64_t start_revision, int64_t created_ms = 0) {
    history::Watch w;
    w.id = h.watches.size();
    w.client = 100 + static_cast<uint32_t>(w.id);
    history::WatchSegment s;
    s.member = 1;
    s.created_ns = created_ms * kMs;
    s.request.set_key(key);
    s.request.set_range_end(end);
    s.request.set_start_revision(start_revision);
    w.segments.push_back(std::move(s));
    h.watches.push_back(std::move(w));
    return h.watches.size() - 1;
  }
  void events(size_t watch, int64_t at_ms, int64_t header_rev, std::vector<mvccpb::Event> events) {
    history::WatchResponse r;
    r.at_ns = at_ms * kMs;
    r.response.mutable_header()->set_revision(header_rev);
    for (auto& e : events) *r.response.add_events() = std::move(e);
    h.watches[watch].segments.back().responses.push_back(std::move(r));
  }
  void progress(size_t watch, int64_t at_ms, int64_t rev) { events(watch, at_ms, rev, {}); }

  history::History h;
};

}  // namespace dst::checker::etcd::testing

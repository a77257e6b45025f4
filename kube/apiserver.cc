#include "kube/apiserver.h"

#include <algorithm>
#include <memory>

#include "base/assert.h"
#include "base/probes.h"
#include "client/etcdctl/etcdctl_parse.h"
#include "client/kv_client.h"

namespace dst::kube {

namespace {

using kubeapi::KubeRequest;
using kubeapi::KubeResponse;
using kubeapi::WatchEvent;

// Kubernetes' messages for the answers its clients act on.
constexpr char kMsgConflict[] =
    "Operation cannot be fulfilled: the object has been modified; please apply your changes to the latest version "
    "and try again";
constexpr char kMsgTimeout[] = "Timeout: request did not complete within the allotted timeout";

KubeResponse status_response(int32_t code, std::string message) {
  KubeResponse r;
  r.mutable_status()->set_code(code);
  r.mutable_status()->set_message(std::move(message));
  return r;
}

WatchEvent::Type wire_type(EventType t) {
  switch (t) {
    case EventType::kAdded: return WatchEvent::ADDED;
    case EventType::kModified: return WatchEvent::MODIFIED;
    case EventType::kDeleted: return WatchEvent::DELETED;
  }
  DST_UNREACHABLE("an event type without a wire type");
}

// Shared by the fibers of the apiserver's process: the last one to end destroys it, whichever
// order a kill or the end of the run takes them in.
class Apiserver : public std::enable_shared_from_this<Apiserver> {
 public:
  Apiserver(sim::Simulator& sim, const ApiserverOptions& options, history::Recorder& recorder, sim::TimeNs until,
            ApiserverStats* stats)
      : sim_(sim),
        options_(options),
        recorder_(recorder),
        until_(until),
        stats_(stats != nullptr ? stats : &own_stats_),
        cacher_(sim, cacher_options(options), recorder, &stats_->cache) {}

  void run();

 private:
  struct Connection {
    sim::StreamId stream = 0;
    size_t in_flight = 0;
  };

  static CacherOptions cacher_options(const ApiserverOptions& o) {
    CacherOptions c;
    c.prefix = o.prefix;
    c.members = o.members;
    c.capacity = o.cache_capacity;
    c.request_timeout = o.etcd_timeout;
    c.next_client_id = o.next_client_id;
    return c;
  }

  void serve_connection(const std::shared_ptr<Connection>& conn);
  // False when the connection is gone (the answer is lost; the client sees the break).
  bool send(const Connection& conn, uint64_t call, KubeResponse resp);
  KubeResponse handle(const KubeRequest& req);
  KubeResponse list(const kubeapi::ListRequest& req);
  KubeResponse create(const kubeapi::CreateRequest& req);
  KubeResponse update(const kubeapi::UpdateRequest& req);
  KubeResponse remove(const kubeapi::DeleteRequest& req);
  // The precondition txn behind every write: `compare` on `key`, then `success`; otherwise a
  // range of the key tells 404 from 409.
  KubeResponse write(const std::string& key, const etcdserverpb::Compare& compare, etcdserverpb::RequestOp success,
                     int32_t ok_code);
  void watch(const std::shared_ptr<Connection>& conn, uint64_t call, const kubeapi::WatchRequest& req);
  bool send_events(const Connection& conn, uint64_t call, const std::vector<CacheEvent>& events, int64_t& cursor);
  // A request's key prefix selects objects of this apiserver's resource (empty: all of them).
  bool selects_within_resource(const std::string& key_prefix) const {
    return key_prefix.empty() || has_prefix(key_prefix, options_.prefix);
  }
  static bool has_prefix(const std::string& key, const std::string& prefix) {
    return key.compare(0, prefix.size(), prefix) == 0;
  }
  // Waits until the cache reached `rv` or the deadline passed; false on timeout or shutdown.
  bool await_cache(int64_t rv, sim::TimeNs deadline);
  // One recorded etcd request from a client of its own, on the next member in turn.
  history::Operation etcd(etcdserverpb::ApiRequest req);

  sim::Simulator& sim_;
  const ApiserverOptions options_;
  history::Recorder& recorder_;
  const sim::TimeNs until_;
  ApiserverStats own_stats_;
  ApiserverStats* stats_;
  Cacher cacher_;
  size_t connections_ = 0;
  size_t next_member_ = 0;
};

void Apiserver::run() {
  sim_.spawn(sim_.current_process(), "apiserver-cacher", [self = shared_from_this()] { self->cacher_.run(self->until_); });
  auto listener = sim_.net().listen(sim_.current_process(), options_.port);
  DST_ASSERT_MSG(listener.is_ok(), "apiserver port taken: " + listener.status().to_string());
  while (sim_.now() < until_) {
    auto stream = sim_.net().accept(*listener, until_ - sim_.now());
    if (!stream.is_ok()) {
      if (stream.status().code() == StatusCode::kTimeout) continue;
      return;  // the process is going away
    }
    if (connections_ >= options_.connections_max) {
      sim_.net().close_stream(*stream);  // refused, like a server at its connection limit
      continue;
    }
    auto conn = std::make_shared<Connection>();
    conn->stream = *stream;
    ++connections_;
    sim_.spawn(sim_.current_process(), "apiserver-conn", [self = shared_from_this(), conn] {
      self->serve_connection(conn);
      --self->connections_;
    });
  }
}

bool Apiserver::send(const Connection& conn, uint64_t call, KubeResponse resp) {
  resp.set_call(call);
  return sim_.net().send(conn.stream, resp.SerializeAsString()).is_ok();
}

void Apiserver::serve_connection(const std::shared_ptr<Connection>& conn) {
  for (;;) {
    auto frame = sim_.net().recv(conn->stream);
    if (!frame.is_ok()) break;
    KubeRequest req;
    if (!req.ParseFromString(*frame)) break;  // a client speaking garbage: drop the connection
    const uint64_t call = req.call();
    if (conn->in_flight >= options_.calls_in_flight_max) {
      send(*conn, call, status_response(429, "Too many requests, please try again later."));
      continue;
    }
    ++conn->in_flight;
    if (req.has_watch()) {
      sim_.spawn(sim_.current_process(), "apiserver-watch", [self = shared_from_this(), conn, call, w = req.watch()] {
        self->watch(conn, call, w);
        --conn->in_flight;
      });
    } else {
      sim_.spawn(sim_.current_process(), "apiserver-call", [self = shared_from_this(), conn, call, req = std::move(req)] {
        self->send(*conn, call, self->handle(req));
        --conn->in_flight;
      });
    }
  }
  sim_.net().close_stream(conn->stream);
}

KubeResponse Apiserver::handle(const KubeRequest& req) {
  switch (req.request_case()) {
    case KubeRequest::kList: return list(req.list());
    case KubeRequest::kCreate: return create(req.create());
    case KubeRequest::kUpdate: return update(req.update());
    case KubeRequest::kDelete: return remove(req.delete_());
    case KubeRequest::kWatch:
    case KubeRequest::REQUEST_NOT_SET: break;
  }
  return status_response(400, "a request without an operation");
}

history::Operation Apiserver::etcd(etcdserverpb::ApiRequest req) {
  client::KvClientOptions ko;
  ko.id = options_.next_client_id();
  ko.members = options_.members;
  ko.pinned_member = next_member_++ % options_.members.size();
  ko.timeout = options_.etcd_timeout;
  client::KvClient kv(sim_, ko, recorder_);
  return kv.execute(std::move(req));
}

bool Apiserver::await_cache(int64_t rv, sim::TimeNs deadline) {
  while (cacher_.cache().resource_version() < rv) {
    if (sim_.now() >= deadline) return false;
    if (cacher_.changed().wait_until(deadline) == sim::WaitResult::kCancelled) return false;
  }
  return true;
}

KubeResponse Apiserver::list(const kubeapi::ListRequest& req) {
  KubeResponse out;
  if (!selects_within_resource(req.key_prefix()))
    return status_response(400, "key prefix '" + req.key_prefix() + "' is not under " + options_.prefix);
  const std::string& selected = req.key_prefix().empty() ? options_.prefix : req.key_prefix();
  if (req.resource_version() == 0) {
    // "Most recent": a linearizable range read from etcd, as the apiserver does for a LIST without
    // a resourceVersion.
    etcdserverpb::ApiRequest range;
    range.mutable_range()->set_key(selected);
    range.mutable_range()->set_range_end(etcdctl::prefix_range_end(selected));
    const history::Operation op = etcd(std::move(range));
    if (op.outcome != history::Outcome::kOk || !op.response.has_range())
      return status_response(504, std::string(kMsgTimeout) + " (etcd: " + op.response.error().message() + ")");
    ++stats_->lists_from_etcd;
    kubeapi::ListResponse* l = out.mutable_list();
    l->set_resource_version(op.response.range().header().revision());
    for (const mvccpb::KeyValue& kv : op.response.range().kvs()) {
      kubeapi::Object* o = l->add_items();
      o->set_key(kv.key());
      o->set_value(kv.value());
      o->set_resource_version(kv.mod_revision());
    }
    out.mutable_status()->set_code(200);
    return out;
  }
  const int64_t want = req.resource_version();
  const bool lie = options_.bugs.on(Bug::kListNotCaughtUp);
  if (cacher_.cache().resource_version() < want) DST_PROBE(kKubeListWaitedForCache);
  if (!lie && !await_cache(want, sim_.now() + options_.list_wait)) {
    return status_response(504, "Too large resource version: " + std::to_string(want) + ", current: " +
                                    std::to_string(cacher_.cache().resource_version()));
  }
  // With the bug the cache answers at once, behind or not, and claims the requested version.
  Result<ListResult> listed = cacher_.cache().list(lie ? 0 : want);
  if (!listed.is_ok()) return status_response(504, listed.status().message());
  ++stats_->lists_from_cache;
  kubeapi::ListResponse* l = out.mutable_list();
  l->set_resource_version(lie ? std::max(want, listed->resource_version) : listed->resource_version);
  for (const auto& [key, obj] : listed->objects) {
    if (!has_prefix(key, selected)) continue;
    kubeapi::Object* o = l->add_items();
    o->set_key(key);
    o->set_value(obj.value);
    o->set_resource_version(obj.resource_version);
  }
  out.mutable_status()->set_code(200);
  return out;
}

KubeResponse Apiserver::write(const std::string& key, const etcdserverpb::Compare& compare,
                              etcdserverpb::RequestOp success, int32_t ok_code) {
  if (key.compare(0, options_.prefix.size(), options_.prefix) != 0)
    return status_response(400, "key '" + key + "' is not under " + options_.prefix);
  etcdserverpb::ApiRequest req;
  etcdserverpb::TxnRequest* txn = req.mutable_txn();
  *txn->add_compare() = compare;
  *txn->add_success() = std::move(success);
  txn->add_failure()->mutable_request_range()->set_key(key);
  const history::Operation op = etcd(std::move(req));
  if (op.outcome == history::Outcome::kUnknown) return status_response(504, kMsgTimeout);
  if (op.outcome == history::Outcome::kFailed || !op.response.has_txn())
    return status_response(500, "etcd: " + op.response.error().message());
  const etcdserverpb::TxnResponse& t = op.response.txn();
  ++stats_->writes;
  if (!t.succeeded()) {
    const bool exists = t.responses_size() > 0 && t.responses(0).response_range().kvs_size() > 0;
    if (ok_code == 201) return status_response(409, "object \"" + key + "\" already exists");
    if (!exists) return status_response(404, "object \"" + key + "\" not found");
    ++stats_->conflicts;
    DST_PROBE(kKubeUpdateConflict);
    return status_response(409, kMsgConflict);
  }
  KubeResponse out = status_response(ok_code, "");
  kubeapi::Object* o = out.mutable_object();
  o->set_key(key);
  o->set_resource_version(t.header().revision());
  const etcdserverpb::RequestOp& done = op.request.txn().success(0);
  if (done.has_request_put()) {
    o->set_value(done.request_put().value());
  } else if (t.responses_size() > 0 && t.responses(0).response_delete_range().prev_kvs_size() > 0) {
    o->set_value(t.responses(0).response_delete_range().prev_kvs(0).value());
  }
  return out;
}

namespace {
etcdserverpb::Compare exists_at(const std::string& key, int64_t rv) {
  etcdserverpb::Compare c;
  c.set_key(key);
  if (rv > 0) {
    c.set_target(etcdserverpb::Compare::MOD);
    c.set_result(etcdserverpb::Compare::EQUAL);
    c.set_mod_revision(rv);
  } else {
    c.set_target(etcdserverpb::Compare::VERSION);
    c.set_result(etcdserverpb::Compare::GREATER);
    c.set_version(0);
  }
  return c;
}
}  // namespace

KubeResponse Apiserver::create(const kubeapi::CreateRequest& req) {
  etcdserverpb::Compare absent;
  absent.set_key(req.key());
  absent.set_target(etcdserverpb::Compare::CREATE);
  absent.set_result(etcdserverpb::Compare::EQUAL);
  absent.set_create_revision(0);
  etcdserverpb::RequestOp put;
  put.mutable_request_put()->set_key(req.key());
  put.mutable_request_put()->set_value(req.value());
  return write(req.key(), absent, std::move(put), 201);
}

KubeResponse Apiserver::update(const kubeapi::UpdateRequest& req) {
  etcdserverpb::RequestOp put;
  put.mutable_request_put()->set_key(req.key());
  put.mutable_request_put()->set_value(req.value());
  return write(req.key(), exists_at(req.key(), req.resource_version()), std::move(put), 200);
}

KubeResponse Apiserver::remove(const kubeapi::DeleteRequest& req) {
  etcdserverpb::RequestOp del;
  del.mutable_request_delete_range()->set_key(req.key());
  del.mutable_request_delete_range()->set_prev_kv(true);
  return write(req.key(), exists_at(req.key(), req.resource_version()), std::move(del), 200);
}

// Sends the cache's events to a watch in order, moving `cursor` past each; false once the
// connection is gone.
bool Apiserver::send_events(const Connection& conn, uint64_t call, const std::vector<CacheEvent>& events, int64_t& cursor) {
  for (const CacheEvent& ce : events) {
    KubeResponse r;
    WatchEvent* e = r.mutable_event();
    e->set_type(wire_type(ce.type));
    e->mutable_object()->set_key(ce.key);
    e->mutable_object()->set_value(ce.value);
    e->mutable_object()->set_resource_version(ce.resource_version);
    e->set_cached_ns(ce.cached_ns);
    if (!send(conn, call, std::move(r))) return false;
    cursor = ce.resource_version;
    ++stats_->events_sent;
  }
  return true;
}

void Apiserver::watch(const std::shared_ptr<Connection>& conn, uint64_t call, const kubeapi::WatchRequest& req) {
  auto end_with = [&](int32_t code, const std::string& message) {
    KubeResponse r;
    WatchEvent* e = r.mutable_event();
    e->set_type(WatchEvent::ERROR);
    e->mutable_status()->set_code(code);
    e->mutable_status()->set_message(message);
    send(*conn, call, std::move(r));
  };
  ++stats_->watches;
  if (!selects_within_resource(req.key_prefix())) {
    end_with(400, "key prefix '" + req.key_prefix() + "' is not under " + options_.prefix);
    return;
  }
  // 0: from now on (no initial state is sent; the informers here always watch from a list's).
  int64_t cursor = req.resource_version() > 0 ? req.resource_version() : cacher_.cache().resource_version();
  int64_t told = cursor;  // the newest rv the client was told (an event or a bookmark); cursor may pass it
  if (!await_cache(cursor, sim_.now() + options_.watch_wait)) {
    end_with(504, "Too large resource version: " + std::to_string(cursor) + ", current: " +
                      std::to_string(cacher_.cache().resource_version()));
    return;
  }
  sim::TimeNs next_bookmark = sim_.now() + options_.bookmark_every;
  // Bounded by `until_` and the connection: every pass sends, waits for the cache, or sleeps.
  while (sim_.now() < until_) {
    if (!cacher_.ready()) {
      // The cache's etcd watch broke: end the watch (Kubernetes' terminateAllWatchers) so the
      // client resumes where the cache keeps up.
      ++stats_->terminated;
      end_with(503, "the watch cache is not ready: its etcd watch ended");
      return;
    }
    if (sim_.net().unread_bytes(conn->stream) > options_.watch_window_bytes) {
      // The client is not reading: wait for it while the cache moves on without us.
      if (sim_.sleep(sim::milliseconds(10)) != sim::WaitResult::kOk) return;
      continue;
    }
    int64_t newest = cursor;
    Result<std::vector<CacheEvent>> events = cacher_.cache().events_after(cursor, req.key_prefix(), newest);
    if (!events.is_ok() && options_.bugs.on(Bug::kDropOnRingWrap) &&
        cacher_.cache().oldest_watchable() > cursor) {
      // The bug: carry on from the oldest event the ring still has, as if nothing was lost.
      events = cacher_.cache().events_after(cacher_.cache().oldest_watchable(), req.key_prefix(), newest);
    }
    if (!events.is_ok()) {
      ++stats_->gone;
      DST_PROBE(kKubeWatchGone);
      end_with(410, events.status().message());
      return;
    }
    if (!send_events(*conn, call, *events, cursor)) return;
    if (!events->empty()) told = events->back().resource_version;
    cursor = std::max(cursor, newest);  // the events it did not select are passed over too
    // Everything up to the cache's resourceVersion went out: a bookmark may say so, also when
    // the newest events were not this watch's (a selected watch learns its rv moved on).
    if (req.allow_bookmarks() && sim_.now() >= next_bookmark && cacher_.cache().resource_version() > told) {
      cursor = told = cacher_.cache().resource_version();
      KubeResponse r;
      r.mutable_event()->set_type(WatchEvent::BOOKMARK);
      r.mutable_event()->mutable_object()->set_resource_version(cursor);
      send(*conn, call, std::move(r));
      ++stats_->bookmarks;
      next_bookmark = sim_.now() + options_.bookmark_every;
    }
    // Nothing new to mark when the bookmark was due: the next one a period later.
    if (sim_.now() >= next_bookmark) next_bookmark = sim_.now() + options_.bookmark_every;
    const sim::TimeNs wake = std::min(until_, req.allow_bookmarks() ? next_bookmark : until_);
    if (cacher_.changed().wait_until(wake) == sim::WaitResult::kCancelled) return;
  }
}

}  // namespace

ApiserverStats& ApiserverStats::operator+=(const ApiserverStats& o) {
  cache.lists += o.cache.lists;
  cache.watches += o.cache.watches;
  cache.events += o.cache.events;
  cache.progress += o.cache.progress;
  cache.refused += o.cache.refused;
  cache.compacted += o.cache.compacted;
  lists_from_etcd += o.lists_from_etcd;
  lists_from_cache += o.lists_from_cache;
  watches += o.watches;
  events_sent += o.events_sent;
  bookmarks += o.bookmarks;
  gone += o.gone;
  terminated += o.terminated;
  writes += o.writes;
  conflicts += o.conflicts;
  return *this;
}

void run_apiserver(sim::Simulator& sim, const ApiserverOptions& options, history::Recorder& recorder,
                   sim::TimeNs until, ApiserverStats* stats) {
  DST_ASSERT(!options.members.empty());
  DST_ASSERT(options.next_client_id != nullptr);
  DST_ASSERT(!options.prefix.empty());
  auto server = std::make_shared<Apiserver>(sim, options, recorder, until, stats);
  server->run();
}

}  // namespace dst::kube

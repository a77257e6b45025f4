#include "kube/cacher.h"

#include <memory>

#include "base/assert.h"
#include "base/probes.h"
#include "rpc/etcd_connection.h"
#include "client/etcdctl/etcdctl_parse.h"
#include "client/kv_client.h"
#include "client/watch_progress.h"

namespace dst::kube {

Cacher::Cacher(sim::Simulator& sim, CacherOptions options, history::Recorder& recorder, CacherStats* stats)
    : sim_(sim),
      options_(std::move(options)),
      recorder_(recorder),
      changed_(sim),
      range_end_(etcdctl::prefix_range_end(options_.prefix)),
      cache_(options_.capacity),
      stats_(stats != nullptr ? stats : &own_stats_) {
  DST_ASSERT(!options_.members.empty());
  DST_ASSERT(!options_.prefix.empty());
  DST_ASSERT(options_.next_client_id != nullptr);
}

void Cacher::run(sim::TimeNs until) {
  size_t member = 0;
  bool need_list = true;
  bool listed_before = false;
  // Bounded by `until`: every pass either waits (a LIST or watch takes time) or pauses.
  while (sim_.now() < until) {
    if (need_list && listed_before) DST_PROBE(kKubeCacheRelist);
    if (need_list) {
      need_list = !list(member);
      listed_before = listed_before || !need_list;
    }
    if (!need_list) need_list = watch(member, until);
    set_ready(false);  // the watch ended: the cache stops moving until the next one is created
    if (sim_.now() >= until) break;
    if (sim_.sleep(options_.retry_pause) != sim::WaitResult::kOk) break;
    member = (member + 1) % options_.members.size();
  }
}

void Cacher::set_ready(bool ready) {
  if (ready_ == ready) return;
  ready_ = ready;
  changed_.notify_all();
}

bool Cacher::list(size_t m) {
  client::KvClientOptions ko;
  ko.id = options_.next_client_id();
  ko.members = options_.members;
  ko.pinned = true;
  ko.pinned_member = m;
  ko.timeout = options_.request_timeout;
  client::KvClient kv(sim_, ko, recorder_);
  etcdserverpb::ApiRequest req;
  req.mutable_range()->set_key(options_.prefix);
  req.mutable_range()->set_range_end(range_end_);
  const history::Operation op = kv.execute(req);
  if (op.outcome != history::Outcome::kOk || !op.response.has_range()) return false;
  const etcdserverpb::RangeResponse& range = op.response.range();
  std::vector<mvccpb::KeyValue> objects(range.kvs().begin(), range.kvs().end());
  if (!cache_.replace(objects, range.header().revision()).is_ok()) return false;  // a member behind the cache
  ++stats_->lists;
  recorded_watch_ = kNoWatch;  // the next watch starts from this list: a new logical watch
  changed_.notify_all();
  return true;
}

bool Cacher::watch(size_t m, sim::TimeNs until) {
  auto conn = rpc::Connection::open(sim_.current_env(), options_.members[m]);
  if (!conn.is_ok()) return false;
  const uint64_t call = (*conn)->open_watch();
  etcdserverpb::WatchRequest create;
  etcdserverpb::WatchCreateRequest* c = create.mutable_create_request();
  c->set_key(options_.prefix);
  c->set_range_end(range_end_);
  c->set_start_revision(cache_.resource_version() + 1);
  c->set_prev_kv(true);
  c->set_progress_notify(true);
  if (recorded_watch_ == kNoWatch) recorded_watch_ = recorder_.watch_started(options_.next_client_id());
  history::WatchSegment segment;
  segment.member = static_cast<uint32_t>(m + 1);
  segment.created_ns = sim_.now();
  segment.request = *c;
  recorder_.segment_started(recorded_watch_, segment);
  if (!(*conn)->send_watch(call, create).is_ok()) {
    recorder_.segment_broken(recorded_watch_);
    return false;
  }
  ++stats_->watches;
  const bool need_list = follow(**conn, call, until);
  if (sim_.now() < until) recorder_.segment_broken(recorded_watch_);
  if (need_list) recorded_watch_ = kNoWatch;
  return need_list;
}

bool Cacher::follow(rpc::Connection& conn, uint64_t call, sim::TimeNs until) {
  client::WatchProgressPacer pacer(sim_, options_.progress_every, sim_.now() + options_.progress_every);
  while (sim_.now() < until) {
    auto r = pacer.next(conn, call, until);
    if (!r.is_ok()) return false;  // `until`, or the stream broke: resume from the cache's revision elsewhere
    recorder_.watch_response(recorded_watch_, history::WatchResponse{sim_.now(), *r});
    if (r->created() && !r->canceled()) set_ready(true);
    if (r->canceled()) {
      ++stats_->compacted;
      return true;  // compacted past the cache: only a LIST can catch up
    }
    for (const mvccpb::Event& e : r->events()) {
      if (!cache_.apply(e, sim_.now()).is_ok()) {
        ++stats_->refused;
        changed_.notify_all();
        return true;
      }
      ++stats_->events;
    }
    if (r->events_size() == 0 && !r->created() && r->header().revision() > 0) {
      cache_.progress(r->header().revision());
      ++stats_->progress;
    }
    changed_.notify_all();
  }
  return false;
}

}  // namespace dst::kube

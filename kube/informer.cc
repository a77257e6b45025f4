#include "kube/informer.h"

#include <algorithm>

#include "base/assert.h"
#include "base/probes.h"

namespace dst::kube {

namespace {

history::KubeObject to_record(const kubeapi::Object& o) {
  return history::KubeObject{o.key(), o.value(), o.resource_version()};
}

history::KubeWatchEvent::Type record_type(kubeapi::WatchEvent::Type t) {
  switch (t) {
    case kubeapi::WatchEvent::ADDED: return history::KubeWatchEvent::Type::kAdded;
    case kubeapi::WatchEvent::MODIFIED: return history::KubeWatchEvent::Type::kModified;
    case kubeapi::WatchEvent::DELETED: return history::KubeWatchEvent::Type::kDeleted;
    case kubeapi::WatchEvent::BOOKMARK: return history::KubeWatchEvent::Type::kBookmark;
    default: break;
  }
  DST_UNREACHABLE("an ERROR event is an end, not an event");
}

EventType store_type(kubeapi::WatchEvent::Type t) {
  switch (t) {
    case kubeapi::WatchEvent::ADDED: return EventType::kAdded;
    case kubeapi::WatchEvent::MODIFIED: return EventType::kModified;
    default: return EventType::kDeleted;
  }
}

std::string status_text(const kubeapi::Status& s) { return std::to_string(s.code()) + " " + s.message(); }

}  // namespace

Informer::Informer(sim::Simulator& sim, InformerOptions options, history::Recorder& recorder,
                   InformerStore::Handler handler)
    : sim_(sim),
      options_(std::move(options)),
      recorder_(recorder),
      store_(std::move(handler)),
      id_(recorder.informer_started(options_.client, options_.selector.empty() ? options_.prefix : options_.selector)) {
  DST_ASSERT(!options_.apiservers.empty());
  apiserver_ = options_.first_apiserver % options_.apiservers.size();
}

void Informer::run(sim::TimeNs until) {
  std::unique_ptr<KubeConnection> conn;
  Next next = Next::kListMostRecent;
  bool just_listed = false;
  bool listed_before = false;
  next_resync_ = options_.resync_every > 0 ? sim_.now() + options_.resync_every : until;
  // Bounded by `until`: every pass waits for an answer, a watch, or the retry pause.
  while (sim_.now() < until) {
    if (!conn || conn->broken()) {
      auto opened = KubeConnection::open(sim_, options_.apiservers[apiserver_]);
      if (!opened.is_ok()) {
        conn.reset();
        apiserver_ = (apiserver_ + 1) % options_.apiservers.size();
        if (sim_.sleep(options_.retry_pause) != sim::WaitResult::kOk) return;
        continue;
      }
      conn = std::move(opened).value();
    }
    if (next == Next::kWatch) {
      int64_t from = store_.resource_version();
      // The bug: the list's resourceVersion taken as etcd's inclusive start revision.
      if (just_listed && options_.bugs.on(Bug::kInformerResumeSkip)) ++from;
      just_listed = false;
      next = watch(*conn, from, until);
    } else {
      if (listed_before) DST_PROBE(kKubeInformerRelist);
      listed_before = true;
      next = list(*conn, next == Next::kListMostRecent ? 0 : store_.resource_version());
      just_listed = next == Next::kWatch;
    }
    if (next == Next::kStop) return;
    if (next != Next::kWatch && sim_.now() < until) {
      // Something failed: the next apiserver, after a pause (client-go's backoff's role).
      conn.reset();
      apiserver_ = (apiserver_ + 1) % options_.apiservers.size();
      if (sim_.sleep(options_.retry_pause) != sim::WaitResult::kOk) return;
    }
  }
}

Informer::Next Informer::list(KubeConnection& conn, int64_t requested_rv) {
  history::KubeList rec;
  rec.step = step_++;
  rec.apiserver = apiserver_number();
  rec.invoke_ns = sim_.now();
  rec.requested_rv = requested_rv;
  kubeapi::KubeRequest req;
  req.mutable_list()->set_resource_version(requested_rv);
  if (!options_.selector.empty()) req.mutable_list()->set_key_prefix(options_.selector);
  auto r = conn.call(req, options_.request_timeout);
  // Answered after finish() recorded the final state (the call may outlast `until` by its
  // timeout): the informer's history is closed, and a list after its end would contradict it.
  if (finished_) return Next::kStop;
  rec.return_ns = sim_.now();
  Next next = Next::kWatch;
  if (!r.is_ok()) {
    rec.error = (r.status().code() == StatusCode::kTimeout ? "timeout: " : "unavailable: ") + r.status().message();
    next = requested_rv == 0 ? Next::kListMostRecent : Next::kListNotOlder;
  } else if (r->status().code() != 200 || !r->has_list()) {
    rec.error = status_text(r->status());
    // "Too large resource version" and 410: ask for the most recent state instead.
    next = Next::kListMostRecent;
  } else {
    rec.ok = true;
    rec.resource_version = r->list().resource_version();
    std::vector<std::pair<std::string, CachedObject>> objects;
    for (const kubeapi::Object& o : r->list().items()) {
      rec.objects.push_back(to_record(o));
      objects.emplace_back(o.key(), CachedObject{o.value(), o.resource_version()});
    }
    recorder_.informer_list(id_, rec);
    if (Status s = store_.replace(objects, rec.resource_version); !s.is_ok()) {
      ++stats_.refused;
      return Next::kListMostRecent;
    }
    ++stats_.lists;
    return Next::kWatch;
  }
  ++stats_.list_failures;
  recorder_.informer_list(id_, rec);
  return next;
}

Informer::Next Informer::watch(KubeConnection& conn, int64_t from_rv, sim::TimeNs until) {
  history::KubeWatch rec;
  rec.step = step_++;
  rec.apiserver = apiserver_number();
  rec.created_ns = sim_.now();
  rec.from_rv = from_rv;
  recorder_.informer_watch_started(id_, rec);
  ++stats_.watches;
  auto end = [&](const std::string& why, Next next) {
    recorder_.informer_watch_ended(id_, why, sim_.now());
    return next;
  };
  kubeapi::WatchRequest req;
  req.set_resource_version(from_rv);
  req.set_allow_bookmarks(true);
  if (!options_.selector.empty()) req.set_key_prefix(options_.selector);
  auto call = conn.watch(req);
  if (!call.is_ok()) return end("broken: " + call.status().message(), Next::kListNotOlder);
  for (;;) {
    if (sim_.now() >= next_resync_ && options_.resync_every > 0) {
      store_.resync();
      ++stats_.resyncs;
      next_resync_ = sim_.now() + options_.resync_every;
    }
    if (sim_.now() >= until) {
      conn.close_watch(*call);
      return end("stopped", Next::kWatch);
    }
    auto e = conn.next_event(*call, std::min(until, next_resync_) - sim_.now());
    if (!e.is_ok()) {
      if (e.status().code() == StatusCode::kTimeout) continue;
      if (e.status().code() == StatusCode::kCancelled) return Next::kStop;
      return end("broken: " + e.status().message(), Next::kListNotOlder);
    }
    if (e->type() == kubeapi::WatchEvent::ERROR) {
      conn.close_watch(*call);
      if (e->status().code() != 410) return end(status_text(e->status()), Next::kListNotOlder);
      ++stats_.gone;
      return end(status_text(e->status()), Next::kListMostRecent);
    }
    history::KubeWatchEvent ev;
    ev.type = record_type(e->type());
    ev.at_ns = sim_.now();
    ev.cached_ns = e->cached_ns();
    ev.object = to_record(e->object());
    recorder_.informer_watch_event(id_, ev);
    if (e->type() == kubeapi::WatchEvent::BOOKMARK) {
      store_.bookmark(e->object().resource_version());
      ++stats_.bookmarks;
      continue;
    }
    ++stats_.events;
    const CacheEvent ce{store_type(e->type()), e->object().key(), e->object().value(), e->object().resource_version(),
                        e->cached_ns()};
    if (Status s = store_.apply(ce); !s.is_ok()) {
      ++stats_.refused;
      conn.close_watch(*call);
      return end("refused: " + s.message(), Next::kListMostRecent);
    }
  }
}

void Informer::finish() {
  DST_ASSERT_MSG(!finished_, "an informer's final state is recorded once");
  finished_ = true;
  std::vector<history::KubeObject> objects;
  for (const auto& [key, obj] : store_.objects()) objects.push_back(history::KubeObject{key, obj.value, obj.resource_version});
  recorder_.informer_finished(id_, sim_.now(), store_.resource_version(), objects);
}

}  // namespace dst::kube

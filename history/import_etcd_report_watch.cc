// One watch.json record of an etcd robustness report (a WatchOperation: the request and every
// response clientv3 delivered) as a dst watch of one segment (import_etcd_report.h).
#include <algorithm>
#include <string>

#include "history/import_etcd_report_reader.h"

namespace dst::history::report_import {

namespace {

// Request {Key, Revision, WithPrefix, WithProgressNotify, WithPrevKV}. clientv3 turns a prefix
// watch of "" into one of every key ("\0" to "\0"). etcd's traffic starts watches at a revision
// it read plus or minus up to 100, so a start below 1 is ordinary: etcd answers it as compacted,
// and it is read as 0 ("from now"), which asks nothing of the events that come.
void read_watch_request(Reader& r, const Value& v, etcdserverpb::WatchCreateRequest* q) {
  q->set_key(r.string(v, "Key"));
  q->set_start_revision(std::max<int64_t>(0, r.int64(v, "Revision")));
  if (r.boolean(v, "WithPrefix")) {
    if (q->key().empty()) q->set_key(std::string(1, '\0'));
    q->set_range_end(q->key() == std::string(1, '\0') ? q->key() : etcd_report::prefix_end(q->key()));
  }
  q->set_progress_notify(r.boolean(v, "WithProgressNotify"));
  q->set_prev_kv(r.boolean(v, "WithPrevKV"));
}

// An event {Type, Key, Value, Revision, IsCreate, PrevValue}. A put's create_revision and version
// are known only for a creation (IsCreate: created at this revision, version 1); the previous
// value's version is recorded, its create_revision only when that version is 1.
void read_event(Reader& r, const Value& v, mvccpb::Event* e) {
  const std::string type = r.string(v, "Type");
  auto* kv = e->mutable_kv();
  kv->set_key(r.string(v, "Key"));
  kv->set_mod_revision(r.int64(v, "Revision"));
  if (kv->mod_revision() < 1) r.fail(r.at(v, "Revision"), "Revision: expected the event's revision (>= 1)");
  if (type == "put-operation") {
    e->set_type(mvccpb::Event::PUT);
    kv->set_value(r.value(v, "Value"));
    if (r.boolean(v, "IsCreate")) {
      kv->set_create_revision(kv->mod_revision());
      kv->set_version(1);
    }
  } else if (type == "delete-operation") {
    e->set_type(mvccpb::Event::DELETE);
  } else {
    r.fail(v, "Type: expected put-operation or delete-operation, got '" + type + "'");
  }
  const Value* prev = r.object(v, "PrevValue");
  if (prev == nullptr) return;
  auto* p = e->mutable_prev_kv();
  p->set_key(kv->key());
  p->set_value(r.value(*prev, "Value"));
  p->set_mod_revision(r.int64(*prev, "ModRevision"));
  p->set_version(r.int64(*prev, "Version"));
  if (p->version() == 1) p->set_create_revision(p->mod_revision());
}

// A response {Events, IsProgressNotify, Revision, Time, Error}; false after an error (clientv3
// closes the watch's channel: it is canceled).
bool read_watch_response(Reader& r, const Value& v, WatchResponse* out) {
  out->at_ns = r.int64(v, "Time");
  auto& resp = out->response;
  resp.mutable_header()->set_revision(r.int64(v, "Revision"));
  if (const Value* events = r.array(v, "Events"))
    for (const Value& e : events->items()) read_event(r, e, resp.add_events());
  const std::string error = r.string(v, "Error");
  if (error.empty()) return true;
  resp.set_canceled(true);
  resp.set_cancel_reason(error);
  return false;
}

}  // namespace

void read_watch(Reader& r, const Value& record, Watch* w) {
  const Value* request = r.object(record, "Request");
  if (request == nullptr) return r.fail(record, "expected a WatchOperation with a Request (a watch.json record)");
  WatchSegment& seg = w->segments.emplace_back();
  read_watch_request(r, *request, &seg.request);
  const Value* responses = r.array(record, "Responses");
  if (responses == nullptr) return;
  bool open = true;
  for (const Value& v : responses->items()) {
    if (!open) return r.fail(v, "a response after the watch's error: clientv3 closes a watch's channel at its first "
                                "error, so nothing can follow it (a damaged report?)");
    open = read_watch_response(r, v, &seg.responses.emplace_back());
    if (seg.responses.size() == 1) seg.created_ns = seg.responses.front().at_ns;
  }
}

}  // namespace dst::history::report_import

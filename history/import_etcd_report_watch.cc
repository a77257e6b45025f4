// One watch.json record of an etcd robustness report (a WatchOperation: the request and every
// response clientv3 delivered) as a dst watch of one segment (import_etcd_report.h).
#include <string>

#include "history/import_etcd_report_reader.h"

namespace dst::history::report_import {

namespace {

// etcd's prefix end (clientv3.GetPrefixRangeEnd): the key with its last byte below 0xff raised by
// one, bytes after it dropped; "\0" (every key from `key` on) when there is none.
std::string prefix_end(const std::string& key) {
  std::string end = key;
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

// Request {Key, Revision, WithPrefix, WithProgressNotify, WithPrevKV}. clientv3 turns a prefix
// watch of "" into one of every key ("\0" to "\0").
void read_watch_request(Reader& r, const Value& v, etcdserverpb::WatchCreateRequest* q) {
  q->set_key(r.string(v, "Key"));
  q->set_start_revision(r.int64(v, "Revision"));
  if (q->start_revision() < 0) r.fail(v, "Revision: expected a start revision >= 0");
  if (r.boolean(v, "WithPrefix")) {
    if (q->key().empty()) q->set_key(std::string(1, '\0'));
    q->set_range_end(q->key() == std::string(1, '\0') ? q->key() : prefix_end(q->key()));
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
  if (kv->mod_revision() < 1) r.fail(v, "Revision: expected the event's revision (>= 1)");
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
  for (const Value& v : responses->items()) {
    const bool open = read_watch_response(r, v, &seg.responses.emplace_back());
    if (seg.responses.size() == 1) seg.created_ns = seg.responses.front().at_ns;
    if (!open) break;
  }
}

}  // namespace dst::history::report_import

// Compact one-line forms of etcd requests, responses and watch responses for timeline labels:
// "put key/3=c2.17 -> rev 412", "get key/3 -> c1.9 @409",
// "txn if mod(key/1)=400 then put key/1=x -> succeeded @413". The tables use the etcd checker's
// own describe_response() for the full response.
#pragma once

#include <string>

#include "history/history.h"

namespace dst::reports {

// The request alone: "put key/3=c2.17", "get key/0..key/9 limit 5", "txn if(...) then(...) else(...)".
std::string short_request(const etcdserverpb::ApiRequest& request);
// What came back, short: "rev 412", "c1.9 @409", "(none) @409", "3 kvs @409", "succeeded @413",
// "error \"...\"", "?" for an unknown outcome without an answer.
std::string short_response(const history::Operation& op);
// "<request> -> <response>".
std::string short_operation(const history::Operation& op);

// A watch response's tick label: "r412", "r412..415 (3)", "progress r420", "created",
// "canceled compact r300".
std::string watch_response_label(const etcdserverpb::WatchResponse& response);
// Its events, one per item: "PUT key/3=c2.17 @412; DELETE key/4 @413".
std::string watch_response_events(const etcdserverpb::WatchResponse& response);
// The watched range and start: "key/..key0 from r12 prev_kv".
std::string watch_request_text(const etcdserverpb::WatchCreateRequest& request);

}  // namespace dst::reports

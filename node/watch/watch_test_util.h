// Test support for node/watch: a real KvStore over a real Backend in a node fiber, with a
// WatchableStore on it, and compact renderings of responses for assertions.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "node/backend/backend_test_util.h"
#include "node/mvcc/kv_store.h"
#include "node/watch/watchable_store.h"

namespace dst::watch::testing {

using backend::testing::World;

inline const std::string kAll(1, '\0');

// Runs body(kv, ws) in a fiber with a fresh store at `path` on `w`.
template <typename F>
void with_watch_store(World& w, F body, WatchOptions options = {}, const std::string& path = "n1/backend.db") {
  bool ran = w.run([&] {
    auto be = backend::Backend::open(w.env(), path);
    ASSERT_TRUE(be.is_ok()) << be.status().to_string();
    auto kv = mvcc::KvStore::open(**be);
    ASSERT_TRUE(kv.is_ok()) << kv.status().to_string();
    WatchableStore ws(**kv, options);
    body(**kv, ws);
  });
  ASSERT_TRUE(ran);
}

inline int64_t put(mvcc::KvStore& s, const std::string& k, const std::string& v) {
  mvcc::WriteTxn t = s.write();
  EXPECT_TRUE(t.put(k, v, 0).is_ok());
  return t.end();
}

inline int64_t del(mvcc::KvStore& s, const std::string& k, const std::string& end = "") {
  mvcc::WriteTxn t = s.write();
  EXPECT_TRUE(t.delete_range(k, end).is_ok());
  return t.end();
}

struct Create {
  std::string key{};
  std::string end{};
  int64_t start = 0;
  bool prev_kv = false;
  bool progress_notify = false;
  bool no_put = false;
  bool no_delete = false;
  int64_t id = 0;
};

inline etcdserverpb::WatchCreateRequest request(const Create& c) {
  etcdserverpb::WatchCreateRequest r;
  r.set_key(c.key);
  r.set_range_end(c.end);
  r.set_start_revision(c.start);
  r.set_prev_kv(c.prev_kv);
  r.set_progress_notify(c.progress_notify);
  r.set_watch_id(c.id);
  if (c.no_put) r.add_filters(etcdserverpb::WatchCreateRequest::NOPUT);
  if (c.no_delete) r.add_filters(etcdserverpb::WatchCreateRequest::NODELETE);
  return r;
}

// "PUT foo=bar@2/3/v2" (create/mod/version) or "DELETE foo@7"; prev_kv as " (prev bar@2/2/v1)".
// A DELETE whose kv holds more than key and mod_revision is rendered "DELETE!", so tests catch it.
inline std::string describe(const mvccpb::Event& ev) {
  const mvccpb::KeyValue& kv = ev.kv();
  std::string s;
  if (ev.type() == mvccpb::Event::DELETE) {
    mvccpb::KeyValue only;
    only.set_key(kv.key());
    only.set_mod_revision(kv.mod_revision());
    bool bare = kv.SerializeAsString() == only.SerializeAsString();
    s = std::string(bare ? "DELETE " : "DELETE! ") + kv.key() + "@" + std::to_string(kv.mod_revision());
  } else {
    s = "PUT " + kv.key() + "=" + kv.value() + "@" + std::to_string(kv.create_revision()) + "/" +
        std::to_string(kv.mod_revision()) + "/v" + std::to_string(kv.version());
  }
  if (ev.has_prev_kv()) {
    const mvccpb::KeyValue& p = ev.prev_kv();
    s += " (prev " + p.value() + "@" + std::to_string(p.create_revision()) + "/" +
         std::to_string(p.mod_revision()) + "/v" + std::to_string(p.version()) + ")";
  }
  return s;
}

// "w0 rev=12 created", "w0 rev=12 [PUT ..., DELETE ...]", "w0 canceled compact=8" (no header
// revision), "w0 rev=5 canceled", "w-1 rev=25" (progress).
inline std::string describe(const etcdserverpb::WatchResponse& r) {
  std::string s = "w" + std::to_string(r.watch_id());
  if (r.header().revision() != 0) s += " rev=" + std::to_string(r.header().revision());
  if (r.created()) s += " created";
  if (r.canceled()) s += " canceled";
  if (r.compact_revision() != 0) s += " compact=" + std::to_string(r.compact_revision());
  if (r.events_size() > 0) {
    s += " [";
    for (int i = 0; i < r.events_size(); ++i) s += (i ? ", " : "") + describe(r.events(i));
    s += "]";
  }
  return s;
}

// Pops everything queued on the stream.
inline std::vector<std::string> drain(WatchableStore& ws, StreamId stream) {
  std::vector<std::string> out;
  // Bounded by the queue's size: nothing is queued while popping.
  while (auto r = ws.pop(stream)) out.push_back(describe(*r));
  return out;
}

// Runs sync_step until it has nothing more to do now, then drains the stream.
inline std::vector<std::string> sync_and_drain(WatchableStore& ws, StreamId stream) {
  for (int i = 0; i < 1000 && ws.sync_step(); ++i) {
  }
  return drain(ws, stream);
}

using Lines = std::vector<std::string>;

}  // namespace dst::watch::testing

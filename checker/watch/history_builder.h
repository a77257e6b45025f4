// Tests only: builds a history::History the way a correct etcd would have produced it, so a test
// states a scenario in a few lines and then breaks exactly one thing in it.
//
// Writes apply to a model store (revisions, create_revision, version, prev values as etcd's MVCC
// keeps them) and are recorded as operations with their responses; watches deliver the model's
// events that match their request (range, filters, prev_kv) in responses the test chooses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "history/history.h"
#include "proto/etcd_kv.pb.h"

namespace dst::checker::watch::testing {

// One write of a txn: a put of `value`, or a delete of `key` when `is_delete`.
struct TxnWrite {
  std::string key;
  std::string value;
  bool is_delete = false;
};

class HistoryBuilder {
 public:
  // Each write returns the revision it made (the current revision if it changed nothing). With
  // `applied` false and outcome kUnknown the write is recorded but never takes effect.
  int64_t put(const std::string& key, const std::string& value, int64_t lease = 0,
              history::Outcome outcome = history::Outcome::kOk, bool applied = true);
  int64_t del(const std::string& key, history::Outcome outcome = history::Outcome::kOk);
  int64_t del_range(const std::string& key, const std::string& range_end, bool prev_kv = false,
                    history::Outcome outcome = history::Outcome::kOk);
  int64_t txn(const std::vector<TxnWrite>& writes, history::Outcome outcome = history::Outcome::kOk);
  void compact(int64_t revision);

  int64_t revision() const { return revision_; }
  // The model's events at a revision, each with prev_kv set where the key existed before.
  const std::vector<mvccpb::Event>& events_at(int64_t revision) const;
  // The events of revisions [from, to] a watch with this request receives (prev_kv only if asked).
  std::vector<mvccpb::Event> matching(const etcdserverpb::WatchCreateRequest& request, int64_t from, int64_t to) const;

  // Starts a watch (its first segment on `member`); returns its index = its id.
  size_t watch(const etcdserverpb::WatchCreateRequest& request, uint32_t client = 1, uint32_t member = 1);
  void created(size_t w, int64_t header_revision);
  // One response with the matching events of revisions [from, to]; returns the response index
  // (SIZE_MAX, and no response, when none match: an empty response would be a progress notification).
  size_t deliver(size_t w, int64_t from, int64_t to);
  size_t respond(size_t w, const std::vector<mvccpb::Event>& events);
  void progress(size_t w, int64_t revision, int64_t watch_id = -1);
  void cancel(size_t w, int64_t compact_revision);
  // The current segment broke; a new one starts on `member` from `start_revision`.
  void resume(size_t w, int64_t start_revision, uint32_t member = 2);

  history::History& history() { return history_; }
  history::WatchSegment& segment(size_t w, size_t s) { return history_.watches.at(w).segments.at(s); }
  int64_t now_ns() const { return now_ns_; }

 private:
  struct KeyState {
    bool exists = false;
    mvccpb::KeyValue kv;
  };
  int64_t tick();
  history::Operation& record(history::Outcome outcome);
  // Applies one revision's changes to the model; returns the new revision (unchanged if none).
  int64_t apply(const std::vector<TxnWrite>& writes, int64_t lease);
  history::WatchSegment& current(size_t w);

  history::History history_;
  std::map<std::string, KeyState> store_;
  std::map<int64_t, std::vector<mvccpb::Event>> events_;
  int64_t revision_ = 1;
  int64_t now_ns_ = 0;
};

etcdserverpb::WatchCreateRequest watch_request(const std::string& key, const std::string& range_end = "",
                                               int64_t start_revision = 0, bool prev_kv = false);

}  // namespace dst::checker::watch::testing

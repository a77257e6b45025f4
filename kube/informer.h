// A client-go informer (SharedInformer's reflector and store) in a controller process: LIST the
// resource from an apiserver, then WATCH from the list's resourceVersion, applying every event
// to its InformerStore, whose notifications go to the controller's handler. Like client-go's
// reflector:
// - the first LIST asks for the most recent state (resourceVersion 0 here: a consistent read);
// - a watch that breaks or times out is followed by a LIST "not older than" the informer's
//   resourceVersion (served from the apiserver's cache), then a new WATCH; the next apiserver is
//   tried when one cannot be reached;
// - 410 Gone ("too old resource version") and "too large resource version" mean a LIST for the
//   most recent state instead; a watch ended by another error counts as a break;
// - every `resync_every` the store replays its objects as updates.
// An event the store cannot fit (the feed lost or reordered something) is recorded and answered
// with a fresh LIST. Everything the informer receives is recorded (history::Informer) for the
// kube checks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/bugs.h"
#include "history/recorder.h"
#include "kube/informer_store.h"
#include "kube/kube_client.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::kube {

struct InformerOptions {
  uint32_t client = 0;  // recorded with the informer
  std::string prefix = "/registry/pods/";
  // Non-empty: list and watch only the objects under this key prefix (within `prefix`), as a
  // kubelet selects its node's pods; recorded as the informer's prefix, so the checks hold it to
  // exactly that part of the resource.
  std::string selector;
  std::vector<sim::Address> apiservers;
  size_t first_apiserver = 0;
  sim::DurationNs request_timeout = sim::seconds(5);
  sim::DurationNs retry_pause = sim::milliseconds(200);
  sim::DurationNs resync_every = 0;  // 0: never
  Bugs bugs;  // the run's bugs (base/bugs.h), passed down unchanged
};

struct InformerStats {
  uint64_t lists = 0, list_failures = 0, watches = 0, events = 0, bookmarks = 0, gone = 0, refused = 0, resyncs = 0;
};

class Informer {
 public:
  Informer(sim::Simulator& sim, InformerOptions options, history::Recorder& recorder, InformerStore::Handler handler);

  // Lists and watches in the calling fiber until virtual time `until`.
  void run(sim::TimeNs until);
  // Records the store as it is now, as the informer's final state (once, after run()).
  void finish();

  const InformerStore& store() const { return store_; }
  const InformerStats& stats() const { return stats_; }
  uint64_t id() const { return id_; }

 private:
  // kStop: the process is going away (every blocking call now returns kCancelled), or finish() ran.
  enum class Next : uint8_t { kListMostRecent, kListNotOlder, kWatch, kStop };
  // One LIST; returns what to do next.
  Next list(KubeConnection& conn, int64_t requested_rv);
  // One WATCH until it ends or `until`; returns what to do next.
  Next watch(KubeConnection& conn, int64_t from_rv, sim::TimeNs until);
  uint32_t apiserver_number() const { return static_cast<uint32_t>(apiserver_ + 1); }

  sim::Simulator& sim_;
  InformerOptions options_;
  history::Recorder& recorder_;
  InformerStore store_;
  InformerStats stats_;
  uint64_t id_ = 0;
  uint64_t step_ = 0;
  bool finished_ = false;  // finish() ran: nothing more is recorded
  size_t apiserver_ = 0;
  sim::TimeNs next_resync_ = 0;
};

}  // namespace dst::kube

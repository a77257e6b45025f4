// A controller process, the consumer end of the pipeline: an informer on the resource, a
// rate-limited workqueue fed by the informer's notifications, and workers that reconcile keys
// with optimistic concurrency, plus a writer that creates, updates and deletes objects through
// the apiservers, together producing Kubernetes-style apiserver traffic.
//
// Reconcile: an object whose value has no status yet gets one ("<value>;status=c<n>-<k>"),
// written as an UPDATE at the object's resourceVersion as the informer holds it. A 409 Conflict
// (another controller, or a stale informer) or a failed request re-queues the key with backoff;
// success or 404 forgets it. Every key a worker takes is recorded (history::KubeProcessed) with
// what the informer held then, for the workqueue check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/bugs.h"
#include "history/recorder.h"
#include "kube/informer.h"
#include "kube/kube_client.h"
#include "kube/workqueue.h"
#include "sim/network.h"
#include "sim/simulator.h"
#include "sim/sync.h"

namespace dst::kube {

struct ControllerOptions {
  uint32_t index = 1;  // 1-based; names its keys and status values
  uint32_t client = 0;  // recorded with its informer
  std::string prefix = "/registry/pods/";
  std::vector<sim::Address> apiservers;
  size_t workers = 2;
  sim::DurationNs reconcile_time = sim::milliseconds(2);  // a worker's own work per key
  // The writer: this many object changes a second (0: none) on keys "<prefix>c<index>-<k>",
  // k < keys; each a create, an update or a delete.
  double writes_per_second = 3;
  size_t keys = 10;
  sim::DurationNs request_timeout = sim::seconds(5);
  sim::DurationNs resync_every = sim::seconds(10);
  WorkqueueOptions queue;
  Bugs bugs;  // the run's bugs (base/bugs.h), passed down unchanged
};

struct ControllerStats {
  uint64_t reconciled = 0, updates = 0, conflicts = 0, failures = 0, writes = 0, write_failures = 0;
  InformerStats informer;
};

class Controller : public std::enable_shared_from_this<Controller> {
 public:
  // Starts the controller's fibers in the calling fiber's process: the writer until
  // `writes_until`, the informer and the workers until `until`. The fibers share the returned
  // object; the last one to end (or the caller's copy) destroys it.
  static std::shared_ptr<Controller> start(sim::Simulator& sim, const ControllerOptions& options,
                                           history::Recorder& recorder, sim::TimeNs writes_until, sim::TimeNs until);
  Controller(sim::Simulator& sim, const ControllerOptions& options, history::Recorder& recorder);

  // Records the informer's store as its final state. Called by the world (not a fiber of the
  // controller, whose timers a pause shifts) once `until` has passed.
  void finish() { informer_.finish(); }
  ControllerStats stats() const;

 private:
  static InformerOptions informer_options(const ControllerOptions& o);
  void on_notification(const Notification& n);
  void worker(sim::TimeNs until);
  void reconcile(const std::string& key);
  void writer(sim::TimeNs until);
  // One call on the controller's shared connection to the current apiserver; a transport failure
  // moves to the next apiserver.
  Result<kubeapi::KubeResponse> call(const kubeapi::KubeRequest& req);

  sim::Simulator& sim_;
  const ControllerOptions options_;
  history::Recorder& recorder_;
  Workqueue queue_;
  sim::WaitQueue wake_;  // a key was queued
  sim::Rng& rng_;
  Informer informer_;
  std::shared_ptr<KubeConnection> conn_;
  size_t apiserver_ = 0;
  uint64_t writes_ = 0, statuses_ = 0;
  ControllerStats stats_;
};

}  // namespace dst::kube

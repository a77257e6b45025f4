// What the Kubernetes-style clients of a run saw (issue #8): every informer's LISTs and WATCH
// streams from the apiservers, what its controller processed from the workqueue, and the
// informer's store at the end of the run. Part of History (history.h); the apiservers' own etcd
// traffic (the cache's LIST and watch, the writes as txns) is recorded as ordinary operations and
// watches, so the etcd checkers judge it and the kube checks compare against it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dst::history {

// An object as an apiserver sent it: the etcd key, the value, and its resourceVersion (the etcd
// revision of its last change, mod_revision).
struct KubeObject {
  std::string key;
  std::string value;
  int64_t resource_version = 0;
};

// One LIST an informer sent to an apiserver and what came back.
struct KubeList {
  uint64_t step = 0;           // the informer's step counter: lists and watches in the order they happened
  uint32_t apiserver = 0;      // 1-based
  int64_t invoke_ns = 0;
  int64_t return_ns = 0;
  // The resourceVersion asked for, with Kubernetes' meaning: 0 = "most recent" (a consistent read
  // from etcd); > 0 = "not older than" (served from the watch cache once it has reached it).
  int64_t requested_rv = 0;
  bool ok = false;
  std::string error;           // !ok: "410 too old resource version", "504 timeout", "unavailable: ..."
  int64_t resource_version = 0;  // ok: the list's resourceVersion
  std::vector<KubeObject> objects;  // ok: sorted by key
};

// One event of a WATCH stream.
struct KubeWatchEvent {
  enum class Type : uint8_t { kAdded, kModified, kDeleted, kBookmark };
  Type type = Type::kAdded;
  int64_t at_ns = 0;  // when the informer received it
  // When the serving apiserver's watch cache took the event in (0: unknown; bookmarks), for the
  // propagation-delay plots: etcd -> cache -> informer.
  int64_t cached_ns = 0;
  // Added/modified: the object after the change; deleted: the object as it was last (its
  // resource_version is the revision of the deletion, as Kubernetes sends it). Bookmark: only
  // resource_version.
  KubeObject object;
};
const char* kube_event_type_name(KubeWatchEvent::Type t);  // "ADDED", "MODIFIED", "DELETED", "BOOKMARK"

// One WATCH an informer opened on an apiserver: from `from_rv`, every event after it.
struct KubeWatch {
  uint64_t step = 0;
  uint32_t apiserver = 0;
  int64_t created_ns = 0;
  int64_t from_rv = 0;
  std::vector<KubeWatchEvent> events;  // in arrival order
  // How it ended: empty while it ran (or it ran until the end of the run); "410 too old resource
  // version" (the informer re-lists); "broken: ..." (the stream broke; the informer re-watches
  // from its resourceVersion); "stopped" (the informer stopped at the end of the run).
  std::string end;
  int64_t ended_ns = 0;
};

// One key a controller took from its workqueue and reconciled, with what its informer held then.
struct KubeProcessed {
  int64_t at_ns = 0;
  std::string key;
  int64_t informer_rv = 0;     // the informer's resourceVersion at that moment
  bool present = false;        // the key was in the informer's store
  int64_t object_rv = 0;       // present: the object's resourceVersion there
};

// An informer recorded under a client id from here on belongs to a process without a workqueue (a
// kubelet: it lists and watches, and acts on nothing the checks can see); the workqueue check
// skips it, every other check holds it like any informer.
inline constexpr uint32_t kInformerWithoutWorkqueueClientIdBase = 3'100'000;

struct Informer {
  uint64_t id = 0;
  uint32_t client = 0;   // the controller process it belongs to
  std::string prefix;    // the resource's etcd prefix, e.g. "/registry/pods/"
  std::vector<KubeList> lists;
  std::vector<KubeWatch> watches;
  std::vector<KubeProcessed> processed;
  // The store when the run ended (after the settle period).
  bool finished = false;
  int64_t final_ns = 0;
  int64_t final_rv = 0;
  std::vector<KubeObject> final_objects;  // sorted by key
};

}  // namespace dst::history

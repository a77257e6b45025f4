// Workload profiles: what the clients of a run do, chosen by name, modelled on the traffic etcd's
// own robustness tests generate. Every written value is unique ("c3.17": client 3, its 17th
// write), so a write can be identified in reads and watch events.
//
//   etcd-kv     get (linearizable), stale get (serializable), list (prefix range), scans with
//               every range option, put (prev_kv, ignore_value, ignore_lease), delete (prev_kv,
//               ranges), put with a lease, lease grant, revoke, keep-alive and time-to-live,
//               multi-op txn, compare-and-set on mod_revision and on the value (etcd_kv_turn.h)
//   kubernetes  keys /registry/<resource>/<name>: paginated list, create (txn: create_revision
//               == 0), optimistic update and delete guarded by mod_revision; watchers list, then
//               watch the prefix from the list's revision + 1 (what an informer does)
//   register    one key per few clients: read, write, compare-and-swap on the value
//
// Periodic compaction is part of the load (a compactor client compacts to a recent revision).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "client/etcd_kv_turn.h"
#include "client/watch_client.h"
#include "client/watch_mix.h"
#include "history/recorder.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::client {

enum class Profile { kEtcdKv, kKubernetes, kRegister };
Result<Profile> parse_profile(std::string_view name);  // the error lists the profiles
std::string_view profile_name(Profile p);

struct WorkloadOptions {
  Profile profile = Profile::kEtcdKv;
  size_t clients = 4;
  double rate = 50;                 // operations per second per client (exponential gaps)
  size_t keys = 10;                 // distinct keys (per resource for kubernetes)
  // Values are their unique name ("c3.17") padded to this many bytes (0: no padding): big values
  // fill the backend, snapshots and the quota.
  size_t value_bytes = 0;
  size_t watchers = 2;              // watch clients
  // Watch fan-out (watch_fanout.h): `fanout_watches` watches spread evenly over `fanout_streams`
  // streams, each stream a client of its own carrying its share multiplexed, on single keys, key
  // prefixes and the whole prefix (draw_fanout_watch), until the watchers' end.
  size_t fanout_streams = 0;
  size_t fanout_watches = 0;
  sim::DurationNs compaction_every = sim::seconds(5);  // 0: no compaction
  // The compactor compacts this many revisions below the newest it read (0: at it, as
  // Kubernetes' compactor does when nothing was written since its last look).
  int64_t compaction_keep = 20;
  sim::DurationNs request_timeout = sim::seconds(2);
  // Some clients pin one member (drawn per client, with failover and round robin); false: none.
  bool mix_pinned = true;
  // The etcd-kv profile's request kinds and options (etcd_kv_turn.h).
  KvMix kv_mix;
  // How the watchers watch, start, restart and read (watch_mix.h).
  WatchMix watch_mix;
};

struct WorkloadStats {
  uint64_t operations = 0, ok = 0, failed = 0, unknown = 0;
  uint64_t watch_events = 0, watch_segments = 0, watches_canceled = 0, watches_rewound = 0;
  uint64_t fanout_watches = 0, fanout_streams_opened = 0, fanout_stray_responses = 0;
};

// Starts the clients (each a process on a host of its own) and runs them until `until`.
class Workload {
 public:
  Workload(sim::Simulator& sim, std::vector<sim::Address> members, WorkloadOptions options,
           history::Recorder& recorder);
  // Starts the clients (each a process on a host of its own): KV clients and the compactor run
  // until `until`, watchers until `watchers_until` (later, so that they also see the writes that
  // were still in flight when the clients stopped).
  void start(sim::TimeNs until, sim::TimeNs watchers_until);
  const WorkloadStats& stats() const { return stats_; }
  // Faults on the watch clients (faults::WorkloadTarget, through the world). Watchers are 1-based;
  // each acts at its next response (watch_client.h, WatchControl).
  size_t watchers() const { return controls_.size(); }
  void stall_watcher(size_t n, sim::TimeNs until);
  // The KV clients (1-based, as the nemesis numbers them): a stall acts at once, and never lasts
  // past the clients' end.
  size_t clients() const { return client_stalls_.size(); }
  void stall_client(size_t n, sim::TimeNs until);
  void rewind_watcher(size_t n, int64_t revisions);
  // Hosts of the clients (for partitions that cut clients off).
  const std::vector<sim::HostId>& client_hosts() const { return hosts_; }

 private:
  void run_client(uint32_t id, sim::TimeNs until);
  void run_watcher(uint32_t id, sim::TimeNs until);
  void run_compactor(uint32_t id, sim::TimeNs until);
  void run_fanout_stream(uint32_t id, sim::TimeNs until);
  // clientv3's lease keep-alive stream for client `id` (see workload.cc).
  void run_keep_alives(uint32_t id, std::shared_ptr<ClientState> state, size_t member, sim::TimeNs until);
  void count(const history::Operation& op);
  // Counts a finished watch; false when the watcher is done (neither canceled nor rewound).
  bool account_watch(const WatchClientResult& r, int64_t& compact_revision, std::optional<int64_t>& rewind_to);
  // The store's revision, from a list of `prefix` on `member` (recorded like any read).
  std::optional<int64_t> read_revision(uint32_t id, size_t member, const std::string& prefix);

  sim::Simulator& sim_;
  std::vector<sim::Address> members_;
  WorkloadOptions options_;
  history::Recorder& recorder_;
  WorkloadStats stats_;
  std::vector<sim::HostId> hosts_;
  std::vector<WatchControl> controls_;  // one per watcher, never resized (the clients hold pointers)
  std::vector<sim::TimeNs> client_stalls_;  // one per KV client, never resized (KvClientOptions::stalled_until)
  sim::TimeNs clients_until_ = 0;           // when the KV clients stop (start())
  uint32_t first_fanout_id_ = 0;            // the first fan-out stream's client id (start())
};

}  // namespace dst::client

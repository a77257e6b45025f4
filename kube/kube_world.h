// The Kubernetes side of a run: apiserver processes and controller processes, each on a host of
// its own, on top of the etcd cluster, with the faults a scenario can inject into them (an
// apiserver crash and restart, an apiserver cut off from etcd, a paused controller: a slow
// consumer), carried out for faults::Nemesis (which records their windows). Everything they see
// is recorded for the kube checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/bugs.h"
#include "faults/kube_target.h"
#include "history/recorder.h"
#include "kube/apiserver.h"
#include "kube/controller.h"
#include "kube/informer.h"
#include "sim/network.h"
#include "sim/simulator.h"

namespace dst::kube {

struct KubeWorldOptions {
  size_t apiservers = 2;
  size_t controllers = 3;
  std::string prefix = "/registry/pods/";
  size_t cache_capacity = 100;
  double writes_per_second = 3;  // per controller
  size_t keys = 10;              // per controller
  sim::DurationNs resync_every = sim::seconds(10);
  // Informer-only processes, as kubelets are to pods: each lists and watches a part of the resource
  // (a selector: the controllers' objects under one key's name) through an apiserver (spread over
  // them in turn) and never writes. Recorded and checked as the controllers' informers are.
  size_t informers = 0;
  Bugs bugs;  // the run's bugs (base/bugs.h), passed down unchanged
};

// Etcd client ids of the apiservers' requests and watches, far above the workload's and the
// scenario's; informers are recorded under kInformerClientIdBase + controller number.
inline constexpr uint32_t kApiserverClientIdBase = 2'000'000;
inline constexpr uint32_t kApiserverClientIdsMax = 1'000'000;
inline constexpr uint32_t kInformerClientIdBase = 3'000'000;
// The most apiservers and controllers a world may have (hosts are cheap, but a typo must not
// start ten thousand processes).
inline constexpr size_t kKubeProcessesMax = 64;
// The most informer-only processes (KubeWorldOptions::informers); recorded under
// history::kInformerWithoutWorkqueueClientIdBase + their number.
inline constexpr size_t kKubeInformersMax = 10'000;

class KubeWorld : public faults::KubeTarget {
 public:
  // `members`: the etcd members' client addresses.
  KubeWorld(sim::Simulator& sim, KubeWorldOptions options, std::vector<sim::Address> members,
            history::Recorder& recorder);
  KubeWorld(const KubeWorld&) = delete;
  KubeWorld& operator=(const KubeWorld&) = delete;

  // Starts every apiserver and controller: controllers write until `writes_until`; informers
  // and workers run until `until`; right after it each informer records its final store.
  void start(sim::TimeNs writes_until, sim::TimeNs until);

  // Faults (faults::KubeTarget: 1-based numbers, idempotent; the nemesis records the windows).
  size_t apiservers() const override { return apiservers_.size(); }
  size_t controllers() const override { return controllers_.size(); }
  bool apiserver_crashed(size_t n) const override;
  bool apiserver_cut(size_t n) const override;
  bool controller_paused(size_t n) const override;
  void crash_apiserver(size_t n) override;
  void restart_apiserver(size_t n) override;
  void cut_apiserver(size_t n) override;  // from every etcd member, both ways
  void reconnect_apiserver(size_t n) override;
  void pause_controller(size_t n) override;
  void resume_controller(size_t n) override;
  // Undoes every kube fault still in force (the end of the fault phase).
  void heal();

  // One line per apiserver and controller: what it did.
  std::vector<std::string> summary() const;

 private:
  struct ApiserverHost {
    sim::HostId host = 0;
    sim::ProcessId process = sim::kNoProcess;
    bool crashed = false, cut = false;
    ApiserverStats stats;     // of its current incarnation
    ApiserverStats previous;  // of the incarnations before it, summed
    uint64_t restarts = 0;
  };
  struct ControllerHost {
    sim::HostId host = 0;
    sim::ProcessId process = sim::kNoProcess;
    bool paused = false;
    // Running: shared with its fibers. Released once its informer recorded its final store, so
    // that nothing of it outlives the simulation; `stats` then holds what it did.
    std::shared_ptr<Controller> controller;
    ControllerStats stats;
  };
  struct InformerHost {
    sim::HostId host = 0;
    sim::ProcessId process = sim::kNoProcess;
    // Running: shared with its fiber; released once it recorded its final store.
    std::shared_ptr<Informer> informer;
    InformerStats stats;
  };
  void launch_apiserver(size_t i);
  void launch_controllers(const std::vector<sim::Address>& endpoints, sim::TimeNs writes_until);
  void launch_informers(const std::vector<sim::Address>& endpoints);
  // Right after the run: every informer records its final store.
  void finish_informers();
  std::string informers_summary() const;  // the kubelets' informers, summed
  static size_t index(size_t n, size_t count, const char* what);  // 1-based n, asserted; 0-based index
  void set_apiserver_reachable(size_t n, bool reachable);

  sim::Simulator& sim_;
  KubeWorldOptions options_;
  std::vector<sim::Address> members_;
  history::Recorder& recorder_;
  std::vector<ApiserverHost> apiservers_;
  std::vector<ControllerHost> controllers_;
  std::vector<InformerHost> informers_;
  sim::TimeNs until_ = 0;
  uint32_t next_client_id_ = 0;
};

}  // namespace dst::kube

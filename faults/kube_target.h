// What the nemesis acts on in the Kubernetes layer: apiservers and controllers, each a process on
// a host of its own. The world that built them implements it (kube::KubeWorld); the nemesis
// records the fault windows, the target only carries the actions out.
//
// Numbers are 1-based and checked by the nemesis before it calls; every action is idempotent.
#pragma once

#include <cstddef>

namespace dst::faults {

class KubeTarget {
 public:
  virtual ~KubeTarget() = default;

  virtual size_t apiservers() const = 0;
  virtual size_t controllers() const = 0;
  virtual bool apiserver_crashed(size_t n) const = 0;
  virtual bool apiserver_cut(size_t n) const = 0;
  virtual bool controller_paused(size_t n) const = 0;

  virtual void crash_apiserver(size_t n) = 0;
  virtual void restart_apiserver(size_t n) = 0;
  virtual void cut_apiserver(size_t n) = 0;  // from every etcd member, both ways
  virtual void reconnect_apiserver(size_t n) = 0;
  virtual void pause_controller(size_t n) = 0;
  virtual void resume_controller(size_t n) = 0;
};

}  // namespace dst::faults

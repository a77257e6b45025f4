// The nemesis of a simulated cluster: the one executor (faults::Nemesis) acting on a SimCluster,
// and the driver that runs random or replayed steps in time on the cluster's fault host. Worlds
// and tests that want faults make one of these next to their cluster.
#pragma once

#include "faults/nemesis.h"
#include "faults/random_faults.h"
#include "history/recorder.h"
#include "world/sim_cluster.h"

namespace dst::world {

struct ClusterNemesis {
  ClusterNemesis(SimCluster& cluster, history::Recorder& recorder)
      : nemesis(cluster.simulator(), cluster, recorder), driver(cluster.simulator(), cluster.fault_host(), nemesis) {}

  faults::Nemesis nemesis;
  faults::FaultDriver driver;
};

}  // namespace dst::world

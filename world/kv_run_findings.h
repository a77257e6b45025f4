// What a KV run's world found by watching its cluster (Raft invariants, liveness, member
// agreement), as the check suite's plain data (checker/suite/check_suite.h).
#pragma once

#include "checker/suite/check_suite.h"
#include "world/kv_run_world.h"

namespace dst::world {

checker::suite::WorldFindings kv_run_findings(const KvRunResult& run);

}  // namespace dst::world

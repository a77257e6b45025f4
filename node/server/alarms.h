// The cluster's alarms (etcd's alarm.AlarmStore): which member raised which alarm, replicated
// through raft (AlarmRequest ACTIVATE / DEACTIVATE entries) and kept in the backend's "alarm"
// bucket, so every member applies requests under the same alarms and a restart keeps them.
//
// While NOSPACE is raised the members refuse Put, Txn containing a put and LeaseGrant (etcd's
// applierV3Capped); everything else still works, so an operator can delete, compact, defragment
// and disarm (../shared/reference/etcd-3.4.md, NOSPACE section).
#pragma once

#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "base/status.h"
#include "node/backend/backend.h"
#include "proto/etcd_rpc.pb.h"

namespace dst::node {

inline constexpr char kErrNoSpace[] = "etcdserver: mvcc: database space exceeded";

class AlarmStore {
 public:
  // Loads the alarms the backend holds (at open, and after a snapshot replaced the backend).
  Status load(backend::Backend& backend);
  // Both return the alarms they changed (etcd answers ACTIVATE/DEACTIVATE with them).
  Result<std::vector<etcdserverpb::AlarmMember>> activate(backend::Backend& backend, uint64_t member,
                                                          etcdserverpb::AlarmType alarm);
  Result<std::vector<etcdserverpb::AlarmMember>> deactivate(backend::Backend& backend, uint64_t member,
                                                            etcdserverpb::AlarmType alarm);
  // Every alarm, ordered by (member, type) (etcd's GET answers all of them).
  std::vector<etcdserverpb::AlarmMember> list() const;
  bool raised(etcdserverpb::AlarmType alarm) const;

 private:
  std::set<std::pair<uint64_t, int>> alarms_;  // (member, AlarmType)
};

// What Status reports for each alarm: etcd prints AlarmMember's text form, "memberID:N alarm:NOSPACE "
// (the trailing space is protobuf's text format, kept because clients compare these strings).
std::string alarm_text(const etcdserverpb::AlarmMember& m);

}  // namespace dst::node

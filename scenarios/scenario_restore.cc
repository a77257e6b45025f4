// Disaster recovery in a scenario, as etcd's operators do it: snapshots saved from a member while
// the load runs, every member's disk lost, and a new cluster restored on the same machines from
// one snapshot file (node/server/snapshot_file.h), whose clients reconnect by themselves.
#include "base/assert.h"
#include "base/hash.h"
#include "base/limits.h"
#include "client/kv_client.h"
#include "node/server/snapshot_file.h"
#include "scenarios/scenario.h"

namespace dst::scenarios {

namespace {

// Snapshot names the operator's machine keeps; a save under a new name beyond this fails.
constexpr size_t kSnapshotNamesMax = 64;

std::string node_list(const std::vector<size_t>& members) {
  std::string s;
  for (size_t i : members) s += (s.empty() ? "n" : ",n") + std::to_string(i + 1);
  return s;
}

}  // namespace

Status Scenario::snapshot_save(size_t n, const std::string& name) {
  if (name.empty() || name.size() > limits::kScenarioSnapshotNameBytesMax)
    return Status(StatusCode::kInvalidArgument,
                  "snapshot_save(): the name must be 1.." + std::to_string(limits::kScenarioSnapshotNameBytesMax) + " bytes");
  if (!snapshots_->files.contains(name) && snapshots_->files.size() >= kSnapshotNamesMax)
    return Status(StatusCode::kInvalidArgument,
                  "snapshot_save(): at most " + std::to_string(kSnapshotNamesMax) + " snapshot names in a run");
  etcdserverpb::ApiRequest req;
  req.mutable_snapshot();
  const client::KvClientOptions ko = client_options(static_cast<int64_t>(n) - 1);
  spawn_request("scenario-snapshot-save", [sim = sim_, ko, recorder = recorder_, req = std::move(req),
                                           files = snapshots_, name, cluster = restores_]() mutable {
    client::KvClient kv(*sim, ko, *recorder);
    history::Operation r = kv.execute(std::move(req));
    if (r.outcome != history::Outcome::kOk) return;  // etcdctl wrote no file
    files->files[name] = std::move(*r.response.mutable_snapshot()->mutable_blob());
    files->cluster[name] = cluster;
    std::erase(files->saved, name);
    files->saved.push_back(name);
  });
  return Status::ok();
}

Status Scenario::disaster() {
  if (disaster_at_) return Status(StatusCode::kInvalidArgument, "disaster(): the cluster is already lost; restore() first");
  disaster_members_ = cluster_->disaster();
  disaster_at_ = sim_->now();
  disaster_fault_ = recorder_->fault_started(history::Fault{"disaster", node_list(disaster_members_), sim_->now()});
  return Status::ok();
}

Status Scenario::restore(const std::string& name, int64_t bump) {
  if (!disaster_at_)
    return Status(StatusCode::kInvalidArgument, "restore(): no disaster to recover from (call disaster() first)");
  if (restores_ >= history::kRestoresMax)
    return Status(StatusCode::kInvalidArgument, "restore(): at most " + std::to_string(history::kRestoresMax) + " restores in a run");
  // Without a name: the newest file saved from the cluster that was lost.
  std::string chosen = name;
  for (auto it = snapshots_->saved.rbegin(); chosen.empty() && it != snapshots_->saved.rend(); ++it)
    if (snapshots_->cluster[*it] == restores_) chosen = *it;
  auto file = snapshots_->files.find(chosen);
  if (file == snapshots_->files.end())
    return Status(StatusCode::kInvalidArgument,
                  chosen.empty() ? std::string("restore(): no snapshot of the lost cluster was saved (snapshot_save() must "
                                               "have finished first)")
                                 : "restore(): no snapshot \"" + chosen + "\" (snapshot_save() must have finished first)");
  // The checkers' timelines continue the cluster the snapshot was taken from (restore_epochs.h),
  // so only the current cluster's snapshots can be restored (not one from before a restore).
  if (snapshots_->cluster[chosen] != restores_)
    return Status(StatusCode::kInvalidArgument,
                  "restore(): snapshot \"" + chosen + "\" was saved before restore " +
                      std::to_string(snapshots_->cluster[chosen] + 1) +
                      "; only a snapshot of the cluster that was lost can be restored");
  if (disaster_members_.empty())
    return Status(StatusCode::kInvalidArgument, "restore(): the disaster found no member to restore on");
  Result<etcdserverpb::KvSnapshot> snap = node::read_snapshot_file(file->second, chosen);
  if (!snap.is_ok()) return snap.status();
  Result<int64_t> revision = node::image_revision(*snap);
  if (!revision.is_ok()) return revision.status();
  node::RestoreOptions options{.bump_revision = bump, .mark_compacted = bump > 0, .bugs = cluster_->bugs()};
  Result<std::string> image = node::restored_image(*snap, options);
  if (!image.is_ok()) return Status(image.status().code(), "restore(): " + image.status().message());
  const std::vector<size_t> members = disaster_members_;
  ++restores_;
  // A new cluster id, as etcd's restore derives one from the new initial cluster.
  const uint64_t cluster_id = hash_combine(cluster_->cluster_id(), restores_) & 0x7fffffffffffffffull;
  cluster_->restore(members, std::make_shared<const std::string>(std::move(image).value()), cluster_id);
  recorder_->fault_ended(disaster_fault_, sim_->now());
  recorder_->restored(history::Restore{*disaster_at_, sim_->now(), *revision, bump, chosen});
  disaster_at_.reset();
  return Status::ok();
}

}  // namespace dst::scenarios

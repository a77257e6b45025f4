// `dst shell`'s snapshot commands: `snapshot save FILE` asks one member for its backend
// (Maintenance.Snapshot) and writes the snapshot file (node/server/snapshot_file.h) where the
// shell runs; `snapshot status FILE` reads one and prints etcdctl's summary of it. The numbers
// differ from a real etcd's for the same keys (its file is a bbolt database, ours the image of
// our backend), the shapes and the errors are etcdctl 3.4.23's.
#include "base/limits.h"
#include "node/server/snapshot_file.h"
#include "tools/shell_session.h"

namespace dst::shell {

namespace {

std::string endpoint_list(const std::vector<std::string>& endpoints) {
  std::string s = "[";
  for (size_t i = 0; i < endpoints.size(); ++i) s += (i ? " " : "") + endpoints[i];
  return s + "]";
}

using etcdserverpb::ApiRequest;
using etcdserverpb::ApiResponse;

constexpr const char* kNoFiles = "dst shell has no files in this session";

}  // namespace

void ShellSession::run_snapshot_save(const etcdctl::SnapshotSaveCommand& c, const etcdctl::Command& cmd) {
  if (client_.endpoints.size() > 1) {
    emit(etcdctl::print_request_error(cmd, "snapshot must be requested to one selected node, not multiple " +
                                               endpoint_list(client_.endpoints)));
    return;
  }
  if (options_.files == nullptr) {
    emit(etcdctl::print_request_error(cmd, kNoFiles));
    return;
  }
  // etcdctl sets no deadline on a snapshot unless --command-timeout is given; a bound anyway.
  const etcdctl::ClientOptions saved = client_;
  if (!client_.command_timeout_ns) client_.command_timeout_ns = etcdctl::kCommandTimeoutMaxNs;
  const Target target = kv_target();
  std::optional<ApiResponse> r;
  run_line([&] {
    ApiRequest q;
    q.mutable_snapshot();
    r = call(cmd, q, target);
  });
  client_ = saved;
  if (!r) return;  // the error is printed
  Status written = options_.files->write_atomically(c.path, r->snapshot().blob());
  if (!written.is_ok()) {
    emit(etcdctl::print_request_error(cmd, written.message()));
    return;
  }
  emit(etcdctl::print_snapshot_saved(c.path));
}

void ShellSession::run_snapshot_status(const etcdctl::SnapshotStatusCommand& c, const etcdctl::PrintOptions& print) {
  if (options_.files == nullptr) {
    emit(etcdctl::print_error(kNoFiles));
    return;
  }
  Result<std::string> bytes = options_.files->read(c.path, limits::kSnapshotFileBytesMax);
  if (!bytes.is_ok()) {
    emit(etcdctl::print_error(bytes.status().message()));
    return;
  }
  Result<etcdserverpb::KvSnapshot> snap = node::read_snapshot_file(*bytes, c.path);
  if (!snap.is_ok()) {
    emit(etcdctl::print_error(snap.status().message()));
    return;
  }
  Result<node::SnapshotStatus> st = node::snapshot_status(*snap, bytes->size());
  if (!st.is_ok()) {
    emit(etcdctl::print_error(c.path + ": " + st.status().message()));
    return;
  }
  emit(etcdctl::print_snapshot_status({st->hash, st->revision, st->total_keys, st->total_size}, print));
}

}  // namespace dst::shell

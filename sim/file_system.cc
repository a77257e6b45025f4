// Timed disk operations for fibers; see file_system.h.
#include "sim/file_system.h"

#include "base/hash.h"

namespace dst::sim {

Result<std::string> FileSystem::read(FileId file, uint64_t offset, uint64_t length) {
  const TimeNs done = disk().schedule_read(sim_.now());
  if (done > sim_.now()) {
    const WaitResult r = sim_.block(done);
    if (r == WaitResult::kCancelled) return Status(StatusCode::kCancelled, "read cancelled");
  }
  return disk().read(file, offset, length);
}

Status FileSystem::append(FileId file, std::string_view data) {
  Result<uint64_t> end = size(file);
  if (!end.is_ok()) return end.status();
  return write(file, *end, data);
}

Status FileSystem::fsync(FileId file) {
  Disk& d = disk();
  const FsyncTicket ticket = d.begin_fsync(file);
  const uint64_t crashes_before = d.stats().crashes;
  const TimeNs done = d.schedule_fsync(sim_.now());
  return sim_.complete_at(done, EventKind::kDiskIo, hash_combine(host_, file),
                          [&d, ticket, crashes_before]() -> Status {
                            if (d.stats().crashes != crashes_before) {
                              return Status(StatusCode::kIoError, "host lost power during fsync");
                            }
                            return d.complete_fsync(ticket);
                          });
}

Status FileSystem::sync_dir() {
  Disk& d = disk();
  const uint64_t crashes_before = d.stats().crashes;
  const TimeNs done = d.schedule_fsync(sim_.now());
  return sim_.complete_at(done, EventKind::kDiskIo, hash_combine(host_, 0xd1),
                          [&d, crashes_before]() -> Status {
                            if (d.stats().crashes != crashes_before) {
                              return Status(StatusCode::kIoError, "host lost power during sync_dir");
                            }
                            d.sync_dir();
                            return Status::ok();
                          });
}

}  // namespace dst::sim

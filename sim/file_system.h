// A process's view of its host's disk: the Disk model (sim/disk.h) with time.
//
// Writes land in the page cache at once. fsync and sync_dir block the calling fiber until the
// device completes them (latency from the disk's distribution, queued behind earlier fsyncs); reads
// block for the disk's read latency when it is not zero. A completion that arrives after the host
// lost power (a crash with lose_unsynced) does nothing: that fsync never happened. Node code holds a
// FileSystem; faults act on the Disk underneath (Simulator::host(h).disk()).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sim/disk.h"
#include "sim/simulator.h"

namespace dst::sim {

class FileSystem {
 public:
  FileSystem(Simulator& sim, HostId host) : sim_(sim), host_(host) {}

  Result<FileId> open(std::string_view name, OpenMode mode) { return disk().open(name, mode); }
  Status remove(std::string_view name) { return disk().remove(name); }
  Status rename(std::string_view from, std::string_view to) { return disk().rename(from, to); }
  bool exists(std::string_view name) const { return sim_.host(host_).disk().exists(name); }
  std::vector<std::string> list(std::string_view prefix = "") const {
    return sim_.host(host_).disk().list(prefix);
  }

  // Blocks (in a fiber) for the read latency, if any.
  Result<std::string> read(FileId file, uint64_t offset, uint64_t length);
  Status write(FileId file, uint64_t offset, std::string_view data) {
    return disk().write(file, offset, data);
  }
  // Writes at the current end of the file.
  Status append(FileId file, std::string_view data);
  Status truncate(FileId file, uint64_t size) { return disk().truncate(file, size); }
  Result<uint64_t> size(FileId file) const { return sim_.host(host_).disk().size(file); }

  // Block (in a fiber) until the device has made the data (or the names) durable.
  Status fsync(FileId file);
  Status sync_dir();

  HostId host() const { return host_; }

 private:
  // Not for the process: the Disk is where faults act (Simulator::host(h).disk()); a process
  // holding a FileSystem (node/ through its Env) sees files, never the device's fault controls.
  Disk& disk() { return sim_.host(host_).disk(); }

  Simulator& sim_;
  HostId host_;
};

}  // namespace dst::sim

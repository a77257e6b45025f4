// The simulated disk's data model (sim/disk.h): inodes, two namespaces and per-file pending ops.
//
// Invariants (asserted where cheap, all of them in check_invariants() after sync_dir and crash):
// - names_ is durable_names_ with pending_names_ replayed in order.
// - Every inode referenced by names_, durable_names_ or a pending link exists in inodes_; the
//   others are freed by free_unreachable_inodes(), which runs only after sync_dir and crash, the
//   only operations that can make an inode unreachable (remove and rename leave a durable name or a
//   pending link behind).
// - Each inode's pending ops are in increasing seq order, all below next_op_seq.
// - used_bytes_ is the sum of the current sizes of all inodes.
// Without failed fsyncs, `current` is `durable` with the pending ops replayed; a failed fsync
// breaks that on purpose (its ops stay in `current` only), so it is not asserted.
//
// Everything that draws from rng_ iterates std::maps or vectors in a fixed order, so a seed always
// gives the same crash outcome.
#include "sim/disk.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "base/assert.h"
#include "base/hash.h"
#include "base/limits.h"
#include "base/probes.h"

namespace dst::sim {
namespace {

// The directory is one file to the device: its unsynced operations get the same bound as a file's.
constexpr size_t kPendingNamespaceOpsMax = limits::kDiskPendingOpsPerFileMax;

Status file_not_found(FileId file) {
  return Status(StatusCode::kNotFound, "file " + std::to_string(file) + " does not exist");
}

Status name_not_found(std::string_view name) {
  return Status(StatusCode::kNotFound, "no file named \"" + std::string(name) + "\"");
}

// Writes `data` at `offset`, zero-filling any hole between the old end and `offset`.
void write_into(std::string& content, uint64_t offset, std::string_view data) {
  // Most writes append (WAL frames, log records): append them rather than zero-filling the new
  // tail first and then copying over it.
  if (offset >= content.size()) {
    content.resize(offset, '\0');
    content.append(data);
    return;
  }
  const uint64_t end = offset + data.size();
  if (content.size() < end) content.resize(end, '\0');
  if (!data.empty()) std::memcpy(content.data() + offset, data.data(), data.size());
}

// `count` distinct positions in [0, range), uniformly (Floyd's algorithm: exactly `count` draws,
// so the rng stream advances the same way whatever the values).
std::set<uint64_t> distinct_positions(Rng& rng, uint64_t range, uint64_t count) {
  DST_ASSERT_LE(count, range);
  std::set<uint64_t> chosen;
  for (uint64_t j = range - count; j < range; ++j) {
    const uint64_t t = rng.uniform_u64(j + 1);
    if (!chosen.insert(t).second) chosen.insert(j);
  }
  DST_ASSERT_EQ(chosen.size(), count);
  return chosen;
}

}  // namespace

DiskConfig::DiskConfig()
    : capacity_bytes(limits::kDiskCapacityBytesDefault),
      fsync_latency(DurationDist::lognormal(milliseconds(2), 0.5)
                        .clamped(microseconds(100), milliseconds(500))),
      read_latency(DurationDist::constant(0)) {}

Disk::Disk(DiskConfig config, Rng rng) : config_(std::move(config)), rng_(rng) {}

// --- names ---------------------------------------------------------------------------------

Result<FileId> Disk::open(std::string_view name, OpenMode mode) {
  if (name.empty()) return Status(StatusCode::kInvalidArgument, "empty file name");
  if (auto it = names_.find(name); it != names_.end()) {
    if (mode == OpenMode::kCreateExclusive) {
      return Status(StatusCode::kAlreadyExists, "file \"" + std::string(name) + "\" exists");
    }
    return it->second;
  }
  if (mode == OpenMode::kExisting) return name_not_found(name);
  if (inodes_.size() >= limits::kDiskFilesMax) {
    return Status(StatusCode::kResourceExhausted,
                  "disk holds " + std::to_string(inodes_.size()) + " files, the maximum");
  }
  if (Status s = reserve_namespace_ops(1); !s.is_ok()) return s;
  const FileId id = next_file_id_++;
  inodes_.emplace(id, Inode{});
  names_.emplace(std::string(name), id);
  pending_names_.push_back({NamespaceOp::Kind::kLink, std::string(name), id, false});
  return id;
}

Status Disk::remove(std::string_view name) {
  auto it = names_.find(name);
  if (it == names_.end()) return name_not_found(name);
  if (Status s = reserve_namespace_ops(1); !s.is_ok()) return s;
  pending_names_.push_back({NamespaceOp::Kind::kUnlink, std::string(name), it->second, false});
  names_.erase(it);
  // The inode stays: it is still durable or pending-linked, and a crash could bring it back.
  return Status::ok();
}

Status Disk::rename(std::string_view from, std::string_view to) {
  if (to.empty()) return Status(StatusCode::kInvalidArgument, "empty file name");
  auto it = names_.find(from);
  if (it == names_.end()) return name_not_found(from);
  if (from == to) return Status::ok();  // POSIX: renaming a file to itself does nothing
  if (Status s = reserve_namespace_ops(2); !s.is_ok()) return s;
  const FileId id = it->second;
  pending_names_.push_back({NamespaceOp::Kind::kUnlink, std::string(from), id, true});
  pending_names_.push_back({NamespaceOp::Kind::kLink, std::string(to), id, false});
  names_.erase(it);
  names_.insert_or_assign(std::string(to), id);  // a replaced target stays until unreachable
  return Status::ok();
}

bool Disk::exists(std::string_view name) const { return names_.find(name) != names_.end(); }

std::vector<std::string> Disk::list(std::string_view prefix) const {
  std::vector<std::string> out;
  for (auto it = names_.lower_bound(prefix); it != names_.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;  // sorted: every match is contiguous
    out.push_back(it->first);
  }
  return out;
}

// --- data ----------------------------------------------------------------------------------

Result<std::string> Disk::read(FileId file, uint64_t offset, uint64_t length) {
  const Inode* inode = find_inode(file);
  if (inode == nullptr) return file_not_found(file);
  const uint64_t size = inode->current.size();
  if (offset >= size) return std::string();
  const uint64_t n = std::min(length, size - offset);
  stats_.bytes_read += n;
  return inode->current.substr(offset, n);
}

Status Disk::write(FileId file, uint64_t offset, std::string_view data) {
  Inode* inode = find_inode(file);
  if (inode == nullptr) return file_not_found(file);
  if (data.empty()) return Status::ok();  // like pwrite(fd, buf, 0, off): no extension, no op
  if (offset > UINT64_MAX - data.size()) {
    return Status(StatusCode::kInvalidArgument, "write past the largest possible offset");
  }
  if (inode->pending.size() >= limits::kDiskPendingOpsPerFileMax) {
    return Status(StatusCode::kResourceExhausted,
                  describe_file(file) + " has too many unsynced operations; fsync it");
  }
  const uint64_t old_size = inode->current.size();
  const uint64_t end = offset + data.size();
  // Checked before touching anything, so a failed write leaves the file exactly as it was.
  if (Status s = check_space(old_size, std::max(old_size, end)); !s.is_ok()) return s;
  write_into(inode->current, offset, data);
  used_bytes_ += inode->current.size() - old_size;
  inode->current_hash_valid = false;
  inode->pending.push_back({inode->next_op_seq++, false, offset, std::string(data)});
  stats_.bytes_written += data.size();
  return Status::ok();
}

Status Disk::truncate(FileId file, uint64_t size) {
  Inode* inode = find_inode(file);
  if (inode == nullptr) return file_not_found(file);
  if (inode->pending.size() >= limits::kDiskPendingOpsPerFileMax) {
    return Status(StatusCode::kResourceExhausted,
                  describe_file(file) + " has too many unsynced operations; fsync it");
  }
  if (Status s = check_space(inode->current.size(), size); !s.is_ok()) return s;
  set_current_size(*inode, size);
  inode->pending.push_back({inode->next_op_seq++, true, size, std::string()});
  return Status::ok();
}

Result<uint64_t> Disk::size(FileId file) const {
  const Inode* inode = find_inode(file);
  if (inode == nullptr) return file_not_found(file);
  return static_cast<uint64_t>(inode->current.size());
}

// --- durability ----------------------------------------------------------------------------

TimeNs Disk::schedule_fsync(TimeNs now) {
  // One device queue: an fsync starts when the previous one is done.
  const TimeNs completion = std::max(now, device_busy_until_) + config_.fsync_latency.sample(rng_);
  device_busy_until_ = completion;
  return completion;
}

TimeNs Disk::schedule_read(TimeNs now) { return now + config_.read_latency.sample(rng_); }

FsyncTicket Disk::begin_fsync(FileId file) const {
  const Inode* inode = find_inode(file);
  // An unknown file's ticket covers nothing; complete_fsync reports kNotFound for it.
  if (inode == nullptr) return FsyncTicket{file, 0};
  return FsyncTicket{file, inode->next_op_seq - 1};
}

Status Disk::complete_fsync(const FsyncTicket& ticket) {
  Inode* inode = find_inode(ticket.file);
  if (inode == nullptr) return file_not_found(ticket.file);
  DST_ASSERT_LT(ticket.op_seq, inode->next_op_seq);
  stats_.fsyncs++;
  const bool fail = fsyncs_to_fail_ != 0;
  if (fsyncs_to_fail_ > 0) fsyncs_to_fail_--;
  if (fail) DST_PROBE(kSimFsyncFailed);
  // Pending ops are in seq order, so the covered ones are a prefix.
  size_t covered = 0;
  uint64_t prev_seq = 0;
  for (; covered < inode->pending.size(); ++covered) {
    const PendingOp& op = inode->pending[covered];
    if (op.seq > ticket.op_seq) break;
    DST_ASSERT_GT(op.seq, prev_seq);
    prev_seq = op.seq;
    if (!fail) apply_op(inode->durable, op);
  }
  inode->pending.erase(inode->pending.begin(), inode->pending.begin() + covered);
  if (fail) {
    // Linux after an fsync error: the covered writes stay in `current` but are never written back.
    stats_.fsync_errors++;
    return Status(StatusCode::kIoError, "fsync of " + describe_file(ticket.file) +
                                            " failed (injected); " + std::to_string(covered) +
                                            " unsynced operations lost");
  }
  return Status::ok();
}

void Disk::sync_dir() {
  stats_.sync_dirs++;
  for (const NamespaceOp& op : pending_names_) apply_namespace_op(durable_names_, op);
  pending_names_.clear();
  DST_ASSERT(durable_names_ == names_);
  free_unreachable_inodes();
  check_invariants();
}

void Disk::crash(bool torn) {
  stats_.crashes++;
  crash_names(torn);
  // Only durable names survive, so only their inodes need (and get) crash draws.
  free_unreachable_inodes();
  for (auto& [id, inode] : inodes_) crash_inode(inode, torn);
  check_invariants();
}

void Disk::replace() {
  inodes_.clear();
  names_.clear();
  durable_names_.clear();
  pending_names_.clear();
  used_bytes_ = 0;
  fsyncs_to_fail_ = 0;
  full_ = false;
  check_invariants();
}

// --- faults --------------------------------------------------------------------------------

void Disk::fail_fsyncs(int64_t count) { fsyncs_to_fail_ = count; }
void Disk::set_fsync_latency(DurationDist dist) { config_.fsync_latency = dist; }
void Disk::set_read_latency(DurationDist dist) { config_.read_latency = dist; }
void Disk::set_full(bool full) { full_ = full; }
void Disk::set_capacity(uint64_t capacity_bytes) { config_.capacity_bytes = capacity_bytes; }

Status Disk::flip_bits(std::string_view name, uint64_t offset, uint64_t length, int bits) {
  auto it = names_.find(name);
  if (it == names_.end()) return name_not_found(name);
  Inode& inode = inodes_.at(it->second);
  const uint64_t size = inode.current.size();
  if (offset > size || length > size - offset) {
    return Status(StatusCode::kInvalidArgument, "bit-flip range outside " +
                                                    describe_file(it->second) + " of " +
                                                    std::to_string(size) + " bytes");
  }
  if (bits < 0 || uint64_t(bits) > length * 8) {
    return Status(StatusCode::kInvalidArgument,
                  "cannot flip " + std::to_string(bits) + " bits in " + std::to_string(length) +
                      " bytes");
  }
  for (uint64_t pos : distinct_positions(rng_, length * 8, uint64_t(bits))) {
    const uint64_t byte = offset + pos / 8;
    const char mask = char(1u << (pos % 8));
    inode.current[byte] ^= mask;
    if (byte < inode.durable.size()) inode.durable[byte] ^= mask;
  }
  inode.current_hash_valid = false;
  stats_.bits_flipped += uint64_t(bits);
  return Status::ok();
}

// --- inspection ----------------------------------------------------------------------------

uint64_t Disk::used_bytes() const { return used_bytes_; }

Result<std::string> Disk::durable_content(std::string_view name) const {
  auto it = durable_names_.find(name);
  if (it == durable_names_.end()) return name_not_found(name);
  const Inode* inode = find_inode(it->second);
  DST_ASSERT_MSG(inode != nullptr, "durable name refers to a freed inode");
  return inode->durable;
}

uint64_t Disk::digest() const {
  uint64_t h = hash_combine(0, names_.size());
  for (const auto& [name, id] : names_) {
    const Inode* inode = find_inode(id);
    DST_ASSERT(inode != nullptr);
    if (!inode->current_hash_valid) {
      inode->current_hash = hash_bytes(inode->current);
      inode->current_hash_valid = true;
    }
    h = hash_combine(hash_combine(hash_combine(h, hash_bytes(name)), id), inode->current_hash);
  }
  return h;
}

// --- private helpers -----------------------------------------------------------------------

Disk::Inode* Disk::find_inode(FileId file) {
  auto it = inodes_.find(file);
  return it == inodes_.end() ? nullptr : &it->second;
}

const Disk::Inode* Disk::find_inode(FileId file) const {
  auto it = inodes_.find(file);
  return it == inodes_.end() ? nullptr : &it->second;
}

std::string Disk::describe_file(FileId file) const {
  // A linear scan, but only on error paths.
  for (const auto& [name, id] : names_) {
    if (id == file) return "file " + std::to_string(file) + " \"" + name + "\"";
  }
  return "file " + std::to_string(file) + " (unlinked)";
}

Status Disk::reserve_namespace_ops(size_t count) const {
  if (pending_names_.size() + count > kPendingNamespaceOpsMax) {
    return Status(StatusCode::kResourceExhausted,
                  "too many unsynced namespace operations; call sync_dir");
  }
  return Status::ok();
}

Status Disk::check_space(uint64_t old_size, uint64_t new_size) {
  if (new_size <= old_size) return Status::ok();  // shrinking or overwriting always fits
  const uint64_t growth = new_size - old_size;
  const uint64_t capacity = config_.capacity_bytes;
  // Written to avoid overflow; usage may exceed capacity after set_capacity() lowered it.
  const bool over_capacity = used_bytes_ >= capacity || growth > capacity - used_bytes_;
  if (!full_ && !over_capacity) return Status::ok();
  stats_.no_space_errors++;
  return Status(StatusCode::kNoSpace,
                full_ ? std::string("disk full (injected)")
                      : "growing by " + std::to_string(growth) + " bytes would exceed capacity " +
                            std::to_string(capacity) + " (" + std::to_string(used_bytes_) +
                            " used)");
}

void Disk::set_current_size(Inode& inode, uint64_t size) {
  used_bytes_ = used_bytes_ - inode.current.size() + size;
  inode.current.resize(size, '\0');
  inode.current_hash_valid = false;
}

void Disk::apply_op(std::string& content, const PendingOp& op) {
  if (op.is_truncate) {
    content.resize(op.offset, '\0');
  } else {
    write_into(content, op.offset, op.data);
  }
}

void Disk::apply_namespace_op(NameMap& names, const NamespaceOp& op) {
  if (op.kind == NamespaceOp::Kind::kLink) {
    names.insert_or_assign(op.name, op.file);
    return;
  }
  // Replayed in the order they were applied to names_, so the name must be there, for this inode.
  auto it = names.find(op.name);
  DST_ASSERT_MSG(it != names.end() && it->second == op.file, "unlink of \"" + op.name + "\"");
  names.erase(it);
}

void Disk::apply_torn_write(std::string& content, const PendingOp& op) {
  DST_ASSERT(!op.is_truncate);
  constexpr uint64_t kSector = limits::kDiskSectorBytes;
  const uint64_t end = op.offset + op.data.size();
  const uint64_t first_cut = (op.offset / kSector + 1) * kSector;  // first boundary > offset
  if (first_cut >= end) return;  // no boundary inside: the write is all or nothing
  // Cuts at first_cut, first_cut + kSector, ... < end; choice 0 means none of the write.
  const uint64_t cuts = (end - 1 - first_cut) / kSector + 1;
  const uint64_t choice = rng_.uniform_u64(cuts + 1);
  if (choice == 0) return;
  const uint64_t cut = first_cut + (choice - 1) * kSector;
  DST_ASSERT(cut > op.offset && cut < end && cut % kSector == 0);
  DST_PROBE(kSimTornWrite);
  // The write began inside bytes that were durable: the tear leaves an old record half replaced.
  if (op.offset < content.size()) DST_PROBE(kSimTornWriteOverSynced);
  write_into(content, op.offset, std::string_view(op.data).substr(0, cut - op.offset));
}

void Disk::crash_names(bool torn) {
  if (torn && !pending_names_.empty()) {
    // Valid prefix lengths: every op boundary except inside a rename.
    std::vector<size_t> cuts;
    for (size_t i = 0; i <= pending_names_.size(); ++i) {
      if (i == 0 || !pending_names_[i - 1].atomic_with_next) cuts.push_back(i);
    }
    const size_t keep = cuts[rng_.uniform_u64(cuts.size())];
    for (size_t i = 0; i < keep; ++i) apply_namespace_op(durable_names_, pending_names_[i]);
  }
  pending_names_.clear();
  names_ = durable_names_;
}

void Disk::crash_inode(Inode& inode, bool torn) {
  const size_t n = inode.pending.size();
  if (torn && n > 0) {
    const size_t keep = rng_.uniform_u64(n + 1);
    for (size_t i = 0; i < keep; ++i) apply_op(inode.durable, inode.pending[i]);
    if (keep < n && !inode.pending[keep].is_truncate) {
      apply_torn_write(inode.durable, inode.pending[keep]);
    }
  }
  inode.pending.clear();
  used_bytes_ = used_bytes_ - inode.current.size() + inode.durable.size();
  inode.current = inode.durable;
  inode.current_hash_valid = false;
}

void Disk::free_unreachable_inodes() {
  std::set<FileId> reachable;
  for (const auto& [name, id] : names_) reachable.insert(id);
  for (const auto& [name, id] : durable_names_) reachable.insert(id);
  for (const NamespaceOp& op : pending_names_) {
    if (op.kind == NamespaceOp::Kind::kLink) reachable.insert(op.file);
  }
  for (auto it = inodes_.begin(); it != inodes_.end();) {
    if (reachable.count(it->first) != 0) {
      ++it;
      continue;
    }
    used_bytes_ -= it->second.current.size();
    it = inodes_.erase(it);
  }
}

void Disk::check_invariants() const {
  uint64_t used = 0;
  for (const auto& [id, inode] : inodes_) {
    DST_ASSERT_LT(id, next_file_id_);
    used += inode.current.size();
    if (!inode.pending.empty()) {
      DST_ASSERT_GE(inode.pending.front().seq, 1);
      DST_ASSERT_LT(inode.pending.back().seq, inode.next_op_seq);
      DST_ASSERT_LE(inode.pending.front().seq, inode.pending.back().seq);
    }
  }
  DST_ASSERT_EQ(used, used_bytes_);
  for (const auto& [name, id] : names_) DST_ASSERT(inodes_.count(id) == 1);
  for (const auto& [name, id] : durable_names_) DST_ASSERT(inodes_.count(id) == 1);
  for (const NamespaceOp& op : pending_names_) {
    if (op.kind == NamespaceOp::Kind::kLink) DST_ASSERT(inodes_.count(op.file) == 1);
  }
}

}  // namespace dst::sim

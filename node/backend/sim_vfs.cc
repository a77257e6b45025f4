// The sqlite3_vfs and sqlite3_io_methods callbacks of SimVfs; see sim_vfs.h.
#include "node/backend/sim_vfs.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>
#include <string_view>

#include "base/hash.h"
#include "base/limits.h"

namespace dst::backend {
namespace {

// Process-wide, like SQLite's VFS list: they only make names unique and bound the list.
uint64_t g_vfs_names_issued = 0;
size_t g_vfs_registered = 0;

// Julian day number of 1970-01-01 00:00 in milliseconds: virtual wall time 0 is the Unix epoch.
constexpr sqlite3_int64 kUnixEpochJulianMs = 210'866'760'000'000;
// SQLite's own limit is 512 by default in the unix VFS; our names are short sim paths.
constexpr int kMaxPathname = 512;

struct SimFile {
  sqlite3_file base;  // first: SQLite sees a SimFile* as a sqlite3_file*
  SimVfs* vfs = nullptr;
  bool in_memory = false;      // a nameless temporary file: never on the disk
  std::string memory;          // its content
  sim::FileId id = 0;
  std::string name;
  bool delete_on_close = false;
  bool dir_sync_pending = false;  // created here and the name is not yet durable
  bool checksummed = false;       // the main database file: pages carry checksums
};

SimFile& as_file(sqlite3_file* f) { return *reinterpret_cast<SimFile*>(f); }
SimVfs& as_vfs(sqlite3_vfs* v) { return *static_cast<SimVfs*>(v->pAppData); }

bool is_whole_page(const SimFile& file, int amount, sqlite3_int64 offset) {
  const uint32_t page = file.vfs->page_bytes();
  return static_cast<uint32_t>(amount) == page && offset % page == 0;
}

void store_le64(unsigned char* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
}

// --- io methods ---------------------------------------------------------------------------------

int file_close(sqlite3_file* f) {
  SimFile& file = as_file(f);
  SimVfs& vfs = *file.vfs;
  if (file.delete_on_close && !file.in_memory) {
    // Best effort: a failure leaves a stray temporary name, which nothing ever reads.
    vfs.guarded(SQLITE_IOERR_DELETE, [&] {
      (void)vfs.fs().remove(file.name);
      return SQLITE_OK;
    });
  }
  --vfs.open_files;
  file.~SimFile();
  return SQLITE_OK;
}

int memory_read(SimFile& file, void* buf, int amount, sqlite3_int64 offset) {
  const uint64_t size = file.memory.size();
  const uint64_t begin = std::min<uint64_t>(static_cast<uint64_t>(offset), size);
  const uint64_t got = std::min<uint64_t>(static_cast<uint64_t>(amount), size - begin);
  std::memcpy(buf, file.memory.data() + begin, got);
  if (got < static_cast<uint64_t>(amount)) {
    std::memset(static_cast<char*>(buf) + got, 0, amount - got);
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

int verify_page(SimFile& file, const unsigned char* page, sqlite3_int64 offset) {
  SimVfs& vfs = *file.vfs;
  const uint32_t size = vfs.page_bytes();
  const uint64_t page_no = static_cast<uint64_t>(offset) / size + 1;
  unsigned char want[8];
  store_le64(want, page_checksum(page, size, page_no));
  if (std::memcmp(want, page + size - 8, 8) == 0) return SQLITE_OK;
  ++vfs.mutable_stats().checksum_failures;
  return vfs.fail(SQLITE_IOERR_DATA,
                  Status(StatusCode::kCorruption, "page " + std::to_string(page_no) + " of \"" +
                                                      file.name + "\" fails its checksum"));
}

int file_read(sqlite3_file* f, void* buf, int amount, sqlite3_int64 offset) {
  SimFile& file = as_file(f);
  if (file.in_memory) return memory_read(file, buf, amount, offset);
  SimVfs& vfs = *file.vfs;
  return vfs.guarded(SQLITE_IOERR_READ, [&] {
    Result<std::string> got = vfs.fs().read(file.id, offset, amount);
    if (!got.is_ok()) return vfs.fail(SQLITE_IOERR_READ, got.status());
    ++vfs.mutable_stats().reads;
    std::memcpy(buf, got->data(), got->size());
    if (got->size() < static_cast<size_t>(amount)) {
      // SQLite's contract: zero the rest; it treats the missing tail as zeros.
      std::memset(static_cast<char*>(buf) + got->size(), 0, amount - got->size());
      return SQLITE_IOERR_SHORT_READ;
    }
    if (file.checksummed && is_whole_page(file, amount, offset)) {
      return verify_page(file, static_cast<const unsigned char*>(buf), offset);
    }
    return SQLITE_OK;
  });
}

int memory_write(SimFile& file, const void* buf, int amount, sqlite3_int64 offset) {
  const uint64_t end = static_cast<uint64_t>(offset) + amount;
  if (file.memory.size() < end) file.memory.resize(end, '\0');
  std::memcpy(file.memory.data() + offset, buf, amount);
  return SQLITE_OK;
}

int file_write(sqlite3_file* f, const void* buf, int amount, sqlite3_int64 offset) {
  SimFile& file = as_file(f);
  if (file.in_memory) return memory_write(file, buf, amount, offset);
  SimVfs& vfs = *file.vfs;
  return vfs.guarded(SQLITE_IOERR_WRITE, [&] {
    std::string data(static_cast<const char*>(buf), amount);
    if (file.checksummed) {
      // SQLite writes the main database only in whole pages; a partial write would leave a page
      // whose checksum no longer matches, so it is a broken assumption, not an I/O error.
      DST_ASSERT_MSG(is_whole_page(file, amount, offset),
                     "partial write of " + std::to_string(amount) + " bytes at " +
                         std::to_string(offset) + " to database file " + file.name);
      auto* page = reinterpret_cast<unsigned char*>(data.data());
      const uint64_t page_no = static_cast<uint64_t>(offset) / vfs.page_bytes() + 1;
      store_le64(page + amount - 8, page_checksum(page, vfs.page_bytes(), page_no));
    }
    Status st = vfs.fs().write(file.id, offset, data);
    if (st.code() == StatusCode::kNoSpace) return vfs.fail(SQLITE_FULL, st);
    if (!st.is_ok()) return vfs.fail(SQLITE_IOERR_WRITE, st);
    ++vfs.mutable_stats().writes;
    return SQLITE_OK;
  });
}

int file_truncate(sqlite3_file* f, sqlite3_int64 size) {
  SimFile& file = as_file(f);
  if (file.in_memory) {
    if (file.memory.size() > static_cast<uint64_t>(size)) file.memory.resize(size);
    return SQLITE_OK;
  }
  SimVfs& vfs = *file.vfs;
  return vfs.guarded(SQLITE_IOERR_TRUNCATE, [&] {
    Status st = vfs.fs().truncate(file.id, size);
    if (st.code() == StatusCode::kNoSpace) return vfs.fail(SQLITE_FULL, st);
    if (!st.is_ok()) return vfs.fail(SQLITE_IOERR_TRUNCATE, st);
    return SQLITE_OK;
  });
}

int file_sync(sqlite3_file* f, int flags) {
  SimFile& file = as_file(f);
  if (file.in_memory) return SQLITE_OK;
  SimVfs& vfs = *file.vfs;
  return vfs.guarded(SQLITE_IOERR_FSYNC, [&] {
    Status st = vfs.fs().fsync(file.id);  // blocks this fiber until the device is done
    if (!st.is_ok()) return vfs.fail(SQLITE_IOERR_FSYNC, st);
    ++vfs.mutable_stats().syncs;
    if (file.dir_sync_pending) {
      // The data is durable but the name this VFS created is not yet: without this, a power loss
      // could drop a synced WAL (and the commits in it) with its directory entry.
      st = vfs.fs().sync_dir();
      if (!st.is_ok()) return vfs.fail(SQLITE_IOERR_DIR_FSYNC, st);
      ++vfs.mutable_stats().dir_syncs;
      file.dir_sync_pending = false;
    }
    return SQLITE_OK;
  });
}

int file_size(sqlite3_file* f, sqlite3_int64* out) {
  SimFile& file = as_file(f);
  if (file.in_memory) {
    *out = static_cast<sqlite3_int64>(file.memory.size());
    return SQLITE_OK;
  }
  SimVfs& vfs = *file.vfs;
  return vfs.guarded(SQLITE_IOERR_FSTAT, [&] {
    Result<uint64_t> size = vfs.fs().size(file.id);
    if (!size.is_ok()) return vfs.fail(SQLITE_IOERR_FSTAT, size.status());
    *out = static_cast<sqlite3_int64>(*size);
    return SQLITE_OK;
  });
}

// One process, one connection per file (locking_mode=EXCLUSIVE): locks have nothing to exclude.
int file_lock(sqlite3_file*, int) { return SQLITE_OK; }
int file_unlock(sqlite3_file*, int) { return SQLITE_OK; }
int file_check_reserved_lock(sqlite3_file*, int* out) {
  *out = 0;
  return SQLITE_OK;
}
// No custom controls: SQLite falls back to its defaults for every hint and pragma.
int file_control(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int file_sector_size(sqlite3_file*) { return static_cast<int>(limits::kDiskSectorBytes); }
// Claims nothing: no atomic writes, no safe append, no sequential writes, no powersafe overwrite.
// Each claim lets SQLite skip a sync or a padding step; none is needed for correctness.
int file_device_characteristics(sqlite3_file*) { return 0; }

// Version 1: no xShm* (locking_mode=EXCLUSIVE keeps the WAL index in heap memory) and no xFetch
// (no memory mapping, so every page goes through file_read and its checksum check).
const sqlite3_io_methods kIoMethods = {
    1,
    file_close,
    file_read,
    file_write,
    file_truncate,
    file_sync,
    file_size,
    file_lock,
    file_unlock,
    file_check_reserved_lock,
    file_control,
    file_sector_size,
    file_device_characteristics,
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
};

// --- vfs methods --------------------------------------------------------------------------------

sim::OpenMode open_mode(int flags) {
  if ((flags & SQLITE_OPEN_CREATE) == 0) return sim::OpenMode::kExisting;
  return (flags & SQLITE_OPEN_EXCLUSIVE) != 0 ? sim::OpenMode::kCreateExclusive
                                              : sim::OpenMode::kCreate;
}

int vfs_open(sqlite3_vfs* v, const char* name, sqlite3_file* f, int flags, int* out_flags) {
  SimVfs& vfs = as_vfs(v);
  f->pMethods = nullptr;  // SQLite calls xClose only if xOpen set the methods
  auto* file = new (f) SimFile{};
  file->vfs = &vfs;
  file->delete_on_close = (flags & SQLITE_OPEN_DELETEONCLOSE) != 0;
  file->checksummed = (flags & SQLITE_OPEN_MAIN_DB) != 0;
  int rc = SQLITE_OK;
  if (name == nullptr) {
    file->in_memory = true;  // a temporary file SQLite asked for without a name
  } else {
    file->name = name;
    rc = vfs.guarded(SQLITE_CANTOPEN, [&] {
      const bool existed = vfs.fs().exists(file->name);
      Result<sim::FileId> id = vfs.fs().open(file->name, open_mode(flags));
      if (!id.is_ok()) return vfs.fail(SQLITE_CANTOPEN, id.status());
      file->id = *id;
      file->dir_sync_pending = !existed;
      return SQLITE_OK;
    });
  }
  if (rc != SQLITE_OK) {
    file->~SimFile();
    return rc;
  }
  ++vfs.open_files;
  ++vfs.mutable_stats().files_opened;
  if (out_flags != nullptr) *out_flags = flags;
  f->pMethods = &kIoMethods;
  return SQLITE_OK;
}

int vfs_delete(sqlite3_vfs* v, const char* name, int dir_sync) {
  SimVfs& vfs = as_vfs(v);
  return vfs.guarded(SQLITE_IOERR_DELETE, [&] {
    Status st = vfs.fs().remove(name);
    if (st.code() == StatusCode::kNotFound) return vfs.fail(SQLITE_IOERR_DELETE_NOENT, st);
    if (!st.is_ok()) return vfs.fail(SQLITE_IOERR_DELETE, st);
    if (dir_sync != 0) {
      st = vfs.fs().sync_dir();
      if (!st.is_ok()) return vfs.fail(SQLITE_IOERR_DIR_FSYNC, st);
      ++vfs.mutable_stats().dir_syncs;
    }
    return SQLITE_OK;
  });
}

int vfs_access(sqlite3_vfs* v, const char* name, int flags, int* out) {
  SimVfs& vfs = as_vfs(v);
  *out = 0;
  return vfs.guarded(SQLITE_IOERR_ACCESS, [&] {
    Result<sim::FileId> id = vfs.fs().open(name, sim::OpenMode::kExisting);
    if (!id.is_ok()) return SQLITE_OK;
    // Like the unix VFS: an empty file does not "exist" (an emptied journal is not hot).
    Result<uint64_t> size = vfs.fs().size(*id);
    *out = flags != SQLITE_ACCESS_EXISTS || (size.is_ok() && *size > 0) ? 1 : 0;
    return SQLITE_OK;
  });
}

int vfs_full_pathname(sqlite3_vfs*, const char* name, int out_bytes, char* out) {
  // Sim paths are already absolute within the node's disk.
  const size_t len = std::strlen(name);
  if (len + 1 > static_cast<size_t>(out_bytes)) return SQLITE_CANTOPEN;
  std::memcpy(out, name, len + 1);
  return SQLITE_OK;
}

// Extensions are never loaded.
void* vfs_dl_open(sqlite3_vfs*, const char*) { return nullptr; }
void vfs_dl_error(sqlite3_vfs*, int bytes, char* out) {
  if (bytes > 0) std::snprintf(out, bytes, "extension loading is not supported");
}
void (*vfs_dl_sym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
void vfs_dl_close(sqlite3_vfs*, void*) {}

int vfs_randomness(sqlite3_vfs* v, int bytes, char* out) {
  sim::Rng& rng = as_vfs(v).rng();
  for (int i = 0; i < bytes; ++i) out[i] = static_cast<char>(rng.next_u64());
  return bytes;
}

// SQLite sleeps only to wait for other connections' locks; there are none, so never block.
int vfs_sleep(sqlite3_vfs*, int micros) { return micros; }

int vfs_current_time_int64(sqlite3_vfs* v, sqlite3_int64* out) {
  *out = kUnixEpochJulianMs + as_vfs(v).env().wall_now() / 1'000'000;
  return SQLITE_OK;
}

int vfs_current_time(sqlite3_vfs* v, double* out) {
  sqlite3_int64 ms = 0;
  vfs_current_time_int64(v, &ms);
  *out = static_cast<double>(ms) / 86'400'000.0;
  return SQLITE_OK;
}

int vfs_get_last_error(sqlite3_vfs*, int, char*) { return 0; }

}  // namespace

uint64_t page_checksum(const unsigned char* page, uint32_t page_bytes, uint64_t page_no) {
  // The page number is mixed in so that a page written to the wrong place is caught too.
  return hash_memory(page, page_bytes - 8, mix64(page_no));
}

SimVfs::SimVfs(sim::Env& env, uint32_t page_bytes)
    : env_(env),
      fs_(env.files()),
      page_bytes_(page_bytes),
      rng_(&env.rng("sqlite/" + env.host_name())),
      name_("dst-sim-" + std::to_string(++g_vfs_names_issued)) {
  DST_ASSERT(page_bytes_ >= 512 && (page_bytes_ & (page_bytes_ - 1)) == 0);
  DST_ASSERT_MSG(g_vfs_registered < limits::kBackendVfsRegisteredMax, "too many SimVfs instances");
  vfs_.iVersion = 2;
  vfs_.szOsFile = sizeof(SimFile);
  vfs_.mxPathname = kMaxPathname;
  vfs_.zName = name_.c_str();
  vfs_.pAppData = this;
  vfs_.xOpen = vfs_open;
  vfs_.xDelete = vfs_delete;
  vfs_.xAccess = vfs_access;
  vfs_.xFullPathname = vfs_full_pathname;
  vfs_.xDlOpen = vfs_dl_open;
  vfs_.xDlError = vfs_dl_error;
  vfs_.xDlSym = vfs_dl_sym;
  vfs_.xDlClose = vfs_dl_close;
  vfs_.xRandomness = vfs_randomness;
  vfs_.xSleep = vfs_sleep;
  vfs_.xCurrentTime = vfs_current_time;
  vfs_.xGetLastError = vfs_get_last_error;
  vfs_.xCurrentTimeInt64 = vfs_current_time_int64;
  const int rc = sqlite3_vfs_register(&vfs_, /*makeDflt=*/0);
  DST_ASSERT_MSG(rc == SQLITE_OK, "sqlite3_vfs_register failed: " + std::string(sqlite3_errstr(rc)));
  ++g_vfs_registered;
}

SimVfs::~SimVfs() {
  DST_ASSERT_MSG(open_files == 0, "SimVfs destroyed with open files");
  sqlite3_vfs_unregister(&vfs_);
  --g_vfs_registered;
}

void SimVfs::rethrow_pending_unwind() {
  if (pending_unwind_ == nullptr) return;
  std::exception_ptr e = std::move(pending_unwind_);
  pending_unwind_ = nullptr;
  std::rethrow_exception(e);
}

std::string SimVfs::take_last_error() {
  std::string e = std::move(last_error_);
  last_error_.clear();
  return e;
}

int SimVfs::fail(int code, const Status& status) {
  ++stats_.io_errors;
  last_error_ = status.to_string();
  return code;
}

}  // namespace dst::backend

// Fuzz target: a run database. An input that starts with SQLite's header is taken as a database
// file; any other input is SQL run against a fresh run database of the current schema (so the
// fuzzer reaches the reader with hostile rows: bad blobs, NULLs, huge or negative ids and times,
// rows that contradict each other), bounded by a step limit on SQLite. Then it is read as
// `dst check run.db` reads one and, when it reads, checked with small budgets.
// Promises: no crash or hang; a read error names the file.
#include <sqlite3.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "fuzz/fuzz_target.h"
#include "history/run_db.h"

namespace {

// A per-process file in memory-backed /dev/shm when there is one.
const std::string& scratch_path() {
  static const std::string path = (access("/dev/shm", W_OK) == 0 ? std::string("/dev/shm") : std::string("/tmp")) +
                                  "/dst-fuzz-run-db-" + std::to_string(getpid()) + ".db";
  return path;
}

// The bytes of an empty run database with one begun run, made once.
const std::string& empty_run_db() {
  static const std::string bytes = [] {
    const std::string path = scratch_path() + ".template";
    std::remove(path.c_str());
    dst::history::RunDbOptions o;
    auto w = dst::history::RunDbWriter::create(path, o);
    dst::fuzz::require(w.is_ok(), "the template run database is created", w.status().message());
    dst::history::RunInfo info;
    info.seed = 1;
    info.scenario = "fuzz";
    dst::fuzz::require((*w)->begin_run(info).is_ok() && (*w)->close().is_ok(), "the template run is begun");
    // A rollback journal and small pages: every execution copies this file and opens it twice,
    // and a WAL database would make a -wal and a -shm file each time.
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    sqlite3_exec(db, "PRAGMA journal_mode=DELETE; PRAGMA page_size=512; VACUUM;", nullptr, nullptr, nullptr);
    sqlite3_close(db);
    std::ifstream in(path, std::ios::binary);
    std::string b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::remove(path.c_str());
    std::remove((path + "-wal").c_str());
    std::remove((path + "-shm").c_str());
    return b;
  }();
  return bytes;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Runs the input as SQL against the database at `path`, stopping any statement after a million
// virtual-machine steps (a recursive query would otherwise run forever, SQLite's business, not ours).
void apply_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK) {
    int budget = 1000;
    sqlite3_progress_handler(db, 1000, [](void* left) { return --*static_cast<int*>(left) < 0 ? 1 : 0; }, &budget);
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 1 << 20);
    sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr);
  }
  sqlite3_close_v2(db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dst;
  if (size > (1u << 20)) return 0;
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::string& path = scratch_path();
  std::remove((path + "-wal").c_str());
  std::remove((path + "-shm").c_str());
  const bool is_file = input.rfind("SQLite format 3", 0) == 0;
  write_file(path, is_file ? input : empty_run_db());
  if (!is_file) apply_sql(path, input);
  Result<history::RunDbReader> reader = history::RunDbReader::open(path);
  if (!reader.is_ok()) {
    fuzz::require(reader.status().message().find(path) != std::string::npos, "an open error names the file",
                  reader.status().message());
    return 0;
  }
  Result<history::History> h = reader->read_history();
  (void)reader->read_run();
  (void)reader->read_metrics();
  if (!h.is_ok()) {
    fuzz::require(h.status().message().find(path) != std::string::npos, "a read error names the file",
                  h.status().message());
    return 0;
  }
  checker::etcd::EtcdCheckOptions options;
  options.step_budget = 20'000;
  (void)checker::etcd::check_etcd(*h, options);
  (void)checker::watch::check(*h);
  return 0;
}

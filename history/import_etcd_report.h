// Reading etcd's robustness test reports (etcd-io/etcd tests/robustness) into a history the etcd
// model and the watch checker judge: `dst check REPORT_DIR`. A report is a directory holding
// client-<N>/operations.json (KV and lease operations as Porcupine operations of etcd requests and
// responses) and client-<N>/watch.json (each watch's request and every response it received); each
// file is a stream of pretty-printed JSON objects. docs/research/history-formats.md section 3
// describes the format, docs/research/etcd-report-import.md the mapping.
//
// The mapping, in short:
//   - operations are sorted by call time and numbered; `client` is the record's ClientId, etcd's
//     stream id (a client gets a new one after a write that failed: its outcome is unknown, and it
//     may still be in flight when the client goes on); a watch's `client` is its client-<N>; the
//     answering `member-id` becomes member 1, 2, ... in the order members first answered;
//   - a txn stays a txn (etcd's robustness client records a plain put or delete as a txn of one
//     operation); a condition with ExpectedVersion > 0 compares the version, else the mod revision
//     (ExpectedRevision 0: the key is absent), as etcd's model evaluates it;
//   - Error set: unknown outcome (the request may have taken effect); ClientError set (a
//     compaction etcd refused): failed; Persisted: unknown; Defragment: left out (no effect);
//   - a report does not record a key's lease or create_revision, nor `more`: the checkers run with
//     partial_kvs (EtcdCheckOptions, watch::Options); create_revision is filled in only where the
//     report implies it (version 1, IsCreate);
//   - values of 20 bytes or more are known by their FNV-1a hash only: every value becomes the
//     canonical one of etcd_report_format.h, so a long put and its observed hash agree;
//   - a compaction's response carries no revision (etcd writes -1): none is set;
//   - each WatchOperation is one watch of one segment (clientv3 resumes broken streams itself, out
//     of sight); an Error ends it as a cancel (a response after it is an error: clientv3 closes the
//     channel); a start revision below 1 (etcd's traffic draws them) is read as 0, "from now".
// Errors name the file, the line and the field, and say what was expected.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "history/history.h"

namespace dst::history {

// Bounds on one report: client directories, and the records of all files together.
inline constexpr size_t kReportClientsMax = 100'000;
inline constexpr size_t kReportRecordsMax = 10'000'000;

// One file of a report, already read: `name` is its path inside the report
// ("client-1/operations.json"), which errors name.
struct ReportFile {
  std::string name;
  std::string text;
};

struct ImportedReport {
  History history;
  size_t clients = 0;
  size_t left_out = 0;  // records with no effect on the checks (defragmentations)
  // Assumptions the checks make that the report cannot show (etcd's validation makes them too).
  std::vector<std::string> notes;
};

// Whether `dir` looks like a report: a directory with at least one client-<N> subdirectory
// holding operations.json or watch.json.
bool is_etcd_report_dir(const std::string& dir);

// Reads the report at `dir` (every client-<N>/operations.json and watch.json, in client order).
Result<ImportedReport> import_etcd_report(const std::string& dir);

// The same from files in memory (tests, fuzzing): names as client-<N>/operations.json or
// client-<N>/watch.json; others are an error.
Result<ImportedReport> import_etcd_report_files(const std::vector<ReportFile>& files);

}  // namespace dst::history

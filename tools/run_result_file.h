// The result file a run writes with --result FILE: its seed, trace hash, verdict, exit code and
// one line per check (history/checks.h), as tab-separated text. `dst sweep` gives each child one
// and reads it back instead of reading the child's output; a child that crashed leaves none, and
// the sweep goes by its exit status alone.
//
//   dst-run-result	1
//   seed	12
//   trace_hash	0x5c8d3e0b9a6a4f21
//   verdict	violation
//   exit_code	1
//   first_failure	raft-invariants: Read Safety: node 2 answered read ...
//   deciding	raft-invariants
//   shape	clients	4
//   check	raft-invariants	fail	1	0	3	Read Safety	node 2 answered read ...
//   coverage	watch.compaction-cancel	3
//   must_reach	watch.compaction-cancel
//
// `coverage` lines: what the run reached (history/coverage.h), by name with its hits; `must_reach`
// lines: what the scenario declared that its sweeps must reach (a sweep fails if no seed does).
// Fields never hold tabs or line breaks (they are written as spaces).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "history/checks.h"
#include "history/coverage.h"

namespace dst {

struct RunResultFile {
  uint64_t seed = 0;
  std::string trace_hash;  // "0x" and 16 hex digits
  std::string verdict;     // "pass", "violation", "unknown", "error"
  int exit_code = 0;
  std::string first_failure;  // describe_failure of the deciding check; "" for a pass
  std::string deciding;       // the deciding check's name ("linearizability"); "" for a pass
  std::vector<history::CheckRow> checks;  // name, status, required, checked, violations, first rule and message
  history::Coverage coverage;
  std::vector<std::string> must_reach;
  // What the run was, by name: nodes, clients, watchers, keys, rate, profile, kinds (the etcd-kv
  // request kinds sent, comma-separated), run_for_ns, phase_start_ns, operations (recorded). For
  // `dst shrink`, which reduces them; at most kShapeEntriesMax.
  std::map<std::string, std::string> shape;
};

inline constexpr size_t kShapeEntriesMax = 64;

// Result files are a few lines; anything larger is not one.
inline constexpr size_t kRunResultFileBytesMax = 1 << 20;
// A check's first rule and message, and the first failure, are cut to this many bytes when written.
inline constexpr size_t kResultFieldBytesMax = 4096;

std::string format_result_file(const RunResultFile& result);
// kInvalidArgument "PATH:LINE: what was expected" for anything that is not such a file.
Result<RunResultFile> parse_result_file(const std::string& text, const std::string& path);
Result<RunResultFile> read_result_file(const std::string& path);

// The result of a finished run: its verdict's deciding check is the first failure.
RunResultFile make_result_file(uint64_t seed, uint64_t trace_hash, const history::RunVerdict& verdict, int exit_code,
                               const std::vector<history::CheckRow>& checks);
// Writes it (through a temporary file and a rename, so a reader never sees half a file); a
// failure is reported on stderr and does not change the run's exit code.
void write_result_file_or_warn(const std::string& path, RunResultFile result);

}  // namespace dst

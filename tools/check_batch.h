// `dst check` of many histories: several files, directories (walked in name order; their files
// that are no history are skipped), checked in one process or, with --jobs, in forked workers.
// One summary line per history, in the order given, then the totals.
//
// Exit code: 1 if any history is not linearizable, else 2 if any could not be read, else 3 if any
// check gave up, else 0.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/status.h"
#include "tools/check_history.h"

namespace dst {

struct BatchFile {
  std::string path;
  bool found_in_directory = false;  // skipped, not an error, when it is no history
};

// The files `paths` name: a file as it is, a directory's files (recursively, hidden entries and
// symbolic links to directories left out) sorted by path. Errors: a path that does not exist,
// more than limits::kCheckBatchFilesMax files.
Result<std::vector<BatchFile>> expand_check_paths(const std::vector<std::string>& paths);

// Checks every file with `request`'s options (its file and format are set per file), `jobs`
// workers at once, and prints the summary. Returns the exit code.
int check_batch(const std::string& self, const std::vector<BatchFile>& files, const CheckRequest& request, size_t jobs);

}  // namespace dst

// Checking one history file, the part `dst check FILE` and `dst check DIR/` share: telling its
// format, reading it, the verdict (printed as soon as it is decided), then the explanation within
// its own budget. A run database or an etcd robustness report is checked with the etcd model and the
// watch guarantees; Jepsen and Porcupine histories with the register and kv models.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/limits.h"
#include "base/status.h"

namespace dst {

struct CheckRequest {
  std::string file;
  std::string format;  // "auto" (told from the file), "jepsen", "porcupine-kv", "run-db" or "etcd-report"
  std::string model;   // "" for the format's own; "register", "kv" or "etcd"
  std::string html;    // --html OUT, "" for none
  uint64_t budget = limits::kCheckerStepsDefault;
  uint64_t explain_budget = 0;  // the minimiser's steps in all; 0 for its default
  bool explain = true;
  bool partition = true;
};

// What one check came to, for the batch summary (check_batch.h).
struct CheckOutcome {
  int exit_code = 0;          // kExitPass, kExitViolation, kExitUsage or kExitGaveUp
  std::string format, model;  // as resolved
  std::string error;          // exit 2: the message (names the file, the line and what was expected)
  bool not_a_history = false; // read, but its format could not be told: no history
  size_t operations = 0;
  uint64_t steps = 0;         // the decision's model steps
  double verdict_ms = 0;      // reading, parsing and deciding
  double explain_ms = 0;      // the explanation (minimisation) after it
  std::string explanation;    // one line: the minimal core's size, or why there is none
};

// Resolves r.format ("auto": from the file's first bytes) and r.model (the format's own when empty;
// checked against the format). A pipe is read whole to be sniffed: its text comes back in `text`
// for the importer. `unrecognized`, when given, tells a file that was read but matched no format
// from one that could not be read.
Status resolve_check_format(CheckRequest& r, std::optional<std::string>& text, bool* unrecognized = nullptr);

// Checks r.file as resolve_check_format told. `verbose`: the full report on stdout (the header with
// the reproduce line, the verdict, then the explanation), as `dst check FILE` prints it; otherwise
// nothing is printed and the outcome says what a summary line needs.
CheckOutcome check_history(const std::string& self, CheckRequest r, bool verbose);

}  // namespace dst

// Checking histories imported from other tools (history/imported_history.h) under the register
// or the kv model, and the text report `dst check` prints.
#pragma once

#include <memory_resource>
#include <string>
#include <vector>

#include "base/status.h"
#include "checker/linearizability/kv_model.h"
#include "checker/linearizability/search.h"
#include "history/imported_history.h"

namespace dst::checker {

enum class ImportedModel : uint8_t { kRegister, kKv, kMutex };
const char* imported_model_name(ImportedModel m);

// Converts the history for the model and runs the search. :fail operations are dropped (they
// certainly did not happen), so are reads with unknown outcome (they change nothing). An
// operation the model does not know is bad input: kInvalidArgument naming the file and line.
// After a violation, with `minimize`, also the smallest set of operations that cannot be ordered
// (CheckResult::minimal, minimize.h); its re-checks take a bounded multiple of the check's steps.
// The model a Jepsen history's operations ask for: the mutex when they acquire and release,
// else the register.
ImportedModel jepsen_model_of(const history::ImportedHistory& h);

Result<CheckResult> check_imported(const history::ImportedHistory& h, ImportedModel model,
                                   const SearchOptions& options = {}, bool minimize = true);

// The explanation of a violation that check_imported(h, model, options, false) found: sets
// r.minimal (left empty when the minimiser proved nothing within its budget; nothing to do for
// other verdicts). `budget` caps all the minimiser's re-checks together, 0 for its default
// (MinimizeOptions). Verdict first, explanation after: `dst check` prints the verdict before
// calling this.
Status explain_imported(const history::ImportedHistory& h, ImportedModel model, const SearchOptions& options,
                        uint64_t budget, CheckResult& r);

// The kv model's operations of a Porcupine history, interned in `model` (left sealed, unsearched),
// as check_imported converts them: the same history gives the same operations in every fresh
// model. For tests and tools that re-check parts of the history.
Status kv_operations(const history::ImportedHistory& h, KvModel& model, std::pmr::vector<Operation<KvOp>>& ops);

// The verdict, steps per partition (the busiest few), the minimal counterexample and the
// prefix counterexample, with line numbers: format_verdict_report then format_explanation.
std::string format_check_report(const history::ImportedHistory& h, const CheckResult& r);
// The verdict and the steps per partition (the busiest few).
std::string format_verdict_report(const CheckResult& r);
// The minimal counterexample (when r.minimal) and the longest linearizable prefix (when
// r.counterexample), with line numbers; empty for a linearizable history.
std::string format_explanation(const history::ImportedHistory& h, const CheckResult& r);

}  // namespace dst::checker

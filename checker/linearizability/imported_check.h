// Checking histories imported from other tools (history/imported_history.h) under the register
// or the kv model, and the text report `dst check` prints.
#pragma once

#include <string>

#include "base/status.h"
#include "checker/linearizability/search.h"
#include "history/imported_history.h"

namespace dst::checker {

enum class ImportedModel : uint8_t { kRegister, kKv };
const char* imported_model_name(ImportedModel m);

// Converts the history for the model and runs the search. :fail operations are dropped (they
// certainly did not happen), so are reads with unknown outcome (they change nothing). An
// operation the model does not know is bad input: kInvalidArgument naming the file and line.
Result<CheckResult> check_imported(const history::ImportedHistory& h, ImportedModel model,
                                   const SearchOptions& options = {});

// The verdict, steps per partition (the busiest few) and the counterexample with line numbers.
std::string format_check_report(const history::ImportedHistory& h, const CheckResult& r);

}  // namespace dst::checker

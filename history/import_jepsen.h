// Import of Jepsen's textual history for a single register with read/write/cas, one event per
// line as Jepsen prints them:
//   {:type :invoke, :f :cas, :value [1 2], :process 3, :time 123456}
//   {:type :ok, :f :read, :value 4, :process 0, :time 130000}
// :fail means the operation certainly did not happen; :info (or no completion at all) means it
// may or may not have happened. Events of non-integer processes (:nemesis) are skipped.
#pragma once

#include <string>
#include <string_view>

#include "history/imported_history.h"

namespace dst::history {

Result<ImportedHistory> import_jepsen(std::string_view text, const std::string& source);
Result<ImportedHistory> import_jepsen_file(const std::string& path);

}  // namespace dst::history

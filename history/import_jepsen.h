// Import of Jepsen's histories of registers (read/write/cas; one register, keyed [k v], or
// jepsen-io/etcd's versioned [k [version value]]) and of a mutex (acquire/release): EDN event maps
// however they are laid out (history.edn, Knossos's pretty-printed lists) or Jepsen's log lines:
//   {:type :invoke, :f :cas, :value [1 2], :process 3, :time 123456}
//   INFO  jepsen.util - 0<tab>:ok<tab>:read<tab>4
// :fail means the operation certainly did not happen; :info (or no completion at all) means it
// may or may not have happened. Events of non-integer processes (:nemesis) are counted, not kept.
#pragma once

#include <string>
#include <string_view>

#include "history/imported_history.h"

namespace dst::history {

Result<ImportedHistory> import_jepsen(std::string_view text, const std::string& source);
Result<ImportedHistory> import_jepsen_file(const std::string& path);

}  // namespace dst::history

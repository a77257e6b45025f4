// Import of Porcupine's key-value logs (get/put/append per key), one event per line:
//   {:process 9, :type :invoke, :f :append, :key "0", :value "x 9 0 y"}
//   {:process 1, :type :ok, :f :get, :key "9", :value "x 5 0 y"}
// A get's result is the :value of its :ok (nil reads as the empty string, as a missing key does).
#pragma once

#include <string>
#include <string_view>

#include "history/imported_history.h"

namespace dst::history {

Result<ImportedHistory> import_porcupine_kv(std::string_view text, const std::string& source);
Result<ImportedHistory> import_porcupine_kv_file(const std::string& path);

}  // namespace dst::history

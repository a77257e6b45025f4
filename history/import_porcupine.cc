// See import_porcupine.h; the line reader and the pairing live in imported_history.cc.
#include "history/import_porcupine.h"

namespace dst::history {

Result<ImportedHistory> import_porcupine_kv(std::string_view text, const std::string& source) {
  return import_event_lines(text, source, ImportFormat::kPorcupineKv);
}

Result<ImportedHistory> import_porcupine_kv_file(const std::string& path) {
  return import_event_file(path, ImportFormat::kPorcupineKv);
}

}  // namespace dst::history

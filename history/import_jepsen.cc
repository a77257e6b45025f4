// See import_jepsen.h; the line reader and the pairing live in imported_history.cc.
#include "history/import_jepsen.h"

namespace dst::history {

Result<ImportedHistory> import_jepsen(std::string_view text, const std::string& source) {
  return import_event_lines(text, source, ImportFormat::kJepsen);
}

Result<ImportedHistory> import_jepsen_file(const std::string& path) {
  return import_event_file(path, ImportFormat::kJepsen);
}

}  // namespace dst::history

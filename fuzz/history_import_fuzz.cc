// Fuzz targets: a Jepsen history (register or mutex) and a Porcupine kv log (DST_FUZZ_FORMAT picks which).
// The text is imported as dst check imports it and, when it parses, checked with a small budget.
// Promises: no crash or hang; an import error names the file; a verdict is one of the three and
// its report and HTML page can be written.
#include <string>

#include "checker/linearizability/imported_check.h"
#include "fuzz/fuzz_target.h"
#include "history/import_jepsen.h"
#include "history/import_porcupine.h"
#include "reports/violation_html.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dst;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const bool jepsen = DST_FUZZ_FORMAT == 0;
  Result<history::ImportedHistory> h =
      jepsen ? history::import_jepsen(text, "fuzz.edn") : history::import_porcupine_kv(text, "fuzz.edn");
  if (!h.is_ok()) {
    fuzz::require(fuzz::starts_with(h.status().message(), "fuzz.edn"), "an import error names the file",
                  h.status().message());
    return 0;
  }
  checker::SearchOptions options;
  options.step_budget = 20'000;
  // A Jepsen history with the model its operations ask for, as dst check picks it.
  Result<checker::CheckResult> r =
      checker::check_imported(*h, jepsen ? checker::jepsen_model_of(*h) : checker::ImportedModel::kKv, options);
  if (!r.is_ok()) return 0;  // e.g. a model bound: refused with a message, not a verdict
  fuzz::require(r->verdict == checker::Verdict::kLinearizable || r->verdict == checker::Verdict::kViolation ||
                    r->verdict == checker::Verdict::kUnknown,
                "a verdict is one of three");
  fuzz::require(!checker::format_check_report(*h, *r).empty(), "a report is written");
  if (r->verdict == checker::Verdict::kViolation) {
    // The history's text is escaped: the page's own hover script stays its only "<script".
    const std::string page = reports::render_imported_html(*h, *r);
    size_t scripts = 0;
    for (size_t at = page.find("<script"); at != std::string::npos; at = page.find("<script", at + 1)) ++scripts;
    fuzz::require(scripts == 1, "the violation page escapes the history", page.substr(0, 2000));
  }
  return 0;
}

// The page frame shared by the recorded-run and the imported-history pages: header (title, rule,
// explanation, counts), legend, the timeline, sections of tables, the evidence, the script.
#pragma once

#include <string>
#include <vector>

namespace dst::reports {

struct PageSection {
  std::string heading;  // text (escaped by render_page)
  std::string html;     // already-escaped HTML
};

struct PageParts {
  std::string title;        // text
  std::string rule;         // text
  std::string explanation;  // text
  std::string meta;         // already-escaped HTML: window, counts, what was left out
  std::string timeline_svg;
  bool imported = false;  // legend: "prefix" instead of watch ticks
  std::vector<PageSection> sections;
  std::vector<std::string> evidence;  // text lines (bounded by kEvidenceLinesMax)
};

std::string render_page(const PageParts& parts);

}  // namespace dst::reports

// See violation_page.h.
#include "reports/violation_page.h"

#include "reports/html_text.h"
#include "reports/report_limits.h"
#include "reports/timeline.h"

namespace dst::reports {

namespace {

std::string legend(bool imported) {
  std::string s = "<div class=\"legend\">"
                  "<span><i class=\"sw\" style=\"background:#9fc5e8\"></i>ok</span>"
                  "<span><i class=\"sw\" style=\"background:#d9d9d9\"></i>failed (no effect)</span>"
                  "<span><i class=\"sw\" style=\"background:repeating-linear-gradient(45deg,#fce5cd 0 3px,#e69138 3px 5px)\"></i>"
                  "unknown outcome (may take effect any time after its invoke)</span>"
                  "<span><i class=\"sw\" style=\"background:#f4a7a7;border:2px solid #c00000\"></i>involved</span>";
  if (imported) {
    s += "<span><i class=\"sw\" style=\"border:2px dashed #1c4587\"></i>end of the longest linearizable prefix</span>";
  } else {
    s += "<span><i class=\"sw\" style=\"background:#e69138;opacity:.4\"></i>fault</span>"
         "<span>watch: | response (revisions) &middot; &#9679; segment start &middot; &#10005; stream broke</span>";
  }
  s += "<span><label><input type=\"checkbox\" id=\"only-inv\"> dim the others</label></span></div>";
  return s;
}

}  // namespace

std::string render_page(const PageParts& p) {
  std::string out;
  out.reserve(p.timeline_svg.size() + 32 * 1024);
  out += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + html_escape(p.title) +
         "</title>\n<style>" + report_css() + "</style></head>\n<body>\n";
  out += "<h1>" + html_escape(p.title) + "</h1>\n";
  out += "<p>rule <span class=\"rule\">" + html_escape(p.rule) + "</span></p>\n";
  out += "<p class=\"expl\">" + html_escape(p.explanation) + "</p>\n";
  out += "<p class=\"meta\">" + p.meta + "</p>\n";
  out += legend(p.imported) + "\n";
  out += "<div class=\"scroll\">" + p.timeline_svg + "</div>\n";
  for (const PageSection& s : p.sections) out += "<h2>" + html_escape(s.heading) + "</h2>\n" + s.html + "\n";
  out += "<h2>Evidence</h2>\n<pre>";
  if (p.evidence.empty()) out += "(none)";
  for (size_t i = 0; i < p.evidence.size() && i < kEvidenceLinesMax; ++i)
    out += html_escape(truncate_text(p.evidence[i], kTooltipCharsMax)) + "\n";
  if (p.evidence.size() > kEvidenceLinesMax)
    out += "... " + std::to_string(p.evidence.size() - kEvidenceLinesMax) + " more lines\n";
  out += "</pre>\n<script>" + std::string(report_script()) + "</script>\n</body></html>\n";
  return out;
}

}  // namespace dst::reports

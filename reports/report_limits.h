// Bounds on what a violation page draws (reports/violation_html.h). A page must open and be read
// in seconds whatever the size of the history behind it, so every list it draws is capped; what
// is left out is counted on the page, never dropped silently.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dst::reports {

// Operation bars on the timeline: a few hundred is all one can follow around a violation; the
// involved operations always count first, then the ones nearest to them in time.
inline constexpr size_t kOpsDrawnMax = 400;
// Client lanes: the drawn operations' clients, busiest kept first past this.
inline constexpr size_t kClientLanesMax = 64;
// Watch lanes: the involved watches first, then those with responses in the window.
inline constexpr size_t kWatchLanesMax = 12;
// Response ticks drawn per watch lane (nearest to the involved revisions/time first).
inline constexpr size_t kTicksPerWatchMax = 120;
// Fault bands in the window (a nemesis acts every ~700ms; a window is a few seconds).
inline constexpr size_t kFaultsDrawnMax = 24;
// Rows of the "involved operations" / "involved watch responses" tables.
inline constexpr size_t kTableRowsMax = 60;
// Evidence lines copied from the checker.
inline constexpr size_t kEvidenceLinesMax = 200;
// Characters of a bar or tick label (the full text is in its tooltip, itself capped).
inline constexpr size_t kLabelCharsMax = 90;
inline constexpr size_t kTooltipCharsMax = 600;
// Characters of a request/response cell in the tables.
inline constexpr size_t kCellCharsMax = 400;

// The default window: this fraction of the involved span on each side, and at least the minimum.
inline constexpr int64_t kWindowMarginDivisor = 5;
inline constexpr int64_t kWindowMarginMinNs = 200'000'000;  // 200ms: a few operation latencies

}  // namespace dst::reports

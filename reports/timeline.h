// A timeline drawn as inline SVG: lanes (one per client, one per watch), operations as bars from
// invoke to return, watch responses as ticks, faults as shaded bands with their kind and target,
// and a time axis. The model is unit-agnostic (virtual nanoseconds for recorded runs, event
// positions for imported histories), so the etcd and the imported pages share one renderer.
// The caller decides what goes in (and keeps it bounded, see report_limits.h); the renderer only
// lays it out, deterministically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dst::reports {

enum class BarOutcome : uint8_t { kOk, kFailed, kUnknown };
enum class Mark : uint8_t {
  kNone,
  kInvolved,  // drawn in red, label bold: the operations the violation is about
  kContext,   // drawn with a blue outline: context the checker names (e.g. the prefix before)
};

struct TimelineBar {
  uint64_t id = 0;  // the operation id (data-op attribute; hover links it to its table row)
  size_t lane = 0;
  int64_t start = 0;
  int64_t end = 0;  // ignored when open_right
  // An unknown outcome: drawn hatched on to the right edge (it may take effect any time later);
  // `end`, if known, is marked where the client gave up.
  bool open_right = false;
  bool end_known = true;
  BarOutcome outcome = BarOutcome::kOk;
  Mark mark = Mark::kNone;
  std::string label;    // short: "put key/3=c2.17 -> rev 412"
  std::string tooltip;  // the full description
};

enum class TickKind : uint8_t { kEvents, kProgress, kCreated, kCanceled, kSegmentStart, kSegmentBroken };

struct TimelineTick {
  size_t lane = 0;
  int64_t at = 0;
  TickKind kind = TickKind::kEvents;
  bool highlighted = false;
  std::string label;  // "r412", "progress r420", "cancel compact r300"
  std::string tooltip;
};

struct TimelineBand {
  int64_t start = 0;
  int64_t end = 0;  // clipped to the window by the renderer
  std::string kind;    // picks the color
  std::string label;   // "partition n1|n2,n3"
};

struct TimelineLane {
  std::string name;   // "c3", "w2 c7"
  std::string title;  // tooltip: "client 3", "watch 2 of client 7: key/..key0 from r12"
  bool watch = false;
  bool highlighted = false;
};

struct Timeline {
  int64_t window_start = 0;
  int64_t window_end = 1;
  bool axis_in_seconds = true;  // false: event positions ("#12")
  std::vector<TimelineLane> lanes;
  std::vector<TimelineBar> bars;
  std::vector<TimelineTick> ticks;
  std::vector<TimelineBand> bands;
  int64_t marker_at = -1;  // a dashed vertical line (where the violation was detected), -1: none
  std::string marker_label;
};

// The <svg> element (with a legend row above it as HTML). Same timeline, same bytes.
std::string render_timeline_svg(const Timeline& timeline);

// The page's shared <style> and the small hover script (static text).
const char* report_css();
const char* report_script();

}  // namespace dst::reports

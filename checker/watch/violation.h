// What the watch checker reports: the guarantee a history broke, where (watch, client, member,
// time) and the few events/responses that show it. Shared by the truth builder (truth.h), which
// reports sources that disagree about a revision, and the per-watch checks (watch_checker.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dst::checker::watch {

// The watch guarantees etcd documents (api_guarantees: Watch APIs), the two its robustness tests add
// (prev-kv, is-create), and two this checker adds: the sources of the truth agree with each other,
// and a compaction cancel names a revision the watch really lost.
enum class Guarantee : uint8_t {
  kOrdered,       // event revisions never decrease along a watch
  kUnique,        // no (revision, key) event is delivered twice, resumes included
  kAtomic,        // the matching events of one revision arrive in one response
  kReliable,      // no matching event between the watch's start and the last revision it observed is lost
  kResumable,     // a resumed watch continues with the first matching event after the last one seen
  kBookmarkable,  // a progress notification at R means every matching event <= R was already delivered
  kFilter,        // only keys in the watched range; NOPUT / NODELETE respected; nothing before the start
  kPrevKv,        // prev_kv is the key's state at revision - 1 (absent if it did not exist), when asked
  kIsCreate,      // a PUT has create_revision == mod_revision (and version 1) iff the key did not exist
  kCompaction,    // a cancel by compaction names a compact revision above the revision the watch needed
  kConsistent,    // write responses and all watches agree on what happened at each revision
};
inline constexpr size_t kGuaranteeCount = 11;
const char* guarantee_name(Guarantee g);

struct Violation {
  Guarantee guarantee = Guarantee::kReliable;
  // The watch the violation is about; kNoWatch for a disagreement between write responses.
  static constexpr uint64_t kNoWatch = UINT64_MAX;
  uint64_t watch_id = kNoWatch;
  uint32_t client = 0;
  uint32_t member = 0;                // the member that served the offending segment (0: unknown / not a watch)
  int64_t at_ns = 0;                  // when the offending response arrived (or the write returned)
  std::string what;                   // one sentence: what was expected and what was seen
  std::vector<std::string> evidence;  // a few lines: the responses/events/operations involved

  std::string to_string() const;  // "reliable: watch 3 (client 7, member 2) at 1.250000s: ...\n  evidence"
};

// Virtual nanoseconds as seconds with microseconds: "1.250000s".
std::string format_ns(int64_t ns);

}  // namespace dst::checker::watch

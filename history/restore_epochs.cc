#include "history/restore_epochs.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include "base/assert.h"

namespace dst::history {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
// How a revision field is read, which decides what a revision the restored cluster skipped (in
// (R, R + B)) or its first one (R + B, where no write happened) becomes in the timeline:
//   kState      "the store as of r" (a header, a read's revision, a key's create/mod revision, an
//               upper filter bound, a compare that asks "greater"): the snapshot's R.
//   kLowerBound "r or later" of revisions that exist (min_*_revision filters, a compare that asks
//               "less"): the first new revision, R + 1.
//   kFrom       where a history starts (a watch's start, a compaction point, a cancel's compact
//               revision): inside the gap it is compacted like R (R); at R + B it keeps R + 1 on.
//   kNever      an equality with a revision no key can have: a value no key has (-1).
enum class Reading : uint8_t { kState, kLowerBound, kFrom, kNever };
using RevisionMap = std::function<int64_t(int64_t, Reading)>;

Reading reading_of(const Message& m, const FieldDescriptor* fd) {
  const std::string& name = fd->name();
  if (name == "start_revision" || name == "compact_revision") return Reading::kFrom;
  if (name == "revision" && m.GetDescriptor()->name() == "CompactionRequest") return Reading::kFrom;
  if (name == "min_mod_revision" || name == "min_create_revision") return Reading::kLowerBound;
  if (const auto* c = dynamic_cast<const etcdserverpb::Compare*>(&m)) {
    switch (c->result()) {
      case etcdserverpb::Compare::LESS: return Reading::kLowerBound;
      case etcdserverpb::Compare::EQUAL:
      case etcdserverpb::Compare::NOT_EQUAL: return Reading::kNever;
      default: return Reading::kState;
    }
  }
  return Reading::kState;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Rewrites every revision in a message: the int64 fields whose name ends in "revision" (header
// revision, create/mod revisions of key-values and compares, a range's or watch's start revision,
// a compaction's, a cancel's compact revision). Unset fields stay unset.
void map_revisions(Message& m, const RevisionMap& f) {
  const auto* d = m.GetDescriptor();
  const auto* r = m.GetReflection();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* fd = d->field(i);
    if (fd->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (fd->is_repeated()) {
        for (int j = 0; j < r->FieldSize(m, fd); ++j) map_revisions(*r->MutableRepeatedMessage(&m, fd, j), f);
      } else if (r->HasField(m, fd)) {
        map_revisions(*r->MutableMessage(&m, fd), f);
      }
    } else if (fd->cpp_type() == FieldDescriptor::CPPTYPE_INT64 && !fd->is_repeated() && ends_with(fd->name(), "revision")) {
      if (fd->containing_oneof() != nullptr && !r->HasField(m, fd)) continue;
      const int64_t v = r->GetInt64(m, fd);
      if (v > 0) r->SetInt64(&m, fd, f(v, reading_of(m, fd)));
    }
  }
}

// The revision in the response's header, whatever the response (0: none).
int64_t header_revision(const etcdserverpb::ApiResponse& resp) {
  const auto* d = resp.GetDescriptor();
  const auto* r = resp.GetReflection();
  const FieldDescriptor* which = r->GetOneofFieldDescriptor(resp, d->FindOneofByName("response"));
  if (which == nullptr || which->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return 0;
  const Message& body = r->GetMessage(resp, which);
  const FieldDescriptor* header = body.GetDescriptor()->FindFieldByName("header");
  if (header == nullptr || header->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return 0;
  const auto* hr = body.GetReflection();
  if (!hr->HasField(body, header)) return 0;
  const Message& h = hr->GetMessage(body, header);
  if (h.GetDescriptor() != etcdserverpb::ResponseHeader::descriptor()) return 0;
  return static_cast<const etcdserverpb::ResponseHeader&>(h).revision();
}

std::string seconds(int64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6fs", static_cast<double>(ns) / 1e9);
  return buf;
}

// The restores as the split uses them: epoch e's raw revisions map into the timeline's space by
// virtual(e, r); cut[k] is restore k's snapshot revision in that space.
class Timelines {
 public:
  explicit Timelines(const std::vector<Restore>& restores) : restores_(restores) {
    cut_.push_back(0);  // unused: epochs are 1-based for restores
    for (size_t k = 1; k <= restores_.size(); ++k) cut_.push_back(virtual_rev(k - 1, restores_[k - 1].revision));
  }
  // Which epoch an event at `ns` belongs to: the number of disasters at or before it.
  size_t epoch(int64_t ns) const {
    size_t e = 0;
    while (e < restores_.size() && restores_[e].disaster_ns <= ns) ++e;
    return e;
  }
  // Restore j's cluster starts at R + B, compacted there; after R + B, revisions read B lower.
  // R + B itself and the revisions it skipped read as `how` says (Reading).
  int64_t virtual_rev(size_t epoch, int64_t r, Reading how = Reading::kState) const {
    for (size_t j = epoch; j >= 1; --j) {
      const Restore& x = restores_[j - 1];
      if (r <= x.revision) continue;  // made before restore j: epoch j-1's number
      if (r > x.revision + x.bump) {
        r -= x.bump;
        continue;
      }
      // Inside the gap (or at R + B). What it became is read plainly at the earlier restores: R
      // names a state (the snapshot's), R + 1 the first revision after it.
      switch (how) {
        case Reading::kState: r = x.revision; break;
        case Reading::kLowerBound: r = x.revision + 1; break;
        case Reading::kFrom:
          if (r == x.revision + x.bump) {
            r = x.revision + 1;
            how = Reading::kLowerBound;
          } else {
            r = x.revision;
            how = Reading::kState;
          }
          break;
        case Reading::kNever: return -1;
      }
    }
    return r;
  }
  // What of epoch `e` survives into timeline `k` (e < k): revisions at or below every cut between.
  int64_t survives_up_to(size_t e, size_t k) const {
    int64_t m = INT64_MAX;
    for (size_t j = e + 1; j <= k; ++j) m = std::min(m, cut_[j]);
    return m;
  }
  int64_t cut(size_t k) const { return cut_[k]; }

 private:
  const std::vector<Restore>& restores_;
  std::vector<int64_t> cut_;
};

void make_failed(Operation& op, const std::string& why) {
  op.outcome = Outcome::kFailed;
  op.response.Clear();
  op.response.mutable_error()->set_code(0);
  op.response.mutable_error()->set_message(why);
}

// A request that changes state without making a revision of its own (a compaction, a lease's
// grant or revoke, an alarm): answered at the snapshot's revision, it may still have been applied
// after the snapshot was read.
bool changes_without_revision(const etcdserverpb::ApiRequest& r) {
  return r.has_compaction() || r.has_lease_grant() || r.has_lease_revoke() || r.has_alarm();
}

void place_operation(Operation& op, const Timelines& t, size_t k) {
  const size_t e = t.epoch(op.invoke_ns);
  if (e > k) return make_failed(op, "belongs to a later timeline (after restore " + std::to_string(e) + ")");
  const RevisionMap map = [&](int64_t r, Reading how) { return t.virtual_rev(e, r, how); };
  map_revisions(op.request, map);
  map_revisions(op.response, map);
  if (e == k || op.outcome != Outcome::kOk) return;
  const int64_t rev = header_revision(op.response);
  const int64_t kept = t.survives_up_to(e, k);
  if (rev > kept) {
    make_failed(op, "lost by restore " + std::to_string(k) + ": answered at revision " + std::to_string(rev) +
                        ", after the snapshot's " + std::to_string(t.cut(k)));
  } else if (rev == kept && changes_without_revision(op.request)) {
    op.outcome = Outcome::kUnknown;  // in the snapshot or not: either may be true
    op.response.Clear();
    op.response.mutable_error()->set_message("answered at the snapshot's revision: before or after it was read");
  }
}

void place_watch(Watch& w, const Timelines& t, size_t k) {
  for (WatchSegment& seg : w.segments) {
    const size_t e = t.epoch(seg.created_ns);
    if (e > k) {  // a later cluster's: nothing of it belongs here
      seg.responses.clear();
      seg.request.set_start_revision(0);
      seg.broken = true;
      continue;
    }
    const RevisionMap map = [&](int64_t r, Reading how) { return t.virtual_rev(e, r, how); };
    map_revisions(seg.request, map);
    for (WatchResponse& resp : seg.responses) map_revisions(resp.response, map);
    if (e == k) continue;
    // Judged in its own timeline. Here it would only mislead: what it saw past the snapshot is
    // gone, so the watch's next segment is a fresh start on the restored cluster (a segment that
    // asked for no revision and saw nothing leaves the watch nothing to resume from).
    seg.responses.clear();
    seg.request.set_start_revision(0);
    seg.broken = true;
  }
}

// Answers of restored cluster k below the revision it starts at: R + B. Only answers that reflect
// the cluster's state (a serializable read or a status may come from a member added later that
// has not caught up yet), and watch events in the revisions the restore skipped.
bool reflects_the_cluster(const Operation& op) {
  const auto& q = op.request;
  if (q.has_range()) return !q.range().serializable();
  return q.has_put() || q.has_delete_range() || q.has_txn() || q.has_compaction() || q.has_lease_grant() ||
         q.has_lease_revoke();
}

void find_went_back(const History& h, const Timelines& t, size_t k, std::vector<RevisionWentBack>& out) {
  const Restore& x = h.restores[k - 1];
  const int64_t floor = x.revision + x.bump;
  auto report = [&](uint64_t id, bool watch, int64_t rev, const std::string& what) {
    if (out.size() >= kRevisionsWentBackKept) return;
    out.push_back({id, watch, rev, floor, k,
                   what + " answered at revision " + std::to_string(rev) + " after restore " + std::to_string(k) +
                       " at t=" + seconds(x.restore_ns) + ", below the revision the restored cluster starts at (" +
                       std::to_string(x.revision) + " from snapshot " + x.snapshot + " + bump " +
                       std::to_string(x.bump) + " = " + std::to_string(floor) + "): revisions went back"});
  };
  for (const Operation& op : h.operations) {
    if (t.epoch(op.invoke_ns) != k || op.outcome != Outcome::kOk || !reflects_the_cluster(op)) continue;
    const int64_t rev = header_revision(op.response);
    if (rev > 0 && rev < floor) report(op.id, false, rev, "op " + std::to_string(op.id));
  }
  for (const Watch& w : h.watches)
    for (const WatchSegment& seg : w.segments) {
      if (t.epoch(seg.created_ns) != k) continue;
      bool reported = false;
      for (const WatchResponse& r : seg.responses) {
        for (const auto& ev : r.response.events()) {
          const int64_t rev = ev.kv().mod_revision();
          if (rev <= x.revision || rev > floor || reported) continue;
          report(w.id, true, rev, "watch " + std::to_string(w.id) + " event");
          reported = true;
        }
      }
    }
}

}  // namespace

RestoreTimeline restore_timeline(const History& history, size_t k) {
  DST_ASSERT_LE(k, history.restores.size());
  const Timelines t(history.restores);
  RestoreTimeline tl;
  if (k == 0) {
    tl.label = "before the first disaster";
  } else {
    const Restore& x = history.restores[k - 1];
    tl.label = "after restore " + std::to_string(k) + " at t=" + seconds(x.restore_ns) + " (snapshot " + x.snapshot +
               " at revision " + std::to_string(x.revision) + ", bump " + std::to_string(x.bump) + ")";
    tl.restored_revision = t.cut(k);
    tl.bump = x.bump;
  }
  tl.history.operations = history.operations;
  tl.history.watches = history.watches;
  tl.history.faults = history.faults;
  tl.history.schedule = history.schedule;
  for (Operation& op : tl.history.operations) place_operation(op, t, k);
  for (Watch& w : tl.history.watches) place_watch(w, t, k);
  for (size_t j = 1; j <= k; ++j) {
    Restore v = history.restores[j - 1];
    v.revision = t.cut(j);  // in the timeline's revisions
    tl.history.restores.push_back(v);
  }
  return tl;
}

std::vector<RevisionWentBack> revisions_went_back(const History& history) {
  const Timelines t(history.restores);
  std::vector<RevisionWentBack> out;
  for (size_t k = 1; k <= history.restores.size(); ++k) find_went_back(history, t, k, out);
  return out;
}

}  // namespace dst::history

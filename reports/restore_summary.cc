#include "reports/restore_summary.h"

#include "reports/html_text.h"

namespace dst::reports {

namespace {

bool writes_in(const google::protobuf::RepeatedPtrField<etcdserverpb::RequestOp>& ops) {
  for (const auto& o : ops)
    if (o.has_request_put() || o.has_request_delete_range() ||
        (o.has_request_txn() && (writes_in(o.request_txn().success()) || writes_in(o.request_txn().failure()))))
      return true;
  return false;
}

// A request that can make a revision (a read-only txn cannot).
bool is_write(const etcdserverpb::ApiRequest& r) {
  if (r.has_txn()) return writes_in(r.txn().success()) || writes_in(r.txn().failure());
  return r.has_put() || r.has_delete_range() || r.has_lease_revoke();
}

// An answer only a working cluster gives: a write, or a linearizable read (a snapshot or a
// serializable read needs no leader).
bool needs_the_cluster(const history::Operation& op) {
  if (op.request.has_range()) return !op.request.range().serializable();
  return is_write(op.request);
}


std::string saved_text(const RestoreSummary& s) {
  if (s.snapshot_saved_ns < 0) return "-";
  return secs3_text(s.snapshot_saved_ns) + " s from n" + std::to_string(s.snapshot_member);
}

// A Markdown table cell: a '|' in a name would end it.
std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += (c == '\n' ? ' ' : c);
  }
  return out;
}

std::string served_text(const RestoreSummary& s) {
  return s.served_again_ns < 0 ? "never" : secs3_text(s.served_again_ns) + " s";
}

}  // namespace

std::vector<RestoreSummary> summarize_restores(const history::History& history) {
  std::vector<RestoreSummary> out;
  int64_t previous_restore = INT64_MIN;
  for (const history::Restore& x : history.restores) {
    RestoreSummary s;
    s.restore = x;
    for (const history::Operation& op : history.operations) {
      if (op.outcome != history::Outcome::kOk || op.invoke_ns < previous_restore || op.return_ns > x.disaster_ns) continue;
      if (op.request.has_snapshot() && op.response.snapshot().header().revision() == x.revision) {
        s.snapshot_saved_ns = op.return_ns;
        s.snapshot_member = op.member;
      }
      if (!is_write(op.request)) continue;
      if (history::response_revision(op.response) > x.revision) ++s.writes_lost;
      else ++s.writes_kept;
    }
    for (const history::Operation& op : history.operations)
      if (op.outcome == history::Outcome::kOk && op.invoke_ns >= x.restore_ns && needs_the_cluster(op) &&
          (s.served_again_ns < 0 || op.return_ns < s.served_again_ns))
        s.served_again_ns = op.return_ns;
    previous_restore = x.restore_ns;
    out.push_back(std::move(s));
  }
  return out;
}

std::string restores_html(const std::vector<RestoreSummary>& restores) {
  if (restores.empty()) return "";
  std::string s =
      "<h2>Disaster recovery</h2>\n<p class=\"expl\">Each restore of the cluster from a snapshot: every member's disk "
      "was lost at the disaster; a new cluster started from the snapshot at the restore. Writes acknowledged after "
      "the snapshot's revision are lost by design; the checkers judge each timeline of revisions on its own.</p>\n"
      "<table><tr><th>#</th><th>snapshot</th><th>saved</th><th>revision</th><th>bump</th><th>disaster (s)</th>"
      "<th>restore (s)</th><th>writes kept</th><th>writes lost</th><th>served again</th></tr>\n";
  for (size_t i = 0; i < restores.size(); ++i) {
    const RestoreSummary& r = restores[i];
    auto n = [](const std::string& t) { return "<td class=\"n\">" + html_escape(t) + "</td>"; };
    s += "<tr>" + n(std::to_string(i + 1)) + "<td>" + html_escape(r.restore.snapshot) + "</td>" + n(saved_text(r)) +
         n(std::to_string(r.restore.revision)) + n(std::to_string(r.restore.bump)) + n(secs3_text(r.restore.disaster_ns)) +
         n(secs3_text(r.restore.restore_ns)) + n(std::to_string(r.writes_kept)) + n(std::to_string(r.writes_lost)) +
         n(served_text(r)) + "</tr>\n";
  }
  return s + "</table>\n";
}

std::string restores_markdown(const std::vector<RestoreSummary>& restores) {
  if (restores.empty()) return "";
  std::string s = "\n### Disaster recovery\n\n| # | snapshot | saved | revision | bump | disaster (s) | restore (s) | "
                  "writes kept | writes lost | served again |\n|---:|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (size_t i = 0; i < restores.size(); ++i) {
    const RestoreSummary& r = restores[i];
    s += "| " + std::to_string(i + 1) + " | " + md_cell(r.restore.snapshot) + " | " + saved_text(r) + " | " +
         std::to_string(r.restore.revision) + " | " + std::to_string(r.restore.bump) + " | " +
         secs3_text(r.restore.disaster_ns) + " | " + secs3_text(r.restore.restore_ns) + " | " + std::to_string(r.writes_kept) +
         " | " + std::to_string(r.writes_lost) + " | " + served_text(r) + " |\n";
  }
  return s;
}

}  // namespace dst::reports

// etcd robustness reports checked end to end: the hand-made fixtures in testdata/robustness (a
// clean report, a watch that lost an event, a stale read) and mutations of the clean one, each
// caught by the rule it breaks; older or differently spelled fields still read.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "checker/linearizability/etcd_checker.h"
#include "checker/watch/watch_checker.h"
#include "history/import_etcd_report.h"

namespace dst::checker::etcd {
namespace {

using history::ReportFile;

std::vector<ReportFile> fixture(const std::string& name) {
  std::vector<ReportFile> files;
  for (const char* f : {"client-1/operations.json", "client-2/operations.json", "client-3/watch.json"}) {
    std::ifstream in(std::string(DST_TESTDATA_DIR) + "/robustness/" + name + "/" + f, std::ios::binary);
    EXPECT_TRUE(in.good()) << name << "/" << f;
    std::stringstream text;
    text << in.rdbuf();
    files.push_back(ReportFile{f, text.str()});
  }
  return files;
}

// The n-th (0-based) occurrence of `from` in file `name` becomes `to`.
std::vector<ReportFile> mutate(std::vector<ReportFile> files, const std::string& name, const std::string& from,
                               const std::string& to, int n = 0) {
  for (ReportFile& f : files) {
    if (f.name != name) continue;
    size_t at = f.text.find(from);
    for (int i = 0; i < n && at != std::string::npos; ++i) at = f.text.find(from, at + 1);
    EXPECT_NE(at, std::string::npos) << name << ": " << from;
    if (at != std::string::npos) f.text.replace(at, from.size(), to);
  }
  return files;
}

struct Checked {
  EtcdVerdict lin;
  watch::Report watch;
  std::string rules() const {  // every rule and guarantee that failed, for messages
    std::string s;
    for (const auto& v : lin.violations) s += v.rule + " ";
    for (const auto& v : watch.violations) s += std::string(watch::guarantee_name(v.guarantee)) + " ";
    return s;
  }
  bool lin_rule(const std::string& rule) const {
    for (const auto& v : lin.violations)
      if (v.rule == rule) return true;
    return false;
  }
  bool watch_broke(watch::Guarantee g) const { return watch.violations_by_guarantee[static_cast<size_t>(g)] > 0; }
};

Checked check(const std::vector<ReportFile>& files) {
  auto report = history::import_etcd_report_files(files);
  EXPECT_TRUE(report.is_ok()) << report.status().message();
  if (!report.is_ok()) return {};
  EtcdCheckOptions options;
  options.partial_kvs = true;
  auto lin = check_etcd(report->history, options);
  EXPECT_TRUE(lin.is_ok()) << lin.status().message();
  watch::Options wo;
  wo.partial_kvs = true;
  wo.compactions_recorded = false;
  return Checked{std::move(lin).value(), watch::check(report->history, wo)};
}

TEST(EtcdReportCheck, TheCleanFixtureIsLinearizableAndItsWatchComplete) {
  const Checked c = check(fixture("basic"));
  EXPECT_EQ(c.lin.verdict, Verdict::kLinearizable) << c.lin.summary();
  EXPECT_TRUE(c.watch.ok()) << c.watch.to_string();
  EXPECT_EQ(c.lin.stats.revisions, 6);
  EXPECT_EQ(c.lin.stats.revisions_by_unknown_write, 1u) << "the timed-out put of key1, seen by the range and the watch";
  EXPECT_EQ(c.lin.stats.revisions_by_lease, 1u) << "the revoke deleting key2";
  EXPECT_EQ(c.lin.stats.checks_skipped, 0u) << c.lin.summary();
}

TEST(EtcdReportCheck, AWatchThatMissedAnEventIsALostWrite) {
  const Checked c = check(fixture("lost_write"));
  EXPECT_EQ(c.lin.verdict, Verdict::kViolation);
  EXPECT_TRUE(c.lin_rule("lost-write")) << c.rules();
}

TEST(EtcdReportCheck, AReadOfAnOlderRevisionAfterAWriteReturnedIsStale) {
  const Checked c = check(fixture("stale_read"));
  EXPECT_EQ(c.lin.verdict, Verdict::kViolation);
  EXPECT_TRUE(c.lin_rule("stale-read")) << c.rules();
}

TEST(EtcdReportCheck, EachMutationOfTheCleanReportIsCaughtByTheRuleItBreaks) {
  const auto basic = fixture("basic");
  // The range of client 2 reads key0's old value at its later revision.
  Checked c = check(mutate(basic, "client-2/operations.json", "\"Value\": \"2\"", "\"Value\": \"1\""));
  EXPECT_TRUE(c.lin_rule("read-result")) << c.rules();
  // The txn's condition names another revision, yet it succeeded.
  c = check(mutate(basic, "client-1/operations.json", "\"ExpectedRevision\": 2", "\"ExpectedRevision\": 1"));
  EXPECT_TRUE(c.lin_rule("txn-succeeded")) << c.rules();
  // The watch says key0's first put was no creation.
  c = check(mutate(basic, "client-3/watch.json", "\"IsCreate\": true", "\"IsCreate\": false"));
  EXPECT_TRUE(c.watch_broke(watch::Guarantee::kIsCreate)) << c.rules();
  // The watch's previous value of key0 names a revision it never had.
  c = check(mutate(basic, "client-3/watch.json", "\"ModRevision\": 2", "\"ModRevision\": 1"));
  EXPECT_TRUE(c.watch_broke(watch::Guarantee::kPrevKv)) << c.rules();
  // The watch sees key2 created with a value its next event's previous value contradicts.
  c = check(mutate(basic, "client-3/watch.json", "\"Value\": \"x\"", "\"Value\": \"y\""));
  EXPECT_TRUE(c.lin_rule("sources-disagree")) << c.rules();
  EXPECT_TRUE(c.watch_broke(watch::Guarantee::kConsistent)) << c.rules();
  // The range that sees key1's timed-out put returned before that put was sent.
  c = check(mutate(mutate(basic, "client-2/operations.json", "\"Call\": 206000000", "\"Call\": 1000"),
                   "client-2/operations.json", "\"Return\": 207000000", "\"Return\": 2000"));
  EXPECT_TRUE(c.lin_rule("stale-read")) << c.rules();
}

// Reports before etcd 3546091f wrote "Hash": 0 beside every value: no hash, the value is the value.
std::vector<ReportFile> with_hash_zero(std::vector<ReportFile> files) {
  for (ReportFile& f : files)
    for (size_t at = 0; (at = f.text.find("\"Value\": \"", at)) != std::string::npos;) {
      const size_t end = f.text.find('"', at + 10);
      f.text.insert(end + 1, ", \"Hash\": 0");
      at = end;
    }
  return files;
}

TEST(EtcdReportCheck, OlderReportsWithHashZeroBesideValuesReadTheSame) {
  const auto old = with_hash_zero(fixture("basic"));
  ASSERT_NE(old[0].text.find("\"Hash\": 0"), std::string::npos);
  Checked c = check(old);
  EXPECT_EQ(c.lin.verdict, Verdict::kLinearizable) << c.rules();
  EXPECT_TRUE(c.watch.ok()) << c.watch.to_string();
  c = check(with_hash_zero(mutate(fixture("basic"), "client-2/operations.json", "\"Value\": \"2\"", "\"Value\": \"1\"")));
  EXPECT_TRUE(c.lin_rule("read-result")) << c.rules();
}

TEST(EtcdReportCheck, OlderReportsWithoutNewerFieldsAndTheLoadersSpellingReadTheSame) {
  auto files = fixture("basic");
  for (ReportFile& f : files) {
    std::string out, line;
    std::istringstream in(f.text);
    while (std::getline(in, line))
      if (line.find("\"member-id\"") == std::string::npos && line.find("\"Persisted") == std::string::npos)
        out += line + "\n";
    for (size_t at; (at = out.find("\"ClientId\"")) != std::string::npos;) out.replace(at, 10, "\"ClientID\"");
    f.text = out;
  }
  const Checked c = check(files);
  EXPECT_EQ(c.lin.verdict, Verdict::kLinearizable) << c.rules();
  EXPECT_TRUE(c.watch.ok()) << c.watch.to_string();
}

}  // namespace
}  // namespace dst::checker::etcd

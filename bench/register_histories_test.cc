// The bench's register histories (register_histories.h): the shapes the issue asks for, the same
// files from the same seed, linearizable by construction without anomalies, and checkable.
#include "bench/register_histories.h"

#include <gtest/gtest.h>

#include <set>

#include "checker/linearizability/imported_check.h"
#include "history/import_jepsen.h"

namespace dst::bench {
namespace {

checker::Verdict verdict_of(const std::string& text) {
  Result<history::ImportedHistory> h = history::import_jepsen(text, "generated.log");
  EXPECT_TRUE(h.is_ok()) << h.status().to_string();
  if (!h.is_ok()) return checker::Verdict::kUnknown;
  Result<checker::CheckResult> r = checker::check_imported(*h, checker::ImportedModel::kRegister, {}, false);
  EXPECT_TRUE(r.is_ok());
  return r.is_ok() ? r->verdict : checker::Verdict::kUnknown;
}

TEST(RegisterHistories, WithoutAnomaliesTheyAreLinearizable) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    RegisterHistoryShape shape;
    shape.operations = 60 + seed * 3;
    shape.processes = 5 + seed % 11;
    shape.timeout_probability = 0.08;
    EXPECT_EQ(verdict_of(make_register_history(shape, seed)), checker::Verdict::kLinearizable) << "seed " << seed;
  }
}

TEST(RegisterHistories, ShapeTimeoutsAndProcessRenumbering) {
  RegisterHistoryShape shape;
  shape.operations = 150;
  shape.processes = 7;
  shape.timeout_probability = 0.2;
  const std::string text = make_register_history(shape, 9);
  EXPECT_EQ(text, make_register_history(shape, 9));  // deterministic
  Result<history::ImportedHistory> h = history::import_jepsen(text, "generated.log");
  ASSERT_TRUE(h.is_ok());
  EXPECT_EQ(h->ops.size(), 150u);
  std::set<uint64_t> processes;
  for (const history::ImportedOp& op : h->ops) processes.insert(op.process);
  EXPECT_GT(processes.size(), 7u);  // timed-out writes gave workers new process numbers
  EXPECT_NE(text.find(":info\t:write\t:timed-out"), std::string::npos);
  EXPECT_NE(text.find(":fail\t:read\t:timed-out"), std::string::npos);
  EXPECT_NE(text.find(":fail\t:cas\t["), std::string::npos);
}

TEST(RegisterHistories, TheSetHasBothVerdicts) {
  const std::string dir = ::testing::TempDir() + "/register-set";
  Result<std::vector<std::string>> files = write_register_set(dir, 25, 30);
  ASSERT_TRUE(files.is_ok()) << files.status().to_string();
  ASSERT_EQ(files->size(), 30u);
  size_t violations = 0, linearizable = 0;
  for (const std::string& f : *files) {
    Result<history::ImportedHistory> h = history::import_jepsen_file(f);
    ASSERT_TRUE(h.is_ok()) << h.status().to_string();
    EXPECT_GE(h->ops.size(), 60u);
    EXPECT_LE(h->ops.size(), 200u);
    Result<checker::CheckResult> r = checker::check_imported(*h, checker::ImportedModel::kRegister, {}, false);
    ASSERT_TRUE(r.is_ok());
    violations += r->verdict == checker::Verdict::kViolation;
    linearizable += r->verdict == checker::Verdict::kLinearizable;
  }
  EXPECT_GE(linearizable, 15u);  // the even ones, at least
  EXPECT_GE(violations, 5u);
}

}  // namespace
}  // namespace dst::bench

// Jepsen's mutex (jepsen-io/etcd's lock workload) imported and checked: one holder at a time,
// failed operations left out, a timed-out acquire may or may not have happened.
#include <gtest/gtest.h>

#include <string>

#include "checker/linearizability/imported_check.h"
#include "checker/linearizability/mutex_model.h"
#include "history/import_jepsen.h"

namespace dst::checker {
namespace {

Verdict mutex_verdict(const std::string& lines) {
  auto h = history::import_jepsen(lines, "lock.log");
  EXPECT_TRUE(h.is_ok()) << h.status().to_string();
  if (!h.is_ok()) return Verdict::kUnknown;
  EXPECT_EQ(jepsen_model_of(*h), ImportedModel::kMutex);
  auto r = check_imported(*h, ImportedModel::kMutex);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? r->verdict : Verdict::kUnknown;
}

std::string op(int process, const char* type, const char* f) {
  return "INFO  jepsen.util - " + std::to_string(process) + "\t" + type + "\t" + f + "\tnil\n";
}

TEST(JepsenMutex, OneHolderAtATime) {
  const std::string a0 = op(0, ":invoke", ":acquire") + op(0, ":ok", ":acquire");
  const std::string a1 = op(1, ":invoke", ":acquire") + op(1, ":ok", ":acquire");
  const std::string r0 = op(0, ":invoke", ":release") + op(0, ":ok", ":release");
  EXPECT_EQ(mutex_verdict(a0 + r0 + a1), Verdict::kLinearizable);
  EXPECT_EQ(mutex_verdict(a0 + a1), Verdict::kViolation);  // two holders
  EXPECT_EQ(mutex_verdict(r0), Verdict::kViolation);       // released a free lock
  // A release that failed did not happen; one that timed out may have.
  EXPECT_EQ(mutex_verdict(a0 + op(0, ":invoke", ":release") + op(0, ":fail", ":release") + a1), Verdict::kViolation);
  EXPECT_EQ(mutex_verdict(a0 + op(0, ":invoke", ":release") + op(0, ":info", ":release") + a1), Verdict::kLinearizable);
  // Concurrent acquires: one of them must have come after a release.
  EXPECT_EQ(mutex_verdict(op(0, ":invoke", ":acquire") + op(1, ":invoke", ":acquire") + op(0, ":ok", ":acquire") +
                          op(1, ":ok", ":acquire")),
            Verdict::kViolation);
}

TEST(JepsenMutex, ARegisterHistoryIsNotAMutexOne) {
  auto h = history::import_jepsen(op(0, ":invoke", ":acquire") + op(0, ":ok", ":acquire") +
                                      "INFO  jepsen.util - 1\t:invoke\t:write\t3\n",
                                  "mixed.log");
  ASSERT_TRUE(h.is_ok());
  auto r = check_imported(*h, ImportedModel::kMutex);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("mixed.log:3: the mutex model expects :acquire or :release, found :write"),
            std::string::npos)
      << r.status().message();
}

TEST(JepsenMutex, TheModel) {
  MutexModel m;
  const MutexState free = m.initial_state();
  ASSERT_FALSE(free.held);
  const auto held = m.step(free, MutexOp{true});
  ASSERT_TRUE(held.has_value());
  EXPECT_FALSE(m.step(*held, MutexOp{true}).has_value());
  EXPECT_FALSE(m.step(free, MutexOp{false}).has_value());
  EXPECT_EQ(m.step(*held, MutexOp{false}), free);
  EXPECT_NE(m.hash_state(free), m.hash_state(*held));
  EXPECT_EQ(m.describe_state(*held), "held");
}

}  // namespace
}  // namespace dst::checker

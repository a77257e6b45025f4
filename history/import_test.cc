// The Jepsen and Porcupine importers: pairing, outcomes, line numbers, and bad input named by
// file, line and what was expected.
#include <gtest/gtest.h>

#include "history/import_jepsen.h"
#include "history/import_porcupine.h"

namespace dst::history {
namespace {

TEST(ImportJepsen, PairsInvocationsWithCompletions) {
  auto h = import_jepsen(
      "; a comment\n"
      "{:type :invoke, :f :write, :value 3, :process 0, :time 100}\n"
      "{:type :invoke, :f :cas, :value [3 4], :process 1, :time 110}\n"
      "\n"
      "{:type :ok, :f :write, :value 3, :process 0, :time 120}\n"
      "{:process :nemesis, :type :info, :f :start, :value [:isolated {\"n1\" #{\"n2\"}}]}\n"
      "{:type :info, :f :cas, :value [3 4], :process 1, :time 130, :error :timeout}\n"
      "{:type :invoke, :f :read, :value nil, :process 0, :time 140}\n"
      "{:type :ok, :f :read, :value 4, :process 0, :time 150}\n"
      "{:type :invoke, :f :read, :value nil, :process 2, :time 160}\n"
      "{:type :fail, :f :read, :value nil, :process 2, :time 170}\n"
      "{:type :invoke, :f :write, :value 9, :process 3, :time 180}\n",
      "h.edn");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->ops.size(), 5u);
  const ImportedOp& w = h->ops[0];
  EXPECT_EQ(w.fn, ImportedFn::kWrite);
  EXPECT_EQ(w.argument, ImportedValue::integer(3));
  EXPECT_EQ(w.outcome, ImportedOutcome::kOk);
  EXPECT_EQ(w.invoke_line, 2u);
  EXPECT_EQ(w.return_line, 5u);
  EXPECT_EQ(w.invoke_time_ns, 100);
  EXPECT_LT(w.invoke_at, w.return_at);
  const ImportedOp& cas = h->ops[1];
  EXPECT_EQ(cas.argument, ImportedValue::pair(3, 4));
  EXPECT_EQ(cas.outcome, ImportedOutcome::kUnknown);
  EXPECT_EQ(cas.return_at, kImportedNeverReturned);
  EXPECT_EQ(h->ops[2].result, ImportedValue::integer(4));
  EXPECT_EQ(h->ops[3].outcome, ImportedOutcome::kFailed);
  EXPECT_EQ(h->ops[4].outcome, ImportedOutcome::kUnknown);  // never completed
  EXPECT_EQ(h->ops[4].return_line, 0u);
}

void expect_error(const char* text, const std::string& where, const std::string& what) {
  auto h = import_jepsen(text, "x.edn");
  ASSERT_FALSE(h.is_ok()) << text;
  EXPECT_NE(h.status().message().find(where), std::string::npos) << h.status().message();
  EXPECT_NE(h.status().message().find(what), std::string::npos) << h.status().message();
}

TEST(ImportJepsen, BadInputNamesFileLineAndExpectation) {
  expect_error("{:type :invoke, :f :write, :value 1, :process 0}\n{:type :ok, :f :write :value 1, :process 0",
               "x.edn:2:", "expected '}'");
  expect_error("{:type :invoke, :f :cas, :value 1, :process 0}\n", "x.edn:1:", "[old new]");
  expect_error("{:type :invoke, :f :write, :value \"a\", :process 0}\n", "x.edn:1:", "an integer");
  expect_error("{:type :ok, :f :write, :value 1, :process 0}\n", "x.edn:1:", "no open :invoke");
  expect_error("{:type :invoke, :f :write, :value 1, :process 0}\n{:type :invoke, :f :read, :process 0}\n",
               "x.edn:2:", "line 1 has no completion");
  expect_error("{:type :invoke, :f :write, :value 1, :process 0}\n{:type :ok, :f :read, :process 0}\n",
               "x.edn:2:", "does not match");
  expect_error("{:type :invoke, :f :frob, :value 1, :process 0}\n", "x.edn:1:", ":f :read, :write or :cas");
  expect_error("{:type :begin, :f :read, :process 0}\n", "x.edn:1:", ":type :invoke");
  expect_error("{:type :invoke, :f :read}\n", "x.edn:1:", ":process");
  expect_error("{:type :invoke, :f :write, :value 99999999999999999999, :process 0}\n", "x.edn:1:", "64-bit integer");
  expect_error("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n", "x.edn:1:", "nesting");
}

TEST(ImportPorcupine, ReadsTheTestdataFiles) {
  for (const char* name : {"c01-ok", "c01-bad", "c10-ok", "c10-bad", "c50-ok", "c50-bad"}) {
    auto h = import_porcupine_kv_file(std::string(DST_TESTDATA_DIR) + "/porcupine-kv/" + name + ".txt");
    ASSERT_TRUE(h.is_ok()) << h.status().to_string();
    for (const ImportedOp& op : h->ops) EXPECT_EQ(op.outcome, ImportedOutcome::kOk) << name;
  }
  auto c01 = import_porcupine_kv_file(std::string(DST_TESTDATA_DIR) + "/porcupine-kv/c01-ok.txt");
  ASSERT_TRUE(c01.is_ok());
  EXPECT_EQ(c01->ops.size(), 58u);
  EXPECT_EQ(c01->ops[0].fn, ImportedFn::kAppend);
  EXPECT_EQ(c01->ops[0].key, "0");
  EXPECT_EQ(c01->ops[0].argument, ImportedValue::string("x 0 0 y"));
}

TEST(ImportPorcupine, GetResultAndErrors) {
  auto h = import_porcupine_kv(
      "{:process 1, :type :invoke, :f :get, :key \"9\", :value nil}\n"
      "{:process 1, :type :ok, :f :get, :key \"9\", :value \"x \\\"q\\\" y\"}\n",
      "p.txt");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  EXPECT_EQ(h->ops[0].result, ImportedValue::string("x \"q\" y"));
  auto bad = import_porcupine_kv("{:process 1, :type :invoke, :f :get, :value nil}\n", "p.txt");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("p.txt:1: expected :key"), std::string::npos) << bad.status().message();
  auto missing = import_porcupine_kv_file("/nonexistent/file.txt");
  EXPECT_FALSE(missing.is_ok());
}

}  // namespace
}  // namespace dst::history

// The Jepsen and Porcupine importers: pairing, outcomes, line numbers, and bad input named by
// file, line and what was expected.
#include <gtest/gtest.h>

#include "base/limits.h"
#include "history/history_file.h"
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
  expect_error("{:type :invoke, :f :frob, :value 1, :process 0}\n", "x.edn:1:", ":f :read, :write, :cas, :acquire or :release");
  expect_error("{:type :begin, :f :read, :process 0}\n", "x.edn:1:", ":type :invoke");
  expect_error("{:type :invoke, :f :read}\n", "x.edn:1:", ":process");
  expect_error("{:type :invoke, :f :write, :value 99999999999999999999, :process 0}\n", "x.edn:1:", "64-bit integer");
  expect_error("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[\n", "x.edn:1:", "nesting");
}

// A Jepsen log with every kind of line: op lines after `prefix` (their logger), the op's fields
// separated by tabs, or by `spaces` instead when given; other loggers' lines and a stack trace.
std::string jepsen_log(const std::string& prefix, const std::string& spaces = "") {
  const char* ops[] = {"0\t:invoke\t:write\t3", "1\t:invoke\t:cas\t[3 4]", "0\t:ok\t:write\t3",
                       ":nemesis\t:info\t:start\tnil", ":nemesis\t:info\t:start\t\"Cut off {:n1 #{:n2}}\"",
                       "1\t:info\t:cas\t:timed-out", "2\t:invoke\t:read\tnil", "2\t:ok\t:read\t4",
                       "3\t:invoke\t:read\tnil", "3\t:fail\t:read\t:timed-out", "6\t:invoke\t:write\t5",
                       "6\t:ok\t:write\t5", "2\t:invoke\t:cas\t[4 5]", "2\t:fail\t:cas\t[4 5]", "8\t:invoke\t:read\tnil"};
  std::string out = "INFO  jepsen.core - Running test\n";
  for (const char* op : ops) {
    std::string line = op;
    if (!spaces.empty())
      for (size_t at = line.find('\t'); at != std::string::npos; at = line.find('\t', at)) line.replace(at, 1, spaces);
    out += prefix + line + "\n";
    if (line.find(":fail") != std::string::npos && line.find(":cas") != std::string::npos)
      out += "WARN  jepsen.core - Process 7 crashed\n\tat clojure.core$eval.invoke(core.clj:1)\n";
  }
  return out;
}

void expect_the_log_ops(const Result<ImportedHistory>& h) {
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->ops.size(), 7u);
  EXPECT_EQ(h->ops[0].argument, ImportedValue::integer(3));
  EXPECT_EQ(h->ops[0].outcome, ImportedOutcome::kOk);
  EXPECT_EQ(h->ops[0].invoke_line, 2u);
  EXPECT_EQ(h->ops[0].return_line, 4u);
  EXPECT_EQ(h->ops[1].argument, ImportedValue::pair(3, 4));
  EXPECT_EQ(h->ops[1].outcome, ImportedOutcome::kUnknown);  // :info :timed-out in the value's place
  EXPECT_EQ(h->ops[1].return_at, kImportedNeverReturned);
  EXPECT_EQ(h->ops[2].result, ImportedValue::integer(4));
  EXPECT_EQ(h->ops[3].outcome, ImportedOutcome::kFailed);  // a read that timed out: :fail
  EXPECT_EQ(h->ops[4].process, 6u);  // process 1 crashed (:info) and came back as 1 + 5
  EXPECT_EQ(h->ops[4].outcome, ImportedOutcome::kOk);
  EXPECT_EQ(h->ops[5].fn, ImportedFn::kCas);
  EXPECT_EQ(h->ops[5].outcome, ImportedOutcome::kFailed);
  EXPECT_EQ(h->ops[6].outcome, ImportedOutcome::kUnknown);  // never completed
}

TEST(ImportJepsenLog, ReadsEveryEventKindInEveryLayout) {
  SCOPED_TRACE("2014-15 log4j layout");
  expect_the_log_ops(import_jepsen(jepsen_log("INFO  jepsen.util - "), "old.log"));
  SCOPED_TRACE("jepsen.log since 2016");
  expect_the_log_ops(import_jepsen(jepsen_log("2021-02-26 23:39:01,526{GMT}\tINFO\t[jepsen worker 0] jepsen.util: "), "new.log"));
  SCOPED_TRACE("jepsen.print, console");
  expect_the_log_ops(import_jepsen(jepsen_log("INFO\t[jepsen worker 1] jepsen.print: "), "print.log"));
  SCOPED_TRACE("tabs turned into spaces");
  expect_the_log_ops(import_jepsen(jepsen_log("INFO  jepsen.util - ", "   "), "spaces.log"));
}

TEST(ImportJepsenLog, AnErrorFieldAfterTheValue) {
  auto h = import_jepsen("INFO  jepsen.util - 0\t:invoke\t:write\t3\n"
                         "INFO  jepsen.util - 0\t:info\t:write\t3\t:timeout\n"
                         "INFO  jepsen.util - 1\t:invoke\t:cas\t[2 3]\n"
                         "INFO  jepsen.util - 1\t:fail\t:cas\t[2 3]\t[:timeout nil]\n"
                         "INFO  jepsen.util - 2\t:invoke\t:write\t4\n"
                         "INFO  jepsen.util - 2\t:info\t:write\t4\tindeterminate: Connection refused (\n",
                         "err.log");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->ops.size(), 3u);
  EXPECT_EQ(h->ops[0].outcome, ImportedOutcome::kUnknown);
  EXPECT_EQ(h->ops[1].outcome, ImportedOutcome::kFailed);
  EXPECT_EQ(h->ops[2].outcome, ImportedOutcome::kUnknown);
}

TEST(ImportJepsenLog, BareOperationLinesWithoutALogger) {
  auto h = import_jepsen("0\t:invoke\t:read\tnil\n0\t:ok\t:read\t7\n", "bare.txt");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->ops.size(), 1u);
  EXPECT_EQ(h->ops[0].result, ImportedValue::integer(7));
}

TEST(ImportJepsenLog, BadLinesNameFileLineAndExpectation) {
  const auto error = [](const std::string& text) {
    auto h = import_jepsen(text, "x.log");
    return h.is_ok() ? std::string("accepted") : h.status().message();
  };
  const std::string p = "INFO  jepsen.util - ";
  EXPECT_NE(error(p + "1\t:invoke\t:cas\tfoo\n").find("x.log:1: expected :value [old new]"), std::string::npos)
      << error(p + "1\t:invoke\t:cas\tfoo\n");
  EXPECT_NE(error("INFO  jepsen.core - hi\n" + p + "1\t:invoke\t:frob\t3\n").find("x.log:2: expected :read, :write, :cas, :acquire or :release"),
            std::string::npos);
  EXPECT_NE(error(p + "1\t:invoke\t:write\n").find("x.log:1: expected the operation's value after :write"), std::string::npos);
  EXPECT_NE(error(p + "-1\t:invoke\t:write\t3\n").find("x.log:1: expected the process"), std::string::npos);
  EXPECT_NE(error(p + "Running test\n").find("x.log: a Jepsen log with no operation"), std::string::npos);
  EXPECT_EQ(error(p + ":nemesis\t:info\t:start\tnil\n"), "accepted");  // only faults: nothing to order
  EXPECT_NE(error(p + "1\t:invoke\t:write\t3\n" + p + "1\t:invoke\t:write\t4\n").find("x.log:2: process 1 invokes again"),
            std::string::npos);
  EXPECT_NE(error("hello world\n").find("x.log:1:"), std::string::npos) << "neither EDN nor a log line";
}

// jepsen.independent's [k v] values, as Maelstrom's lin-kv and most Jepsen register tests log them.
TEST(ImportJepsenKeyed, IndependentTuplesInLogLines) {
  const std::string p = "2021-02-26 23:39:01,526{GMT}\tINFO\t[jepsen worker 0] jepsen.util: ";
  auto h = import_jepsen(p + "0\t:invoke\t:read\t[0 nil]\n" + p + "0\t:ok\t:read\t[0 nil]\n" +
                             p + "1\t:invoke\t:write\t[\"a\" 3]\n" + p + "1\t:info\t:write\t[\"a\" 3]\t:timeout\n" +
                             p + "2\t:invoke\t:cas\t[:k [1 2]]\n" + p + "2\t:fail\t:cas\t[:k [1 2]]\t:precondition-failed\n" +
                             p + "0\t:invoke\t:read\t[0 nil]\n" + p + "0\t:ok\t:read\t[0 4]\n",
                         "lin-kv.log");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  EXPECT_EQ(h->form, RegisterForm::kKeyed);
  ASSERT_EQ(h->ops.size(), 4u);
  EXPECT_EQ(h->ops[0].key, "0");
  EXPECT_EQ(h->ops[0].result, ImportedValue::nil());
  EXPECT_EQ(h->ops[1].key, "\"a\"");
  EXPECT_EQ(h->ops[1].argument, ImportedValue::integer(3));
  EXPECT_EQ(h->ops[1].outcome, ImportedOutcome::kUnknown);
  EXPECT_EQ(h->ops[2].key, ":k");
  EXPECT_EQ(h->ops[2].argument, ImportedValue::pair(1, 2));
  EXPECT_EQ(h->ops[2].outcome, ImportedOutcome::kFailed);
  EXPECT_EQ(h->ops[3].result, ImportedValue::integer(4));
  EXPECT_EQ(describe_imported_op(h->ops[3]), "read(0) -> 4");
  EXPECT_EQ(describe_imported_op(h->ops[1]), "write(\"a\", 3) -> ?");
}

// jepsen-io/etcd's register workload: [k [version value]] in history.edn; the versions are the
// completions' (an invocation names none).
TEST(ImportJepsenKeyed, VersionedRegisterOfJepsenEtcd) {
  auto h = import_jepsen(
      "{:index 0, :time 10, :type :invoke, :process 0, :f :write, :value [5 [nil 2]]}\n"
      "{:index 1, :time 20, :type :ok, :process 0, :f :write, :value [5 [1 2]]}\n"
      "{:index 2, :time 30, :type :invoke, :process 1, :f :cas, :value [5 [nil [2 4]]]}\n"
      "{:index 3, :time 40, :type :ok, :process 1, :f :cas, :value [5 [2 [2 4]]]}\n"
      "{:index 4, :time 50, :type :invoke, :process 0, :f :read, :value [5 [nil nil]]}\n"
      "{:index 5, :time 60, :type :ok, :process 0, :f :read, :value [5 [2 4]]}\n"
      "{:index 6, :time 70, :type :invoke, :process 1, :f :cas, :value [5 [nil [1 3]]]}\n"
      "{:index 7, :time 80, :type :fail, :process 1, :f :cas, :value [5 [nil [1 3]]], :error :did-not-succeed}\n",
      "etcd.edn");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  EXPECT_EQ(h->form, RegisterForm::kVersioned);
  ASSERT_EQ(h->ops.size(), 4u);
  EXPECT_EQ(h->ops[0].version, 1);
  EXPECT_EQ(h->ops[1].argument, ImportedValue::pair(2, 4));
  EXPECT_EQ(h->ops[1].version, 2);
  EXPECT_EQ(h->ops[2].result, ImportedValue::integer(4));
  EXPECT_EQ(h->ops[2].version, 2);
  EXPECT_EQ(h->ops[3].outcome, ImportedOutcome::kFailed);
  EXPECT_EQ(h->ops[3].version, kImportedNoVersion);
  EXPECT_EQ(describe_imported_op(h->ops[2]), "read(5) -> 4 @v2");
}

TEST(ImportJepsenKeyed, BadKeyedValuesNameLineAndExpectation) {
  const auto error = [](const std::string& text) {
    auto h = import_jepsen(text, "x.edn");
    return h.is_ok() ? std::string("accepted") : h.status().message();
  };
  const std::string w0 = "{:type :invoke, :f :write, :value [0 1], :process 0}\n";
  EXPECT_NE(error(w0 + "{:type :invoke, :f :write, :value 2, :process 1}\n")
                .find("x.edn:2: a one register's (nil, 3, [1 2]) value, but line 1 has a keyed ([k v], jepsen.independent) one"),
            std::string::npos)
      << error(w0 + "{:type :invoke, :f :write, :value 2, :process 1}\n");
  EXPECT_NE(error(w0 + "{:type :invoke, :f :write, :value [0 [nil 2]], :process 1}\n").find("x.edn:2: a keyed and versioned"),
            std::string::npos);
  EXPECT_NE(error("{:type :invoke, :f :write, :value [nil 1], :process 0}\n").find("x.edn:1: expected a key"), std::string::npos);
  EXPECT_NE(error("{:type :invoke, :f :write, :value [0 [:x 1]], :process 0}\n").find("x.edn:1: expected the version"),
            std::string::npos);
  EXPECT_NE(error("{:type :invoke, :f :write, :value [0 [1 2 3]], :process 0}\n").find("found [1 2 3]"), std::string::npos)
      << error("{:type :invoke, :f :write, :value [0 [1 2 3]], :process 0}\n");
  EXPECT_NE(error(w0 + "{:type :ok, :f :write, :value [1 1], :process 0}\n")
                .find("x.edn:2: completion :f :write on key 1 does not match the :invoke on line 1 (:f :write on key 0)"),
            std::string::npos)
      << error(w0 + "{:type :ok, :f :write, :value [1 1], :process 0}\n");
}

// EDN laid out as Knossos's test data and hand-written histories are: maps over several lines,
// all in one list, ';' comments anywhere, a tagged record, a nemesis map with a string value.
TEST(ImportJepsenEdn, FormsOverSeveralLinesInAList) {
  auto h = import_jepsen(
      "; a register that is written, then read\n"
      "({:type :invoke,\n"
      "  :f :write, ; the only write\n"
      "  :value 1,\n"
      "  :process 0}\n"
      " {:process :nemesis,\n"
      "  :type :info, :f :start,\n"
      "  :value \"Cut off [:n3 #[:n4 :n5]]\"}\n"
      " #jepsen.history.Op{:index 2, :time 5, :type :ok, :process 0, :f :write, #_ :ignored :value 1}\n"
      " {:type :invoke, :f :read, :value nil, :process 1} {:type :ok, :f :read, :value 1, :process 1})\n",
      "k.edn");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->ops.size(), 2u);
  EXPECT_EQ(h->nemesis_events, 1u);
  EXPECT_EQ(h->ops[0].invoke_line, 2u);
  EXPECT_EQ(h->ops[0].return_line, 9u);
  EXPECT_EQ(h->ops[0].return_time_ns, 5);
  EXPECT_EQ(h->ops[1].invoke_line, 10u);
  EXPECT_EQ(h->ops[1].return_line, 10u);
  EXPECT_EQ(h->ops[1].result, ImportedValue::integer(1));
  EXPECT_LT(h->ops[1].invoke_at, h->ops[1].return_at);
}

TEST(ImportJepsenEdn, OnlyNemesisEventsIsAnEmptyHistory) {
  auto h = import_jepsen("[{:process :nemesis, :type :info, :f :kill, :value nil}\n"
                         " {:process :nemesis, :type :info, :f :recover, :value nil}]\n",
                         "n.edn");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  EXPECT_TRUE(h->ops.empty());
  EXPECT_EQ(h->nemesis_events, 2u);
}

TEST(ImportJepsenEdn, ErrorsNameTheLineTheyAreOn) {
  const auto error = [](const std::string& text) {
    auto h = import_jepsen(text, "x.edn");
    return h.is_ok() ? std::string("accepted") : h.status().message();
  };
  EXPECT_NE(error("; a list\n({:type :invoke, :f :write, :value 1, :process 0}\n").find("x.edn:2: the history's '(' is never closed"),
            std::string::npos)
      << error("; a list\n({:type :invoke, :f :write, :value 1, :process 0}\n");
  EXPECT_NE(error("[{:type :invoke, :f :write, :value 1, :process 0}]\n{:type :ok, :f :write, :value 1, :process 0}\n")
                .find("x.edn:2: expected the end of the input after the history's ']'"),
            std::string::npos);
  EXPECT_NE(error("{:type :invoke, :f :write, :value 1, :process 0}\n{:type :invoke,\n :f :read\n").find("x.edn:2: at column 1: a '{' that is never closed"),
            std::string::npos)
      << error("{:type :invoke, :f :write, :value 1, :process 0}\n{:type :invoke,\n :f :read\n");
  // A NUL byte is not the end of the history; a backslash-newline in a string is a line.
  EXPECT_NE(error(std::string("{:type :invoke, :f :write, :value 1, :process 0}\n\0{:type :ok}\n", 52)).find("x.edn:2:"),
            std::string::npos);
  const std::string escaped_newline = "{:type :invoke, :f :write, :process 0, :value 1, :note \"a\\\nb\"}\n{:type :ok, :f :read, :process 0}\n";
  EXPECT_NE(error(escaped_newline).find("x.edn:3: completion :f :read does not match"), std::string::npos) << error(escaped_newline);
  EXPECT_NE(error("[{:type :invoke,\n :f :write,\n :value 1 :process}]\n").find("x.edn:3: at column 20: a map needs an even number"),
            std::string::npos)
      << error("[{:type :invoke,\n :f :write,\n :value 1 :process}]\n");
  EXPECT_NE(error("[{:type :invoke, :f :write, :value 1, :process 0}\n [1 2]]").find("x.edn:2: expected an event map {...}, found [1 2]"),
            std::string::npos)
      << error("[{:type :invoke, :f :write, :value 1, :process 0}\n [1 2]]");
  EXPECT_NE(error("{:type :invoke,\n :f :write, :value \"unterminated}\n").find("x.edn:2: at column 20: a string that is never closed"),
            std::string::npos)
      << error("{:type :invoke,\n :f :write, :value \"unterminated}\n");
  std::string wide = "{:type :invoke, :f :write, :process 0, :value [";
  for (size_t i = 0; i < limits::kImportFormValuesMax; ++i) wide += "1\n";
  EXPECT_NE(error(wide + "]}").find("values in one event"), std::string::npos);
}

// jepsen-io/etcd's lock workload: :acquire and :release, with nil values.
TEST(ImportJepsen, MutexOperations) {
  auto h = import_jepsen("INFO  jepsen.util - 0\t:invoke\t:acquire\tnil\n"
                         "INFO  jepsen.util - 0\t:ok\t:acquire\tnil\n"
                         "INFO  jepsen.util - 1\t:invoke\t:release\tnil\n"
                         "INFO  jepsen.util - 1\t:fail\t:release\tnil\t:not-held\n",
                         "lock.log");
  ASSERT_TRUE(h.is_ok()) << h.status().to_string();
  ASSERT_EQ(h->ops.size(), 2u);
  EXPECT_EQ(h->ops[0].fn, ImportedFn::kAcquire);
  EXPECT_EQ(h->ops[1].fn, ImportedFn::kRelease);
  EXPECT_EQ(h->ops[1].outcome, ImportedOutcome::kFailed);
  EXPECT_EQ(describe_imported_op(h->ops[0]), "acquire()");
}

TEST(SniffHistoryFormat, JepsenLogLinesAreJepsen) {
  const auto sniff = [](std::string_view head) {
    Result<HistoryFormat> f = sniff_history_format(head, "h");
    return f.is_ok() ? std::string(history_format_name(*f)) : f.status().message();
  };
  EXPECT_EQ(sniff("INFO  jepsen.core - Running test\n"), "jepsen");
  EXPECT_EQ(sniff("2021-02-26 23:39:01,526{GMT}\tINFO\t[jepsen worker 0] jepsen.util: 0\t:invoke\t:read\tnil\n"), "jepsen");
  EXPECT_EQ(sniff("0\t:invoke\t:read\tnil\n"), "jepsen");
  EXPECT_EQ(sniff(":nemesis :info :start nil\n"), "jepsen");
  EXPECT_EQ(sniff("{:process 0, :type :invoke, :f :get, :key \"1\", :value nil}\n"), "porcupine-kv");
  EXPECT_NE(sniff("0\t:invoked\n").find("Jepsen's log lines"), std::string::npos);
  EXPECT_NE(sniff("0\n").find("no event map"), std::string::npos);
  EXPECT_NE(sniff("7 \n").find("no event map"), std::string::npos);
  // What it saw, when nothing matches.
  EXPECT_NE(sniff("hello world\n").find("(it is text starting 'hello world')"), std::string::npos) << sniff("hello world\n");
  EXPECT_NE(sniff(std::string("ab\0cd", 5)).find("binary data"), std::string::npos);
  EXPECT_NE(sniff("<html><body>\n").find("markup"), std::string::npos);
  EXPECT_NE(sniff("{\n  \"ClientId\": 3,\n").find("it is JSON (text starting '{')"), std::string::npos)
      << sniff("{\n  \"ClientId\": 3,\n");
  EXPECT_NE(sniff("[{\"a\": 1}]").find("it is JSON"), std::string::npos);
  EXPECT_NE(sniff("{:results {:valid? true}}\n").find("no :type"), std::string::npos);
  EXPECT_EQ(sniff("{:process 0, :type :invoke, :f :read, :value nil}"), "jepsen");
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

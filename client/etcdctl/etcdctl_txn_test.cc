// etcdctl's txn input language: the reference page's printf'd stdin sequences fed line by line,
// the compare grammar, and the errors (including the missing final blank line: "EOF").
#include <gtest/gtest.h>

#include "client/etcdctl/etcdctl_txn.h"

namespace dst::etcdctl {
namespace {

using etcdserverpb::Compare;

// Feeds what `printf '<text>'` would write, split at newlines; returns the parser after the input.
TxnParser feed_all(std::string_view text, Status* error = nullptr) {
  TxnParser p;
  size_t start = 0;
  while (start < text.size() && !p.done()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) break;  // a last line without newline: ReadString fails (EOF)
    auto r = p.feed(text.substr(start, nl - start));
    if (!r.is_ok()) {
      if (error != nullptr) *error = r.status();
      return p;
    }
    start = nl + 1;
  }
  if (!p.done() && error != nullptr) *error = p.end_of_input();
  return p;
}

TEST(TxnParser, ReferenceCreateThenPut) {
  TxnParser p = feed_all("create(\"newkey\") = \"0\"\n\nput newkey v1\n\n\n");
  ASSERT_TRUE(p.done());
  const auto& t = p.request();
  ASSERT_EQ(t.compare_size(), 1);
  EXPECT_EQ(t.compare(0).target(), Compare::CREATE);
  EXPECT_EQ(t.compare(0).result(), Compare::EQUAL);
  EXPECT_EQ(t.compare(0).key(), "newkey");
  EXPECT_EQ(t.compare(0).target_union_case(), Compare::kCreateRevision);  // set, even though 0
  EXPECT_EQ(t.compare(0).create_revision(), 0);
  ASSERT_EQ(t.success_size(), 1);
  EXPECT_EQ(t.success(0).request_put().key(), "newkey");
  EXPECT_EQ(t.success(0).request_put().value(), "v1");
  EXPECT_EQ(t.failure_size(), 0);
}

TEST(TxnParser, ReferenceModLessThanWithPrefixGet) {
  TxnParser p = feed_all("mod(\"foo\") < \"100\"\n\nget foo --prefix\n\n\n");
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.request().compare(0).target(), Compare::MOD);
  EXPECT_EQ(p.request().compare(0).result(), Compare::LESS);
  EXPECT_EQ(p.request().compare(0).mod_revision(), 100);
  EXPECT_EQ(p.request().success(0).request_range().key(), "foo");
  EXPECT_EQ(p.request().success(0).request_range().range_end(), "fop");
}

TEST(TxnParser, ReferenceTwoComparesThreeOpsOneFailureOp) {
  TxnParser p = feed_all(
      "mod(\"foo\") = \"6\"\nvalue(\"foo\") = \"bar3\"\n\nput foo bar4\nget foo\ndel nonexist\n\nget foo\n\n");
  ASSERT_TRUE(p.done());
  const auto& t = p.request();
  ASSERT_EQ(t.compare_size(), 2);
  EXPECT_EQ(t.compare(0).mod_revision(), 6);
  EXPECT_EQ(t.compare(1).target(), Compare::VALUE);
  EXPECT_EQ(t.compare(1).value(), "bar3");
  ASSERT_EQ(t.success_size(), 3);
  EXPECT_EQ(t.success(0).request_put().value(), "bar4");
  EXPECT_EQ(t.success(1).request_range().key(), "foo");
  EXPECT_EQ(t.success(2).request_delete_range().key(), "nonexist");
  ASSERT_EQ(t.failure_size(), 1);
  EXPECT_EQ(t.failure(0).request_range().key(), "foo");
}

TEST(TxnParser, ReferenceVersionCompareWithFailureOps) {
  TxnParser p = feed_all("version(\"foo\") = \"99\"\n\nput foo never\n\nget foo\nput foo/x y\n\n");
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.request().compare(0).target(), Compare::VERSION);
  EXPECT_EQ(p.request().compare(0).version(), 99);
  ASSERT_EQ(p.request().failure_size(), 2);
  EXPECT_EQ(p.request().failure(1).request_put().key(), "foo/x");
}

TEST(TxnParser, ReferenceEmptySections) {
  TxnParser p = feed_all("mod(\"foo\") = \"6\"\n\n\n\n");
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.request().compare_size(), 1);
  EXPECT_EQ(p.request().success_size(), 0);
  EXPECT_EQ(p.request().failure_size(), 0);
}

TEST(TxnParser, MissingFinalBlankLineIsEof) {
  Status error;
  TxnParser p = feed_all("mod(\"foo\") = \"6\"\n\nput foo x\n\nget foo\n", &error);
  EXPECT_FALSE(p.done());
  EXPECT_EQ(error.message(), "EOF");
}

TEST(TxnParser, OpsKeepTheirFlagsAndQuoting) {
  TxnParser p = feed_all("\nput k \"a b\\n\" --prev-kv --lease=1f\ndel p --prefix --prev-kv\n\nget k --rev=3 --limit=2\n\n");
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.request().compare_size(), 0);
  const auto& put = p.request().success(0).request_put();
  EXPECT_EQ(put.value(), "a b\n");
  EXPECT_TRUE(put.prev_kv());
  EXPECT_EQ(put.lease(), 0x1f);
  EXPECT_EQ(p.request().success(1).request_delete_range().range_end(), "q");
  EXPECT_EQ(p.request().failure(0).request_range().revision(), 3);
  EXPECT_EQ(p.request().failure(0).request_range().limit(), 2);
}

TEST(TxnParser, OpErrorsAsEtcdctlWordsThem) {
  Status error;
  feed_all("\nput onlykey\n\n\n", &error);
  EXPECT_EQ(error.message(), "put command needs 1 argument and input from stdin or 2 arguments");
  feed_all("\nget\n\n\n", &error);
  EXPECT_EQ(error.message(), "invalid txn compare request: get");
  feed_all("\nwatch foo\n\n\n", &error);
  EXPECT_EQ(error.message(), "invalid txn request: watch foo");
  feed_all("\nget foo -w json\n\n\n", &error);
  EXPECT_EQ(error.message(), "invalid txn request: get foo -w json");
}

TEST(TxnParser, InteractivePromptsOncePerSection) {
  TxnParser p(/*interactive=*/true);
  EXPECT_EQ(p.take_prompt(), "compares:\n");
  EXPECT_EQ(p.take_prompt(), "");
  ASSERT_TRUE(p.feed("ver(\"a\") > \"1\"").is_ok());
  ASSERT_TRUE(p.feed("").is_ok());
  EXPECT_EQ(p.take_prompt(), "success requests (get, put, del):\n");
  ASSERT_TRUE(p.feed("").is_ok());
  EXPECT_EQ(p.take_prompt(), "failure requests (get, put, del):\n");
  auto done = p.feed("");
  ASSERT_TRUE(done.is_ok());
  EXPECT_TRUE(*done);
  EXPECT_EQ(p.take_prompt(), "");
  EXPECT_EQ(TxnParser().take_prompt(), "");
}

TEST(ParseCompare, TargetsOperatorsAndAliases) {
  struct Case {
    const char* line;
    Compare::CompareTarget target;
    Compare::CompareResult result;
  };
  for (const Case& c : {Case{"ver(\"k\") > \"1\"", Compare::VERSION, Compare::GREATER},
                        Case{"c(\"k\") != \"2\"", Compare::CREATE, Compare::NOT_EQUAL},
                        Case{"m(\"k\") < \"3\"", Compare::MOD, Compare::LESS},
                        Case{"val(\"k\") = \"v\"", Compare::VALUE, Compare::EQUAL},
                        Case{"lease(\"k\") = \"694d5765fc71500b\"", Compare::LEASE, Compare::EQUAL}}) {
    auto r = parse_compare(c.line);
    ASSERT_TRUE(r.is_ok()) << c.line << ": " << r.status().message();
    EXPECT_EQ(r->target(), c.target) << c.line;
    EXPECT_EQ(r->result(), c.result) << c.line;
    EXPECT_EQ(r->key(), "k");
  }
  EXPECT_EQ(parse_compare("lease(\"k\") = \"694d5765fc71500b\"")->lease(), 0x694d5765fc71500b);
  EXPECT_EQ(parse_compare("  value(\"k\")   =   \"a \\\"b\\\"\"  ")->value(), "a \"b\"");
  EXPECT_EQ(parse_compare("value(`k`) = `raw\\n`")->value(), "raw\\n");
}

TEST(ParseCompare, Errors) {
  EXPECT_EQ(parse_compare("mod foo = 1").status().message(), "malformed comparison: mod foo = 1");
  EXPECT_EQ(parse_compare("mod(\"foo\") = 6").status().message(),
            "malformed comparison: mod(\"foo\") = 6; got mod(\"foo\") = \"\"");
  EXPECT_EQ(parse_compare("mod(\"foo\") <\"6\"").status().message(),
            "malformed comparison: mod(\"foo\") <\"6\"; got mod(\"foo\") <\"6\" \"\"");
  EXPECT_EQ(parse_compare("size(\"foo\") = \"6\"").status().message(),
            "malformed comparison: size(\"foo\") = \"6\" (unknown target size)");
  EXPECT_EQ(parse_compare("mod(\"foo\") = \"six\"").status().message(),
            "invalid txn compare request: mod(\"foo\") = \"six\"");
  EXPECT_EQ(parse_compare("mod(\"foo\") >= \"6\"").status().message(),
            "malformed comparison: mod(\"foo\") >= \"6\" (unknown operator \">=\" (expected =, !=, > or <))");
}

}  // namespace
}  // namespace dst::etcdctl

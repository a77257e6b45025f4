// Parsing etcdctl command lines: every command and flag, the range conventions, and the error texts
// etcdctl 3.4 prints for bad lines.
#include <gtest/gtest.h>

#include "client/etcdctl/etcdctl_parse.h"
#include "client/etcdctl/etcdctl_tokenize.h"

namespace dst::etcdctl {
namespace {

using etcdserverpb::RangeRequest;

const std::string kNul(1, '\0');

Invocation parse_ok(std::string_view line) {
  auto r = parse_line(line);
  EXPECT_TRUE(r.is_ok()) << line << ": " << r.status().to_string();
  if (!r.is_ok() || !r->has_value()) return Invocation{SleepCommand{}, {}};
  return std::move(**r);
}

std::string parse_error(std::string_view line) {
  auto r = parse_line(line);
  EXPECT_FALSE(r.is_ok()) << line;
  return r.is_ok() ? "" : r.status().message();
}

template <typename T>
T as(std::string_view line) {
  Invocation inv = parse_ok(line);
  EXPECT_TRUE(std::holds_alternative<T>(inv.command)) << line;
  return std::holds_alternative<T>(inv.command) ? std::get<T>(inv.command) : T{};
}

TEST(Tokenize, ShellQuotingAndEscapes) {
  auto t = tokenize_shell(R"(put 'a b' "c \"d\" \n" e\ f "" g"h"'i')");
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(*t, (std::vector<std::string>{"put", "a b", "c \"d\" \\n", "e f", "", "ghi"}));
  EXPECT_FALSE(tokenize_shell("put 'a").is_ok());
  EXPECT_FALSE(tokenize_shell("put \"a").is_ok());
  EXPECT_FALSE(tokenize_shell("put a\\").is_ok());
}

TEST(Tokenize, BlankAndCommentLinesAreSkipped) {
  EXPECT_TRUE(is_blank_or_comment(""));
  EXPECT_TRUE(is_blank_or_comment("   \t"));
  EXPECT_TRUE(is_blank_or_comment("  # put a b"));
  EXPECT_FALSE(is_blank_or_comment("put a #b"));
  auto r = parse_line("# comment");
  ASSERT_TRUE(r.is_ok());
  EXPECT_FALSE(r->has_value());
  // A '#' inside a line is an ordinary character, as in etcdctl's argv.
  EXPECT_EQ(as<PutCommand>("put a #b").request.value(), "#b");
}

TEST(Tokenize, TxnOpsUseGoStringLiterals) {
  auto t = tokenize_txn_op(R"(put k "v\n\x41\u00e9" 'raw \n')");
  ASSERT_TRUE(t.is_ok());
  EXPECT_EQ(*t, (std::vector<std::string>{"put", "k", "v\nA\xc3\xa9", "raw \\n"}));
}

TEST(PrefixRangeEnd, IncrementsLastByteBelow0xff) {
  EXPECT_EQ(prefix_range_end("foo/"), "foo0");
  EXPECT_EQ(prefix_range_end("g/"), "g0");
  EXPECT_EQ(prefix_range_end("a\xff"), "b");
  EXPECT_EQ(prefix_range_end("a\xff\xff"), "b");
  EXPECT_EQ(prefix_range_end("\xff\xff"), kNul);
  EXPECT_EQ(prefix_range_end(""), kNul);
}

TEST(ParseGlobal, WriteOutFlagAnywhere) {
  EXPECT_EQ(parse_ok("get foo").print.format, OutputFormat::kSimple);
  EXPECT_EQ(parse_ok("get foo -w json").print.format, OutputFormat::kJson);
  EXPECT_EQ(parse_ok("-w json get foo").print.format, OutputFormat::kJson);
  EXPECT_EQ(parse_ok("get --write-out=json foo").print.format, OutputFormat::kJson);
  EXPECT_EQ(parse_ok("get -wjson foo").print.format, OutputFormat::kJson);
  EXPECT_EQ(parse_ok("get -w=fields foo").print.format, OutputFormat::kFields);
  EXPECT_EQ(parse_error("get foo -w yaml"), "unsupported output format");
  EXPECT_EQ(parse_ok("endpoint status -w table").print.format, OutputFormat::kTable);
  EXPECT_EQ(parse_ok("get foo -w protobuf").print.format, OutputFormat::kProtobuf);
  EXPECT_EQ(parse_error("member update -w yaml"), "member ID is not provided");  // the command's checks first
  EXPECT_TRUE(std::holds_alternative<VersionCommand>(parse_ok("version -w yaml").command));
  EXPECT_EQ(parse_ok("lease list -w fields").print.format, OutputFormat::kFields);
  EXPECT_TRUE(prints_fields(parse_ok("endpoint status -w fields").command));
  EXPECT_FALSE(prints_fields(parse_ok("member remove 1 -w fields").command));  // runs, then cannot print
  EXPECT_EQ(parse_error("get foo -w"), "flag needs an argument: 'w' in -w");
  EXPECT_EQ(parse_error("get foo --write-out"), "flag needs an argument: --write-out");
}

// --endpoints, --command-timeout and --dial-timeout, before or after the command words, as
// --flag=value or --flag value; a repeated --endpoints adds to the list (pflag's stringSlice).
TEST(ParseGlobal, ClientFlags) {
  Invocation inv = parse_ok("--endpoints=http://n2:2379,n3:2379 get foo --endpoints n1:2379");
  ASSERT_TRUE(std::holds_alternative<GetCommand>(inv.command));
  EXPECT_EQ(std::get<GetCommand>(inv.command).request.key(), "foo");
  EXPECT_EQ(inv.client.endpoints, (std::vector<std::string>{"http://n2:2379", "n3:2379", "n1:2379"}));
  EXPECT_FALSE(inv.client.command_timeout_ns.has_value());
  inv = parse_ok("--command-timeout 1m30s --dial-timeout=250ms endpoint health");
  EXPECT_TRUE(std::holds_alternative<EndpointHealthCommand>(inv.command));
  EXPECT_TRUE(inv.client.endpoints.empty());
  EXPECT_EQ(inv.client.command_timeout_ns, 90'000'000'000);
  EXPECT_EQ(inv.client.dial_timeout_ns, 250'000'000);
  EXPECT_EQ(parse_ok("--command-timeout=-1ns get a").client.command_timeout_ns, -1);  // expired, not unset
  EXPECT_EQ(parse_error("--command-timeout=2h get a"), "dst shell takes --command-timeout of at most 1h");
  std::string many = "get a --endpoints=n1:2379";
  for (int i = 0; i < 64; ++i) many += ",n1:2379";
  EXPECT_EQ(parse_error(many), "dst shell takes at most 64 --endpoints, got 65");
  EXPECT_EQ(parse_error("--command-timeout=x get a"),
            "invalid argument \"x\" for \"--command-timeout\" flag: time: invalid duration \"x\"");
  EXPECT_EQ(parse_error("get a --dial-timeout=5"),
            "invalid argument \"5\" for \"--dial-timeout\" flag: time: missing unit in duration \"5\"");
  EXPECT_EQ(parse_error("get a --endpoints"), "flag needs an argument: --endpoints");
}

// member add / remove: etcdctl's own argument checks (recorded from etcdctl 3.4.23).
TEST(ParseMember, AddAndRemoveArguments) {
  Invocation inv = parse_ok("member add m2 --peer-urls=http://n4:2380,http://n4:2381 --learner");
  ASSERT_TRUE(std::holds_alternative<MemberAddCommand>(inv.command));
  const auto& add = std::get<MemberAddCommand>(inv.command);
  EXPECT_EQ(add.name, "m2");
  EXPECT_EQ(add.peer_urls, "http://n4:2380,http://n4:2381");
  EXPECT_EQ(add.request.peerurls_size(), 2);
  EXPECT_TRUE(add.request.islearner());
  EXPECT_EQ(parse_error("member add"), "member name not provided");
  EXPECT_EQ(parse_error("member add m4"), "member peer urls not provided");
  EXPECT_EQ(parse_error("member add m4 HTTP://x y"), "too many arguments, did you mean --peer-urls=HTTP://x");
  inv = parse_ok("member remove f2cf8613e92e2510");
  EXPECT_EQ(std::get<MemberRemoveCommand>(inv.command).request.id(), 0xf2cf8613e92e2510ull);
  EXPECT_EQ(parse_error("member remove"), "member ID is not provided");
  EXPECT_EQ(parse_error("member remove zz"),
            "bad member ID arg (strconv.ParseUint: parsing \"zz\": invalid syntax), expecting ID in Hex");
  EXPECT_EQ(parse_error("member remove 1ffffffffffffffff"),
            "bad member ID arg (strconv.ParseUint: parsing \"1ffffffffffffffff\": value out of range), expecting ID in Hex");
}

// member update: the ID's checks come before the URLs' (member_command.go); URLs split at commas,
// empty pieces kept (strings.Split).
TEST(ParseMember, UpdateArguments) {
  Invocation inv = parse_ok("member update a1 --peer-urls=http://10.0.0.1:2380,,http://n1:2390");
  ASSERT_TRUE(std::holds_alternative<MemberUpdateCommand>(inv.command));
  const auto& u = std::get<MemberUpdateCommand>(inv.command).request;
  EXPECT_EQ(u.id(), 0xa1u);
  EXPECT_EQ(std::vector<std::string>(u.peerurls().begin(), u.peerurls().end()),
            (std::vector<std::string>{"http://10.0.0.1:2380", "", "http://n1:2390"}));
  EXPECT_EQ(parse_error("member update"), "member ID is not provided");
  EXPECT_EQ(parse_error("member update xyz"),
            "bad member ID arg (strconv.ParseUint: parsing \"xyz\": invalid syntax), expecting ID in Hex");
  EXPECT_EQ(parse_error("member update 12"), "member peer urls not provided");
  EXPECT_EQ(parse_error("member update 12 --peer-urls="), "member peer urls not provided");
  EXPECT_EQ(parse_error("member update 1 2 --peer-urls=x"), "member ID is not provided");
}

// --hex: a root flag (anywhere on the line, =true/=false/=1 as pflag's bool).
TEST(ParseGlobal, HexFlag) {
  EXPECT_FALSE(parse_ok("get k").print.hex);
  EXPECT_TRUE(parse_ok("get k --hex").print.hex);
  EXPECT_TRUE(parse_ok("--hex get k").print.hex);
  EXPECT_TRUE(parse_ok("get k --hex=1").print.hex);
  EXPECT_FALSE(parse_ok("get k --hex=false").print.hex);
  EXPECT_TRUE(parse_ok("txn --hex").print.hex);
  EXPECT_EQ(parse_error("get k --hex=maybe"),
            "invalid argument \"maybe\" for \"--hex\" flag: strconv.ParseBool: parsing \"maybe\": invalid syntax");
}

TEST(ParseGlobal, UnknownCommandsAndFlags) {
  EXPECT_EQ(parse_error("frobnicate"), "unknown command \"frobnicate\" for \"etcdctl\"");
  EXPECT_EQ(parse_error("get foo --foo"), "unknown flag: --foo");
  EXPECT_EQ(parse_error("get foo -x"), "unknown shorthand flag: 'x' in -x");
  // etcdctl 3.4 has no get --count-only (the reference page shows this error); dst accepts it, but
  // the same text comes back for flags that really are unknown.
  EXPECT_EQ(parse_error("get fill/ --prefix --count-oly"), "unknown flag: --count-oly");
  EXPECT_EQ(parse_error("get foo --rev=abc"),
            "invalid argument \"abc\" for \"--rev\" flag: strconv.ParseInt: parsing \"abc\": invalid syntax");
  EXPECT_EQ(parse_error("get foo --prefix=maybe"),
            "invalid argument \"maybe\" for \"--prefix\" flag: strconv.ParseBool: parsing \"maybe\": invalid syntax");
  EXPECT_EQ(parse_error("lease"), "lease needs a subcommand: grant, revoke, timetolive, keep-alive, list");
  EXPECT_EQ(parse_error("alarm foo"),
            "unknown command \"foo\" for \"etcdctl alarm\" (expected one of: list, disarm)");
}

TEST(ParseGet, KeyAndFlags) {
  auto g = as<GetCommand>("get foo");
  EXPECT_EQ(g.request.key(), "foo");
  EXPECT_EQ(g.request.range_end(), "");
  EXPECT_FALSE(g.request.serializable());
  g = as<GetCommand>("get foo fop --rev=2 --limit 1 --keys-only --consistency=s");
  EXPECT_EQ(g.request.range_end(), "fop");
  EXPECT_EQ(g.request.revision(), 2);
  EXPECT_EQ(g.request.limit(), 1);
  EXPECT_TRUE(g.request.keys_only());
  EXPECT_TRUE(g.request.serializable());
  g = as<GetCommand>("get foo/ --prefix");
  EXPECT_EQ(g.request.key(), "foo/");
  EXPECT_EQ(g.request.range_end(), "foo0");
  g = as<GetCommand>("get b --from-key");
  EXPECT_EQ(g.request.range_end(), kNul);
  // An empty key with --prefix or --from-key means every key.
  for (const char* line : {"get '' --prefix", "get \"\" --from-key"}) {
    g = as<GetCommand>(line);
    EXPECT_EQ(g.request.key(), kNul) << line;
    EXPECT_EQ(g.request.range_end(), kNul) << line;
  }
  g = as<GetCommand>("get foo --rev=0");
  EXPECT_EQ(g.request.revision(), 0);
}

TEST(ParseGet, SortAndCountAndPrintOptions) {
  auto g = as<GetCommand>("get a --prefix --sort-by=MODIFY --order=descend");
  EXPECT_EQ(g.request.sort_target(), RangeRequest::MOD);
  EXPECT_EQ(g.request.sort_order(), RangeRequest::DESCEND);
  // clientv3.WithSort sends ascending-by-key as NONE: it is the server's order anyway.
  g = as<GetCommand>("get a --sort-by=key --order=ASCEND");
  EXPECT_EQ(g.request.sort_order(), RangeRequest::NONE);
  g = as<GetCommand>("get a --sort-by=VERSION");
  EXPECT_EQ(g.request.sort_target(), RangeRequest::VERSION);
  EXPECT_EQ(g.request.sort_order(), RangeRequest::NONE);
  EXPECT_EQ(as<GetCommand>("get a --sort-by=CREATE").request.sort_target(), RangeRequest::CREATE);
  EXPECT_EQ(as<GetCommand>("get a --sort-by=VALUE").request.sort_target(), RangeRequest::VALUE);
  Invocation inv = parse_ok("get a --count-only");
  EXPECT_TRUE(std::get<GetCommand>(inv.command).request.count_only());
  EXPECT_TRUE(inv.print.count_only);
  inv = parse_ok("get a --print-value-only");
  EXPECT_TRUE(inv.print.print_value_only);
}

TEST(ParseGet, Errors) {
  EXPECT_EQ(parse_error("get"), "get command needs one argument as key and an optional argument as range_end");
  EXPECT_EQ(parse_error("get a --prefix --from-key"),
            "`--prefix` and `--from-key` cannot be set at the same time, choose one");
  EXPECT_EQ(parse_error("get a b --prefix"),
            "too many arguments, only accept one argument when `--prefix` or `--from-key` is set");
  EXPECT_EQ(parse_error("get a --keys-only --count-only"),
            "`--keys-only` and `--count-only` cannot be set at the same time, choose one");
  EXPECT_EQ(parse_error("get a --consistency=x"), "unknown consistency flag \"x\"");
  EXPECT_EQ(parse_error("get a --order=up"), "bad sort order up");
  EXPECT_EQ(parse_error("get a --sort-by=size"), "bad sort target size");
  EXPECT_EQ(parse_error("get a --print-value-only -w json"), "print-value-only is only for `--write-out=simple`");
}

TEST(ParsePut, ValueLeaseAndFlags) {
  auto p = as<PutCommand>("put foo bar");
  EXPECT_EQ(p.request.key(), "foo");
  EXPECT_EQ(p.request.value(), "bar");
  EXPECT_EQ(p.request.lease(), 0);
  p = as<PutCommand>("put foo bar2 -w json --prev-kv --lease=694d5765fc71500b");
  EXPECT_TRUE(p.request.prev_kv());
  EXPECT_EQ(p.request.lease(), 0x694d5765fc71500b);
  p = as<PutCommand>("put foo --ignore-value --ignore-lease");
  EXPECT_TRUE(p.request.ignore_value());
  EXPECT_TRUE(p.request.ignore_lease());
  EXPECT_EQ(p.request.value(), "");
  // "--" lets a value start with '-'.
  EXPECT_EQ(as<PutCommand>("put foo -- -x").request.value(), "-x");
  EXPECT_EQ(as<PutCommand>("put k \"two words\"").request.value(), "two words");
}

TEST(ParsePut, Errors) {
  EXPECT_EQ(parse_error("put"), "put command needs 1 argument and input from stdin or 2 arguments");
  EXPECT_EQ(parse_error("put foo"), "put command needs 1 argument and input from stdin or 2 arguments");
  EXPECT_EQ(parse_error("put foo bar --ignore-value"),
            "put command needs only 1 argument when 'ignore-value' is set");
  EXPECT_EQ(parse_error("put foo bar --lease=xyz"),
            "bad lease ID (strconv.ParseInt: parsing \"xyz\": invalid syntax), expecting ID in Hex");
}

TEST(ParseDel, RangeFlags) {
  auto d = as<DelCommand>("del foo/a");
  EXPECT_EQ(d.request.key(), "foo/a");
  EXPECT_EQ(d.request.range_end(), "");
  d = as<DelCommand>("del foo/ --prefix --prev-kv -w json");
  EXPECT_EQ(d.request.range_end(), "foo0");
  EXPECT_TRUE(d.request.prev_kv());
  d = as<DelCommand>("del a c");
  EXPECT_EQ(d.request.range_end(), "c");
  d = as<DelCommand>("del a --from-key");
  EXPECT_EQ(d.request.range_end(), kNul);
  d = as<DelCommand>("del '' --prefix");
  EXPECT_EQ(d.request.key(), kNul);
  EXPECT_EQ(d.request.range_end(), kNul);
  EXPECT_EQ(parse_error("del"), "del command needs one argument as key and an optional argument as range_end");
  EXPECT_EQ(parse_error("del a b c"), "del command needs one argument as key and an optional argument as range_end");
  EXPECT_EQ(parse_error("del a b --from-key"),
            "too many arguments, only accept one argument when `--prefix` or `--from-key` is set");
}

TEST(ParseTxn, CommandLine) {
  EXPECT_FALSE(as<TxnCommand>("txn").interactive);
  EXPECT_TRUE(as<TxnCommand>("txn -i").interactive);
  EXPECT_EQ(parse_ok("txn -w json").print.format, OutputFormat::kJson);
  EXPECT_EQ(parse_error("txn foo"), "txn command does not accept argument");
}

TEST(ParseCompaction, RevisionAndPhysical) {
  auto c = as<CompactionCommand>("compaction 6 -w json");
  EXPECT_EQ(c.request.revision(), 6);
  EXPECT_FALSE(c.request.physical());
  EXPECT_TRUE(as<CompactionCommand>("compaction 8 --physical").request.physical());
  EXPECT_EQ(parse_error("compaction"), "compaction command needs 1 argument");
  EXPECT_EQ(parse_error("compaction x"), "strconv.ParseInt: parsing \"x\": invalid syntax");
}

TEST(ParseWatch, FlagsAndRanges) {
  auto w = as<WatchCommand>("watch --rev=1 --prefix foo -w json");
  EXPECT_EQ(w.request.key(), "foo");
  EXPECT_EQ(w.request.range_end(), "fop");
  EXPECT_EQ(w.request.start_revision(), 1);
  EXPECT_FALSE(w.request.prev_kv());
  w = as<WatchCommand>("watch --rev=6 foo --prev-kv");
  EXPECT_EQ(w.request.range_end(), "");
  EXPECT_TRUE(w.request.prev_kv());
  w = as<WatchCommand>("watch a c --progress-notify");  // dst extension (etcdctl 3.5's flag)
  EXPECT_EQ(w.request.range_end(), "c");
  EXPECT_TRUE(w.request.progress_notify());
  w = as<WatchCommand>("watch --prefix ''");
  EXPECT_EQ(w.request.key(), kNul);
  EXPECT_EQ(w.request.range_end(), kNul);
  EXPECT_EQ(parse_error("watch"), "bad number of arguments");
  EXPECT_EQ(parse_error("watch a b --prefix"), "`range_end` and `--prefix` are mutually exclusive");
  EXPECT_EQ(parse_error("watch -i"), "dst shell does not support watch -i (interactive watch)");
}

TEST(ParseLease, AllSubcommands) {
  EXPECT_EQ(as<LeaseGrantCommand>("lease grant 60").request.ttl(), 60);
  EXPECT_EQ(as<LeaseRevokeCommand>("lease revoke 694d5765fc71500b").request.id(), 0x694d5765fc71500b);
  auto t = as<LeaseTimeToLiveCommand>("lease timetolive 694d5765fc71500b --keys");
  EXPECT_EQ(t.request.id(), 0x694d5765fc71500b);
  EXPECT_TRUE(t.request.keys());
  EXPECT_FALSE(as<LeaseTimeToLiveCommand>("lease timetolive 1").request.keys());
  auto k = as<LeaseKeepAliveCommand>("lease keep-alive --once 2a");
  EXPECT_EQ(k.request.id(), 42);
  EXPECT_TRUE(k.once);
  EXPECT_FALSE(as<LeaseKeepAliveCommand>("lease keep-alive 2a").once);
  as<LeaseListCommand>("lease list -w json");
  EXPECT_EQ(parse_error("lease grant"), "lease grant command needs TTL argument");
  EXPECT_EQ(parse_error("lease grant 1m"), "bad TTL (strconv.ParseInt: parsing \"1m\": invalid syntax)");
  EXPECT_EQ(parse_error("lease revoke"), "lease revoke command needs 1 argument");
  EXPECT_EQ(parse_error("lease revoke 0x10"),
            "bad lease ID arg (strconv.ParseInt: parsing \"0x10\": invalid syntax), expecting ID in Hex");
  EXPECT_EQ(parse_error("lease revoke ffffffffffffffff"),
            "bad lease ID arg (strconv.ParseInt: parsing \"ffffffffffffffff\": value out of range), expecting ID "
            "in Hex");
  EXPECT_EQ(parse_error("lease timetolive"), "lease timetolive command needs lease ID as argument");
  EXPECT_EQ(parse_error("lease keep-alive"), "lease keep-alive command needs lease ID as argument");
}

TEST(ParseMaintenance, DefragAlarmEndpointMember) {
  as<DefragCommand>("defrag");
  EXPECT_EQ(as<AlarmCommand>("alarm list").request.action(), etcdserverpb::AlarmRequest::GET);
  auto disarm = as<AlarmCommand>("alarm disarm");
  EXPECT_EQ(disarm.request.action(), etcdserverpb::AlarmRequest::DEACTIVATE);
  EXPECT_EQ(disarm.request.memberid(), 0u);
  EXPECT_EQ(disarm.request.alarm(), etcdserverpb::NONE);
  EXPECT_EQ(parse_error("alarm list x"), "alarm list command accepts no arguments");
  EXPECT_FALSE(as<EndpointStatusCommand>("endpoint status -w json").cluster);
  EXPECT_TRUE(as<EndpointStatusCommand>("endpoint status --cluster").cluster);
  EXPECT_EQ(as<EndpointHashKVCommand>("endpoint hashkv --rev=15").request.revision(), 15);
  as<MemberListCommand>("member list -w json");
}

TEST(ParseSleep, GoDurations) {
  EXPECT_EQ(as<SleepCommand>("sleep 500ms").duration_ns, 500'000'000);
  EXPECT_EQ(as<SleepCommand>("sleep 1s").duration_ns, 1'000'000'000);
  EXPECT_EQ(as<SleepCommand>("sleep 1m30s").duration_ns, 90'000'000'000);
  EXPECT_EQ(as<SleepCommand>("sleep 2h").duration_ns, 7'200'000'000'000);
  EXPECT_EQ(as<SleepCommand>("sleep 1.5s").duration_ns, 1'500'000'000);
  EXPECT_EQ(as<SleepCommand>("sleep 0").duration_ns, 0);
  EXPECT_EQ(parse_error("sleep"), "sleep needs 1 argument: a duration like 500ms, 1s, 1m30s or 2h");
  EXPECT_EQ(parse_error("sleep 5"), "time: missing unit in duration \"5\"");
  EXPECT_EQ(parse_error("sleep 1d"), "time: unknown unit \"d\" in duration \"1d\"");
  EXPECT_EQ(parse_error("sleep x"), "time: invalid duration \"x\"");
  // As in pflag, "-1s" reads as a shorthand flag; after "--" it is a (negative) duration.
  EXPECT_EQ(parse_error("sleep -1s"), "unknown shorthand flag: '1' in -1s");
  EXPECT_EQ(parse_error("sleep -- -1s"), "sleep needs a non-negative duration, got -1s");
}

}  // namespace
}  // namespace dst::etcdctl

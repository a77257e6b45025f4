#!/bin/sh
# CLI tests of `dst sweep` / `dst merge` (declared in tools/CMakeLists.txt).
#   sweep_cli_test.sh expect-exit CODE CMD...       CMD must exit with exactly CODE
#   sweep_cli_test.sh compare-merge SWEEP_CLI DIR   DIR/{all,shard0,shard1} from the cli.sweep_etcd*
#                                                   tests: merged shards == unsharded sweep
#   sweep_cli_test.sh exit-codes SWEEP_CLI DST      a violation, a scenario error, a shard env error
set -u
mkdir -p sweep_cli
out="sweep_cli/$1.out"  # one per mode: ctest may run the modes in parallel
fail() { echo "FAIL: $*" >&2; exit 1; }

# Runs CMD, prints its output, checks its exit code.
expect_exit() {
  want=$1; shift
  "$@" >"$out" 2>&1
  got=$?
  cat "$out"
  [ "$got" = "$want" ] || fail "exit $got, expected $want: $*"
}

# The temporary log directory a sweep without --out kept (it keeps it when a seed failed).
kept_dir() {
  d=$(sed -n 's/^logs  *\(.*\)\/seed-S.log$/\1/p' "$out")
  case "$d" in
    */dst-sweep-??????) echo "$d" ;;
    *) fail "no kept log directory in the output" ;;
  esac
}

# Every column of the results file but wall_ms (column 5), which is wall time, not the result.
without_wall() { cut -f1-4,6 "$1"; }

case "$1" in
  expect-exit)
    shift
    expect_exit "$@"
    ;;
  compare-merge)
    cli=$2 dir=$3
    expect_exit 0 "$cli" merge "$dir/shard0/sweep.tsv" "$dir/shard1/sweep.tsv" --out "$dir/merged.tsv" \
      --coverage-out "$dir/merged-coverage.tsv"
    without_wall "$dir/all/sweep.tsv" >"$dir/all.nowall"
    without_wall "$dir/merged.tsv" >"$dir/merged.nowall"
    diff "$dir/all.nowall" "$dir/merged.nowall" || fail "merged results differ from the unsharded sweep's"
    grep -v -e '^wall time' -e '^results ' -e '^coverage  *sweep_cli' "$out" >"$dir/merged.summary"
    diff "$dir/all/summary.txt" "$dir/merged.summary" || fail "merged summary differs from the unsharded sweep's"
    # What the seeds reached: the shards' coverage merges to the unsharded sweep's, name by name.
    diff "$dir/all/coverage.tsv" "$dir/merged-coverage.tsv" || fail "merged coverage differs from the unsharded sweep's"
    grep -q '^raft.leader-elected	4	1	' "$dir/all/coverage.tsv" || fail "every seed elects a leader; seed 1 first"
    [ "$(grep -c '^[0-9]' "$dir/all/sweep.tsv")" = 4 ] || fail "expected 4 rows"
    # The shards are disjoint and each owns seed mod 2.
    [ "$(grep '^[0-9]' "$dir/shard0/sweep.tsv" | cut -f1 | tr '\n' ' ')" = "2 4 " ] || fail "shard 0 should hold seeds 2 4"
    [ "$(grep '^[0-9]' "$dir/shard1/sweep.tsv" | cut -f1 | tr '\n' ' ')" = "1 3 " ] || fail "shard 1 should hold seeds 1 3"
    # A missing shard, the same shard twice, and another sweep's file are refused (exit 2).
    expect_exit 2 "$cli" merge "$dir/shard0/sweep.tsv"
    grep -q 'INCOMPLETE.*2 seed(s) of 1..4 are in no file' "$out" || fail "missing shard not reported"
    expect_exit 2 "$cli" merge "$dir/shard0/sweep.tsv" "$dir/shard0/sweep.tsv"
    grep -q 'seed 2 is also in' "$out" || fail "overlap not reported"
    sed 's/^# extra.*/# extra\t--duration\t3s/' "$dir/shard1/sweep.tsv" >"$dir/other.tsv"
    expect_exit 2 "$cli" merge "$dir/shard0/sweep.tsv" "$dir/other.tsv"
    grep -q 'other.tsv: run arguments --duration 3s differ' "$out" || fail "mismatched args not named"
    ;;
  exit-codes)
    cli=$2 dst=$3
    # Raft seed 2 with the deliberate read bug violates Read Safety (see cli.run_raft_reports_bug).
    # (No --out: `dst run raft` writes no run directory; the failing seed's log is kept in a temp dir.)
    expect_exit 1 "$cli" sweep raft --seeds 2..2 --dst "$dst" -- --bug read-index-without-quorum
    grep -q 'seed 2  violation (exit 1)  raft-invariants: Read Safety' "$out" || fail "no violation line"
    grep -q 'reproduce: dst run raft --seed 2 --bug read-index-without-quorum' "$out" || fail "no reproduce"
    dir=$(kept_dir) || exit 1
    grep -q '^trace hash 0x' "$dir/seed-2.log" || fail "the failing seed's log was not kept"
    grep -q '^2	1	violation	0x' "$dir/sweep.tsv" || fail "no results row"
    rm -rf "$dir"
    # A run argument the scenario rejects: every seed exits 2, so does the sweep, with the message.
    expect_exit 2 "$cli" sweep etcd --seeds 1..2 --dst "$dst" -- --bogus
    grep -q "error (exit 2)  dst run etcd: unknown option '--bogus'" "$out" || fail "no error line"
    dir=$(kept_dir) || exit 1
    rm -rf "$dir"
    # A shard index from the environment without a count.
    expect_exit 2 env JOB_COMPLETION_INDEX=0 "$cli" sweep etcd --seeds 1..2 --dst "$dst"
    grep -q 'JOB_COMPLETION_INDEX=0 is set but the shard count is not' "$out" || fail "no shard error"
    expect_exit 2 "$cli" sweep etcd --seeds 1..2 --shard 2/2 --dst "$dst"
    ;;
  coverage-checks)
    # must_reach{} of a probe no run of this scenario reaches: every seed passes, the sweep fails.
    cli=$2 dst=$3 scenario=$4
    rm -rf sweep_cli/cov  # a run interrupted earlier must not leave run databases we refuse to overwrite
    mkdir -p sweep_cli/cov
    { cat "$scenario"; echo 'must_reach{"raft.leader-transfer", "raft.leader-elected"}'; } >sweep_cli/cov/unreachable.lua
    expect_exit 1 "$cli" sweep sweep_cli/cov/unreachable.lua --seeds 1..2 --dst "$dst" --out sweep_cli/cov/sweep
    grep -q '^must_reach  *MISSED 1 of 2' "$out" || fail "the missed must_reach not reported"
    grep -q 'not reached: raft.leader-transfer (a leader transferred' "$out" || fail "the missed name not named"
    grep -q '^# must_reach	raft.leader-transfer' sweep_cli/cov/sweep/coverage.tsv || fail "must_reach not in coverage.tsv"
    grep -q '^  pass  *2' "$out" || fail "the seeds themselves pass"
    # --fail-fast: the first failing seed stops the sweep (one job: no seed after it starts).
    expect_exit 1 "$cli" sweep raft --seeds 1..6 --jobs 1 --fail-fast --dst "$dst" --out sweep_cli/cov/ff --no-run-out -- \
      --bug read-index-without-quorum
    grep -q '^fail-fast  *stopped after 2 of 6 seeds' "$out" || fail "fail-fast did not stop at seed 2"
    [ "$(grep -c '^[0-9]' sweep_cli/cov/ff/sweep.tsv)" = 2 ] || fail "expected rows for seeds 1 and 2 only"
    grep -q '^# seeds	1..2' sweep_cli/cov/ff/sweep.tsv || fail "the results file must claim only the seeds run"
    ;;
  *) fail "unknown mode $1" ;;
esac
echo ok

#!/usr/bin/env bash
# The same command lines through a real etcd 3.4 and through `dst shell` (one member), each
# answer normalized (ids, endpoint URLs, lease ids, raft indexes, sizes and endpoint health's round
# trip times) and compared (issue 22). Prints the differences; exit 0 when there are none, 1 otherwise.
#
#   ci/compare-etcd.sh FILE [--dst build/dst] [--keep DIR] [--live | --record]
#
# etcd's side is FILE's recording, FILE with .txt replaced by .etcd.txt (kept in the project, so
# the comparison runs where no etcd is installed: a ctest does); --live asks a real etcd instead
# (ci/record-etcd.sh), --record asks it and writes the recording.
# dst's transcript is exact per command: the shell is deterministic, so what the first k lines
# print, minus what the first k-1 print, is what line k printed (its exit code: --last-exit).
# A recorded transcript can be kept with --keep DIR (DIR/etcd.txt, DIR/dst.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,15p' "$0"; exit 2; }
FILE="$1"; shift
DST=build/dst
KEEP=""
MODE=recorded
while [ $# -gt 0 ]; do
  case "$1" in
    --dst) DST="$2"; shift 2 ;;
    --keep) KEEP="$2"; shift 2 ;;
    --live) MODE=live; shift ;;
    --record) MODE=record; shift ;;
    *) echo "ci/compare-etcd.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$DST" ] || { echo "ci/compare-etcd.sh: no dst binary at $DST" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RECORDING="${FILE%.txt}.etcd.txt"
case "$MODE" in
  recorded)
    [ -r "$RECORDING" ] || { echo "ci/compare-etcd.sh: no recording $RECORDING (make one with --record)" >&2; exit 2; }
    cp "$RECORDING" "$work/etcd.txt" ;;
  live) ci/record-etcd.sh "$FILE" >"$work/etcd.txt" ;;
  record) ci/record-etcd.sh "$FILE" >"$work/etcd.txt"; cp "$work/etcd.txt" "$RECORDING" ;;
esac

# dst's input: the command lines (and a txn's body), as the shell reads them; FILE's "server:"
# line gives both the same server flags, its "sleep" lines let virtual time pass.
SERVER_FLAGS=$(sed -n 's/^server: //p' "$FILE" | head -1)
: >"$work/input"
: >"$work/prev.out"; : >"$work/prev.err"
stdin=""
{
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    if [[ "$line" == stdin:\ * ]]; then stdin="${line#stdin: }"; continue; fi
    if [[ "$line" == server:\ * ]]; then continue; fi
    if [[ "$line" =~ ^sleep\ [0-9]+(ms|s)$ ]]; then printf '%s\n' "$line" >>"$work/input"; continue; fi
    echo "\$ etcdctl $line"
    # The shell reads etcdctl's words with the shell's quoting, as the real run does.
    printf '%s\n' "$line" >>"$work/input"
    [ -n "$stdin" ] && printf '%b' "$stdin" >>"$work/input"
    stdin=""
    set +e
    # shellcheck disable=SC2086 # the flags are words
    "$DST" shell --nodes 1 --last-exit $SERVER_FLAGS <"$work/input" >"$work/out" 2>"$work/err"
    code=$?
    set -e
    grep -v '^# ' "$work/err" >"$work/err.clean" || true
    tail -c +$(($(wc -c <"$work/prev.out") + 1)) "$work/out"
    tail -c +$(($(wc -c <"$work/prev.err") + 1)) "$work/err.clean" >"$work/err.new"
    if [ -s "$work/err.new" ]; then echo "[stderr]"; cat "$work/err.new"; fi
    if [ "$code" -ne 0 ]; then echo "[exit $code]"; fi
    cp "$work/out" "$work/prev.out"; cp "$work/err.clean" "$work/prev.err"
  done <"$FILE"
} >"$work/dst.txt"

normalize() {
  sed -E -e 's/"(cluster_id|member_id|raft_term|raftTerm|raftIndex|raftAppliedIndex|leader|dbSize|dbSizeInUse|ID|id|lease|memberID)":[0-9]+/"\1":<N>/g' \
         -e 's#https?://[A-Za-z0-9.-]+:[0-9]+#<URL>#g' -e 's/lease [0-9a-f]{16}/lease <LEASE>/g' \
         -e 's/"(ClusterID|MemberID|ID|Leader|DBSize|RaftIndex|RaftAppliedIndex|RaftTerm)" : [0-9]+/"\1" : <N>/' \
         -e 's/^"Name" : "[^"]*"/"Name" : <NAME>/' \
         -e 's/memberID:[0-9]+/memberID:<N>/g' -e 's/"name":"[^"]*"/"name":<NAME>/g' \
         -e 's/(took = |"took":"|"Took" : )([0-9]+h)?([0-9]+m)?[0-9.]+(ns|µs|ms|s)/\1<DURATION>/g' "$1" |
    # A Go panic of etcdctl's: its first line (dst prints no goroutine trace).
    awk '/^panic: /{print; skip=1; next} /^(\[exit |\$ etcdctl )/{skip=0} !skip'
}
if [ -n "$KEEP" ]; then mkdir -p "$KEEP"; cp "$work/etcd.txt" "$work/dst.txt" "$KEEP/"; fi
if diff -u <(normalize "$work/etcd.txt") <(normalize "$work/dst.txt") --label etcd --label dst; then
  echo "ci/compare-etcd.sh: $(grep -c '^\$ etcdctl' "$work/etcd.txt") commands, dst answers as etcd does"
else
  exit 1
fi

#!/usr/bin/env bash
# What a real etcd 3.4 answers (issue 22): starts a fresh single-member etcd on loopback, runs
# every command line of FILE through etcdctl, and prints a transcript, one block per line:
#
#   $ etcdctl <line>
#   <stdout>
#   [stderr]            (only when there is some; clientv3's zap WARN lines are left out)
#   <stderr>
#   [exit N]            (only when N != 0)
#
#   ci/record-etcd.sh FILE [--etcd /usr/bin/etcd] [--etcdctl /usr/bin/etcdctl] [--port 23791]
#
# FILE: one etcdctl command line per line (shell words: quote as in a shell); blank lines and
# lines starting with '#' are skipped; a line "stdin: TEXT" feeds TEXT (with \n for newlines) to
# the next command's standard input (txn); a line "server: FLAGS" (before the first command) gives
# etcd server flags (--max-txn-ops 2 ...) to etcd and to dst shell alike; a line "sleep DURATION"
# (seconds or milliseconds: 2s, 1500ms) lets time pass (real time here, virtual time in dst) and
# prints nothing. ci/compare-etcd.sh runs the same FILE through
# `dst shell` and compares. Debian's etcd-server and etcd-client packages are etcd 3.4.23.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,17p' "$0"; exit 2; }
FILE="$1"; shift
ETCD=/usr/bin/etcd
ETCDCTL=/usr/bin/etcdctl
PORT=23791
while [ $# -gt 0 ]; do
  case "$1" in
    --etcd) ETCD="$2"; shift 2 ;;
    --etcdctl) ETCDCTL="$2"; shift 2 ;;
    --port) PORT="$2"; shift 2 ;;
    *) echo "ci/record-etcd.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -r "$FILE" ] || { echo "ci/record-etcd.sh: cannot read $FILE" >&2; exit 2; }
[ -x "$ETCD" ] && [ -x "$ETCDCTL" ] || { echo "ci/record-etcd.sh: needs etcd and etcdctl (apt-get install etcd-server etcd-client)" >&2; exit 2; }
work=$(mktemp -d)
PEER=$((PORT + 10))
SERVER_FLAGS=$(sed -n 's/^server: //p' "$FILE" | head -1)
# shellcheck disable=SC2086 # the flags are words
"$ETCD" $SERVER_FLAGS --name rec --data-dir "$work/data" --listen-client-urls "http://127.0.0.1:$PORT" \
  --advertise-client-urls "http://127.0.0.1:$PORT" --listen-peer-urls "http://127.0.0.1:$PEER" \
  --initial-advertise-peer-urls "http://127.0.0.1:$PEER" --initial-cluster "rec=http://127.0.0.1:$PEER" \
  >"$work/etcd.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null || true; rm -rf "$work"' EXIT
export ETCDCTL_API=3
for _ in $(seq 1 100); do
  "$ETCDCTL" --endpoints="http://127.0.0.1:$PORT" endpoint health >/dev/null 2>&1 && break
  sleep 0.1
done
# Our etcd must be the one answering (another on the port would answer with its own data).
kill -0 "$pid" 2>/dev/null || { echo "ci/record-etcd.sh: etcd did not start (port $PORT in use?):" >&2; tail -3 "$work/etcd.log" >&2; exit 2; }
stdin=""
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in ''|'#'*) continue ;; esac
  if [[ "$line" == stdin:\ * ]]; then stdin="${line#stdin: }"; continue; fi
  if [[ "$line" == server:\ * ]]; then continue; fi
  if [[ "$line" =~ ^sleep\ ([0-9]+)(ms|s)$ ]]; then
    if [ "${BASH_REMATCH[2]}" = ms ]; then ms=${BASH_REMATCH[1]}; sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"; else sleep "${BASH_REMATCH[1]}"; fi
    continue
  fi
  echo "\$ etcdctl $line"
  set +e
  printf '%b' "$stdin" | eval "\"$ETCDCTL\" --endpoints=http://127.0.0.1:$PORT $line" >"$work/out" 2>"$work/err"
  code=$?
  set -e
  stdin=""
  cat "$work/out"
  grep -v '^{"level":"warn"' "$work/err" >"$work/err2" || true
  if [ -s "$work/err2" ]; then echo "[stderr]"; cat "$work/err2"; fi
  if [ "$code" -ne 0 ]; then echo "[exit $code]"; fi
done <"$FILE"

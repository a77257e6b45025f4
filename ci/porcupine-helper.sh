#!/usr/bin/env bash
# Builds bench/porcupine_helper (our code) against a checkout of Porcupine, for `dst bench checker`
# to time Porcupine's own checker on the same histories in the same run.
#
#   ci/porcupine-helper.sh PORCUPINE_DIR [OUT]
#
# PORCUPINE_DIR: a checkout of github.com/anishathalye/porcupine (its Go module has no
# dependencies: nothing is downloaded). OUT defaults to build/porcupine-helper. Needs Debian's
# golang-go (installed here through ci/install-deps.sh --porcupine when missing). Porcupine's code is read from PORCUPINE_DIR and never
# copied into this repository.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || [ ! -f "$1/go.mod" ] || ! grep -q "module github.com/anishathalye/porcupine" "$1/go.mod"; then
  echo "usage: ci/porcupine-helper.sh PORCUPINE_DIR [OUT]: PORCUPINE_DIR must be a checkout of github.com/anishathalye/porcupine" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
out=${2:-$root/build/porcupine-helper}
command -v go >/dev/null || "$root/ci/install-deps.sh" --porcupine
command -v go >/dev/null || { echo "porcupine-helper: no 'go' (Debian's golang-go: ci/install-deps.sh --porcupine)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$root/bench/porcupine_helper/main.go" "$work/"
cat >"$work/go.mod" <<MOD
module dst/porcupinehelper

go 1.16

require github.com/anishathalye/porcupine v0.0.0
replace github.com/anishathalye/porcupine => $src
MOD
mkdir -p "$(dirname "$out")"
(cd "$work" && GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$work/cache" GOPATH="$work/gopath" go build -o "$out" .)
echo "porcupine-helper: built $out against $src ($(go version))"

#!/usr/bin/env bash
# docs/cli.md documents every command `dst --help` lists and every flag `dst COMMAND --help` prints
# (ctest: cli_doc). Exit 1 naming what is missing.
#   ci/check-cli-doc.sh DST [ROOT]
set -uo pipefail
DST="$1"
ROOT="${2:-$(cd "$(dirname "$0")/.." && pwd)}"
doc="$ROOT/docs/cli.md"
[ -r "$doc" ] || { echo "$doc: cannot be read"; exit 1; }
missing=0
commands=$("$DST" --help 2>&1 | sed -n '/^commands:/,/^$/p' | grep -E '^  [a-z]' | awk '{print $1 ($1 == "bench" ? " " $2 : "")}' | sort -u)
[ -n "$commands" ] || { echo "dst --help lists no commands"; exit 1; }
for c in $(tr ' ' '_' <<<"$commands"); do
  c=${c//_/ }
  [ "$c" = help ] && continue
  if [[ "$c" == bench* ]]; then  # "dst bench sim|raft|kv|checker|cluster"
    grep -E 'dst bench [a-z|]+' "$doc" | grep -qw "${c#bench }" || { echo "docs/cli.md does not mention 'dst $c'"; missing=1; }
  elif ! grep -qF "dst $c" "$doc"; then echo "docs/cli.md does not mention 'dst $c'"; missing=1; fi
  [[ "$c" == bench* ]] && continue
  # The command's section: from its heading to the next one.
  section=$(awk -v c="### \`dst $c" 'index($0, c) == 1 {on = 1; print; next} /^##/ {on = 0} on' "$doc")
  for flag in $("$DST" $c --help 2>&1 | grep -oE '(^[[:space:]]*|\[)--[a-z][a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' | grep -vx -- --help | sort -u); do
    grep -qF -- "$flag" <<<"$section" || { echo "docs/cli.md, dst $c: flag $flag (in dst $c --help) is not documented in its section"; missing=1; }
  done
done
[ "$missing" = 0 ] && echo "cli doc: $(wc -l <<<"$commands") commands, every flag of their --help documented"
exit "$missing"

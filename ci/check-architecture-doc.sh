#!/usr/bin/env bash
# docs/architecture.md's folder table and ci/check-layering.sh's rules name the same folders, in
# the same order, with the same allowed dependencies (ctest: layering_docs).
#   ci/check-architecture-doc.sh [ROOT]
set -euo pipefail
ROOT="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
doc="$ROOT/docs/architecture.md"
[ -r "$doc" ] || { echo "$doc: cannot be read"; exit 1; }
# "| `folder` | job | may include |" -> "folder: may include"
from_doc=$(grep -E '^\| `[a-z_]+` \|' "$doc" | awk -F'|' '{
  name = $2; gsub(/[ `]/, "", name); deps = $(NF-1); gsub(/^ +| +$/, "", deps); gsub(/ +/, " ", deps);
  print name ": " deps }')
from_script=$("$ROOT/ci/check-layering.sh" --rules)
if [ "$from_doc" != "$from_script" ]; then
  echo "docs/architecture.md's folder table and ci/check-layering.sh disagree:"
  diff <(echo "$from_script") <(echo "$from_doc") | sed 's/^</  script:/; s/^>/  doc:   /' || true
  exit 1
fi
echo "architecture doc: $(wc -l <<<"$from_doc") folders, as the layering rules say"

#!/usr/bin/env bash
# The scale curves (issue 23): wall seconds per simulated second and peak memory (RSS) as a world's
# watches grow 100 -> 1,000 -> 10,000 (scenarios/scale/watch_fanout.lua's fan-out) and its kubelet
# informers 10 -> 100 -> 1,000 (scenarios/scale/kube_scale.lua), everything else as in those
# scenarios. One process per size and seed (peak RSS is a process's), one at a time: on a shared
# machine, compare the sizes of one invocation with each other, not with another day's.
#   ci/scale-curve.sh [--dst build/dst] [--seeds N] [--out DIR]
# Writes DIR/scale.tsv (one row per run), prints a markdown table of medians over the seeds, and
# with gnuplot draws DIR/scale-watches.png and DIR/scale-informers.png.
set -euo pipefail
cd "$(dirname "$0")/.."
DST=build/dst
SEEDS=3
OUT=scale-curve
while [ $# -gt 0 ]; do
  case "$1" in
    --dst) DST="$2"; shift 2 ;;
    --seeds) SEEDS="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "ci/scale-curve.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$SEEDS" in ''|*[!0-9]*|0) echo "ci/scale-curve.sh: --seeds must be a number from 1" >&2; exit 2 ;; esac
[ "$SEEDS" -le 100 ] || { echo "ci/scale-curve.sh: --seeds at most 100" >&2; exit 2; }
[ -x "$DST" ] || { echo "ci/scale-curve.sh: no dst binary at $DST (run ci/build.sh first)" >&2; exit 2; }
command -v /usr/bin/time >/dev/null || { echo "ci/scale-curve.sh: needs /usr/bin/time (Debian: time)" >&2; exit 2; }
mkdir -p "$OUT"

# run KIND SIZE SCENARIO: one row per seed into scale.tsv.
run() {
  local kind=$1 size=$2 scenario=$3
  for seed in $(seq 1 "$SEEDS"); do
    local log="$OUT/$kind-$size-$seed.log"
    /usr/bin/time -f "rss_kb %M" -o "$log.time" "$DST" run "$scenario" --seed "$seed" > "$log" 2>&1 || true
    local verdict wall simulated rss
    verdict=$(awk '/^verdict/ {print $2}' "$log")
    wall=$(awk '/^wall time/ {sub("s", "", $3); print $3}' "$log")
    simulated=$(awk '/^wall time/ {sub("s", "", $5); print $5}' "$log")
    rss=$(awk '/^rss_kb/ {print $2}' "$log.time")
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$size" "$seed" "${verdict:-ERROR}" "${wall:-0}" "${simulated:-0}" "${rss:-0}" >> "$OUT/scale.tsv"
  done
}

printf 'kind\tsize\tseed\tverdict\twall_s\tsimulated_s\trss_kb\n' > "$OUT/scale.tsv"
for n in 100 1000 10000; do
  sed "s/fanout_watches=10000/fanout_watches=$n/" scenarios/scale/watch_fanout.lua > "$OUT/watches-$n.lua"
  grep -q "fanout_watches=$n" "$OUT/watches-$n.lua" || { echo "ci/scale-curve.sh: watch_fanout.lua has no fanout_watches=10000" >&2; exit 2; }
  run watches "$n" "$OUT/watches-$n.lua"
done
for n in 10 100 1000; do
  sed "s/informers=1000/informers=$n/" scenarios/scale/kube_scale.lua > "$OUT/informers-$n.lua"
  grep -q "informers=$n" "$OUT/informers-$n.lua" || { echo "ci/scale-curve.sh: kube_scale.lua has no informers=1000" >&2; exit 2; }
  run informers "$n" "$OUT/informers-$n.lua"
done

# Medians per (kind, size): wall seconds per simulated second, and peak RSS in MB.
awk -F'\t' 'NR > 1 {k = $1 "\t" $2; n[k]++; w[k, n[k]] = ($6 > 0 ? $5 / $6 : 0); r[k, n[k]] = $7 / 1024;
                    if ($4 != "PASS") bad[k]++; order[k] = NR}
  function median(a, k, c,   i, j, t, v) { for (i = 1; i <= c; i++) v[i] = a[k, i];
    for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return v[int((c + 1) / 2)] }
  END { for (k in n) printf "%s\t%.4f\t%.0f\t%d\t%d\n", k, median(w, k, n[k]), median(r, k, n[k]), n[k], bad[k] + 0 }' \
  "$OUT/scale.tsv" | sort -k1,1 -k2,2n > "$OUT/medians.tsv"
echo "| kind | size | wall s per simulated s (median) | peak RSS MB (median) | runs | not PASS |"
echo "|---|---|---|---|---|---|"
awk -F'\t' '{printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6}' "$OUT/medians.tsv"

if command -v gnuplot >/dev/null; then
  for kind in watches informers; do
    grep "^$kind" "$OUT/medians.tsv" > "$OUT/$kind.dat"
    gnuplot <<EOF
set terminal pngcairo size 720,420
set output "$OUT/scale-$kind.png"
set logscale xy
set xlabel "$kind"
set ylabel "wall s per simulated s"
set y2label "peak RSS (MB)"
set y2tics
set logscale y2
set key top left
set grid
plot "$OUT/$kind.dat" using 2:3 with linespoints title "wall / simulated", \
     "$OUT/$kind.dat" using 2:4 axes x1y2 with linespoints title "peak RSS (MB)"
EOF
  done
  echo "plots: $OUT/scale-watches.png $OUT/scale-informers.png"
fi

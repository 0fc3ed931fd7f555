#!/usr/bin/env bash
# Verifier benchmark (paper 002 trustable LCS, src/verify). Prints its
# figures; the command and the figures measured go to docs/BENCHMARKS.md
# ("## Verifier (bench-verify)").
#
# usage: scripts/bench-verify.sh
#   1. tests/bench/bench_verify: pairs verified per second per core (CPU time
#      of one thread, best of REPS rounds, one reused workspace) on PAIRS
#      pairs of ~10 KB documents built from Reuters-21578 bodies:
#      near-duplicates, reordered copies (PAIRS/20: the pairs that take most
#      of ndd run's Myers work), and different articles sharing a site template.
#   2. ndd compare --raw --exact against GNU diff --minimal (one byte per
#      line) on the same inputs, in one run: CPU time (user + sys) of each
#      tool over the whole input set, best of REPS rounds run alternately,
#      ratio diff / ndd; the LCS of every pair is checked to be equal.
#      Input sets: 20 near-duplicate 10 KB pairs, 3 near-duplicate 1 MB
#      pairs, the 95 Clough answer/source pairs (also with --max-iter 1: the
#      exact LCS and the basic TLCS without the iterative variant). Process
#      start-up is part of both figures (also measured alone with --version
#      and subtracted in a second line).
# env: REPS (default 5), PAIRS (default 500), BUILD (build dir, default build/),
#      NDD_DATASETS (default ../shared/datasets)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-5}
PAIRS=${PAIRS:-500}
DATA=${NDD_DATASETS:-$root/../shared/datasets}
BUILD=${BUILD:-$root/build}
if [ ! -d "$DATA/reuters21578" ]; then
  echo "bench-verify: $DATA/reuters21578 absent: skipped" >&2
  exit 77
fi
if [ ! -x "$BUILD/bench_verify" ] || [ ! -x "$BUILD/ndd" ]; then
  bash "$root/scripts/build.sh" "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
NDD=$BUILD/ndd
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "bench-verify: $("$root/scripts/cpu-info.sh"); build $BUILD"
echo
echo "== 1. pairs per second per core (bench_verify -r $REPS -n $PAIRS) =="
"$BUILD/bench_verify" -r "$REPS" -n "$PAIRS" "$DATA/reuters21578"

echo
echo "== 2. ndd compare --raw --exact vs GNU diff --minimal (one byte per line) =="
command -v diff >/dev/null && diff --version | grep -q GNU || { echo "GNU diff absent: skipped"; exit 0; }
mkdir -p "$tmp/nd10k" "$tmp/nd1m" "$tmp/clough"
"$BUILD/bench_verify" -s "" -n 20 -w "$tmp/nd10k" 20 "$DATA/reuters21578"
"$BUILD/bench_verify" -s "" -n 3 -d 1048576 -w "$tmp/nd1m" 3 "$DATA/reuters21578"
if [ -f "$DATA/clough/file_information.csv" ]; then
  while IFS=, read -r file task cat; do
    cat=${cat%$'\r'}
    case "$cat" in cut|light|heavy|non) ;; *) continue ;; esac
    cp "$DATA/clough/$file" "$tmp/clough/${file%.txt}_a.txt"
    cp "$DATA/clough/orig_task$task.txt" "$tmp/clough/${file%.txt}_b.txt"
  done <"$DATA/clough/file_information.csv"
fi
for d in "$tmp"/nd10k "$tmp"/nd1m "$tmp"/clough; do
  for a in "$d"/*_a.txt; do
    [ -e "$a" ] || continue
    od -An -v -tx1 -w1 "$a" | tr -d ' ' >"${a%.txt}.lines"
    od -An -v -tx1 -w1 "${a%_a.txt}_b.txt" | tr -d ' ' >"${a%_a.txt}_b.lines"
  done
done

# CPU seconds (user + sys of the children) of running "$@" once
cpu_of() {
  local t0 t1 me=$BASHPID
  t0=$(awk '{print $16 + $17}' "/proc/$me/stat")
  "$@"
  t1=$(awk '{print $16 + $17}' "/proc/$me/stat")
  echo $(( t1 - t0 ))
}
# run_ndd DIR TIMES [ndd options]: every pair of DIR, TIMES times
run_ndd() {
  local dir=$1 k=$2 i a
  shift 2
  for i in $(seq 1 "$k"); do
    for a in "$dir"/*_a.txt; do "$NDD" compare --raw --exact --max-d 1G --json "$@" "$a" "${a%_a.txt}_b.txt" >"${a%.txt}.json"; done
  done
}
run_diff() {
  local dir=$1 k=$2 i a
  for i in $(seq 1 "$k"); do
    for a in "$dir"/*_a.lines; do diff --minimal "$a" "${a%_a.lines}_b.lines" >"${a%.lines}.diff" || [ $? -eq 1 ]; done
  done
}
run_ver() {
  local dir=$1 k=$2 i a
  shift 2
  for i in $(seq 1 "$k"); do for a in "$dir"/*_a.txt; do "$@" --version >/dev/null; done; done
}

tck=$(getconf CLK_TCK)
printf '%-44s %6s %10s %10s %7s %10s %10s\n' "input set" "pairs" "ndd CPU s" "diff CPU s" ratio "ndd start" "diff start"
# set name | directory | repeats per round | extra ndd options
for spec in "near-duplicate 10 KB (Reuters)|nd10k|10|" "near-duplicate 1 MB (Reuters)|nd1m|1|" \
  "Clough answer vs source (1-3 KB)|clough|2|" "Clough, --max-iter 1 (LCS + basic TLCS)|clough|2|--max-iter 1"; do
  IFS='|' read -r desc d k opt <<<"$spec"
  dir=$tmp/$d
  n=$(ls "$dir"/*_a.txt 2>/dev/null | wc -l)
  [ "$n" -gt 0 ] || continue
  best_n=999999999; best_d=999999999; best_vn=999999999; best_vd=999999999
  for r in $(seq 1 "$REPS"); do
    # shellcheck disable=SC2086
    t=$( (cpu_of run_ndd "$dir" "$k" $opt) ); [ "$t" -lt "$best_n" ] && best_n=$t
    t=$( (cpu_of run_diff "$dir" "$k") ); [ "$t" -lt "$best_d" ] && best_d=$t
    t=$( (cpu_of run_ver "$dir" "$k" "$NDD") ); [ "$t" -lt "$best_vn" ] && best_vn=$t
    t=$( (cpu_of run_ver "$dir" "$k" diff) ); [ "$t" -lt "$best_vd" ] && best_vd=$t
  done
  # same LCS, pair by pair
  python3 - "$dir" <<'EOF' || exit 1
import glob, json, sys
d = sys.argv[1]
for a in sorted(glob.glob(d + "/*_a.txt")):
    j = json.load(open(a[:-4] + ".json"))
    na = sum(1 for _ in open(a[:-4] + ".lines"))
    diff = open(a[:-4] + ".diff").read().splitlines()
    dele = sum(1 for l in diff if l.startswith("<"))
    add = sum(1 for l in diff if l.startswith(">"))
    if j["hit_cost_limit"] or j["lcs"] != na - dele or j["d"] != dele + add:
        sys.exit("bench-verify: LCS differs on %s: ndd %s / %s, diff %d / %d" % (a, j["lcs"], j["d"], na - dele, dele + add))
EOF
  awk -v desc="$desc" -v n="$n" -v k="$k" -v a="$best_n" -v b="$best_d" -v c="$best_vn" -v e="$best_vd" -v tck="$tck" 'BEGIN {
    printf "%-44s %6s %10.2f %10.2f %6.1fx %10.2f %10.2f\n", desc, n "x" k, a / tck, b / tck, (a > 0 ? b / a : 0), c / tck, e / tck
    if (a - c > 0 && b - e > 0)
      printf "%-44s %6s %10.2f %10.2f %6.1fx   (start-up subtracted)\n", "", "", (a - c) / tck, (b - e) / tck, (b - e) / (a - c) }'
done
echo "(same LCS and D as diff --minimal on every pair; CPU time (user+sys, 1/$tck s ticks), best of $REPS rounds; ratio = diff / ndd)"

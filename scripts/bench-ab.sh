#!/usr/bin/env bash
# A/B of two ndd builds on one input, alternated on one core (issue 13): the
# way to see a change of a few percent on a shared machine whose speed swings
# by 30-40 % from one period of minutes to the next (figures from two periods
# compare nothing; docs/BENCHMARKS.md, "eighth steps").
#
# usage: scripts/bench-ab.sh BUILD_A BUILD_B [INPUT...]
#   Runs BUILD_A/ndd and BUILD_B/ndd in turn, REPS times each (A, B, A, B, ..),
#   each pinned to one core (taskset -c CORE) with `ndd run -q`, and prints
#   for the wall time and every stage of stats.json the best (least) seconds
#   of each build and their ratio B / A. Also checks that the two builds
#   wrote the same pairs.tsv, scores.tsv, clusters.tsv, rejects.tsv and
#   removed.txt (exit 1 when not).
#   INPUT defaults to one 64 MB file of the bench-run corpus
#   (/tmp/ndd-bench/reuters-500MB/crawl-00001.jsonl; make it with
#   scripts/bench-run.sh).
# env: REPS (default 6), CORE (default 0), ARGS (more `ndd run` options),
#      OUT (work directory, default a temporary one)
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
A=$1 B=$2
shift 2
inputs=("$@")
[ ${#inputs[@]} -gt 0 ] || inputs=(/tmp/ndd-bench/reuters-500MB/crawl-00001.jsonl)
for f in "${inputs[@]}"; do
  [ -e "$f" ] || { echo "bench-ab: $f absent (scripts/bench-run.sh makes the bench-run corpus)" >&2; exit 1; }
done
for b in "$A" "$B"; do
  [ -x "$b/ndd" ] || { echo "bench-ab: $b/ndd absent" >&2; exit 1; }
done
REPS=${REPS:-6}
CORE=${CORE:-0}
out=${OUT:-$(mktemp -d)}
[ -n "${OUT:-}" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
read -r -a extra <<<"${ARGS:-}"
for rep in $(seq 1 "$REPS"); do
  for side in a b; do
    bin=$A
    [ $side = b ] && bin=$B
    rm -rf "$out/$side"
    taskset -c "$CORE" "$bin/ndd" run -q "${extra[@]}" -o "$out/$side" "${inputs[@]}" 2>/dev/null
    cp "$out/$side/stats.json" "$out/stats-$side-$rep.json"
  done
done
same=1
for f in pairs.tsv scores.tsv clusters.tsv rejects.tsv removed.txt; do
  if [ -e "$out/a/$f" ] || [ -e "$out/b/$f" ]; then
    cmp -s "$out/a/$f" "$out/b/$f" || { echo "bench-ab: $f differs between the builds"; same=0; }
  fi
done
python3 - "$out" "$REPS" "$A" "$B" <<'PY'
import json, sys
out, reps, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
best = {}
for side in "ab":
    for r in range(1, reps + 1):
        s = json.load(open(f"{out}/stats-{side}-{r}.json"))
        vals = {"wall": s["wall_seconds"]}
        vals.update({k: v["max"] for k, v in s["stage_seconds"].items()})
        for k, v in vals.items():
            key = (side, k)
            best[key] = min(best.get(key, v), v)
print(f"A = {a}, B = {b}: best of {reps} alternated runs each, seconds")
print(f"{'':14s}{'A':>9s}{'B':>9s}{'B / A':>9s}")
for k in [k for (side, k) in best if side == "a"]:
    x, y = best[("a", k)], best[("b", k)]
    if x < 0.001 and y < 0.001:
        continue
    print(f"{k:14s}{x:9.3f}{y:9.3f}{(y / x if x > 0 else float('nan')):9.3f}")
PY
[ $same = 1 ] && echo "outputs: the same" || exit 1

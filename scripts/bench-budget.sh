#!/usr/bin/env bash
# The memory budget per rank at scale (issue 14): 'ndd run' on a generated
# crawl on P ranks with --mem-per-rank BUDGET (or the default budget) and,
# unless NOREF=1, the same run without a budget (a budget of 1 TiB: nothing
# spills), in one script; prints for each run the wall time, MB/s per core, the
# peak RSS of every rank and of every stage (largest rank), what was spilled,
# shuffle 1's rounds, and checks that the outputs are byte-identical.
#   SIZE=4GB        corpus size (datasets/gencrawl.py --size; cached in BENCH_DIR)
#   BUDGET=1G       --mem-per-rank (BUDGET=default: the machine's default)
#   P=2             ranks
#   NOREF=1         skip the run without a budget
#   SMALL=500MB     also run a SMALL corpus on P ranks with the default budget
#                   first, and print the throughput per core of SIZE relative to it
#   BENCH_DIR=...   where the corpus is cached (default /tmp/ndd-bench)
#   BUILD=build     build directory with the ndd binary
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${SIZE:-4GB}
BUDGET=${BUDGET:-1G}
P=${P:-2}
BENCH_DIR=${BENCH_DIR:-/tmp/ndd-bench}
BUILD=${BUILD:-$root/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
data="$root/../shared/datasets/reuters21578"
[ -d "$data" ] || { echo "bench-budget: $data absent (the real Reuters text is needed); skipping"; exit 0; }
[ -x "$BUILD/ndd" ] || { echo "bench-budget: no $BUILD/ndd (build first)"; exit 1; }
corpus="$BENCH_DIR/reuters-$SIZE"
if [ ! -f "$corpus/manifest.json" ]; then
  echo "== generating $SIZE crawl (datasets/gencrawl.py --source reuters --size $SIZE --seed 1 --file-size 512MB) =="
  rm -rf "$corpus"
  python3 "$root/datasets/gencrawl.py" --source reuters --size "$SIZE" --seed 1 --file-size 512MB -q -o "$corpus"
fi
inputs=("$corpus"/crawl-*)
bytes=$(stat -c %s "${inputs[@]}" | paste -sd+ | bc)
echo "corpus: $corpus: ${#inputs[@]} files, $((bytes / 1048576)) MiB; $P ranks"
free_kib() { df -k --output=avail "$BENCH_DIR" | tail -1; }

run() { # name budget-args...
  local name=$1 out="$BENCH_DIR/out-budget-$1"; shift
  rm -rf "$out"
  local s e before after
  before=$(free_kib)
  s=$(date +%s.%N)
  mpirun -n "$P" --oversubscribe "$BUILD/ndd" run -q "$@" -o "$out" "${inputs[@]}" 2> "$out.err" || {
    cat "$out.err"; echo "bench-budget: the run failed"; exit 1; }
  e=$(date +%s.%N)
  after=$(free_kib)
  python3 - "$out/stats.json" "$name" "$(echo "$e - $s" | bc)" "$bytes" "$P" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); name, wall, size, P = sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
m = s.get("memory", {})
mib = lambda k: k / 1024
peaks = [r["peak_rss_kib"] for r in s["per_rank"]]
stage = {}
for r in s["per_rank"]:
    for k, v in r.get("stage_peak_rss_kib", {}).items():
        stage[k] = max(stage.get(k, 0), v)
print(f"{name}: wall {wall:.1f} s, {size / 1e6 / wall / P:.1f} MB/s per core; budget "
      f"{m.get('budget_per_rank_bytes', 0) / 2**30:.2f} GiB ({m.get('budget_source', '?')}); "
      f"peak RSS per rank {', '.join(f'{mib(p):.0f}' for p in peaks)} MiB (largest {max(peaks) / 2**20:.3f} GiB)")
print("  peak by stage (MiB, largest rank): " + ", ".join(f"{k} {mib(v):.0f}" for k, v in stage.items() if v))
print(f"  shuffle 1 in {m.get('shuffle1_rounds')} rounds; spilled: texts {m.get('spilled_texts_bytes', 0) / 2**20:.0f} MiB, "
      f"received texts {m.get('spilled_received_texts_bytes', 0) / 2**20:.0f} MiB, link runs "
      f"{m.get('spilled_link_runs_bytes', 0) / 2**20:.0f} MiB; work dir at its largest "
      f"{s.get('work_dir', {}).get('bytes', 0) / 2**20:.0f} MiB")
print("  stage seconds (max over ranks): " + ", ".join(f"{k} {v['max']:.1f}" for k, v in s["stage_seconds"].items() if v["max"] > 0))
PY
  echo "  disk left after the run: $((after / 1024)) MiB (before: $((before / 1024)) MiB)"
  echo "scale=3; $bytes / 1000000 / ($e - $s) / $P" | bc > "$out.rate"
}

if [ -n "${SMALL:-}" ]; then
  small="$BENCH_DIR/reuters-$SMALL"
  [ -f "$small/manifest.json" ] || python3 "$root/datasets/gencrawl.py" --source reuters --size "$SMALL" --seed 1 \
    --file-size 64MB -q -o "$small"
  sbytes=$(stat -c %s "$small"/crawl-* | paste -sd+ | bc)
  rm -rf "$BENCH_DIR/out-budget-small"
  s=$(date +%s.%N)
  mpirun -n "$P" --oversubscribe "$BUILD/ndd" run -q -o "$BENCH_DIR/out-budget-small" "$small"/crawl-* 2>/dev/null
  e=$(date +%s.%N)
  small_rate=$(echo "scale=3; $sbytes / 1000000 / ($e - $s) / $P" | bc)
  echo "small: $SMALL corpus, wall $(echo "$e - $s" | bc) s, $small_rate MB/s per core (default budget)"
fi
if [ "$BUDGET" = default ]; then run budget; else run budget --mem-per-rank "$BUDGET"; fi
if [ -n "${SMALL:-}" ]; then
  rate=$(python3 -c 'import sys,json; print(sys.argv[1])' "$(cat "$BENCH_DIR/out-budget-budget.rate")")
  echo "throughput per core: $SIZE $rate MB/s, $SMALL $small_rate MB/s: ratio $(echo "scale=3; $rate / $small_rate" | bc)"
fi
if [ "${NOREF:-0}" != 1 ]; then
  run nobudget --mem-per-rank 1T
  for f in pairs.tsv clusters.tsv scores.tsv removed.txt rejects.tsv; do
    cmp -s "$BENCH_DIR/out-budget-budget/$f" "$BENCH_DIR/out-budget-nobudget/$f" || { echo "bench-budget: $f differs"; exit 1; }
  done
  echo "outputs byte-identical with and without the budget (pairs, clusters, scores, removed, rejects)"
fi

#!/usr/bin/env bash
# End-to-end benchmark of 'ndd run' (issue 5): MB/s per core of input on a
# crawl-like corpus built from real text with known duplicates, the time share
# of each stage, 2 ranks vs 1 rank in one run, bytes shuffled per document,
# peak RSS per rank relative to its shard (and per stage), and quality against the gold.
#   SIZE=500MB      corpus size (datasets/gencrawl.py --size)
#   REPS=2          runs per rank count (best wall time is kept; alternated 1,2,1,2)
#   BENCH_DIR=...   where the corpus is cached (default /tmp/ndd-bench)
#   BUILD=build     build directory with the ndd binary (built if missing)
#   BASELINE=DIR    also run the ndd binary of build directory DIR (e.g. a build of
#                   an older commit), alternated with BUILD's in every repetition,
#                   and print the wall-time ratio of the two per rank count (the
#                   machine is shared: compare within one run only)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${SIZE:-500MB}
REPS=${REPS:-2}
BENCH_DIR=${BENCH_DIR:-/tmp/ndd-bench}
BUILD=${BUILD:-$root/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
data="$root/../shared/datasets/reuters21578"
[ -d "$data" ] || { echo "bench-run: $data absent (the real Reuters text is needed); skipping"; exit 0; }
if [ ! -x "$BUILD/ndd" ]; then
  cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j "$(nproc)" >/dev/null
fi
corpus="$BENCH_DIR/reuters-$SIZE"
if [ ! -f "$corpus/manifest.json" ]; then
  echo "== generating $SIZE crawl (datasets/gencrawl.py --source reuters --size $SIZE --seed 1) =="
  rm -rf "$corpus"
  python3 "$root/datasets/gencrawl.py" --source reuters --size "$SIZE" --seed 1 --file-size 64MB -q -o "$corpus"
fi
inputs=("$corpus"/crawl-*)
bytes=$(cat "${inputs[@]}" | wc -c)
echo "cpu: $("$root/scripts/cpu-info.sh")"
echo "corpus: $corpus: ${#inputs[@]} files, $((bytes / 1048576)) MB"

best1=""; best2=""; base1=""; base2=""
# runs the BASELINE binary once on p ranks; keeps its best wall time
baseline_run() {
  local p=$1 out="$BENCH_DIR/out-base-$1" s e w
  rm -rf "$out"
  s=$(date +%s.%N)
  mpirun -n "$p" --oversubscribe "$BASELINE/ndd" run -q -o "$out" "${inputs[@]}"
  e=$(date +%s.%N)
  w=$(python3 -c "print($e - $s)")
  echo "run $rep, $p rank(s), baseline: $w s"
  local v="base$p"
  if [ -z "${!v}" ] || python3 -c "import sys; sys.exit(0 if $w < ${!v} else 1)"; then printf -v "$v" %s "$w"; fi
}
for rep in $(seq 1 "$REPS"); do
  for p in 1 2; do
    [ -n "${BASELINE:-}" ] && baseline_run "$p"
    out="$BENCH_DIR/out-$p"
    rm -rf "$out"
    s=$(date +%s.%N)
    mpirun -n $p --oversubscribe "$BUILD/ndd" run -q -o "$out" "${inputs[@]}"
    e=$(date +%s.%N)
    w=$(python3 -c "print($e - $s)")
    echo "run $rep, $p rank(s): $w s"
    if [ $p = 1 ]; then
      if [ -z "$best1" ] || python3 -c "import sys; sys.exit(0 if $w < $best1 else 1)"; then best1=$w; cp "$out/stats.json" "$BENCH_DIR/stats-1.json"; fi
    else
      if [ -z "$best2" ] || python3 -c "import sys; sys.exit(0 if $w < $best2 else 1)"; then best2=$w; cp "$out/stats.json" "$BENCH_DIR/stats-2.json"; cp -r "$out" "$BENCH_DIR/best-2"; fi
    fi
  done
done
"$BUILD/ndd" eval --json --gold "$corpus/gold.tsv" "$BENCH_DIR/out-2" > "$BENCH_DIR/eval.json"
if [ -n "${BASELINE:-}" ]; then
  for f in pairs.tsv clusters.tsv scores.tsv; do
    cmp -s "$BENCH_DIR/out-2/$f" "$BENCH_DIR/out-base-2/$f" || echo "bench-run: $f differs from the baseline's"
  done
  python3 -c "print(f'| wall time, BUILD / BASELINE (best of {$REPS}) | 1 rank: {$best1:.2f} / {$base1:.2f} s = {$best1 / $base1:.3f} | 2 ranks: {$best2:.2f} / {$base2:.2f} s = {$best2 / $base2:.3f} |')"
fi
python3 - "$bytes" "$best1" "$best2" "$BENCH_DIR" <<'PY'
import json, sys
nbytes, w1, w2, d = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
s1 = json.load(open(f"{d}/stats-1.json")); s2 = json.load(open(f"{d}/stats-2.json"))
ev = json.load(open(f"{d}/eval.json"))
mb = nbytes / 1048576
print()
print(f"| measure | value |")
print(f"|---|---|")
print(f"| input | {mb:.0f} MB, {s1['read']['docs']} documents |")
print(f"| wall time, 1 rank / 2 ranks (best of runs, mpirun to exit) | {w1:.2f} s / {w2:.2f} s |")
print(f"| MB/s per core, 1 rank | {mb / w1:.1f} |")
print(f"| MB/s per core, 2 ranks | {mb / w2 / 2:.1f} |")
print(f"| speed-up 2 ranks vs 1 | {w1 / w2:.2f}x |")
sh = s2["shuffle_bytes"]
print(f"| bytes shuffled per document, 2 ranks (signatures + texts + rows) | {sh['per_doc']:.0f} B |")
print(f"| - of which shuffle 1 / shuffle 2 (compressed) / rows | {sh['shuffle1_signatures'] / s2['read']['docs']:.0f} / {sh['shuffle2_texts_compressed'] / s2['read']['docs']:.0f} / {sh['shuffle3_rows'] / s2['read']['docs']:.0f} B |")
for r in s2["per_rank"]:
    print(f"| peak RSS rank {r['rank']} (2 ranks) / its input shard | {r['peak_rss_kib'] / 1024:.0f} MB / {r['input_bytes'] / 1048576:.0f} MB = {r['peak_rss_kib'] * 1024 / max(1, r['input_bytes']):.2f} |")
print(f"| pair precision / recall / F1 / ARI vs gold (2 ranks) | {ev['precision']:.4f} / {ev['recall']:.4f} / {ev['f1']:.4f} / {ev['ari']:.4f} |")
print()
print("stage time share (max over ranks / sum of stage maxima) and peak memory per stage (largest rank):")
print("| stage | 1 rank s | share | 2 ranks s (max) | share | 1 rank peak MiB | 2 ranks peak MiB (max) |")
print("|---|---|---|---|---|---|---|")
t1 = {k: v["max"] for k, v in s1["stage_seconds"].items()}; t2 = {k: v["max"] for k, v in s2["stage_seconds"].items()}
T1, T2 = sum(t1.values()), sum(t2.values())
def peak(s, k):  # stats.json of builds before per-stage memory have none
    v = [r.get("stage_peak_rss_kib", {}).get(k) for r in s["per_rank"]]
    v = [x for x in v if x is not None]
    return f"{max(v) / 1024:.0f}" if v and max(v) > 0 else "-"
for k in t1:
    print(f"| {k} | {t1[k]:.2f} | {100 * t1[k] / T1:.1f} % | {t2[k]:.2f} | {100 * t2[k] / T2:.1f} % | {peak(s1, k)} | {peak(s2, k)} |")
PY

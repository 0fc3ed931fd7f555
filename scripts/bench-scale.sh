#!/usr/bin/env bash
# Scaling of 'ndd run' over rank counts (issue 13; docs/BENCHMARKS.md, "A 16-core machine"):
# the same inputs on each rank count in turn, repeated REPS times (alternated: 1, 2, 4, ...
# then again), and a table of the best wall of each rank count, its speed-up over the
# first, the parallel efficiency, the slowest rank's seconds in the main stages, the
# verification's work imbalance (verify.work_max_rank over work_min_rank: candidate pairs
# and exact followers of the sets each rank verified) and the peak RSS;
# then the median wall of each rank count and the speed-up of the medians (the machine
# may be shared: a best wall and a median can disagree, and both are printed). Walls are
# stats.json's wall_seconds (the run itself, without mpirun's start-up).
#   RANKS="1 2 4 8 16"  rank counts (the first is the reference of the speed-up)
#   ENGINE=local        local: --engine local:P (P in-process ranks, no MPI needed);
#                       mpi: mpirun -n P --oversubscribe
#   REPS=3  BUILD=build  OUT_DIR=/tmp/ndd-scale
#   INPUTS="..."        the inputs (default: bench-index's corpus, /tmp/idx-bench/c8/crawl-*,
#                       made with datasets/gencrawl.py as scripts/bench-index.sh does when absent)
# On a machine with fewer cores than ranks the walls measure oversubscription, not scaling:
# the script says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
RANKS=${RANKS:-"1 2 4 8 16"}
ENGINE=${ENGINE:-local}
REPS=${REPS:-3}
BUILD=${BUILD:-$root/build}
OUT_DIR=${OUT_DIR:-/tmp/ndd-scale}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
case "$ENGINE" in local | mpi) ;; *) echo "bench-scale: ENGINE must be local or mpi, not '$ENGINE'" >&2; exit 2 ;; esac
for p in $RANKS; do
  [[ "$p" =~ ^[1-9][0-9]*$ ]] || { echo "bench-scale: RANKS holds '$p', not a rank count" >&2; exit 2; }
done
[ -n "${RANKS// /}" ] || { echo "bench-scale: RANKS is empty" >&2; exit 2; }
[[ "$REPS" =~ ^[1-9][0-9]*$ ]] || { echo "bench-scale: REPS must be 1 or more, not '$REPS'" >&2; exit 2; }
[ -x "$BUILD/ndd" ] || { echo "bench-scale: build $BUILD/ndd first (scripts/build.sh)" >&2; exit 1; }
if [ -z "${INPUTS:-}" ]; then
  corpus=/tmp/idx-bench/c8
  if [ ! -f "$corpus/manifest.json" ]; then
    data="$root/../shared/datasets/reuters21578"
    [ -d "$data" ] || { echo "bench-scale: $data absent (the real Reuters text is needed); skipping"; exit 0; }
    rm -rf "$corpus"
    python3 "$root/datasets/gencrawl.py" --source reuters --size 200MB --seed 1 --file-size 8MB -q -o "$corpus" \
      --datasets "$root/../shared/datasets"
  fi
  INPUTS="$corpus/crawl-*"
fi
# shellcheck disable=SC2206 # (INPUTS: paths and globs, split on purpose)
inputs=($INPUTS)
for f in "${inputs[@]}"; do
  [ -r "$f" ] || { echo "bench-scale: input '$f' cannot be read" >&2; exit 2; }
done
bytes=$(cat "${inputs[@]}" | wc -c)
cores=$(nproc)
echo "bench-scale: ${#inputs[@]} input files, $((bytes / 1048576)) MB; engine $ENGINE; ranks $RANKS;" \
  "$("$root/scripts/cpu-info.sh")"
for p in $RANKS; do
  [ "$p" -le "$cores" ] || echo "bench-scale: $p ranks on $cores cores: oversubscribed, not a scaling figure"
done
mkdir -p "$OUT_DIR"
: >"$OUT_DIR/log" # the runs' messages
for rep in $(seq 1 "$REPS"); do
  for p in $RANKS; do
    out="$OUT_DIR/out-$p"
    rm -rf "$out"
    if [ "$ENGINE" = local ]; then
      cmd=("$BUILD/ndd" run -q --engine "local:$p" -o "$out" "${inputs[@]}")
    else
      cmd=(mpirun -n "$p" --oversubscribe "$BUILD/ndd" run -q -o "$out" "${inputs[@]}")
    fi
    if ! "${cmd[@]}" 2>>"$OUT_DIR/log"; then
      echo "bench-scale: the run on $p rank(s) failed; the end of $OUT_DIR/log:" >&2
      tail -n 20 "$OUT_DIR/log" >&2
      exit 1
    fi
    cp "$out/stats.json" "$OUT_DIR/stats-$p-$rep.json"
    echo "rep $rep, $p rank(s): $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['wall_seconds'])" \
      "$out/stats.json") s (stats.json wall)"
  done
done
python3 - "$OUT_DIR" "$REPS" "$bytes" "$RANKS" <<'PY'
import json, statistics, sys
d, reps, nbytes, ranks = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split()
stages = ["read", "templates", "signatures", "shuffle1", "postings", "shuffle2", "verify", "checkpoints"]
runs = {p: [json.load(open(f"{d}/stats-{p}-{r}.json")) for r in range(1, reps + 1)] for p in ranks}
best = {p: min(runs[p], key=lambda s: s["wall_seconds"]) for p in ranks}
ref = ranks[0]
w0 = best[ref]["wall_seconds"] * int(ref)  # the reference's wall in rank-seconds
mb = nbytes / 1048576
print()
print("| ranks | wall s (best) | MB/s per rank | speed-up | efficiency | " + " | ".join(stages)
      + " | verify work max / min rank | peak RSS MiB (largest rank; local: the process) |")
print("|" + "---|" * (7 + len(stages)))
for p in ranks:
    s, n = best[p], int(p)
    w = s["wall_seconds"]
    st = " | ".join(f"{s['stage_seconds'][k]['max']:.2f}" if k in s["stage_seconds"] else "-" for k in stages)
    v = s["verify"]
    imb = f"{v['work_max_rank'] / v['work_min_rank']:.2f}" if v.get("work_min_rank") else "-"
    rss = max(r["peak_rss_kib"] for r in s["per_rank"]) / 1024
    sp = best[ref]["wall_seconds"] / w
    print(f"| {p} | {w:.2f} | {mb / w / n:.1f} | {sp:.2f}x | {w0 / w / n:.2f} | {st} | {imb} | {rss:.0f} |")
print()
med = {p: statistics.median(s["wall_seconds"] for s in runs[p]) for p in ranks}
print("median walls: " + ", ".join(f"{p} rank(s) {med[p]:.2f} s ({med[ref] / med[p]:.2f}x)" for p in ranks)
      + f" ({reps} repetitions)")
PY

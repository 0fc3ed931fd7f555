#!/usr/bin/env bash
# Output equivalence over the project's benchmark corpora: runs one ndd binary
# on every case below and keeps every output file, or compares two such result
# trees file by file (stats.json without its timings, memory (peaks, budget, spills), version, command line and work directory,
# nor verify.work_max_rank, work_min_rank, shuffle_bytes.shuffle3_rows and per_doc: where the last sets are
# verified depends on timing).
# Used to show that a change of shape (issue 10) changes no output, and that
# outputs do not depend on the number of ranks or on the engine.
#
#   scripts/check-identical.sh run OUTDIR        run the cases with $NDD under $LAUNCH
#   scripts/check-identical.sh compare [--ranks] REF NEW   exit 1 on any difference;
#                                with --ranks (REF and NEW from different rank counts) the
#                                stats.json figures that measure the distribution itself are
#                                left out (shuffle_bytes, components_rounds)
#
#   NDD=build/ndd                the binary
#   LAUNCH="mpirun -n 2 --oversubscribe"   how to start it (e.g. "" with NDD_ENGINE
#                                set for in-process ranks: see docs/architecture.md)
#   CASES="reuters quality run"  which groups: reuters (Reuters-21578, three
#                                verifiers, --write-dedup), quality (the
#                                bench-quality corpora and all methods), run
#                                (the bench-run corpus)
#   SIZE=500MB BENCH_DIR=/tmp/ndd-bench            bench-run corpus (as scripts/bench-run.sh)
#   QDIR=/tmp/ndd-quality SIZE_EN=20MB SIZE_ZH=5MB  bench-quality corpora (as scripts/bench-quality.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/../shared/datasets"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

compare() {
  python3 - "$@" <<'PY'
import json, os, subprocess, sys
ranks = sys.argv[1] == "--ranks"
ref, new = sys.argv[1 + ranks], sys.argv[2 + ranks]
VOLATILE = {"wall_seconds", "stage_seconds", "per_rank", "version", "ranks", "command", "work_dir", "memory"}
# the last sets are shared out by timing (run_verify.c): the work each rank verified, the rows that then
# cross ranks and the bytes shuffled per document that count them
BY_TIMING = {"verify.work_max_rank", "verify.work_min_rank", "shuffle_bytes.shuffle3_rows", "shuffle_bytes.per_doc"}
BY_RANKS = {"shuffle_bytes", "sets.components_rounds"}
def norm(path):
    if path.endswith("stats.json"):
        s = {k: v for k, v in json.load(open(path)).items() if k not in VOLATILE}
        for k in BY_TIMING | (BY_RANKS if ranks else set()):
            sec, _, key = k.partition(".")
            if key and sec in s:
                s[sec].pop(key, None)
            else:
                s.pop(sec, None)
        return json.dumps(s, sort_keys=True).encode()
    if path.endswith(".zst"):  # one frame per rank: compare the content
        return subprocess.run(["zstd", "-dcq", path], check=True, capture_output=True).stdout
    return open(path, "rb").read()
bad = files = 0
for d, _, fs in sorted(os.walk(ref)):
    for f in sorted(fs):
        a = os.path.join(d, f)
        b = os.path.join(new, os.path.relpath(a, ref))
        files += 1
        if not os.path.exists(b):
            print("missing:", b); bad += 1
        elif norm(a) != norm(b):
            print("differs:", os.path.relpath(a, ref)); bad += 1
for d, _, fs in os.walk(new):
    for f in fs:
        b = os.path.join(d, f)
        if not os.path.exists(os.path.join(ref, os.path.relpath(b, new))):
            print("extra:", os.path.relpath(b, new)); bad += 1
print(f"check-identical: {files} files compared, {bad} differ")
sys.exit(1 if bad else 0)
PY
}

run_cases() {
  local outdir=$1
  local ndd=${NDD:-$root/build/ndd}
  read -r -a launch <<<"${LAUNCH-mpirun -n 2 --oversubscribe}"
  mkdir -p "$outdir"
  one() { # name args...
    local name=$1; shift
    rm -rf "${outdir:?}/$name"
    "${launch[@]}" "$ndd" run -q -o "$outdir/$name" "$@"
    echo "  $name" >&2
  }
  for c in ${CASES:-reuters quality run}; do
    case $c in
      reuters)
        [ -d "$data/reuters21578" ] || { echo "SKIP reuters: absent" >&2; continue; }
        local j=${BENCH_DIR:-/tmp/ndd-bench}/reuters.jsonl
        mkdir -p "$(dirname "$j")"
        [ -s "$j" ] || python3 "$root/scripts/reuters2jsonl.py" -o "$j" "$data/reuters21578" 2>/dev/null
        one reuters-tlcs --soft-wrap on "$j"
        one reuters-dedup --soft-wrap on --write-dedup "$outdir/reuters-dedup.jsonl.zst" "$j"
        mv "$outdir/reuters-dedup.jsonl.zst" "$outdir/reuters-dedup/dedup.jsonl.zst"
        one reuters-signcd --soft-wrap on --verifier signcd "$j"
        ;;
      quality)
        [ -d "$data/reuters21578" ] || { echo "SKIP quality: absent" >&2; continue; }
        local q=${QDIR:-/tmp/ndd-quality}
        mkdir -p "$q"
        [ -f "$q/en/manifest.json" ] || python3 "$root/datasets/gencrawl.py" --source reuters --size "${SIZE_EN:-20MB}" --seed 2 -q -o "$q/en"
        [ -f "$q/zh/manifest.json" ] || python3 "$root/datasets/gencrawl.py" --source zh --size "${SIZE_ZH:-5MB}" --seed 2 -q -o "$q/zh"
        for corpus in en zh clough; do
          local inputs topts texts
          case $corpus in
            en|zh) inputs=("$q/$corpus"/crawl-*); texts="html page" ;;
            clough) inputs=("$data/clough"); texts="plain" ;;
          esac
          for text in $texts; do
            topts=(); [ "$text" = page ] && topts=(--boilerplate off); [ $corpus = zh ] && topts+=(--soft-wrap on)
            for m in tlcs:sentence:tlcs signcd:sentence:signcd cosine:sentence:cosine simhash:simhash:simhash \
                     minhash:minhash:minhash spotsigs:spotsigs:spotsigs qgram:qgram:qgram imatch:imatch:imatch \
                     lsi:sentence:lsi tlcs+lsi:sentence:tlcs+lsi; do
              IFS=: read -r name cand ver <<<"$m"
              one "q-$corpus-$text-$name" --verify-all --candidates "$cand" --verifier "$ver" "${topts[@]}" "${inputs[@]}"
            done
          done
        done
        ;;
      run)
        [ -d "$data/reuters21578" ] || { echo "SKIP run: absent" >&2; continue; }
        local b=${BENCH_DIR:-/tmp/ndd-bench} size=${SIZE:-500MB}
        local corpus="$b/reuters-$size"
        [ -f "$corpus/manifest.json" ] || python3 "$root/datasets/gencrawl.py" --source reuters --size "$size" --seed 1 --file-size 64MB -q -o "$corpus"
        one "run-$size" "$corpus"/crawl-*
        ;;
      *) echo "check-identical: unknown case group '$c'" >&2; exit 2 ;;
    esac
  done
}

case ${1:-} in
  run) [ $# -eq 2 ] || { echo "usage: $0 run OUTDIR" >&2; exit 2; }; run_cases "$2" ;;
  compare) shift; [ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$1" = --ranks ]; } || { echo "usage: $0 compare [--ranks] REF NEW" >&2; exit 2; }
    compare "$@" ;;
  *) sed -n '2,25p' "$0" >&2; exit 2 ;;
esac

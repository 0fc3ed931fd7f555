#!/usr/bin/env bash
# The whole pipeline on the in-process engine (ndd run --engine local:P, P
# ranks as threads of one process, no MPI): outputs byte-identical for 1..7
# ranks (pairs, scores, clusters, rejects, the --write-dedup corpus and the
# counters of stats.json), for the TLCS, SigNCD and a baseline verifier;
# with every set moved to another rank before it is verified (the last
# sets' sharing, NDD_SHARE_ALL=1); the same as under mpirun; a run stopped after verification and resumed on
# another rank count, and one resumed after losing a map shard, give the
# same outputs. Runs under the sanitizer pass with leak detection on.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }

python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 11 --datasets /nonexistent \
  --file-size 150KB -q -o "$tmp/corpus" >/dev/null
rm -f "$tmp/corpus/gold.tsv" "$tmp/corpus/edits.tsv" "$tmp/corpus/manifest.json"
printf '{"id": "bad-json", "text": "unterminated\n{"id": "empty", "text": ""}\n' > "$tmp/corpus/zz-bad.jsonl"

# every output file identical (stats.json without timings and the figures
# that measure the distribution; the --write-dedup corpus by content)
same() { # dirA dirB what
  bash "$NDD_SOURCE_DIR/scripts/check-identical.sh" compare --ranks "$1" "$2" || fail "$3: outputs differ"
}

run_local() { # P out args...
  local p=$1 out=$2; shift 2
  "$NDD_BIN" run --engine "local:$p" -q -o "$out" "$@" || fail "ndd run --engine local:$p $*"
}

for v in tlcs signcd minhash; do
  for p in 1 2 3 4 5 6 7; do
    args=(--verifier "$v")
    [ $v = tlcs ] && args+=(--write-dedup "$tmp/$v.$p/dedup.jsonl.zst")
    run_local $p "$tmp/$v.$p" "${args[@]}" "$tmp/corpus"
    [ $p = 1 ] || same "$tmp/$v.1" "$tmp/$v.$p" "$v: 1 vs $p in-process ranks"
  done
  echo "$v: identical on 1-7 in-process ranks ($(($(wc -l < "$tmp/$v.1/pairs.tsv") - 1)) pairs)"
done
# every set verified on the rank after the one it was placed on: the records
# passed on whole (the sharing of the last sets, run_verify.c)
for v in tlcs signcd; do
  for p in 2 3; do
    args=(--verifier "$v")
    [ $v = tlcs ] && args+=(--write-dedup "$tmp/$v.share.$p/dedup.jsonl.zst")
    NDD_SHARE_ALL=1 run_local $p "$tmp/$v.share.$p" "${args[@]}" "$tmp/corpus"
    same "$tmp/$v.1" "$tmp/$v.share.$p" "$v: every set moved, $p in-process ranks"
  done
done
echo "tlcs, signcd: identical with every set verified on another rank"
n=$(($(wc -l < "$tmp/tlcs.1/pairs.tsv") - 1))
[ "$n" -gt 0 ] || fail "no pairs found on a corpus with duplicates"
grep -q 'bad-json\|malformed' "$tmp/tlcs.1/rejects.tsv" || fail "malformed line not in rejects"

# the same outputs under MPI
if command -v mpirun >/dev/null; then
  mpirun -n 2 --oversubscribe "$NDD_BIN" run -q -o "$tmp/mpi.2" \
    --write-dedup "$tmp/mpi.2/dedup.jsonl.zst" "$tmp/corpus" || fail "mpirun -n 2 ndd run"
  same "$tmp/tlcs.1" "$tmp/mpi.2" "in-process vs mpirun -n 2"
  mpirun -n 2 --oversubscribe -x NDD_SHARE_ALL=1 "$NDD_BIN" run -q -o "$tmp/mpi.share" \
    --write-dedup "$tmp/mpi.share/dedup.jsonl.zst" "$tmp/corpus" ||
    fail "mpirun -n 2 ndd run (NDD_SHARE_ALL=1)"
  same "$tmp/tlcs.1" "$tmp/mpi.share" "mpirun -n 2, every set moved"
  echo "mpirun -n 2: identical to the in-process runs (also with every set moved)"
fi

# checkpoints: stop after verification on 3 ranks, resume on 5
"$NDD_BIN" run --engine local:3 -q --work-dir "$tmp/w" --stop-after verify "$tmp/corpus" || fail "--stop-after verify"
"$NDD_BIN" run --engine local:5 -q --resume "$tmp/w" -o "$tmp/resumed" --write-dedup "$tmp/resumed/dedup.jsonl.zst" ||
  fail "--resume"
same "$tmp/tlcs.1" "$tmp/resumed" "stopped on 3 ranks, resumed on 5"
# a lost map shard is redone on resume
"$NDD_BIN" run --engine local:4 -q --work-dir "$tmp/w2" --stop-after verify "$tmp/corpus" || fail "--stop-after verify (2)"
rm -rf "$tmp/w2/verify" && mkdir "$tmp/w2/verify"
rm -f "$tmp/w2/map/shard-000001.zst"
"$NDD_BIN" run --engine local:2 -q --resume "$tmp/w2" -o "$tmp/resumed2" --write-dedup "$tmp/resumed2/dedup.jsonl.zst" ||
  fail "--resume after a lost shard"
same "$tmp/tlcs.1" "$tmp/resumed2" "lost map shard redone on resume"
echo "checkpoints: stop/resume on other in-process rank counts identical"

if [ -d "${NDD_DATASETS:-/nonexistent}/warc" ]; then
  for p in 1 4 7; do run_local $p "$tmp/warc.$p" "$NDD_DATASETS/warc"; done
  same "$tmp/warc.1" "$tmp/warc.4" "real WARC 1 vs 4"
  same "$tmp/warc.1" "$tmp/warc.7" "real WARC 1 vs 7"
  echo "real WARC: identical on 1, 4, 7 in-process ranks"
else
  echo "SKIP real WARC part: ${NDD_DATASETS:-../shared/datasets}/warc absent"
fi

#!/usr/bin/env bash
# The persistent index under MPI (issue 15): a corpus split into 4 batches in input
# order, added with `mpirun -n P ndd run --index` on P = 1, 2, 3, 4 ranks (one per
# batch, so every batch opens shards written by another rank count; the 3-rank batch
# as if each rank ran on a node of its own, NDD_COMM_FAR=1), gives
# clusters.tsv, pairs.tsv, scores.tsv, rejects.tsv and removed.txt byte-identical to
# one run over all inputs.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }
python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 11 --size 2MB --datasets /nonexistent \
  --file-size 192KB -q -o "$tmp/c" >/dev/null
in=("$tmp"/c/crawl-*)
n=${#in[@]}
[ "$n" -ge 8 ] || fail "the corpus has $n files, expected at least 8"
mpirun -n 2 --oversubscribe "$NDD_BIN" run -q -o "$tmp/ref" "${in[@]}"
at=0
for b in 0 1 2 3; do
  cnt=$(( (n * (b + 1)) / 4 - at ))
  far=(); [ $b = 2 ] && far=(-x NDD_COMM_FAR=1) # ranks as if on nodes of their own: every rank keeps every key
  mpirun -n $((b + 1)) --oversubscribe "${far[@]}" "$NDD_BIN" run -q -o "$tmp/o$b" --index "$tmp/ix" \
    "${in[@]:$at:$cnt}" \
    2>"$tmp/log" || fail "batch $b on $((b + 1)) ranks: $(cat "$tmp/log")"
  at=$((at + cnt))
done
for f in clusters.tsv pairs.tsv scores.tsv rejects.tsv removed.txt; do
  cmp -s "$tmp/ref/$f" "$tmp/o3/$f" || { diff "$tmp/ref/$f" "$tmp/o3/$f" | head -5; fail "$f differs"; }
done
[ "$(wc -l < "$tmp/ref/pairs.tsv")" -gt 20 ] || fail "too few pairs to test anything"
echo "4 batches on 1, 2, 3, 4 MPI ranks: identical to one run"

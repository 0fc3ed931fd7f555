#!/usr/bin/env bash
# The persistent index under MPI (issue 15): a corpus split into 4 batches in input
# order, added with `mpirun -n P ndd run --index` on P = 1, 2, 3, 4 ranks (one per
# batch, so every batch opens shards written by another rank count; the 3-rank batch
# as if each rank ran on a node of its own, NDD_COMM_FAR=1), gives
# clusters.tsv, pairs.tsv, scores.tsv, rejects.tsv and removed.txt byte-identical to
# one run over all inputs, every batch after the first building only the posting lists
# it touches (the index's links, kept by a batch on another rank count).
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
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["index"]
assert s["links_incremental"] == (int(sys.argv[2]) > 0), s' "$tmp/o$b/stats.json" $b || fail "batch $b: links_incremental"
  at=$((at + cnt))
done
for f in clusters.tsv pairs.tsv scores.tsv rejects.tsv removed.txt; do
  cmp -s "$tmp/ref/$f" "$tmp/o3/$f" || { diff "$tmp/ref/$f" "$tmp/o3/$f" | head -5; fail "$f differs"; }
done
[ "$(wc -l < "$tmp/ref/pairs.tsv")" -gt 20 ] || fail "too few pairs to test anything"
echo "4 batches on 1, 2, 3, 4 MPI ranks: identical to one run"

# The same batches on 1 rank each: every batch signs as many documents (its key
# files' records) and takes as many verdicts from the cache, whatever the rank
# counts and the nodes (a rank keeps only its own documents' keys, the keys travel
# with the texts to ranks on other nodes, the verdicts are routed to their sets'
# ranks): one lost on the way would be signed or verified again.
at=0
for b in 0 1 2 3; do
  cnt=$(( (n * (b + 1)) / 4 - at ))
  mpirun -n 1 "$NDD_BIN" run -q -o "$tmp/one$b" --index "$tmp/ix1" "${in[@]:$at:$cnt}" 2>"$tmp/log" ||
    fail "batch $b on 1 rank: $(cat "$tmp/log")"
  at=$((at + cnt))
done
recs() { cat "$1"/batch-"$(printf %04d "$2")"/keys/keys-*.done | awk '{s += $1} END {print s + 0}'; }
for b in 2 3 4; do
  [ "$(recs "$tmp/ix" $b)" = "$(recs "$tmp/ix1" $b)" ] ||
    fail "batch $b signed $(recs "$tmp/ix" $b) documents on $b ranks, $(recs "$tmp/ix1" $b) on 1"
  python3 - "$tmp/o$((b - 1))/stats.json" "$tmp/one$((b - 1))/stats.json" <<'EOF' ||
import json, sys
a, b = (json.load(open(p))["index"] for p in sys.argv[1:])
assert (a["verdicts_from_cache"], a["verdicts_new"]) == (b["verdicts_from_cache"], b["verdicts_new"]), (a, b)
assert b["verdicts_from_cache"] > 0, b
EOF
    fail "batch $b: its verdicts on $b ranks differ from 1 rank"
done
echo "each batch signs the same documents and takes the same verdicts on 1-4 ranks (one batch as on separate nodes) as on 1"

#!/usr/bin/env bash
# ndd run --verifier lsi (the distributed randomized SVD over MPI) on 1, 2, 3
# and 4 MPI ranks gives byte-identical pairs.tsv, scores.tsv and clusters.tsv,
# equal to the in-process engine's; on a generated crawl and on the Clough
# corpus when present.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }
command -v mpirun >/dev/null || { echo "mpirun absent: skipped"; exit 77; }

python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 7 --datasets /nonexistent \
  --file-size 200KB -q -o "$tmp/corpus" >/dev/null
rm -f "$tmp/corpus/gold.tsv" "$tmp/corpus/edits.tsv" "$tmp/corpus/manifest.json"
inputs=(crawl)
data=${NDD_DATASETS:-$NDD_SOURCE_DIR/../shared/datasets}
if [ -d "$data/clough" ]; then
  python3 "$NDD_SOURCE_DIR/datasets/clough2jsonl.py" "$data/clough" "$tmp/clough.jsonl" "$tmp/clough-gold.tsv"
  inputs+=(clough)
else
  echo "clough: real dataset $data/clough absent, only the generated crawl is checked"
fi
for in in "${inputs[@]}"; do
  src="$tmp/corpus"; [ $in = clough ] && src="$tmp/clough.jsonl"
  for p in 1 2 3 4; do
    mpirun -n $p --oversubscribe "$NDD_BIN" run -q --verifier lsi -o "$tmp/$in.$p" "$src" || fail "mpirun -n $p ($in)"
  done
  "$NDD_BIN" run --engine local:3 -q --verifier lsi -o "$tmp/$in.local3" "$src" || fail "local:3 ($in)"
  for p in 2 3 4 local3; do
    for f in pairs.tsv scores.tsv clusters.tsv; do
      cmp -s "$tmp/$in.1/$f" "$tmp/$in.$p/$f" || { diff "$tmp/$in.1/$f" "$tmp/$in.$p/$f" | head; fail "$in: $f differs, 1 vs $p ranks"; }
    done
  done
  n=$(($(wc -l < "$tmp/$in.1/pairs.tsv") - 1))
  [ "$n" -gt 0 ] || fail "$in: no pair"
  echo "$in: lsi outputs byte-identical on 1-4 MPI ranks and in process ($n pairs)"
done

#!/usr/bin/env bash
# Paper 001's conceptual duplicates on real reuse: the Clough & Stevenson
# corpus (answers that reuse a Wikipedia source by cut, light or heavy
# revision, and answers written independently). With --verifier lsi at its
# defaults, the gold clusters (each source with its reuses) are found with
# pair F1 >= 0.85 (the acceptance figure of issue 16, docs/lsi.md); the
# combined tlcs+lsi mode accepts pairs by both rules. Skipped without the data.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
data=${NDD_DATASETS:-$NDD_SOURCE_DIR/../shared/datasets}
[ -d "$data/clough" ] || { echo "real dataset $data/clough absent: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 "$NDD_SOURCE_DIR/datasets/clough2jsonl.py" "$data/clough" "$tmp/clough.jsonl" "$tmp/gold.tsv"
"$NDD_BIN" run --engine local:2 -q --verifier lsi -o "$tmp/lsi" "$tmp/clough.jsonl" || fail "ndd run --verifier lsi"
"$NDD_BIN" eval --json --gold "$tmp/gold.tsv" "$tmp/lsi" > "$tmp/lsi.json" || fail "ndd eval"
f1=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['f1'])" "$tmp/lsi.json")
echo "clough, --verifier lsi: pair F1 $f1"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 0.85 else 1)" "$f1" || fail "pair F1 $f1 < 0.85"
"$NDD_BIN" run --engine local:2 -q --verifier tlcs+lsi -o "$tmp/both" "$tmp/clough.jsonl" || fail "ndd run --verifier tlcs+lsi"
for rule in tlcs lsi; do
  n=$(tail -n +2 "$tmp/both/pairs.tsv" | awk -F'\t' -v r=$rule '$3 == r' | wc -l)
  [ "$n" -gt 0 ] || fail "tlcs+lsi: no pair accepted by $rule"
  echo "clough, --verifier tlcs+lsi: $n pairs accepted by $rule"
done

#!/usr/bin/env bash
# ndd run on 1, 2, 3 and 4 ranks gives byte-identical outputs (pairs.tsv,
# clusters.tsv, rejects.tsv, and the decompressed --write-dedup corpus), on a
# generated crawl with known duplicates and on real data when present.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 7 --datasets /nonexistent \
  --file-size 200KB -q -o "$tmp/corpus" >/dev/null
rm -f "$tmp/corpus/gold.tsv" "$tmp/corpus/edits.tsv" "$tmp/corpus/manifest.json"
# a bad line and an empty document must be rejected identically on every rank count
printf '{"id": "bad-json", "text": "unterminated\n{"id": "empty", "text": ""}\n' > "$tmp/corpus/zz-bad.jsonl"

# 3 ranks as if each ran on a node of its own (NDD_COMM_FAR=1): shuffle 2
# compresses the texts it sends; between ranks of one node it does not
check() { # name inputs...
  local name=$1; shift
  for p in 1 2 3 4; do
    local far=(); [ $p = 3 ] && far=(-x NDD_COMM_FAR=1)
    mpirun -n $p --oversubscribe "${far[@]}" "$NDD_BIN" run -q -o "$tmp/$name.$p" --write-dedup "$tmp/$name.$p/dedup.jsonl.zst" "$@"
    zstd -dcq "$tmp/$name.$p/dedup.jsonl.zst" > "$tmp/$name.$p/dedup.jsonl"
    rm "$tmp/$name.$p/dedup.jsonl.zst"
  done
  for p in 2 3 4; do
    for f in pairs.tsv clusters.tsv rejects.tsv dedup.jsonl; do
      if ! cmp -s "$tmp/$name.1/$f" "$tmp/$name.$p/$f"; then
        echo "FAIL: $name: $f differs between 1 and $p ranks"; diff "$tmp/$name.1/$f" "$tmp/$name.$p/$f" | head -20
        exit 1
      fi
    done
  done
  python3 - "$tmp/$name" <<'EOF2'
import json, sys
for p, far in ((2, False), (3, True), (4, False)):
    sh = json.load(open(f"{sys.argv[1]}.{p}/stats.json"))["shuffle_bytes"]
    raw, sent = sh["shuffle2_texts_raw"], sh["shuffle2_texts_compressed"]
    if raw and (sent < raw) != far:
        sys.exit(f"FAIL: {p} ranks (far: {far}): shuffle 2 sent {sent} bytes for {raw} raw")
EOF2
  local pairs; pairs=$(($(wc -l < "$tmp/$name.1/pairs.tsv") - 1))
  echo "$name: identical on 1-4 ranks ($pairs pairs, $(($(wc -l < "$tmp/$name.1/clusters.tsv") - 1)) clustered docs)"
}

check gen "$tmp/corpus"
n=$(($(wc -l < "$tmp/gen.1/pairs.tsv") - 1))
[ "$n" -gt 0 ] || { echo "FAIL: no pairs found on a corpus with duplicates"; exit 1; }
grep -q 'bad-json\|malformed' "$tmp/gen.1/rejects.tsv" || { echo "FAIL: malformed line not in rejects"; cat "$tmp/gen.1/rejects.tsv"; exit 1; }

if [ -d "${NDD_DATASETS:-/nonexistent}/warc" ]; then
  check warc "$NDD_DATASETS/warc"
else
  echo "SKIP real WARC part: ${NDD_DATASETS:-../shared/datasets}/warc absent"
fi

#!/usr/bin/env bash
# One per-record-gzip WARC read in parallel (issue 14): ndd run on 1, 2 and 3
# ranks gives byte-identical pairs.tsv, clusters.tsv and rejects.tsv, and every
# rank reads a share of the file (per_rank[].input_bytes in stats.json, which
# add up to the file size). The same for the real per-record WARC files of
# ../shared/datasets/warc (skipped when absent) and for a JSONL written as
# several zstd frames.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 3 --datasets /nonexistent \
  --size 2MB --file-size 64MB --format warc.gz -q -o "$tmp/corpus" >/dev/null
warc="$tmp/corpus/crawl-00000.warc.gz"
[ -f "$warc" ] || { echo "FAIL: gencrawl wrote no $warc"; ls "$tmp/corpus"; exit 1; }

# per-rank input bytes from stats.json, one per line
rank_bytes() { python3 -c 'import json,sys; [print(r["input_bytes"]) for r in json.load(open(sys.argv[1]))["per_rank"]]' "$1"; }

check() { # name size inputs...
  local name=$1 size=$2; shift 2
  for p in 1 2 3; do
    mpirun -n $p --oversubscribe "$NDD_BIN" run -q -o "$tmp/$name.$p" "$@"
  done
  for p in 2 3; do
    for f in pairs.tsv clusters.tsv rejects.tsv; do
      if ! cmp -s "$tmp/$name.1/$f" "$tmp/$name.$p/$f"; then
        echo "FAIL: $name: $f differs between 1 and $p ranks"; diff "$tmp/$name.1/$f" "$tmp/$name.$p/$f" | head -20
        exit 1
      fi
    done
    local shares; shares=$(rank_bytes "$tmp/$name.$p/stats.json" | tr '\n' ' ')
    local sum=0 b
    for b in $shares; do
      [ "$b" -gt 0 ] || { echo "FAIL: $name: a rank of $p read nothing (input_bytes per rank: $shares)"; exit 1; }
      sum=$((sum + b))
    done
    [ "$sum" -eq "$size" ] || { echo "FAIL: $name: ranks read $sum bytes of $size ($shares)"; exit 1; }
    echo "$name: $p ranks read $shares bytes (of $size)"
  done
  local docs; docs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["docs"])' "$tmp/$name.1/stats.json")
  echo "$name: identical on 1-3 ranks ($docs documents, $(($(wc -l < "$tmp/$name.1/pairs.tsv") - 1)) pairs)"
}

check gen "$(stat -c %s "$warc")" "$warc"
n=$(($(wc -l < "$tmp/gen.1/pairs.tsv") - 1))
[ "$n" -gt 0 ] || { echo "FAIL: no pairs found on a corpus with duplicates"; exit 1; }

# JSONL in zstd frames (the generated pages, one frame per 20 lines)
python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 3 --datasets /nonexistent \
  --size 2MB --file-size 64MB --format jsonl -q -o "$tmp/jcorpus" >/dev/null
split -l 20 "$tmp/jcorpus/crawl-00000.jsonl" "$tmp/jpart."
for f in "$tmp"/jpart.*; do zstd -q -c "$f"; done > "$tmp/frames.jsonl.zst"
check zst "$(stat -c %s "$tmp/frames.jsonl.zst")" "$tmp/frames.jsonl.zst"

if [ -d "${NDD_DATASETS:-/nonexistent}/warc" ]; then
  for f in sample-0000 sample-0001 IAH-urls-wget IAH-20080430204825-00000-blackbook-truncated; do
    check "real-$f" "$(stat -c %s "$NDD_DATASETS/warc/$f.warc.gz")" "$NDD_DATASETS/warc/$f.warc.gz"
  done
else
  echo "SKIP real WARC part: ${NDD_DATASETS:-../shared/datasets}/warc absent"
fi

#!/usr/bin/env bash
# reader_reuters.sh - Reuters-21578 through scripts/reuters2jsonl.py and the
# C JSONL reader (the driver in the test_reader unit test binary): 19,043
# stories with a body, unique ids, none rejected, the same from plain, .gz
# and .zst files. Skips (77) without python3, the dataset or the test binary.
set -u
src=${NDD_SOURCE_DIR:?NDD_SOURCE_DIR not set}
ds=${NDD_DATASETS:-$src/../shared/datasets}
bin=${NDD_BINARY_DIR:?NDD_BINARY_DIR not set}/test_reader

if ! command -v python3 >/dev/null; then
    echo "SKIP: python3 absent"
    exit 77
fi
if [ ! -d "$ds/reuters21578" ]; then
    echo "SKIP: real dataset $ds/reuters21578 absent"
    exit 77
fi
if [ ! -x "$bin" ]; then
    echo "SKIP: $bin not built"
    exit 77
fi
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$src/scripts/reuters2jsonl.py" --help | grep -q "reuters2jsonl" || fail "--help"
python3 "$src/scripts/reuters2jsonl.py" "$ds/reuters21578" -o "$tmp/r.jsonl" 2>"$tmp/log" || fail "conversion"
grep -q "21578 stories, 19043 with a body" "$tmp/log" || fail "summary: $(cat "$tmp/log")"
n=$(wc -l <"$tmp/r.jsonl")
[ "$n" -eq 19043 ] || fail "$n lines, want 19043"
# stdout output is the same
python3 "$src/scripts/reuters2jsonl.py" "$ds/reuters21578" 2>/dev/null | cmp -s - "$tmp/r.jsonl" || fail "stdout differs from -o"
# ids unique; the first story as in reut2-000.sgm
u=$(python3 -c '
import json, sys
ids = [json.loads(l)["id"] for l in open(sys.argv[1], encoding="utf-8")]
print(len(set(ids)))' "$tmp/r.jsonl")
[ "$u" -eq 19043 ] || fail "$u unique ids"
python3 -c '
import json, sys
d = json.loads(open(sys.argv[1], encoding="utf-8").readline())
assert d["id"] == "reuters-1" and d["url"] == "" and d["title"] == "BAHIA COCOA REVIEW", d
assert d["text"].startswith("BAHIA COCOA REVIEW\n\nShowers continued"), d["text"][:80]
assert d["text"].endswith("Reuter"), d["text"][-40:]
assert all(c in "\n\t" or ord(c) >= 32 and not 127 <= ord(c) < 160 for c in d["text"])' "$tmp/r.jsonl" ||
    fail "first record"

gzip -c "$tmp/r.jsonl" >"$tmp/r.jsonl.gz"
zstd -q -c "$tmp/r.jsonl" >"$tmp/r.jsonl.zst" 2>/dev/null || rm -f "$tmp/r.jsonl.zst"
for f in r.jsonl r.jsonl.gz r.jsonl.zst; do
    [ -f "$tmp/$f" ] || continue
    out=$("$bin" --read --reasons "$tmp/$f") || fail "reading $f"
    docs=$(echo "$out" | awk 'NR == 1 { print $4 }')
    rej=$(echo "$out" | awk 'NR == 1 { print $6 }')
    [ "$docs" = 19043 ] || fail "$f: $docs documents, want 19043 ($out)"
    [ "$rej" = 0 ] || fail "$f: $rej rejects ($out)"
    echo "$f: $docs documents, $rej rejects"
done
echo "PASS"

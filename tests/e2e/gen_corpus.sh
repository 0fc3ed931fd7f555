#!/usr/bin/env bash
# The corpus generator on the embedded demo articles (needs no ../shared/datasets):
# determinism, formats, file splitting, gold/edits/manifest consistency, template share,
# hard negatives, and the "at most one shared paragraph" guarantee of recombined articles.
set -u
SRC=${NDD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
GEN="python3 $SRC/datasets/gencrawl.py"
CHECK="python3 $SRC/datasets/checkcrawl.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok()   { echo "ok   $*"; }
bad()  { echo "FAIL $*"; fails=$((fails + 1)); }
sums() { (cd "$1" && md5sum crawl-* gold.tsv edits.tsv manifest.json); }

# usage
$GEN --help | grep -q -- "--template-share" && ok "--help" || bad "--help"
$GEN --copies 3:2 -o "$T/x" 2>/dev/null; [ $? -eq 2 ] && ok "bad --copies exits 2" || bad "bad --copies"
$GEN --template-share 0.6:0.5 -o "$T/x" 2>/dev/null; [ $? -eq 2 ] && ok "bad --template-share exits 2" || bad "bad range"
$GEN --source reuters --datasets /nonexistent -q -o "$T/x" 2>"$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "not found" "$T/err" && ok "missing datasets: exit 1 with message" || bad "missing datasets rc=$rc"

# the demo corpus: no datasets needed; two runs (different hash salts) are byte-identical
$GEN --source builtin --seed 1 --datasets /nonexistent --measure 0 -q -o "$T/a" || bad "builtin run"
PYTHONHASHSEED=123 $GEN --source builtin --seed 1 --datasets /nonexistent --measure 0 -q -o "$T/b" || bad "run 2"
if [ "$(sums "$T/a")" = "$(sums "$T/b")" ]; then ok "same seed: identical bytes"; else bad "same seed differs"; fi
$CHECK "$T/a" && ok "demo corpus valid" || bad "demo corpus invalid"
python3 - "$T/a" <<'EOF' && ok "demo size, languages, edits" || bad "demo size/languages/edits"
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
b = m["bytes"]["records"]
assert 0.9 * 2**20 <= b <= 2.2 * 2**20, b                     # ~1-2 MB
assert m["docs_per_lang"].get("en", 0) > 0 and m["docs_per_lang"].get("zh", 0) > 0, m["docs_per_lang"]
assert all(v > 0 for v in m["edits"]["by_kind"].values()), m["edits"]
assert m["articles"]["recombined_published"] > 0 and not m["articles"]["ran_out"]
assert m["args"]["datasets"] is None
EOF

$GEN --source builtin --seed 2 -q -o "$T/c" || bad "seed 2"
cmp -s "$T/a/crawl-00000.jsonl" "$T/c/crawl-00000.jsonl" && bad "seed 2 gives the same crawl" || ok "different seed differs"
cmp -s "$T/a/gold.tsv" "$T/c/gold.tsv" && bad "seed 2 gives the same gold" || ok "different seed: different gold"

# formats carry the same records: jsonl.gz / jsonl.zst decompress to the jsonl bytes
$GEN --source builtin --seed 1 --format jsonl.gz -q -o "$T/gz" || bad "jsonl.gz"
if zcat "$T/gz/crawl-00000.jsonl.gz" | cmp -s - "$T/a/crawl-00000.jsonl"; then ok "jsonl.gz = jsonl"; else bad "jsonl.gz"; fi
if command -v zstd >/dev/null; then
  $GEN --source builtin --seed 1 --format jsonl.zst -q -o "$T/zst" || bad "jsonl.zst"
  if zstd -dcq "$T/zst/crawl-00000.jsonl.zst" | cmp -s - "$T/a/crawl-00000.jsonl"; then ok "jsonl.zst = jsonl"; else bad "jsonl.zst"; fi
fi
# WARC: per-record gzip members, valid lengths/digests, same pages and urls as the JSONL
$GEN --source builtin --seed 1 --format warc.gz -q -o "$T/w" || bad "warc.gz"
$CHECK "$T/w" >/dev/null && ok "warc.gz valid" || bad "warc.gz invalid"
python3 - "$T/w/crawl-00000.warc.gz" <<'EOF' && ok "warc.gz: one gzip member per record" || bad "warc.gz members"
import sys, zlib
data = open(sys.argv[1], "rb").read()
n = 0
while data:
    d = zlib.decompressobj(31)
    rec = d.decompress(data)
    assert rec.startswith(b"WARC/1.0\r\n") and rec.endswith(b"\r\n\r\n"), rec[:40]
    data = d.unused_data
    n += 1
assert n > 100, n
EOF
$CHECK --dump "$T/a" | cut -f2,3 >"$T/a.dump"
$CHECK --dump "$T/w" | cut -f2,3 >"$T/w.dump"
cmp -s "$T/a.dump" "$T/w.dump" && ok "warc.gz pages = jsonl pages" || bad "warc.gz pages differ"
cut -f1 "$T/w/gold.tsv" | grep -qv '^urn:uuid:' && bad "warc gold ids" || ok "warc gold ids are record ids"

# splitting: several files whose concatenation is the single-file output
$GEN --source builtin --seed 1 --file-size 150KB -q -o "$T/s" || bad "split"
n=$(ls "$T/s"/crawl-*.jsonl | wc -l)
if [ "$n" -ge 5 ] && cat "$T/s"/crawl-*.jsonl | cmp -s - "$T/a/crawl-00000.jsonl"; then ok "split into $n files"; else bad "split ($n files)"; fi
$CHECK "$T/s" >/dev/null && ok "split corpus valid" || bad "split corpus invalid"
# a rerun into the same directory removes stale crawl files
$GEN --source builtin --seed 1 -q -o "$T/s" || bad "rerun"
[ "$(ls "$T/s"/crawl-* | wc -l)" -eq 1 ] && ok "stale crawl files removed" || bad "stale files left"

# a narrow template-share range is respected on every page (parsed with html.parser)
$GEN --source builtin --seed 3 --template-share 0.40:0.46 --measure 0 -q -o "$T/n" || bad "narrow"
$CHECK "$T/n" >/dev/null && ok "template share 0.40..0.46 on every page" || bad "narrow range"

# size flag: 3 MB, larger clusters, more edits
$GEN --source builtin --seed 4 --size 3MB --copies 3:6 --edits 1:4 -q -o "$T/l" || bad "3MB"
$CHECK "$T/l" >/dev/null || bad "3MB corpus invalid"
python3 - "$T/l" <<'EOF' && ok "3MB: size, copies, edits" || bad "3MB: size/copies/edits"
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
t, b = m["bytes"]["target"], m["bytes"]["records"]
assert abs(b - t) <= 0.05 * t, (b, t)
assert 3 <= m["cluster_size"]["min"] and m["cluster_size"]["max"] <= 6, m["cluster_size"]
assert m["edits"]["pages_with_edits"] == m["docs"], m["edits"]
EOF

# recombined articles never share more than one paragraph with another article
$CHECK --recombination builtin && ok "recombination guarantee" || bad "recombination"

[ $fails -eq 0 ] && echo "gen_corpus: all passed" && exit 0
echo "gen_corpus: $fails failure(s)"
exit 1

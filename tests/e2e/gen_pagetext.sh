#!/usr/bin/env bash
# datasets/pagetext.py on the demo crawl (needs no ../shared/datasets): the page text
# of every page (ids, urls, gold kept; templates in; no markup, no script/style; title
# first), byte-identical in two processes, WET conversion records (one gzip member per
# record) that ndd reads as plain text with the gold rewritten to their record ids, and
# the same clusters from the JSONL and the WET form of the same text.
set -u
SRC=${NDD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
NDD=${NDD_BIN:-$SRC/build/ndd}
GEN="python3 $SRC/datasets/gencrawl.py"
PT="python3 $SRC/datasets/pagetext.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok()  { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

$GEN --source builtin --seed 1 --datasets /nonexistent --measure 0 -q -o "$T/html" || bad "gencrawl"
$PT --format jsonl "$T/html" "$T/j" 2>/dev/null || bad "pagetext jsonl"
PYTHONHASHSEED=123 $PT --format jsonl "$T/html" "$T/j2" 2>/dev/null || bad "pagetext jsonl 2"
$PT --format wet "$T/html" "$T/w" 2>/dev/null || bad "pagetext wet"
PYTHONHASHSEED=7 $PT --format wet "$T/html" "$T/w2" 2>/dev/null || bad "pagetext wet 2"
diff -r "$T/j" "$T/j2" >/dev/null && ok "jsonl: identical bytes in two processes" || bad "jsonl differs"
diff -r "$T/w" "$T/w2" >/dev/null && ok "wet: identical bytes in two processes" || bad "wet differs"
cp "$T/j/crawl-00000.jsonl" "$T/j2/crawl-00001.jsonl"; touch "$T/w2/crawl-00003.warc.wet.gz"
$PT --format jsonl "$T/html" "$T/j2" 2>/dev/null; $PT --format wet "$T/html" "$T/w2" 2>/dev/null
diff -r "$T/j" "$T/j2" >/dev/null && diff -r "$T/w" "$T/w2" >/dev/null && ok "stale crawl files of an earlier run removed" || bad "stale files kept"
$PT --format jsonl "$T" "$T/none" 2>/dev/null; [ $? -ne 0 ] && ok "no crawl-*.jsonl: error" || bad "empty input accepted"

python3 - "$T/html" "$T/j" <<'EOF' && ok "jsonl: same ids, urls, gold; text without markup, title first, templates in" || bad "jsonl content"
import json, re, sys
h, j = sys.argv[1], sys.argv[2]
H = [json.loads(l) for l in open(h + "/crawl-00000.jsonl", encoding="utf-8")]
J = [json.loads(l) for l in open(j + "/crawl-00000.jsonl", encoding="utf-8")]
assert [(d["id"], d["url"]) for d in H] == [(d["id"], d["url"]) for d in J]
assert all(set(d) == {"id", "url", "text"} for d in J)
assert open(h + "/gold.tsv").read() == open(j + "/gold.tsv").read()
for a, b in zip(H, J):
    t = b["text"]
    assert t and "\n\n" not in t and not re.search(r"<(/?[a-z]+)[ >]", t), b["id"]
    assert all(l == l.strip() and "  " not in l and "\t" not in l for l in t.split("\n")), b["id"]
    title = re.search(r"<title>(.*?)</title>", a["html"], re.S).group(1)
    assert t.split("\n")[0] == " ".join(title.split()), b["id"]
    assert re.search(r"<h1[^>]*>(.*?)</h1>", a["html"], re.S).group(1).strip() in t.split("\n"), b["id"]
    for s in re.findall(r"<script[^>]*>(.*?)</script>", a["html"], re.S):
        assert not s.strip() or s.strip() not in t, b["id"]
# templates stay: some line of text is on many pages of one site
lines = {}
for a, b in zip(H, J):
    host = a["url"].split("/")[2]
    for l in set(b["text"].split("\n")):
        lines.setdefault((host, l), set()).add(b["id"])
assert max(len(v) for v in lines.values()) >= 10
EOF

python3 - "$T/j" "$T/w" <<'EOF' && ok "wet: one gzip member per record, conversion text/plain, gold = record ids" || bad "wet records"
import gzip, json, sys, zlib
j, w = sys.argv[1], sys.argv[2]
raw = open(w + "/crawl-00000.warc.wet.gz", "rb").read()
recs, pos = [], 0
while pos < len(raw):
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    recs.append(d.decompress(raw[pos:]))
    pos = len(raw) - len(d.unused_data)
J = [json.loads(l) for l in open(j + "/crawl-00000.jsonl", encoding="utf-8")]
assert len(recs) == len(J)
ids = {}
for r, d in zip(recs, J):
    head, body = r.split(b"\r\n\r\n", 1)
    f = dict(x.split(": ", 1) for x in head.decode().split("\r\n")[1:])
    assert head.startswith(b"WARC/1.0\r\n") and f["WARC-Type"] == "conversion" and f["Content-Type"] == "text/plain"
    assert f["WARC-Target-URI"] == d["url"] and body == d["text"].encode() + b"\r\n\r\n"
    assert int(f["Content-Length"]) == len(d["text"].encode())
    ids[d["id"]] = f["WARC-Record-ID"].strip("<>")
assert len(set(ids.values())) == len(ids)
g1 = [l.split("\t") for l in open(j + "/gold.tsv").read().splitlines()]
g2 = [l.split("\t") for l in open(w + "/gold.tsv").read().splitlines()]
assert [(ids[a], c) for a, c in g1] == [(a, c) for a, c in g2]
EOF

if [ -x "$NDD" ]; then
  "$NDD" run --engine local:2 -q -o "$T/oj" "$T/j"/crawl-* && "$NDD" run --engine local:2 -q -o "$T/ow" "$T/w"/crawl-* || bad "ndd run"
  python3 - "$T" <<'EOF' && ok "ndd reads jsonl text and wet alike (same clusters, no rejects)" || bad "ndd on page text"
import json, sys
t = sys.argv[1]
ids = {}
for j, w in zip(open(t + "/j/gold.tsv"), open(t + "/w/gold.tsv")):
    ids[w.split("\t")[0]] = j.split("\t")[0]
def clusters(d, m=lambda x: x):
    c = {}
    for l in list(open(d + "/clusters.tsv"))[1:]:
        a = l.split("\t")
        c.setdefault(m(a[1]), set()).add(m(a[0]))
    return sorted(sorted(v) for v in c.values())
assert clusters(t + "/oj") == clusters(t + "/ow", lambda x: ids.get(x, x))
for o in ("oj", "ow"):
    s = json.load(open(t + "/" + o + "/stats.json"))
    assert s["read"]["docs_read"] == 153 and s["read"]["rejected"] == 0, s["read"]
EOF
  e=$("$NDD" eval --json --gold "$T/j/gold.tsv" "$T/oj")
  python3 -c 'import json,sys; e=json.loads(sys.argv[1]); assert e["precision"] >= 0.99 and e["recall"] >= 0.9, e' "$e" \
    && ok "ndd on the page text: precision >= 0.99, recall >= 0.9" || bad "ndd quality on page text: $e"
else
  echo "skip ndd checks: $NDD not built"
fi

[ $fails -eq 0 ] && echo "gen_pagetext: all passed" && exit 0
echo "gen_pagetext: $fails failure(s)"
exit 1

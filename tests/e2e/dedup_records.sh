#!/usr/bin/env bash
# e2e (issue 17, item 1): fields of real corpora and a corpus written back unchanged.
#  - JSONL whose URL is nested (metadata.url), with a numeric id and extra fields: read
#    with --url-field metadata.url / --id-field / --text-field; --write-dedup gives the
#    input lines themselves, byte for byte, minus the removed ones (plain, .gz, .zst);
#    removed.txt lists exactly the removed ids; clusters.tsv carries the nested URLs.
#  - a JSONL without duplicates round-trips byte for byte; an empty corpus file is valid.
#  - a WARC (CRLF and LF-only trailers, a warcinfo record) round-trips record-exact to
#    .warc and .warc.gz (one gzip member per record); a duplicate record is dropped.
#  - a WARC corpus from a JSONL input is refused (exit 1, message).
#  - real data (../shared/datasets/warc, skipped when absent): the Common-Crawl-derived
#    JSONL gives its metadata.url; a real WARC's kept records are records of the input,
#    byte for byte, on 1 and 2 ranks.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: zstd not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { "$NDD" run -q --engine local:"$@"; }

# ---- JSONL with nested fields ------------------------------------------------------
python3 - "$tmp" <<'EOF'
import json, sys, random
d = sys.argv[1]
random.seed(7)
words = ("harbour council budget ferry orchard library tram museum bakery comet lighthouse "
         "festival marathon railway orchestra rainfall bridge market robotics station").split()
def article(k):
    r = random.Random(k)
    return " ".join(" ".join(r.choice(words) for _ in range(14)).capitalize() + "." for _ in range(12))
lines = []
for k in range(12):
    text = article(k)
    rec = {"created": "2020-03-%02dT09:04:10Z" % (k + 1), "doc": {"n": 1000 + k},
           "metadata": {"url": "http://site%d.example/page/%d" % (k % 3, k), "language_score": 0.9 + k / 1000,
                        "line_ids": [1, 2, k]},
           "body": text, "note": "caf\u00e9 \\ \"quoted\" \ttab"}
    lines.append(json.dumps(rec, ensure_ascii=(k % 2 == 0)))
    if k in (3, 7):  # a near copy (one sentence changed) and an exact copy
        rec2 = dict(rec, doc={"n": 2000 + k}, metadata=dict(rec["metadata"], url="http://mirror.example/%d" % k))
        rec2["body"] = text if k == 7 else text.replace(text.split(".")[5], " A different sentence here")
        lines.append(json.dumps(rec2, separators=(",", ":")))
open(d + "/nested.jsonl", "w").write("\n".join(lines) + "\n")
# no duplicates, CRLF line ends, a blank line, key order and spacing kept as written
u = ['{ "id" : "u%d", "text" : %s , "extra": {"a": [1, {"b": null}]} }\r' % (k, json.dumps(article(100 + k)))
     for k in range(6)]
open(d + "/unique.jsonl", "w", newline="").write("\n".join(u[:3]) + "\n\n" + "\n".join(u[3:]) + "\n")
EOF

F=(--id-field doc.n --text-field body --url-field metadata.url)
run 2 -o "$tmp/n" "${F[@]}" --write-dedup "$tmp/n/dedup.jsonl" "$tmp/nested.jsonl" || fail "nested: exit $?"
run 3 -o "$tmp/n3" "${F[@]}" --write-dedup "$tmp/n3/dedup.jsonl.gz" "$tmp/nested.jsonl" || fail "nested .gz: exit $?"
run 1 -o "$tmp/n1" "${F[@]}" --write-dedup "$tmp/n1/dedup.jsonl.zst" "$tmp/nested.jsonl" || fail "nested .zst: exit $?"
python3 - "$tmp" <<'EOF' || fail "nested JSONL: the dedup corpus is not the input minus the removed lines"
import json, sys
d = sys.argv[1]
removed = open(d + "/n/removed.txt").read().split("\n")[:-1]
assert sorted(removed) == ["2003", "2007"], removed
rows = [l.split("\t") for l in open(d + "/n/clusters.tsv").read().split("\n")[1:-1]]
urls = {r[0]: r[3] for r in rows}
assert urls == {"1003": "http://site0.example/page/3", "2003": "http://mirror.example/3",
                "1007": "http://site1.example/page/7", "2007": "http://mirror.example/7"}, urls
lines = open(d + "/nested.jsonl", "rb").read().split(b"\n")[:-1]
want = b"".join(l + b"\n" for l in lines if str(json.loads(l)["doc"]["n"]).encode() not in
                [r.encode() for r in removed])
got = open(d + "/n/dedup.jsonl", "rb").read()
assert got == want, "plain"
for k in lines:  # every field kept: the records are the input lines
    assert (k + b"\n" in got) == (json.loads(k)["doc"]["n"] not in (2003, 2007))
EOF
cmp <(gzip -dc "$tmp/n3/dedup.jsonl.gz") "$tmp/n/dedup.jsonl" || fail "nested: .gz corpus differs (3 ranks)"
cmp <(zstd -dcq "$tmp/n1/dedup.jsonl.zst") "$tmp/n/dedup.jsonl" || fail "nested: .zst corpus differs (1 rank)"
cmp "$tmp/n/removed.txt" "$tmp/n3/removed.txt" || fail "removed.txt differs between 2 and 3 ranks"
# without the field options the same file has no id and no text: every line a reject
"$NDD" run -q --engine local:1 -o "$tmp/nofields" "$tmp/nested.jsonl" 2>"$tmp/nofields.err"
[ $? = 1 ] || fail "nested without --id-field: not exit 1 (no document read)"
grep -q "no document read from the inputs: 14 records rejected (the first: .*missing id)" "$tmp/nofields.err" ||
  fail "no-document message: $(cat "$tmp/nofields.err")"

run 2 -o "$tmp/u" --write-dedup "$tmp/u/dedup.jsonl" "$tmp/unique.jsonl" || fail "unique: exit $?"
python3 -c 'import sys; a=open(sys.argv[1],"rb").read(); b=open(sys.argv[2],"rb").read(); sys.exit(a.replace(b"\n\n", b"\n") != b)' \
  "$tmp/unique.jsonl" "$tmp/u/dedup.jsonl" || fail "unique JSONL: not round-tripped byte for byte (blank line aside)"
[ ! -s "$tmp/u/removed.txt" ] || fail "unique: removed.txt not empty"
run 2 -o "$tmp/e" --allow-empty --write-dedup "$tmp/e/dedup.jsonl.zst" "$tmp/unique.jsonl" --resemblance 0 --containment 0 \
  --min-link 1 >/dev/null || fail "everything similar: exit $?"
zstd -t -q "$tmp/e/dedup.jsonl.zst" || fail "the .zst corpus is not a valid zstd file"

# ---- WARC record-exact ---------------------------------------------------------------
python3 - "$tmp" <<'EOF'
import sys, random
d = sys.argv[1]
def rec(typ, rid, uri, block, ctype, lf=False):
    h = ("WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Target-URI: %s\r\n"
         "WARC-Date: 2024-01-0%dT00:00:00Z\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
         % (typ, rid, uri, 1 + len(rid) % 9, ctype, len(block))).encode()
    return h + block + (b"\n\n" if lf else b"\r\n\r\n")
def page(k, extra=""):
    r = random.Random(k)
    w = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron".split()
    body = "".join("<p>%s.</p>" % " ".join(r.choice(w) for _ in range(15)).capitalize() for _ in range(10))
    return ("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>%s%s</body></html>"
            % (body, extra)).encode()
info = rec("warcinfo", "info", "", b"software: test\r\n", "application/warc-fields")
recs = [rec("response", "r%d" % k, "http://w.example/%d" % k, page(k), "application/http; msgtype=response",
            lf=(k == 2)) for k in range(5)]
open(d + "/a.warc", "wb").write(b"".join(recs))
dup = rec("response", "r9", "http://copy.example/1", page(1), "application/http; msgtype=response")
open(d + "/b.warc", "wb").write(info + recs[0] + recs[1] + dup + recs[3])
open(d + "/b-want.warc", "wb").write(recs[0] + recs[1] + recs[3])
EOF
run 2 -o "$tmp/wa" --write-dedup "$tmp/wa/out.warc" "$tmp/a.warc" || fail "WARC: exit $?"
cmp "$tmp/a.warc" "$tmp/wa/out.warc" || fail "WARC without duplicates: not the input byte for byte"
run 1 -o "$tmp/wg" --write-dedup "$tmp/wg/out.warc.gz" "$tmp/a.warc" || fail "WARC .gz: exit $?"
cmp <(gzip -dc "$tmp/wg/out.warc.gz") "$tmp/a.warc" || fail "WARC .gz: not the input records"
python3 -c 'import sys,zlib
d=open(sys.argv[1],"rb").read(); n=0
while d:
    z=zlib.decompressobj(31); z.decompress(d); d=z.unused_data; n+=1
sys.exit(n != 5)' "$tmp/wg/out.warc.gz" || fail "WARC .gz: not one gzip member per record"
run 2 -o "$tmp/wb" --write-dedup "$tmp/wb/out.warc.zst" "$tmp/b.warc" || fail "WARC with a copy: exit $?"
cmp <(zstd -dcq "$tmp/wb/out.warc.zst") "$tmp/b-want.warc" || fail "WARC with a copy: not the input minus the copy"
[ "$(cat "$tmp/wb/removed.txt")" = "urn:uuid:r9" ] || fail "WARC: removed.txt is '$(cat "$tmp/wb/removed.txt")'"
"$NDD" run -q --engine local:1 -o "$tmp/wj" --write-dedup "$tmp/wj/out.warc" "$tmp/unique.jsonl" 2>"$tmp/wj.err"
[ $? = 1 ] || fail "WARC corpus from JSONL: not exit 1"
grep -q "input .*unique.jsonl is not a WARC file" "$tmp/wj.err" || fail "WARC corpus from JSONL: $(cat "$tmp/wj.err")"

# ---- real data -----------------------------------------------------------------------
R=$(cd "$(dirname "$0")/../.." && pwd)/../shared/datasets/warc
if [ ! -d "$R" ]; then
  echo "SKIP (real data): $R absent"
  echo "dedup records ok (synthetic only)"
  exit 0
fi
# the CC-derived JSONL: every line copied twice under another id, so every document is in
# a cluster and clusters.tsv shows the URL read from metadata.url
zcat "$R/cc_en_head-0091.jsonl.gz" > "$tmp/cc1.jsonl"
python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l); r["id"]="copy:"+r["id"]; print(json.dumps(r))' "$tmp/cc1.jsonl" > "$tmp/cc2.jsonl"
cat "$tmp/cc1.jsonl" "$tmp/cc2.jsonl" > "$tmp/cc.jsonl"
run 2 -o "$tmp/cc" --url-field metadata.url --write-dedup "$tmp/cc/dedup.jsonl" "$tmp/cc.jsonl" || fail "cc: exit $?"
python3 - "$tmp" <<'EOF' || fail "CC JSONL: metadata.url not read, or the corpus is not the first copies"
import json, sys
d = sys.argv[1]
src = [json.loads(l) for l in open(d + "/cc.jsonl")]
rows = [l.rstrip("\n").split("\t") for l in open(d + "/cc/clusters.tsv")][1:]
urls = {r[0]: r[3] for r in rows}
assert len(rows) == 20, len(rows)
for r in src:
    assert urls[r["id"]] == r["metadata"]["url"] != "", r["id"]
assert open(d + "/cc/dedup.jsonl").read() == "".join(l for l in open(d + "/cc.jsonl").readlines()[:10])
EOF
for p in 1 2; do
  run $p -o "$tmp/rw$p" --write-dedup "$tmp/rw$p/out.warc" "$R/sample-0000.warc.gz" || fail "real WARC: exit $?"
done
cmp "$tmp/rw1/out.warc" "$tmp/rw2/out.warc" || fail "real WARC: corpus differs between 1 and 2 ranks"
python3 - "$tmp/rw1/out.warc" "$R/sample-0000.warc.gz" "$tmp/rw1/stats.json" <<'EOF' || fail "real WARC: a kept record is not an input record"
import gzip, json, re, sys
out = open(sys.argv[1], "rb").read()
src = gzip.open(sys.argv[2]).read()
st = json.load(open(sys.argv[3]))
n, i = 0, 0
while i < len(out):
    m = re.compile(rb"Content-Length: *(\d+)\r\n", re.I).search(out, i)
    end = out.index(b"\r\n\r\n", i) + 4 + int(m.group(1)) + 4
    assert src.find(out[i:end]) >= 0, "record %d not in the input" % n
    i, n = end, n + 1
docs = st["read"]["docs"]
assert n == docs - st["clusters"]["docs_removed"], (n, docs, st["clusters"]["docs_removed"])
assert n > 10, n
EOF
echo "dedup records ok"

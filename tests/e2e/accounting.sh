#!/usr/bin/env bash
# e2e (issue 12, item 8): the accounting promise, counted. A corpus mixing good records
# (with exact and near duplicates among them) and bad records of every kind the readers
# know - malformed JSON, a missing text field, empty and markup-only texts, a NUL byte,
# invalid UTF-8, a truncated .jsonl.gz, a WARC record whose length lies, a truncated
# WARC record, a dangling symlink, an empty HTML file - is run with --write-dedup on 1
# and 2 ranks (mpirun) and on 2 in-process ranks. Every good document is exactly once in
# the dedup corpus or removed in clusters.tsv (never both, never neither); every bad
# record is a row of rejects.tsv, in its file, with its record number where it has one;
# stats.json agrees: documents + rejects = records written (WARC records that hold no
# page - warcinfo, request - are not documents and are skipped by design).
set -u
: "${NDD_BIN:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: zstd not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }

python3 - "$tmp" <<'EOF'
import gzip, json, os, random, sys
tmp = sys.argv[1]
inp = tmp + "/in"
os.makedirs(inp + "/pages", exist_ok=True)
r = random.Random(12)
words = "harbour council vote budget river rail school storm market price wheat ship court mayor".split()
def art(k, n=10):
    q = random.Random(k)
    return " ".join(" ".join(q.choice(words) for _ in range(14)).capitalize() + "." for _ in range(n))
good, bad = [], []   # good: ids; bad: (file, record number, byte offset, reason fragment); None: any
# --- JSONL: good records, duplicates, and bad lines (a plain JSONL file is read by byte
# ranges, so its rejects carry the line's offset)
lines = []
def offset():
    return sum(len(l.encode()) + 1 for l in lines)
def jl(obj, ok, why=None):
    if ok:
        good.append(obj["id"])
    else:
        bad.append(("mixed.jsonl", None, offset(), why))
    lines.append(json.dumps(obj) if isinstance(obj, dict) else obj)
for i in range(30):
    jl({"id": "j%02d" % i, "url": "http://j%d.example/" % i, "text": art(i)}, True)
for i in range(5):   # exact copies of j00..j04
    jl({"id": "j%02d-copy" % i, "url": "http://copy%d.example/" % i, "text": art(i)}, True)
for i in range(5):   # near duplicates of j05..j09: one sentence replaced
    t = art(5 + i).split(". ")
    t[3] = "A different sentence about the weather entirely"
    jl({"id": "j%02d-near" % (5 + i), "url": "http://near%d.example/" % i, "text": ". ".join(t)}, True)
bad.append(("mixed.jsonl", None, offset(), "malformed JSON")); lines.append('{"id": "bad-json", "text": "unterminated')
jl({"id": "no-text", "url": "http://x.example/"}, False, "missing text")
jl({"id": "empty", "text": ""}, False, "empty")
jl({"id": "markup-only", "html": "<html><script>x()</script><style>p{}</style></html>"}, False, "no visible text")
jl({"id": "nul", "text": "a text with a \u0000 NUL byte inside it, which no document may hold."}, False, "NUL byte")
with open(inp + "/mixed.jsonl", "wb") as f:
    for k, l in enumerate(lines):
        f.write(l.encode() + b"\n")
    f.write(b'{"id": "bad-utf8", "text": "caf\xe9 au lait is not UTF-8 here"}\n')
    bad.append(("mixed.jsonl", None, offset(), "UTF-8"))
# --- a .jsonl.gz cut in the middle of its only member: the lines before the cut are read
gz = b"".join((json.dumps({"id": "g%02d" % i, "text": art(100 + i)}) + "\n").encode() for i in range(40))
z = gzip.compress(gz)
cut = z[: len(z) * 2 // 3]
open(inp + "/cut.jsonl.gz", "wb").write(cut)
full = gzip.decompress(z)
d = __import__("zlib").decompressobj(31)
got = d.decompress(cut)
nfull = got.count(b"\n")
good += ["g%02d" % i for i in range(nfull)]
bad.append(("cut.jsonl.gz", nfull, None, "gzip"))
# --- WARC (gzip member per record): good pages, a warcinfo record, a lying length, a truncated end
def rec(rid, uri, body, typ="response", clen=None):
    http = ("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body).encode() if typ == "response" else body.encode()
    h = ("WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Target-URI: %s\r\n"
         "Content-Type: %s\r\nContent-Length: %d\r\n\r\n" % (typ, rid, uri,
         "application/http; msgtype=response" if typ == "response" else "application/warc-fields",
         len(http) if clen is None else clen)).encode()
    return h + http + b"\r\n\r\n"
recs = [rec("info", "", "software: test\r\n", typ="warcinfo")]
for i in range(12):
    recs.append(rec("w%02d" % i, "http://w%d.example/a" % i, "<html><body><p>%s</p></body></html>" % art(200 + i)))
    good.append("urn:uuid:w%02d" % i)
recs.insert(5, rec("liar", "http://liar.example/", "<p>%s</p>" % art(300), clen=999999))
recs.append(rec("w99", "http://w99.example/", "<p>%s</p>" % art(201)))   # a copy of w01's text
good.append("urn:uuid:w99")
last = rec("trunc", "http://t.example/", "<p>%s</p>" % art(301))
# a per-record gzip WARC is split between ranks: its rejects give no ordinal
# ("-") and the file offset of the record's gzip member (docs/readers.md)
moff = []
with open(inp + "/site.warc.gz", "wb") as f:
    for x in recs:
        moff.append(f.tell())
        f.write(gzip.compress(x))
    moff.append(f.tell())
    f.write(gzip.compress(last[: len(last) // 2]))
bad.append(("site.warc.gz", "-", moff[5], "length mismatch"))  # (record 0 is the warcinfo)
bad.append(("site.warc.gz", "-", moff[-1], "truncated WARC record"))
# --- HTML files, an empty one, a dangling symlink
for i in range(6):
    open(inp + "/pages/p%d.html" % i, "w").write("<html><body><article><p>%s</p></article></body></html>" % art(400 + i % 4))
    good.append("pages/p%d.html" % i)
open(inp + "/pages/empty.html", "w").write("<html><body>   </body></html>")
bad.append(("pages/empty.html", 0, 0, "no visible text"))
os.symlink(inp + "/pages/gone.html", inp + "/pages/zz-dangling.html")
bad.append(("pages/zz-dangling.html", None, 0, "cannot open"))
json.dump({"good": good, "bad": bad}, open(tmp + "/expected.json", "w"))
print("accounting: corpus of %d good documents and %d bad records" % (len(good), len(bad)))
EOF

check() { # out-dir label
  zstd -dcq "$1/dedup.jsonl.zst" > "$1/dedup.jsonl" || fail "$2: dedup corpus unreadable"
  python3 - "$tmp/expected.json" "$1" "$2" <<'EOF' || fail "$2: accounting"
import collections, json, sys
exp, d, label = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
def rows(name):
    return [l.rstrip("\n").split("\t") for l in open(d + "/" + name, encoding="utf-8", errors="replace")][1:]
kept = [json.loads(l)["id"] for l in open(d + "/dedup.jsonl")]
removed = [r[0] for r in rows("clusters.tsv") if r[2] == "0"]
rej = rows("rejects.tsv")
errs = []
seen = collections.Counter(kept) + collections.Counter(removed)
for g in exp["good"]:
    if seen[g] != 1:
        errs.append("good document %s: %d times in dedup corpus + removed" % (g, seen[g]))
extra = set(seen) - set(exp["good"])
if extra:
    errs.append("documents nobody wrote: %s" % sorted(extra)[:5])
used = set()
for f, ordn, off, why in exp["bad"]:
    hit = [k for k, r in enumerate(rej) if k not in used and r[0] == f and (ordn is None or r[1] == str(ordn))
           and (off is None or r[2] == str(off)) and why.lower() in r[3].lower()]
    if not hit:
        errs.append("bad record %s #%s @%s (%s) not in rejects.tsv" % (f, ordn, off, why))
    else:
        used.add(hit[0])
if len(rej) != len(exp["bad"]):
    errs.append("%d rejects for %d bad records: %s" % (len(rej), len(exp["bad"]), rej))
s = json.load(open(d + "/stats.json"))["read"]
if s["docs"] != len(exp["good"]) or s["rejected"] != len(exp["bad"]):
    errs.append("stats: %d documents, %d rejected (want %d, %d)" % (s["docs"], s["rejected"], len(exp["good"]),
                                                                   len(exp["bad"])))
for e in errs:
    print("FAIL:", label, e)
if not errs:
    print("accounting: %s: %d documents = %d kept + %d removed; %d records rejected, each with its reason" % (
        label, len(exp["good"]), len(kept), len(removed), len(rej)))
sys.exit(1 if errs else 0)
EOF
}
for p in 1 2; do
  mpirun -n $p --oversubscribe "$NDD_BIN" run -q -o "$tmp/o$p" --write-dedup "$tmp/o$p/dedup.jsonl.zst" "$tmp/in" \
    || fail "mpirun -n $p: exit $?"
  check "$tmp/o$p" "$p rank(s)"
done
"$NDD_BIN" run -q --engine local:2 -o "$tmp/l2" --write-dedup "$tmp/l2/dedup.jsonl.zst" "$tmp/in" || fail "local:2: exit $?"
check "$tmp/l2" "2 in-process ranks"
for f in clusters.tsv rejects.tsv dedup.jsonl; do
  cmp -s "$tmp/o1/$f" "$tmp/o2/$f" && cmp -s "$tmp/o1/$f" "$tmp/l2/$f" || fail "$f differs between rank counts"
done
echo "accounting: ok"

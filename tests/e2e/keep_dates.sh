#!/usr/bin/env bash
# e2e (issue 17, item 3): --keep newest|oldest keeps the capture with the latest (first)
# date of each cluster: WARC-Date for WARC records, --date-field for JSONL; members
# without a date are kept only when none has one; clusters.tsv, removed.txt and the
# --write-dedup corpus agree, on 1 and 3 ranks; resumed runs too (the date is in the
# map checkpoint).
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 - "$tmp" <<'EOF2'
import json, random, sys
d = sys.argv[1]
w = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi".split()
def page(k):
    r = random.Random(k)
    return "<html><body>" + "".join("<p>%s.</p>" % " ".join(r.choice(w) for _ in range(15)).capitalize()
                                    for _ in range(10)) + "</body></html>"
def rec(rid, uri, date, html):
    block = ("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + html).encode()
    h = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:%s>\r\nWARC-Target-URI: %s\r\n"
         "WARC-Date: %s\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
         % (rid, uri, date, len(block))).encode()
    return h + block + b"\r\n\r\n"
recs = [rec("a1", "http://s/a", "2021-05-01T10:00:00Z", page(1)),
        rec("b1", "http://s/b", "2020-01-01T00:00:00Z", page(2)),
        rec("a2", "http://s/a", "2023-02-03T04:05:06Z", page(1)),
        rec("a3", "http://s/a", "2019-12-31T23:59:59Z", page(1)),
        rec("b2", "http://s/b", "2020-01-01T00:00:00Z", page(2))]  # same date as b1: the first wins
open(d + "/caps.warc", "wb").write(b"".join(recs))
for name, keep in (("newest", ("a2", "b1")), ("oldest", ("a3", "b1"))):
    open(d + "/want-" + name + ".warc", "wb").write(b"".join(r for r, i in zip(recs, ["a1", "b1", "a2", "a3", "b2"])
                                                           if i in keep))
with open(d + "/j.jsonl", "w") as f:
    t = " ".join(" ".join(random.Random(9).choice(w) for _ in range(15)) + "." for _ in range(9))
    f.write(json.dumps({"id": "x1", "meta": {"t": "2022-01-01"}, "text": t}) + "\n")
    f.write(json.dumps({"id": "x2", "text": t}) + "\n")  # no date: never preferred
    f.write(json.dumps({"id": "x3", "meta": {"t": "2021-06-30"}, "text": t}) + "\n")
EOF2
kept() { tail -n +2 "$1/clusters.tsv" | awk -F'\t' '$3 == 1 {print $1}' | sort | tr '\n' ' '; }
for k in newest oldest; do
  for p in 1 3; do
    "$NDD" run -q --engine local:$p -o "$tmp/$k$p" --keep $k --write-dedup "$tmp/$k$p/d.warc" "$tmp/caps.warc" ||
      fail "--keep $k on $p ranks: exit $?"
  done
  cmp "$tmp/$k""1/clusters.tsv" "$tmp/$k""3/clusters.tsv" || fail "--keep $k: 1 and 3 ranks differ"
  cmp "$tmp/$k""1/d.warc" "$tmp/want-$k.warc" || fail "--keep $k: the corpus does not hold the $k captures"
done
[ "$(kept "$tmp/newest1")" = "urn:a2 urn:b1 " ] || fail "--keep newest kept $(kept "$tmp/newest1")"
[ "$(kept "$tmp/oldest1")" = "urn:a3 urn:b1 " ] || fail "--keep oldest kept $(kept "$tmp/oldest1")"
[ "$(sort "$tmp/newest1/removed.txt" | tr '\n' ' ')" = "urn:a1 urn:a3 urn:b2 " ] || fail "newest: removed.txt"
"$NDD" run -q --engine local:2 -o "$tmp/first" "$tmp/caps.warc" || fail "default keep: exit $?"
[ "$(kept "$tmp/first")" = "urn:a1 urn:b1 " ] || fail "default keep (longest, ties first) changed: $(kept "$tmp/first")"
# JSONL dates; an undated member is not kept
"$NDD" run -q --engine local:2 -o "$tmp/jn" --date-field meta.t --keep newest "$tmp/j.jsonl" || fail "jsonl newest"
[ "$(kept "$tmp/jn")" = "x1 " ] || fail "jsonl newest kept $(kept "$tmp/jn")"
"$NDD" run -q --engine local:2 -o "$tmp/jo" --date-field meta.t --keep oldest "$tmp/j.jsonl" || fail "jsonl oldest"
[ "$(kept "$tmp/jo")" = "x3 " ] || fail "jsonl oldest kept $(kept "$tmp/jo")"
"$NDD" run -q --engine local:2 -o "$tmp/jx" --keep newest "$tmp/j.jsonl" || fail "jsonl without dates"
[ "$(kept "$tmp/jx")" = "x1 " ] || fail "no dates: the first choice should stay, kept $(kept "$tmp/jx")"
# the date travels in the map checkpoint: stop after verification, resume on 3 ranks
"$NDD" run -q --engine local:2 --work-dir "$tmp/w" --stop-after verify --date-field meta.t "$tmp/j.jsonl" ||
  fail "stop-after: exit $?"
"$NDD" run -q --engine local:3 --resume "$tmp/w" -o "$tmp/jr" --keep oldest || fail "resume: exit $?"
cmp "$tmp/jo/clusters.tsv" "$tmp/jr/clusters.tsv" || fail "resumed --keep oldest differs"
echo "keep by date ok"

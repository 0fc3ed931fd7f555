#!/usr/bin/env bash
# e2e (issue 17, item 3): archive controls.
#  - the real WARC files (../shared/datasets/warc, skipped when absent): by default no
#    pair holds a robots.txt (5 of 7 pairs did; pairs.tsv's url_a/url_b columns, checked
#    against clusters.tsv); with --url-exclude none they come back
#    (so the check can fail); every reject of a record with a URL names it and its
#    content type (images, CSS, JS); read.docs + read.rejected stay one count per record;
#  - --content-types text/html turns text/plain records into rejects;
#  - --url-include / --url-exclude on JSONL URLs (--url-field), the dedup corpus agrees.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 - "$tmp" <<'EOF'
import json, random, sys
d = sys.argv[1]
w = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi".split()
def text(k):
    r = random.Random(k)
    return " ".join(" ".join(r.choice(w) for _ in range(13)).capitalize() + "." for _ in range(9))
with open(d + "/u.jsonl", "w") as f:
    for k in range(6):
        host = "a.example" if k < 3 else "b.example"
        f.write(json.dumps({"id": "d%d" % k, "text": text(k % 2), "m": {"u": "http://%s/p%d" % (host, k)}}) + "\n")
EOF
"$NDD" run -q --engine local:2 -o "$tmp/inc" --url-field m.u --url-include 'http://a.example/*' \
  --write-dedup "$tmp/inc/d.jsonl" "$tmp/u.jsonl" || fail "--url-include: exit $?"
[ "$(wc -l < "$tmp/inc/d.jsonl")" = 2 ] && grep -q '"d0"' "$tmp/inc/d.jsonl" && grep -q '"d1"' "$tmp/inc/d.jsonl" ||
  fail "--url-include: corpus $(cat "$tmp/inc/d.jsonl")"
[ "$(grep -c 'URL not included (--url-include)	http://b.example/' "$tmp/inc/rejects.tsv")" = 3 ] ||
  fail "--url-include: rejects $(cat "$tmp/inc/rejects.tsv")"
"$NDD" run -q --engine local:1 -o "$tmp/exc" --url-field m.u --url-exclude '*/p1' --url-exclude '*b.example/p4' \
  "$tmp/u.jsonl" || fail "--url-exclude: exit $?"
python3 - "$tmp/exc" <<'EOF' || fail "--url-exclude: counts or clusters"
import json, sys
d = sys.argv[1]
st = json.load(open(d + "/stats.json"))["read"]
assert (st["docs"], st["rejected"]) == (4, 2), st
ids = sorted(l.split("\t")[0] for l in open(d + "/clusters.tsv").read().split("\n")[1:-1])
assert ids == ["d0", "d2", "d3", "d5"], ids  # d1 and d4 excluded; the rest are copies two by two
EOF

R=$(cd "$(dirname "$0")/../.." && pwd)/../shared/datasets/warc
if [ ! -d "$R" ]; then
  echo "SKIP (real data): $R absent"
  echo "archive controls ok (synthetic only)"
  exit 0
fi
W=("$R"/*.warc.gz)
"$NDD" run -q --engine local:2 -o "$tmp/d" "${W[@]}" || fail "default: exit $?"
"$NDD" run -q --engine local:2 -o "$tmp/all" --url-exclude none "${W[@]}" || fail "--url-exclude none: exit $?"
"$NDD" run -q --engine local:1 -o "$tmp/html" --content-types text/html "${W[@]}" || fail "--content-types: exit $?"
python3 - "$tmp" <<'EOF' || fail "real WARC archive controls"
import json, sys
d = sys.argv[1]
def rows(run, f):
    return [l.rstrip("\n").split("\t") for l in open("%s/%s/%s" % (d, run, f))][1:]
def robots_pairs(run):
    url = {r[0]: r[3] for r in rows(run, "clusters.tsv")}
    pairs = rows(run, "pairs.tsv")
    assert all(p[8] == url[p[0]] and p[9] == url[p[1]] for p in pairs), "pairs.tsv url_a/url_b"
    return [p for p in pairs if p[8].endswith("/robots.txt") or p[9].endswith("/robots.txt")]
assert robots_pairs("d") == [], robots_pairs("d")
assert len(robots_pairs("all")) >= 3, "without the exclusion the robots.txt pairs should be there"
assert len(rows("d", "pairs.tsv")) >= 1
rej = rows("d", "rejects.tsv")
assert all(len(r) == 6 for r in rej), "rejects.tsv has 6 columns"
nontext = [r for r in rej if r[3] == "non-text payload"]
assert len(nontext) >= 150, len(nontext)
assert all(r[4] != "-" and r[5] != "-" for r in nontext), [r for r in nontext if "-" in r[4:]][:3]
assert {"image/png", "text/css", "text/javascript"} <= {r[5] for r in nontext}
excl = [r for r in rej if r[3] == "URL excluded (--url-exclude)"]
assert excl and all(r[4].endswith("/robots.txt") and r[5] == "text/plain" for r in excl), excl
s, a = json.load(open(d + "/d/stats.json"))["read"], json.load(open(d + "/all/stats.json"))["read"]
assert s["docs"] + s["rejected"] == a["docs"] + a["rejected"] and s["docs"] == a["docs"] - len(excl), (s, a)
h = rows("html", "rejects.tsv")
assert any(r[3] == "content type not selected (--content-types)" and r[5] == "text/plain" for r in h)
assert not any(r[3].startswith("content type") and r[5] == "text/html" for r in h)
EOF
echo "archive controls ok"

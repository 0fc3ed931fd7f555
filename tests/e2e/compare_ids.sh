#!/usr/bin/env bash
# e2e (issue 17, item 5): ndd compare CORPUS ID_A ID_B compares two records of a corpus
# by id (with the JSONL field options of ndd run), agrees with the pair row of ndd run
# (--templates off: the same prepared texts; with the template pass over the corpus,
# the default, too), --show prints both texts with the trustable regions marked and lists
# the template lines removed, an unknown id is a clear exit 1; real WARC ids too.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 - "$tmp" <<'EOF2'
import json, random, sys
d = sys.argv[1]
w = "harbour council budget ferry orchard library tram museum bakery comet festival railway".split()
def text(k):
    r = random.Random(k)
    return " ".join(" ".join(r.choice(w) for _ in range(14)).capitalize() + "." for _ in range(12))
with open(d + "/c.jsonl", "w") as f:
    for k in range(5):
        f.write(json.dumps({"meta": {"key": "k%d" % k}, "body": text(k)}) + "\n")
    t = text(2).split(". ")
    t[4] = "An entirely different sentence stands here now"
    f.write(json.dumps({"meta": {"key": "k2-edited"}, "body": ". ".join(t)}) + "\n")
EOF2
F=(--id-field meta.key --text-field body)
"$NDD" run -q --engine local:1 --templates off -o "$tmp/o" "${F[@]}" "$tmp/c.jsonl" || fail "run: exit $?"
[ "$(tail -n +2 "$tmp/o/pairs.tsv" | cut -f1,2)" = "$(printf 'k2\tk2-edited')" ] || fail "run pairs: $(cat "$tmp/o/pairs.tsv")"
want=$(tail -n +2 "$tmp/o/pairs.tsv" | cut -f4)
"$NDD" compare --json "${F[@]}" "$tmp/c.jsonl" k2 k2-edited > "$tmp/j" || fail "compare --json: exit $?"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(not (j["duplicate"] and "%.6f" % j["resemblance"] == sys.argv[2]))' \
  "$tmp/j" "$want" || fail "compare by id disagrees with pairs.tsv ($want): $(cat "$tmp/j")"
"$NDD" compare --show "${F[@]}" "$tmp/c.jsonl" k2 k2-edited > "$tmp/show" || fail "compare --show: exit $?"
grep -q "^verdict: duplicate" "$tmp/show" || fail "--show: no verdict"
[ "$(grep -c '^--- [AB]: the text compared' "$tmp/show")" = 2 ] || fail "--show: the two texts are not printed"
grep -q '^\[\[Harbour\|^\[\[[A-Z]' "$tmp/show" && grep -q '\]\]' "$tmp/show" || fail "--show: no region marked"
! grep -q "\[\[[^]]*An entirely different sentence" "$tmp/show" || fail "--show: the edited sentence is inside a region"
"$NDD" compare "${F[@]}" "$tmp/c.jsonl" k1 k3 > "$tmp/diff" || fail "compare of different records: exit $?"
grep -q "^verdict: not duplicate" "$tmp/diff" || fail "k1/k3: $(grep verdict "$tmp/diff")"
"$NDD" compare "${F[@]}" "$tmp/c.jsonl" k1 nope >/dev/null 2>"$tmp/err"
[ $? = 1 ] || fail "unknown id: not exit 1"
grep -q "B: no document with id 'nope' in $tmp/c.jsonl (6 documents read" "$tmp/err" || fail "unknown id: $(cat "$tmp/err")"
"$NDD" compare "$tmp/c.jsonl" k1 k2 >/dev/null 2>&1
[ $? = 1 ] || fail "without --id-field the records have no id: exit 1 expected"
# a site whose pages share a footer: the template pass removes it in ndd run, and
# ndd compare CORPUS (template pass over the corpus, default) compares the same texts
python3 - "$tmp" <<'EOF2'
import json, random, sys
d = sys.argv[1]
w = "quay council budget ferry orchard library tram museum bakery comet festival railway tide".split()
def para(k):
    r = random.Random(k)
    return " ".join(" ".join(r.choice(w) for _ in range(14)).capitalize() + "." for _ in range(8))
foot = "Copyright Example News Group, all rights reserved, reproduction forbidden without consent."
with open(d + "/site.jsonl", "w") as f:
    for k in range(8):
        body = para(k) + "\n" + para(100 + k) + "\n" + foot
        if k == 7:  # a near copy of page 3: one paragraph of it
            body = para(3) + "\n" + para(999) + "\n" + foot
        f.write(json.dumps({"id": "p%d" % k, "url": "http://news.example/p%d" % k, "text": body}) + "\n")
EOF2
"$NDD" run -q --engine local:2 -o "$tmp/s" "$tmp/site.jsonl" || fail "site run: exit $?"
grep -q '"templates": {' "$tmp/s/stats.json" || fail "no templates section"
row=$(grep -P '^p3\tp7\t' "$tmp/s/pairs.tsv" "$tmp/s/scores.tsv" | head -1 | cut -d: -f2-)
[ -n "$row" ] || fail "site: no verified pair p3 p7: $(cat "$tmp/s/scores.tsv")"
want=$(echo "$row" | cut -f4)
"$NDD" compare --json "$tmp/site.jsonl" p3 p7 > "$tmp/sj" || fail "site compare: exit $?"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit("%.6f" % j["resemblance"] != sys.argv[2])' \
  "$tmp/sj" "$want" || fail "site: compare (template pass) disagrees with ndd run ($want): $(cat "$tmp/sj")"
"$NDD" compare --json --templates off "$tmp/site.jsonl" p3 p7 > "$tmp/sj0" || fail "--templates off: exit $?"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(not a["len_a"] > b["len_a"])' \
  "$tmp/sj0" "$tmp/sj" || fail "--templates off compares the same lengths: the footer was not removed"
"$NDD" compare --show "$tmp/site.jsonl" p3 p7 > "$tmp/ss" || fail "site --show: exit $?"
[ "$(grep -c '^{template} Copyright Example News Group' "$tmp/ss")" = 2 ] || fail "--show: the footer is not listed as a template of A and B"

R=$(cd "$(dirname "$0")/../.." && pwd)/../shared/datasets/warc
if [ -d "$R" ]; then
  "$NDD" compare "$R" urn:uuid:4E3DEF08-49CD-44B7-8211-7D93270996EE urn:uuid:08C18C73-AB2D-4484-8857-E4BF3557B6F2 \
    > "$tmp/real" || fail "real WARC ids: exit $?"
  grep -q "^verdict: duplicate" "$tmp/real" || fail "real WARC pair: $(grep verdict "$tmp/real")"
else
  echo "SKIP (real data): $R absent"
fi
echo "compare by id ok"

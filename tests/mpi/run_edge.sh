#!/usr/bin/env bash
# Edge cases of ndd run: empty input, a single document, no duplicates at all,
# every document identical, more ranks than input files (ranks with no data),
# one giant template shared by thousands of different pages, bad usage.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap "rm -rf $tmp" EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { mpirun -n "$1" --oversubscribe "$NDD_BIN" run -q "${@:2}"; }
rows() { echo $(($(wc -l < "$1") - 1)); }
fail() { echo "FAIL: $*"; exit 1; }
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {'d': d}))" "$@"; }

# bad usage -> exit 2; --help -> 0
set +e
"$NDD_BIN" run >/dev/null 2>&1; [ $? -eq 2 ] || fail "no args should exit 2"
"$NDD_BIN" run -o "$tmp/x" --bogus a >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option should exit 2"
"$NDD_BIN" run -o "$tmp/x" --verifier nope a >/dev/null 2>&1; [ $? -eq 2 ] || fail "bad verifier should exit 2"
"$NDD_BIN" run -o "$tmp/x" "$tmp/does-not-exist" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing input should exit 1"
set -e
help=$("$NDD_BIN" run --help); case "$help" in *--keep*--write-dedup*) ;; *) fail "--help lacks options" ;; esac

# empty input
: > "$tmp/empty.jsonl"
# (issue 17: reading no document is an error unless --allow-empty)
if run 2 -o "$tmp/o-none" "$tmp/empty.jsonl" 2>/dev/null; then fail "empty input without --allow-empty should exit 1"; fi
run 2 -o "$tmp/o-empty" --allow-empty "$tmp/empty.jsonl"
[ "$(rows "$tmp/o-empty/pairs.tsv")" = 0 ] || fail "empty input gave pairs"
[ "$(json "$tmp/o-empty/stats.json" "d['read']['docs']")" = 0 ] || fail "empty input docs != 0"

# a single document, on 3 ranks (two ranks receive no data)
python3 - "$tmp/one.jsonl" <<'PY'
import json, sys
t = "The river rose by two metres overnight after heavy rain in the hills. Residents of the lower town moved their cars to higher ground. The council opened the school gym as a shelter for the night."
open(sys.argv[1], "w").write(json.dumps({"id": "only", "text": t}) + "\n")
PY
run 3 -o "$tmp/o-one" "$tmp/one.jsonl"
[ "$(rows "$tmp/o-one/clusters.tsv")" = 0 ] || fail "single doc clustered"
[ "$(json "$tmp/o-one/stats.json" "d['read']['docs']")" = 1 ] || fail "single doc not read"

# no duplicates / all identical / giant template, generated in python
python3 - "$tmp" <<'PY'
import json, random, sys
tmp = sys.argv[1]
rnd = random.Random(5)
words = ("time year people way day man thing woman life child world school state family student group country "
         "problem hand part place case week company system program question work government number night point "
         "home water room mother area money story fact month lot right study book eye job word business issue "
         "side kind head house service friend father power hour game line end member law car city community name "
         "president team minute idea kid body information back parent face others level office door health person "
         "art war history party result change morning reason research girl guy moment air teacher force education").split()
def sentence():
    return " ".join(rnd.choice(words) for _ in range(rnd.randint(8, 16))).capitalize() + "."
def article(n):
    return " ".join(sentence() for _ in range(n))
with open(f"{tmp}/distinct.jsonl", "w") as f:
    for i in range(300):
        f.write(json.dumps({"id": f"u{i}", "url": f"https://s{i % 7}.example/{i}", "text": article(12)}) + "\n")
same = article(15)
with open(f"{tmp}/same.jsonl", "w") as f:
    for i in range(200):
        f.write(json.dumps({"id": f"s{i}", "url": f"https://m{i % 9}.example/{i}", "text": same}) + "\n")
# one site template (header, menu, sidebar, footer) around 3000 different short articles
menu = "".join(f"<li><a href='/sec{j}'>Section number {j} of the portal</a></li>" for j in range(15))
side = " ".join(sentence() for _ in range(6))
foot = " ".join(sentence() for _ in range(5))
with open(f"{tmp}/giant.jsonl", "w") as f:
    for i in range(3000):
        html = (f"<html><body><div class='top'><h2>The Daily Portal of Everything Important</h2><ul>{menu}</ul></div>"
                f"<div class='main'><h1>Story {i}</h1><p>{article(7)}</p><p>{article(7)}</p></div>"
                f"<div class='side'><p>{side}</p></div><div class='foot'><p>{foot}</p></div></body></html>")
        f.write(json.dumps({"id": f"g{i:04d}", "url": f"https://portal.example/{i}", "html": html}) + "\n")
PY
run 2 -o "$tmp/o-distinct" "$tmp/distinct.jsonl"
[ "$(rows "$tmp/o-distinct/pairs.tsv")" = 0 ] || fail "distinct docs gave pairs: $(head -3 "$tmp/o-distinct/pairs.tsv")"

run 2 -o "$tmp/o-same" --write-dedup "$tmp/o-same/dedup.jsonl.zst" "$tmp/same.jsonl"
[ "$(rows "$tmp/o-same/clusters.tsv")" = 200 ] || fail "identical docs: expected 200 clustered rows"
[ "$(cut -f2 "$tmp/o-same/clusters.tsv" | tail -n +2 | sort -u | wc -l)" = 1 ] || fail "identical docs: not one cluster"
[ "$(cut -f3 "$tmp/o-same/clusters.tsv" | grep -c '^1$')" = 1 ] || fail "identical docs: not exactly one kept"
[ "$(zstd -dcq "$tmp/o-same/dedup.jsonl.zst" | wc -l)" = 1 ] || fail "dedup corpus should hold one doc"

# more ranks than files
run 4 -o "$tmp/o-few" "$tmp/one.jsonl" "$tmp/same.jsonl"
[ "$(rows "$tmp/o-few/clusters.tsv")" = 200 ] || fail "4 ranks / 2 files: wrong clusters"

# giant template: no false pairs, and the run stays bounded (candidate pairs ~ linear)
run 2 -o "$tmp/o-giant" "$tmp/giant.jsonl"
pairs=$(rows "$tmp/o-giant/pairs.tsv")
cand=$(json "$tmp/o-giant/stats.json" "d['verify']['candidate_pairs']")
echo "giant template: $pairs accepted pairs, $cand candidate pairs for 3000 pages"
[ "$pairs" -eq 0 ] || fail "template glued different pages: $pairs pairs"
[ "$cand" -le 60000 ] || fail "candidate pairs not bounded: $cand"
echo "edge cases ok"

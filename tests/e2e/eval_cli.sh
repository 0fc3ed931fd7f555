#!/usr/bin/env bash
# ndd eval on hand-computed cases: cluster mode (P/R/F1/ARI, removals), the
# threshold sweep from scores.tsv, pair mode (AUC, F1), and usage errors.
set -euo pipefail
: "${NDD_BIN:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
get() { python3 -c "import json,sys; print(round(json.loads(sys.stdin.read())[sys.argv[1]], 6))" "$1"; }

# 6 documents a..f. gold: {a,b,c} {d,e}; f alone (absent from gold).
# predicted: {a,b} {c,d,e}; kept: a, d.   gold pairs 4, predicted 4, true 2:
# P = R = F1 = 0.5; ARI = (2 - 16/15) / (4 - 16/15) = 14/44 = 0.318182
mkdir "$tmp/run"
printf 'a\tg1\nb\tg1\nc\tg1\nd\tg2\ne\tg2\n' > "$tmp/gold.tsv"
printf 'id\tcluster\tkeep\turl\na\ta\t1\t\nb\ta\t0\t\nc\tc\t0\t\nd\tc\t1\t\ne\tc\t0\t\n' > "$tmp/run/clusters.tsv"
printf '{\n  "read": {\n    "docs": 6\n  }\n}\n' > "$tmp/run/stats.json"
out=$("$NDD_BIN" eval --json --gold "$tmp/gold.tsv" "$tmp/run")
[ "$(echo "$out" | get precision)" = 0.5 ] || fail "precision: $out"
[ "$(echo "$out" | get recall)" = 0.5 ] || fail "recall: $out"
[ "$(echo "$out" | get f1)" = 0.5 ] || fail "f1: $out"
[ "$(echo "$out" | get ari)" = 0.318182 ] || fail "ari: $out"
# removed b, c, e: b (gold g1, a kept) right; c (g1) right; e (g2, d kept) right -> 3 of 3 removable
[ "$(echo "$out" | get removed_correctly)" = 3 ] || fail "removed_correctly: $out"
[ "$(echo "$out" | get duplicates_removable)" = 3 ] || fail "removable: $out"
"$NDD_BIN" eval --gold "$tmp/gold.tsv" "$tmp/run" | grep -q "pair F1            0.5000" || fail "text output"

# sweep: a-b 0.9, c-d 0.3, d-e 0.5 (resemblance; containment low)
printf 'id_a\tid_b\tverifier\tresemblance\tcontainment\tncd\ttlcs\tscore\taccepted\n' > "$tmp/run/scores.tsv"
printf 'a\tb\ttlcs\t0.9\t0.1\t-\t10\t0.9\t1\nc\td\ttlcs\t0.3\t0.1\t-\t10\t0.3\t1\nd\te\ttlcs\t0.5\t0.1\t-\t10\t0.5\t1\n' >> "$tmp/run/scores.tsv"
sw=$("$NDD_BIN" eval --json --gold "$tmp/gold.tsv" --sweep resemblance=0.2:0.6:0.2 "$tmp/run")
python3 - "$sw" <<'PY' || fail "sweep: $sw"
import json, sys
p = {round(x["threshold"], 2): x for x in json.loads(sys.argv[1])["points"]}
# t=0.2: {a,b} {c,d,e}: P 2/4 R 2/4; t=0.4: {a,b} {d,e}: P 1, R 0.5; t=0.6: {a,b}: P 1, R 0.25
assert abs(p[0.2]["precision"] - 0.5) < 1e-9 and abs(p[0.2]["recall"] - 0.5) < 1e-9, p[0.2]
assert abs(p[0.4]["precision"] - 1.0) < 1e-9 and abs(p[0.4]["recall"] - 0.5) < 1e-9, p[0.4]
assert abs(p[0.6]["precision"] - 1.0) < 1e-9 and abs(p[0.6]["recall"] - 0.25) < 1e-9, p[0.6]
PY

# pair mode: one duplicate pair (same text, different header), one different pair
base="The river rose by two metres overnight after heavy rain in the hills. Residents of the lower town moved their cars to higher ground before dawn. The council opened the school gym as a shelter and served hot soup until the water went down."
other="A chess club in the old library celebrated its fiftieth season with a tournament for players of every age. The youngest entrant was seven and the oldest ninety one. Both won a prize for sportsmanship from the organisers."
printf '%s\n' "$base" > "$tmp/a.txt"
printf 'Local news\n%s\n' "$base" > "$tmp/b.txt"
printf '%s\n' "$other" > "$tmp/c.txt"
printf 'a.txt\tb.txt\t1\na.txt\tc.txt\t0\nb.txt\tc.txt\t0\n' > "$tmp/labels.tsv"
pm=$("$NDD_BIN" eval --json --pairs "$tmp/labels.tsv")
[ "$(echo "$pm" | get auc)" = 1.0 ] || fail "auc: $pm"
[ "$(echo "$pm" | get f1_default)" = 1.0 ] || fail "f1 at default: $pm"

set +e
"$NDD_BIN" eval "$tmp/run" >/dev/null 2>&1; [ $? = 2 ] || fail "no --gold must exit 2"
"$NDD_BIN" eval --gold "$tmp/gold.tsv" --sweep bogus=1:2:1 "$tmp/run" >/dev/null 2>&1; [ $? = 2 ] || fail "bad sweep must exit 2"
"$NDD_BIN" eval --gold "$tmp/nope.tsv" "$tmp/run" >/dev/null 2>&1; [ $? = 1 ] || fail "missing gold must exit 1"
set -e
echo "eval cli ok"

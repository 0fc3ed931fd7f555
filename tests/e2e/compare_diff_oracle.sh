#!/usr/bin/env bash
# e2e: 'ndd compare --raw --exact --json' computes the same LCS and SES size
# as GNU diff --minimal on real text pairs (every Clough answer against its
# source, plus every pair of sources), with one byte per line:
#   LCS = |A| - (lines diff deletes),  D = deleted + added lines.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
DATA=${NDD_DATASETS:-}/clough
[ -d "$DATA" ] || { echo "SKIP: real dataset $DATA absent"; exit 77; }
command -v diff >/dev/null || { echo "SKIP: GNU diff not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
diff --version 2>/dev/null | grep -q GNU || { echo "SKIP: diff is not GNU diff"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# one byte per line, as two hex digits (a newline byte is a line too)
bytes_per_line() { od -An -v -tx1 -w1 "$1" | tr -d ' '; }

check_pair() {
  local a=$1 b=$2
  bytes_per_line "$a" >"$tmp/a.lines"
  bytes_per_line "$b" >"$tmp/b.lines"
  local na nb del add
  na=$(wc -l <"$tmp/a.lines")
  nb=$(wc -l <"$tmp/b.lines")
  diff --minimal "$tmp/a.lines" "$tmp/b.lines" >"$tmp/diff.out"
  [ $? -le 1 ] || fail "diff failed on $a $b"
  del=$(grep -c '^<' "$tmp/diff.out")
  add=$(grep -c '^>' "$tmp/diff.out")
  "$NDD" compare --raw --exact --json "$a" "$b" >"$tmp/out.json" || fail "ndd compare exit $? on $a $b"
  python3 - "$tmp/out.json" "$na" "$nb" "$del" "$add" "$a" "$b" <<'EOF' || exit 1
import json, sys
j = json.load(open(sys.argv[1]))
na, nb, dele, add = map(int, sys.argv[2:6])
want_lcs, want_d = na - dele, dele + add
if j["hit_cost_limit"]:
    sys.exit("FAIL: cost limit hit on %s %s" % (sys.argv[6], sys.argv[7]))
if j["len_a"] != na or j["len_b"] != nb:
    sys.exit("FAIL: lengths %d %d vs %d %d" % (j["len_a"], j["len_b"], na, nb))
if j["lcs"] != want_lcs or j["d"] != want_d:
    sys.exit("FAIL: %s vs %s: ndd lcs %d d %d, diff --minimal lcs %d d %d"
             % (sys.argv[6], sys.argv[7], j["lcs"], j["d"], want_lcs, want_d))
if j["mode"] != "raw" or not j["exact"] or j["sketch_a"] != na or j["sketch_b"] != nb:
    sys.exit("FAIL: --raw --exact not honoured: %s" % j)
EOF
  pairs=$((pairs + 1))
}

pairs=0
while IFS=, read -r file task cat; do
  cat=${cat%$'\r'}
  case "$cat" in cut|light|heavy|non) ;; *) continue ;; esac
  check_pair "$DATA/$file" "$DATA/orig_task$task.txt"
done <"$DATA/file_information.csv"
for x in a b c d e; do
  for y in a b c d e; do
    [ "$x" \< "$y" ] && check_pair "$DATA/orig_task$x.txt" "$DATA/orig_task$y.txt"
  done
done
[ "$pairs" -ge 100 ] || fail "only $pairs pairs checked"
echo "OK: $pairs Clough pairs: ndd compare --raw --exact equals GNU diff --minimal (LCS and D)"

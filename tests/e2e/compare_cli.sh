#!/usr/bin/env bash
# e2e: 'ndd compare' usage, formats, verdicts on real text inside HTML
# templates, both verifiers, and bad input (empty, binary, invalid UTF-8,
# 100 MB): a clear result or a clear error, never a crash or an unbounded run.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
T="timeout 300"
# json FILE EXPR: evaluates a Python expression over the parsed object j
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

# --- usage
"$NDD" compare --help >"$tmp/help" || fail "--help exit $?"
for opt in --verifier --json --raw --exact --format --max-doc-bytes --boilerplate --window --slope \
  --resemblance --containment --max-d --max-iter --threshold --tau; do
  grep -q -- "$opt" "$tmp/help" || fail "--help does not list $opt"
done
echo "some text" >"$tmp/x.txt"
"$NDD" compare 2>/dev/null; [ $? -eq 2 ] || fail "no files must exit 2"
"$NDD" compare "$tmp/x.txt" 2>/dev/null; [ $? -eq 2 ] || fail "one file must exit 2"
"$NDD" compare --verifier nope "$tmp/x.txt" "$tmp/x.txt" 2>"$tmp/err"; [ $? -eq 2 ] || fail "unknown verifier must exit 2"
grep -q "unknown verifier" "$tmp/err" || fail "unknown verifier message"
"$NDD" compare --slope 2 "$tmp/x.txt" "$tmp/x.txt" 2>/dev/null; [ $? -eq 2 ] || fail "--slope 2 must exit 2"
"$NDD" compare --bogus "$tmp/x.txt" "$tmp/x.txt" 2>/dev/null; [ $? -eq 2 ] || fail "bad option must exit 2"
"$NDD" compare "$tmp/x.txt" "$tmp/missing" 2>"$tmp/err"; [ $? -eq 1 ] || fail "missing file must exit 1"
grep -q "cannot read" "$tmp/err" || fail "missing file message"

# --- real text: a Clough source, or a fallback paragraph of our own
DATA=${NDD_DATASETS:-}/clough
if [ -f "$DATA/orig_taska.txt" ]; then
  cp "$DATA/orig_taska.txt" "$tmp/art1.txt"
  cp "$DATA/orig_taske.txt" "$tmp/art2.txt"
else
  echo "note: $DATA absent, using generated text"
  # 30 sentences of words drawn by a fixed generator: varied enough for
  # SigNCD's spot signature (one sentence repeated gives it one word)
  gen() { # gen SEED: 30 sentences
    awk -v seed="$1" 'BEGIN {
      n = split("the a of river bridge weather spring market price bank council storm coast team final " \
                "library budget debate warning weekend region city harbour train station farmer harvest " \
                "school teacher report minister election vote court judge ruling factory worker strike " \
                "museum painting festival music hospital doctor patient science study energy wind solar", w, " ")
      x = seed
      for (s = 1; s <= 30; s++) {
        line = ""
        for (k = 0; k < 14; k++) { x = (x * 1103515245 + 12345) % 2147483648; line = line (k ? " " : "") w[1 + int(x / 65536) % n] }
        print toupper(substr(line, 1, 1)) substr(line, 2) "."
      }
    }'
  }
  gen 1 >"$tmp/art1.txt"
  gen 2 >"$tmp/art2.txt"
fi
page() { # page TEMPLATE ARTICLE OUT
  local t=$1 art=$2 out=$3
  {
    echo "<!DOCTYPE html><html><head><title>Site $t</title><script>var x=1;</script></head><body>"
    if [ "$t" = 1 ]; then
      echo "<div class=top>The Example Gazette - news you can use every single day of the week</div>"
      echo "<div class=menu><a href=/>Home</a> | <a href=/w>World</a> | <a href=/b>Business</a> | <a href=/s>Science</a> | <a href=/t>Technology</a> | <a href=/o>Opinion</a> | <a href=/sp>Sports</a> | <a href=/c>Contact</a></div>"
      echo "<div class=side>Most read: Council approves the new library budget after a long debate. Storm warning issued for the coast this weekend. Local team wins the regional final in extra time.</div>"
    else
      echo "<div class=hdr>Daily Wire Online, independent reporting since 1950, all the stories that matter</div>"
      echo "<ul><li><a href=/n>News</a></li><li><a href=/m>Markets</a></li><li><a href=/e>Economy</a></li><li><a href=/p>Politics</a></li><li><a href=/h>Health</a></li><li><a href=/tr>Travel</a></li></ul>"
    fi
    echo "<div class=article>"
    sed 's/&/\&amp;/g; s/</\&lt;/g; s/^/<p>/; s/$/<\/p>/' "$art"
    echo "</div>"
    echo "<div class=foot>Copyright 2024 the publisher. All rights reserved. Privacy policy. Terms of use. Cookie settings. Contact the newsroom. Advertise with us. Careers. Corrections.</div>"
    echo "</body></html>"
  } >"$out"
}
page 1 "$tmp/art1.txt" "$tmp/a1.html"
page 2 "$tmp/art1.txt" "$tmp/a2.html"
page 1 "$tmp/art2.txt" "$tmp/b1.html"

$T "$NDD" compare --json "$tmp/a1.html" "$tmp/a2.html" >"$tmp/o.json" || fail "compare exit $?"
json "$tmp/o.json" 'j["verifier"]=="tlcs" and j["duplicate"] and j["format_a"]=="html" and j["tlcs"]>0' ||
  fail "same article in two templates must be a duplicate: $(cat "$tmp/o.json")"
for f in verifier duplicate resemblance containment lcs tlcs d len_a len_b; do
  json "$tmp/o.json" "'$f' in j" || fail "JSON misses $f"
done
$T "$NDD" compare --json "$tmp/a1.html" "$tmp/b1.html" >"$tmp/o.json" || fail "compare exit $?"
json "$tmp/o.json" 'not j["duplicate"]' || fail "different articles in one template must not be duplicates: $(cat "$tmp/o.json")"
# symmetric
$T "$NDD" compare --json "$tmp/a2.html" "$tmp/a1.html" >"$tmp/o2.json" || fail "compare exit $?"
$T "$NDD" compare --json "$tmp/a1.html" "$tmp/a2.html" >"$tmp/o1.json" || fail "compare exit $?"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); sys.exit(0 if (a["tlcs"],a["lcs"],a["resemblance"])==(b["tlcs"],b["lcs"],b["resemblance"]) else 1)' \
  "$tmp/o1.json" "$tmp/o2.json" || fail "compare is not symmetric"
# the report explains
$T "$NDD" compare "$tmp/a1.html" "$tmp/b1.html" >"$tmp/rep" || fail "report exit $?"
for w in "sketches:" "resemblance =" "containment =" "verdict: not duplicate" "why:"; do
  grep -q "$w" "$tmp/rep" || fail "report lacks '$w'"
done
# format: by content (no extension), forced text
cp "$tmp/a1.html" "$tmp/a1.page"
$T "$NDD" compare --json "$tmp/a1.page" "$tmp/a2.html" >"$tmp/o.json" || fail "compare exit $?"
json "$tmp/o.json" 'j["format_a"]=="html"' || fail "markup must be sniffed as HTML"
$T "$NDD" compare --json --format text "$tmp/a1.html" "$tmp/a2.html" >"$tmp/o.json" || fail "compare exit $?"
json "$tmp/o.json" 'j["format_a"]=="text" and j["len_a"]>=j["bytes_a"]-300' || fail "--format text must keep the markup"
# identical files
$T "$NDD" compare --json "$tmp/art1.txt" "$tmp/art1.txt" >"$tmp/o.json" || fail "compare exit $?"
json "$tmp/o.json" 'j["duplicate"] and j["resemblance"]==1.0 and j["d"]==0' || fail "identical files"
# thresholds are configurable
$T "$NDD" compare --json --resemblance 1 --containment 1 "$tmp/a1.html" "$tmp/a2.html" >"$tmp/o.json" || fail "exit $?"
json "$tmp/o.json" 'not j["duplicate"] and j["min_resemblance"]==1.0' || fail "--resemblance/--containment ignored"
# SigNCD
$T "$NDD" compare --verifier signcd --json "$tmp/art1.txt" "$tmp/art1.txt" >"$tmp/o.json" || fail "signcd exit $?"
json "$tmp/o.json" 'j["verifier"]=="signcd" and j["duplicate"]' || fail "signcd on identical files: $(cat "$tmp/o.json")"
$T "$NDD" compare --verifier signcd --tau 0.0 --json "$tmp/art1.txt" "$tmp/art2.txt" >"$tmp/o.json" || fail "signcd exit $?"
json "$tmp/o.json" 'j["verifier"]=="signcd" and not j["duplicate"]' || fail "signcd tau 0"

# --- bad input
: >"$tmp/empty.txt"
$T "$NDD" compare --json "$tmp/empty.txt" "$tmp/empty.txt" >"$tmp/o.json" || fail "empty files exit $?"
json "$tmp/o.json" 'not j["duplicate"] and j["len_a"]==0' || fail "empty files"
$T "$NDD" compare "$tmp/empty.txt" "$tmp/art1.txt" >"$tmp/rep" || fail "empty vs text exit $?"
grep -q "has no text" "$tmp/rep" || fail "empty file not explained"
head -c 20000 /dev/urandom >"$tmp/bin.dat"
printf 'ELF\0\0\0binary' >>"$tmp/bin.dat"
$T "$NDD" compare "$tmp/bin.dat" "$tmp/art1.txt" 2>"$tmp/err"; [ $? -eq 1 ] || fail "binary file must exit 1"
grep -q "binary" "$tmp/err" || fail "binary file message: $(cat "$tmp/err")"
$T "$NDD" compare --raw --json "$tmp/bin.dat" "$tmp/bin.dat" >"$tmp/o.json" || fail "--raw binary exit $?"
json "$tmp/o.json" 'j["duplicate"] and j["mode"]=="raw"' || fail "--raw on identical binary files"
printf 'caf\xe9 au lait, a Latin-1 line of text that is long enough\n' >"$tmp/latin1.txt"
$T "$NDD" compare "$tmp/latin1.txt" "$tmp/art1.txt" 2>"$tmp/err"; [ $? -eq 1 ] || fail "invalid UTF-8 must exit 1"
grep -q "not valid UTF-8" "$tmp/err" || fail "invalid UTF-8 message"
$T "$NDD" compare --raw "$tmp/latin1.txt" "$tmp/latin1.txt" >/dev/null || fail "--raw on invalid UTF-8"
"$NDD" compare --max-file-bytes 10 "$tmp/art1.txt" "$tmp/art1.txt" 2>"$tmp/err"; [ $? -eq 1 ] || fail "--max-file-bytes"
grep -q "larger than" "$tmp/err" || fail "--max-file-bytes message"

# 100 MB: the text is truncated to --max-doc-bytes; --raw --exact is bounded by the cost limit
python3 - "$tmp/art1.txt" "$tmp/big.txt" <<'EOF'
import sys
src = open(sys.argv[1], "rb").read()
with open(sys.argv[2], "wb") as f:
    n, i = 0, 0
    while n < 100 * 1024 * 1024:
        chunk = b"%d " % i + src
        f.write(chunk)
        n += len(chunk)
        i += 1
EOF
$T "$NDD" compare --json "$tmp/big.txt" "$tmp/art1.txt" >"$tmp/o.json" || fail "100 MB text exit $?"
json "$tmp/o.json" 'j["bytes_a"]>=100*1024*1024 and j["len_a"]<=10240' || fail "100 MB not truncated: $(cat "$tmp/o.json")"
$T "$NDD" compare --raw --exact --json "$tmp/big.txt" "$tmp/art1.txt" >"$tmp/o.json" || fail "100 MB --raw --exact exit $?"
json "$tmp/o.json" 'j["hit_cost_limit"] and j["d"] is None and not j["duplicate"]' ||
  fail "100 MB --raw --exact must stop at the cost limit: $(cat "$tmp/o.json")"
$T "$NDD" compare --raw --exact "$tmp/big.txt" "$tmp/art1.txt" >"$tmp/rep" || fail "exit $?"
grep -q "cost limit" "$tmp/rep" || fail "the report must say the cost limit stopped the run"
$T "$NDD" compare --raw --json "$tmp/big.txt" "$tmp/art1.txt" >"$tmp/o.json" || fail "100 MB --raw exit $?"
json "$tmp/o.json" 'j["len_a"]>=100*1024*1024 and not j["duplicate"]' || fail "100 MB --raw: $(cat "$tmp/o.json")"
echo "OK: ndd compare CLI"

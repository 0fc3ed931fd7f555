#!/usr/bin/env bash
# e2e: 'ndd sig' gives byte-identical output (text and --json) and rejects for
# 1, 2, 3 and 4 ranks; the JSON lines parse; --help exits 0, bad usage 2.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# --- usage
"$NDD" sig --help >"$tmp/help" || fail "--help exit $?"
for opt in --json --format -m -n -k --max-doc-bytes --boilerplate --rejects --output; do
  grep -q -- "$opt" "$tmp/help" || fail "--help does not list $opt"
done
"$NDD" sig --no-such-option x 2>/dev/null; [ $? -eq 2 ] || fail "bad option must exit 2"
"$NDD" sig -n 17 x 2>/dev/null; [ $? -eq 2 ] || fail "-n 17 must exit 2"
"$NDD" sig 2>/dev/null; [ $? -eq 2 ] || fail "no input must exit 2"
"$NDD" sig "$tmp/does-not-exist" 2>/dev/null; [ $? -eq 1 ] || fail "missing input must exit 1"

# --- a small corpus of our own: several files of different sizes and formats
mkdir -p "$tmp/corpus/site"
para='The committee met on Tuesday to review the budget for the coming year. Members agreed that spending on roads should rise by four percent; schools get two percent more. A final vote is expected next month, after a public hearing in the town hall.'
for i in 1 2 3 4 5 6; do
  {
    echo "<html><head><title>Page $i</title></head><body>"
    echo "<nav><a href=/>Home</a> <a href=/news>News</a> <a href=/about>About</a></nav>"
    for j in $(seq 1 $((i * 3))); do echo "<p>Paragraph $j of page $i. $para</p>"; done
    echo "<footer>Copyright 2024 The Example Gazette, all rights reserved.</footer></body></html>"
  } >"$tmp/corpus/site/page$i.html"
done
for i in 1 2 3; do
  for j in $(seq 1 $((i * 40))); do echo "Line $j of note $i says something long enough to be a sentence. $para"; done >"$tmp/corpus/note$i.txt"
done
{
  printf '{"id":"q\\"uote\\\\back\\tslash","url":"http://example.com/a?b=1&c=\\u00e9","text":"%s Extra one."}\n' "$para"
  echo '{"id": 2, "text": "too short"}'
  echo 'this line is not JSON at all'
  printf '{"id":"d4","html":"<p>%s</p><p>Second paragraph has enough words to count.</p>"}\n' "$para"
  printf '{"id":"d5","text":"%s %s"}\n' "$para" "$para"
} >"$tmp/corpus/records.jsonl"
inputs=("$tmp/corpus")
if [ -d "${NDD_DATASETS:-/nonexistent}/warc" ]; then
  inputs+=("$NDD_DATASETS/warc/sample-0000.warc.gz" "$NDD_DATASETS/warc/cc_en_head-0174.jsonl.gz")
else
  echo "note: real WARC files absent, using the generated corpus only"
fi

for mode in text json; do
  args=()
  [ $mode = json ] && args=(--json)
  for p in 1 2 3 4; do
    mpirun -n $p "$NDD" sig "${args[@]}" --rejects "$tmp/rej.$mode.$p" "${inputs[@]}" \
      >"$tmp/out.$mode.$p" 2>"$tmp/err.$mode.$p" || { cat "$tmp/err.$mode.$p"; fail "$mode, $p ranks: exit $?"; }
  done
  [ -s "$tmp/out.$mode.1" ] || fail "$mode: empty output"
  for p in 2 3 4; do
    cmp -s "$tmp/out.$mode.1" "$tmp/out.$mode.$p" || fail "$mode: output for $p ranks differs from 1 rank"
    cmp -s "$tmp/rej.$mode.1" "$tmp/rej.$mode.$p" || fail "$mode: rejects for $p ranks differ from 1 rank"
  done
done

# contents: every document of the generated corpus is there, in input order
ndocs=$(grep -c '^doc ' "$tmp/out.text.1")
[ "$ndocs" -ge 12 ] || fail "expected at least 12 documents, got $ndocs"
grep -q 'malformed JSON\|invalid JSON\|JSON' "$tmp/rej.text.1" || fail "the broken JSONL line is not in the rejects"
head -1 "$tmp/rej.text.1" | grep -q '^file	record	offset	reason$' || fail "rejects header"
# W equals the number of sig lines of each document; slots ascend within a document
awk '/^doc /{ if (d) { if (n != w) exit 1 } d=1; n=0; last=-1; for (i=1;i<=NF;i++) if ($i ~ /^W=/) w=substr($i,3); next }
     /^sig /{ n++; if ($2 <= last) exit 2; last=$2; if (length($5) != 32) exit 3; next }
     { exit 4 }
     END { if (d && n != w) exit 1 }' "$tmp/out.text.1" || fail "text output malformed (awk rc $?)"
# 124 distinct sentences fill all 7 x 16 slots (an empty one has odds 112*(6/7)^124 < 1e-6);
# the short JSON record gets none
grep -q '^doc id=note3.txt .* W=112$' "$tmp/out.text.1" || fail "note3.txt should have W=112"
grep -q '^doc id=2 .*sentences=0 W=0$' "$tmp/out.text.1" || fail "record 2 should have no signature"
if command -v python3 >/dev/null; then
  python3 - "$tmp/out.json.1" "$tmp/out.text.1" <<'EOF' || fail "JSON output check"
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1], encoding='utf-8')]
text = [l for l in open(sys.argv[2], encoding='utf-8') if l.startswith('doc ')]
assert len(docs) == len(text), (len(docs), len(text))
ids = [d['id'] for d in docs]
assert 'q"uote\\back\tslash' in ids, ids[:5]
d = next(d for d in docs if d['id'] == 'q"uote\\back\tslash')
assert d['url'] == 'http://example.com/a?b=1&c=\u00e9', d['url']
for d in docs:
    assert d['W'] == len(d['signatures'])
    for s in d['signatures']:
        assert s['slot'] == s['r'] * 7 + s['c'] and len(s['bits']) == 32 and len(s['key']) == 16
EOF
fi
# parameters change the output: -m 3 -n 2 gives at most 6 signatures
"$NDD" sig -m 3 -n 2 "$tmp/corpus/site/page6.html" 2>/dev/null | grep -q '^doc .* W=6$' || fail "-m 3 -n 2"
echo "PASS: ndd sig identical for 1-4 ranks ($ndocs documents)"

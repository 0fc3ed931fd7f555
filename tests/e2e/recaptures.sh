#!/usr/bin/env bash
# e2e (issue 11): real re-captures of one URL. shared/datasets/warc/IAH-urls-wget.warc.gz
# holds https://archive.org/ captured twice, 3 seconds apart; the pages differ only in
# four rotating "Curator's Choice" snippets. ndd compare must call them duplicates in
# both text modes (and the paper's curve, --substitutions off, must not: the test can
# fail), and ndd run over every real crawl file must put both captures in one cluster.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
DATA=${NDD_DATASETS:-$(dirname "$0")/../../../shared/datasets}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
[ -f "$DATA/warc/IAH-urls-wget.warc.gz" ] || { echo "SKIP: $DATA/warc absent (real crawl files are needed)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
json() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; }

# the two HTML bodies of the archive.org captures
python3 - "$DATA/warc/IAH-urls-wget.warc.gz" "$tmp" <<'PY' || fail "cannot extract the captures"
import gzip, sys
data = gzip.open(sys.argv[1], "rb").read()
n = 0
for rec in data.split(b"WARC/1.0\r\n"):
    head = rec[:2000]
    if b"WARC-Type: response" in head and b"WARC-Target-URI: https://archive.org/\r" in head:
        parts = rec.split(b"\r\n\r\n", 2)
        n += 1
        open(f"{sys.argv[2]}/capture{n}.html", "wb").write(parts[2] if len(parts) > 2 else b"")
sys.exit(0 if n == 2 else 1)
PY

for bp in on off; do
  "$NDD" compare --json --boilerplate $bp "$tmp/capture1.html" "$tmp/capture2.html" > "$tmp/c-$bp.json" || fail "compare exit $?"
  json "$tmp/c-$bp.json" 'j["duplicate"] and j["resemblance"] >= 0.5' ||
    fail "archive.org captures (boilerplate $bp): not duplicate: $(cat "$tmp/c-$bp.json")"
  "$NDD" compare --json --boilerplate $bp --substitutions off "$tmp/capture1.html" "$tmp/capture2.html" > "$tmp/p-$bp.json"
  json "$tmp/p-$bp.json" 'not j["duplicate"] and j["tlcs"] < 200' ||
    fail "the paper's curve should collapse on these captures (boilerplate $bp): $(cat "$tmp/p-$bp.json")"
  echo "archive.org captures, boilerplate $bp: resemblance $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resemblance"])' "$tmp/c-$bp.json") (paper's curve: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["resemblance"])' "$tmp/p-$bp.json"))"
done

# the whole job over every real crawl file: both captures in one cluster
"$NDD" run -q --engine local:2 -o "$tmp/out" "$DATA"/warc/*.warc.gz || fail "ndd run exit $?"
python3 - "$tmp/out" <<'PY' || fail "the archive.org captures are not one cluster"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/clusters.tsv"), delimiter="\t"))
cl = [r["cluster"] for r in rows if r["url"] in ("https://archive.org/",)]
print(f"ndd run: {len(rows)} clustered documents; archive.org captures in clusters {cl}")
sys.exit(0 if len(cl) == 2 and cl[0] == cl[1] else 1)
PY
echo "recaptures: ok"

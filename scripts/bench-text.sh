#!/usr/bin/env bash
# Text-module benchmarks (src/text, docs/text.md). Prints its figures; the
# command and the figures measured go to docs/BENCHMARKS.md ("## Text
# extraction (bench-text)") and docs/text.md.
#
# usage: scripts/bench-text.sh
#   1. every HTML response of datasets/warc/*.warc.gz (51 pages, 1.96 MB):
#      word agreement of ndd's visible text with gumbo's (HTML5 parser), the
#      share of text boilerplate mode removes, and the speed of ndd's extractor
#      (plain, boilerplate, plain with the 10 KB limit) and of gumbo, measured
#      in the same run on the same pages
#   2. plain text: ndd_text_from_plain and ndd_text_sentences on the
#      zh-fortunes files and the Clough texts
# env: BUILD (default build; needs the ndd_gumbo_text tool, i.e. libgumbo-dev),
#      REPEAT (default 50), NDD_DATASETS (default ../shared/datasets)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$root/build}
REPEAT=${REPEAT:-50}
DATA=${NDD_DATASETS:-$root/../shared/datasets}
tool=$BUILD/ndd_gumbo_text
if [ ! -x "$tool" ]; then
  bash "$root/scripts/build.sh" "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
[ -x "$tool" ] || { echo "ndd_gumbo_text not built (libgumbo-dev missing?)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== HTML: ndd vs gumbo on the real crawl pages (repeat $REPEAT; gumbo repeat $((REPEAT / 10)))"
n=$(python3 "$root/tests/tools/ndd_warc_html.py" "$tmp/pages" "$DATA"/warc/*.warc.gz)
echo "pages extracted: $n"
"$tool" --compare --repeat "$REPEAT" "$tmp"/pages/page-*.html | grep -v '^page '

echo "== plain text: zh-fortunes (chinese, tang300, song100) and Clough (100 texts)"
"$tool" --bench-plain --repeat "$REPEAT" "$DATA"/zh-fortunes/chinese "$DATA"/zh-fortunes/tang300 "$DATA"/zh-fortunes/song100
"$tool" --bench-plain --repeat "$REPEAT" "$DATA"/clough/*.txt

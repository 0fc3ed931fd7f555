#!/usr/bin/env bash
# Flow mode (issue 15 item 3, paper 003): documents per second and memory per hour
# segment on Reuters-21578 as a timestamped stream (its <DATE> stamps, via
# scripts/reuters2jsonl.py --dates), q-gram vs TLCS measures. docs/BENCHMARKS.md.
#   scripts/bench-flow.sh [NDD_BIN] [WORKDIR]
# Runs (one process each, one after the other):
#   qgram-asis    the stories in file order (Reuters' files are not in time order:
#                 stories up to 2 days behind the clock are 'late')
#   qgram         the stories sorted by date (stable): the feed as it would arrive
#   qgram-72h     the same, --window 72h
#   qgram-bitmap  the same with the paper's bitmaps (--index bitmap)
#   tlcs          --measure tlcs on the q-gram candidates (--candidate-min 0.5)
#   qgram-4k, tlcs-all-4k, tlcs-4k   the first 4,000 sorted stories: doc_q, TLCS on
#                 every pair in the window (--candidate-min 0), TLCS on candidates
#   qgram-day, tlcs-day   the busiest day alone (1987-04-07, 853 stories), starting with
#                 an empty index: the shape of paper 003's experiment (744 items of 24 h)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ndd=${1:-$root/build/ndd}
w=${2:-$(mktemp -d)}
mkdir -p "$w"
python3 "$root/scripts/reuters2jsonl.py" --dates -o "$w/r.jsonl"
python3 - "$w" <<'EOF'
import json, sys
d = sys.argv[1]
lines = open(d + "/r.jsonl", encoding="utf-8").readlines()
lines.sort(key=lambda l: json.loads(l)["date"])  # stable: file order within a second
open(d + "/r-sorted.jsonl", "w", encoding="utf-8").writelines(lines)
open(d + "/r-sorted-4k.jsonl", "w", encoding="utf-8").writelines(lines[:4000])
open(d + "/r-day.jsonl", "w", encoding="utf-8").writelines(l for l in lines if json.loads(l)["date"][:10] == "1987-04-07")
EOF
run() { # name input options...
  local name=$1 in=$2
  shift 2
  /usr/bin/time -f "%M" -o "$w/$name.rss" "$ndd" flow -q --out "$w/$name.tsv" --stats "$w/$name.json" "$@" "$w/$in"
}
run qgram-asis r.jsonl
run qgram r-sorted.jsonl
run qgram-72h r-sorted.jsonl --window 72h
run qgram-bitmap r-sorted.jsonl --index bitmap
run tlcs r-sorted.jsonl --measure tlcs
run qgram-4k r-sorted-4k.jsonl
run tlcs-all-4k r-sorted-4k.jsonl --measure tlcs --candidate-min 0
run tlcs-4k r-sorted-4k.jsonl --measure tlcs
run qgram-day r-day.jsonl
run tlcs-day r-day.jsonl --measure tlcs
python3 - "$w" <<'EOF'
import json, sys
d = sys.argv[1]
print("| run | docs | s | docs/s | new | near-dup | late | pairs in window | TLCS runs | hours held (max) "
      "| largest hour: MiB (docs) | paper's bitmaps for it, MiB | all held, max MiB | peak RSS MiB | ms/doc |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for n in ("qgram-asis", "qgram", "qgram-72h", "qgram-bitmap", "tlcs", "qgram-4k", "tlcs-all-4k", "tlcs-4k", "qgram-day", "tlcs-day"):
    s = json.load(open("%s/%s.json" % (d, n)))
    rss = int(open("%s/%s.rss" % (d, n)).read().split()[-1]) / 1024
    print("| %s | %d | %.2f | %.0f | %d | %d | %d | %d | %d | %d | %.2f (%d) | %.2f | %.1f | %.1f | %.3f |" % (
        n, s["documents"], s["seconds"], s["documents_per_s"], s["new"], s["near_duplicate"], s["late"],
        s["pairs_in_window"], s["tlcs_runs"], s["segments_held_max"], s["segment_bytes_max"] / 2**20,
        s["segment_docs_max"], s["segment_bitmap_bytes_max"] / 2**20, s["bytes_held_max"] / 2**20, rss,
        1000 * s["seconds"] / s["documents"]))
EOF
echo "outputs in $w" >&2

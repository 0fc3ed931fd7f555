#!/usr/bin/env bash
# Speed of the corpus generator (datasets/gencrawl.py): generates SIZE of crawl from SOURCE
# in each FORMAT and prints the bytes written, CPU seconds (user+sys), MB per CPU-second,
# wall time and peak memory. The corpora are removed afterwards unless KEEP=1.
#   scripts/bench-gen.sh [SIZE=500MB] [SOURCE=reuters] [FORMATS="jsonl jsonl.gz warc.gz"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${1:-500MB}
SOURCE=${2:-reuters}
FORMATS=${3:-jsonl jsonl.gz warc.gz}
DS=${NDD_DATASETS:-$root/../shared/datasets}
if [ "$SOURCE" != builtin ] && [ ! -d "$DS" ]; then
  echo "bench-gen: SKIP: $DS not found (try: scripts/bench-gen.sh 2MB builtin)"
  exit 0
fi
tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
printf '%-10s %-9s %12s %12s %9s %10s %8s %9s\n' source format records_MB on_disk_MB cpu_s MB/cpu_s wall_s rss_MB
for fmt in $FORMATS; do
  out=$tmp/$fmt
  /usr/bin/time -f '%U %S %e %M' -o "$tmp/time" \
    python3 "$root/datasets/gencrawl.py" --source "$SOURCE" --datasets "$DS" --size "$SIZE" --seed 1 \
      --format "$fmt" -q -o "$out"
  read -r u s e m < "$tmp/time"
  python3 - "$out/manifest.json" "$SOURCE" "$fmt" "$u" "$s" "$e" "$m" <<'EOF'
import json, sys
man = json.load(open(sys.argv[1]))
u, s, e, m = map(float, sys.argv[4:8])
rec, disk = man["bytes"]["records"] / 1e6, man["bytes"]["on_disk"] / 1e6
print("%-10s %-9s %12.1f %12.1f %9.1f %10.1f %8.1f %9.0f" % (sys.argv[2], sys.argv[3], rec, disk, u + s,
      rec / (u + s), e, m / 1024))
EOF
done
ts=$(python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['template_share']['parsed']; print('%(pages)d pages parsed: min %(min).3f mean %(mean).3f max %(max).3f, out of range %(out_of_range)d' % t)" "$tmp/${FORMATS%% *}/manifest.json")
echo "template share ($SOURCE, $SIZE): $ts"

#!/usr/bin/env bash
# Signature-stage benchmark (paper 002 signatures, src/sig). Prints its
# figures; the command and the figures measured go to docs/BENCHMARKS.md
# ("## Signatures (bench-sig)").
#
# usage: scripts/bench-sig.sh
#   Generates a crawl-like corpus of SIZE bytes of HTML pages from real text
#   (datasets/gencrawl.py --source reuters: Reuters-21578 articles in site
#   templates) — or, when the generator is absent, plain-text documents made
#   of Reuters bodies — then runs tests/bench/bench_sig on it: per stage the
#   best of REPS timings (CPU time of one core) and the ratio of the
#   signature stage to the raw MD5 rate of the same library on the same
#   sentences (goal >= 0.50).
# env: SIZE (default 200MB), REPS (default 3), K (default: the library's),
#      BOILERPLATE (on|off, default: the library's), CORPUS (a directory to
#      reuse or create; default a temporary one), BUILD (build dir, default build/),
#      NDD_DATASETS (default ../shared/datasets)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SIZE=${SIZE:-200MB}
REPS=${REPS:-3}
DATA=${NDD_DATASETS:-$root/../shared/datasets}
BUILD=${BUILD:-$root/build}
if [ ! -d "$DATA/reuters21578" ]; then
  echo "bench-sig: $DATA/reuters21578 absent: skipped" >&2
  exit 77
fi
if [ ! -x "$BUILD/bench_sig" ]; then
  bash "$root/scripts/build.sh" "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
corpus=${CORPUS:-$tmp/corpus}

if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus" 2>/dev/null)" ]; then
  mkdir -p "$corpus"
  if [ -f "$root/datasets/gencrawl.py" ]; then
    echo "bench-sig: generating $SIZE of HTML pages (gencrawl.py --source reuters --seed 1) in $corpus" >&2
    python3 "$root/datasets/gencrawl.py" --source reuters --datasets "$DATA" --size "$SIZE" --seed 1 \
      --format jsonl -o "$corpus" -q
  else
    echo "bench-sig: datasets/gencrawl.py absent: $SIZE of plain-text documents from Reuters bodies" >&2
    python3 - "$DATA/reuters21578" "$SIZE" "$corpus/reuters-text.jsonl" <<'EOF'
import html, json, random, re, sys
src, size, out = sys.argv[1], sys.argv[2].upper().rstrip('B'), sys.argv[3]
mul = {'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}.get(size[-1:], 1)
limit = int(size.rstrip('KMG')) * mul
bodies = []
for k in range(22):
    s = open('%s/reut2-%03d.sgm' % (src, k), encoding='latin-1').read()
    for m in re.finditer(r'<BODY>(.*?)</BODY>', s, re.S):
        b = re.sub(r'&#\d+;', '', html.unescape(m.group(1))).strip()
        if len(b) >= 200:
            bodies.append(b)
rnd = random.Random(1)
n = total = 0
with open(out, 'w', encoding='utf-8') as f:
    while total < limit:
        # a document: 1-6 real bodies (web pages are longer than news briefs)
        text = '\n\n'.join(rnd.choice(bodies) for _ in range(rnd.randint(1, 6)))
        line = json.dumps({'id': 'r%08d' % n, 'text': text}) + '\n'
        f.write(line)
        total += len(line)
        n += 1
EOF
  fi
fi

args=(-r "$REPS")
[ -n "${K:-}" ] && args+=(-k "$K")
[ -n "${BOILERPLATE:-}" ] && args+=(--boilerplate "$BOILERPLATE")
inputs=$(find "$corpus" -maxdepth 1 -name '*.jsonl*' | sort)
echo "bench-sig: $(du -sh "$corpus" | cut -f1) in $corpus; $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
# shellcheck disable=SC2086
"$BUILD/bench_sig" "${args[@]}" $inputs

#!/usr/bin/env bash
# Signature-stage benchmark (paper 002 signatures, src/sig). Prints its
# figures; the command and the figures measured go to docs/BENCHMARKS.md
# ("## Signatures (bench-sig)").
#
# usage: scripts/bench-sig.sh [speed|quality]      (default: speed)
# speed:
#   Generates a crawl-like corpus of SIZE bytes of HTML pages from real text
#   (datasets/gencrawl.py --source reuters: Reuters-21578 articles in site
#   templates) — or, when the generator is absent, plain-text documents made
#   of Reuters bodies — then runs tests/bench/bench_sig on it: per stage the
#   best of REPS timings (CPU time of one core) and the ratio of the
#   signature stage to the raw MD5 rate of the same library on the same
#   sentences (goal >= 0.50).
# quality:
#   On a gencrawl corpus of QSIZE (default 20MB; gold clusters known), runs
#   'ndd sig --json' for k = 1, 2, 3, 4, all and boilerplate on/off and prints,
#   for duplicate pairs (same gold cluster) and for non-duplicate pairs on the
#   same site: mean share of common signatures, share of pairs with >= 1
#   common signature, and the same after dropping signatures held by more
#   than MAXDF (default 10) documents (a stand-in for the postings filter).
# env: SIZE (default 200MB), REPS (default 3), K (default: the library's),
#      BOILERPLATE (on|off, default: the library's), CORPUS (a directory to
#      reuse or create; default a temporary one), BUILD (build dir, default build/),
#      NDD_DATASETS (default ../shared/datasets)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-speed}
SIZE=${SIZE:-200MB}
REPS=${REPS:-3}
DATA=${NDD_DATASETS:-$root/../shared/datasets}
BUILD=${BUILD:-$root/build}
if [ ! -d "$DATA/reuters21578" ]; then
  echo "bench-sig: $DATA/reuters21578 absent: skipped" >&2
  exit 77
fi
if [ ! -x "$BUILD/bench_sig" ] || [ ! -x "$BUILD/ndd" ]; then
  bash "$root/scripts/build.sh" "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$mode" = quality ]; then
  if [ ! -f "$root/datasets/gencrawl.py" ]; then
    echo "bench-sig: datasets/gencrawl.py absent: skipped" >&2
    exit 77
  fi
  qc=$tmp/qcorpus
  python3 "$root/datasets/gencrawl.py" --source reuters --datasets "$DATA" --size "${QSIZE:-20MB}" --seed 1 \
    --format jsonl -o "$qc" -q
  echo "bench-sig quality: gencrawl --source reuters --size ${QSIZE:-20MB} --seed 1; pairs from edits.tsv"
  for bp in on off; do
    for k in 1 2 3 4 0; do
      "$BUILD/ndd" sig --json -k "$k" --boilerplate "$bp" "$qc"/*.jsonl >"$tmp/sig.json" 2>/dev/null
      printf 'boilerplate=%s k=%s: ' "$bp" "$([ "$k" = 0 ] && echo all || echo "$k")"
      python3 - "$tmp/sig.json" "$qc/edits.tsv" "${MAXDF:-10}" <<'EOF'
import collections, itertools, json, sys
sigfile, gold, maxdf = sys.argv[1], sys.argv[2], int(sys.argv[3])
cl, site = {}, {}
for line in open(gold, encoding='utf-8'):
    if line.startswith('#'):
        continue
    f = line.rstrip('\n').split('\t')
    cl[f[0]] = f[1] if f[1] != '-' else 'single-' + f[0]
    site[f[0]] = f[2]
docs = {}
for line in open(sigfile, encoding='utf-8'):
    d = json.loads(line)
    docs[d['id']] = set(s['key'] for s in d['signatures'])
df = collections.Counter(k for s in docs.values() for k in s)
drop = {k for k, c in df.items() if c > maxdf}
bycl, bysite = collections.defaultdict(list), collections.defaultdict(list)
for i in docs:
    bycl[cl[i]].append(i)
    bysite[site[i]].append(i)
def stats(pairs):
    n = sh = any_ = anyf = 0
    for a, b in pairs:
        A, B = docs[a], docs[b]
        c, w = len(A & B), (len(A) + len(B)) / 2
        n += 1
        sh += c / w if w else 0
        any_ += c > 0
        anyf += len((A & B) - drop) > 0
    return n, 100 * sh / n, 100 * any_ / n, 100 * anyf / n
dup = [p for m in bycl.values() for p in itertools.combinations(sorted(m), 2)]
non = [(a, b) for m in bysite.values() for a, b in itertools.combinations(sorted(m), 2) if cl[a] != cl[b]]
d, o = stats(dup), stats(non)
print('duplicates (%d pairs) share %.1f %%, >=1 common %.1f %% (after df filter %.1f %%); '
      'same-site non-duplicates (%d pairs) share %.1f %%, >=1 common %.1f %% (after df filter %.1f %%)' % (d + o))
EOF
    done
  done
  exit 0
fi
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
echo "bench-sig: $(du -sh "$corpus" | cut -f1) in $corpus; $("$root/scripts/cpu-info.sh")"
# shellcheck disable=SC2086
"$BUILD/bench_sig" "${args[@]}" $inputs

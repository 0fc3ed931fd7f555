#!/usr/bin/env bash
# SigNCD benchmarks and measurements (paper 000). Prints its figures; the
# commands and the figures measured go to docs/BENCHMARKS.md ("## SigNCD
# (bench-ncd)") and docs/signcd.md.
#
# usage: scripts/bench-ncd.sh [speed|level|clough|literals|exact|cjk|all]   (default: speed)
#   speed   all-pairs SigNCD vs whole-document NCD on N Reuters-21578 bodies,
#           with and without pruning, in one run: wall-time ratios and the
#           comparisons pruned by P1 / P2
#   level   zstd level sweep: all-pairs time on the same corpus + Clough quality
#   clough  Clough & Stevenson: mean SigNCD per category (answer vs its source),
#           precision / recall of reuse vs non at tau 0.7 and at the best tau,
#           for SigNCD and whole-text NCD
#   literals zstd with raw literals (ours) vs Huffman-coded literals (zstd's
#           default): pairs found on the Reuters corpus, Clough quality
#   exact   on the Reuters corpus: recall of the pairs of identical bodies (the
#           only ground truth Reuters has) by SigNCD and whole-document NCD
#   cjk     zh-fortunes: entries + edited copies, CJK rule K = 1,2,3,4,6,unbounded:
#           spots per entry, signature size, recall of copies / false pairs at tau 0.7
# env: NDD_BIN (default build/ndd, built if absent), N (default 3000 documents),
#      NDD_DATASETS (default ../shared/datasets), RANKS (default 1: mpirun -n RANKS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-speed}
N=${N:-3000}
RANKS=${RANKS:-1}
DATA=${NDD_DATASETS:-$root/../shared/datasets}
NDD_BIN=${NDD_BIN:-$root/build/ndd}
if [ ! -x "$NDD_BIN" ]; then
  bash "$root/scripts/build.sh" "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
  NDD_BIN=$root/build/ndd
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run_ndd() { # run_ndd OUTDIR args... ; prints nothing, leaves OUTDIR/{pairs.tsv,stats.json}
  local out=$1; shift
  if [ "$RANKS" -gt 1 ]; then
    mpirun -n "$RANKS" --oversubscribe "$NDD_BIN" signcd -o "$out" "$@" 2>"$out.log"
  else
    "$NDD_BIN" signcd -o "$out" "$@" 2>"$out.log"
  fi
}

stat() { # stat DIR key
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]+"/stats.json"))[sys.argv[2]])' "$1" "$2"
}

need() {
  if [ ! -e "$DATA/$1" ]; then
    echo "bench-ncd: dataset $DATA/$1 absent: skipped" >&2
    exit 77
  fi
}

# Reuters-21578 bodies -> JSONL (first N non-empty bodies in file order; id = NEWID)
reuters_jsonl() {
  need reuters21578
  python3 - "$DATA/reuters21578" "$N" >"$tmp/reuters.jsonl" <<'EOF'
import html, json, re, sys
d, n = sys.argv[1], int(sys.argv[2])
out = 0
for k in range(22):
    s = open('%s/reut2-%03d.sgm' % (d, k), encoding='latin-1').read()
    for m in re.finditer(r'<REUTERS[^>]*NEWID="(\d+)"[^>]*>(.*?)</REUTERS>', s, re.S):
        b = re.search(r'<BODY>(.*?)</BODY>', m.group(2), re.S)
        if not b:
            continue
        body = html.unescape(b.group(1)).replace('\x03', '').strip()
        if not body:
            continue
        print(json.dumps({'id': 'reuters-' + m.group(1), 'text': body}, ensure_ascii=False))
        out += 1
        if out >= n:
            sys.exit(0)
EOF
  echo "corpus: $(wc -l <"$tmp/reuters.jsonl") Reuters-21578 bodies, $(wc -c <"$tmp/reuters.jsonl") bytes of JSONL"
}

# Clough -> JSONL (id = file name; Latin-1 files decoded as such)
clough_jsonl() {
  need clough
  python3 - "$DATA/clough" >"$tmp/clough.jsonl" <<'EOF'
import csv, json, sys
d = sys.argv[1]
for row in csv.DictReader(open(d + '/file_information.csv')):
    raw = open(d + '/' + row['File'], 'rb').read()
    try:
        t = raw.decode('utf-8')
    except UnicodeDecodeError:
        t = raw.decode('latin-1')
    print(json.dumps({'id': row['File'], 'text': t}, ensure_ascii=False))
EOF
}

clough_eval() { # clough_eval DIR label  (DIR from a --tau 1 run: every pair)
  python3 - "$DATA/clough" "$1/pairs.tsv" "$2" <<'EOF'
import csv, sys
d, pairs, label = sys.argv[1], sys.argv[2], sys.argv[3]
info = {r['File']: (r['Task'], r['Category']) for r in csv.DictReader(open(d + '/file_information.csv'))}
ncd = {}
for line in open(pairs):
    a, b, v = line.rstrip('\n').split('\t')
    ncd[(a, b)] = ncd[(b, a)] = float(v)
vals = []
for f, (task, cat) in info.items():
    if cat == 'orig':
        continue
    vals.append((cat, ncd.get((f, 'orig_task%s.txt' % task), 1.0)))
cats = ['cut', 'light', 'heavy', 'non']
mean = {c: sum(v for k, v in vals if k == c) / sum(1 for k, v in vals if k == c) for c in cats}
def pr(t):
    tp = sum(1 for c, v in vals if c != 'non' and v <= t)
    fp = sum(1 for c, v in vals if c == 'non' and v <= t)
    fn = sum(1 for c, v in vals if c != 'non' and v > t)
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn)
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)
best = max((pr(t / 100.0)[2], t / 100.0) for t in range(1, 101))
p7, r7, f7 = pr(0.7)
pb, rb, fb = pr(best[1])
order = 'yes' if mean['cut'] < mean['light'] < mean['heavy'] < mean['non'] else 'NO'
print('%-22s mean cut %.3f light %.3f heavy %.3f non %.3f (ordered: %s) | tau 0.70: P %.3f R %.3f F1 %.3f | best tau %.2f: P %.3f R %.3f F1 %.3f'
      % (label, mean['cut'], mean['light'], mean['heavy'], mean['non'], order, p7, r7, f7, best[1], pb, rb, fb))
EOF
}

do_speed() {
  reuters_jsonl
  local c="$tmp/reuters.jsonl"
  echo "ranks: $RANKS; tau 0.7; ndd: $NDD_BIN"
  echo "wall = elapsed seconds of the command; cpu = CPU seconds of all its ranks (robust to a loaded machine)"
  printf '%-36s %8s %8s %10s %10s %10s %7s %8s\n' run wall cpu compared "pruned P1" "pruned P2" found "sig/text"
  local runs="sig_p1 sig_p1p2 sig_p1p2all sig_none ncd_p1 ncd_p1p2 ncd_none"
  for spec in "sig_p1::" "sig_p1p2:--p2:" "sig_p1p2all:--p2 --p2-block $N:" "sig_none:--no-p1:" "ncd_p1:--no-signature:" "ncd_p1p2:--no-signature --p2:" "ncd_none:--no-signature --no-p1:"; do
    local name=${spec%%:*} args=${spec#*:}
    args=${args%:}
    # shellcheck disable=SC2086
    run_ndd "$tmp/$name" $args "$c"
    python3 - "$tmp/$name/stats.json" "$name (${args:-defaults})" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
print('%-36s %8.2f %8.2f %10d %10d %10d %7d %7.1f%%' % (sys.argv[2], s['time_total_s'], s['cpu_s'], s['compared'],
      s['pruned_p1'], s['pruned_p2'], s['found'], 100.0 * s['sig_bytes'] / max(s['text_bytes'], 1)))
EOF
  done
  # shellcheck disable=SC2086
  python3 - "$tmp" $runs <<'EOF'
import json, sys
d = sys.argv[1]
st = {r: json.load(open('%s/%s/stats.json' % (d, r))) for r in sys.argv[2:]}
def ratio(a, b, k):
    return st[a][k] / max(st[b][k], 1e-9)
print('ratios (same run, same corpus):                                       wall      cpu')
for a, b, what in (('ncd_none', 'sig_p1', 'NCD without pruning / SigNCD w/ P1 (paper 000, Gold Set: 7.3x)'),
                   ('ncd_p1', 'sig_p1', 'NCD w/ P1 / SigNCD w/ P1'),
                   ('sig_none', 'sig_p1', 'SigNCD w/o pruning / SigNCD w/ P1 (gain of P1)'),
                   ('sig_p1', 'sig_p1p2', 'SigNCD w/ P1 / SigNCD w/ P1+P2 (gain of P2, block 64)'),
                   ('sig_p1', 'sig_p1p2all', 'SigNCD w/ P1 / SigNCD w/ P1+P2 (P2 with all earlier rows)'),
                   ('ncd_p1', 'ncd_p1p2', 'NCD w/ P1 / NCD w/ P1+P2')):
    print('  %-66s %6.2fx %6.2fx' % (what, ratio(a, b, 'time_total_s'), ratio(a, b, 'cpu_s')))
p = st['sig_p1']
print('P1 prunes %.1f%% of the SigNCD pairs, %.1f%% of the NCD pairs; P2 (block 64) prunes %.2f%% more of the SigNCD pairs'
      % (100.0 * p['pruned_p1'] / p['pairs'], 100.0 * st['ncd_p1']['pruned_p1'] / p['pairs'],
         100.0 * st['sig_p1p2']['pruned_p2'] / p['pairs']))
EOF
  # pairs found by SigNCD vs by whole-document NCD (no ground truth on Reuters)
  python3 - "$tmp/sig_p1/pairs.tsv" "$tmp/ncd_p1/pairs.tsv" <<'EOF'
import sys
def load(p):
    return {tuple(l.split('\t')[:2]) for l in open(p)}
s, n = load(sys.argv[1]), load(sys.argv[2])
print('pairs with NCD <= 0.7: SigNCD %d, whole-document NCD %d, both %d' % (len(s), len(n), len(s & n)))
EOF
  cmp -s "$tmp/sig_p1/pairs.tsv" "$tmp/sig_p1p2/pairs.tsv" && echo "SigNCD P1+P2 pairs == P1 pairs: yes" || echo "SigNCD P1+P2 pairs == P1 pairs: NO"
  cmp -s "$tmp/sig_p1/pairs.tsv" "$tmp/sig_p1p2all/pairs.tsv" && echo "SigNCD P1+P2 (one block) pairs == P1 pairs: yes" || echo "SigNCD P1+P2 (one block) pairs == P1 pairs: NO"
  cmp -s "$tmp/ncd_p1/pairs.tsv" "$tmp/ncd_p1p2/pairs.tsv" && echo "NCD P1+P2 pairs == P1 pairs: yes" || echo "NCD P1+P2 pairs == P1 pairs: NO"
  cmp -s "$tmp/sig_p1/pairs.tsv" "$tmp/sig_none/pairs.tsv" && echo "SigNCD P1 pairs == brute-force pairs: yes" || echo "SigNCD P1 pairs == brute-force pairs: NO"
  cmp -s "$tmp/ncd_p1/pairs.tsv" "$tmp/ncd_none/pairs.tsv" && echo "NCD P1 pairs == brute-force pairs: yes" || echo "NCD P1 pairs == brute-force pairs: NO"
}

do_level() {
  reuters_jsonl
  clough_jsonl
  printf '%-6s %10s %10s\n' level "seconds" "found"
  for l in -5 -1 1 3 6 9 19; do
    run_ndd "$tmp/lv$l" --level "$l" "$tmp/reuters.jsonl"
    printf '%-6s %10s %10s\n' "$l" "$(stat "$tmp/lv$l" time_total_s)" "$(stat "$tmp/lv$l" found)"
  done
  for l in -5 -1 1 3 6 9 19; do
    run_ndd "$tmp/cl$l" --level "$l" --tau 1 "$tmp/clough.jsonl"
    clough_eval "$tmp/cl$l" "clough level $l"
  done
}

do_clough() {
  clough_jsonl
  run_ndd "$tmp/cl_sig" --tau 1 "$tmp/clough.jsonl"
  clough_eval "$tmp/cl_sig" "SigNCD"
  run_ndd "$tmp/cl_ncd" --tau 1 --no-signature "$tmp/clough.jsonl"
  clough_eval "$tmp/cl_ncd" "whole-text NCD"
}

do_literals() {
  reuters_jsonl
  clough_jsonl
  printf '%-50s %10s\n' run found
  for spec in "raw::" "huffman:--huffman-literals:" "raw_ncd:--no-signature:" "huffman_ncd:--no-signature --huffman-literals:"; do
    local name=${spec%%:*} args=${spec#*:}
    args=${args%:}
    # shellcheck disable=SC2086
    run_ndd "$tmp/lit_$name" $args "$tmp/reuters.jsonl"
    printf '%-50s %10s\n' "$name (${args:-defaults})" "$(stat "$tmp/lit_$name" found)"
  done
  run_ndd "$tmp/clh" --tau 1 --huffman-literals "$tmp/clough.jsonl"
  clough_eval "$tmp/clh" "SigNCD huffman"
  run_ndd "$tmp/clr" --tau 1 "$tmp/clough.jsonl"
  clough_eval "$tmp/clr" "SigNCD raw"
  run_ndd "$tmp/clhn" --tau 1 --no-signature --huffman-literals "$tmp/clough.jsonl"
  clough_eval "$tmp/clhn" "NCD huffman"
}

do_exact() {
  reuters_jsonl
  run_ndd "$tmp/ex_sig" "$tmp/reuters.jsonl"
  run_ndd "$tmp/ex_ncd" --no-signature "$tmp/reuters.jsonl"
  python3 - "$tmp/reuters.jsonl" "$tmp/ex_sig/pairs.tsv" "$tmp/ex_ncd/pairs.tsv" <<'EOF'
import collections, json, sys
groups = collections.defaultdict(list)
for line in open(sys.argv[1]):
    d = json.loads(line)
    groups[' '.join(d['text'].split())].append(d['id'])
exact = {frozenset((ks[i], ks[j])) for ks in groups.values() for i in range(len(ks)) for j in range(i + 1, len(ks))}
for label, path in (('SigNCD', sys.argv[2]), ('whole-document NCD', sys.argv[3])):
    found = {frozenset(l.split('\t')[:2]) for l in open(path)}
    print('%-20s tau 0.7: %d of %d pairs of identical bodies found; %d pairs found in all'
          % (label, len(exact & found), len(exact), len(found)))
EOF
}

do_cjk() {
  need zh-fortunes
  local M=${CJK_N:-1500}
  python3 - "$DATA/zh-fortunes" "$M" >"$tmp/zh.jsonl" <<'EOF'
import json, random, re, sys
d, m = sys.argv[1], int(sys.argv[2])
rng = random.Random(4)
entries = []
for f in ('chinese', 'tang300', 'song100'):
    t = open(d + '/' + f, encoding='utf-8').read()
    t = re.sub(r'\x1b\[[0-9;]*m', '', t)
    entries += [e.strip() for e in re.split(r'\n%\n', t) if len(e.strip().encode()) >= 60]
# the CJK rule only matters where the signature is used: >= 3 commas (fewer: whole entry)
spots = [sum(e.count(c) for c in '，、,﹐､') for e in entries]
print('entries >= 60 bytes: %d, with < 3 commas (signature = whole entry): %d (%.1f%%)'
      % (len(entries), sum(1 for s in spots if s < 3), 100.0 * sum(1 for s in spots if s < 3) / len(entries)), file=sys.stderr)
entries = [e for e, s in zip(entries, spots) if s >= 3]
rng.shuffle(entries)
entries = entries[:m]
han = [c for e in entries for c in e if '\u4e00' <= c <= '\u9fff']
for i, e in enumerate(entries):
    print(json.dumps({'id': 'e%05d' % i, 'text': e}, ensure_ascii=False))
    # edited copy: each Han character deleted with p 0.05, replaced with p 0.05
    out = []
    for c in e:
        r = rng.random()
        if '\u4e00' <= c <= '\u9fff' and r < 0.05:
            continue
        out.append(rng.choice(han) if '\u4e00' <= c <= '\u9fff' and r < 0.10 else c)
    print(json.dumps({'id': 'e%05d-copy' % i, 'text': ''.join(out)}, ensure_ascii=False))
EOF
  echo "corpus: $M zh-fortunes entries (>= 60 bytes, >= 3 commas, shuffled) + one edited copy each (5% Han chars deleted, 5% replaced)"
  printf '%-10s %10s %12s %14s %14s %10s\n' K "sig/text" "seconds" "copies found" "other pairs" precision
  for K in 1 2 3 4 6 100000; do
    run_ndd "$tmp/zh$K" --cjk-chars "$K" "$tmp/zh.jsonl"
    python3 - "$tmp/zh$K" "$K" "$M" <<'EOF'
import json, sys
d, k, m = sys.argv[1], sys.argv[2], int(sys.argv[3])
st = json.load(open(d + '/stats.json'))
tp = fp = 0
for line in open(d + '/pairs.tsv'):
    a, b, v = line.rstrip('\n').split('\t')
    if a.replace('-copy', '') == b.replace('-copy', ''):
        tp += 1
    else:
        fp += 1
print('%-10s %9.1f%% %12.3f %8d/%-5d %14d %10.4f' % (k if k != '100000' else 'unbounded', 100.0 * st['sig_bytes'] / st['text_bytes'],
      st['time_total_s'], tp, m, fp, tp / max(tp + fp, 1)))
EOF
  done
}

case "$mode" in
  speed) do_speed ;;
  level) do_level ;;
  clough) do_clough ;;
  literals) do_literals ;;
  exact) do_exact ;;
  cjk) do_cjk ;;
  all) do_speed; echo; do_exact; echo; do_clough; echo; do_literals; echo; do_cjk; echo; do_level ;;
  *) echo "usage: $0 [speed|level|clough|literals|exact|cjk|all]" >&2; exit 2 ;;
esac

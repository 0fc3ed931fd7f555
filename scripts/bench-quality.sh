#!/usr/bin/env bash
# Quality table (issue 7): every method inside the same ndd run pipeline, on the
# generated crawl-like benchmark (English from Reuters, Chinese from the
# fortunes) and on Clough, at its documented default and at its best threshold
# (a sweep over the stored pair scores: runs use --verify-all so the sweep is
# exact): pair precision, recall, F1, ARI, wall time and peak memory per rank.
# Each method runs on the HTML pages with boilerplate removal (ndd's default),
# on the same HTML with --boilerplate off (ndd's extraction of the whole page),
# and on PAGE TEXT: the same pages as text with templates in, one block per
# line, written by datasets/pagetext.py with an extractor independent of ndd
# (JSONL "text"; en also as WET conversion records): what users of WET files
# and extracted-text JSONL have (issue 11).
#   SIZE_EN=20MB SIZE_ZH=5MB RANKS=2 BENCH_DIR=/tmp/ndd-quality BUILD=build
#   METHODS="tlcs signcd" CORPORA="en en-text" (default: all methods, all corpora:
#   methods include lsi and tlcs+lsi: paper 001's LSI alone and combined with TLCS, docs/lsi.md;
#   en en-text en-wet zh zh-text clough)
#   ENGINE=mpi|local (default mpi: mpirun -n RANKS; local: --engine local:RANKS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SIZE_EN=${SIZE_EN:-20MB}
SIZE_ZH=${SIZE_ZH:-5MB}
RANKS=${RANKS:-2}
BENCH_DIR=${BENCH_DIR:-/tmp/ndd-quality}
BUILD=${BUILD:-$root/build}
data="$root/../shared/datasets"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -d "$data/reuters21578" ] || { echo "bench-quality: $data absent (real text is needed); skipping"; exit 0; }
if [ ! -x "$BUILD/ndd" ]; then
  cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$BUILD" -j "$(nproc)" >/dev/null
fi
ndd=$BUILD/ndd
mkdir -p "$BENCH_DIR"
gen() { # name source size
  [ -f "$BENCH_DIR/$1/manifest.json" ] || python3 "$root/datasets/gencrawl.py" --source "$2" --size "$3" --seed 2 -q -o "$BENCH_DIR/$1"
}
gen en reuters "$SIZE_EN"
gen zh zh "$SIZE_ZH"
# page text of the same pages (templates in), independent extractor
pagetext() { # name source-dir format
  [ -f "$BENCH_DIR/$1/gold.tsv" ] || python3 "$root/datasets/pagetext.py" --format "$3" "$BENCH_DIR/$2" "$BENCH_DIR/$1"
}
pagetext en-text en jsonl
pagetext en-wet en wet
pagetext zh-text zh jsonl
# Clough: each answer of category cut/light/heavy is a reuse of orig_task<x>.txt
if [ ! -f "$BENCH_DIR/clough-gold.tsv" ]; then
  python3 - "$data/clough" "$BENCH_DIR/clough-gold.tsv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/file_information.csv")))
with open(sys.argv[2], "w") as f:
    for t in sorted({r["Task"] for r in rows}):
        members = [r["File"] for r in rows if r["Task"] == t and r["Category"] in ("cut", "light", "heavy")]
        if members:
            for m in ["orig_task%s.txt" % t] + members:
                f.write("%s\ttask-%s\n" % (m, t))
PY
fi

all_methods="tlcs:sentence:tlcs:resemblance=0.05:0.95:0.05 signcd:sentence:signcd:ncd=0.30:0.95:0.05 cosine:sentence:cosine:score=0.50:1.00:0.025 simhash:simhash:simhash:score=48:64:1 minhash:minhash:minhash:score=0.10:0.95:0.05 spotsigs:spotsigs:spotsigs:score=0.10:0.95:0.05 qgram:qgram:qgram:score=0.10:0.95:0.05 imatch:imatch:imatch:score=1:1:1 lsi:sentence:lsi:score=0.10:0.99:0.01 tlcs+lsi:sentence:tlcs+lsi:resemblance=0.05:0.95:0.05"
methods=""
for m in $all_methods; do
  [ -z "${METHODS:-}" ] || [[ " $METHODS " == *" ${m%%:*} "* ]] && methods+=" $m"
done
CORPORA=${CORPORA:-en en-text en-wet zh zh-text clough}
ENGINE=${ENGINE:-mpi}
run_ndd() {
  if [ "$ENGINE" = local ]; then "$ndd" run --engine "local:$RANKS" "$@"
  else mpirun -n "$RANKS" --oversubscribe "$ndd" run "$@"; fi
}
echo "| corpus | text | method (candidates + verifier) | P | R | F1 | ARI | P same-site / cross-site (pairs) | best threshold | best P | best R | best F1 | wall s | peak RSS MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
for corpus in $CORPORA; do
  case $corpus in
    en|zh) inputs=("$BENCH_DIR/$corpus"/crawl-*); gold="$BENCH_DIR/$corpus/gold.tsv"; texts="html-boilerplate-removed html-whole-page" ;;
    en-text|zh-text) inputs=("$BENCH_DIR/$corpus"/crawl-*); gold="$BENCH_DIR/$corpus/gold.tsv"; texts="page-text-jsonl" ;;
    en-wet) inputs=("$BENCH_DIR/$corpus"/crawl-*); gold="$BENCH_DIR/$corpus/gold.tsv"; texts="page-text-wet" ;;
    clough) inputs=("$data/clough"); gold="$BENCH_DIR/clough-gold.tsv"; texts="plain" ;;
    *) echo "bench-quality: unknown corpus $corpus" >&2; exit 2 ;;
  esac
  for text in $texts; do
    case $text in html-whole-page) topt=(--boilerplate off) ;; *) topt=() ;; esac
    [ $corpus = zh ] && topt+=(--soft-wrap on)
    for m in $methods; do
      IFS=: read -r name cand ver sweep <<<"$m"
      out="$BENCH_DIR/out-$corpus-$text-$name"
      rm -rf "$out"
      run_ndd -q --verify-all --candidates "$cand" --verifier "$ver" "${topt[@]}" -o "$out" "${inputs[@]}" 2>/dev/null
      "$ndd" eval --json --gold "$gold" "$out" > "$out/eval.json"
      "$ndd" eval --json --gold "$gold" --sweep "$sweep" "$out" > "$out/sweep.json"
      python3 - "$corpus" "$text" "$name ($cand + $ver)" "$out" "$gold" <<'PY'
import collections, json, sys
corpus, text, name, out, goldf = sys.argv[1:6]
e = json.load(open(out + "/eval.json")); sw = json.load(open(out + "/sweep.json")); st = json.load(open(out + "/stats.json"))
best = max(sw["points"], key=lambda p: (p["f1"], -abs(p["threshold"])))
rss = max(r["peak_rss_kib"] for r in st["per_rank"]) / 1024
# precision of the predicted pairs whose two pages are on one site vs on two sites (paper 002's comparison)
gold = {}
for line in open(goldf):
    a = line.rstrip("\n").split("\t")
    if len(a) >= 2: gold[a[0]] = a[1]
cl = collections.defaultdict(list)
for line in list(open(out + "/clusters.tsv"))[1:]:
    a = line.rstrip("\n").split("\t")
    host = a[3].split("/")[2] if a[3].count("/") >= 2 else ""
    cl[a[1]].append((a[0], host))
cnt = {True: [0, 0], False: [0, 0]}
for members in cl.values():
    for i in range(len(members)):
        for j in range(i + 1, len(members)):
            (x, hx), (y, hy) = members[i], members[j]
            same = bool(hx) and hx == hy
            cnt[same][0] += 1
            cnt[same][1] += gold.get(x) is not None and gold.get(x) == gold.get(y)
def prec(c): return f"{c[1] / c[0]:.3f} ({c[0]})" if c[0] else "- (0)"
print(f"| {corpus} | {text} | {name} | {e['precision']:.3f} | {e['recall']:.3f} | {e['f1']:.3f} | {e['ari']:.3f} | "
      f"{prec(cnt[True])} / {prec(cnt[False])} | "
      f"{sw['sweep']} {best['threshold']:g} | {best['precision']:.3f} | {best['recall']:.3f} | {best['f1']:.3f} | "
      f"{st['wall_seconds']:.2f} | {rss:.0f} |")
PY
    done
  done
done

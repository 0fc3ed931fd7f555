#!/usr/bin/env bash
# LSI benchmark (issue 16, docs/lsi.md): paper 001's conceptual duplicates on
# real reuse corpora.
#   Clough & Stevenson: the gold clusters are each Wikipedia source with its
#     reuses (cut, light, heavy revision); independent answers (non) are in no
#     cluster. Pair precision / recall / F1 (ndd eval) for --verifier lsi,
#     tlcs+lsi and tlcs, on the corpus as JSONL (Latin-1 files decoded:
#     datasets/clough2jsonl.py) and on the directory as it is (17 Latin-1 files
#     rejected as invalid UTF-8, as in scripts/bench-quality.sh). Per category:
#     the share of answers in their source's cluster.
#   idpan (PAN-2011 format, Indonesian): 94 reuse cases (a passage of a source
#     document in a suspicious document), recall per obfuscation type: a case
#     counts as found when its suspicious and source documents end in one
#     cluster. Run with the default --max-doc-bytes and with the whole documents.
#   RANKS=2 BUILD=build OUT=/tmp/ndd-lsi-bench   (in-process ranks: --engine local:RANKS)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
RANKS=${RANKS:-2}
BUILD=${BUILD:-$root/build}
OUT=${OUT:-/tmp/ndd-lsi-bench}
data="$root/../shared/datasets"
ndd=$BUILD/ndd
[ -d "$data/clough" ] || { echo "bench-lsi: $data/clough absent; skipping"; exit 0; }
mkdir -p "$OUT"
python3 "$root/datasets/clough2jsonl.py" "$data/clough" "$OUT/clough.jsonl" "$OUT/clough-gold.tsv"

echo "| corpus | input | verifier | P | R | F1 | accepted by tlcs / lsi | cut / light / heavy / non in the source's cluster | wall s |"
echo "|---|---|---|---|---|---|---|---|---|"
for input in jsonl dir; do
  src="$OUT/clough.jsonl"; [ $input = dir ] && src="$data/clough"
  for v in lsi tlcs+lsi tlcs; do
    o="$OUT/clough-$input-$v"
    rm -rf "$o"
    "$ndd" run --engine "local:$RANKS" -q --verifier "$v" -o "$o" "$src"
    "$ndd" eval --json --gold "$OUT/clough-gold.tsv" "$o" > "$o/eval.json"
    python3 - "$data/clough" "$o" "$input" "$v" <<'PY'
import csv, json, sys
src, o, inp, v = sys.argv[1:5]
e = json.load(open(o + "/eval.json")); st = json.load(open(o + "/stats.json"))
cl = {}
for line in list(open(o + "/clusters.tsv"))[1:]:
    a = line.rstrip("\n").split("\t"); cl[a[0]] = a[1]
rules = {"tlcs": 0, "lsi": 0}
for line in list(open(o + "/pairs.tsv"))[1:]:
    r = line.split("\t")[2]
    rules[r] = rules.get(r, 0) + 1
cat = {}
for r in csv.DictReader(open(src + "/file_information.csv")):
    if r["Category"] == "orig":
        continue
    s = "orig_task%s.txt" % r["Task"]
    hit = r["File"] in cl and cl.get(r["File"]) == cl.get(s)
    c = cat.setdefault(r["Category"], [0, 0]); c[0] += hit; c[1] += 1
per = " / ".join("%d/%d" % tuple(cat[k]) for k in ("cut", "light", "heavy", "non"))
print(f"| clough | {inp} | {v} | {e['precision']:.3f} | {e['recall']:.3f} | {e['f1']:.3f} | "
      f"{rules.get('tlcs', 0)} / {rules.get('lsi', 0)} | {per} | {st['wall_seconds']:.2f} |")
PY
  done
done

[ -d "$data/idpan" ] || { echo "bench-lsi: $data/idpan absent; idpan skipped"; exit 0; }
echo
echo "| corpus | --max-doc-bytes | verifier | none | random-shuffling | semantic-variation | pos-preserving | simulated | all | pairs accepted | wall s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
mkdir -p "$OUT/idpan-in"
cp "$data/idpan/source-documents/"*.txt "$data/idpan/suspicious-documents/"*.txt "$OUT/idpan-in/"
for mdb in 10240 1000000; do
  for v in lsi tlcs+lsi tlcs; do
    o="$OUT/idpan-$mdb-$v"
    rm -rf "$o"
    "$ndd" run --engine "local:$RANKS" -q --max-doc-bytes "$mdb" --verifier "$v" -o "$o" "$OUT/idpan-in"
    python3 - "$data/idpan/suspicious-documents" "$o" "$mdb" "$v" <<'PY'
import glob, json, os, re, sys
sd, o, mdb, v = sys.argv[1:5]
st = json.load(open(o + "/stats.json"))
cl = {}
for line in list(open(o + "/clusters.tsv"))[1:]:
    a = line.rstrip("\n").split("\t"); cl[a[0]] = a[1]
cnt = {}
for x in sorted(glob.glob(sd + "/*.xml")):
    susp = os.path.basename(x)[:-4] + ".txt"
    for f in re.findall(r"<feat\w* [^>]*>", open(x).read()):  # one case is spelt <featue ...>
        src = re.search(r'source_reference="([^"]*)"', f).group(1)
        ob = re.search(r'obfuscation="([^"]*)"', f)
        kind = ob.group(1) if ob else re.search(r'type="([^"]*)"', f).group(1)
        hit = susp in cl and cl.get(susp) == cl.get(src)
        c = cnt.setdefault(kind, [0, 0]); c[0] += hit; c[1] += 1
        a = cnt.setdefault("all", [0, 0]); a[0] += hit; a[1] += 1
cells = " | ".join("%d/%d (%.2f)" % (cnt[k][0], cnt[k][1], cnt[k][0] / cnt[k][1]) if k in cnt else "-"
                   for k in ("none", "random-shuffling", "semantic-variation", "pos-preserving", "simulated", "all"))
print(f"| idpan | {mdb} | {v} | {cells} | {st['verify']['accepted']} | {st['wall_seconds']:.2f} |")
PY
  done
done

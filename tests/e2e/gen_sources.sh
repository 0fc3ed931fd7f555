#!/usr/bin/env bash
# The corpus generator on the real sources in ../shared/datasets (skipped when absent):
# Reuters parsing (exact and near duplicates removed, checked by an independent
# sentence-level oracle), Chinese fortunes, Clough with reuse answers in gold, mixed
# English/Chinese sites, and the one-shared-paragraph guarantee on Reuters recombinations.
set -u
SRC=${NDD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DS=${NDD_DATASETS:-$SRC/../shared/datasets}
if [ ! -d "$DS/reuters21578" ] || [ ! -d "$DS/zh-fortunes" ] || [ ! -d "$DS/clough" ]; then
  echo "SKIP: real corpora not found in $DS (reuters21578, zh-fortunes, clough)"
  exit 77
fi
GEN="python3 $SRC/datasets/gencrawl.py --datasets $DS -q"
CHECK="python3 $SRC/datasets/checkcrawl.py"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
ok()  { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# Reuters articles: no two kept bodies identical, and no two share half of their sentences
# (an oracle independent of the generator's shingle filter); then recombined articles (enough
# for a ~2 GB corpus) share at most one paragraph with any other article
python3 - "$SRC/datasets" "$DS" <<'EOF' && ok "reuters: duplicates removed, recombination guarantee" || bad "reuters"
import collections, sys
sys.path.insert(0, sys.argv[1])
import gencrawl as g
import checkcrawl
st = {}
raw = g.load_reuters(sys.argv[2], 600, 8000, st)
arts = g.near_dup_filter(raw, st)
print("reuters: %d bodies, %d exact duplicates, %d near duplicates dropped, %d kept" % (
    st["reuters_bodies"], st["exact_duplicates"], st["near_duplicates"], len(arts)))
assert 6000 <= len(arts) <= 8264 and st["exact_duplicates"] >= 100 and st["near_duplicates"] >= 100, st
texts = [" ".join(a.paras) for a in arts]
assert len(set(texts)) == len(texts)
assert not any("&lt;" in t or "&#" in t or "\x03" in t for t in texts)
assert not any(t.rstrip().lower().endswith("reuter") for t in texts)
where, nsent = collections.defaultdict(list), []
for i, a in enumerate(arts):
    ss = {s for p in a.paras for s in g.split_sents(p, "en") if len(s) >= 40}
    nsent.append(len(ss))
    for s in ss:
        where[s].append(i)
pairs = collections.Counter()
for s, l in where.items():
    if 1 < len(l) < 50:
        for x in range(len(l)):
            for y in range(x + 1, len(l)):
                pairs[(l[x], l[y])] += 1
bad = [p for p, c in pairs.items() if c >= 2 and c >= 0.5 * min(nsent[p[0]], nsent[p[1]])]
assert not bad, [(arts[x].title, arts[y].title) for x, y in bad[:5]]
assert checkcrawl.recombination_ok(g, arts, 20000, "reuters") == 0
EOF

$GEN --source reuters --seed 1 --size 2MB --measure 0 -o "$T/r" || bad "reuters run"
$CHECK "$T/r" && ok "reuters corpus valid" || bad "reuters corpus"
$GEN --source zh --seed 1 --size 2MB --measure 0 -o "$T/z" || bad "zh run"
$CHECK "$T/z" && ok "zh corpus valid" || bad "zh corpus"
python3 - "$T/z" <<'EOF' && ok "zh: Chinese sites and text, no ANSI escapes" || bad "zh content"
import json, sys
lines = open(sys.argv[1] + "/crawl-00000.jsonl", encoding="utf-8").read().splitlines()
for l in lines:
    h = json.loads(l)["html"]
    assert '<html lang="zh-CN">' in h and "\x1b" not in h and "[m" not in h
    assert sum(1 for c in h if "\u4e00" <= c <= "\u9fff") > 80
EOF

$GEN --source mixed --seed 1 --size 3MB --measure 0 -o "$T/m" || bad "mixed run"
$CHECK "$T/m" && ok "mixed corpus valid" || bad "mixed corpus"
python3 - "$T/m" <<'EOF' && ok "mixed: English and Chinese sites" || bad "mixed languages"
import json, sys
m = json.load(open(sys.argv[1] + "/manifest.json"))
assert m["sites_per_lang"]["en"] >= 2 and m["sites_per_lang"]["zh"] >= 2, m["sites_per_lang"]
assert m["docs_per_lang"]["en"] > 0 and m["docs_per_lang"]["zh"] > 0, m["docs_per_lang"]
EOF

# Clough: with --clough-reuse include, every cut/light/heavy answer is in its source's cluster
$GEN --source clough --clough-reuse include --seed 1 --size 1MB --measure 0 -o "$T/c" || bad "clough run"
$CHECK "$T/c" && ok "clough corpus valid" || bad "clough corpus"
python3 - "$T/c" "$DS/clough/file_information.csv" <<'EOF' && ok "clough: reuse answers clustered with their source" || bad "clough gold"
import csv, sys
d = sys.argv[1]
gold = dict(l.rstrip("\n").split("\t") for l in open(d + "/gold.tsv"))
origin = {}
for l in open(d + "/edits.tsv").read().splitlines()[1:]:
    f = l.split("\t")
    origin[f[0]] = f[4]
cat = {r["File"]: (r["Task"], r["Category"]) for r in csv.DictReader(open(sys.argv[2]))}
src_cluster = {}
for did, org in origin.items():
    if org.startswith("clough:orig_task") and did in gold:
        src_cluster[org[-1]] = gold[did]
n = 0
for did, org in origin.items():
    name = org.split(":", 1)[1]
    if name in cat and cat[name][1] in ("cut", "light", "heavy"):
        assert gold.get(did) == src_cluster[cat[name][0]], (did, name)
        n += 1
    if name in cat and cat[name][1] == "non":
        assert gold.get(did) not in src_cluster.values(), (did, name)
assert n >= 50, n
EOF

[ $fails -eq 0 ] && echo "gen_sources: all passed" && exit 0
echo "gen_sources: $fails failure(s)"
exit 1

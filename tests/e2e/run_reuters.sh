#!/usr/bin/env bash
# Real data (issue 5): Reuters-21578 through ndd run on 2 ranks. Every group of
# stories with an identical body must end up in one cluster; prints how many
# clusters go beyond identical bodies (near-duplicates: re-sent and corrected
# stories). Skips when ../shared/datasets/reuters21578 is absent.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
data=${NDD_DATASETS:-$NDD_SOURCE_DIR/../shared/datasets}/reuters21578
[ -d "$data" ] || { echo "SKIP: $data absent"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
python3 "$NDD_SOURCE_DIR/scripts/reuters2jsonl.py" -o "$tmp/reuters.jsonl" "$data" 2>/dev/null
mpirun -n 2 --oversubscribe "$NDD_BIN" run -q --soft-wrap on -o "$tmp/out" "$tmp/reuters.jsonl"
python3 - "$tmp/reuters.jsonl" "$tmp/out" <<'PY'
import collections, hashlib, json, sys
docs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
def body(d):  # the story without its headline paragraph, whitespace folded
    t = d["text"].split("\n\n", 1)
    return " ".join((t[1] if len(t) > 1 else t[0]).split())
groups = collections.defaultdict(list)
for d in docs:
    groups[hashlib.md5(body(d).encode()).hexdigest()].append(d["id"])
ident = [g for g in groups.values() if len(g) > 1]
pred = {}
for line in list(open(sys.argv[2] + "/clusters.tsv", encoding="utf-8"))[1:]:
    a = line.rstrip("\n").split("\t")
    pred[a[0]] = a[1]
split = [g for g in ident if len({pred.get(i, "none:" + i) for i in g}) != 1]
clusters = collections.defaultdict(list)
for i, c in pred.items():
    clusters[c].append(i)
identsets = [set(g) for g in ident]
beyond = [c for c in clusters.values() if not any(set(c) <= s for s in identsets)]
print(f"reuters: {len(docs)} stories; {len(ident)} identical-body groups ({sum(map(len, ident))} stories), "
      f"{len(ident) - len(split)} in one cluster; {len(clusters)} clusters, {len(beyond)} beyond identical bodies")
for g in split[:10]:
    print("  split group:", [(i, pred.get(i)) for i in g])
sys.exit(1 if split else 0)
PY

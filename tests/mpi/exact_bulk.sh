#!/usr/bin/env bash
# mpi (issue 12, item 5): identical texts end in one cluster whatever their
# number. A corpus with 20,000 copies of one text (on 50 sites), 5 near
# duplicates of it, 10,000 copies of a second text, 40 texts held twice and
# 300 distinct texts: on 1, 2, 3 and 4 ranks (mpirun) and on 3 in-process
# ranks, the first text's cluster holds 20,005 documents with 20,004 removed
# (19,999 exact, 5 near), the second's 10,000 with 9,999 removed, each pair
# one cluster; the outputs and the --write-dedup corpus are byte-identical
# on every rank count; stats.json counts exact and near duplicates apart.
# With --exact off the giant-set guard and the frequency rule lose them (the
# behaviour before the exact pass), and on the small groups alone both modes
# give the same clusters.
set -u
: "${NDD_BIN:?}"
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
command -v zstd >/dev/null || { echo "SKIP: zstd not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }

python3 - "$tmp" <<'EOF'
import json, random, sys
tmp = sys.argv[1]
words = ("the a of river city council budget report water school road new year plan people market bank "
         "rates trade oil prices week said company shares").split()
def text(seed, sentences=8):
    r = random.Random(seed)
    return " ".join(" ".join(r.choice(words) for _ in range(12)).capitalize() + "." for _ in range(sentences))
A, B = text(1), text(2)
sa = A.split(". ")
with open(tmp + "/bulk.jsonl", "w") as f, open(tmp + "/small.jsonl", "w") as g:
    w = lambda fh, i, u, t: fh.write(json.dumps({"id": i, "url": u, "text": t}) + "\n")
    for i in range(20000):
        w(f, "a-%05d" % i, "http://parked%d.example/p%d" % (i % 50, i), A)
    for k in range(5):  # near duplicates of A: one sentence replaced
        t = ". ".join(sa[:k] + [text(100 + k, 1).rstrip(".")] + sa[k + 1:])
        w(f, "a-near-%d" % k, "http://mirror%d.example/" % k, t)
    for i in range(10000):
        w(f, "b-%05d" % i, "http://cookie%d.example/x%d" % (i % 7, i), B)
    for i in range(40):  # small exact groups: two copies each
        for c in range(2):
            w(f, "p%02d-%d" % (i, c), "http://pair%d-%d.example/" % (i, c), text(1000 + i))
            w(g, "p%02d-%d" % (i, c), "http://pair%d-%d.example/" % (i, c), text(1000 + i))
    for i in range(300):
        w(f, "u%03d" % i, "http://u%d.example/" % i, text(5000 + i))
        w(g, "u%03d" % i, "http://u%d.example/" % i, text(5000 + i))
EOF

run() { # name ranks args...
  local name=$1 p=$2; shift 2
  if [ "$p" = local3 ]; then
    "$NDD_BIN" run -q --engine local:3 -o "$tmp/$name" "$@" || fail "$name: exit $?"
  else
    mpirun -n "$p" --oversubscribe "$NDD_BIN" run -q -o "$tmp/$name" "$@" || fail "$name: exit $?"
  fi
}
for p in 1 2 3 4 local3; do
  run "bulk.$p" "$p" --write-dedup "$tmp/bulk.$p/dedup.jsonl.zst" "$tmp/bulk.jsonl"
  zstd -dcq "$tmp/bulk.$p/dedup.jsonl.zst" > "$tmp/bulk.$p/dedup.jsonl" && rm "$tmp/bulk.$p/dedup.jsonl.zst"
done
for p in 2 3 4 local3; do
  for f in pairs.tsv clusters.tsv scores.tsv rejects.tsv dedup.jsonl; do
    cmp -s "$tmp/bulk.1/$f" "$tmp/bulk.$p/$f" || fail "$f differs between 1 rank and $p"
  done
done
python3 - "$tmp/bulk.1" <<'EOF' || exit 1
import collections, json, sys
d = sys.argv[1]
def fail(m):
    print("FAIL:", m); sys.exit(1)
rows = [l.rstrip("\n").split("\t") for l in open(d + "/clusters.tsv")][1:]
clusters = collections.defaultdict(list)
for r in rows:
    clusters[r[1]].append(r)
def check(root, n, removed):
    m = clusters.get(root, [])
    got = sum(r[2] == "0" for r in m)
    if len(m) != n or got != removed:
        fail("cluster %s: %d members, %d removed (want %d, %d)" % (root, len(m), got, n, removed))
check("a-00000", 20005, 20004)
check("b-00000", 10000, 9999)
for i in range(40):
    check("p%02d-0" % i, 2, 1)
if len(clusters) != 42:
    fail("%d clusters (want 42)" % len(clusters))
kept = {r[0] for r in rows if r[2] == "1"}
if "a-00000" not in kept or "b-00000" not in kept:
    fail("the first copy is not the one kept")
s = json.load(open(d + "/stats.json"))
want = {"groups": 42, "duplicates": 19999 + 9999 + 40}
if s["exact"] != want:
    fail("stats exact %s, want %s" % (s["exact"], want))
c = s["clusters"]
if (c["docs_removed"], c["removed_exact"], c["removed_near"]) != (20004 + 9999 + 40, 19999 + 9999 + 40, 5):
    fail("stats clusters %s" % c)
if s["sets"]["giant_sets"] or s["signatures"]["dropped_frequent"]:
    fail("copies still reach the guard or the frequency rule: %s %s" % (s["sets"], s["signatures"]))
pairs = sum(1 for _ in open(d + "/pairs.tsv")) - 1
if pairs < 20004 + 9999 + 40:
    fail("%d pairs rows: every removed document needs one" % pairs)
dedup = [json.loads(l)["id"] for l in open(d + "/dedup.jsonl")]
if len(dedup) != 20000 + 5 + 10000 + 80 + 300 - (20004 + 9999 + 40) or len(set(dedup)) != len(dedup):
    fail("dedup corpus holds %d documents" % len(dedup))
print("exact_bulk: %d clusters; %d exact + %d near removed; %d pairs rows; dedup %d documents" % (
    len(clusters), c["removed_exact"], c["removed_near"], pairs, len(dedup)))
EOF

# --exact off: the guard and the frequency rule split or drop the copies
run bulk.off 2 --exact off "$tmp/bulk.jsonl"
off=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["clusters"]["docs_removed"])' "$tmp/bulk.off/stats.json")
[ "$off" -lt 20000 ] || fail "--exact off removed $off (the test no longer shows the loss it guards against)"
echo "exact_bulk: with --exact off only $off removed"
# small groups: the exact pass gives the clusters the near-duplicate machinery gives
run small.on 2 "$tmp/small.jsonl"
run small.off 2 --exact off "$tmp/small.jsonl"
cmp -s "$tmp/small.on/clusters.tsv" "$tmp/small.off/clusters.tsv" || fail "small groups: clusters differ with --exact off"
cut -f1,2 "$tmp/small.on/pairs.tsv" > "$tmp/p.on"
cut -f1,2 "$tmp/small.off/pairs.tsv" > "$tmp/p.off"
cmp -s "$tmp/p.on" "$tmp/p.off" || fail "small groups: pairs differ with --exact off"
echo "exact_bulk: small groups give the same clusters and pairs with --exact on and off"

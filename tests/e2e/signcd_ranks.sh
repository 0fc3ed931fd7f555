#!/usr/bin/env bash
# 'ndd signcd' under mpirun -n 1,2,3,4: pairs.tsv byte-identical and the
# counters (pairs, compared, pruned by P1 / P2, found) identical for every rank
# count, with P1 and with P1+P2; P1 and P1+P2 return the brute-force pairs
# (--no-p1). Input: a generated corpus in several files (near-duplicate
# families), plus Clough when ../shared/datasets is present.
set -euo pipefail
: "${NDD_BIN:?NDD_BIN not set}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI itself leaks at exit (dlclosed MCA components): under ASan, leak
# checking of the MPI executable is off here (the unit tests check the core).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
command -v mpirun >/dev/null || { echo "SKIP: mpirun absent"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 absent"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/in/txt"
python3 - "$tmp/in" <<'EOF'
import json, random, sys
d = sys.argv[1]
rng = random.Random(11)
words = [''.join(rng.choice('abcdefghijklmnopqrstuvwxyz') for _ in range(rng.randint(2, 9))) for _ in range(300)]
def doc():
    out = []
    for _ in range(rng.randint(20, 160)):
        out.append(rng.choice(words) + (',' if rng.random() < 0.15 else ''))
    return ' '.join(out)
def edit(t, rate):
    return ''.join(c if c == ',' or rng.random() > rate else rng.choice('abcdefghij') for c in t)
docs = []
for f in range(60):
    base = doc()
    docs.append(base)
    for _ in range(rng.randint(0, 3)):
        docs.append(edit(base, rng.choice([0.01, 0.03, 0.08])))
rng.shuffle(docs)
files = [open('%s/part-%d.jsonl' % (d, k), 'w') for k in range(3)]
for i, t in enumerate(docs):
    if i % 7 == 6:
        open('%s/txt/doc-%04d.txt' % (d, i), 'w').write(t + '\n')
    else:
        files[i % 3].write(json.dumps({'id': 'g%04d' % i, 'text': t}) + '\n')
for f in files:
    f.close()
EOF
inputs=("$tmp/in/part-0.jsonl" "$tmp/in/part-1.jsonl" "$tmp/in/part-2.jsonl" "$tmp/in/txt")
if [ -d "${NDD_DATASETS:-/nonexistent}/clough" ]; then
  python3 - "$NDD_DATASETS/clough" >"$tmp/in/clough.jsonl" <<'EOF'
import csv, json, sys
d = sys.argv[1]
for row in csv.DictReader(open(d + '/file_information.csv')):
    raw = open(d + '/' + row['File'], 'rb').read()
    try:
        t = raw.decode('utf-8')
    except UnicodeDecodeError:
        t = raw.decode('latin-1')
    print(json.dumps({'id': row['File'], 'text': t}))
EOF
  inputs+=("$tmp/in/clough.jsonl")
else
  echo "note: ${NDD_DATASETS:-../shared/datasets}/clough absent: generated corpus only"
fi

counters() {
  python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(" ".join(str(s[k]) for k in ("docs","pairs","compared","pruned_p1","pruned_p2","found")))' "$1"
}

fail=0
for variant in "p1:" "p1p2:--p2 --p2-block 8" "p2only:--no-p1 --p2 --p2-block 8"; do
  name=${variant%%:*}; args=${variant#*:}
  for n in 1 2 3 4; do
    # shellcheck disable=SC2086
    mpirun -n "$n" --oversubscribe "$NDD_BIN" signcd -o "$tmp/$name.$n" $args "${inputs[@]}" 2>"$tmp/$name.$n.log" \
      || { echo "FAIL: $name on $n ranks exited $?"; cat "$tmp/$name.$n.log"; exit 1; }
    if ! cmp -s "$tmp/$name.1/pairs.tsv" "$tmp/$name.$n/pairs.tsv"; then
      echo "FAIL: $name pairs differ between 1 and $n ranks"; diff "$tmp/$name.1/pairs.tsv" "$tmp/$name.$n/pairs.tsv" | head; fail=1
    fi
    c1=$(counters "$tmp/$name.1/stats.json"); cn=$(counters "$tmp/$name.$n/stats.json")
    if [ "$c1" != "$cn" ]; then
      echo "FAIL: $name counters differ: 1 rank [$c1], $n ranks [$cn]"; fail=1
    fi
  done
  echo "$name: $(wc -l <"$tmp/$name.1/pairs.tsv") pairs; docs pairs compared pruned_p1 pruned_p2 found = $(counters "$tmp/$name.1/stats.json")"
done

# brute force (every pair compared) must give the same pairs
"$NDD_BIN" signcd -o "$tmp/brute" --no-p1 "${inputs[@]}" 2>"$tmp/brute.log"
for name in p1 p1p2 p2only; do
  cmp -s "$tmp/brute/pairs.tsv" "$tmp/$name.1/pairs.tsv" || { echo "FAIL: $name pairs != brute-force pairs"; fail=1; }
done
# the test must be able to fail: there are pairs, and pruning did something
npairs=$(wc -l <"$tmp/brute/pairs.tsv")
[ "$npairs" -ge 50 ] || { echo "FAIL: only $npairs pairs found"; fail=1; }
read -r _ _ _ pp1 _ _ <<<"$(counters "$tmp/p1.1/stats.json")"
read -r _ _ _ _ pp2 _ <<<"$(counters "$tmp/p1p2.1/stats.json")"
[ "$pp1" -gt 0 ] || { echo "FAIL: P1 pruned nothing"; fail=1; }
[ "$pp2" -gt 0 ] || { echo "FAIL: P2 pruned nothing"; fail=1; }
# pairs are sorted by document order and well formed
awk -F'\t' 'NF != 3 || $3 !~ /^[01]\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ || $3 > 0.7 { bad = 1 } END { exit bad }' "$tmp/p1.1/pairs.tsv" \
  || { echo "FAIL: malformed pairs.tsv line"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: signcd output identical on 1..4 ranks ($npairs pairs)"
exit "$fail"

#!/usr/bin/env bash
# e2e (issue 12, items 2 and 7): --resume refuses inputs that changed since the interrupted run
# (the manifest pins every input file: size, modification time, first and last 64 KiB):
# a grown file, a file rewritten in place with the same size, a file added to an input
# directory; an unchanged input resumes and gives the uninterrupted run's outputs; a
# damaged verification checkpoint is redone (item 7), as a damaged map shard is.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$tmp/in"
python3 -c '
import json, random
random.seed(3)
w = "market shares rose fell company said bank rates trade oil prices year week".split()
arts = [" ".join(random.choice(w) for _ in range(80)) + "." for _ in range(40)]
with open("'"$tmp"'/in/a.jsonl", "w") as f:
    for i in range(200):
        f.write(json.dumps({"id": "d%d" % i, "text": arts[i % 40] + " Copy %d." % (i // 40)}) + "\n")
'
cp "$tmp/in/a.jsonl" "$tmp/orig.jsonl"
R() { "$NDD" run -q --engine local:2 "$@"; }
R -o "$tmp/full" "$tmp/in" || fail "uninterrupted run: exit $?"

# unchanged: resume works and equals the uninterrupted run
R --work-dir "$tmp/w1" --stop-after verify -o "$tmp/o1" "$tmp/in" || fail "stop-after: exit $?"
R --resume "$tmp/w1" -o "$tmp/o1" || fail "resume of unchanged input: exit $?"
cmp -s "$tmp/full/clusters.tsv" "$tmp/o1/clusters.tsv" || fail "resumed outputs differ"

check_refused() { # what work-dir
  R --resume "$2" -o "$tmp/o-$(basename "$2")" 2>"$tmp/err" >/dev/null
  local rc=$?
  [ "$rc" != 0 ] || fail "$1: --resume accepted a changed input"
  grep -q "cannot resume from $2" "$tmp/err" || fail "$1: no clear message: $(cat "$tmp/err")"
  echo "resume_changed: $1 refused: $(grep -m1 'cannot resume' "$tmp/err" | sed 's/.*error\] //' | cut -c1-150)"
}
# a grown file
R --work-dir "$tmp/w2" --stop-after verify -o "$tmp/o2" "$tmp/in" || fail "stop-after: exit $?"
echo '{"id":"new","text":"a document appended after the interruption."}' >> "$tmp/in/a.jsonl"
check_refused "grown file" "$tmp/w2"
cp "$tmp/orig.jsonl" "$tmp/in/a.jsonl"
# rewritten in place, same size (one letter changed; the time restored)
R --work-dir "$tmp/w3" --stop-after verify -o "$tmp/o3" "$tmp/in" || fail "stop-after: exit $?"
touch -r "$tmp/in/a.jsonl" "$tmp/stamp"
python3 -c '
p = "'"$tmp"'/in/a.jsonl"
b = bytearray(open(p, "rb").read()); i = b.index(b"market"); b[i] = ord("M"); open(p, "wb").write(b)'
touch -r "$tmp/stamp" "$tmp/in/a.jsonl"
check_refused "same-size rewrite" "$tmp/w3"
cp "$tmp/orig.jsonl" "$tmp/in/a.jsonl"
# a file added to the input directory
R --work-dir "$tmp/w4" --stop-after verify -o "$tmp/o4" "$tmp/in" || fail "stop-after: exit $?"
echo '{"id":"other","text":"a new file in the directory."}' > "$tmp/in/b.jsonl"
check_refused "added file" "$tmp/w4"
# a damaged verification checkpoint is redone (item 7), like a damaged map shard
cp "$tmp/orig.jsonl" "$tmp/in/a.jsonl"
rm -f "$tmp/in/b.jsonl"
R -o "$tmp/full2" "$tmp/in" || fail "uninterrupted run: exit $?"
R --work-dir "$tmp/w5" --stop-after verify -o "$tmp/o5" "$tmp/in" || fail "stop-after: exit $?"
part=$(ls "$tmp"/w5/verify/part-*.zst | head -1)
printf 'garbage' | dd of="$part" bs=1 seek=20 conv=notrunc 2>/dev/null
R --resume "$tmp/w5" -o "$tmp/o5" 2>"$tmp/err" || fail "resume over a damaged verify part: exit $? $(cat "$tmp/err")"
grep -q "redoing" "$tmp/err" || fail "the damaged verify part was not reported: $(cat "$tmp/err")"
for f in pairs.tsv clusters.tsv scores.tsv; do
  cmp -s "$tmp/full2/$f" "$tmp/o5/$f" || fail "$f after redoing the verification differs"
done
echo "resume_changed: ok"

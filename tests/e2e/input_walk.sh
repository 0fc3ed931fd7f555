#!/usr/bin/env bash
# e2e (issue 12, items 4 and 7): input directories are walked once per directory and
# files read once, by (device, inode). A tree of 19 levels with two symlinks per level to
# the next (262,144 paths to one file: 21 s and 0.5 GB before) gives one document and a
# reject for every directory met again; a symlink back up is a reported loop; a file
# given twice or hard-linked is read once; a 70-level tree gives all 70 documents, also
# under ulimit -n 16 (item 7) (63
# before, without a word).
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
count() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"][sys.argv[2]])' "$1/stats.json" "$2"; }

T=$tmp/tree
mkdir -p "$T/l0"
for i in $(seq 1 19); do
  mkdir -p "$T/l$i"
  ln -s "../l$i" "$T/l$((i - 1))/a"
  ln -s "../l$i" "$T/l$((i - 1))/b"
done
echo '{"id":"bottom","text":"the only document, at the bottom of the symlink tree."}' > "$T/l19/doc.jsonl"
ln -s .. "$T/l5/up" # back to the parent of l0: l0..l5 are above, l6..l19 walked already
timeout 120 "$NDD" run -q --engine local:2 -o "$tmp/o1" "$T/l0" || fail "symlink tree: exit $?"
[ "$(count "$tmp/o1" docs)" = 1 ] || fail "symlink tree: $(count "$tmp/o1" docs) documents, not 1"
[ "$(grep -c 'directory already walked under another path' "$tmp/o1/rejects.tsv")" = 33 ] ||
  fail "symlink tree: $(grep -c 'already walked' "$tmp/o1/rejects.tsv") 'already walked' rejects, not 33"
[ "$(grep -c 'directory loop' "$tmp/o1/rejects.tsv")" = 6 ] || fail "symlink tree: loops not reported"

D=$tmp/deep
p=$D
for i in $(seq 1 70); do
  p=$p/d$i
  mkdir -p "$p"
  echo "{\"id\":\"deep$i\",\"text\":\"document $i of the deep tree, with a few more words.\"}" > "$p/f.jsonl"
done
"$NDD" run -q --engine local:1 -o "$tmp/o2" "$D" || fail "deep tree: exit $?"
[ "$(count "$tmp/o2" docs)" = 70 ] || fail "deep tree: $(count "$tmp/o2" docs) documents, not 70"
# item 7: under `ulimit -n 16` the walk used to hold one descriptor per level; at the
# limit a directory became one reject "cannot open: Is a directory" and every document
# below it was lost. The walk now closes each directory before descending: all 70 read,
# with 24 more files beside them, and no reject.
for i in $(seq 1 24); do mkdir -p "$D/w$i"; echo "{\"id\":\"wide$i\",\"text\":\"file $i of a wide level.\"}" > "$D/w$i/g.jsonl"; done
(ulimit -n 16 && "$NDD" run -q --engine local:1 -o "$tmp/o2u" "$D") || fail "deep tree under ulimit -n 16: exit $?"
[ "$(count "$tmp/o2u" docs)" = 94 ] || fail "ulimit -n 16: $(count "$tmp/o2u" docs) documents, not 94: $(cat "$tmp/o2u/rejects.tsv")"
[ "$(wc -l < "$tmp/o2u/rejects.tsv")" = 1 ] || fail "ulimit -n 16: rejects: $(cat "$tmp/o2u/rejects.tsv")"

F=$tmp/files
mkdir -p "$F"
echo '{"id":"one","text":"a document that is reachable by three names on disk."}' > "$F/a.jsonl"
ln "$F/a.jsonl" "$F/b.jsonl" # hard link
"$NDD" run -q --engine local:1 -o "$tmp/o3" "$F" "$F/a.jsonl" || fail "files: exit $?"
[ "$(count "$tmp/o3" docs)" = 1 ] || fail "files: $(count "$tmp/o3" docs) documents, not 1"
[ "$(grep -c 'file already read under another path' "$tmp/o3/rejects.tsv")" = 2 ] || fail "files: $(cat "$tmp/o3/rejects.tsv")"
echo "input_walk: ok"

#!/usr/bin/env bash
# e2e (issue 17, item 2): errors that say what happened, and standard input.
#  - a missing input, an unreadable directory, a missing gold file: the cause
#    (No such file or directory, Permission denied) with the path; no work directory left;
#  - option errors name the option and its range (--tau 2, --tau=2, -n 99, --per-doc x);
#  - '-' and /dev/stdin (a pipe) read standard input, on 1 and 2 ranks (and 2 MPI ranks,
#    where only rank 0 has it), same outputs;
#  - zero documents read: exit 1 with the reason, unless --allow-empty;
#  - two different files holding the same ids: warned about and counted
#    (read.duplicate_ids), the run still succeeds;
#  - an existing non-empty output directory is refused (exit 2) unless --force.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'chmod -R u+rwx "$tmp"; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# expect CODE PATTERN CMD...: CMD exits CODE and its stderr matches PATTERN (grep -E)
expect() {
  local code=$1 pat=$2
  shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" = "$code" ] || fail "$* exited $rc, not $code: $(cat "$tmp/err")"
  grep -Eq -- "$pat" "$tmp/err" || fail "$*: stderr lacks /$pat/: $(cat "$tmp/err")"
}
R=(run -q --engine local:1)

python3 - "$tmp" <<'EOF'
import random, sys
d = sys.argv[1]
w = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi".split()
def text(k):
    r = random.Random(k)
    return " ".join(" ".join(r.choice(w) for _ in range(13)).capitalize() + "." for _ in range(9))
with open(d + "/a.jsonl", "w") as f:
    for k in range(4):
        f.write('{"id":"a%d","text":"%s"}\n' % (k, text(k)))
    f.write('{"id":"a9","text":"%s"}\n' % text(1))  # an exact copy of a1
with open(d + "/b.jsonl", "w") as f:  # other texts under the ids of a.jsonl
    for k in range(3):
        f.write('{"id":"a%d","text":"%s"}\n' % (k, text(50 + k)))
open(d + "/bad.jsonl", "w").write('{"id":"x","txt":"no text field"}\n{"id":"y"\n')
EOF

# ---- the cause, with the path ------------------------------------------------------
expect 1 "cannot read input $tmp/none.jsonl: No such file or directory" "$NDD" "${R[@]}" -o "$tmp/x" "$tmp/none.jsonl"
[ ! -e "$tmp/x/.ndd-work" ] || fail "a failed run left $tmp/x/.ndd-work"
mkdir -p "$tmp/locked/sub"
cp "$tmp/a.jsonl" "$tmp/locked/sub/"
chmod 000 "$tmp/locked"
if [ "$(id -u)" = 0 ]; then # root reads everything: the test runs ndd as nobody
  if command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
    mkdir "$tmp/nobody" && chmod 777 "$tmp/nobody"
    expect 1 "cannot read input $tmp/locked: Permission denied" \
      setpriv --reuid=65534 --regid=65534 --clear-groups "$NDD" "${R[@]}" -o "$tmp/nobody/o" "$tmp/locked"
  else
    echo "SKIP (unreadable directory): running as root without setpriv"
  fi
else
  expect 1 "cannot read input $tmp/locked: Permission denied" "$NDD" "${R[@]}" -o "$tmp/l" "$tmp/locked"
fi
chmod 755 "$tmp/locked"
expect 1 "cannot read $tmp/none.tsv: No such file or directory" "$NDD" eval --gold "$tmp/none.tsv" "$tmp"

# ---- option errors name the option and its range -----------------------------------
expect 2 "^ndd run: --tau takes a number in \[0, 1\], not '2'" "$NDD" "${R[@]}" -o "$tmp/o" --tau 2 "$tmp/a.jsonl"
expect 2 "^ndd run: --tau takes a number in \[0, 1\], not '2'" "$NDD" "${R[@]}" -o "$tmp/o" --tau=2 "$tmp/a.jsonl"
expect 2 "^ndd run: -n takes a whole number in 1\.\.16, not '99'" "$NDD" "${R[@]}" -o "$tmp/o" -n 99 "$tmp/a.jsonl"
expect 2 "^ndd run: --per-doc takes a whole number in 0\.\.1000000, not 'x'" "$NDD" "${R[@]}" -o "$tmp/o" --per-doc x "$tmp/a.jsonl"
expect 2 "^ndd run: --max-doc-bytes takes a whole number >= 0 .*not '-1'" "$NDD" "${R[@]}" -o "$tmp/o" --max-doc-bytes -1 "$tmp/a.jsonl"
expect 2 "^ndd run: --url-field takes a field name or a dotted path .*not 'a..b'" "$NDD" "${R[@]}" -o "$tmp/o" --url-field a..b "$tmp/a.jsonl"
expect 2 "^ndd compare: --tau wants a number in \[0, 1\], not '2'" "$NDD" compare --verifier signcd --tau 2 "$tmp/a.jsonl" "$tmp/b.jsonl"

# ---- standard input --------------------------------------------------------------------
"$NDD" "${R[@]}" -o "$tmp/file" "$tmp/a.jsonl" || fail "file: exit $?"
"$NDD" "${R[@]}" -o "$tmp/dash" - < "$tmp/a.jsonl" || fail "'-': exit $?"
cat "$tmp/a.jsonl" | "$NDD" run -q --engine local:2 -o "$tmp/pipe" /dev/stdin || fail "/dev/stdin: exit $?"
for o in dash pipe; do
  for f in pairs.tsv clusters.tsv removed.txt; do
    cmp "$tmp/file/$f" "$tmp/$o/$f" || fail "standard input ($o): $f differs from the file's"
  done
  [ ! -e "$tmp/$o/.ndd-work" ] || fail "standard input ($o): work directory left behind"
done
[ "$(cat "$tmp/dash/removed.txt")" = a9 ] || fail "standard input: removed.txt is '$(cat "$tmp/dash/removed.txt")'"
if command -v mpirun >/dev/null && [ -e "$(dirname "$NDD")/libndd_mpi.so" ]; then # mpirun gives stdin to rank 0 only
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun -n 2 --oversubscribe "$NDD" run -q -o "$tmp/mpidash" - < "$tmp/a.jsonl" || fail "mpirun -n 2 with '-': exit $?"
  mpirun -n 2 --oversubscribe "$NDD" run -q -o "$tmp/mpistdin" /dev/stdin < "$tmp/a.jsonl" ||
    fail "mpirun -n 2 with /dev/stdin redirected from a file: exit $?"
  for o in mpidash mpistdin; do
    cmp "$tmp/file/clusters.tsv" "$tmp/$o/clusters.tsv" || fail "standard input under mpirun ($o): clusters.tsv differs"
  done
fi
printf '{"id":"r1","txt":"x"}\n' | "$NDD" "${R[@]}" --allow-empty -o "$tmp/rej" - || fail "'-' --allow-empty: exit $?"
[ "$(cut -f1 "$tmp/rej/rejects.tsv" | tail -1)" = "-" ] || fail "rejects.tsv does not name standard input '-'"

# ---- zero documents ----------------------------------------------------------------------
expect 1 "no document read from the inputs: 2 records rejected \(the first: .*missing text\)" \
  "$NDD" "${R[@]}" -o "$tmp/z" "$tmp/bad.jsonl"
expect 1 "no document read" "$NDD" "${R[@]}" -o "$tmp/z2" /dev/null
"$NDD" "${R[@]}" --allow-empty -o "$tmp/z3" "$tmp/bad.jsonl" || fail "--allow-empty: exit $?"
[ "$(grep -c 'missing text\|malformed JSON' "$tmp/z3/rejects.tsv")" = 2 ] || fail "--allow-empty: rejects.tsv"

# ---- duplicate ids from two different files ----------------------------------------------
expect 0 "warning: 3 documents have an id that an earlier document has \(the first: 'a0'\)" \
  "$NDD" run -q --engine local:2 -o "$tmp/dup" "$tmp/a.jsonl" "$tmp/b.jsonl"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["duplicate_ids"])' "$tmp/dup/stats.json")
[ "$n" = 3 ] || fail "read.duplicate_ids is $n, not 3"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["duplicate_ids"])' "$tmp/file/stats.json")
[ "$n" = 0 ] || fail "read.duplicate_ids is $n without duplicates"

# ---- a non-empty output directory ------------------------------------------------------------
expect 2 "output directory $tmp/file is not empty \(it holds .*\): give another -o DIR, or --force" \
  "$NDD" "${R[@]}" -o "$tmp/file" "$tmp/a.jsonl"
echo keep > "$tmp/file/mine.txt"
"$NDD" "${R[@]}" --force -o "$tmp/file" "$tmp/b.jsonl" || fail "--force: exit $?"
[ -e "$tmp/file/mine.txt" ] && [ "$(wc -l < "$tmp/file/clusters.tsv")" = 1 ] || fail "--force: outputs not rewritten"
echo x > "$tmp/plainfile"
expect 2 "-o $tmp/plainfile exists and is not a directory" "$NDD" "${R[@]}" -o "$tmp/plainfile" "$tmp/a.jsonl"
echo "cli errors ok"

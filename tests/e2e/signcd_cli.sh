#!/usr/bin/env bash
# 'ndd signcd' command line: help, usage errors (exit 2), runtime errors
# (exit 1), output format, known duplicates found and unrelated documents not.
set -uo pipefail
: "${NDD_BIN:?NDD_BIN not set}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI itself leaks at exit (dlclosed MCA components): under ASan, leak
# checking of the MPI executable is off here (the unit tests check the core).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect CODE description command...
  local want=$1 what=$2; shift 2
  "$@" >"$tmp/out" 2>"$tmp/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: exit $got, wanted $want"; cat "$tmp/err"; fail=1
  fi
}

expect 0 "--help" "$NDD_BIN" signcd --help
grep -q -- "--no-signature" "$tmp/out" || { echo "FAIL: --help does not list --no-signature"; fail=1; }
expect 2 "no input" "$NDD_BIN" signcd
expect 2 "unknown option" "$NDD_BIN" signcd --frobnicate x.jsonl
expect 2 "tau out of range" "$NDD_BIN" signcd --tau 1.5 x.jsonl
expect 2 "tau not a number" "$NDD_BIN" signcd --tau abc x.jsonl
expect 2 "bad format" "$NDD_BIN" signcd --format pdf x.jsonl
expect 2 "missing value" "$NDD_BIN" signcd x.jsonl --tau
expect 1 "missing input file" "$NDD_BIN" signcd "$tmp/does-not-exist.jsonl"

a="The committee approved the budget, after a long debate, and the chairman, who had opposed it, finally agreed, saying that the compromise was fair, balanced, and overdue."
c="Rain fell over the northern valleys, flooding roads, closing schools, and forcing farmers, already hurt by drought, to move cattle to higher ground, officials said."
cat >"$tmp/in.jsonl" <<EOF
{"id": "a", "text": "$a"}
{"id": "a-copy", "text": "$a"}
{"id": "c", "text": "$c"}
{"id": "a-edit", "text": "${a/long debate/short debate}"}
{"id": "empty-ish", "text": "x"}
EOF
expect 0 "run to stdout" "$NDD_BIN" signcd "$tmp/in.jsonl"
cp "$tmp/out" "$tmp/pairs.stdout"
grep -q "compared" "$tmp/err" || { echo "FAIL: no counters on stderr"; fail=1; }
printf 'a\ta-copy\na\ta-edit\na-copy\ta-edit\n' >"$tmp/want"
if ! cut -f1,2 "$tmp/pairs.stdout" | diff - "$tmp/want"; then
  echo "FAIL: pairs differ from the expected a / a-copy / a-edit triangle"; cat "$tmp/pairs.stdout"; fail=1
fi
awk -F'\t' 'NF != 3 || $3 !~ /^[01]\.[0-9][0-9][0-9][0-9][0-9][0-9]$/ { bad = 1 } END { exit bad }' "$tmp/pairs.stdout" \
  || { echo "FAIL: malformed pair line"; fail=1; }

expect 0 "run to -o DIR" "$NDD_BIN" signcd -o "$tmp/o" --p2 --tau 0.7 "$tmp/in.jsonl"
cmp -s "$tmp/o/pairs.tsv" "$tmp/pairs.stdout" || { echo "FAIL: -o pairs.tsv differs from stdout"; fail=1; }
python3 - "$tmp/o/stats.json" <<'EOF' || fail=1
import json, sys
s = json.load(open(sys.argv[1]))
ok = s['docs'] == 5 and s['pairs'] == 10 and s['found'] == 3 and \
     s['compared'] + s['pruned_p1'] + s['pruned_p2'] == s['pairs'] and s['p2'] is True
if not ok:
    print('FAIL: stats.json', s)
    sys.exit(1)
EOF
# tau 0: only exact-distance-0 pairs; whole-document NCD finds the same triangle here
expect 0 "tau 0" "$NDD_BIN" signcd --tau 0 "$tmp/in.jsonl"
[ ! -s "$tmp/out" ] || awk -F'\t' '$3 != "0.000000" { bad = 1 } END { exit bad }' "$tmp/out" || { echo "FAIL: tau 0 pair with ncd > 0"; fail=1; }
expect 0 "no signature" "$NDD_BIN" signcd --no-signature "$tmp/in.jsonl"
cut -f1,2 "$tmp/out" | diff -q - "$tmp/want" >/dev/null || { echo "FAIL: --no-signature pairs"; cat "$tmp/out"; fail=1; }

[ "$fail" -eq 0 ] && echo "PASS: signcd CLI"
exit "$fail"

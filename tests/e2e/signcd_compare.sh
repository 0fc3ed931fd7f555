#!/usr/bin/env bash
# 'ndd compare --verifier signcd [--json] A B': the JSON object has verifier,
# duplicate, ncd, c_a, c_b, c_ab; a copy is a duplicate, an unrelated text is
# not; the verdict agrees with 'ndd signcd' on the same pair; A B and B A give
# the same ncd. Skipped while 'ndd compare' does not offer the verifier.
set -uo pipefail
: "${NDD_BIN:?NDD_BIN not set}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI itself leaks at exit (dlclosed MCA components): under ASan, leak
# checking of the MPI executable is off here (the unit tests check the core).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
if ! "$NDD_BIN" compare --help 2>&1 | grep signcd >/dev/null; then  # no -q: grep reads it all (else SIGPIPE + pipefail = a false skip)
  echo "SKIP: 'ndd compare' has no --verifier signcd in this build yet"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
cat >"$tmp/a.txt" <<'EOF'
The committee approved the budget, after a long debate, and the chairman, who had opposed it, finally agreed, saying that the compromise was fair, balanced, and overdue.
EOF
sed 's/long debate/short debate/; s/overdue/late/' "$tmp/a.txt" >"$tmp/a2.txt"
cat >"$tmp/c.txt" <<'EOF'
Rain fell over the northern valleys, flooding roads, closing schools, and forcing farmers, already hurt by drought, to move cattle to higher ground, officials said.
EOF

json() { # json FILE_A FILE_B -> one JSON object on stdout
  "$NDD_BIN" compare --verifier signcd --json "$1" "$2"
}
check() { # check JSON want_duplicate
  python3 - "$1" "$2" <<'EOF'
import json, sys
o = json.loads(sys.argv[1])
for k in ('verifier', 'duplicate', 'ncd', 'c_a', 'c_b', 'c_ab'):
    if k not in o:
        print('FAIL: key %s missing in %s' % (k, sys.argv[1])); sys.exit(1)
if o['verifier'] != 'signcd' or not (0.0 <= o['ncd'] <= 1.0):
    print('FAIL: bad values', o); sys.exit(1)
if o['duplicate'] != (sys.argv[2] == '1'):
    print('FAIL: duplicate is %s, wanted %s' % (o['duplicate'], sys.argv[2])); sys.exit(1)
if o['duplicate'] != (o['ncd'] <= 0.7):
    print('FAIL: verdict disagrees with ncd <= tau', o); sys.exit(1)
EOF
}
j1=$(json "$tmp/a.txt" "$tmp/a2.txt") || { echo "FAIL: compare a a2 exited $?"; fail=1; }
check "$j1" 1 || fail=1
j2=$(json "$tmp/a2.txt" "$tmp/a.txt") || fail=1
n1=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["ncd"])' "$j1")
n2=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["ncd"])' "$j2")
[ "$n1" = "$n2" ] || { echo "FAIL: ncd not symmetric: $n1 vs $n2"; fail=1; }
j3=$(json "$tmp/a.txt" "$tmp/c.txt") || fail=1
check "$j3" 0 || fail=1
# same value as the all-pairs command on the same two texts
"$NDD_BIN" signcd --tau 1 "$tmp/a.txt" "$tmp/a2.txt" >"$tmp/pairs" 2>/dev/null || fail=1
n3=$(cut -f3 "$tmp/pairs")
python3 -c 'import sys; sys.exit(abs(float(sys.argv[1]) - float(sys.argv[2])) > 5e-7)' "$n1" "$n3" \
  || { echo "FAIL: compare ncd $n1 != signcd ncd $n3"; fail=1; }
[ "$fail" -eq 0 ] && echo "PASS: compare --verifier signcd"
exit "$fail"

#!/usr/bin/env bash
# The ndd executable does not link MPI; only the engine loads it, from the plugin
# libndd_mpi.so next to the executable (or $NDD_MPI_PLUGIN): 'ndd compare' maps no
# libmpi, 'ndd sig' (engine mpi) does; without the plugin, the engine's error names
# the path it looked at and exits 1, and --engine local still works.
set -euo pipefail
: "${NDD_BIN:?}"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for i in $(seq 1 30); do echo "Sentence $i of the note is long enough to be a sentence of its own."; done >"$tmp/a.txt"
sed 's/note/memo/' "$tmp/a.txt" >"$tmp/b.txt"
plugin=$(dirname "$NDD_BIN")/libndd_mpi.so
[ -f "$plugin" ] || fail "$plugin was not built beside $NDD_BIN"

readelf -d "$NDD_BIN" | grep NEEDED | grep -qi mpi && fail "ndd links an MPI library"
LD_DEBUG=libs "$NDD_BIN" compare "$tmp/a.txt" "$tmp/b.txt" 2>"$tmp/compare.ld" >/dev/null || fail "ndd compare"
grep -qi 'libmpi' "$tmp/compare.ld" && fail "ndd compare loads libmpi"
LD_DEBUG=libs "$NDD_BIN" sig "$tmp/a.txt" 2>"$tmp/sig.ld" >"$tmp/sig.mpi" || fail "ndd sig"
grep -q 'libmpi' "$tmp/sig.ld" || fail "ndd sig (engine mpi) did not load libmpi"
"$NDD_BIN" sig --engine local:2 "$tmp/a.txt" 2>/dev/null >"$tmp/sig.local" || fail "ndd sig --engine local:2"
cmp -s "$tmp/sig.mpi" "$tmp/sig.local" || fail "sig output differs between the engines"

# the executable alone, without its plugin
cp "$NDD_BIN" "$tmp/ndd"
set +e
"$tmp/ndd" sig "$tmp/a.txt" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "missing plugin: exit $rc, not 1"
grep -q "$tmp/libndd_mpi.so" "$tmp/err" || { cat "$tmp/err"; fail "missing plugin: the message does not name the path"; }
"$tmp/ndd" sig --engine local:1 "$tmp/a.txt" >"$tmp/sig.alone" 2>/dev/null || fail "--engine local without the plugin"
cmp -s "$tmp/sig.mpi" "$tmp/sig.alone" || fail "sig output differs without the plugin"
NDD_MPI_PLUGIN=$plugin "$tmp/ndd" sig "$tmp/a.txt" >"$tmp/sig.env" 2>/dev/null || fail "NDD_MPI_PLUGIN=$plugin"
cmp -s "$tmp/sig.mpi" "$tmp/sig.env" || fail "sig output differs with NDD_MPI_PLUGIN"
set +e
NDD_MPI_PLUGIN=$tmp/a.txt "$tmp/ndd" sig "$tmp/a.txt" >/dev/null 2>"$tmp/err"
rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "$tmp/a.txt" "$tmp/err" || fail "a bad NDD_MPI_PLUGIN: exit $rc, $(cat "$tmp/err")"
echo "PASS: MPI loaded only by the engine, from $plugin"

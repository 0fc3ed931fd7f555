#!/usr/bin/env bash
# On one node the MPI engine leaves Open MPI's "cm" point-to-point layer out
# (OMPI_MCA_pml=^cm, mpi/mpi_plugin.c): opening it probes libfabric's networks,
# 0.2 s of every start-up. Seen through Open MPI's own log: cm opens the MTL
# framework, whose verbose lines ('mtl') appear only when it is opened.
#   - mpirun -n 2 and a singleton (no launcher): no MTL opened, the run's
#     outputs the same as with Open MPI's own choice;
#   - NDD_MPI_KEEP_PML=1: Open MPI's own choice (the MTL is opened: the check
#     above can fail);
#   - a PML the user chose (OMPI_MCA_pml, as mpirun --mca pml sets) is kept.
set -euo pipefail
: "${NDD_BIN:?}"
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
command -v ompi_info >/dev/null || { echo "SKIP: not Open MPI (ompi_info not found)"; exit 77; }
ompi_info | grep -q 'MCA pml: cm' || { echo "SKIP: this Open MPI has no cm layer"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
unset OMPI_MCA_pml NDD_MPI_KEEP_PML
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for d in 1 2 3 4 5 6; do
  for i in $(seq 1 12); do echo "Report $d line $i: the board met on Tuesday and agreed the plan for the year."; done >"$tmp/d$d.txt"
done
cp "$tmp/d1.txt" "$tmp/d7.txt"
mtl_lines() { grep -c 'mtl' "$1" || true; }

# name, launcher...: one run, its MTL log lines in $tmp/name.log
run() {
  local name=$1
  shift
  "$@" "$NDD_BIN" run -q -o "$tmp/$name" "$tmp"/d*.txt >"$tmp/$name.out" 2>"$tmp/$name.log" ||
    { cat "$tmp/$name.log"; fail "$name: ndd run failed"; }
}
export OMPI_MCA_mtl_base_verbose=10
run two mpirun -n 2
[ "$(mtl_lines "$tmp/two.log")" -eq 0 ] || fail "mpirun -n 2 on one node opened the MTL (cm not left out)"
run single env
[ "$(mtl_lines "$tmp/single.log")" -eq 0 ] || fail "a singleton opened the MTL (cm not left out)"
NDD_MPI_KEEP_PML=1 run keep mpirun -n 2
[ "$(mtl_lines "$tmp/keep.log")" -gt 0 ] || fail "NDD_MPI_KEEP_PML=1: the MTL was not opened (Open MPI's own choice not kept)"
OMPI_MCA_pml='^v' run user mpirun -n 2
[ "$(mtl_lines "$tmp/user.log")" -gt 0 ] || fail "OMPI_MCA_pml=^v (the user's choice) was overridden"
for f in pairs.tsv scores.tsv clusters.tsv; do
  for v in single keep user; do
    cmp -s "$tmp/two/$f" "$tmp/$v/$f" || fail "$f differs between mpirun -n 2 and run '$v'"
  done
done
grep -q . "$tmp/two/pairs.tsv" && [ "$(wc -l <"$tmp/two/pairs.tsv")" -ge 2 ] || fail "no pair found (d1 = d7)"
echo "PASS: cm left out on one node (mpirun -n 2, singleton); NDD_MPI_KEEP_PML and a user's PML kept"

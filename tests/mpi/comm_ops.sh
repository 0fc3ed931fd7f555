#!/usr/bin/env bash
# The transport interface (src/engine/ndd_comm.h) on both engines: ndd_comm_check
# (tests/tools) runs every op - agree, allreduce of each type and op, allgather,
# exchange, write_ordered over a longer old file, the progress sums - and checks
# the results against what each rank computes alone. MPI: mpirun -n 1..4, also
# with NDD_MPI_CHUNK=7 (hundreds of rounds per exchange and allgather); local
# engine: 1..4 threads; both also with NDD_COMM_FAR=1 (near: only the rank
# itself; else every rank of this one machine).
set -euo pipefail
: "${NDD_BINARY_DIR:?}"
tool=$NDD_BINARY_DIR/ndd_comm_check
[ -x "$tool" ] || { echo "SKIP: $tool not built"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # OpenMPI's own leaks at exit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
for p in 1 2 3 4; do
  for run in "mpirun -n $p --oversubscribe $tool mpi" "env NDD_MPI_CHUNK=7 mpirun -n $p --oversubscribe $tool mpi" \
             "$tool local:$p" "mpirun -n $p --oversubscribe -x NDD_COMM_FAR=1 $tool mpi" "env NDD_COMM_FAR=1 $tool local:$p"; do
    # shellcheck disable=SC2086
    out=$($run "$tmp") || { echo "FAIL: $run"; echo "$out"; exit 1; }
    case $out in ok:*) n=$((n + 1)) ;; *) echo "FAIL: $run printed '$out'"; exit 1 ;; esac
  done
done
echo "PASS: transport ops on both engines, 1-4 ranks ($n runs)"

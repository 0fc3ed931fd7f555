#!/usr/bin/env bash
# bench-slurm.sh - what running ndd through a real local Slurm costs on this
# machine: cluster start/stop (1 and 2 nodes), and wall time from submission to
# the last job's end for slurm/ndd.sbatch (1 node, 2 nodes) and
# slurm/ndd-stages.sh, against plain mpirun on the same corpus. Checks that every
# way gives byte-identical TSV outputs. Needs root and the slurm/munge packages.
#
#   scripts/bench-slurm.sh [BUILD_DIR] [CORPUS_SIZE] [MAP_TASKS]
#   (defaults: build, 20MB, 8; ranks: 2 on one node, 2+2 on two nodes)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
size=${2:-20MB}
maptasks=${3:-8}
ndd=$(cd "$root" && cd "$build" && pwd)/ndd
[ -x "$ndd" ] || { echo "bench-slurm.sh: no $ndd (build first)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PATH=$PATH:/usr/sbin
tmp=$(mktemp -d /tmp/ndd-bench-slurm.XXXXXX)
chmod 755 "$tmp"
cluster=""
cleanup() {
  [ -z "$cluster" ] || bash "$root/scripts/slurm-local.sh" stop --dir "$cluster" >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
waitq() { while squeue -h -j "$1" -o %i 2>/dev/null | grep -q .; do sleep 0.2; done; }
same() {
  local f
  for f in pairs.tsv clusters.tsv scores.tsv rejects.tsv; do
    cmp -s "$tmp/ref/$f" "$1/$f" || { echo "bench-slurm.sh: $f of $1 differs from mpirun" >&2; exit 1; }
  done
}
start() { # NODES; sets t_start
  local t
  cluster=$tmp/cluster$1
  t=$(now)
  bash "$root/scripts/slurm-local.sh" start --nodes "$1" --cpus 2 --dir "$cluster" >"$tmp/env" 2>"$tmp/start.err" ||
    { cat "$tmp/start.err" >&2; echo "bench-slurm.sh: slurm-local.sh start failed" >&2; exit 1; }
  t_start=$(since "$t")
  . "$tmp/env"
  export SLURM_CONF
}
stop() { # sets t_stop
  local t
  t=$(now)
  bash "$root/scripts/slurm-local.sh" stop --dir "$cluster" 2>/dev/null
  cluster=""
  t_stop=$(since "$t")
}

src=reuters
[ -d "$root/../shared/datasets/reuters21578" ] || src=builtin
python3 "$root/datasets/gencrawl.py" --source $src --size "$size" --file-size 4MB --seed 11 --measure 100 -q \
  -o "$tmp/c" || exit 1
ls "$tmp"/c/crawl-* >"$tmp/inputs.txt"
mapfile -t inputs <"$tmp/inputs.txt"
docs=$(cat "$tmp"/c/crawl-* | wc -l)
echo "corpus: $src, $size requested, ${#inputs[@]} files, $docs documents; ndd $build"

t=$(now); mpirun -n 2 "$ndd" run -q -o "$tmp/ref" "${inputs[@]}" || exit 1; t_mpirun=$(since "$t")

start 1; t_start1=$t_start
t=$(now)
id=$(cd "$tmp" && NDD_BIN=$ndd sbatch --parsable -n 2 -o "$tmp/j1.log" "$root/slurm/ndd.sbatch" -o o1 --input-list inputs.txt -q)
waitq "$id"; t_sbatch1=$(since "$t"); same "$tmp/o1"
t=$(now)
(cd "$tmp" && NDD_BIN=$ndd bash "$root/slurm/ndd-stages.sh" -o os -w ws --input-list inputs.txt \
  --map-tasks "$maptasks" --reduce-ntasks 2 --reduce-opts -q --wait >/dev/null) || { echo "stages failed" >&2; exit 1; }
t_stages=$(since "$t"); same "$tmp/os"
stop; t_stop1=$t_stop

start 2; t_start2=$t_start
t=$(now)
id=$(cd "$tmp" && NDD_BIN=$ndd sbatch --parsable -N 2 --ntasks-per-node=1 -o "$tmp/j2.log" "$root/slurm/ndd.sbatch" -o o2 --input-list inputs.txt -q)
waitq "$id"; t_sbatch2=$(since "$t"); same "$tmp/o2"
stop; t_stop2=$t_stop

printf '%-76s %8s\n' "what" "seconds"
printf '%-76s %8s\n' "slurm-local.sh start, 1 node" "$t_start1"
printf '%-76s %8s\n' "slurm-local.sh stop, 1 node" "$t_stop1"
printf '%-76s %8s\n' "slurm-local.sh start, 2 nodes (namespaces)" "$t_start2"
printf '%-76s %8s\n' "slurm-local.sh stop, 2 nodes" "$t_stop2"
printf '%-76s %8s\n' "mpirun -n 2 ndd run" "$t_mpirun"
printf '%-76s %8s\n' "sbatch -n 2 slurm/ndd.sbatch, submit to end" "$t_sbatch1"
printf '%-76s %8s\n' "sbatch -N 2 --ntasks-per-node=1 slurm/ndd.sbatch, submit to end" "$t_sbatch2"
printf '%-76s %8s\n' "slurm/ndd-stages.sh $maptasks map tasks + 2 reduce jobs (2 ranks), submit to end" "$t_stages"
echo "all outputs byte-identical to mpirun"

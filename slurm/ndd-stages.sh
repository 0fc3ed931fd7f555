#!/usr/bin/env bash
# ndd-stages.sh - ndd as a chain of small Slurm jobs, for busy clusters where one
# large MPI allocation waits long in the queue (MapReduce style):
#
#   map     a job array of --map-tasks single-core tasks; task I of N reads exactly
#           the share of the input that rank I of N would read, computes its
#           signatures and writes its shard to WORK/map/ (shared storage):
#             ndd run --map-task I --map-tasks N --work-dir WORK [MAP-OPTS] INPUT...
#           Arrays larger than the cluster's MaxArraySize are split into several
#           arrays (task I = offset + SLURM_ARRAY_TASK_ID).
#   verify  one MPI job, after every map array succeeded (--dependency=afterok):
#             srun ndd run --resume WORK --stop-after verify [REDUCE-OPTS]
#   output  one MPI job after 'verify' succeeded:
#             srun ndd run --resume WORK -o OUTDIR [REDUCE-OPTS]
#   The outputs in OUTDIR are those of the single job (slurm/ndd.sbatch) on the
#   same input. A re-submission over the same WORK skips finished map tasks.
#
# usage: slurm/ndd-stages.sh -o OUTDIR -w WORKDIR [options] [INPUT...]
#   -o, --output DIR        final output directory (required)
#   -w, --work-dir DIR      shared work directory for shards, checkpoints, logs (required)
#   --input-list FILE       one input path per line ('#' lines and blank lines skipped)
#   --map-tasks N           number of map tasks (default: number of inputs, at most 1000)
#   --map-parallel K        at most K map tasks of an array at once (sbatch --array ...%K)
#   --map-opts "OPTS"       input/text/signature options of 'ndd run' for the map tasks
#   --reduce-ntasks P       MPI ranks of the two reduce jobs (default 2)
#   --reduce-nodes N        nodes of the reduce jobs (default: Slurm's choice)
#   --reduce-opts "OPTS"    verification/output options of 'ndd run' for the reduce jobs
#   --sbatch-opts "OPTS"    extra sbatch options for every job (partition, account, time, mem)
#   --max-array N           use N instead of the cluster's MaxArraySize (for tests)
#   --wait                  wait until the chain ends; exit 0 only if every job completed,
#                           else print the failed jobs' logs and exit 1
#   -h, --help              this text
# Environment: NDD_BIN (default 'ndd' on PATH, else build/ndd here), NDD_SRUN_MPI
#   (default pmix). Relative paths are made absolute before submission.
# Prints the job ids as 'map JOBID...', 'verify JOBID', 'output JOBID'; logs go to
# WORKDIR/logs/. Exit codes: 0 ok, 1 submission or (with --wait) job failure, 2 bad usage.
set -uo pipefail

die() { echo "ndd-stages.sh: $*" >&2; exit 1; }
usage_err() { echo "ndd-stages.sh: $*" >&2; echo "Try 'slurm/ndd-stages.sh --help'." >&2; exit 2; }
abspath() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

# ------------------------------------------------------------------ #
# Inside a job: 'ndd-stages.sh --stage map|verify|output WORKDIR'.
# sbatch runs a spooled copy of this file; everything comes from WORK/stages.conf.
if [ "${1:-}" = "--stage" ]; then
  stage=${2:?} work=${3:?}
  # shellcheck source=/dev/null
  . "$work/stages.conf" || { echo "ndd-stages.sh: cannot read $work/stages.conf" >&2; exit 1; }
  srun_mpi=(srun --mpi="${NDD_SRUN_MPI:-pmix}" --kill-on-bad-exit=1)
  echo "ndd-stages.sh: $stage, job ${SLURM_JOB_ID:-?} task ${SLURM_ARRAY_TASK_ID:--} on ${SLURM_JOB_NODELIST:-?}, $(date -u +%FT%TZ)"
  case $stage in
    map)
      task=$((${NDD_MAP_OFFSET:?} + ${SLURM_ARRAY_TASK_ID:?}))
      [ "$task" -lt "$MAP_TASKS" ] || { echo "ndd-stages.sh: map task $task beyond $MAP_TASKS" >&2; exit 1; }
      set -- "$NDD" run --map-task "$task" --map-tasks "$MAP_TASKS" --work-dir "$work" "${MAP_OPTS[@]}" "${INPUTS[@]}"
      ;;
    verify) set -- "${srun_mpi[@]}" "$NDD" run --resume "$work" --stop-after verify "${REDUCE_OPTS[@]}" ;;
    output) set -- "${srun_mpi[@]}" "$NDD" run --resume "$work" -o "$OUTDIR" "${REDUCE_OPTS[@]}" ;;
    *) echo "ndd-stages.sh: unknown stage $stage" >&2; exit 2 ;;
  esac
  echo "ndd-stages.sh: $*" | cut -c1-2000
  "$@"
  rc=$?
  echo "ndd-stages.sh: $stage exited $rc, $(date -u +%FT%TZ)"
  exit $rc
fi

# ------------------------------------------------------------------ #
# Submission.
out="" work="" list="" map_tasks="" map_parallel="" reduce_ntasks=2 reduce_nodes="" max_array="" wait=0
map_opts="" reduce_opts="" sbatch_opts=""
inputs=()
while [ $# -gt 0 ]; do
  case $1 in
    -o|--output) out=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    -w|--work-dir) work=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --input-list) list=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --map-tasks) map_tasks=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --map-parallel) map_parallel=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --map-opts) map_opts=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --reduce-ntasks) reduce_ntasks=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --reduce-nodes) reduce_nodes=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --reduce-opts) reduce_opts=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --sbatch-opts) sbatch_opts=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --max-array) max_array=${2:-}; shift 2 || usage_err "$1 needs a value" ;;
    --wait) wait=1; shift ;;
    -h|--help) sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; inputs+=("$@"); break ;;
    -*) usage_err "unknown option '$1'" ;;
    *) inputs+=("$1"); shift ;;
  esac
done
[ -n "$out" ] || usage_err "-o OUTDIR is required"
[ -n "$work" ] || usage_err "-w WORKDIR is required"
isnum() { [[ $1 =~ ^[1-9][0-9]*$ ]]; }
[ -z "$map_tasks" ] || isnum "$map_tasks" || usage_err "--map-tasks takes a positive number"
[ -z "$map_parallel" ] || isnum "$map_parallel" || usage_err "--map-parallel takes a positive number"
isnum "$reduce_ntasks" || usage_err "--reduce-ntasks takes a positive number"
[ -z "$reduce_nodes" ] || isnum "$reduce_nodes" || usage_err "--reduce-nodes takes a positive number"
[ -z "$max_array" ] || isnum "$max_array" || usage_err "--max-array takes a positive number"
if [ -n "$list" ]; then
  [ -r "$list" ] || usage_err "cannot read the input list '$list'"
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    case $line in ''|'#'*) continue ;; esac
    inputs+=("$line")
  done <"$list"
fi
[ ${#inputs[@]} -gt 0 ] || usage_err "no INPUT given"
abs_inputs=()
for f in "${inputs[@]}"; do abs_inputs+=("$(abspath "$f")"); done
out=$(abspath "$out")
work=$(abspath "$work")
if [ -z "$map_tasks" ]; then
  map_tasks=${#inputs[@]}
  [ "$map_tasks" -le 1000 ] || map_tasks=1000
fi

ndd=${NDD_BIN:-}
if [ -z "$ndd" ]; then
  if command -v ndd >/dev/null; then ndd=$(command -v ndd)
  elif [ -x build/ndd ]; then ndd=$PWD/build/ndd
  else die "ndd not found: set NDD_BIN"
  fi
fi
ndd=$(abspath "$ndd")
[ -x "$ndd" ] || die "NDD_BIN '$ndd' is not executable"
help=$("$ndd" run --help 2>/dev/null)
grep -q -- '--map-task' <<<"$help" ||
  die "$ndd has no 'ndd run --map-task' (this ndd predates the staged mode)"
for b in sbatch squeue scontrol; do command -v $b >/dev/null || die "$b not found (no Slurm client here)"; done

if [ -z "$max_array" ]; then
  max_array=$(scontrol show config 2>/dev/null | awk '$1 == "MaxArraySize" {print $3}')
  isnum "${max_array:-x}" || die "cannot read MaxArraySize from 'scontrol show config'"
fi

mkdir -p "$work/logs" || die "cannot create $work/logs"
read -r -a map_opts_a <<<"$map_opts"
read -r -a reduce_opts_a <<<"$reduce_opts"
read -r -a sbatch_a <<<"$sbatch_opts"
qarray() { # NAME VALUE... -> NAME=(quoted values)
  local name=$1 v
  shift
  printf '%s=(' "$name"
  for v in "$@"; do printf ' %q' "$v"; done
  printf ' )\n'
}
{
  echo "# written by ndd-stages.sh at $(date -u +%FT%TZ); read by its stage jobs"
  printf 'NDD=%q\n' "$ndd"
  printf 'OUTDIR=%q\n' "$out"
  printf 'MAP_TASKS=%q\n' "$map_tasks"
  qarray MAP_OPTS "${map_opts_a[@]}"
  qarray REDUCE_OPTS "${reduce_opts_a[@]}"
  qarray INPUTS "${abs_inputs[@]}"
} >"$work/stages.conf.tmp" && mv "$work/stages.conf.tmp" "$work/stages.conf" || die "cannot write $work/stages.conf"

self=$(abspath "$0")
submit() { # prints the job id
  local id
  id=$(sbatch --parsable "${sbatch_a[@]}" "$@") || return 1
  printf '%s\n' "${id%%;*}"
}

# map: arrays of at most max_array tasks (indices 0..max_array-1)
map_ids=()
offset=0
while [ $offset -lt "$map_tasks" ]; do
  n=$((map_tasks - offset))
  [ $n -le "$max_array" ] || n=$max_array
  spec="0-$((n - 1))"
  [ -z "$map_parallel" ] || spec="$spec%$map_parallel"
  id=$(submit --job-name=ndd-map --array="$spec" --ntasks=1 --cpus-per-task=1 \
    --export=ALL,NDD_MAP_OFFSET=$offset --output="$work/logs/map-%A_%a.log" \
    "$self" --stage map "$work") || die "sbatch of map tasks $offset..$((offset + n - 1)) failed"
  map_ids+=("$id")
  offset=$((offset + n))
done
echo "map ${map_ids[*]}"
dep="afterok$(printf ':%s' "${map_ids[@]}")"
nodes_a=()
[ -z "$reduce_nodes" ] || nodes_a=(--nodes="$reduce_nodes")
vid=$(submit --job-name=ndd-verify --dependency="$dep" --ntasks="$reduce_ntasks" "${nodes_a[@]}" \
  --output="$work/logs/verify-%j.log" "$self" --stage verify "$work") || die "sbatch of the verify job failed"
echo "verify $vid"
oid=$(submit --job-name=ndd-output --dependency="afterok:$vid" --ntasks="$reduce_ntasks" "${nodes_a[@]}" \
  --output="$work/logs/output-%j.log" "$self" --stage output "$work") || die "sbatch of the output job failed"
echo "output $oid"
[ $wait = 1 ] || exit 0

# --wait: until every job left the queue, then check each one's state.
all=("${map_ids[@]}" "$vid" "$oid")
while squeue -h -j "$(IFS=,; echo "${all[*]}")" -o %i 2>/dev/null | grep -q .; do sleep 0.5; done
bad=0
for id in "${all[@]}"; do
  # an array job shows one record per task
  info=$(scontrol -o show job "$id" 2>/dev/null)
  while IFS= read -r rec; do
    [ -n "$rec" ] || continue
    st=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$rec")
    [ "$st" = COMPLETED ] && continue
    bad=1
    jid=$(sed -n 's/^JobId=\([0-9]*\).*/\1/p' <<<"$rec")
    if grep -q ' ArrayTaskId=[0-9]' <<<"$rec"; then # array task: ARRAYJOB_TASK
      jid=$(sed -n 's/.* ArrayJobId=\([0-9]*\).*/\1/p' <<<"$rec")_$(sed -n 's/.* ArrayTaskId=\([0-9]*\).*/\1/p' <<<"$rec")
    fi
    log=$(sed -n 's/.*StdOut=\([^ ]*\).*/\1/p' <<<"$rec")
    echo "ndd-stages.sh: job $jid ($(sed -n 's/.*JobName=\([^ ]*\).*/\1/p' <<<"$rec")) ended $st" >&2
    [ -n "$log" ] && [ -f "$log" ] && { echo "---- $log ----" >&2; tail -n 50 "$log" >&2; }
  done <<<"$info"
done
[ $bad = 0 ] || exit 1
echo "ndd-stages.sh: all stages completed; outputs in $out"

# common.bash - sourced by tests/slurm/*.sh: a private local Slurm
# (scripts/slurm-local.sh) in a mktemp directory, job waiting with the log shown
# on failure, a generated corpus and the mpirun reference run.
# Env (from ctest): NDD_BIN, NDD_SOURCE_DIR, NDD_DATASETS. Exit 77 = skip.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
SRC=${NDD_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export PATH=$PATH:/usr/sbin

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" = 0 ] || skip "a local Slurm needs root (munged and slurmd run as root here)"
for b in munged slurmctld slurmd sbatch squeue scontrol srun mpirun python3; do
  command -v "$b" >/dev/null || skip "$b not installed (scripts/setup.sh installs slurmctld slurmd slurm-client munge)"
done

tmp=$(mktemp -d /tmp/ndd-slurm-test.XXXXXX)
chmod 755 "$tmp"
cluster_started=0
cleanup() {
  if [ $cluster_started = 1 ]; then
    bash "$SRC/scripts/slurm-local.sh" stop --dir "$tmp/cluster" >/dev/null 2>&1 ||
      echo "WARNING: slurm-local.sh stop reported a problem (see $tmp)"
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM # ctest's timeout: still stop the cluster (EXIT trap)
trap 'exit 130' INT

# start_cluster NODES [more slurm-local.sh options]
start_cluster() {
  local nodes=$1 rc
  shift
  cluster_started=1
  bash "$SRC/scripts/slurm-local.sh" start --nodes "$nodes" --dir "$tmp/cluster" "$@" >"$tmp/cluster.env" 2>"$tmp/cluster.err"
  rc=$?
  if [ $rc = 3 ]; then cat "$tmp/cluster.err"; skip "slurm-local.sh cannot run on this machine"; fi
  [ $rc = 0 ] || { cat "$tmp/cluster.err"; fail "slurm-local.sh start --nodes $nodes exited $rc"; }
  # shellcheck source=/dev/null
  . "$tmp/cluster.env"
  [ -f "${SLURM_CONF:-}" ] || fail "no SLURM_CONF from slurm-local.sh"
  export SLURM_CONF
  echo "cluster: $(sinfo -h -N -o '%N:%T' | tr '\n' ' ')"
}

# job_field ID FIELD -> value from 'scontrol show job' (first record)
job_field() { scontrol -o show job "$1" 2>/dev/null | head -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# wait_jobs TIMEOUT ID... : waits until none is queued or running; every record
# (array tasks too) must be COMPLETED, else the test fails showing each failed
# job's state and log.
wait_jobs() {
  local limit=$1 t=0 ids
  shift
  ids=$(IFS=,; echo "$*")
  while squeue -h -j "$ids" -o %i 2>/dev/null | grep -q .; do
    sleep 0.5
    t=$((t + 1))
    if [ $t -gt $((limit * 2)) ]; then
      squeue -j "$ids"
      scancel "$@" 2>/dev/null
      fail "jobs $ids still queued or running after ${limit}s (cancelled)"
    fi
  done
  local id rec st bad=0 log
  for id in "$@"; do
    while IFS= read -r rec; do
      [ -n "$rec" ] || continue
      st=$(tr ' ' '\n' <<<"$rec" | sed -n 's/^JobState=//p')
      [ "$st" = COMPLETED ] && continue
      bad=1
      echo "job $(tr ' ' '\n' <<<"$rec" | sed -n 's/^JobId=//p') $(tr ' ' '\n' <<<"$rec" | sed -n 's/^JobName=//p'): $st, $(tr ' ' '\n' <<<"$rec" | grep -E '^(ExitCode|Reason)=' | tr '\n' ' ')"
      log=$(tr ' ' '\n' <<<"$rec" | sed -n 's/^StdOut=//p')
      if [ -n "$log" ] && [ -f "$log" ]; then echo "---- job log $log ----"; cat "$log"; echo "----"; fi
    done < <(scontrol -o show job "$id" 2>/dev/null)
  done
  [ $bad = 0 ] || fail "job(s) $ids did not complete"
}

# make_corpus DIR SIZE [FILE_SIZE [SEED]]: a crawl-like corpus from the real
# Reuters articles (the embedded demo articles when the datasets are absent).
make_corpus() {
  local src=reuters
  [ -d "${NDD_DATASETS:-/nonexistent}/reuters21578" ] || { src=builtin; echo "note: datasets absent, demo articles"; }
  python3 "$SRC/datasets/gencrawl.py" --source "$src" --size "$2" --file-size "${3:-64MB}" --seed "${4:-7}" \
    --measure 50 -q -o "$1" || fail "gencrawl.py failed"
}

# same_outputs REF OUT [strict]: the four TSV files byte-identical, and
# stats.json equal in its counts: with 'strict' (same number of ranks) in every
# field but timings and memory, else in the rank-independent sections.
same_outputs() {
  local f
  for f in pairs.tsv clusters.tsv scores.tsv rejects.tsv; do
    [ -f "$2/$f" ] || fail "$2/$f missing"
    cmp "$1/$f" "$2/$f" || fail "$f differs from the mpirun reference"
  done
  [ "$(wc -l <"$1/pairs.tsv")" -gt 1 ] || fail "the reference found no pair (corpus too small?)"
  python3 - "$1/stats.json" "$2/stats.json" "${3:-}" <<'EOF' || fail "stats.json counts differ"
import json, re, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
volatile = re.compile(r"seconds|rss|time|memory|progress|checkpoint|resume|work_dir|^command$"  # command: its -o and option order
                      r"|^shuffle2_texts_compressed$|^shuffle2_texts_raw$|^per_doc$"  # texts go compressed, and without
                      # their candidate keys, only to other nodes: the node layout's
                      r"|^work_max_rank$|^work_min_rank$|^shuffle3_rows$")  # the last sets are shared out by timing
                      # (run_verify.c): the work each rank verified and the rows that then cross ranks
def counts(v):
    if isinstance(v, dict):
        return {k: counts(x) for k, x in v.items() if not volatile.search(k)}
    if isinstance(v, list):
        return [counts(x) for x in v]
    return v
if sys.argv[3] == "strict":
    a, b = counts(a), counts(b)
else:
    a = {k: a.get(k) for k in ("read", "signatures", "clusters")}
    b = {k: b.get(k) for k in ("read", "signatures", "clusters")}
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(f"stats.json {k}: reference {a.get(k)}\n      this run  {b.get(k)}")
    sys.exit(1)
EOF
  echo "outputs identical to the mpirun reference ($(($(wc -l <"$1/pairs.tsv") - 1)) pairs)"
}

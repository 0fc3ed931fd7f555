#!/usr/bin/env bash
# slurm: slurm/ndd.sbatch on a real one-node local Slurm (scripts/slurm-local.sh):
# the job's outputs are byte-identical to 'mpirun -n 2 ndd run' on the same input;
# the log names the host of every rank; a job whose input is missing ends FAILED
# with ndd's exit code 1 and its error in the log (environment-variable form).
# The job asks --mem=800M: each rank's default memory budget is 75 % of it over
# the node's 2 ranks (stats.json memory, issue 14).
. "$(dirname "$0")/common.bash"

start_cluster 1 --cpus 2
make_corpus "$tmp/corpus" 3MB 1200KB
ls "$tmp"/corpus/crawl-* >"$tmp/inputs.txt"
mapfile -t inputs <"$tmp/inputs.txt"
[ "$(wc -l <"$tmp/inputs.txt")" -ge 2 ] || fail "expected several corpus files"

mpirun -n 2 "$NDD" run -q -o "$tmp/ref" "${inputs[@]}" || fail "reference mpirun run failed"

id=$(cd "$tmp" && NDD_BIN=$NDD sbatch --parsable -n 2 --mem=800M --output="$tmp/job-%j.log" \
  "$SRC/slurm/ndd.sbatch" -o out --input-list inputs.txt -q) || fail "sbatch failed"
echo "submitted job $id"
wait_jobs 600 "$id"
log=$tmp/job-$id.log
same_outputs "$tmp/ref" "$tmp/out" strict
grep -q '^ndd.sbatch: rank 0: ' "$log" && grep -q '^ndd.sbatch: rank 1: ' "$log" ||
  { cat "$log"; fail "the log does not name the host of each rank"; }
grep -q 'ndd run exited 0' "$log" || { cat "$log"; fail "no exit line in the log"; }
budget=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["memory"]; print(m["budget_per_rank_bytes"], m["budget_source"])' "$tmp/out/stats.json")
[ "$budget" = "314572800 75 % of 0.8 GiB (SLURM_MEM_PER_NODE) over 2 ranks on the node" ] ||
  fail "the budget does not follow the job's --mem=800M: $budget"
echo "budget per rank: $budget"

# a failing job: missing input, given through the environment variables
echo "$tmp/no-such-file.jsonl" >"$tmp/bad.txt"
bad=$(cd "$tmp" && NDD_BIN=$NDD NDD_OUTPUT=$tmp/bad NDD_INPUT_LIST=$tmp/bad.txt NDD_RUN_OPTS="-q" \
  sbatch --parsable -n 2 --output="$tmp/bad-%j.log" "$SRC/slurm/ndd.sbatch") || fail "sbatch (bad) failed"
while squeue -h -j "$bad" -o %i 2>/dev/null | grep -q .; do sleep 0.5; done
st=$(job_field "$bad" JobState) ec=$(job_field "$bad" ExitCode)
[ "$st" = FAILED ] && [ "$ec" = "1:0" ] || { cat "$tmp/bad-$bad.log"; fail "bad job: state $st exit $ec (want FAILED 1:0)"; }
grep -q 'no-such-file' "$tmp/bad-$bad.log" || { cat "$tmp/bad-$bad.log"; fail "bad job's log does not name the missing input"; }
echo "failing job detected: $st $ec"
echo "PASS"

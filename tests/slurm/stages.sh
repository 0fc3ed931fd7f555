#!/usr/bin/env bash
# slurm: slurm/ndd-stages.sh on a real local Slurm whose MaxArraySize is 3:
# 5 map tasks must be split into two job arrays (3 + 2 tasks), then the two
# dependent reduce jobs (--resume ... --stop-after verify, then --resume ... -o)
# run on 2 ranks; the outputs are byte-identical to 'mpirun -n 2 ndd run'.
# A chain whose map stage fails ends with the dependent jobs cancelled and
# 'ndd-stages.sh --wait' exiting 1 with the failed task's log shown.
. "$(dirname "$0")/common.bash"
"$NDD" run --help | grep -- '--map-task' >/dev/null || skip "this ndd has no 'ndd run --map-task' yet"

start_cluster 1 --cpus 2 --max-array 3
make_corpus "$tmp/corpus" 3MB 600KB
ls "$tmp"/corpus/crawl-* >"$tmp/inputs.txt"
mapfile -t inputs <"$tmp/inputs.txt"
[ "$(wc -l <"$tmp/inputs.txt")" -ge 3 ] || fail "expected several corpus files"

mpirun -n 2 "$NDD" run -q -o "$tmp/ref" "${inputs[@]}" || fail "reference mpirun run failed"

(cd "$tmp" && NDD_BIN=$NDD bash "$SRC/slurm/ndd-stages.sh" -o out -w work --input-list inputs.txt \
  --map-tasks 5 --reduce-ntasks 2 --reduce-opts "-q" --wait) >"$tmp/stages.out" 2>&1
rc=$?
cat "$tmp/stages.out"
[ $rc = 0 ] || fail "ndd-stages.sh --wait exited $rc"
nmap=$(sed -n 's/^map //p' "$tmp/stages.out" | wc -w)
[ "$nmap" = 2 ] || fail "5 map tasks with MaxArraySize=3 gave $nmap array job(s), want 2"
same_outputs "$tmp/ref" "$tmp/out"
for f in "$tmp"/work/logs/map-*.log; do grep -q 'map exited 0' "$f" || { cat "$f"; fail "map log $f"; }; done
[ "$(ls "$tmp"/work/logs/map-*.log | wc -l)" = 5 ] || fail "want 5 map logs"

# a failing chain: an input that does not exist
echo "$tmp/no-such-file.jsonl" >"$tmp/bad.txt"
(cd "$tmp" && NDD_BIN=$NDD bash "$SRC/slurm/ndd-stages.sh" -o bad-out -w bad-work --input-list bad.txt \
  --map-tasks 2 --reduce-ntasks 2 --wait) >"$tmp/bad.out" 2>&1
rc=$?
[ $rc = 1 ] || { cat "$tmp/bad.out"; fail "a failing chain: ndd-stages.sh --wait exited $rc, want 1"; }
grep -q 'no-such-file' "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "the failed map task's log is not shown"; }
grep -q 'ndd-output) ended CANCELLED' "$tmp/bad.out" || { cat "$tmp/bad.out"; fail "the output job was not cancelled"; }
[ ! -e "$tmp/bad-out/pairs.tsv" ] || fail "a failed chain wrote outputs"
echo "failing chain detected"
echo "PASS"

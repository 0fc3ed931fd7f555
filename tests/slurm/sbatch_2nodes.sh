#!/usr/bin/env bash
# slurm: slurm/ndd.sbatch on a real two-node local Slurm: two slurmd in their own
# network (and UTS) namespaces joined by a private bridge (scripts/slurm-local.sh
# --nodes 2). 4 ranks, 2 per node: the outputs are byte-identical to
# 'mpirun -n 4 ndd run'; the log shows ranks on both n1 and n2; the nodes' veth
# links carried at least a quarter of the signature shuffle's bytes (MPI traffic
# really crossed "hosts"); shuffle 2 compressed only the texts it sent across nodes.
. "$(dirname "$0")/common.bash"
command -v ip >/dev/null && command -v nsenter >/dev/null || skip "iproute2/nsenter missing"

start_cluster 2 --cpus 2
make_corpus "$tmp/corpus" 3MB 1200KB
ls "$tmp"/corpus/crawl-* >"$tmp/inputs.txt"
mapfile -t inputs <"$tmp/inputs.txt"

mpirun -n 4 "$NDD" run -q -o "$tmp/ref" "${inputs[@]}" || fail "reference mpirun run failed"

links=$(awk '$1 == "link" && $2 ~ /^ndv/ {print $2}' "$tmp/cluster/state")
[ -n "$links" ] || fail "no veth links recorded by slurm-local.sh"
rx() { local s=0 l; for l in $links; do s=$((s + $(cat "/sys/class/net/$l/statistics/rx_bytes"))); done; echo $s; }
before=$(rx)

id=$(cd "$tmp" && NDD_BIN=$NDD sbatch --parsable -N 2 --ntasks-per-node=2 --output="$tmp/job-%j.log" \
  "$SRC/slurm/ndd.sbatch" -o "$tmp/out" --input-list "$tmp/inputs.txt" -q) || fail "sbatch failed"
echo "submitted job $id"
wait_jobs 600 "$id"
after=$(rx)
log=$tmp/job-$id.log
cat "$log"
same_outputs "$tmp/ref" "$tmp/out" strict
hosts=$(sed -n 's/^ndd.sbatch: rank [0-9]*: //p' "$log" | sort | uniq -c | awk '{print $2 "x" $1}' | tr '\n' ' ')
[ "$hosts" = "n1x2 n2x2 " ] || fail "ranks ran on '$hosts', want 2 on n1 and 2 on n2"
grep -q 'on n\[1-2\]' "$log" || fail "SLURM_JOB_NODELIST is not n[1-2]"
# shuffle 2 compresses the texts it sends to the other node only (ndd_comm_near from
# MPI's shared-memory communicator): the reference, all on one node, sent them as they are
python3 - "$tmp/ref/stats.json" "$tmp/out/stats.json" <<'EOF' || fail "shuffle 2 did not compress between nodes only"
import json, sys
ref, out = (json.load(open(p))["shuffle_bytes"] for p in sys.argv[1:3])
print(f"shuffle 2: one node {ref['shuffle2_texts_compressed']} bytes sent for {ref['shuffle2_texts_raw']} raw; "
      f"two nodes {out['shuffle2_texts_compressed']} for {out['shuffle2_texts_raw']}")
sys.exit(not (ref["shuffle2_texts_compressed"] >= ref["shuffle2_texts_raw"] > 0 and
              out["shuffle2_texts_compressed"] < out["shuffle2_texts_raw"]))
EOF
shuffle=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["shuffle_bytes"]["shuffle1_signatures"])' "$tmp/out/stats.json")
crossed=$((after - before))
echo "bytes received on the nodes' veth links during the job: $crossed (signature shuffle: $shuffle)"
[ "$crossed" -ge $((shuffle / 4)) ] || fail "too little traffic crossed the namespaces"
echo "PASS"

#!/usr/bin/env bash
# Baseline methods benchmark (src/baselines). Prints its figures; the command
# and the figures measured go to docs/BENCHMARKS.md ("## Baselines
# (bench-baselines)") and docs/baselines.md.
#
# usage: scripts/bench-baselines.sh [MAX_DOCS [EDITED_COPIES]]
#   (default: every Reuters-21578 body, 2000 edited copies)
# On Reuters-21578 bodies (plus copies with 0-30% of their words deleted,
# replaced or followed by an insertion) it prints per method: keys per
# document and CPU time per document, candidate pairs (pairs sharing >= 1 key,
# as ndd run forms them) and how many the method's verifier accepts (with its
# CPU time per comparison); SimHash's permuted tables for t = 4, 5, 6 blocks
# (pairs within Hamming 3 found, extra candidates); SpotSigs' exact all-pairs
# matcher against an unpruned inverted index on the whole collection.
# Times are CPU time of one core (these machines are shared and noisy).
# env: BUILD (a build dir holding libndd_core.a; default: configure and build
#      build-bench-baselines/), NDD_DATASETS (default ../shared/datasets), CC
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
data=${NDD_DATASETS:-$root/../shared/datasets}
reuters=$data/reuters21578
if [ ! -d "$reuters" ]; then
    echo "SKIP: $reuters absent" >&2
    exit 77
fi
build=${BUILD:-$root/build-bench-baselines}
if [ ! -f "$build/libndd_core.a" ]; then
    cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DNDD_TESTS=OFF >/dev/null
fi
cmake --build "$build" --target ndd_core -j2 >/dev/null
bin=$build/bench_baselines
${CC:-cc} -std=c11 -O2 -D_POSIX_C_SOURCE=200809L -I"$root/src/baselines" -I"$root/src/util" \
    "$root/tests/bench/bench_baselines.c" "$build/libndd_core.a" -lxxhash -lcrypto -lzstd -lz -lm -o "$bin"
echo "# scripts/bench-baselines.sh ${1:-all} ${2:-2000}  ($(date -u +%Y-%m-%d), $(nproc) cores, $(uname -m))"
"$bin" "$reuters" "${1:-100000}" "${2:-2000}"

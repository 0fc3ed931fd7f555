#!/usr/bin/env bash
# Prints the CPU the benchmarks ran on: model name, x86 family and model,
# whether it has AVX-512, the core count ("?" for what /proc/cpuinfo does not
# say). The benchmarks' ratios move with it (this workplace's VMs have been AMD
# families 25 and 26: docs/BENCHMARKS.md).
set -euo pipefail
awk -F': *' '/^model name/ && n == "" {n = $2} /^cpu family/ && f == "" {f = $2} /^model\t/ && m == "" {m = $2}
  /^flags/ && x == "" {x = $2 ~ /avx512f/ ? "yes" : "no"}
  END {printf "%s (family %s, model %s, AVX-512 %s)", n == "" ? "?" : n, f == "" ? "?" : f, m == "" ? "?" : m,
       x == "" ? "?" : x}' /proc/cpuinfo
echo ", $(nproc) cores"

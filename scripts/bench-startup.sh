#!/usr/bin/env bash
# Process start-up cost of a local subcommand: 'ndd compare' of two 2 KB files,
# per process, minus that of a trivial process (/bin/true) started the same
# way. Goal (issue 10): within 1.5 ms, i.e. no OpenMPI loading for commands
# that do not need MPI (the ndd executable no longer links libmpi; only
# --engine mpi loads it, through the plugin libndd_mpi.so).
#
# usage: scripts/bench-startup.sh [NEW_NDD [OLD_NDD [ALT_NDD...]]]
#   NEW_NDD  the ndd to measure (default build/ndd)
#   OLD_NDD  optional: an ndd to compare with in the same run (e.g. a build of
#            the commit before, which linked libmpi), for a ratio measured on
#            the same machine at the same time (these machines are noisy)
#   ALT_NDD  more builds to measure alongside (e.g. -DNDD_STATIC_DEPS=OFF),
#            shown as alt1, alt2, ...
# env: N (default 300 runs of each), BLOCK (default 30): the runs go in blocks
#      of BLOCK, the contenders taking turns block by block.
# Prints, per contender, the mean wall time per process, the median of the
# block means, the overhead over /bin/true, and the CPU time (user + system)
# per process and its overhead: the CPU figures hold better on a loaded machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
new=${1:-$root/build/ndd}
old=${2:-}
alts=("${@:3}")
N=${N:-300}
BLOCK=${BLOCK:-30}
[ -x "$new" ] || { echo "bench-startup: $new is not executable (build it, or give its path)" >&2; exit 2; }
[ -z "$old" ] || [ -x "$old" ] || { echo "bench-startup: $old is not executable" >&2; exit 2; }
[ $((N % BLOCK)) -eq 0 ] || { echo "bench-startup: N must be a multiple of BLOCK" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# two 2 KB near-duplicate texts (deterministic)
awk 'BEGIN { for (i = 1; i <= 40; i++) printf "Sentence %d of the report says the budget for roads rises by %d percent.\n", i, i % 7 }' \
  | head -c 2048 >"$tmp/a.txt"
sed 's/budget/spending/; s/roads/bridges/' "$tmp/a.txt" | head -c 2048 >"$tmp/b.txt"

names=(true new)
cmds=("/bin/true" "$new compare $tmp/a.txt $tmp/b.txt")
[ -n "$old" ] && names+=(old) && cmds+=("$old compare $tmp/a.txt $tmp/b.txt")
for i in "${!alts[@]}"; do
  [ -x "${alts[$i]}" ] || { echo "bench-startup: ${alts[$i]} is not executable" >&2; exit 2; }
  names+=("alt$((i + 1))") && cmds+=("${alts[$i]} compare $tmp/a.txt $tmp/b.txt")
done
for k in "${!names[@]}"; do
  # shellcheck disable=SC2086
  ${cmds[$k]} >/dev/null || { echo "bench-startup: '${cmds[$k]}' failed" >&2; exit 1; }
done
if [ -n "$old" ]; then
  cmp -s <("$new" compare "$tmp/a.txt" "$tmp/b.txt") <("$old" compare "$tmp/a.txt" "$tmp/b.txt") \
    || echo "note: the two builds print different reports for this pair"
fi

# CPU microseconds (user + system) of the finished children, from the output
# of the builtin 'times' (which must run in the shell that ran them)
child_cpu() {
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
                 printf "%.0f\n", t * 1e6 }' "$1"
}

# one block (in a subshell of its own): BLOCK runs of command k; prints the
# wall and the CPU microseconds taken
block() {
  local k=$1 i t0 t1
  # shellcheck disable=SC2206
  local cmd=(${cmds[$k]})
  times >"$tmp/times0"
  t0=${EPOCHREALTIME/./}
  for ((i = 0; i < BLOCK; i++)); do "${cmd[@]}" >/dev/null; done
  t1=${EPOCHREALTIME/./}
  times >"$tmp/times1"
  echo "$((t1 - t0)) $(($(child_cpu "$tmp/times1") - $(child_cpu "$tmp/times0")))"
}

nb=$((N / BLOCK))
for ((b = 0; b < nb; b++)); do
  nk=${#names[@]}
  for ((j = 0; j < nk; j++)); do
    k=$(((j + b) % nk)) # rotate who goes first
    echo "${names[$k]} $(block "$k")" >>"$tmp/blocks"
  done
done

echo "bench-startup: $N runs each in blocks of $BLOCK; ndd compare of two 2 KB files"
echo "  new: $new"
[ -n "$old" ] && echo "  old: $old"
for i in "${!alts[@]}"; do echo "  alt$((i + 1)): ${alts[$i]}"; done
awk -v block="$BLOCK" -v nalt="${#alts[@]}" '
  { us[$1] += $2; cpu[$1] += $3; n[$1]++; v[$1, n[$1]] = $2 / block }
  function median(name,   m, i, j, t, a) {
    m = n[name]
    for (i = 1; i <= m; i++) a[i] = v[name, i]
    for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
  }
  END {
    base = us["true"] / (n["true"] * block); cbase = cpu["true"] / (n["true"] * block)
    printf "  %-6s %10s %10s %14s %10s %14s\n", "", "mean ms", "median ms", "over true ms", "CPU ms", "CPU over true"
    no = split("true new old", order, " ")
    for (i = 1; i <= nalt; i++) order[++no] = "alt" i
    for (o = 1; o <= no; o++) {
      name = order[o]
      if (!(name in n)) continue
      mean = us[name] / (n[name] * block); c = cpu[name] / (n[name] * block)
      over[name] = mean - base; cover[name] = c - cbase
      printf "  %-6s %10.3f %10.3f %14.3f %10.3f %14.3f\n", name, mean / 1000, median(name) / 1000, (mean - base) / 1000,
        c / 1000, (c - cbase) / 1000
    }
    if ("old" in n && over["new"] > 0 && cover["new"] > 0)
      printf "  overhead old / new: wall %.2fx, CPU %.2fx\n", over["old"] / over["new"], cover["old"] / cover["new"]
    printf "  goal: new wall overhead <= 1.5 ms: %s\n", over["new"] <= 1500 ? "met" : "NOT met"
  }' "$tmp/blocks"

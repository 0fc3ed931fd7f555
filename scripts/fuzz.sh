#!/usr/bin/env bash
# Runs ndd's libFuzzer harnesses (fuzz/fuzz_*.c; clang, ASan + UBSan).
#
#   scripts/fuzz.sh [-j JOBS] [SECONDS] [HARNESS...]
#
# SECONDS   wall time per harness (default 60); HARNESS: json reader html
#           sentences verify signcd ckpt (default: all), with or without "fuzz_".
# -j JOBS   harnesses run at once (default 1; each uses one core).
# Environment:
#   NDD_FUZZ_BUILD  build directory (default build-fuzz; configured with CC=clang -DNDD_FUZZ=ON)
#   NDD_FUZZ_WORK   corpora, logs and crash files (default /tmp/ndd-fuzz); a corpus
#                   grows from run to run, so a longer campaign is this script
#                   run again (or with more SECONDS) on the same NDD_FUZZ_WORK
#   NDD_DATASETS    real corpora for extra seeds (default ../shared/datasets; skipped when absent)
#
# Seeds: fuzz/seeds/<harness>, fuzz/regress/<harness> (inputs that once
# crashed, also replayed by the normal test suite: unit.fuzz_*_replay) and
# excerpts of the real corpora written into NDD_FUZZ_WORK at run time (never
# into the repository). Prints per harness: executions, seconds, corpus size,
# and any crash / leak / out-of-memory / timeout with its input file; exits 1
# when any harness failed. A failing input belongs in fuzz/regress/<harness>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }
jobs=1
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    -j) [ $# -ge 2 ] || { echo "fuzz.sh: -j needs a number" >&2; exit 2; }; jobs=$2; shift 2 ;;
    *) break ;;
  esac
done
secs=60
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then secs=$1; shift; fi
all=(json reader html sentences verify signcd ckpt)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${all[@]}")
for i in "${!want[@]}"; do
  want[$i]=${want[$i]#fuzz_}
  [[ " ${all[*]} " == *" ${want[$i]} "* ]] || { echo "fuzz.sh: unknown harness '${want[$i]}' (${all[*]})" >&2; exit 2; }
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: -j takes a positive number" >&2; exit 2; }

command -v clang >/dev/null || bash "$root/scripts/setup.sh"
build=${NDD_FUZZ_BUILD:-$root/build-fuzz}
work=${NDD_FUZZ_WORK:-/tmp/ndd-fuzz}
data=${NDD_DATASETS:-$root/../shared/datasets}
mkdir -p "$work"
CC=clang cmake -S "$root" -B "$build" -DNDD_FUZZ=ON -DNDD_TESTS=OFF -DNDD_STATIC_DEPS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${want[@]/#/fuzz_}" >/dev/null

# excerpts of the real corpora as extra seeds (first bytes of each file only)
if [ -d "$data" ]; then
  python3 - "$data" "$work/dataset-seeds" <<'EOF'
import glob, gzip, json, os, sys
data, out = sys.argv[1], sys.argv[2]
def put(h, name, b):
    os.makedirs(os.path.join(out, h), exist_ok=True)
    with open(os.path.join(out, h, name), "wb") as f:
        f.write(b)
def gunzip(p, limit):
    try:
        with gzip.open(p, "rb") as f:
            return f.read(limit)
    except (OSError, EOFError):
        return b""
for p in sorted(glob.glob(os.path.join(data, "warc", "*"))):
    name, raw = os.path.basename(p), open(p, "rb").read()
    if p.endswith(".warc.gz"):
        put("reader", name + ".gz", b"\x04" + raw[:200000])      # as .warc.gz, compressed bytes as they are
        plain = gunzip(p, 60000)
        put("reader", name + ".plain", b"\x03" + plain)          # as .warc
        for k, part in enumerate(plain.split(b"\r\n\r\n<")[1:6]):  # HTML payloads
            put("html", "%s.%d" % (name, k), b"\x01<" + part[:30000])
    elif p.endswith(".jsonl.gz"):
        put("reader", name, b"\x01" + raw[:200000])
        for k, line in enumerate(gunzip(p, 200000).split(b"\n")[:8]):
            put("json", "%s.%d" % (name, k), line)
def text(p, limit=6000):
    try:
        return open(p, "rb").read(limit)
    except OSError:
        return b""
clough = sorted(glob.glob(os.path.join(data, "clough", "*.txt")))
for src in [p for p in clough if os.path.basename(p).startswith("orig_")][:5]:
    task = src.rsplit("_", 1)[1]
    for k, sus in enumerate([p for p in clough if p.endswith("_" + task) and not p.startswith(src)][:3]):
        pair = text(src) + b"\xff" + text(sus)
        put("verify", "clough-%s-%d" % (task, k), b"\x0e" + pair)
        put("signcd", "clough-%s-%d" % (task, k), pair)
    put("sentences", "clough-" + task, b"\x10" + text(src))
zh = sorted(glob.glob(os.path.join(data, "zh-fortunes", "*", "*")))[:3]
for k, p in enumerate(zh):
    t = text(p, 4000)
    put("sentences", "zh-%d" % k, b"\x04" + t)
    put("verify", "zh-%d" % k, b"\x8e" + t + b"\xff" + t[len(t) // 3:])
EOF
else
  echo "fuzz.sh: $data absent: committed seeds only"
fi

run_one() {
  local h=$1 dir="$work/$h" log="$work/$h.log" maxlen=65536
  [ "$h" = reader ] && maxlen=262144
  [ "$h" = verify ] && maxlen=16384
  mkdir -p "$dir" "$work/crashes/$h"
  local seeds=()
  for s in "$root/fuzz/seeds/fuzz_$h" "$root/fuzz/regress/fuzz_$h" "$work/dataset-seeds/$h"; do
    [ -d "$s" ] && seeds+=("$s")
  done
  local rc=0 t0 t1
  cpu_seconds > "$work/$h.cpu0"; t0=$(cat "$work/$h.cpu0")
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/fuzz_$h" -max_total_time="$secs" -max_len=$maxlen -rss_limit_mb=2048 -malloc_limit_mb=2048 \
    -timeout=10 -print_final_stats=1 -artifact_prefix="$work/crashes/$h/" "$dir" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  cpu_seconds > "$work/$h.cpu1"; t1=$(cat "$work/$h.cpu1")
  local execs secs_run cpu
  # (a crashed run's log has neither line: || true, or set -e would end this
  # subshell before it says what failed)
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  secs_run=$(grep -m1 'Done [0-9]* runs in' "$log" | sed 's/.* in \([0-9]*\) second.*/\1/' || true)
  cpu=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 60 }')
  local corpus; corpus=$(find "$dir" -type f | wc -l)
  if [ $rc -ne 0 ]; then
    echo "fuzz_$h: FAILED (exit $rc) after ${execs:-?} executions: $(grep -m1 -E 'ERROR|SUMMARY|invariant' "$log" || true)"
    echo "  input: $(ls -t "$work/crashes/$h"/* 2>/dev/null | head -1); log: $log"
    grep -A 40 -m1 -E '==ERROR|runtime error|Timeout|out-of-memory|invariant' "$log" | sed 's/^/  | /' || true
    return 1
  fi
  printf 'fuzz_%-10s %12s executions in %4s s (%s CPU-minutes), corpus %5d inputs, 0 crashes\n' "$h" "${execs:-?}" \
    "${secs_run:-?}" "$cpu" "$corpus"
}

# CPU seconds (user + system) used so far by this subshell's finished children
cpu_seconds() {
  local f; f=$(mktemp)
  times > "$f" # (the builtin, in this shell: a pipe would run it in a subshell of its own)
  awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$f"
  rm -f "$f"
}

fail=0
pids=()
for h in "${want[@]}"; do
  run_one "$h" > "$work/$h.summary" &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
for h in "${want[@]}"; do
  if [ -s "$work/$h.summary" ]; then cat "$work/$h.summary"
  else echo "fuzz_$h: FAILED without a summary; log: $work/$h.log"; tail -n 30 "$work/$h.log" 2>/dev/null || true; fail=1; fi
done
exit $fail

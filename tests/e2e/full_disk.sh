#!/usr/bin/env bash
# e2e (issue 12, item 1): a full disk never ends in a success summary over a partial
# output. A 300 KB tmpfs (mounted by the test; skipped where mount is not allowed):
# --write-dedup onto it exits 1, names the file and leaves no partial .zst; -o onto it
# exits 1 with the file named; so does -o onto it with the work directory elsewhere
# (the outputs' ordered write fails: the partial file removed); in-process ranks and,
# when present, mpirun (on one
# node each rank pwrite()s its part; with NDD_COMM_FAR=1 as if on nodes of their own:
# MPI-IO).
# The memory budget's spill files (issue 14): a work directory on a 1.2 MB tmpfs
# holds the map shards but not the texts spilled by --mem-per-rank 1M: exit 1, the
# spill file and the cause named.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
mnt=$tmp/full
mkdir -p "$mnt"
if ! mount -t tmpfs -o size=300k tmpfs "$mnt" 2>/dev/null; then
  rm -rf "$tmp"
  echo "SKIP: cannot mount a small tmpfs here (needs root)"
  exit 77
fi
trap 'umount "$mnt" 2>/dev/null; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 -c '
import json, random
random.seed(7)
w = "the of and a to in is that for on with as was at by an be this from or have it not are".split()
for i in range(3000):
    t = " ".join(random.choice(w) + str(random.randrange(10**6)) for _ in range(60))
    print(json.dumps({"id": "d%d" % i, "text": t}))
' > "$tmp/in.jsonl"
python3 -c '
import json, random
random.seed(7)
w = "the of and a to in is that for on with as was at by an be this from or have it not are".split()
for i in range(1500):
    t = ". ".join(" ".join(random.choice(w) + str(random.randrange(10**6)) for _ in range(12)) for _ in range(8))
    for c in range(4):
        print(json.dumps({"id": "d%d_%d" % (i, c), "url": "https://site%d.example/a/%d" % (c, i), "text": t + " extra%d" % c}))
' > "$tmp/dup.jsonl" # (4 copies of each text: about 1 MB of output rows)

launchers=("local")
command -v mpirun >/dev/null && launchers+=("mpi" "mpi-far")
for how in "${launchers[@]}"; do
  run() {
    if [ "$how" = local ]; then "$NDD" run -q --engine local:2 "$@"
    elif [ "$how" = mpi ]; then mpirun -n 2 --oversubscribe "$NDD" run -q "$@"
    else mpirun -n 2 --oversubscribe -x NDD_COMM_FAR=1 "$NDD" run -q "$@"; fi
  }
  rm -rf "${mnt:?}"/* "$tmp/o"
  run --write-dedup "$mnt/dedup.jsonl.zst" -o "$tmp/o" "$tmp/in.jsonl" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = 1 ] || fail "$how: --write-dedup on a full disk exited $rc"
  grep -q "cannot write $mnt/dedup.jsonl.zst" "$tmp/err" || fail "$how: the message does not name the file: $(tail -3 "$tmp/err")"
  [ ! -e "$mnt/dedup.jsonl.zst" ] || fail "$how: a partial dedup corpus was left behind"
  [ ! -s "$tmp/out" ] || fail "$how: a summary was printed: $(cat "$tmp/out")"
  rm -rf "${mnt:?}"/*
  run -o "$mnt/out" "$tmp/in.jsonl" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = 1 ] || fail "$how: -o on a full disk exited $rc"
  grep -q "cannot write" "$tmp/err" || fail "$how: no file named: $(tail -3 "$tmp/err")"
  [ ! -e "$mnt/out/stats.json" ] || fail "$how: stats.json written over a failed run"
  echo "full_disk ($how): exit 1, $(grep -m1 'cannot write' "$tmp/err" | sed 's/.*error\] //')"
  # the work directory elsewhere: the outputs' ordered write itself fills the disk
  rm -rf "${mnt:?}"/* "$tmp/wd"
  run --work-dir "$tmp/wd" -o "$mnt/out" "$tmp/dup.jsonl" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ "$rc" = 1 ] || fail "$how: outputs onto a full disk exited $rc"
  grep -q "cannot write $mnt/out/pairs.tsv .*the partial file is removed" "$tmp/err" ||
    fail "$how: the output file is not named: $(tail -3 "$tmp/err")"
  [ ! -e "$mnt/out/pairs.tsv" ] || fail "$how: a partial pairs.tsv was left behind"
  [ ! -s "$tmp/out" ] || fail "$how: a summary was printed: $(cat "$tmp/out")"
  echo "full_disk ($how): exit 1, $(grep -m1 'cannot write' "$tmp/err" | sed 's/.*error\] //')"
  rm -rf "${mnt:?}"/* "$tmp/o" "$tmp/wd"
  mount -o remount,size=1200k "$mnt" || fail "cannot resize the tmpfs"
  run --mem-per-rank 1M --work-dir "$mnt/wd" -o "$tmp/o" "$tmp/in.jsonl" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  rm -rf "${mnt:?}"/*
  mount -o remount,size=300k "$mnt" || fail "cannot shrink the tmpfs again"
  [ "$rc" = 1 ] || fail "$how: a spill onto a full disk exited $rc"
  grep -q "cannot write the spill file $mnt/wd/spill/texts-[01]: No space left on device" "$tmp/err" ||
    fail "$how: the spill file and cause are not named: $(tail -3 "$tmp/err")"
  [ ! -s "$tmp/out" ] || fail "$how: a summary was printed: $(cat "$tmp/out")"
  echo "full_disk ($how): exit 1, $(grep -m1 'spill file' "$tmp/err" | sed 's/.*error\] //')"
done
echo "full_disk: ok"

#!/usr/bin/env bash
# e2e (issue 17, item 4): runs that survive the cluster. A run killed by SIGKILL after
# its map stage leaves OUT/.ndd-work; running the same command again resumes it (and
# says so; output files it had begun to write do not stop it), gives outputs
# byte-identical to an uninterrupted run and removes the work directory. Another
# command (other options) does not resume it; changed inputs start
# again; --resume OUT/.ndd-work -o OUT removes the work directory after success.
# stats.json records the version, the command line and the inputs; --progress reports
# every stage with its place in the job.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
SRC=${NDD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
same() {
  for f in pairs.tsv clusters.tsv scores.tsv rejects.tsv removed.txt; do
    cmp -s "$1/$f" "$2/$f" || { diff "$1/$f" "$2/$f" | head -5; fail "$f differs between $1 and $2"; }
  done
}
python3 "$SRC/datasets/gencrawl.py" --source builtin --seed 5 --size 3MB --datasets /nonexistent \
  --file-size 1MB -q -o "$tmp/c" >/dev/null || fail "gencrawl"
in=("$tmp"/c/crawl-*)
A=(--verify-all --per-doc 200)

"$NDD" run -q --engine local:2 -o "$tmp/ref" "${A[@]}" "${in[@]}" || fail "reference run: exit $?"
# stats.json records the version, the command line (its options) and the inputs
python3 - "$tmp/ref/stats.json" "${in[@]}" <<'EOF2' || fail "stats.json lacks the version, command or inputs"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["version"] and s["command"][:4] == ["run", "-q", "--engine", "local:2"], s.get("command")
assert "--verify-all" in s["command"] and s["inputs"]["arguments"] == sys.argv[2:], s.get("inputs")
assert s["inputs"]["files"] == len(sys.argv) - 2
EOF2

# a run killed once its map shards are written
killed=0
for attempt in 1 2 3; do
  rm -rf "$tmp/o"
  bash "$SRC/tests/tools/kill_after_map.sh" "$tmp/o/.ndd-work/map" 2 \
    "$NDD" run -q --engine local:2 -o "$tmp/o" "${A[@]}" "${in[@]}" && killed=1
  [ "$killed" = 1 ] && [ ! -e "$tmp/o/stats.json" ] && [ ! -e "$tmp/o/.ndd-work/verify/done" ] && break
  killed=0
done
[ "$killed" = 1 ] || fail "could not kill the run between its map stage and its end (3 attempts)"
[ -e "$tmp/o/.ndd-work/manifest" ] || fail "the killed run left no work directory"

# the same command again: resumed, announced, identical, cleaned up; the output files
# a run stopped while writing them leaves (here a cut pairs.tsv) do not stop it: they
# are that run's, written again
printf 'doc_a\tdoc_b\t0.' > "$tmp/o/pairs.tsv"
"$NDD" run -q --engine local:2 -o "$tmp/o" "${A[@]}" "${in[@]}" 2>"$tmp/resumed.log" || fail "rerun: exit $?"
grep -q "resuming the interrupted run of this command in $tmp/o/.ndd-work" "$tmp/resumed.log" ||
  fail "rerun did not say it resumed: $(cat "$tmp/resumed.log")"
same "$tmp/ref" "$tmp/o"
[ ! -e "$tmp/o/.ndd-work" ] || fail "the default work directory was left after the resumed run"

# another command finds a stale work directory: not resumed, replaced, removed
mkdir -p "$tmp/o2"
"$NDD" run -q --engine local:2 -o "$tmp/k" "${A[@]}" --stop-after verify --work-dir "$tmp/o2/.ndd-work-x" "${in[@]}" ||
  fail "stop-after: exit $?"
rm -rf "$tmp/o2/.ndd-work" && mv "$tmp/o2/.ndd-work-x" "$tmp/o2/.ndd-work"
# (beside a work directory of another command, an output file is someone else's: refused)
touch "$tmp/o2/pairs.tsv"
"$NDD" run -q --engine local:1 -o "$tmp/o2" "${A[@]}" "${in[@]}" 2>"$tmp/other.log"
[ $? = 2 ] && grep -q "is not empty (it holds pairs.tsv)" "$tmp/other.log" ||
  fail "an output directory with another command's work directory and a file was not refused: $(cat "$tmp/other.log")"
rm "$tmp/o2/pairs.tsv"
"$NDD" run -q --engine local:1 -o "$tmp/o2" "${A[@]}" "${in[@]}" 2>"$tmp/other.log" || fail "other command: exit $?"
! grep -q resuming "$tmp/other.log" || fail "a work directory of another command was resumed"
same "$tmp/ref" "$tmp/o2"
[ ! -e "$tmp/o2/.ndd-work" ] || fail "stale work directory left"

# --resume OUT/.ndd-work -o OUT: removed after success
"$NDD" run -q --engine local:2 -o "$tmp/o3" "${A[@]}" --stop-after verify --work-dir "$tmp/o3/.ndd-work" "${in[@]}" ||
  fail "stop-after into OUT/.ndd-work: exit $?"
"$NDD" run -q --engine local:2 --resume "$tmp/o3/.ndd-work" -o "$tmp/o3" || fail "--resume: exit $?"
same "$tmp/ref" "$tmp/o3"
[ ! -e "$tmp/o3/.ndd-work" ] || fail "--resume OUT/.ndd-work left the work directory"
# --progress: every stage reports, with its place in the job and an estimate for the
# whole job; counts are integers
"$NDD" run -q --engine local:2 --progress 0.001 -o "$tmp/pg" "${in[@]}" 2>"$tmp/pg.log" || fail "--progress: exit $?"
k=1
for st in read templates exact postings sets verify outputs; do
  grep -Eq "^\[progress\] $st .*\(stage $k of 8, [0-9.]+ s into the run\)$" "$tmp/pg.log" ||
    fail "--progress: no report of stage $st ($k of 8): $(cat "$tmp/pg.log")"
  k=$((k + 1))
done
grep -Eq "^\[progress\] verify +[0-9]+ / [0-9]+ docs \(" "$tmp/pg.log" || fail "--progress: verify counts not integers"
# the whole job's estimate: its share done never goes back, and the outputs end at 100 %
python3 - "$tmp/pg.log" <<'PY' || fail "--progress: no overall estimate: $(cat "$tmp/pg.log")"
import re, sys
shares = [float(m.group(1)) for m in re.finditer(r"job ~(\d+) % done, ETA ~\d+ s", open(sys.argv[1]).read())]
assert len(shares) >= 5, shares
assert all(b >= a for a, b in zip(shares, shares[1:])), shares
assert shares[-1] == 100, shares
PY
echo "auto resume ok"

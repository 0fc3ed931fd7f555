#!/usr/bin/env bash
# The memory budget per rank (issue 14): a tiny --mem-per-rank forces every
# spill path (this rank's texts to disk before shuffle 1, shuffle 1 in rounds
# of key ranges, links as sorted runs merged from disk, received texts
# verified set by set from disk, sets beyond the budget verified in blocks
# with their texts read as pairs need them) on 1-4 MPI ranks and on the in-process
# engine, and every output is byte-identical to the run without a budget;
# stats.json says what was spilled; the stages that stayed above the budget
# are named in one warning; no spill file is left in the work directory; bad
# values are usage errors.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*"; exit 1; }

python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 5 --datasets /nonexistent \
  --size 5MB --file-size 1500KB -q -o "$tmp/corpus" >/dev/null
rm -f "$tmp/corpus/gold.tsv" "$tmp/corpus/edits.tsv" "$tmp/corpus/manifest.json"

mem() { # stats.json key -> value of its "memory" section
  python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["memory"][sys.argv[2]])' "$1/stats.json" "$2"
}
same() { bash "$NDD_SOURCE_DIR/scripts/check-identical.sh" compare --ranks "$1" "$2" >/dev/null || {
  bash "$NDD_SOURCE_DIR/scripts/check-identical.sh" compare --ranks "$1" "$2"; fail "$3: outputs differ"; }; }

# the reference: the default budget (this machine's memory) spills nothing
mpirun -n 1 "$NDD_BIN" run -q -o "$tmp/ref" "$tmp/corpus" 2>"$tmp/ref.err"
grep -q "memory budget .* GiB per rank (75 % of" "$tmp/ref.err" || { cat "$tmp/ref.err"; fail "the default budget is not logged"; }
for k in spilled_texts_bytes spilled_received_texts_bytes spilled_link_runs_bytes; do
  [ "$(mem "$tmp/ref" $k)" = 0 ] || fail "the default budget spilled $k"
done
[ "$(mem "$tmp/ref" shuffle1_rounds)" = 1 ] || fail "the default budget split shuffle 1"
pairs=$(($(wc -l < "$tmp/ref/pairs.tsv") - 1))
[ "$pairs" -gt 20 ] || fail "too few pairs ($pairs) to test anything"

check_spilled() { # out what
  local k v
  for k in spilled_texts_bytes spilled_received_texts_bytes spilled_link_runs_bytes; do
    v=$(mem "$1" $k)
    [ "$v" -gt 0 ] || fail "$2: nothing in $k"
  done
  v=$(mem "$1" shuffle1_rounds)
  [ "$v" -gt 1 ] || fail "$2: shuffle 1 in one round"
  [ "$(mem "$1" sets_verified_in_blocks)" -gt 0 ] || fail "$2: no set verified in blocks"
  echo "$2: identical; spilled texts $(mem "$1" spilled_texts_bytes) B, received texts" \
    "$(mem "$1" spilled_received_texts_bytes) B, link runs $(mem "$1" spilled_link_runs_bytes) B; shuffle 1 in $v rounds;" \
    "$(mem "$1" sets_verified_in_blocks) sets verified in blocks"
}

for p in 1 2 3 4; do
  mpirun -n $p "$NDD_BIN" run -q --mem-per-rank 1M --work-dir "$tmp/wd.$p" -o "$tmp/tiny.$p" "$tmp/corpus" \
    2>"$tmp/tiny.$p.err" || { cat "$tmp/tiny.$p.err"; fail "--mem-per-rank 1M on $p ranks failed"; }
  # what does not spill (the map stage's texts, ids, URLs, rows) cannot fit in 1 MiB: said once
  [ "$(grep -c 'warning: stages above the memory budget of 1.0 MiB per rank (peak of the largest rank): read' \
    "$tmp/tiny.$p.err")" = 1 ] || { cat "$tmp/tiny.$p.err"; fail "$p ranks: no single warning about the budget"; }
  same "$tmp/ref" "$tmp/tiny.$p" "--mem-per-rank 1M on $p ranks"
  check_spilled "$tmp/tiny.$p" "mpirun -n $p --mem-per-rank 1M"
  # the kept work directory holds the checkpoints, no spill file
  left=$(find "$tmp/wd.$p" -path '*spill/*' -type f | wc -l)
  [ "$left" = 0 ] || fail "$p ranks: spill files left behind: $(find "$tmp/wd.$p" -path '*spill/*' -type f)"
done
"$NDD_BIN" run --engine local:3 -q --mem-per-rank 1M -o "$tmp/local3" "$tmp/corpus"
same "$tmp/ref" "$tmp/local3" "--mem-per-rank 1M on 3 in-process ranks"
check_spilled "$tmp/local3" "local:3 --mem-per-rank 1M"
# a budget between: some paths spill, the outputs stay the same
mpirun -n 2 "$NDD_BIN" run -q --mem-per-rank 64M -o "$tmp/mid" "$tmp/corpus"
same "$tmp/ref" "$tmp/mid" "--mem-per-rank 64M on 2 ranks"
ndd_stats=$("$NDD_BIN" stats "$tmp/tiny.2")
grep -q "memory budget: 1.0 MiB per rank (--mem-per-rank); shuffle 1 in [0-9]* rounds; spilled to the work directory" \
  <<<"$ndd_stats" || { echo "$ndd_stats"; fail "ndd stats does not report the budget"; }

for bad in 0 abc 512K -5 1X; do
  if "$NDD_BIN" run --engine local:1 -q --mem-per-rank "$bad" -o "$tmp/bad" "$tmp/corpus" 2>"$tmp/bad.err"; then
    fail "--mem-per-rank $bad accepted"
  fi
  grep -q -- "--mem-per-rank takes a size of at least 1M" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "--mem-per-rank $bad: no clear message"; }
done
echo "mem_budget: outputs identical to the unbudgeted run on 1-4 ranks and in-process ($pairs pairs)"

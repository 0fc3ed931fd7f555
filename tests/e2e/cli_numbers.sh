#!/usr/bin/env bash
# e2e (issue 12, item 7): number options refuse nan and inf as bad usage (exit 2) before
# reading any input, in every command that takes them; a finite value in range still runs.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
printf '{"id":"a","text":"one small document of text for the number options test."}\n' > "$tmp/in.jsonl"
expect() { # rc command...
  local want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" = "$want" ] || fail "$* exited $rc, not $want: $(head -3 "$tmp/err")"
}
for opt in --resemblance --containment --slope --tau --max-share --site-share --template-share --progress; do
  for v in nan NaN inf -inf; do
    rm -rf "$tmp/o"
    expect 2 "$NDD" run -q --engine local:1 "$opt" "$v" -o "$tmp/o" "$tmp/in.jsonl"
    [ ! -e "$tmp/o/stats.json" ] || fail "run $opt $v wrote outputs"
  done
done
for opt in --slope --resemblance --containment --tau; do
  expect 2 "$NDD" compare "$opt" nan "$tmp/in.jsonl" "$tmp/in.jsonl"
done
expect 2 "$NDD" signcd --tau nan -o "$tmp/s" "$tmp/in.jsonl"
rm -rf "$tmp/o"
expect 0 "$NDD" run -q --engine local:1 --tau 0.5 --resemblance 0.3 -o "$tmp/o" "$tmp/in.jsonl"
echo "cli_numbers: ok"

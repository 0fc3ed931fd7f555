#!/usr/bin/env bash
# ndd run --verifier lsi and --verifier tlcs+lsi (paper 001's LSI: TF-IDF,
# the distributed randomized SVD, fingerprints, LSH keys; src/lsi,
# src/engine/run_lsi.c) on the in-process engine: every output byte-identical
# on 1-4 ranks, on a generated crawl and (when present) on the Clough corpus;
# the combined mode names the rule that accepted each pair (tlcs or lsi); a run
# stopped after verification and resumed, or whose verification is redone on
# resume, gives the same outputs.
set -euo pipefail
: "${NDD_BIN:?}" "${NDD_SOURCE_DIR:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

python3 "$NDD_SOURCE_DIR/datasets/gencrawl.py" --source builtin --seed 11 --datasets /nonexistent \
  --file-size 150KB -q -o "$tmp/corpus" >/dev/null
rm -f "$tmp/corpus/gold.tsv" "$tmp/corpus/edits.tsv" "$tmp/corpus/manifest.json"
# edge cases: a text without terms (one letter), an empty one (rejected), exact copies
printf '%s\n' '{"id": "zz-noterm", "text": "x"}' '{"id": "zz-empty", "text": ""}' \
  '{"id": "zz-copy1", "text": "Copies of one short text are grouped by the exact pass."}' \
  '{"id": "zz-copy2", "text": "Copies of one short text are grouped by the exact pass."}' > "$tmp/corpus/zz-edge.jsonl"
inputs=(crawl)
data=${NDD_DATASETS:-$NDD_SOURCE_DIR/../shared/datasets}
if [ -d "$data/clough" ]; then
  python3 "$NDD_SOURCE_DIR/datasets/clough2jsonl.py" "$data/clough" "$tmp/clough.jsonl" "$tmp/clough-gold.tsv"
  inputs+=(clough)
else
  echo "clough: real dataset $data/clough absent, only the generated crawl is checked"
fi

for in in "${inputs[@]}"; do
  src="$tmp/corpus"; [ $in = clough ] && src="$tmp/clough.jsonl"
  for v in lsi tlcs+lsi; do
    for p in 1 2 3 4; do
      "$NDD_BIN" run --engine "local:$p" -q --verifier "$v" -o "$tmp/$in.$v.$p" "$src" ||
        fail "ndd run --engine local:$p --verifier $v ($in)"
      [ $p = 1 ] || bash "$NDD_SOURCE_DIR/scripts/check-identical.sh" compare --ranks "$tmp/$in.$v.1" "$tmp/$in.$v.$p" ||
        fail "$in, $v: outputs differ between 1 and $p in-process ranks"
    done
    n=$(($(wc -l < "$tmp/$in.$v.1/pairs.tsv") - 1))
    [ "$n" -gt 0 ] || fail "$in, $v: no pair found"
    rules=$(tail -n +2 "$tmp/$in.$v.1/pairs.tsv" | cut -f3 | sort -u | tr '\n' ' ')
    if [ $v = lsi ]; then
      [ "$rules" = "lsi " ] || fail "$in, lsi: rule column holds '$rules'"
    else
      [[ "$rules" =~ ^(lsi |tlcs |lsi tlcs )$ ]] || fail "$in, tlcs+lsi: rule column holds '$rules'"
    fi
    concepts=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['lsi']['concepts'])" "$tmp/$in.$v.1/stats.json")
    vname=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['verifier'])" "$tmp/$in.$v.1/stats.json")
    [ "$vname" = "$v" ] || fail "$in, $v: stats.json names the verifier '$vname'"
    [ "$concepts" -gt 0 ] || fail "$in, $v: the SVD found no concept"
    if [ $in = crawl ]; then
      grep -q '^zz-copy1	zz-copy2	' "$tmp/$in.$v.1/pairs.tsv" || fail "$in, $v: the exact copies are no pair"
    fi
    echo "$in, $v: identical on 1-4 in-process ranks ($n pairs; rules: $rules; $concepts concepts)"
  done
done

# checkpoints: stopped after verification on 3 ranks and resumed on 2; a lost
# verification checkpoint redone (the LSI stage again) on 3 ranks: the same outputs
"$NDD_BIN" run --engine local:3 -q --verifier lsi --work-dir "$tmp/w" --stop-after verify "$tmp/corpus" ||
  fail "--stop-after verify"
"$NDD_BIN" run --engine local:2 -q --verifier lsi --resume "$tmp/w" -o "$tmp/resumed" || fail "--resume"
bash "$NDD_SOURCE_DIR/scripts/check-identical.sh" compare --ranks "$tmp/crawl.lsi.1" "$tmp/resumed" ||
  fail "lsi: stopped on 3 ranks, resumed on 2: outputs differ"
"$NDD_BIN" run --engine local:4 -q --verifier lsi --work-dir "$tmp/w2" --stop-after verify "$tmp/corpus" ||
  fail "--stop-after verify (2)"
rm -rf "$tmp/w2/verify" && mkdir "$tmp/w2/verify"
"$NDD_BIN" run --engine local:3 -q --verifier lsi --resume "$tmp/w2" -o "$tmp/redone" || fail "--resume (2)"
bash "$NDD_SOURCE_DIR/scripts/check-identical.sh" compare --ranks "$tmp/crawl.lsi.1" "$tmp/redone" ||
  fail "lsi: verification redone on resume: outputs differ"
echo "lsi: resumed runs identical"

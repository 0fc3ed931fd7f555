#!/usr/bin/env bash
# The demo: installs what is missing, builds ndd, generates the embedded demo
# corpus (datasets/demo: articles the project wrote, published on synthetic
# sites with templates and edits), runs the main job with mpirun on 2 ranks,
# scores it against the generator's gold clusters and prints where the
# results are.
#   NDD_DEMO_OUT=DIR  output directory (default: out/demo)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bash scripts/setup.sh
echo "== building ndd =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNDD_WERROR=ON >/dev/null
cmake --build build -j "$(nproc)" >/dev/null

out=${NDD_DEMO_OUT:-$root/out/demo}
corpus=$out/corpus
rm -rf "$out"
mkdir -p "$out"
echo "== generating the demo corpus (datasets/gencrawl.py --source builtin) =="
python3 datasets/gencrawl.py --source builtin --seed 1 --datasets /nonexistent -o "$corpus" >/dev/null
echo "corpus: $(ls "$corpus"/*.jsonl* | wc -l) file(s), $(du -sh "$corpus" | cut -f1), gold clusters in $corpus/gold.tsv"

echo "== mpirun -n 2 ndd run =="
start=$(date +%s.%N)
mpirun -n 2 --oversubscribe build/ndd run -o "$out/result" --write-dedup "$out/result/dedup.jsonl.zst" "$corpus"/crawl-*
end=$(date +%s.%N)
printf 'wall time: %.2f s\n' "$(python3 -c "print($end - $start)")"

if build/ndd eval --help >/dev/null 2>&1; then
  echo "== quality against the generator's gold clusters =="
  build/ndd eval --gold "$corpus/gold.tsv" "$out/result" || true
fi

echo
echo "results in $out/result:"
echo "  pairs.tsv     verified near-duplicate pairs ($(($(wc -l < "$out/result/pairs.tsv") - 1)) pairs)"
echo "  clusters.tsv  documents in clusters, with the one to keep ($(($(wc -l < "$out/result/clusters.tsv") - 1)) rows)"
echo "  rejects.tsv   input records that could not be used ($(($(wc -l < "$out/result/rejects.tsv") - 1)))"
echo "  stats.json    counts and timings per stage"
echo "  dedup.jsonl.zst  the corpus without the removed duplicates"
echo
echo "a sample of clusters.tsv:"
head -n 8 "$out/result/clusters.tsv" | cut -c1-150

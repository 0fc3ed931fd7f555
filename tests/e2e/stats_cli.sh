#!/usr/bin/env bash
# e2e: 'ndd stats' on a real run (generated crawl of Reuters articles; the demo
# articles without the datasets). Oracles, all recomputed in Python from the run's
# own files: --json passes stats.json on unchanged; the derived measures (average
# set size, trustable rate, filter coverage, pair funnel shares, per-stage max/min
# skew, peak memory, bytes shuffled) follow from stats.json; the score histograms
# equal a binning of scores.tsv and the cluster-size histogram a count of
# clusters.tsv (which must also agree with stats.json); the text report prints
# those numbers. A stats.json with fields this version does not know (a "sketch"
# section, a new top-level member) is still reported; a resumed run
# (--stop-after verify, then --resume) gives the same counts; usage errors.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
SRC=${NDD_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# ndd stats uses no MPI: keep LeakSanitizer on for it even where the MPI runs turn it off
stats() { ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1" "$NDD" stats "$@"; }

# --- usage
stats --help >"$tmp/help" || fail "--help exit $?"
for opt in --json --plot; do grep -q -- "$opt" "$tmp/help" || fail "--help does not list $opt"; done
"$NDD" --help | grep -q '^  stats ' || fail "ndd --help does not list stats"
stats 2>/dev/null; [ $? -eq 2 ] || fail "no DIR must exit 2"
stats --bogus "$tmp" 2>/dev/null; [ $? -eq 2 ] || fail "bad option must exit 2"
stats "$tmp" "$tmp" 2>/dev/null; [ $? -eq 2 ] || fail "two DIRs must exit 2"
stats "$tmp/none" 2>/dev/null; [ $? -eq 1 ] || fail "missing DIR must exit 1"
stats "$tmp" 2>"$tmp/err"; [ $? -eq 1 ] || fail "DIR without stats.json must exit 1"
grep -q 'stats.json' "$tmp/err" || fail "the error does not name stats.json"
mkdir -p "$tmp/broken"
printf '{"ranks": 2, "read": {"docs": 3' >"$tmp/broken/stats.json"
stats "$tmp/broken" 2>"$tmp/err"; [ $? -eq 1 ] || fail "truncated stats.json must exit 1"
grep -q 'malformed JSON' "$tmp/err" || fail "no 'malformed JSON' message"

# --- a real run
src=reuters
[ -d "${NDD_DATASETS:-/nonexistent}/reuters21578" ] || { src=builtin; echo "note: datasets absent, demo articles"; }
python3 "$SRC/datasets/gencrawl.py" --source $src --size 2MB --file-size 700KB --seed 5 --measure 50 -q \
  -o "$tmp/c" || fail "gencrawl failed"
in=("$tmp"/c/crawl-*)
mpirun -n 2 "$NDD" run -q -o "$tmp/o" "${in[@]}" || fail "ndd run failed"
stats "$tmp/o" >"$tmp/report" || fail "ndd stats exit $?"
stats --json "$tmp/o" >"$tmp/stats.json" || fail "ndd stats --json exit $?"
stats "$tmp/o/stats.json" --json >"$tmp/stats2.json" || fail "ndd stats FILE exit $?"
cmp -s <(sed 1d "$tmp/stats.json") <(sed 1d "$tmp/stats2.json") || fail "DIR and DIR/stats.json differ"

python3 - "$tmp/o" "$tmp/stats.json" "$tmp/report" <<'EOF' || fail "oracle check"
import collections, json, math, sys
d, out, report = sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3]).read()
st = json.load(open(d + "/stats.json"))
def close(a, b, what):
    if a is None or b is None or abs(a - b) > 1e-4 * max(1, abs(b)):
        sys.exit(f"{what}: ndd stats {a}, expected {b}")
assert out["stats"] == st, "--json does not pass stats.json on unchanged"
dv = out["derived"]
S, V, G, C = st["sets"], st["verify"], st["signatures"], st["clusters"]
close(dv["documents"], st["read"]["docs"], "documents")
close(dv["average_set_size"], S["docs_in_sets"] / S["sets"], "average set size")
close(dv["trustable_rate"], V["trustable_rate"], "trustable rate")
close(dv["share_of_documents_in_sets"], S["docs_in_sets"] / st["read"]["docs"], "share in sets")
dropped = G["dropped_frequent"] + G["dropped_site_concentrated"] + G["dropped_site_template"]
close(dv["filter"]["dropped_lists"], dropped, "dropped lists")
close(dv["filter"]["dropped_list_share"], dropped / (dropped + G["lists_live"]), "dropped list share")
close(dv["filter"]["dropped_posting_share"], G["postings_in_dropped_lists"] / G["signatures"], "posting share")
for k in ("skipped_already_joined", "identical_text", "verified", "pruned_by_bound", "accepted"):
    close(dv["pairs"][k], V[k], k)
    close(dv["pairs"][k + "_share"], V[k] / V["candidate_pairs"], k + " share")
for name, t in st["stage_seconds"].items():
    if t["min"] > 0:
        close(dv["skew"]["stage_" + name], t["max"] / t["min"], "skew of " + name)
close(dv["skew"]["verify_work"], V["work_max_rank"] / V["work_min_rank"], "verify work skew")
rss = [r["peak_rss_kib"] for r in st["per_rank"]]
close(dv["peak_rss_kib_max"], max(rss), "peak rss")
# peak memory by stage: every stage that ran measured something, the
# largest of them is at most the rank's peak, and the report prints them
for r in st["per_rank"]:
    sr = r["stage_peak_rss_kib"]
    assert set(sr) == set(st["stage_seconds"]), sr
    for name in ("read", "postings", "components", "verify", "output"):
        assert sr[name] > 0, (name, sr)
    assert max(sr.values()) <= r["peak_rss_kib"], (sr, r["peak_rss_kib"])
assert "peak memory by stage (largest rank): read " in report, "report: no peak memory by stage"
# the default work directory: its checkpoints counted, then removed
wd = st["work_dir"]
assert wd["path"] == d + "/.ndd-work" and wd["removed"] is True and wd["bytes"] > 0 and wd["files"] > 0, wd
assert not __import__("os").path.exists(wd["path"]), "the default work directory is still there"
assert "work directory: " + wd["path"] in report and "(removed after the run)" in report, "report: work directory"
sh = st["shuffle_bytes"]
close(dv["bytes_shuffled"], sh["shuffle1_signatures"] + sh["shuffle2_texts_compressed"] + sh["shuffle3_rows"], "shuffled")

# scores.tsv binned independently
rows = [l.rstrip("\n").split("\t") for l in open(d + "/scores.tsv")]
head, rows = rows[0], rows[1:]
acc = head.index("accepted")
sc = out["scores"]
# (an exact copy has one identical-text row with its first copy, not counted in verify)
X = st.get("exact", {}).get("duplicates", 0)
assert sc["rows"] == len(rows) == V["verified"] + V["identical_text"] + X, (sc["rows"], len(rows), X)
assert sc["accepted"] == sum(r[acc] == "1" for r in rows) == V["accepted"] + X
for name in ("resemblance", "containment"):
    col = head.index(name)
    h = {"1": [0] * 20, "0": [0] * 20}
    for r in rows:
        h[r[acc]][min(19, max(0, math.floor(float(r[col]) * 20)))] += 1
    assert sc[name]["accepted"] == h["1"] and sc[name]["rejected"] == h["0"], name
# clusters.tsv counted independently
sizes = collections.Counter(l.split("\t")[1] for l in list(open(d + "/clusters.tsv"))[1:])
hist = collections.Counter()
for n in sizes.values():
    e = n.bit_length() - 1
    hist[f"{2**e}-{2**(e+1)-1}"] += 1
cs = out["cluster_sizes"]
assert cs["size_histogram"] == dict(hist), (cs["size_histogram"], hist)
assert cs["clusters"] == len(sizes) == C["clusters"], "cluster count disagrees with stats.json"
assert cs["docs"] == C["docs_in_clusters"], "clustered documents disagree with stats.json"
# the text report prints the numbers
for needle in (f"average set size       {S['docs_in_sets'] / S['sets']:.3f}",
               f"trustable rate         {V['trustable_rate']:.4f}",
               f"{V['candidate_pairs']}", "max/min", "peak memory:", "frequent-signature filter: "
               f"{dropped} of {dropped + G['lists_live']} shared lists dropped",
               f"clusters: {C['clusters']} verified clusters"):
    assert needle in report, "report lacks: " + needle
for k, v in S["size_histogram"].items():
    assert any(l.split()[:2] == [k, str(v)] for l in report.splitlines()), "set-size line " + k
print("oracle checks passed:", len(rows), "scored pairs,", len(sizes), "clusters")
EOF

# --- a baseline verifier: its "score" column is histogrammed (SimHash over 64 bits)
if "$NDD" run --help | grep -q 'minhash|jaccard'; then
  for v in minhash simhash; do
    mpirun -n 2 "$NDD" run -q --verifier $v -o "$tmp/b-$v" "${in[@]}" || fail "ndd run --verifier $v"
    stats --json "$tmp/b-$v" >"$tmp/b-$v.json" || fail "stats of the $v run"
    python3 - "$tmp/b-$v" "$tmp/b-$v.json" $v <<'EOF' || fail "$v score histogram"
import json, math, sys
d, out, v = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3]
rows = [l.rstrip("\n").split("\t") for l in open(d + "/scores.tsv")]
head, rows = rows[0], rows[1:]
acc, sc = head.index("accepted"), head.index("score")
hi = 64 if v == "simhash" else 1
h = {"1": [0] * 20, "0": [0] * 20}
for r in rows:
    h[r[acc]][min(19, max(0, math.floor(float(r[sc]) / hi * 20)))] += 1
got = out["scores"]["score"]
assert got["verifier"] == v and got["hi"] == hi, got
assert got["accepted"] == h["1"] and got["rejected"] == h["0"], (got, h)
X = out["stats"].get("exact", {}).get("duplicates", 0)  # exact copies: one accepted row each
assert "resemblance" not in out["scores"] and sum(h["1"]) == out["stats"]["verify"]["accepted"] + X
EOF
    stats "$tmp/b-$v" | grep -q "$v score" || fail "the $v score histogram is not printed"
  done
  echo "baseline verifiers: score histograms agree"
fi

# --- fields this version does not know are still reported
mkdir -p "$tmp/future"
python3 - "$tmp/o/stats.json" "$tmp/future/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
s["sketch"] = {"strain_away": 0.0123, "reserve": 0.9876, "windows": 7}
s["verify"]["new_counter"] = 42
s["checkpoints"] = {"stages": ["map", "verify"], "bytes": 1234}
json.dump(s, open(sys.argv[2], "w"), indent=1)
EOF
stats "$tmp/future" >"$tmp/future.txt" || fail "stats on extended stats.json"
grep -q 'sketch strain-away     0.0123' "$tmp/future.txt" || fail "strain-away not shown"
grep -q 'sketch reserve rate    0.9876' "$tmp/future.txt" || fail "reserve not shown"
grep -q 'sketch windows: 7' "$tmp/future.txt" || fail "unknown sketch field not shown"
grep -q 'new_counter: 42' "$tmp/future.txt" || fail "unknown verify field not shown"
grep -q 'checkpoints: {"stages": \["map", "verify"\], "bytes": 1234}' "$tmp/future.txt" || fail "unknown section not shown"
stats --json "$tmp/future" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["derived"]["sketch_strain_away"] == 0.0123 and d["derived"]["sketch_reserve"] == 0.9876
assert d["stats"]["checkpoints"]["bytes"] == 1234 and d["scores"] is None' || fail "--json on extended stats.json"

# --- a resumed run reports the same counts
if "$NDD" run --help | grep -q -- '--stop-after'; then
  mpirun -n 2 "$NDD" run -q --work-dir "$tmp/w" --stop-after verify "${in[@]}" || fail "--stop-after verify"
  mpirun -n 3 "$NDD" run -q --resume "$tmp/w" -o "$tmp/r" || fail "--resume"
  stats --json "$tmp/r" >"$tmp/r.json" || fail "stats of the resumed run"
  python3 - "$tmp/stats.json" "$tmp/r.json" <<'EOF' || fail "resumed run: different counts"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("documents", "average_set_size", "trustable_rate", "filter", "pairs"):
    assert a["derived"][k] == b["derived"][k], k
assert a["scores"] == b["scores"] and a["cluster_sizes"] == b["cluster_sizes"]
EOF
  # a work directory given by the user stays, and stats.json gives its size as du counts it
  python3 - "$tmp/r/stats.json" "$tmp/w" <<'EOF' || fail "work_dir of the resumed run"
import json, os, sys
wd = json.load(open(sys.argv[1]))["work_dir"]
files = [os.path.join(p, f) for p, _, fs in os.walk(sys.argv[2]) for f in fs]
assert wd["removed"] is False and os.path.realpath(wd["path"]) == os.path.realpath(sys.argv[2]), wd
assert wd["files"] == len(files) and wd["bytes"] == sum(os.path.getsize(f) for f in files), (wd, len(files))
EOF
  echo "resumed run: same statistics"
else
  echo "note: this ndd has no --stop-after/--resume; resumed-run check skipped"
fi
echo "PASS"

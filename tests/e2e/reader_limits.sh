#!/usr/bin/env bash
# e2e (issue 12, item 3): a zstd frame that declares a 2 GiB window (zstd --long=31 from a
# pipe, 6 MB on disk) is rejected with its reason instead of making the reader allocate
# up to the window (peak RSS 200 MB before, and 2 GB from a crafted header of 11 bytes
# under libFuzzer); files written with zstd --long (window 2^27) are still read. A WARC
# record whose Content-Length runs past the end of the file is a reject and the records
# after it are read.
set -u
NDD=${NDD_BIN:?NDD_BIN not set}
command -v zstd >/dev/null || { echo "SKIP: zstd command not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
python3 -c '
import json, random
random.seed(1)
w = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa"]
for i in range(200000):
    print(json.dumps({"id": "d%d" % i, "text": " ".join(random.choice(w) for _ in range(30))}))
' > "$tmp/docs.jsonl"
zstd -q --long=31 -c < "$tmp/docs.jsonl" > "$tmp/w31.jsonl.zst" # from a pipe: the frame declares 2^31
head -1000 "$tmp/docs.jsonl" | zstd -q --long=27 -c > "$tmp/w27.jsonl.zst"
"$NDD" run -q --engine local:1 -o "$tmp/o" "$tmp/w31.jsonl.zst" "$tmp/w27.jsonl.zst" || fail "ndd run exit $?"
grep -q "zstd frame needs a window over 128 MiB" "$tmp/o/rejects.tsv" || fail "no window reject: $(cat "$tmp/o/rejects.tsv")"
python3 - "$tmp/o/stats.json" <<'PY' || fail "stats"
import json, sys
s = json.load(open(sys.argv[1]))
rss = max(r["peak_rss_kib"] for r in s["per_rank"]) / 1024
print(f"reader_limits: {s['read']['docs']} documents read, {s['read']['rejected']} rejected, peak RSS {rss:.0f} MB")
sys.exit(0 if s["read"]["docs"] == 1000 and rss < 120 else 1)
PY
# a WARC record whose Content-Length (10^12) runs past the end of the file, then three
# valid records: the bad one is a reject, the three are read (before: one reject
# "truncated WARC record" and nothing else)
python3 - "$tmp/bigclen.warc" <<'PY'
import sys
def rec(n, body, clen=None):
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    h = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/%d\r\n"
         "WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"
         "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
         % (n, n, len(http) if clen is None else clen)).encode()
    return h + http + b"\r\n\r\n"
out = rec(1, b"<p>the first page, whose length is a lie</p>", clen=10**12)
for i in range(2, 5):
    out += rec(i, b"<p>valid page number %d with its own text here</p>" % i)
open(sys.argv[1], "wb").write(out)
PY
"$NDD" run -q --engine local:1 -o "$tmp/w" "$tmp/bigclen.warc" || fail "ndd run exit $?"
grep -q "WARC Content-Length beyond the end of the file" "$tmp/w/rejects.tsv" || fail "no length reject: $(cat "$tmp/w/rejects.tsv")"
docs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["docs"])' "$tmp/w/stats.json")
[ "$docs" = 3 ] || fail "$docs documents after the bad record, not 3"
echo "reader_limits: ok"

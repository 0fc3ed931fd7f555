#!/usr/bin/env bash
# e2e (issue 12, item 3): a zstd frame that declares a 2 GiB window (zstd --long=31 from a
# pipe, 6 MB on disk) is rejected with its reason instead of making the reader allocate
# up to the window (peak RSS 200 MB before, and 2 GB from a crafted header of 11 bytes
# under libFuzzer); files written with zstd --long (window 2^27) are still read. A WARC
# record whose Content-Length runs past the end of the file is a reject and the records
# after it are read; the same in compressed WARC (one gzip member per record, one gzip
# stream, zstd): a lying Content-Length (10^12, or 200 MB, more than the reader holds)
# costs that record only, the valid records after it are read.
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
# a WARC record whose Content-Length (10^12, or 200 MB) runs past the end of the data,
# then three valid records, written plain, as a gzip member per record, as one gzip
# stream and as one zstd frame
python3 - "$tmp" <<'PY'
import gzip, subprocess, sys
tmp = sys.argv[1]
def rec(n, body, clen=None):
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n" + body
    h = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://a.example/%d\r\n"
         "WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-%012d>\r\n"
         "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n"
         % (n, n, len(http) if clen is None else clen)).encode()
    return h + http + b"\r\n\r\n"
for clen in (10**12, 200 * 2**20):
    recs = [rec(1, b"<p>the first page, whose length is a lie</p>", clen=clen)]
    recs += [rec(i, b"<p>valid page number %d with its own text here</p>" % i) for i in range(2, 5)]
    tag = "t" if clen == 10**12 else "m"
    open("%s/members-%s.warc.gz" % (tmp, tag), "wb").write(b"".join(gzip.compress(r) for r in recs))
    open("%s/stream-%s.warc.gz" % (tmp, tag), "wb").write(gzip.compress(b"".join(recs)))
    open("%s/plain-%s.warc" % (tmp, tag), "wb").write(b"".join(recs))
    subprocess.run(["zstd", "-q", "-f", "%s/plain-%s.warc" % (tmp, tag), "-o", "%s/frame-%s.warc.zst" % (tmp, tag)],
                   check=True)
PY
# plain, 10^12: the bad one is a reject, the three are read (before: one reject
# "truncated WARC record" and nothing else)
"$NDD" run -q --engine local:1 -o "$tmp/w" "$tmp/plain-t.warc" || fail "ndd run exit $?"
grep -q "WARC Content-Length beyond the end of the file" "$tmp/w/rejects.tsv" || fail "no length reject: $(cat "$tmp/w/rejects.tsv")"
docs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["docs"])' "$tmp/w/stats.json")
[ "$docs" = 3 ] || fail "$docs documents after the bad record, not 3"
# compressed, and the 200 MB lie in a plain file (above the 64 MiB a reader holds:
# streamed past, then read again from the first record header inside the skipped bytes)
for f in members-t.warc.gz stream-t.warc.gz frame-t.warc.zst members-m.warc.gz stream-m.warc.gz frame-m.warc.zst \
         plain-m.warc; do
  "$NDD" run -q --engine local:1 --format warc -o "$tmp/c-$f" "$tmp/$f" || fail "$f: ndd run exit $?"
  python3 - "$tmp/c-$f" "$f" <<'PY' || fail "$f: the valid records after the lying one are not all read"
import json, sys
d, f = sys.argv[1], sys.argv[2]
s = json.load(open(d + "/stats.json"))
rej = [l.rstrip("\n").split("\t") for l in open(d + "/rejects.tsv")][1:]
reasons = sorted(r[3] for r in rej)  # file, record, offset, reason, url, content_type
print("reader_limits: %s: %d documents, rejects %s" % (f, s["read"]["docs"], reasons))
sys.exit(0 if s["read"]["docs"] == 3 and reasons == ["WARC Content-Length beyond the end of the " +
                                                    ("file" if f.startswith("plain") else "data")] else 1)
PY
done
echo "reader_limits: ok"

#!/usr/bin/env bash
# bench-reader.sh - single-core throughput of the corpus readers (src/reader).
#
# Builds a few hundred MB of input from Reuters-21578 (scripts/reuters2jsonl.py,
# the JSONL repeated COPIES times; the same stories wrapped as HTML pages in
# WARC request/response records), then reads every file twice with the
# reader driver built into the unit test binary (test_reader --read) and
# prints the second (warm page cache) run. Rates are per CPU second of the
# reading process (the machine is shared, wall time is noisy; data/wall is
# also shown): "data MB/s" counts decompressed bytes, "file MB/s" bytes on
# disk.
#
# Usage: scripts/bench-reader.sh [BUILD_DIR] [COPIES]   (defaults: build, 16)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
copies=${2:-16}
bin=$build/test_reader
if [ ! -x "$bin" ]; then
    echo "bench-reader: $bin missing: build the tests first" >&2
    exit 1
fi
ds=${NDD_DATASETS:-$root/../shared/datasets}
if [ ! -d "$ds/reuters21578" ]; then
    echo "SKIP: $ds/reuters21578 absent"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 "$root/scripts/reuters2jsonl.py" "$ds/reuters21578" -o "$tmp/one.jsonl" 2>/dev/null
python3 - "$tmp/one.jsonl" "$tmp/one.warc" "$tmp/one.warc.gz" <<'EOF'
import gzip, html, json, sys, uuid
src, plain, gz = sys.argv[1:4]
ns = uuid.UUID(int=0)
with open(src, encoding="utf-8") as f, open(plain, "wb") as p, open(gz, "wb") as g:
    for n, line in enumerate(f):
        d = json.loads(line)
        uri = "http://reuters.example/%s" % d["id"]
        page = ("<!DOCTYPE html><html><head><title>%s</title></head><body><div class=nav>Home | World | "
                "Markets</div><p>%s</p><div class=foot>(c) Reuters</div></body></html>" %
                (html.escape(d["title"]), html.escape(d["text"]).replace("\n    ", "</p>\n<p>")))
        body = page.encode("utf-8")
        req = ("GET /%s HTTP/1.1\r\nHost: reuters.example\r\nUser-Agent: bench\r\n\r\n" % d["id"]).encode()
        resp = ("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n\r\n"
                % len(body)).encode() + body
        for kind, block, ct in (("request", req, "application/http; msgtype=request"),
                                ("response", resp, "application/http; msgtype=response")):
            hdr = ("WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Target-URI: %s\r\n"
                   "WARC-Date: 1987-02-26T15:01:01Z\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                   % (kind, uuid.uuid5(ns, kind + uri), uri, ct, len(block))).encode()
            rec = hdr + block + b"\r\n\r\n"
            p.write(rec)
            g.write(gzip.compress(rec, compresslevel=6, mtime=0))
EOF
for ext in jsonl warc warc.gz; do
    for _ in $(seq "$copies"); do cat "$tmp/one.$ext"; done >"$tmp/r.$ext"
done
gzip -6 -c "$tmp/r.jsonl" >"$tmp/r.jsonl.gz"
zstd -q -3 -c "$tmp/r.jsonl" >"$tmp/r.jsonl.zst"
zstd -q -3 -c "$tmp/r.warc" >"$tmp/r.warc.zst"

printf '%-12s %8s %8s %8s %8s %10s %10s %10s %8s %7s\n' input file_MB data_MB wall_s cpu_s file_MB/s data_MB/s data/wall docs rejects
for f in r.jsonl r.jsonl.gz r.jsonl.zst r.warc r.warc.gz r.warc.zst; do
    size=$(stat -c %s "$tmp/$f")
    case $f in
    *.gz) data=$(gzip -dc "$tmp/$f" | wc -c) ;;
    *.zst) data=$(zstd -dc "$tmp/$f" | wc -c) ;;
    *) data=$size ;;
    esac
    "$bin" --read "$tmp/$f" >/dev/null
    "$bin" --read "$tmp/$f" | awk -v f="$f" -v s="$size" -v d="$data" '{
        for (i = 1; i < NF; i += 2) v[$i] = $(i + 1)
        c = v["cpu_seconds"]; w = v["seconds"]
        printf "%-12s %8.1f %8.1f %8.3f %8.3f %10.1f %10.1f %10.1f %8d %7d\n", f, s/1e6, d/1e6, w, c,
               s/1e6/c, d/1e6/c, d/1e6/w, v["docs"], v["rejects"] }'
done

#!/usr/bin/env python3
"""Extracts the HTML responses of WARC files into OUTDIR/page-NNNN.html as
UTF-8 (test helper of the text module; deliberately independent of ndd's own
WARC reader). Handles gzip-per-record files, truncated files, HTTP chunked
transfer encoding, gzip/deflate content encoding and the charset of the
Content-Type header or <meta charset>.

    python3 ndd_warc_html.py OUTDIR FILE.warc.gz...
"""
import gzip
import io
import os
import re
import sys
import zlib


def records(path):
    try:
        data = gzip.open(path, 'rb').read()
    except (EOFError, OSError, zlib.error):
        # truncated gzip: keep what decompresses
        data = b''
        with open(path, 'rb') as f:
            d = zlib.decompressobj(31)
            raw = f.read()
            while raw:
                try:
                    data += d.decompress(raw)
                except zlib.error:
                    break
                raw = d.unused_data
                if raw:
                    d = zlib.decompressobj(31)
    f = io.BytesIO(data)
    while True:
        line = f.readline()
        if not line:
            return
        if not line.startswith(b'WARC/'):
            continue
        hdr = {}
        while True:
            line = f.readline()
            if not line or line in (b'\r\n', b'\n'):
                break
            k, _, v = line.decode('latin-1').partition(':')
            hdr[k.strip().lower()] = v.strip()
        n = int(hdr.get('content-length', '0') or 0)
        block = f.read(n)
        if len(block) < n:
            return
        yield hdr, block


def dechunk(body):
    out, i = b'', 0
    while i < len(body):
        j = body.find(b'\r\n', i)
        if j < 0:
            break
        try:
            n = int(body[i:j].split(b';')[0].strip() or b'0', 16)
        except ValueError:
            return body
        if n == 0:
            break
        out += body[j + 2:j + 2 + n]
        i = j + 2 + n + 2
    return out


def main():
    outdir, files = sys.argv[1], sys.argv[2:]
    os.makedirs(outdir, exist_ok=True)
    count = 0
    for path in files:
        for hdr, block in records(path):
            if hdr.get('warc-type') != 'response' or not block.startswith(b'HTTP/'):
                continue
            head, sep, body = block.partition(b'\r\n\r\n')
            if not sep:
                continue
            h = {}
            for line in head.decode('latin-1').split('\r\n')[1:]:
                k, _, v = line.partition(':')
                h[k.strip().lower()] = v.strip()
            ctype = h.get('content-type', '').lower()
            if 'html' not in ctype:
                continue
            if 'chunked' in h.get('transfer-encoding', '').lower():
                body = dechunk(body)
            enc = h.get('content-encoding', '').lower()
            try:
                if 'gzip' in enc:
                    body = zlib.decompress(body, 47)
                elif 'deflate' in enc:
                    body = zlib.decompress(body)
                elif enc not in ('', 'identity'):
                    continue
            except zlib.error:
                continue
            if not body.strip():
                continue
            m = re.search(r'charset=([\w-]+)', ctype) or \
                re.search(rb'<meta[^>]+charset=["\']?([\w-]+)', body[:4096], re.I)
            cs = m.group(1) if m else 'utf-8'
            if isinstance(cs, bytes):
                cs = cs.decode('ascii', 'replace')
            try:
                text = body.decode(cs, 'replace')
            except LookupError:
                text = body.decode('utf-8', 'replace')
            with open(os.path.join(outdir, 'page-%04d.html' % count), 'wb') as f:
                f.write(text.encode('utf-8'))
            count += 1
    print(count)


if __name__ == '__main__':
    main()

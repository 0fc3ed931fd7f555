#!/usr/bin/env python3
"""checkcrawl.py - validate a corpus written by gencrawl.py (used by tests/e2e/gen_*.sh).

  checkcrawl.py DIR                      check the crawl files, gold.tsv, edits.tsv, manifest.json
  checkcrawl.py --dump DIR               print "id TAB url TAB sha1(html)" per record (format-independent)
  checkcrawl.py --recombination SOURCE [--datasets D] [--limit N]
                                         build every recombined article the generator can make from
                                         SOURCE and check that no two articles (original or recombined)
                                         share more than one paragraph

Exit 0 when every check passes, 1 otherwise (the failures are printed).
Python 3 standard library only (zstd files are read through the zstd command).
"""

import argparse
import base64
import collections
import gzip
import hashlib
import json
import os
import re
import subprocess
import sys
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))


def read_stream(path):
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as f:  # reads all members of a multi-member file
            return f.read()
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dc", path], check=True, stdout=subprocess.PIPE).stdout
    with open(path, "rb") as f:
        return f.read()


def warc_records(data, fail, name):
    """Yields (headers dict, block bytes) of every WARC record; checks lengths and separators."""
    pos = 0
    while pos < len(data):
        end = data.find(b"\r\n\r\n", pos)
        if end < 0 or not data.startswith(b"WARC/1.0\r\n", pos):
            fail("%s: bad WARC record start at %d" % (name, pos))
            return
        hdr = {}
        for ln in data[pos:end].decode("utf-8").split("\r\n")[1:]:
            k, _, v = ln.partition(":")
            hdr[k.strip().lower()] = v.strip()
        n = int(hdr.get("content-length", "-1"))
        block = data[end + 4:end + 4 + n]
        if len(block) != n or data[end + 4 + n:end + 8 + n] != b"\r\n\r\n":
            fail("%s: WARC record length mismatch at %d" % (name, pos))
            return
        yield hdr, block
        pos = end + 8 + n


def records(outdir, manifest, fail):
    """Yields (id, url, html) in file order."""
    for fi in manifest["files"]:
        path = os.path.join(outdir, fi["name"])
        if not os.path.isfile(path):
            fail("missing file %s" % fi["name"])
            continue
        if os.path.getsize(path) != fi["bytes"]:
            fail("%s: size differs from manifest" % fi["name"])
        data = read_stream(path)
        if fi["name"].endswith(".warc.gz"):
            for hdr, block in warc_records(data, fail, fi["name"]):
                if hdr.get("warc-type") != "response":
                    continue
                h_end = block.find(b"\r\n\r\n")
                http, payload = block[:h_end].decode("ascii"), block[h_end + 4:]
                if not http.startswith("HTTP/1.1 200"):
                    fail("%s: bad HTTP status line" % fi["name"])
                m = re.search(r"Content-Length: (\d+)", http)
                if not m or int(m.group(1)) != len(payload):
                    fail("%s: HTTP Content-Length mismatch" % fi["name"])
                dig = "sha1:" + base64.b32encode(hashlib.sha1(payload).digest()).decode()
                if hdr.get("warc-payload-digest") != dig:
                    fail("%s: payload digest mismatch" % fi["name"])
                yield hdr["warc-record-id"].strip("<>"), hdr["warc-target-uri"], payload.decode("utf-8")
        else:
            for k, line in enumerate(data.split(b"\n")):
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    fail("%s line %d: JSON does not parse" % (fi["name"], k + 1))
                    continue
                if set(rec) != {"id", "url", "html"}:
                    fail("%s line %d: keys %s" % (fi["name"], k + 1, sorted(rec)))
                    continue
                yield rec["id"], rec["url"], rec["html"]


_H1 = re.compile(r"<h1>(.*?)</h1>", re.S)


def check_dir(outdir, dump=False):
    errors = []

    def fail(msg):
        if len(errors) < 50:
            errors.append(msg)

    with open(os.path.join(outdir, "manifest.json"), encoding="utf-8") as f:
        man = json.load(f)
    ids, urls, h1, langs = [], {}, {}, collections.Counter()
    layouts = collections.Counter()
    for did, url, page in records(outdir, man, fail):
        if dump:
            sys.stdout.write("%s\t%s\t%s\n" % (did, url, hashlib.sha1(page.encode("utf-8")).hexdigest()))
            continue
        ids.append(did)
        urls[did] = url
        if not page.startswith("<!DOCTYPE html>"):
            fail("%s: no doctype" % did)
        m = _H1.search(page)
        if not m:
            fail("%s: no <h1>" % did)
        h1[did] = m.group(1) if m else ""
        langs[re.search(r'<html lang="([^"]+)"', page).group(1)] += 1
        layouts["table" if "<table" in page else "semantic" if "<aside" in page else "div"] += 1
    if dump:
        return 0
    if len(ids) != man["docs"]:
        fail("records %d != manifest docs %d" % (len(ids), man["docs"]))
    if len(set(ids)) != len(ids):
        fail("duplicate ids")
    idset = set(ids)
    gold = {}
    with open(os.path.join(outdir, "gold.tsv"), encoding="utf-8") as f:
        for ln in f:
            parts = ln.rstrip("\n").split("\t")
            if len(parts) != 2:
                fail("gold.tsv: bad line %r" % ln)
                continue
            if parts[0] not in idset:
                fail("gold.tsv: id %s not in the crawl" % parts[0])
            if parts[0] in gold:
                fail("gold.tsv: id %s twice" % parts[0])
            gold[parts[0]] = parts[1]
    clusters = collections.defaultdict(list)
    for d, c in gold.items():
        clusters[c].append(d)
    for c, ds in clusters.items():
        if len(ds) < 2:
            fail("gold cluster %s has %d doc" % (c, len(ds)))
    if len(clusters) != man["clusters"] or len(gold) != man["docs_in_clusters"]:
        fail("gold.tsv counts differ from the manifest")
    site_clusters = collections.defaultdict(set)
    cluster_sites = collections.defaultdict(list)
    origin = {}
    with open(os.path.join(outdir, "edits.tsv"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines or not lines[0].startswith("#id"):
        fail("edits.tsv: no header")
    body = lines[1:]
    if [ln.split("\t")[0] for ln in body] != ids:
        fail("edits.tsv ids differ from the crawl order")
    for ln in body:
        did, c, site, edits, org, url = ln.split("\t")
        origin[did] = org
        if (gold.get(did) or "-") != c:
            fail("edits.tsv: cluster of %s is %s, gold says %s" % (did, c, gold.get(did)))
        if urlsplit(urls.get(did, "")).hostname != site or urls.get(did) != url:
            fail("edits.tsv: site/url of %s differs from the record" % did)
        site_clusters[site].add(c if c != "-" else "single:" + did)
        if c != "-":
            cluster_sites[c].append(site)
    for c, ds in clusters.items():   # copies of one article keep its title (Clough reuse answers excepted)
        titles = {h1[d] for d in ds if not re.match(r"clough:g\d", origin.get(d, ""))}
        if len(titles) > 1:
            fail("cluster %s: pages carry different titles %s" % (c, sorted(titles)[:3]))
    ts = man["template_share"]
    lo, hi = ts["range"]
    for k in ("constructed", "parsed"):
        s = ts[k]
        if s["pages"] == 0 or s["out_of_range"] or s["min"] < lo or s["max"] > hi:
            fail("template share %s outside %g..%g: %s" % (k, lo, hi, s))
    kinds = man["articles_by_kind"]
    if man["docs"] >= 100:   # hard negatives of every kind in any corpus of a reasonable size
        for k in ("cross", "same", "single"):
            if kinds.get(k, 0) == 0:
                fail("no article of kind %s" % k)
        if not any(len(v) >= 2 for v in site_clusters.values()):
            fail("no site publishes two different articles")
        if not any(len(set(v)) < len(v) for v in cluster_sites.values()):
            fail("no cluster with two pages on one site")
        if not any(len(set(v)) >= 2 for v in cluster_sites.values()):
            fail("no cluster spread over two sites")
        if len(layouts) < 2:
            fail("only one layout kind: %s" % dict(layouts))
    for e in errors:
        print("FAIL: " + e)
    if not errors:
        print("ok: %d docs, %d clusters (%d docs), %d sites, langs %s, layouts %s, template share parsed "
              "%.3f..%.3f" % (len(ids), len(clusters), len(gold), man["sites"], dict(langs), dict(layouts),
                              ts["parsed"]["min"], ts["parsed"]["max"]))
    return 1 if errors else 0


def check_recombination(source, datasets, limit):
    sys.path.insert(0, HERE)
    import gencrawl as g
    st = {}
    datasets = datasets or g.default_datasets()
    if source == "builtin":
        arts = g.load_builtin(600, 8000, st)
    elif source == "reuters":
        arts = g.load_reuters(datasets, 600, 8000, st)
    elif source == "zh":
        arts = g.load_zh(datasets, 600, 8000, st)
    else:
        arts = g.load_clough(datasets, 600, 8000, "exclude", st)[0]
    return recombination_ok(g, g.near_dup_filter(arts, st), limit, source)


def recombination_ok(g, arts, limit, label):
    """Makes up to `limit` recombined articles from `arts` (the list grows) and checks that no
    recombined article shares more than one paragraph with any other article."""
    n_orig = len(arts)
    made = 0
    for lang in sorted({a.lang for a in arts[:n_orig]}):
        rc = g.Recombiner(lang, arts, [i for i in range(n_orig) if arts[i].lang == lang], 1, 600, 8000)
        while made < limit:
            a = rc.next(arts)
            if a is None:
                break
            arts.append(a)
            made += 1
    where = collections.defaultdict(list)
    for i, a in enumerate(arts):
        for p in set(a.paras):
            where[p].append(i)
    pairs = collections.Counter()
    for p, lst in where.items():
        for x in range(len(lst)):
            for y in range(x + 1, len(lst)):
                if lst[y] >= n_orig:   # pairs among originals are the source's business
                    pairs[(lst[x], lst[y])] += 1
    bad = [(k, v) for k, v in pairs.items() if v > 1]
    short = [a for a in arts[n_orig:] if a.nbytes < 600]
    print("%s: %d original + %d recombined articles; %d pairs share one paragraph, %d pairs share more; "
          "%d recombined articles under 600 bytes" % (label, n_orig, made, len(pairs), len(bad), len(short)))
    return 1 if bad or short or made == 0 else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--recombination", metavar="SOURCE", choices=["builtin", "reuters", "zh", "clough"])
    ap.add_argument("--datasets", default=None, help="default: as gencrawl.py")
    ap.add_argument("--limit", type=int, default=10 ** 9)
    a = ap.parse_args()
    if a.recombination:
        return check_recombination(a.recombination, a.datasets, a.limit)
    if not a.dir:
        ap.error("DIR required")
    return check_dir(a.dir, a.dump)


if __name__ == "__main__":
    sys.exit(main())

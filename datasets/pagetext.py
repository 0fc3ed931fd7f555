#!/usr/bin/env python3
"""Turn a crawl written by datasets/gencrawl.py (JSONL with an "html" field) into the
page text that most users have: what a text extractor makes of each whole page, site
templates (navigation, sidebars, footers, ads, bylines) left in, one block per line.

  pagetext.py --format jsonl|wet IN_DIR OUT_DIR

jsonl: {"id", "url", "text"} per page (ids kept, gold.tsv copied).
wet:   Common-Crawl-like WET files (gzip per record): one WARC/1.0 "conversion" record
       per page, Content-Type text/plain, WARC-Target-URI, a deterministic
       WARC-Record-ID; gold.tsv rewritten to those record ids.

The extractor is Python's html.parser, independent of ndd's own: head, script, style,
noscript, template, svg dropped; the <title> is the first line (as WET records carry
it); block elements and <br> end a line; whitespace collapsed inside a line; empty
lines dropped. Same input, same output (byte for byte).
"""
import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import sys
import uuid
from html.parser import HTMLParser

BLOCK = {"p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "br", "tr", "td", "th", "table",
         "section", "article", "header", "footer", "nav", "aside", "main", "blockquote", "pre", "dt", "dd",
         "dl", "figure", "figcaption", "form", "hr", "address", "menu", "details", "summary", "option"}
SKIP = {"head", "script", "style", "noscript", "template", "svg"}
WS = re.compile(r"\s+")


class PageText(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.skip = 0
        self.in_title = False
        self.title = []
        self.lines = [[]]

    def handle_starttag(self, tag, attrs):
        if tag == "title":
            self.in_title = True
        elif tag in SKIP:
            self.skip += 1
        elif tag in BLOCK:
            self.lines.append([])

    def handle_startendtag(self, tag, attrs):
        if tag in BLOCK:
            self.lines.append([])

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag in SKIP and self.skip:
            self.skip -= 1
        elif tag in BLOCK:
            self.lines.append([])

    def handle_data(self, data):
        if self.in_title:
            self.title.append(data)
        elif not self.skip:
            self.lines[-1].append(data)

    def text(self):
        out = []
        t = WS.sub(" ", "".join(self.title)).strip()
        if t:
            out.append(t)
        for parts in self.lines:
            s = WS.sub(" ", "".join(parts)).strip()
            if s:
                out.append(s)
        return "\n".join(out)


def page_text(html):
    p = PageText()
    p.feed(html)
    p.close()
    return p.text()


def wet_record(rid, url, date, text):
    body = text.encode("utf-8")
    head = ("WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Target-URI: %s\r\nWARC-Date: %s\r\n"
            "WARC-Record-ID: <urn:uuid:%s>\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n"
            % (url, date, rid, len(body))).encode("utf-8")
    return gzip.compress(head + body + b"\r\n\r\n", mtime=0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--format", choices=["jsonl", "wet"], default="jsonl")
    ap.add_argument("indir")
    ap.add_argument("outdir")
    a = ap.parse_args()
    files = sorted(f for f in os.listdir(a.indir) if re.fullmatch(r"crawl-\d{5}\.jsonl", f))
    if not files:
        sys.exit("pagetext: no crawl-NNNNN.jsonl in %s (write the crawl with gencrawl.py --format jsonl)" % a.indir)
    os.makedirs(a.outdir, exist_ok=True)
    if os.path.samefile(a.indir, a.outdir):
        sys.exit("pagetext: OUT_DIR must not be IN_DIR")
    for f in os.listdir(a.outdir):  # a longer earlier run's files would be read as pages
        if re.fullmatch(r"crawl-\d{5}\.(jsonl|warc\.wet\.gz)", f):
            os.remove(os.path.join(a.outdir, f))
    ids = {}
    nbytes = ntext = 0
    for fn in files:
        src = os.path.join(a.indir, fn)
        if a.format == "jsonl":
            dst = open(os.path.join(a.outdir, fn), "w", encoding="utf-8")
        else:
            dst = open(os.path.join(a.outdir, fn.replace(".jsonl", ".warc.wet.gz")), "wb")
        with open(src, encoding="utf-8") as f, dst:
            for line in f:
                d = json.loads(line)
                text = page_text(d["html"])
                nbytes += len(d["html"].encode("utf-8"))
                ntext += len(text.encode("utf-8"))
                if a.format == "jsonl":
                    dst.write(json.dumps({"id": d["id"], "url": d["url"], "text": text}, ensure_ascii=False) + "\n")
                else:
                    rid = str(uuid.UUID(bytes=hashlib.md5(("pagetext:" + d["id"]).encode()).digest(), version=4))
                    ids[d["id"]] = "urn:uuid:" + rid
                    dst.write(wet_record(rid, d["url"], "2024-03-01T00:00:00Z", text))
    with open(os.path.join(a.indir, "gold.tsv"), encoding="utf-8") as f, \
            open(os.path.join(a.outdir, "gold.tsv"), "w", encoding="utf-8") as g:
        for line in f:
            x = line.rstrip("\n").split("\t")
            if len(x) >= 2:
                g.write("%s\t%s\n" % (ids.get(x[0], x[0]), x[1]))
    for extra in ("manifest.json", "edits.tsv"):
        if os.path.exists(os.path.join(a.indir, extra)):
            shutil.copy(os.path.join(a.indir, extra), os.path.join(a.outdir, "source-" + extra))
    print("pagetext: %d files, %.1f MB of HTML -> %.1f MB of page text (%s)" %
          (len(files), nbytes / 1e6, ntext / 1e6, a.format), file=sys.stderr)


if __name__ == "__main__":
    main()

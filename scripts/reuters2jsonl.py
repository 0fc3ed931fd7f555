#!/usr/bin/env python3
"""Convert the Reuters-21578 SGML files into ndd JSONL.

One JSON object per line, for every story that has a <BODY> element:

    {"id": "reuters-<NEWID>", "url": "", "title": <TITLE>, "text": <TITLE>\\n\\n<BODY>}

What is kept and how:
  * input files are read as Latin-1 (the corpus encoding) and written as UTF-8;
  * SGML character references are decoded (&lt; &amp; &#3; ... via html.unescape);
  * control characters other than newline and tab are dropped (the corpus
    marks story ends with &#3; and has stray &#127;, &#1;, &#5; ...);
  * title and body are stripped of surrounding whitespace; "text" is the
    title, a blank line, then the body (just the body when there is no title):
    the headline is its own paragraph also for readers that join wrapped lines;
  * stories without a <BODY> (TYPE="BRIEF" headlines, TYPE="UNPROC" raw
    text) are left out: 19,043 of the 21,578 stories have a body.
Stories are written in file order (reut2-000 ... reut2-021), then in their
order inside each file. Python 3 standard library only.

With --dates each object also gets "date": the story's <DATE> (e.g.
"26-FEB-1987 15:01:01.79", the wire's time stamp) as RFC 3339 UTC,
"1987-02-26T15:01:01Z" (fraction and trailing control junk dropped), or "" when
it does not parse - for ndd flow (docs/flow.md), which needs a time per
document. The default output is unchanged.
"""

import argparse
import html
import json
import os
import re
import sys

STORY = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
NEWID = re.compile(r'\bNEWID="(\d+)"')
TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
DATE = re.compile(r"<DATE>\s*(\d{1,2})-([A-Z]{3})-(\d{4}) (\d{2}):(\d{2}):(\d{2})")
MONTHS = {m: i + 1 for i, m in enumerate("JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC".split())}
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(s):
    return CONTROL.sub("", html.unescape(s)).strip()


def default_dir():
    here = os.path.dirname(os.path.abspath(__file__))
    base = os.environ.get("NDD_DATASETS") or os.path.join(here, "..", "..", "shared", "datasets")
    return os.path.join(base, "reuters21578")


def sgm_files(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            out += sorted(os.path.join(p, f) for f in os.listdir(p) if re.match(r"reut2-\d+\.sgm$", f))
        else:
            out.append(p)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Convert Reuters-21578 reut2-*.sgm (Latin-1 SGML) into ndd JSONL: "
        'one {"id","url","title","text"} object per story that has a body.')
    ap.add_argument("paths", nargs="*",
                    help="reut2-*.sgm files or directories holding them "
                    "(default: ../shared/datasets/reuters21578 beside the repository)")
    ap.add_argument("--dates", action="store_true",
                    help='add "date": the story\'s <DATE> as RFC 3339 UTC (for ndd flow)')
    ap.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    args = ap.parse_args(argv)

    files = sgm_files(args.paths or [default_dir()])
    if not files:
        ap.error("no reut2-*.sgm files found")
    out = open(args.output, "w", encoding="utf-8", newline="\n") if args.output else sys.stdout
    stories = kept = 0
    try:
        for path in files:
            with open(path, encoding="latin-1") as f:
                data = f.read()
            for m in STORY.finditer(data):
                stories += 1
                idm = NEWID.search(m.group(1))
                body = BODY.search(m.group(2))
                if not idm or not body:
                    continue
                tm = TITLE.search(m.group(2))
                title = clean(tm.group(1)) if tm else ""
                text = clean(body.group(1))
                if title:
                    text = title + "\n\n" + text
                rec = {"id": "reuters-" + idm.group(1), "url": "", "title": title, "text": text}
                if args.dates:
                    dm = DATE.search(m.group(2))
                    rec["date"] = ("%s-%02d-%02dT%s:%s:%sZ" % (dm.group(3), MONTHS[dm.group(2)], int(dm.group(1)),
                                                               dm.group(4), dm.group(5), dm.group(6))
                                   if dm and dm.group(2) in MONTHS else "")
                out.write(json.dumps(rec, ensure_ascii=False) + "\n")
                kept += 1
    finally:
        if args.output:
            out.close()
    print("reuters2jsonl: %d files, %d stories, %d with a body written" % (len(files), stories, kept),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

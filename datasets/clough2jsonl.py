#!/usr/bin/env python3
"""Clough & Stevenson corpus -> JSONL (id = file name) and the gold clusters.

Every answer of category cut/light/heavy is a reuse of orig_task<x>.txt: the
source and its reuses are one gold cluster per task (as scripts/bench-quality.sh);
answers of category non are in no cluster. 17 answers are Latin-1, not UTF-8:
they are decoded as such (ndd run on the directory rejects them as invalid
UTF-8).
  datasets/clough2jsonl.py CLOUGH_DIR OUT.jsonl GOLD.tsv
"""
import csv
import json
import os
import sys

src, out, gold = sys.argv[1:4]
rows = list(csv.DictReader(open(os.path.join(src, "file_information.csv"))))
with open(gold, "w") as f:
    for t in sorted({r["Task"] for r in rows}):
        members = [r["File"] for r in rows if r["Task"] == t and r["Category"] in ("cut", "light", "heavy")]
        for m in ["orig_task%s.txt" % t] + members:
            f.write("%s\ttask-%s\n" % (m, t))
with open(out, "w") as f:
    for name in sorted(os.listdir(src)):
        if not name.endswith(".txt"):
            continue
        b = open(os.path.join(src, name), "rb").read()
        try:
            text = b.decode("utf-8")
        except UnicodeDecodeError:
            text = b.decode("latin-1")
        f.write(json.dumps({"id": name, "text": text}) + "\n")

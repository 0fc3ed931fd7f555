#!/usr/bin/env python3
"""Link-support analysis behind ndd run's --min-link default (docs/architecture.md).

Usage: ndd sig --json CRAWL.jsonl > sig.jsonl
       python3 scripts/analyze-links.py sig.jsonl GOLD.tsv

Rebuilds paper 002's posting lists from the signatures, drops lists as ndd's
site-template rule does (>= 5 URLs, >= 90 % on one site), links every member
to its list's representative (largest <W_d, document order>) and counts, per
link support (how many signatures give the same link), links between pages
of one gold cluster (true) and of different clusters (false), on one site
or across sites. Prints a table: support, false-cross, false-same-site,
true-cross, true-same-site (supports of 20 or more are pooled as 20)."""
import collections
import json
import sys
gold = dict(l.rstrip('\n').split('\t')[:2] for l in open(sys.argv[2]))
docs = {}; post = collections.defaultdict(list); N=0; W={}; order={}
for l in open(sys.argv[1]):
    d = json.loads(l); order[d['id']]=N; N+=1
    docs[d['id']] = (d['url'].split('/')[2], d['url']); W[d['id']] = d['W']
    for s in {x['key'] for x in d['signatures']}: post[s].append(d['id'])
mult = collections.Counter()
for k, ids in post.items():
    n=len(ids)
    if n < 2 or n > 10000: continue
    sites = collections.Counter(docs[i][0] for i in ids)
    top, cnt = sites.most_common(1)[0]
    urls = {docs[i][1] for i in ids if docs[i][0] == top}
    if len(urls) >= 5 and cnt >= 0.9 * n: continue
    rep = max(ids, key=lambda i: (W[i], order[i]))
    for i in ids:
        if i != rep: mult[tuple(sorted((i, rep)))] += 1
hist = collections.defaultdict(lambda: [0,0,0,0])
for (a,b), m in mult.items():
    same = gold.get(a,'x'+a) == gold.get(b,'y'+b)
    ss = docs[a][0] == docs[b][0]
    hist[min(m,20)][2*same + ss] += 1
print("mult  false-cross false-samesite true-cross true-samesite")
for m in sorted(hist): print(m, hist[m])

#!/usr/bin/env python3
"""Reuters-21578 pairs accepted by ndd run, for labelling by hand and for scoring runs
against the labels (issue 11: formulaic texts).

  reuters-pairs.py sample --jsonl R.jsonl --n N --seed S [--not-in OUT0] OUT  > sample.txt
      a uniform random sample of the pairs accepted in OUT (pairs.tsv; runs with
      --verify-all list every accepted candidate pair), leaving out those accepted in
      OUT0; prints both bodies of each pair for reading.
  reuters-pairs.py score --jsonl R.jsonl --labels L.tsv OUT...
      per run: the labelled pairs it accepts (dup / diff), the estimated false merges
      over all its accepted pairs (per stratum of the labels file), the identical-body
      groups kept in one cluster, and the known re-sends found.

Labels file (TSV, '#' comments): stratum, id_a, id_b, label (dup|diff), reason.
A stratum names the population its pairs were drawn from uniformly: 'A' = pairs accepted
by the reference run, 'B' = pairs accepted by the candidate run but not the reference.
"""
import argparse, collections, csv, hashlib, json, random, re, sys

RESENDS = [("reuters-5027", "reuters-5039"), ("reuters-10782", "reuters-10617")]


def load(jsonl):
    docs = {}
    for line in open(jsonl, encoding="utf-8"):
        d = json.loads(line)
        docs[d["id"]] = d
    return docs


def accepted(out):
    with open(out + "/pairs.tsv", encoding="utf-8") as f:
        return {tuple(sorted((r["id_a"], r["id_b"]), key=idnum)) for r in csv.DictReader(f, delimiter="\t")}


def idnum(i):
    m = re.search(r"(\d+)$", i)
    return (int(m.group(1)) if m else 0, i)


def body(d):
    return re.sub(r"\s+", " ", d.get("text", "")).strip()


def sample(a):
    docs = load(a.jsonl)
    pool = sorted(accepted(a.out[0]) - (accepted(a.not_in) if a.not_in else set()), key=lambda p: (idnum(p[0]), idnum(p[1])))
    rnd = random.Random(a.seed)
    pick = sorted(rnd.sample(pool, min(a.n, len(pool))), key=lambda p: (idnum(p[0]), idnum(p[1])))
    print(f"# {len(pick)} of {len(pool)} pairs")
    for x, y in pick:
        print(f"=== {x}\t{y}")
        print("A:", body(docs[x])[: a.chars])
        print("B:", body(docs[y])[: a.chars])


def score(a):
    docs = load(a.jsonl)
    labels, strata = {}, collections.defaultdict(list)
    for line in open(a.labels, encoding="utf-8"):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.rstrip("\n").split("\t")
        if f[0] == "stratum":
            continue
        key = tuple(sorted((f[1], f[2]), key=idnum))
        labels[key] = f[3]
        strata[f[0]].append(key)
    groups = collections.defaultdict(list)
    for d in docs.values():  # identical bodies: the story without its headline paragraph (as tests/e2e/run_reuters.sh)
        t = d["text"].split("\n\n", 1)
        groups[hashlib.md5(" ".join((t[1] if len(t) > 1 else t[0]).split()).encode()).hexdigest()].append(d["id"])
    ident = [g for g in groups.values() if len(g) > 1]
    pops = {}
    for out in a.out:
        acc = accepted(out)
        pops[out] = acc
    ref = pops[a.out[0]]
    print("| run | accepted pairs | labelled accepted: dup / diff | estimated false merges (of all accepted) | identical-body groups in one cluster | re-sends found |")
    print("|---|---|---|---|---|---|")
    for out in a.out:
        acc = pops[out]
        dup = sum(1 for k in labels if k in acc and labels[k] == "dup")
        diff = sum(1 for k in labels if k in acc and labels[k] == "diff")
        # stratified estimate: stratum A = ref-accepted, B = cand-accepted not in ref
        est = 0.0
        popsize = {"A": ref, "B": pops[a.out[-1]] - ref}
        for s, keys in strata.items():
            P = popsize.get(s)
            if not P or not keys:
                continue
            rate = sum(1 for k in keys if labels[k] == "diff" and k in acc) / len(keys)
            est += rate * len(P)
        cl = {}
        with open(out + "/clusters.tsv", encoding="utf-8") as f:
            for r in csv.DictReader(f, delimiter="\t"):
                cl[r["id"]] = r["cluster"]
        whole = sum(1 for g in ident if len({cl.get(i, i) for i in g}) == 1)
        rs = sum(1 for x, y in RESENDS if cl.get(x, x) == cl.get(y, y))
        print(f"| {out} | {len(acc)} | {dup} / {diff} | {est:.0f} | {whole} of {len(ident)} | {rs} of {len(RESENDS)} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sp = p.add_subparsers(dest="cmd", required=True)
    s = sp.add_parser("sample")
    s.add_argument("--jsonl", required=True)
    s.add_argument("--n", type=int, default=100)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--chars", type=int, default=700)
    s.add_argument("--not-in")
    s.add_argument("out", nargs=1)
    s.set_defaults(fn=sample)
    c = sp.add_parser("score")
    c.add_argument("--jsonl", required=True)
    c.add_argument("--labels", required=True)
    c.add_argument("out", nargs="+", help="the reference run first, the candidate run last")
    c.set_defaults(fn=score)
    a = p.parse_args()
    a.fn(a)


if __name__ == "__main__":
    main()

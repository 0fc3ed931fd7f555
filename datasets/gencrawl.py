#!/usr/bin/env python3
"""gencrawl.py - write a crawl-like corpus of HTML pages with known near-duplicate clusters.

Real article text (Reuters-21578 bodies, Clough & Stevenson sources, Chinese fortunes,
or the embedded demo articles in datasets/demo/) is published on many synthetic web
sites. Every site has its own template (header, menu, sidebar, footer, rotating ads);
an article is published on one or several sites and re-crawled with edits. The gold
clusters are known by construction.

Outputs in OUTDIR:
  crawl-00000.jsonl[.gz|.zst] or crawl-00000.warc.gz   the pages, split by --file-size
  gold.tsv       doc id TAB cluster id, for every doc in a cluster of >= 2 docs
  edits.tsv      one line per doc: id, cluster, site host, edits, article origin
  manifest.json  arguments, counts, bytes, measured template share

Python 3 standard library only; .zst output pipes through the zstd command.
See docs/datasets.md for the model and datasets/README.md for ready-made commands.
"""

import argparse
import base64
import datetime
import glob
import gzip
import hashlib
import html
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
import uuid
import zlib
from html.parser import HTMLParser

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gencrawl_words as W  # noqa: E402

VERSION = 1
EDIT_KINDS = ("typo", "drop_sentence", "add_sentence", "append_update", "truncate", "move_paragraph")
EDIT_ORDER = ("typo", "drop_sentence", "move_paragraph", "add_sentence", "truncate", "append_update")
MEASURE_MARGIN = 0.01  # aim inside the requested template-share range by this margin


class UsageError(Exception):
    pass


class SourceMissing(Exception):
    pass


# ------------------------------------------------------------------ helpers ---

def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def esca(s):
    return esc(s).replace('"', "&quot;")


def vis(s):
    """Visible bytes of one text piece (+1 for the separating whitespace)."""
    return len(s.encode("utf-8")) + 1


_WS = re.compile(r"\s+")


def collapse(s):
    return _WS.sub(" ", s).strip()


def is_cjk(c):
    o = ord(c)
    return 0x3400 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF or 0x20000 <= o <= 0x2FFFF


def cjk_ratio(s):
    n = c = 0
    for ch in s:
        if ch.isspace():
            continue
        n += 1
        if is_cjk(ch):
            c += 1
    return c / n if n else 0.0


def parse_size(s):
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kmgt]?)(i?b?)\s*", s, re.I)
    if not m:
        raise UsageError("bad size %r (use e.g. 500KB, 1MB, 200MB, 2GB)" % s)
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    return int(float(m.group(1)) * mult)


def parse_range(s, conv, name):
    parts = s.split(":")
    if len(parts) != 2:
        raise UsageError("%s wants MIN:MAX, got %r" % (name, s))
    try:
        lo, hi = conv(parts[0]), conv(parts[1])
    except ValueError:
        raise UsageError("%s wants MIN:MAX, got %r" % (name, s))
    if lo > hi:
        raise UsageError("%s: MIN > MAX in %r" % (name, s))
    return lo, hi


def slugify(s, maxlen=60):
    s = re.sub(r"[^a-z0-9]+", "-", s.lower()).strip("-")
    return s[:maxlen].strip("-") or "story"


def is_prime(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


def prime_at_most(n):
    while n >= 2 and not is_prime(n):
        n -= 1
    return n


class Article:
    __slots__ = ("lang", "title", "paras", "origin", "nbytes", "etitle", "tvis", "reuse_of")

    def __init__(self, lang, title, paras, origin):
        self.lang = lang
        self.title = title
        self.paras = paras
        self.origin = origin
        self.nbytes = sum(len(p.encode("utf-8")) for p in paras)
        self.etitle = esc(title)
        self.tvis = vis(title)
        self.reuse_of = None


# ------------------------------------------------------------------ sources ---

_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_REUTERS = re.compile(r"<REUTERS[^>]*>(.*?)</REUTERS>", re.S)
_BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
_TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
_REUTER_END = re.compile(r"(?:\s*\bREUTER\b)+\s*$", re.I)
_NOT_LETTER = bytes(b for b in range(256) if not (65 <= b <= 90 or 97 <= b <= 122 or b >= 0xC0))
_SMALL = {"of", "the", "and", "to", "in", "for", "on", "at", "by", "a", "an", "or", "vs", "with", "from"}


def titlecase(s):
    out = []
    for i, w in enumerate(s.split()):
        if ("." in w and len(w) <= 5) or w.startswith("<") or any(ch.isdigit() for ch in w):
            out.append(w)
        elif i > 0 and w.lower() in _SMALL:
            out.append(w.lower())
        else:
            out.append(w[:1].upper() + w[1:].lower())
    return " ".join(out)


def cap_paras(paras, maxb):
    out, tot = [], 0
    for p in paras:
        b = len(p.encode("utf-8"))
        if out and tot + b > maxb:
            break
        out.append(p)
        tot += b
    return out


def title_from_text(text, lang):
    if lang == "zh":
        m = re.match(r"[^。！？；，、\s]{4,18}", text)
        return m.group(0) if m else text[:12]
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    words = first.split()
    t = " ".join(words[:9]).rstrip(".,;:!?")
    return t[:1].upper() + t[1:]


def load_reuters(dsdir, minb, maxb, st):
    files = sorted(glob.glob(os.path.join(dsdir, "reuters21578", "reut2-*.sgm")))
    if not files:
        raise SourceMissing("%s/reuters21578/reut2-*.sgm" % dsdir)
    arts = []
    seen = {}
    for fn in files:
        with open(fn, encoding="latin-1") as f:
            data = f.read()
        for m in _REUTERS.finditer(data):
            rec = m.group(1)
            b = _BODY.search(rec)
            if not b:
                continue
            st["reuters_bodies"] = st.get("reuters_bodies", 0) + 1
            raw = _CTRL.sub("", html.unescape(b.group(1)))
            raw = _REUTER_END.sub("", raw.rstrip())
            lines = raw.split("\n")
            tab = sum(1 for ln in lines if re.search(r"\S\s{3,}\S", ln))
            if tab > 0.2 * len(lines):
                st["reuters_tabular"] = st.get("reuters_tabular", 0) + 1
                continue
            paras, cur = [], []
            for ln in lines:
                if ln[:1].isspace() and cur:
                    paras.append(collapse(" ".join(cur)))
                    cur = []
                if ln.strip():
                    cur.append(ln)
            if cur:
                paras.append(collapse(" ".join(cur)))
            paras = [p for p in paras if p]
            text = " ".join(paras)
            if len(text.encode("utf-8")) < minb:
                st["reuters_short"] = st.get("reuters_short", 0) + 1
                continue
            tb = text.encode("utf-8")
            nonsp = len(tb) - tb.count(b" ")
            letters = len(tb.translate(None, _NOT_LETTER))
            if not nonsp or letters < 0.6 * nonsp:
                st["reuters_numeric"] = st.get("reuters_numeric", 0) + 1
                continue
            key = text.lower()
            if key in seen:
                st["exact_duplicates"] = st.get("exact_duplicates", 0) + 1
                continue
            seen[key] = True
            t = _TITLE.search(rec)
            title = titlecase(collapse(_CTRL.sub("", html.unescape(t.group(1))))) if t else ""
            if not title:
                title = title_from_text(paras[0], "en")
            arts.append(Article("en", title, cap_paras(paras, maxb), "reuters"))
    return arts


def read_text_file(fn):
    with open(fn, "rb") as f:
        b = f.read()
    try:
        s = b.decode("utf-8")
    except UnicodeDecodeError:
        s = b.decode("latin-1")
    return s.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def split_blank_paras(s, lang):
    paras = []
    for block in re.split(r"\n\s*\n", s):
        lines = [ln.strip() for ln in block.split("\n") if ln.strip()]
        if not lines:
            continue
        if lang == "zh":
            p = ""
            for ln in lines:
                if p and p[-1].isascii() and p[-1].isalnum() and ln[0].isascii() and ln[0].isalnum():
                    p += " "
                p += ln
        else:
            p = " ".join(lines)
        paras.append(collapse(p))
    return paras


def load_clough(dsdir, minb, maxb, reuse, st):
    d = os.path.join(dsdir, "clough")
    info = os.path.join(d, "file_information.csv")
    if not os.path.isfile(info):
        raise SourceMissing("%s/clough/file_information.csv" % dsdir)
    rows = []
    with open(info, encoding="utf-8", errors="replace") as f:
        for ln in f.read().splitlines()[1:]:
            parts = [x.strip() for x in ln.split(",")]
            if len(parts) >= 3 and parts[0]:
                rows.append(parts[:3])
    arts, origs, reuses = [], {}, []
    for task in "abcde":
        fn = os.path.join(d, "orig_task%s.txt" % task)
        if not os.path.isfile(fn):
            raise SourceMissing(fn)
        paras = split_blank_paras(read_text_file(fn), "en")
        a = Article("en", title_from_text(paras[0], "en"), cap_paras(paras, maxb), "clough:orig_task" + task)
        origs[task] = len(arts)
        arts.append(a)
    for fname, task, cat in rows:
        if cat == "orig":
            continue
        fn = os.path.join(d, fname)
        if not os.path.isfile(fn):
            continue
        paras = split_blank_paras(read_text_file(fn), "en")
        if not paras or sum(len(p.encode()) for p in paras) < minb:
            st["clough_short"] = st.get("clough_short", 0) + 1
            continue
        a = Article("en", title_from_text(paras[0], "en"), cap_paras(paras, maxb), "clough:" + fname)
        if cat == "non":
            arts.append(a)
        elif reuse == "include" and task in origs:
            a.reuse_of = origs[task]
            reuses.append(a)
        else:
            st["clough_reuse_left_out"] = st.get("clough_reuse_left_out", 0) + 1
    return arts, reuses


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def load_zh(dsdir, minb, maxb, st):
    d = os.path.join(dsdir, "zh-fortunes")
    names = [n for n in ("chinese", "tang300", "song100") if os.path.isfile(os.path.join(d, n))]
    if not names:
        raise SourceMissing("%s/zh-fortunes/{chinese,tang300,song100}" % dsdir)
    seen = {}
    arts = []
    for name in names:
        with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        entries = []
        for e in re.split(r"^%\s*$", text, flags=re.M):
            e = _ANSI.sub("", e).replace("\r", "")
            if any("\u2500" <= c <= "\u257f" for c in e):
                st["zh_tables"] = st.get("zh_tables", 0) + 1
                continue
            lines = []
            for ln in e.split("\n"):
                s = ln.strip()
                if s.startswith(("--", "\u2014", "\u2015", "\u4f5c\u8005\uff1a")):  # attributions, 作者：
                    continue
                lines.append(s)
            blocks = split_blank_paras("\n".join(lines), "zh")
            if not blocks:
                continue
            if cjk_ratio("".join(blocks)) < 0.6:
                st["zh_not_chinese"] = st.get("zh_not_chinese", 0) + 1
                continue
            title = None
            if len(blocks[0]) <= 24 and not re.search(r"[。！？；]", blocks[0]):
                title = blocks[0].strip("《》")
                blocks = blocks[1:]
            if not blocks:
                continue
            key = "".join(blocks)
            if key in seen:
                st["exact_duplicates"] = st.get("exact_duplicates", 0) + 1
                continue
            seen[key] = True
            entries.append((title, blocks))
        # join consecutive entries into articles of a reasonable length
        cur_t, cur_p, cur_b, cur_n = None, [], 0, 0
        for title, blocks in entries:
            if not cur_p:
                cur_t = title
            cur_p.extend(blocks)
            cur_b += sum(len(b.encode()) for b in blocks)
            cur_n += 1
            if cur_b >= minb or cur_n >= 10:
                if cur_b >= minb:
                    paras = cap_paras(cur_p, maxb)
                    t = cur_t or title_from_text(paras[0], "zh")
                    arts.append(Article("zh", t, paras, "zh-fortunes:" + name))
                cur_t, cur_p, cur_b, cur_n = None, [], 0, 0
    return arts


def load_builtin(minb, maxb, st):
    files = sorted(glob.glob(os.path.join(HERE, "demo", "articles", "*.txt")))
    if not files:
        raise SourceMissing(os.path.join(HERE, "demo", "articles", "*.txt"))
    arts = []
    for fn in files:
        s = read_text_file(fn)
        title, _, rest = s.partition("\n")
        lang = "zh" if cjk_ratio(rest) > 0.3 else "en"
        paras = split_blank_paras(rest, lang)
        if not paras:
            continue
        arts.append(Article(lang, title.strip(), cap_paras(paras, maxb),
                            "builtin:" + os.path.basename(fn)))
    return arts


def shingles(a):
    """Sampled shingle hashes of an article: word 5-grams (English) or character 8-grams
    (Chinese) that start at a token whose CRC-32 is 0 mod 4 (content-defined sampling)."""
    text = " ".join(a.paras)
    if a.lang == "zh":
        toks = [c for c in text if not c.isspace()]
        n = 8
    else:
        toks = re.findall(r"\w+", text.lower())
        n = 5
    crc = zlib.crc32
    wh = [crc(t.encode("utf-8")) for t in toks]
    out = set()
    for i in range(max(1, len(wh) - n + 1)):
        if wh[i] & 3 == 0:
            out.add(hash(tuple(wh[i:i + n])))  # tuple-of-int hashing is not salted: deterministic
    return out


def near_dup_filter(arts, st, threshold=0.2):
    """Drops every article that shares >= threshold of its sampled word 5-gram shingles
    with an earlier kept one (containment in the smaller of the two): so that articles
    put in different gold clusters really are different (Reuters holds re-sent stories)."""
    index, sizes, kept = {}, [], []
    for a in arts:
        sh = shingles(a)
        counts = {}
        for s in sh:
            lst = index.get(s)
            if lst and len(lst) <= 64:
                for k in lst:
                    counts[k] = counts.get(k, 0) + 1
        dup = False
        for k, c in counts.items():
            if c >= 2 and c >= threshold * min(len(sh), sizes[k]):
                dup = True
                break
        if dup:
            st["near_duplicates"] = st.get("near_duplicates", 0) + 1
            continue
        kid = len(kept)
        kept.append(a)
        sizes.append(len(sh))
        for s in sh:
            index.setdefault(s, []).append(kid)
    return kept


class Recombiner:
    """New distinct articles from paragraphs of the source articles of one language.

    The paragraph pool (deduplicated, shuffled) is laid out as K columns of q rows
    (q prime). Article n takes points of the line y = a*x + b (mod q), x = column, with
    (a, b) = (n div q, n mod q): two different lines meet in at most one point, so two
    recombined articles share at most one paragraph, and the q lines of one slope share none
    (so the first q articles made are pairwise disjoint). Inside one article at most one
    paragraph comes from any source article, so a recombined article shares at most
    one paragraph with any original article too."""

    def __init__(self, lang, arts, idxs, seed, minb, maxb):
        owners, order = {}, []
        for ai in idxs:
            for p in arts[ai].paras:
                if len(p.encode("utf-8")) < 40:
                    continue
                if p in owners:
                    if ai not in owners[p]:
                        owners[p].append(ai)
                else:
                    owners[p] = [ai]
                    order.append(p)
        random.Random("recomb:%d:%s" % (seed, lang)).shuffle(order)
        P = len(order)
        K, q = 8, prime_at_most(P // 8)
        if q < 11:
            K, q = 0, 0
            for k in range(7, 1, -1):
                qq = prime_at_most(P // k)
                if qq >= k:
                    K, q = k, qq
                    break
        self.K, self.q = K, q
        self.pool = [(p, owners[p], len(p.encode("utf-8"))) for p in order[:K * q]]
        self.lens = sorted(arts[ai].nbytes for ai in idxs)
        self.lang, self.seed, self.minb, self.maxb = lang, seed, minb, maxb
        self.n = 0
        self.made = 0

    def capacity(self):
        return self.q * self.q

    def next(self, arts):
        K, q = self.K, self.q
        while self.n < q * q:
            n = self.n
            self.n += 1
            a, b = n // q, n % q   # one parallel class (disjoint lines) after the other
            r = random.Random("line:%d:%s:%d" % (self.seed, self.lang, n))
            xs = list(range(K))
            r.shuffle(xs)
            target = min(max(r.choice(self.lens), self.minb), self.maxb)
            used, paras, srcs, total = set(), [], [], 0
            for x in xs:
                p, own, nb = self.pool[x * q + (a * x + b) % q]
                if any(o in used for o in own):
                    continue
                if paras and total + nb > self.maxb:
                    continue
                paras.append(p)
                srcs.append(own[0])
                used.update(own)
                total += nb
                if total >= target and len(paras) >= 3:
                    break
            if total < self.minb or len(paras) < 2:
                continue
            self.made += 1
            ta, tb = arts[srcs[0]].title, arts[srcs[1]].title
            if self.lang == "zh":
                title = ta[:max(2, (len(ta) + 1) // 2)] + tb[len(tb) // 2:]
            else:
                wa, wb = ta.split(), tb.split()
                title = " ".join(wa[:max(2, (len(wa) + 1) // 2)] + wb[len(wb) // 2:])
            return Article(self.lang, title, paras, "recombined:%s:%d" % (self.lang, n))
        return None


# -------------------------------------------------------------------- sites ---

CLASS_POOLS = {
    "header": ["site-header", "header", "masthead", "top", "hd", "blk-1", "r1", "zone-a", "u-top", "t-band"],
    "nav": ["nav", "main-nav", "menu", "navbar", "m-bar", "blk-2", "r2", "links-top", "zone-b", "u-bar"],
    "main": ["content", "main", "story", "article-body", "col-r", "blk-4", "col-main", "zone-c", "u-c", "txt"],
    "side": ["sidebar", "aside", "rail", "col-l", "blk-3", "side-col", "zone-d", "u-s", "extras", "col-2"],
    "foot": ["footer", "site-footer", "bottom", "ft", "blk-9", "zone-z", "u-end", "base", "legal-area", "col-f"],
    "ad": ["ad", "ad-slot", "advert", "promo", "sponsor", "blk-7", "pbox", "u-p", "mkt", "slot-x"],
    "box": ["box", "widget", "module", "panel", "card", "blk-5", "w", "u-box", "sec", "cell"],
    "wrap": ["wrap", "container", "page", "layout", "grid", "blk-0", "pg", "u-w", "frame", "shell"],
    "meta": ["meta", "byline", "info", "story-meta", "by", "blk-6", "m1", "u-m", "kicker", "sub"],
}
FIXED_BLOCKS = ("about", "newsletter", "legal", "address", "footlinks", "cookie", "share",
                "breadcrumb", "dateline", "byline")
VAR_BLOCKS = ("ads", "related", "readalso", "mostread", "inline_ad", "latest", "partners")


class Site:
    pass


def _fill(pattern, **kw):
    return pattern.format(**kw)


def make_ads(r, lang, place, n=20):
    ads = []
    seen = set()
    tries = 0
    while len(ads) < n and tries < n * 20:
        tries += 1
        if lang == "zh":
            brand = r.choice(W.ZH_BRANDS)
            kind, offers = r.choice(W.ZH_AD_KINDS)
            offer = _fill(r.choice(offers), price=r.randint(2, 60) * 100, k=r.randint(2, 9),
                          pct=r.randint(2, 9), place=place)
            t = _fill(r.choice(W.ZH_AD_PATTERNS), brand=brand, kind=kind, offer=offer,
                      cta=r.choice(W.ZH_AD_CTA))
        else:
            brand = r.choice(W.EN_BRAND_WORDS)
            kind, offers = r.choice(W.EN_AD_KINDS)
            offer = _fill(r.choice(offers), price="\u00a3%d" % r.randint(5, 900), k=r.randint(2, 9),
                          pct=r.randint(2, 40), place=place)
            t = _fill(r.choice(W.EN_AD_PATTERNS), brand=brand, kind=kind, offer=offer,
                      cta=r.choice(W.EN_AD_CTA))
            t = t[:1].upper() + t[1:]
        if t in seen:
            continue
        seen.add(t)
        ads.append(t)
    return ads


def make_site(i, lang, seed, family, used_names, used_hosts):
    r = random.Random("site:%d:%d" % (seed, i))
    s = Site()
    s.idx, s.lang = i, lang
    cls = {role: r.choice(pool) for role, pool in CLASS_POOLS.items()}
    s.cls = cls
    s.layout = r.choice(["semantic", "semantic", "div", "div", "div", "table"])
    s.side_first = r.random() < 0.35
    s.menu_style = r.choice(["ul", "links", "divs"])
    s.list_style = r.choice(["ul", "ol", "divs", "ps"])
    s.htag = r.choice(["h3", "h4", "div", "strong", "h2"])
    s.bias = r.uniform(0.15, 0.85)
    s.family = family
    year = r.randint(1890, 2012)
    for attempt in range(200):
        if lang == "zh":
            (pl, plpy), (pp, pppy) = r.choice(W.ZH_PLACES), r.choice(W.ZH_PAPER)
            name = pl + pp
            base = plpy + ("-" if r.random() < 0.3 else "") + pppy
            tld = r.choice(W.ZH_TLD)
            prefix = r.choice(["", "www.", "www.", "news."])
            place = pl
        else:
            pl, pp, md = r.choice(W.EN_PLACES), r.choice(W.EN_PAPER), r.choice(W.EN_MODIFIER)
            name = " ".join(x for x in ["The" if r.random() < 0.4 else "", pl, md, pp] if x)
            base = slugify(" ".join(x for x in [pl, md, pp] if x))
            if r.random() < 0.5:
                base = base.replace("-", "")
            tld = r.choice(W.EN_TLD)
            prefix = r.choice(W.EN_HOST_PREFIX)
            place = pl
        if attempt >= 100:
            name += " %d" % (attempt - 99)
            base += str(attempt - 99)
        host = prefix + base + tld
        if name not in used_names and host not in used_hosts:
            break
    used_names.add(name)
    used_hosts.add(host)
    s.name, s.host, s.place = name, host, place
    s.ads = make_ads(r, lang, place)
    s.eads = [esc(a) for a in s.ads]
    blocks = {}
    c = cls
    htag = s.htag

    def head(t):
        return "<%s class=\"%s-t\">%s</%s>" % (htag, c["box"], esc(t), htag)

    if lang == "zh":
        owner = _fill(r.choice(W.ZH_OWNER), place=place)
        t3 = r.sample(W.ZH_TOPICS, 3)
        tagline = _fill(r.choice(W.ZH_TAGLINES), place=place, t1=t3[0], t2=t3[1], year=year, site=name)
        sections = [r.choice(W.ZH_HOME)] + r.sample(W.ZH_SECTIONS, r.randint(9, 24))
        kw = dict(site=name, place=place, year=year, n=r.randint(20, 400), t1=t3[0], t2=t3[1], t3=t3[2],
                  owner=owner, n2="%d万" % r.randint(2, 300), phone="0%d-%d" % (r.randint(10, 999), r.randint(1000000, 89999999)),
                  k=r.randint(2, 12))
        about = "".join(_fill(p, **kw) for p in r.sample(W.ZH_ABOUT, r.randint(3, 5)))
        about_head = _fill(r.choice(W.ZH_ABOUT_HEAD), site=name)
        nl = r.choice(W.ZH_NL_NAME)
        nl_text = _fill(r.choice(W.ZH_NEWSLETTER), site=name, nl=nl, hour=r.randint(6, 9), place=place, n2=kw["n2"])
        nl_button, nl_hint = r.choice(W.ZH_NL_BUTTON), r.choice(W.ZH_NL_HINT)
        prov = r.choice(W.ZH_PROV)
        legal = [_fill(p, site=name, owner=owner, prov=prov, num="%08d" % r.randint(0, 99999999),
                       num2="%014d" % r.randint(0, 10 ** 14 - 1), phone=kw["phone"], host=host)
                 for p in r.sample(W.ZH_LEGAL, r.randint(2, 4))]
        address = _fill(r.choice(W.ZH_ADDRESS), place=place, road=r.choice(W.ZH_ROADS), k=r.randint(1, 399),
                        post="%06d" % r.randint(100000, 899999), site=name)
        fl, fh = W.ZH_FOOTLINKS, W.ZH_FOOT_HEADS
        y1, y2 = r.randint(1998, 2012), r.randint(2020, 2024)
        copyright_ = _fill(r.choice(W.ZH_COPYRIGHT), y1=y1, y2=y2, host=host, owner=owner)
        cookie = W.ZH_COOKIE[family % len(W.ZH_COOKIE)]
        cookie_btn = r.choice(W.ZH_COOKIE_BUTTON)
        share_label, share_t = r.choice(W.ZH_SHARE), r.sample(W.ZH_SHARE_TARGETS, r.randint(2, 5))
        s.related_head = _fill(r.choice(W.ZH_RELATED_HEAD), site=name)
        s.mostread_head = r.choice(W.ZH_MOSTREAD_HEAD)
        s.latest_head = r.choice(W.ZH_LATEST_HEAD)
        s.partner_head = r.choice(W.ZH_PARTNER_HEAD)
        s.readalso = r.choice(W.ZH_READALSO)
        s.ad_label = r.choice(W.ZH_AD_LABEL)
        s.byline_pat = r.choice(W.ZH_BYLINE)
        s.dateline_pat = r.choice(W.ZH_DATELINE)
        s.crumb_sep = r.choice([" > ", " / ", " » "])
    else:
        last, last2 = r.sample(W.EN_LAST, 2)
        owner = _fill(r.choice(W.EN_OWNER), place=place, last=last, last2=last2)
        t3 = r.sample(W.EN_TOPICS, 3)
        adj = r.choice(W.EN_ADJ)
        tagline = _fill(r.choice(W.EN_TAGLINES), Adj=adj.capitalize(), adj=adj, place=place, t1=t3[0], t2=t3[1],
                        t3=t3[2], year=year, region=r.choice(W.EN_REGION), period=r.choice(W.EN_PERIOD))
        sections = [r.choice(W.EN_HOME)] + r.sample(W.EN_SECTIONS, r.randint(9, 24))
        place2 = r.choice(W.EN_PLACES)
        kw = dict(site=name, place=place, place2=place2, year=year, n=r.randint(6, 300), t1=t3[0], t2=t3[1],
                  t3=t3[2], owner=owner, n2="{:,}".format(r.randint(5, 900) * 1000), person="%s %s" % (
                      r.choice(W.EN_FIRST), r.choice(W.EN_LAST)), adj=adj, medium=r.choice(W.EN_MEDIUM),
                  period=r.choice(W.EN_PERIOD), desk=r.choice(W.EN_DESK), belief=r.choice(W.EN_BELIEF),
                  k=r.randint(2, 12))
        about = " ".join(_fill(p, **kw) for p in r.sample(W.EN_ABOUT, r.randint(3, 5)))
        about_head = _fill(r.choice(W.EN_ABOUT_HEAD), site=name)
        nl = r.choice(W.EN_NEWSLETTER_NAME)
        nl_text = _fill(r.choice(W.EN_NEWSLETTER), site=name, nl=nl, period=r.choice(W.EN_PERIOD), place=place,
                        k=r.randint(3, 10), hour=r.choice(["seven", "eight", "nine", "six"]), n2=kw["n2"])
        nl_button, nl_hint = r.choice(W.EN_NL_BUTTON), r.choice(W.EN_NL_HINT)
        legal = [_fill(p, site=name, owner=owner, host=host, place=place, num="%08d" % r.randint(0, 99999999),
                       k=r.choice([10, 15, 20, 30])) for p in r.sample(W.EN_LEGAL, r.randint(2, 4))]
        address = "%s, %d %s %s, %s %s%d %d%s%s. Telephone +%d %d %04d" % (
            owner, r.randint(1, 240), r.choice(W.EN_STREETS), r.choice(W.EN_STREET_TYPE), place,
            r.choice("ABCDEFGHKLMNPRSTW"), r.randint(1, 29), r.randint(1, 9), r.choice("ABDEFGHJLNPQRSTUWXYZ"),
            r.choice("ABDEFGHJLNPQRSTUWXYZ"), r.choice([44, 353, 61, 64, 27]), r.randint(100, 999),
            r.randint(0, 9999))
        fl, fh = W.EN_FOOTLINKS, W.EN_FOOT_HEADS
        y1, y2 = r.randint(1996, 2012), r.randint(2020, 2024)
        copyright_ = _fill(r.choice(W.EN_COPYRIGHT), y1=y1, y2=y2, owner=owner, place=place)
        cookie = W.EN_COOKIE[family % len(W.EN_COOKIE)]
        cookie_btn = r.choice(W.EN_COOKIE_BUTTON)
        share_label, share_t = r.choice(W.EN_SHARE), r.sample(W.EN_SHARE_TARGETS, r.randint(2, 5))
        s.related_head = _fill(r.choice(W.EN_RELATED_HEAD), site=name)
        s.mostread_head = r.choice(W.EN_MOSTREAD_HEAD)
        s.latest_head = r.choice(W.EN_LATEST_HEAD)
        s.partner_head = r.choice(W.EN_PARTNER_HEAD)
        s.readalso = r.choice(W.EN_READALSO)
        s.ad_label = r.choice(W.EN_AD_LABEL)
        s.byline_pat = r.choice(W.EN_BYLINE)
        s.dateline_pat = r.choice(W.EN_DATELINE)
        s.crumb_sep = r.choice([" \u203a ", " / ", " > ", " \u00bb "])
    s.owner, s.tagline, s.sections = owner, tagline, sections
    s.section_slugs = ["" if j == 0 else (slugify(x) if lang == "en" else "c%02d" % j) for j, x in
                       enumerate(sections)]
    s.date_style = r.randint(0, 2)
    s.url_style = r.randint(0, 4)
    s.tracker = "%s-%d" % (r.choice(["G", "UA", "GTM", "AW"]), r.randint(10 ** 7, 10 ** 9))
    s.cookie_top = r.random() < 0.5

    # -- core: header, menu, copyright (always on the page)
    hdr_name = "<a class=\"%s-logo\" href=\"/\">%s</a>" % (c["header"], esc(name))
    s.core_head = {}
    for compact in (False, True):
        items = sections if not compact else sections[:10]
        links = ["<a href=\"/%s\">%s</a>" % (sl + "/" if sl else "", esc(t))
                 for sl, t in zip(s.section_slugs, items)]
        if s.menu_style == "ul":
            menu = "<ul>" + "".join("<li>%s</li>" % x for x in links) + "</ul>"
            mvis = sum(vis(t) for t in items)
        elif s.menu_style == "links":
            menu = " | ".join(links)
            mvis = sum(vis(t) for t in items) + 2 * (len(items) - 1)
        else:
            menu = "".join("<div class=\"%s-i\">%s</div>" % (c["nav"], x) for x in links)
            mvis = sum(vis(t) for t in items)
        tl = "" if compact else "<p class=\"%s-tag\">%s</p>" % (c["header"], esc(tagline))
        tvis = 0 if compact else vis(tagline)
        s.core_head[compact] = (hdr_name + tl, menu, vis(name) + tvis + mvis)
    s.copyright = "<p class=\"%s-c\">%s</p>" % (c["foot"], esc(copyright_))
    s.copyright_vis = vis(copyright_)

    # -- fixed optional blocks: (html, visible bytes)
    blocks["about"] = ("<div class=\"%s about\">%s<p>%s</p></div>" % (c["box"], head(about_head), esc(about)),
                       vis(about_head) + vis(about))
    blocks["newsletter"] = (
        "<div class=\"%s nl\">%s<p>%s</p><form action=\"/subscribe\" method=\"post\"><input type=\"email\" "
        "name=\"email\" placeholder=\"%s\"><button type=\"submit\">%s</button></form></div>" % (
            c["box"], head(nl), esc(nl_text), esca(nl_hint), esc(nl_button)),
        vis(nl) + vis(nl_text) + vis(nl_button))
    sep = "" if lang == "zh" else " "
    legal_t = sep.join(legal)
    blocks["legal"] = ("<p class=\"%s-l\">%s</p>" % (c["foot"], esc(legal_t)), vis(legal_t))
    blocks["address"] = ("<address>%s</address>" % esc(address), vis(address))
    cols, fvis = [], 0
    heads_ = r.sample(fh, r.randint(2, min(4, len(fh))))
    pool_ = r.sample(fl, len(fl))
    for j, h in enumerate(heads_):
        ls = pool_[j * 4:j * 4 + r.randint(3, 4)]
        cols.append("<div class=\"%s-col\">%s<ul>%s</ul></div>" % (
            c["foot"], head(h), "".join("<li><a href=\"/%s\">%s</a></li>" % (
                slugify(x) if lang == "en" else "p%d" % fl.index(x), esc(x)) for x in ls)))
        fvis += vis(h) + sum(vis(x) for x in ls)
    blocks["footlinks"] = ("<div class=\"%s-links\">%s</div>" % (c["foot"], "".join(cols)), fvis)
    blocks["cookie"] = ("<div id=\"cookie-note\" class=\"%s-ck\"><p>%s</p><button>%s</button></div>" % (
        c["wrap"], esc(cookie), esc(cookie_btn)), vis(cookie) + vis(cookie_btn))
    blocks["share"] = ("<div class=\"%s share\"><span>%s</span> %s</div>" % (
        c["meta"], esc(share_label), " ".join("<a href=\"#share-%d\">%s</a>" % (j, esc(t)) for j, t in
                                              enumerate(share_t))),
        vis(share_label) + sum(vis(t) for t in share_t))
    s.blocks = blocks

    # which optional blocks this site has, and in which priority order it adds them
    fixed = [b for b in FIXED_BLOCKS if r.random() < 0.85]
    r.shuffle(fixed)
    order = list(fixed)
    order.insert(r.randint(0, min(3, len(order))), "ads")
    order.insert(r.randint(0, min(5, len(order))), "related")
    for b in ("readalso", "mostread", "inline_ad", "latest", "partners"):
        if r.random() < 0.8:
            order.insert(r.randint(len(order) // 2, len(order)), b)
    s.order = order
    s.max_items = {"related": r.randint(3, 12), "mostread": r.randint(3, 8), "latest": r.randint(3, 10),
                   "partners": r.randint(2, 6), "ads": r.randint(1, 3)}
    side = ["related", "ads", "about", "newsletter", "mostread", "latest", "partners"]
    r.shuffle(side)
    s.side_order = side
    foot = ["footlinks", "address", "legal"]
    r.shuffle(foot)
    s.foot_order = foot
    col = "#%06x" % r.randint(0, 0xFFFFFF)
    s.css = ("body{margin:0;font-family:%s}.%s{background:%s;padding:%dpx}.%s a{margin:0 %dpx;color:%s}"
             ".%s{float:%s;width:%d%%}.%s{float:%s;width:%d%%}.%s{clear:both;font-size:%dpx}"
             ".%s{border:1px solid #ddd;margin:%dpx 0}.%s{background:#f6f6f6;padding:4px}" % (
                 r.choice(["Georgia,serif", "Arial,sans-serif", "Helvetica,Arial", "'Noto Sans SC',sans-serif"]),
                 c["header"], col, r.randint(4, 20), c["nav"], r.randint(3, 12), col,
                 c["main"], "right" if s.side_first else "left", r.randint(60, 72),
                 c["side"], "left" if s.side_first else "right", r.randint(24, 32),
                 c["foot"], r.randint(11, 14), c["box"], r.randint(6, 16), c["ad"]))
    s.js_head = ("window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}"
                 "gtag('js',new Date());gtag('config','%s');" % s.tracker)
    s.js_tail = ("(function(){var s=document.createElement('script');s.async=true;"
                 "s.src='https://cdn.ads-%d.example/load.js?site=%s';document.body.appendChild(s);})();" % (
                     r.randint(1, 40), s.tracker))
    s.arts = []      # article ids published here (for related lists)
    s.paths = {}     # article id -> path
    s.sec_of = {}    # article id -> section index
    return s


# -------------------------------------------------------------------- edits ---

_EN_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
_ZH_SENT = re.compile(r"(?<=[。！？；])")


def split_sents(p, lang):
    parts = _ZH_SENT.split(p) if lang == "zh" else _EN_SENT.split(p)
    return [x for x in parts if x]


def join_sents(ss, lang):
    return ("" if lang == "zh" else " ").join(ss)


def update_sentence(r, lang):
    if lang == "zh":
        return _fill(r.choice(W.ZH_UPDATE), month=r.randint(1, 12), day=r.randint(1, 28), hour=r.randint(6, 23),
                     org=r.choice(W.ZH_ORGS), when=r.choice(W.ZH_WHEN),
                     name=r.choice(W.ZH_SURNAMES) + r.choice(W.ZH_GIVEN))
    return _fill(r.choice(W.EN_UPDATE), hour=r.randint(1, 12), mm="%02d" % r.randint(0, 59),
                 weekday=r.choice(W.EN_WEEKDAYS), org=r.choice(W.EN_ORGS), first=r.choice(W.EN_FIRST),
                 last=r.choice(W.EN_LAST), place=r.choice(W.EN_PLACES), nth=r.choice(W.EN_NTH),
                 when=r.choice(W.EN_WHEN), desk=r.choice(W.EN_DESK))


def edit_typo(paras, r, lang):
    n = r.randint(1, 4)
    done = 0
    for _ in range(n * 4):
        if done >= n:
            break
        pi = r.randrange(len(paras))
        p = paras[pi]
        if lang == "zh":
            pos = [i for i in range(len(p) - 1) if is_cjk(p[i]) and is_cjk(p[i + 1])]
            if not pos:
                continue
            i = r.choice(pos)
            p = p[:i] + p[i + 1] + p[i] + p[i + 2:] if r.random() < 0.6 else p[:i] + p[i + 1:]
        else:
            words = [m.span() for m in re.finditer(r"[A-Za-z]{5,}", p)]
            if not words:
                continue
            s, e = r.choice(words)
            i = r.randint(s + 1, e - 2)
            if r.random() < 0.6:
                p = p[:i] + p[i + 1] + p[i] + p[i + 2:]
            else:
                p = p[:i] + p[i + 1:]
        paras[pi] = p
        done += 1
    return paras, "typo:%d" % done if done else None


def edit_drop_sentence(paras, r, lang):
    cand = [i for i, p in enumerate(paras) if len(split_sents(p, lang)) >= 2]
    if cand:
        pi = r.choice(cand)
        ss = split_sents(paras[pi], lang)
        del ss[r.randrange(len(ss))]
        paras[pi] = join_sents(ss, lang)
        return paras, "drop_sentence:1"
    if len(paras) >= 3:
        del paras[r.randrange(1, len(paras))]
        return paras, "drop_sentence:1"
    return paras, None


def edit_add_sentence(paras, r, lang):
    n = r.randint(1, 2)
    for _ in range(n):
        pi = r.randrange(len(paras))
        ss = split_sents(paras[pi], lang)
        ss.insert(r.randint(0, len(ss)), update_sentence(r, lang))
        paras[pi] = join_sents(ss, lang)
    return paras, "add_sentence:%d" % n


def edit_append_update(paras, r, lang):
    n = r.randint(1, 2)
    if lang == "zh":
        head = r.choice(W.ZH_UPDATE_HEAD)
        p = head + "".join(update_sentence(r, lang) for _ in range(n))
    else:
        head = r.choice(W.EN_UPDATE_HEAD)
        p = head + " " + " ".join(update_sentence(r, lang) for _ in range(n))
    paras.append(p)
    return paras, "append_update:%d" % n


def edit_truncate(paras, r, lang):
    frac = r.uniform(0.5, 0.9)
    total = sum(len(p.encode("utf-8")) for p in paras)
    keep = frac * total
    out, acc = [], 0
    for p in paras:
        b = len(p.encode("utf-8"))
        if acc + b <= keep:
            out.append(p)
            acc += b + 1
            continue
        ss, part = split_sents(p, lang), []
        for s in ss:
            sb = len(s.encode("utf-8")) + 1
            if acc + sb > keep and acc >= 0.45 * total:
                break
            part.append(s)
            acc += sb
        if part:
            out.append(join_sents(part, lang))
        break
    if not out or len(out) == len(paras) and out[-1] == paras[-1]:
        return paras, None
    return out, "truncate:%.2f" % (acc / total)


def edit_move_paragraph(paras, r, lang):
    if len(paras) < 2:
        return paras, None
    i, j = r.sample(range(len(paras)), 2)
    paras[i], paras[j] = paras[j], paras[i]
    return paras, "move_paragraph:%d-%d" % (min(i, j), max(i, j))


EDIT_FUNCS = {"typo": edit_typo, "drop_sentence": edit_drop_sentence, "add_sentence": edit_add_sentence,
              "append_update": edit_append_update, "truncate": edit_truncate,
              "move_paragraph": edit_move_paragraph}


def apply_edits(paras, r, lang, emin, emax):
    weights = [0.25, 0.35, 0.25, 0.15] + [0.05] * max(0, emax - 3)
    choices = list(range(emin, emax + 1))
    n = r.choices(choices, weights=[weights[k] if k < len(weights) else 0.05 for k in choices])[0]
    kinds = set(r.sample(EDIT_KINDS, min(n, len(EDIT_KINDS))))
    paras = list(paras)
    done = []
    for k in EDIT_ORDER:  # fixed order: the appended update stays last, moves act on source paragraphs
        if k not in kinds:
            continue
        paras, d = EDIT_FUNCS[k](paras, r, lang)
        if d:
            done.append(d)
    return paras, done


# ------------------------------------------------------------------ measure ---

class VisibleText(HTMLParser):
    """Visible body text: everything but head, script, style, noscript, template."""
    SKIP = {"script", "style", "head", "title", "noscript", "template"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.out = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.depth += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.out.append(data)


def visible_bytes(page):
    p = VisibleText()
    p.feed(page)
    p.close()
    return len(collapse(" ".join(p.out)).encode("utf-8"))


class Stats:
    def __init__(self):
        self.n = 0
        self.sum = 0.0
        self.lo = None
        self.hi = None
        self.out = 0

    def add(self, x, lo, hi):
        self.n += 1
        self.sum += x
        self.lo = x if self.lo is None else min(self.lo, x)
        self.hi = x if self.hi is None else max(self.hi, x)
        if x < lo or x > hi:
            self.out += 1

    def json(self):
        return {"pages": self.n, "min": round(self.lo or 0, 4), "mean": round(self.sum / self.n, 4) if self.n else 0,
                "max": round(self.hi or 0, 4), "out_of_range": self.out}


# ------------------------------------------------------------------- render ---

def fmt_date(day, minute, lang, style):
    d = datetime.date(2019, 1, 1) + datetime.timedelta(days=day)
    hh, mm = divmod(minute, 60)
    if lang == "zh":
        return ["%d年%02d月%02d日 %02d:%02d", "%d-%02d-%02d %02d:%02d", "%d/%02d/%02d %02d:%02d"][style] % (
            d.year, d.month, d.day, hh, mm)
    if style == 0:
        return "%s %d %s %d" % (W.EN_WEEKDAYS[d.weekday()], d.day, W.EN_MONTHS[d.month - 1], d.year)
    if style == 1:
        return "%s %d, %d %02d:%02d" % (W.EN_MONTHS[d.month - 1][:3], d.day, d.year, hh, mm)
    return "%02d/%02d/%d %d:%02d" % (d.day, d.month, d.year, hh, mm)


def make_path(site, art, r, day):
    d = datetime.date(2019, 1, 1) + datetime.timedelta(days=day)
    sec = r.randrange(1, len(site.sections))
    sl = site.section_slugs[sec]
    num = r.randint(10000, 9999999)
    if site.lang == "zh":
        st = site.url_style % 3
        if st == 0:
            p = "/%s/%04d%02d%02d/%d.shtml" % (sl, d.year, d.month, d.day, num)
        elif st == 1:
            p = "/%s/%04d-%02d/%02d/content_%d.htm" % (sl, d.year, d.month, d.day, num)
        else:
            p = "/article/%d.html" % num
    else:
        slug = slugify(art.title)
        st = site.url_style
        if st == 0:
            p = "/%s/%04d/%02d/%02d/%s" % (sl, d.year, d.month, d.day, slug)
        elif st == 1:
            p = "/%s/%s-%d.html" % (sl, slug, num)
        elif st == 2:
            p = "/news/%d" % num
        elif st == 3:
            p = "/article.php?id=%d&sec=%s" % (num, sl)
        else:
            p = "/%04d%02d%02d/%s/" % (d.year, d.month, d.day, slug)
    return p, sec


RECRAWL_VARIANTS = ("same", "utm", "amp", "print")


def variant_path(path, v):
    if v == "same":
        return path
    if v == "utm":
        return path + ("&" if "?" in path else "?") + "utm_source=newsletter&utm_medium=email"
    if v == "amp":
        return "/amp" + path
    return path + ("&" if "?" in path else "?") + "print=1"


class Gen:
    def __init__(self, args, arts, sites, seed):
        self.args, self.arts, self.sites, self.seed = args, arts, sites, seed
        self.lo, self.hi = args.template_share
        self.tlo, self.thi = self.lo + MEASURE_MARGIN, self.hi - MEASURE_MARGIN
        if self.tlo > self.thi:
            self.tlo = self.thi = (self.lo + self.hi) / 2

    def lst(self, site, items, head):
        """items: list of (inner_html_of_link_or_text, ) already escaped"""
        htag, c = site.htag, site.cls
        h = "<%s class=\"%s-t\">%s</%s>" % (htag, c["box"], esc(head), htag)
        ls = site.list_style
        if ls == "ul" or ls == "ol":
            body = "<%s>%s</%s>" % (ls, "".join("<li>%s</li>" % x for x in items), ls)
        elif ls == "divs":
            body = "".join("<div class=\"%s-li\">%s</div>" % (c["box"], x) for x in items)
        else:
            body = "".join("<p>%s</p>" % x for x in items)
        return "<div class=\"%s\">%s%s</div>" % (c["box"], h, body)

    def render(self, e, plan_idx):
        """Renders plan entry e = (art_id, site_id, copy_no, variant, day, minute); the page's RNG is
        seeded by plan_idx, so a page does not depend on the order of rendering. Returns (page html,
        article visible bytes, template visible bytes, edits, url, article text bytes as parsed, paras)."""
        art_id, site_id, copy_no, variant, day, minute = e
        a, s = self.arts[art_id], self.sites[site_id]
        r = random.Random("doc:%d:%d" % (self.seed, plan_idx))
        lang = s.lang
        emin, emax = self.args.edits
        if a.reuse_of is not None:
            paras, edits = list(a.paras), []
        else:
            paras, edits = apply_edits(a.paras, r, lang, emin, emax)
        title = a.title
        A = a.tvis + sum(vis(p) for p in paras)
        tmin, tmax = A * self.tlo / (1 - self.tlo), A * self.thi / (1 - self.thi)
        pos = min(0.97, max(0.03, s.bias + r.gauss(0, 0.2)))
        T = tmin + pos * (tmax - tmin)
        c = s.cls
        head_html, menu_html, core_vis = s.core_head[False]
        cur = core_vis + s.copyright_vis
        if cur > tmax:   # very short page: 10-item menu, no tagline
            head_html, menu_html, core_vis = s.core_head[True]
            cur = core_vis + s.copyright_vis
        inc = {}
        path = s.paths[art_id]
        # candidate titles of OTHER articles on this site
        others = s.arts if len(s.arts) <= 48 else r.sample(s.arts, 48)
        others = [o for o in others if o != art_id]
        if len(others) > 1:
            others = r.sample(others, len(others))
        oi = 0
        ad_order = r.sample(range(len(s.ads)), len(s.ads))
        ai = 0
        lists = {"related": [], "mostread": [], "latest": [], "partners": [], "ads": []}
        heads = {"related": s.related_head, "mostread": s.mostread_head, "latest": s.latest_head,
                 "partners": s.partner_head}

        def item(name, j):
            """(candidate, visible bytes) of the j-th next candidate for list `name`, or None."""
            if name in ("ads", "partners"):
                if ai + j >= len(ad_order):
                    return None
                k = ad_order[ai + j]
                return k, vis(s.ads[k]) + (vis(s.ad_label) if name == "ads" else 0)
            if oi + j >= len(others):
                return None
            k = others[oi + j]
            return k, self.arts[k].tvis

        def consume(name, k, v):
            nonlocal cur, oi, ai
            if name in ("ads", "partners"):
                ai += 1
            else:
                oi += 1
            lists[name].append(k)
            cur += v

        def take_items(name, limit):
            nonlocal cur
            items = lists[name]
            if not items:  # a list starts with min(3, available) items (ads: 1) or is left out
                first = [x for x in (item(name, j) for j in range(1 if name == "ads" else 3)) if x]
                if not first:
                    return
                need = (0 if name == "ads" else vis(heads[name])) + sum(v for _, v in first)
                if cur + need > tmax:
                    return
                cur += need - sum(v for _, v in first)
                for k, v in first:
                    consume(name, k, v)
            while cur < T and len(items) < limit:
                x = item(name, 0)
                if x is None or cur + x[1] > tmax:
                    break
                consume(name, x[0], x[1])

        for name in s.order:
            if cur >= T:
                break
            if name in s.blocks:
                v = s.blocks[name][1]
                if cur + v <= tmax:
                    inc[name] = s.blocks[name][0]
                    cur += v
            elif name == "byline":
                if lang == "zh":
                    t = _fill(s.byline_pat, name=r.choice(W.ZH_SURNAMES) + r.choice(W.ZH_GIVEN), site=s.name)
                else:
                    t = _fill(s.byline_pat, first=r.choice(W.EN_FIRST), last=r.choice(W.EN_LAST),
                              role=r.choice(W.EN_ROLES), desk=r.choice(W.EN_DESK))
                if cur + vis(t) <= tmax:
                    inc["byline"] = "<p class=\"%s\">%s</p>" % (c["meta"], esc(t))
                    cur += vis(t)
            elif name == "dateline":
                t = _fill(s.dateline_pat, date=fmt_date(day, minute, lang, s.date_style))
                if cur + vis(t) <= tmax:
                    inc["dateline"] = "<time class=\"%s-d\">%s</time>" % (c["meta"], esc(t))
                    cur += vis(t)
            elif name == "breadcrumb":
                sec = s.sections[s.sec_of.get(art_id, 1)]
                t = s.sections[0] + s.crumb_sep + sec
                if cur + vis(t) <= tmax:
                    inc["breadcrumb"] = "<div class=\"%s-bc\"><a href=\"/\">%s</a>%s<a href=\"/%s/\">%s</a></div>" % (
                        c["nav"], esc(s.sections[0]), esc(s.crumb_sep), s.section_slugs[s.sec_of.get(art_id, 1)],
                        esc(sec))
                    cur += vis(t)
            elif name == "readalso":
                if oi < len(others):
                    k = others[oi]
                    v = vis(s.readalso) + self.arts[k].tvis
                    if cur + v <= tmax:
                        oi += 1
                        inc["readalso"] = k
                        cur += v
            elif name == "inline_ad":
                if ai < len(ad_order) and len(paras) >= 3:
                    k = ad_order[ai]
                    v = vis(s.ad_label) + vis(s.ads[k])
                    if cur + v <= tmax:
                        ai += 1
                        inc["inline_ad"] = k
                        cur += v
            else:
                take_items(name, s.max_items[name])
        if cur < tmin:  # long article: extend the variable lists beyond their usual length
            T = tmin + 0.3 * (tmax - tmin)
            for name in ("latest", "partners", "mostread", "related"):
                take_items(name, 10 ** 6)
                if cur >= T:
                    break
        # ---- assemble
        url = "https://%s%s" % (s.host, variant_path(path, variant))

        def link(k):
            return "<a href=\"%s\">%s</a>" % (esca(s.paths[k]), self.arts[k].etitle)

        side_parts = []
        for name in s.side_order:
            if name in ("about", "newsletter"):
                if name in inc:
                    side_parts.append(inc[name])
            elif name == "ads":
                for k in lists["ads"]:
                    side_parts.append("<div class=\"%s\"><span>%s</span><p><a href=\"https://ads.example/c?%d\" "
                                      "rel=\"sponsored\">%s</a></p></div>" % (c["ad"], esc(s.ad_label), k, s.eads[k]))
            elif lists[name]:
                if name == "partners":
                    items = ["<a href=\"https://ads.example/p?%d\" rel=\"sponsored\">%s</a>" % (k, s.eads[k])
                             for k in lists[name]]
                else:
                    items = [link(k) for k in lists[name]]
                side_parts.append(self.lst(s, items, heads[name]))
        side = "".join(side_parts)
        body = []
        if "breadcrumb" in inc:
            body.append(inc["breadcrumb"])
        body.append("<h1>%s</h1>" % a.etitle)
        for k in ("byline", "dateline"):
            if k in inc:
                body.append(inc[k])
        np_ = len(paras)
        ra_at = min(2, np_ - 1)
        ad_at = 1
        for i, p in enumerate(paras):
            body.append("<p>%s</p>" % esc(p))
            if i == ad_at and "inline_ad" in inc:
                k = inc["inline_ad"]
                body.append("<div class=\"%s %s-in\"><span>%s</span> <p>%s</p></div>" % (
                    c["ad"], c["ad"], esc(s.ad_label), s.eads[k]))
            if i == ra_at and "readalso" in inc:
                body.append("<p class=\"%s-ra\">%s: %s</p>" % (c["meta"], esc(s.readalso), link(inc["readalso"])))
        if "share" in inc:
            body.append(inc["share"])
        article = "".join(body)
        foot = "".join(inc[k] for k in s.foot_order if k in inc) + s.copyright
        cookie = inc.get("cookie", "")
        hdr = head_html
        desc = paras[0][:150]
        head = ("<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\"><title>%s | %s</title>"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                "<meta name=\"description\" content=\"%s\"><link rel=\"canonical\" href=\"%s\">"
                "<style>%s</style><script>%s</script></head>\n" % (
                    "zh-CN" if lang == "zh" else "en", a.etitle, esc(s.name), esca(desc), esca(url),
                    s.css, s.js_head))
        lay = s.layout
        if lay == "table":
            side_td = "<td class=\"%s\" valign=\"top\" width=\"220\">%s</td>" % (c["side"], side)
            main_td = "<td class=\"%s\" valign=\"top\">%s</td>" % (c["main"], article)
            page = [head, "<body>", cookie if s.cookie_top else "",
                    "<table class=\"%s\" width=\"100%%\" cellpadding=\"0\"><tr><td colspan=\"2\" class=\"%s\">%s"
                    "<div class=\"%s\">%s</div></td></tr>\n<tr>" % (c["wrap"], c["header"], hdr, c["nav"], menu_html),
                    side_td if s.side_first else main_td, main_td if s.side_first else side_td,
                    "</tr>\n<tr><td colspan=\"2\" class=\"%s\">%s</td></tr></table>" % (c["foot"], foot),
                    "" if s.cookie_top else cookie, "<script>%s</script></body></html>" % s.js_tail]
        else:
            if lay == "semantic":
                t_hdr, t_nav, t_main, t_side, t_foot = "header", "nav", "main", "aside", "footer"
                art_open, art_close = "<article>", "</article>"
            else:
                t_hdr = t_nav = t_main = t_side = t_foot = "div"
                art_open, art_close = "<div class=\"%s-a\">" % c["main"], "</div>"
            side_h = "<%s class=\"%s\">%s</%s>" % (t_side, c["side"], side, t_side)
            main_h = "<%s class=\"%s\">%s%s%s</%s>" % (t_main, c["main"], art_open, article, art_close, t_main)
            page = [head, "<body>", cookie if s.cookie_top else "",
                    "<%s class=\"%s\">%s</%s>\n" % (t_hdr, c["header"], hdr, t_hdr),
                    "<%s class=\"%s\">%s</%s>\n" % (t_nav, c["nav"], menu_html, t_nav),
                    "<div class=\"%s\">" % c["wrap"], side_h if s.side_first else main_h,
                    "\n", main_h if s.side_first else side_h, "</div>\n",
                    "<%s class=\"%s\">%s</%s>" % (t_foot, c["foot"], foot, t_foot),
                    "" if s.cookie_top else cookie, "\n<script>%s</script></body></html>" % s.js_tail]
        page = "".join(page)
        art_vis = len(collapse(" ".join([title] + paras)).encode("utf-8"))
        return page, A, cur, edits, url, art_vis, paras


# ---------------------------------------------------------------- writing ---

class Writer:
    EXT = {"jsonl": ".jsonl", "jsonl.gz": ".jsonl.gz", "jsonl.zst": ".jsonl.zst", "warc.gz": ".warc.gz"}

    def __init__(self, outdir, fmt, file_size, seed):
        self.outdir, self.fmt, self.file_size, self.seed = outdir, fmt, file_size, seed
        self.files = []
        self.f = None
        self.cur = 0
        self.buf = []
        self.buflen = 0
        self.proc = None
        self.raw = None
        self.total = 0

    def _open(self):
        name = "crawl-%05d%s" % (len(self.files), self.EXT[self.fmt])
        path = os.path.join(self.outdir, name)
        self.files.append(name)
        self.cur = 0
        if self.fmt == "jsonl.gz":
            self.raw = open(path, "wb")
            self.f = gzip.GzipFile(filename="", mode="wb", compresslevel=6, fileobj=self.raw, mtime=0)
        elif self.fmt == "jsonl.zst":
            self.proc = subprocess.Popen(["zstd", "-q", "-f", "-3", "-T1", "-o", path], stdin=subprocess.PIPE)
            self.f = self.proc.stdin
        else:
            self.f = open(path, "wb", buffering=1 << 20)
        if self.fmt == "warc.gz":
            self._add(self._warcinfo(name))

    def _warcinfo(self, name):
        info = ("software: ndd datasets/gencrawl.py %d\r\nformat: WARC File Format 1.0\r\n"
                "description: synthetic crawl with gold near-duplicate clusters\r\n" % VERSION).encode()
        rid = uuid.UUID(bytes=hashlib.md5(("warcinfo:%d:%s" % (self.seed, name)).encode()).digest(), version=4)
        hdr = ("WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: 2024-03-01T00:00:00Z\r\n"
               "WARC-Filename: %s\r\nContent-Type: application/warc-fields\r\nContent-Length: %d\r\n\r\n" % (
                   rid, name, len(info))).encode()
        return gzip.compress(hdr + info + b"\r\n\r\n", compresslevel=6, mtime=0)

    def _add(self, data):
        self.buf.append(data)
        self.buflen += len(data)
        if self.buflen >= 1 << 22:
            self.flush()

    def flush(self):
        if self.buf:
            self.f.write(b"".join(self.buf))
            self.buf, self.buflen = [], 0

    def _close_file(self):
        if self.f is None:
            return
        self.flush()
        self.f.close()
        if self.raw is not None:
            self.raw.close()
            self.raw = None
        if self.proc is not None:
            if self.proc.wait() != 0:
                raise RuntimeError("zstd failed")
            self.proc = None
        self.f = None

    def add(self, rec):
        """rec: uncompressed record bytes; a new file starts when the current one reached file_size."""
        if self.f is None or self.cur >= self.file_size:
            self._close_file()
            self._open()
        self.cur += len(rec)
        self.total += len(rec)
        if self.fmt == "warc.gz":
            rec = gzip.compress(rec, compresslevel=6, mtime=0)
        self._add(rec)

    def close(self):
        self._close_file()


def warc_record(rid, url, date_s, http_date, page_bytes):
    http = ("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: %d\r\n"
            "Date: %s\r\nServer: nginx\r\n\r\n" % (len(page_bytes), http_date)).encode() + page_bytes
    digest = base64.b32encode(hashlib.sha1(page_bytes).digest()).decode()
    hdr = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:%s>\r\nWARC-Date: %s\r\n"
           "WARC-Target-URI: %s\r\nWARC-Payload-Digest: sha1:%s\r\n"
           "Content-Type: application/http; msgtype=response\r\nContent-Length: %d\r\n\r\n" % (
               rid, date_s, url, digest, len(http))).encode()
    return hdr + http + b"\r\n\r\n"


# ------------------------------------------------------------------- main ---

def default_datasets():
    env = os.environ.get("NDD_DATASETS")
    if env:
        return env
    return os.path.normpath(os.path.join(HERE, "..", "..", "shared", "datasets"))


def build_parser():
    p = argparse.ArgumentParser(
        prog="gencrawl.py",
        description="Write a crawl-like corpus (HTML pages of synthetic sites with templates, ads and "
                    "edited re-publications of real articles) plus its gold near-duplicate clusters.",
        epilog="Example: python3 datasets/gencrawl.py --source builtin --seed 1 -o /tmp/demo   "
               "(the 1 MB demo corpus; needs no external data)")
    p.add_argument("--source", choices=["reuters", "clough", "zh", "mixed", "builtin"], default="builtin",
                   help="article text: Reuters-21578 bodies, Clough sources, Chinese fortunes, "
                        "mixed = all three (English and Chinese sites), builtin = datasets/demo (default)")
    p.add_argument("--datasets", default=None,
                   help="real corpora directory (default $NDD_DATASETS or <repo>/../shared/datasets)")
    p.add_argument("--size", default="1MB", help="approximate uncompressed output bytes, e.g. 1MB, 200MB, 2GB "
                                                 "(K/M/G = 1024 multiples; default 1MB)")
    p.add_argument("--seed", type=int, default=1, help="RNG seed; same seed and arguments give byte-identical "
                                                       "output (default 1)")
    p.add_argument("--sites", type=int, default=0, help="number of sites (default 0 = auto: about one per 30 pages, "
                                                        "at least 8)")
    p.add_argument("--copies", default="2:5", help="MIN:MAX pages per published (non-singleton) article (default 2:5)")
    p.add_argument("--singletons", type=float, default=0.4,
                   help="share of articles published once (default 0.4)")
    p.add_argument("--same-site", type=float, default=0.3,
                   help="share of multi-page articles re-crawled on the same site (default 0.3)")
    p.add_argument("--template-share", default="0.25:0.55",
                   help="LO:HI share of visible text that is site template, per page (default 0.25:0.55)")
    p.add_argument("--edits", default="0:3", help="MIN:MAX edits per page (default 0:3)")
    p.add_argument("--min-bytes", type=int, default=600, help="minimum article text bytes (default 600)")
    p.add_argument("--max-bytes", type=int, default=8000,
                   help="articles are cut at a paragraph boundary to this many bytes (default 8000)")
    p.add_argument("--clough-reuse", choices=["exclude", "include"], default="exclude",
                   help="Clough answers of category cut/light/heavy: leave out (default) or add each to its "
                        "source's gold cluster as one more page")
    p.add_argument("--format", choices=["jsonl", "jsonl.gz", "jsonl.zst", "warc.gz"], default="jsonl")
    p.add_argument("--file-size", default="64MB", help="start a new output file after this many uncompressed "
                                                       "bytes (default 64MB)")
    p.add_argument("--measure", type=int, default=2000,
                   help="parse this many pages (evenly spread) with html.parser to measure the template share; "
                        "0 = all pages (default 2000)")
    p.add_argument("-o", "--out", required=True, help="output directory (created)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return p


def log(args, msg):
    if not args.quiet:
        sys.stderr.write("gencrawl: %s\n" % msg)
        sys.stderr.flush()


def main(argv=None):
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        args.size_bytes = parse_size(args.size)
        args.file_size_bytes = parse_size(args.file_size)
        args.copies = parse_range(args.copies, int, "--copies")
        args.edits = parse_range(args.edits, int, "--edits")
        args.template_share = parse_range(args.template_share, float, "--template-share")
        if not (0 < args.template_share[0] and args.template_share[1] < 1):
            raise UsageError("--template-share must lie inside (0, 1)")
        if args.copies[0] < 2:
            raise UsageError("--copies MIN must be >= 2 (singletons are set by --singletons)")
        if args.edits[0] < 0 or args.edits[1] > len(EDIT_KINDS):
            raise UsageError("--edits must lie in 0:%d" % len(EDIT_KINDS))
        for name in ("singletons", "same_site"):
            if not 0 <= getattr(args, name) <= 1:
                raise UsageError("--%s must lie in [0, 1]" % name.replace("_", "-"))
        if args.size_bytes <= 0 or args.file_size_bytes <= 0:
            raise UsageError("sizes must be positive")
        if args.format == "jsonl.zst" and not shutil.which("zstd"):
            raise UsageError("--format jsonl.zst needs the zstd command")
    except UsageError as e:
        ap.print_usage(sys.stderr)
        sys.stderr.write("gencrawl.py: error: %s\n" % e)
        return 2
    try:
        return run(args)
    except SourceMissing as e:
        sys.stderr.write("gencrawl.py: source data not found: %s (use --datasets DIR, or --source builtin)\n" % e)
        return 1


def run(args):
    t0 = time.time()
    seed = args.seed
    ds = args.datasets or default_datasets()
    st = {}
    reuses = []
    if args.source == "builtin":
        arts = load_builtin(args.min_bytes, args.max_bytes, st)
    else:
        arts = []
        if args.source in ("reuters", "mixed"):
            arts += load_reuters(ds, args.min_bytes, args.max_bytes, st)
        if args.source in ("clough", "mixed"):
            off = len(arts)
            ca, reuses = load_clough(ds, args.min_bytes, args.max_bytes, args.clough_reuse, st)
            arts += ca
            for x in reuses:
                x.reuse_of += off
        if args.source in ("zh", "mixed"):
            arts += load_zh(ds, args.min_bytes, args.max_bytes, st)
    st["articles_loaded"] = len(arts)
    # near-duplicate filter; keep the reuse answers pointing at their source
    keep_ids = {id(a) for a in near_dup_filter(arts, st)}
    remap, kept = {}, []
    for i, a in enumerate(arts):
        if id(a) in keep_ids:
            remap[i] = len(kept)
            kept.append(a)
    arts = kept
    reuses = [x for x in reuses if x.reuse_of in remap]
    for x in reuses:
        x.reuse_of = remap[x.reuse_of]
    n_orig = len(arts)
    st["articles_distinct"] = n_orig
    if not arts:
        sys.stderr.write("gencrawl.py: no usable articles\n")
        return 1
    langs = sorted({a.lang for a in arts})
    lang_arts = {L: sum(1 for a in arts if a.lang == L) for L in langs}
    log(args, "%d distinct articles (%s) from %s in %.1fs" % (
        n_orig, ", ".join("%s %d" % (L, sum(1 for a in arts if a.lang == L)) for L in langs), args.source,
        time.time() - t0))

    rng = random.Random("plan:%d" % seed)
    # ---- sites
    est_docs = max(10, args.size_bytes // 6500)
    n_sites = args.sites if args.sites > 0 else max(8, min(20000, round(est_docs / 30)))
    per_lang = {}
    tot = sum(lang_arts.values())
    for L in langs:
        per_lang[L] = max(2 if n_sites >= 4 else 1, round(n_sites * lang_arts[L] / tot))
    while sum(per_lang.values()) > max(n_sites, 2 * len(langs)):
        big = max(langs, key=lambda L: per_lang[L])
        per_lang[big] -= 1
    sites, used_names, used_hosts = [], set(), set()
    families = 5
    for L in langs:
        for _ in range(per_lang[L]):
            sites.append(make_site(len(sites), L, seed, rng.randrange(families), used_names, used_hosts))
    sites_of = {L: [s.idx for s in sites if s.lang == L] for L in langs}
    log(args, "%d sites (%s)" % (len(sites), ", ".join("%s %d" % (L, per_lang[L]) for L in langs)))

    # ---- plan: which article goes to which sites
    order = list(range(n_orig))
    rng.shuffle(order)
    recomb = {}
    reuse_of = {}
    for x in reuses:
        reuse_of.setdefault(x.reuse_of, []).append(x)
    plan = []          # (art, site, copy_no, variant, day, minute)
    cluster_kind = {}  # art -> "single" | "cross" | "same"
    gen = Gen(args, arts, sites, seed)
    cmin, cmax = args.copies
    art_bytes_planned = 0
    pos = 0
    exhausted = False
    lang_w = [lang_arts[L] for L in langs]

    def next_article():
        nonlocal pos
        if pos < len(order):
            pos += 1
            return order[pos - 1]
        # recombined article, language by the article shares of the sources
        for _ in range(4 * len(langs)):
            L = rng.choices(langs, weights=lang_w)[0]
            if L not in recomb:
                recomb[L] = Recombiner(L, arts, [i for i in range(n_orig) if arts[i].lang == L], seed,
                                       args.min_bytes, args.max_bytes)
            a = recomb[L].next(arts)
            if a is not None:
                arts.append(a)
                return len(arts) - 1
            lang_w[langs.index(L)] = 0
            if not any(lang_w):
                break
        return None

    def place(aid, site_ids, kind):
        a = arts[aid]
        base_day = rng.randrange(0, 5 * 365)
        seen_site = set()
        for j, si in enumerate(site_ids):
            s = sites[si]
            if si in seen_site:
                variant = rng.choice(RECRAWL_VARIANTS)
                day = base_day + rng.randint(1, 60)
            else:
                seen_site.add(si)
                p, sec = make_path(s, a, rng, base_day)
                s.paths[aid] = p
                s.sec_of[aid] = sec
                s.arts.append(aid)
                variant = "same"
                day = base_day + rng.randint(0, 20)
            plan.append((aid, si, j, variant, day, rng.randrange(6 * 60, 23 * 60)))
        cluster_kind[aid] = kind

    planned = []  # (article id, first plan index), in planning order

    def plan_one():
        nonlocal art_bytes_planned
        aid = next_article()
        if aid is None:
            return False
        a = arts[aid]
        cand = sites_of[a.lang]
        if rng.random() < args.singletons and aid not in reuse_of:
            site_ids, kind = [rng.choice(cand)], "single"
        else:
            n = rng.randint(cmin, cmax)
            same = rng.random() < args.same_site or len(cand) < 2
            site_ids = rng.sample(cand, max(1, min(n - 1 if same else n, len(cand))))
            kind = "cross"
            while len(site_ids) < n:   # re-crawls on a site that already has the article
                site_ids.append(rng.choice(site_ids))
                kind = "same"
        start = len(plan)
        place(aid, site_ids, kind)
        for x in reuse_of.get(aid, []):   # Clough answers reusing this source: one more page each
            arts.append(x)
            xid = len(arts) - 1
            s = sites[rng.choice(cand)]
            p, sec = make_path(s, x, rng, 100)
            s.paths[xid], s.sec_of[xid] = p, sec
            s.arts.append(xid)
            plan.append((xid, s.idx, len(plan) - start, "same", 100 + rng.randint(0, 90),
                         rng.randrange(6 * 60, 23 * 60)))
            cluster_kind[xid] = "reuse"
            if cluster_kind[aid] == "single":
                cluster_kind[aid] = "cross"
        for e in plan[start:]:
            art_bytes_planned += arts[e[0]].nbytes
        planned.append((aid, start))
        return True

    def unplan_last():
        nonlocal art_bytes_planned
        aid, start = planned.pop()
        for e in reversed(plan[start:]):
            s = sites[e[1]]
            art_bytes_planned -= arts[e[0]].nbytes
            if s.arts and s.arts[-1] == e[0]:
                s.arts.pop()
                s.paths.pop(e[0], None)
                s.sec_of.pop(e[0], None)
            cluster_kind.pop(e[0], None)
        del plan[start:]

    pooled = [0, 0]

    def measure_ratio(rnd):
        """Record bytes per article byte, measured by rendering a sample of the planned pages
        (pooled with the samples of earlier rounds to damp the sampling noise)."""
        r = random.Random("calib:%d:%d" % (seed, rnd))
        if len(plan) <= 600:
            idx = list(range(len(plan)))
            pooled[0] = pooled[1] = 0
        else:
            idx = r.sample(range(len(plan)), 600)
        nb = ab = 0
        for i in idx:
            page = gen.render(plan[i], i)[0]
            nb += len(json.dumps({"id": "d0000000", "url": "https://" + sites[plan[i][1]].host + "/x" * 30,
                                  "html": page}, ensure_ascii=False).encode("utf-8")) + 1
            ab += arts[plan[i][0]].nbytes
        pooled[0] += nb
        pooled[1] += ab
        return pooled[0] / max(1, pooled[1])

    ratio = 4.0
    for rnd in range(6):
        while art_bytes_planned * ratio < args.size_bytes:
            if not plan_one():
                exhausted = True
                break
        ratio = measure_ratio(rnd)
        pred = art_bytes_planned * ratio
        log(args, "calibration %d: %.2f record bytes per article byte, %d pages planned, predicted %.1f MB" % (
            rnd, ratio, len(plan), pred / 1e6))
        if pred > args.size_bytes * 1.02:
            while len(planned) > 1 and art_bytes_planned * ratio > args.size_bytes:
                unplan_last()
        elif pred >= args.size_bytes * 0.98 or exhausted:
            break
    if exhausted:
        log(args, "WARNING: ran out of distinct articles (%d originals + %d recombined): output is smaller than "
                  "--size" % (n_orig, len(arts) - n_orig - len(reuses)))

    # ---- output order, ids, clusters
    out_order = list(range(len(plan)))
    rng.shuffle(out_order)
    ndocs = len(plan)
    warc = args.format == "warc.gz"

    def cluster_root(aid):
        x = arts[aid]
        return x.reuse_of if x.reuse_of is not None else aid

    members = {}
    for i in out_order:
        members.setdefault(cluster_root(plan[i][0]), []).append(i)
    cid = {}
    for i in out_order:
        root = cluster_root(plan[i][0])
        if root not in cid and len(members[root]) >= 2:
            cid[root] = "c%07d" % len(cid)

    os.makedirs(args.out, exist_ok=True)
    for fn in os.listdir(args.out):
        if re.fullmatch(r"crawl-\d{5}\.(jsonl|jsonl\.gz|jsonl\.zst|warc\.gz)", fn):
            os.remove(os.path.join(args.out, fn))
    writer = Writer(args.out, args.format, args.file_size_bytes, seed)
    gold_lines, edit_lines = [], ["#id\tcluster\tsite\tedits\torigin\turl\n"]
    construct, parsed = Stats(), Stats()
    lo, hi = args.template_share
    every = 1 if args.measure <= 0 else max(1, -(-ndocs // args.measure))
    edit_count = {k: 0 for k in EDIT_KINDS}
    pages_with_edits = 0
    kinds_count = {}
    t1 = time.time()
    next_report = 0.1
    page_bytes_total = 0
    for n, i in enumerate(out_order):
        e = plan[i]
        page, A, tv, edits, url, art_vis, paras = gen.render(e, i)
        did = "d%07d" % n
        pb = page.encode("utf-8")
        page_bytes_total += len(pb)
        if warc:
            h = hashlib.md5(("%d:%s" % (seed, did)).encode()).digest()
            rid = str(uuid.UUID(bytes=h, version=4))
            t = 1709251200 + n * 7
            date_s = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
            http_date = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(t))
            writer.add(warc_record(rid, url, date_s, http_date, pb))
            did = "urn:uuid:" + rid
        else:
            writer.add((json.dumps({"id": did, "url": url, "html": page}, ensure_ascii=False) + "\n").encode("utf-8"))
        construct.add(tv / (tv + A), lo, hi)
        if n % every == 0:
            tot_v = visible_bytes(page)
            parsed.add((tot_v - art_vis) / tot_v if tot_v else 0.0, lo, hi)
        root = cluster_root(e[0])
        c = cid.get(root)
        if c:
            gold_lines.append("%s\t%s\n" % (did, c))
        for d in edits:
            edit_count[d.split(":")[0]] += 1
        pages_with_edits += 1 if edits else 0
        a = arts[e[0]]
        edit_lines.append("%s\t%s\t%s\t%s\t%s\t%s\n" % (did, c or "-", sites[e[1]].host, ",".join(edits) or "-",
                                                      a.origin, url))
        if not args.quiet and (n + 1) / ndocs >= next_report:
            el = time.time() - t1
            log(args, "%3d%%  %d pages  %.1f MB  %.1f MB/s" % (
                round(100 * (n + 1) / ndocs), n + 1, writer.total / 1e6, writer.total / 1e6 / max(el, 1e-9)))
            next_report += 0.1
    writer.close()
    for aid, k in cluster_kind.items():
        root = cluster_root(aid)
        if arts[aid].reuse_of is None:
            kinds_count[k if root in cid else "single"] = kinds_count.get(k if root in cid else "single", 0) + 1
    with open(os.path.join(args.out, "gold.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(gold_lines))
    with open(os.path.join(args.out, "edits.tsv"), "w", encoding="utf-8", newline="\n") as f:
        f.write("".join(edit_lines))
    files = [{"name": fn, "bytes": os.path.getsize(os.path.join(args.out, fn))} for fn in writer.files]
    per_site = sorted(len(s.arts) for s in sites)
    docs_per_site = {}
    for e in plan:
        docs_per_site[e[1]] = docs_per_site.get(e[1], 0) + 1
    dps = sorted(docs_per_site.get(s.idx, 0) for s in sites)
    sizes = sorted(len(v) for r_, v in members.items() if r_ in cid)
    manifest = {
        "generator": "datasets/gencrawl.py",
        "version": VERSION,
        "args": {"source": args.source, "datasets": None if args.source == "builtin" else ds, "size": args.size,
                 "seed": seed, "sites": args.sites, "copies": "%d:%d" % args.copies,
                 "singletons": args.singletons, "same_site": args.same_site,
                 "template_share": "%g:%g" % args.template_share, "edits": "%d:%d" % args.edits,
                 "min_bytes": args.min_bytes, "max_bytes": args.max_bytes, "clough_reuse": args.clough_reuse,
                 "format": args.format, "file_size": args.file_size, "measure": args.measure},
        "ids": "WARC-Record-ID without angle brackets" if warc else "JSON field id",
        "sources": st,
        "articles": {"original": n_orig,
                     "recombined_published": sum(1 for aid in cluster_kind if arts[aid].origin.startswith("recombined")),
                     "published": sum(1 for aid in cluster_kind if arts[aid].reuse_of is None),
                     "clough_reuse_pages": sum(1 for aid in cluster_kind if arts[aid].reuse_of is not None),
                     "ran_out": exhausted},
        "docs": ndocs,
        "docs_per_lang": {L: sum(1 for e in plan if sites[e[1]].lang == L) for L in langs},
        "clusters": len(cid),
        "docs_in_clusters": len(gold_lines),
        "cluster_size": {"min": sizes[0] if sizes else 0, "max": sizes[-1] if sizes else 0,
                         "mean": round(sum(sizes) / len(sizes), 3) if sizes else 0},
        "articles_by_kind": dict(sorted(kinds_count.items())),
        "sites": len(sites),
        "sites_per_lang": per_lang,
        "articles_per_site": {"min": per_site[0], "median": per_site[len(per_site) // 2], "max": per_site[-1]},
        "docs_per_site": {"min": dps[0], "median": dps[len(dps) // 2], "max": dps[-1]},
        "edits": {"pages_with_edits": pages_with_edits, "by_kind": edit_count},
        "bytes": {"target": args.size_bytes, "records": writer.total, "html": page_bytes_total,
                  "on_disk": sum(x["bytes"] for x in files)},
        "files": files,
        "template_share": {"range": [lo, hi], "constructed": construct.json(), "parsed": parsed.json(),
                           "parsed_every": every,
                           "definition": "visible body text bytes outside the article (title + paragraphs) / "
                                         "all visible body text bytes; html.parser, script/style/head dropped, "
                                         "whitespace collapsed"},
    }
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump(manifest, f, indent=1, ensure_ascii=False)
        f.write("\n")
    el = time.time() - t0
    log(args, "wrote %d pages (%d in %d clusters) to %s: %.1f MB in %d file(s), %.1fs (%.1f MB/s); template "
              "share parsed min %.3f mean %.3f max %.3f" % (
                  ndocs, len(gold_lines), len(cid), args.out, writer.total / 1e6, len(files), el,
                  writer.total / 1e6 / max(el, 1e-9), parsed.lo or 0, parsed.sum / max(1, parsed.n), parsed.hi or 0))
    return 0


if __name__ == "__main__":
    sys.exit(main())

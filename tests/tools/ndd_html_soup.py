#!/usr/bin/env python3
"""Writes N seeded random "tag soup" HTML documents to OUTDIR/soup-NNNN.html
(test helper of the text module: differential check of ndd's tokenizer and
tree rules against gumbo on malformed markup). Deliberately leaves out the
constructs whose text differs by design (docs/text.md): noscript, select,
math, head.

    python3 ndd_html_soup.py OUTDIR N SEED
"""
import os
import random
import sys

TOKS = ["<", ">", "</", "/>", "&", ";", "#", "x", "&amp;", "&#x41;", "&#66;", "&nbsp;", "<!--", "-->", "--!>",
        "<!", "<?", "<script>", "</script>", "<style>", "</style>", "<title>", "</title>", "<textarea>",
        "</textarea>", "<xmp>", "</xmp>", "<template>", "</template>", "<svg>", "</svg>", "<svg/>", "<p>", "</p>",
        "<div class=nav>", "<div class=\"x", "</div>", "<a href=x>", "</a>", "<li>", "<td>", "<tr>", "<table>",
        "</table>", "<ul>", "</ul>", "<br>", "'", "\"", "=", " ", "\n", "a", "word", "\u4e2d", "\u3002", "<b>",
        "</b>", "<i>", "</i>", "<span>", "</span>", "<h1>", "</h1>", "<img src=x>", "<input>", "<form>",
        "</form>", "<button>", "</button>", "<dl>", "<dt>", "<dd>"]


def main():
    outdir, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    os.makedirs(outdir, exist_ok=True)
    for i in range(n):
        doc = "<body>" + "".join(rng.choice(TOKS) for _ in range(rng.randint(5, 60)))
        with open(os.path.join(outdir, "soup-%04d.html" % i), "w", encoding="utf-8") as f:
            f.write(doc)


if __name__ == "__main__":
    main()

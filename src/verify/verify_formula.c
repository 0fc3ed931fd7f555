/* verify_formula.c - formulaic texts (issue 11): two short texts that share
 * their wording but not their names and numbers (dividend notices of two
 * companies, rate tables of two days, bond issues of two issuers) are
 * different documents even when their trustable LCS is long.
 *
 * After a TLCS "duplicate" the span of the trustable regions in each
 * document, widened to whole blocks (lines), is cut into word tokens and the
 * two token sequences are aligned (Myers O(ND) on token hashes). Tokens of
 * the shorter side that the alignment REPLACES by other tokens (a gap with
 * tokens on both sides; pure insertions and deletions - an extended or cut
 * copy - do not count) are the changes. Key tokens are numbers (a digit, or
 * one..twelve written out, compared as digits) and names (a capital letter
 * not starting a sentence). The pair is formulaic when
 *   - the changes are mostly key tokens (changed keys >= min_purity of the
 *     replaced tokens) and touch >= min_key_share of the keys, or
 *   - more than num_share of the numbers changed and they are >= num_purity
 *     of the replaced tokens,
 * with at least min_changed of them in either case - unless every change
 * lies in one block of at most line_bytes while other blocks are unchanged
 * (a new headline, dateline or byline over the same text). Rules, labels and
 * figures: docs/verify.md, "Formulaic texts". */
#include "ndd_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* XXH3 inlined here: one hash per token, a library call was 5 % of the
 * tokenizer (the same hash values) */
#define XXH_INLINE_ALL
#include <xxhash.h>

void ndd_formula_params_default(ndd_formula_params_t *p)
{
    p->min_changed = NDD_FORMULA_DEFAULT_MIN_CHANGED;
    p->min_key_share = NDD_FORMULA_DEFAULT_KEY_SHARE;
    p->min_purity = NDD_FORMULA_DEFAULT_PURITY;
    p->num_share = NDD_FORMULA_DEFAULT_NUM_SHARE;
    p->num_purity = NDD_FORMULA_DEFAULT_NUM_PURITY;
    p->max_d = NDD_FORMULA_DEFAULT_MAX_D;
    p->line_bytes = NDD_FORMULA_DEFAULT_LINE_BYTES;
    p->max_gap = NDD_FORMULA_DEFAULT_MAX_GAP;
}

enum { TK_WORD = 0, TK_NAME = 1, TK_NUM = 2 };

typedef struct tok {
    uint64_t h;
    int kind;
    uint32_t blk;  /* block (line) of the span the token is in */
    uint32_t blen; /* that block's length in bytes */
} tok_t;

/* ASCII letters and digits */
static const uint8_t alnum_tab[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1,
    ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1,
    ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
    ['y'] = 1, ['z'] = 1};

static inline int is_alnum(unsigned char c) { return alnum_tab[c]; }

/* The code point of the UTF-8 sequence at s (n > 0 bytes left) and its
 * length; an invalid byte (no lead byte, or not followed by its
 * continuation bytes) is one byte, code point 0xFFFD. */
static size_t utf8_cp(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC0 ? 2 : 1;
    if (len > n || len == 1) {
        *cp = u[0] < 0x80 ? u[0] : 0xFFFD;
        return 1;
    }
    uint32_t c = u[0] & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
        if ((u[k] & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        c = (c << 6) | (u[k] & 0x3F);
    }
    *cp = c;
    return len;
}

static int is_cjk(uint32_t cp)
{
    return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x3400 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x20000 && cp <= 0x2FFFF);
}

static const char *const numw[] = {"one", "two", "three", "four", "five", "six",
                                   "seven", "eight", "nine", "ten", "eleven", "twelve"};
static const uint8_t numw_len[] = {3, 3, 5, 4, 4, 3, 5, 5, 4, 3, 6, 6};

/* The number words by first letter: bit w set when numw[w] starts with it. */
static const uint16_t numw_first[26] = {
    ['e' - 'a'] = 1u << 7 | 1u << 10,           /* eight, eleven */
    ['f' - 'a'] = 1u << 3 | 1u << 4,            /* four, five */
    ['n' - 'a'] = 1u << 8,                      /* nine */
    ['o' - 'a'] = 1u << 0,                      /* one */
    ['s' - 'a'] = 1u << 5 | 1u << 6,            /* six, seven */
    ['t' - 'a'] = 1u << 1 | 1u << 2 | 1u << 9 | 1u << 11, /* two, three, ten, twelve */
};

/* The value of the number word low[0..l) (lowercase), 0 when it is none:
 * only the words of its first letter are compared (a loop over all twelve
 * for every word of 3-6 letters was 14 % of the tokenizer). */
static unsigned number_word(const char *low, size_t l)
{
    unsigned char f = (unsigned char)low[0];
    if (l < 3 || l > 6 || f < 'a' || f > 'z')
        return 0;
    unsigned m = numw_first[f - 'a'];
    for (; m; m &= m - 1) {
        unsigned w = (unsigned)__builtin_ctz(m);
        if (numw_len[w] == l && !memcmp(numw[w], low, l))
            return w + 1;
    }
    return 0;
}

/* Tokens of t[0..n): runs of ASCII letters and digits with . , / - ' kept
 * between two of them (3.5, 1,411,240, 6-3/16, A-2), and each CJK
 * character. */
static int tokens(const char *t, size_t n, tok_t **v, size_t *nv, size_t *cap)
{
    int sent = 1;
    size_t i = 0, bstart = 0;
    uint32_t blk = 0;
    const char *nl = memchr(t, '\n', n);
    uint32_t blen = (uint32_t)(nl ? (size_t)(nl - t) : n);
    *nv = 0;
    while (i < n) {
        unsigned char c = (unsigned char)t[i];
        if (c == '\n') {
            blk++;
            bstart = i + 1;
            nl = memchr(t + bstart, '\n', n - bstart);
            blen = (uint32_t)(nl ? (size_t)(nl - t) - bstart : n - bstart);
        }
        if (c >= 0x80) { /* a CJK ideograph, kana or hangul syllable is a word of its own */
            uint32_t cp;
            size_t len = utf8_cp(t + i, n - i, &cp);
            if (is_cjk(cp)) {
                int rc = *nv < *cap ? NDD_OK : ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v);
                if (rc)
                    return rc;
                (*v)[(*nv)++] = (tok_t){XXH3_64bits(t + i, len), TK_WORD, blk, blen};
                sent = 0;
            } else if (cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B || cp == 0xFF1A) {
                sent = 1; /* 。！？；： */
            }
            i += len;
            continue;
        }
        if (!is_alnum(c)) {
            if (c == '.' || c == '!' || c == '?' || c == ':' || c == ';' || c == '\n')
                sent = 1;
            i++;
            continue;
        }
        size_t j = i;
        int digit = 0;
        while (j < n) {
            unsigned char d = (unsigned char)t[j];
            if (is_alnum(d)) {
                digit |= d >= '0' && d <= '9';
                j++;
            } else if ((d == '.' || d == ',' || d == '/' || d == '-' || d == '\'') && j > i && j + 1 < n &&
                       is_alnum((unsigned char)t[j + 1])) {
                j++;
            } else {
                break;
            }
        }
        char low[64];
        size_t l = j - i < sizeof low ? j - i : sizeof low;
        for (size_t k = 0; k < l; k++) {
            char x = t[i + k];
            low[k] = (x >= 'A' && x <= 'Z') ? (char)(x + 32) : x;
        }
        int kind = digit ? TK_NUM : (c >= 'A' && c <= 'Z' && !sent) ? TK_NAME : TK_WORD;
        unsigned num = digit ? 0 : number_word(low, l);
        if (num) {
            l = (size_t)snprintf(low, sizeof low, "%u", num);
            kind = TK_NUM;
        }
        int rc = *nv < *cap ? NDD_OK : ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v);
        if (rc)
            return rc;
        (*v)[(*nv)++] = (tok_t){XXH3_64bits(low, l), kind, blk, blen};
        sent = 0;
        i = j;
    }
    return NDD_OK;
}

/* [*s, *e) widened to the start and end of the blocks ('\n'-separated) it touches. */
static void widen(const char *t, size_t n, size_t *s, size_t *e)
{
    while (*s > 0 && t[*s - 1] != '\n')
        (*s)--;
    while (*e < n && t[*e] != '\n')
        (*e)++;
}

/* Myers O(ND) with the V vector of every round kept (O(D^2) memory, D <=
 * max_d), then the path back. rep[i] for each token i of x: 0 matched, 1 in
 * a small replacement (a gap between matches with 1..gmax tokens on both
 * sides), 2 elsewhere (deleted, or in a larger gap: a moved paragraph, an
 * inserted advertisement, a rewritten passage). Returns 1 when the alignment
 * was made, 0 when D > max_d, < 0 on an error. */
static void mark_gap(uint8_t *rep, long x0, long x1, long ny, long gmax)
{
    int small = x1 > x0 && ny > 0 && x1 - x0 <= gmax && ny <= gmax;
    for (long i = x0; i < x1; i++)
        rep[i] = small ? 1 : 2;
}

static int align_replaced(const tok_t *x, size_t nx, const tok_t *y, size_t ny, size_t max_d, long gmax,
                          uint8_t *rep)
{
    long n = (long)nx, m = (long)ny, dmax = (long)(max_d < nx + ny ? max_d : nx + ny);
    long off = dmax + 1, w = 2 * dmax + 3;
    /* trace row d keeps V on diagonals -d-1 .. d+1 only (what the walk back
     * reads of it), at TROW(d) = d^2 + 2d: the rows grow with the D found,
     * not with max_d (a max_d x max_d table was a multi-MB allocation and
     * a copy of 2 max_d + 3 entries per round for every formulaic check) */
#define TROW(d) ((size_t)(d) * (size_t)(d) + 2 * (size_t)(d))
    int *trace = NULL, *v = malloc((size_t)w * sizeof *v);
    size_t tcap = 0;
    long dfound = -1;
    if (!v)
        return NDD_ERR_NOMEM;
    for (long i = 0; i < w; i++)
        v[i] = -1;
    v[off + 1] = 0;
    for (long d = 0; d <= dmax && dfound < 0; d++) {
        for (long k = -d; k <= d; k += 2) {
            long xx = (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
            long yy = xx - k;
            while (xx < n && yy < m && x[xx].h == y[yy].h) {
                xx++;
                yy++;
            }
            v[off + k] = (int)xx;
            if (xx >= n && yy >= m)
                dfound = d;
        }
        if (ndd_array_grow((void **)&trace, &tcap, TROW(d + 1), sizeof *trace)) {
            free(trace);
            free(v);
            return NDD_ERR_NOMEM;
        }
        /* diagonals -d-1 .. d+1 (within v: d <= dmax) */
        memcpy(trace + TROW(d), v + off - d - 1, (size_t)(2 * d + 3) * sizeof *v);
    }
    if (dfound < 0) {
        free(trace);
        free(v);
        return 0;
    }
    /* walk back: matched tokens 0; each gap between matched runs: a small
     * replacement (tokens on both sides, at most gmax on each) 1, anything
     * else (pure deletion, a moved or rewritten passage) 2 */
    memset(rep, 2, nx);
    long xx = n, yy = m;
    long gap_x1 = n, gap_y1 = m; /* the current gap's end (exclusive) in x and y */
    for (long d = dfound; d >= 0; d--) {
        /* the round before (where round d came from): row d - 1 starts at
         * diagonal -d, so diagonal k is vp[k + d] */
        const int *vp = d ? trace + TROW(d - 1) : NULL;
        long k = xx - yy;
        long pk = d == 0 ? 0 : (k == -d || (k != d && vp[k - 1 + d] < vp[k + 1 + d])) ? k + 1 : k - 1;
        long px = d == 0 ? 0 : vp[pk + d], py = px - pk;
        long sx = d == 0 ? 0 : (pk == k + 1 ? px : px + 1); /* where the snake of round d starts */
        long sy = sx - k;
        if (xx > sx) { /* a snake (matches) [sx, xx): it closes the gap after it */
            mark_gap(rep, xx, gap_x1, gap_y1 - yy, gmax);
            for (long i = sx; i < xx; i++)
                rep[i] = 0;
            gap_x1 = sx;
            gap_y1 = sy;
        }
        xx = px;
        yy = py;
        if (d == 0)
            break;
    }
    mark_gap(rep, 0, gap_x1, gap_y1, gmax); /* the gap at the start */
    free(trace);
    free(v);
    return 1;
#undef TROW
}

/* The spans of the regions in a and b (r's regions and partner spans),
 * widened to whole blocks. */
static int spans(const char *a, size_t na, const char *b, size_t nb, const ndd_tlcs_result_t *r, size_t *a0,
                 size_t *a1, size_t *b0, size_t *b1)
{
    *a0 = *b0 = SIZE_MAX;
    *a1 = *b1 = 0;
    for (unsigned g = 0; g < r->nregions; g++) {
        const ndd_tlcs_region_t *q = &r->regions[g];
        if (q->a_end > na || q->b_end > nb || q->a_start > q->a_end || q->b_start > q->b_end)
            return NDD_ERR_INVAL;
        *a0 = q->a_start < *a0 ? q->a_start : *a0;
        *a1 = q->a_end > *a1 ? q->a_end : *a1;
        *b0 = q->b_start < *b0 ? q->b_start : *b0;
        *b1 = q->b_end > *b1 ? q->b_end : *b1;
    }
    widen(a, na, a0, a1);
    widen(b, nb, b0, b1);
    return NDD_OK;
}

/* The rules on the two spans' tokens. */
static int judge(const ndd_formula_params_t *p, const tok_t *ta, size_t nta, const tok_t *tb, size_t ntb,
                 ndd_formula_result_t *out)
{
    /* the shorter token sequence is x (ties: the smaller hash sequence): symmetric */
    const tok_t *x = ta, *y = tb;
    size_t nx = nta, ny = ntb;
    int swap = ntb < nta;
    for (size_t i = 0; !swap && nta == ntb && i < nta; i++)
        if (ta[i].h != tb[i].h) {
            swap = tb[i].h < ta[i].h;
            break;
        }
    if (swap) {
        x = tb, y = ta;
        nx = ntb, ny = nta;
    }
    uint8_t *rep = malloc(nx ? nx : 1);
    if (!rep)
        return NDD_ERR_NOMEM;
    int made = align_replaced(x, nx, y, ny, p->max_d, (long)p->max_gap, rep);
    if (made >= 0) {
        out->aligned = made;
        out->words = nx;
    }
    if (made <= 0) {
        free(rep);
        return made;
    }
    /* one line: every change in one short block (a new headline, another
     * dateline or byline) while the other blocks are unchanged is the same
     * text, not a formula */
    {
        int first = 1, one = 1, others = 0;
        uint32_t blk = 0, blen = 0;
        for (size_t i = 0; i < nx; i++) {
            if (rep[i] == 1) {
                if (first)
                    blk = x[i].blk, blen = x[i].blen, first = 0;
                else if (x[i].blk != blk)
                    one = 0;
            }
        }
        for (size_t i = 0; i < nx && !first; i++)
            others |= x[i].blk != blk;
        out->one_line = !first && one && others && blen <= p->line_bytes;
    }
    for (size_t i = 0; i < nx; i++) {
        if (rep[i] == 2)
            continue; /* outside the comparison: deleted or in a larger change */
        int key = x[i].kind != TK_WORD, num = x[i].kind == TK_NUM, ch = rep[i] == 1;
        out->keys += (size_t)key;
        out->numbers += (size_t)num;
        out->replaced += (size_t)ch;
        out->keys_changed += (size_t)(key && ch);
        out->numbers_changed += (size_t)(num && ch);
    }
    free(rep);
    double share = out->keys ? (double)out->keys_changed / (double)out->keys : 0;
    double purity = out->replaced ? (double)out->keys_changed / (double)out->replaced : 0;
    double nshare = out->numbers ? (double)out->numbers_changed / (double)out->numbers : 0;
    int keys = out->keys_changed >= p->min_changed && share >= p->min_key_share && purity >= p->min_purity;
    double npur = out->replaced ? (double)out->numbers_changed / (double)out->replaced : 0;
    int nums = out->numbers_changed >= p->min_changed && nshare > p->num_share && npur >= p->num_purity;
    out->different = !out->one_line && (keys || nums);
    return NDD_OK;
}

int ndd_formula_check(const ndd_formula_params_t *p, const char *a, size_t na, const char *b, size_t nb,
                      const ndd_tlcs_result_t *r, ndd_formula_result_t *out)
{
    tok_t *ta = NULL, *tb = NULL;
    size_t nta = 0, ntb = 0, ca = 0, cb = 0, a0, a1, b0, b1;
    int rc;
    if (!p || !r || !out || (!a && na) || (!b && nb))
        return NDD_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!r->nregions)
        return NDD_OK;
    if ((rc = spans(a, na, b, nb, r, &a0, &a1, &b0, &b1)))
        return rc;
    if (!(rc = tokens(a + a0, a1 - a0, &ta, &nta, &ca)) && !(rc = tokens(b + b0, b1 - b0, &tb, &ntb, &cb)))
        rc = judge(p, ta, nta, tb, ntb, out);
    free(ta);
    free(tb);
    return rc;
}

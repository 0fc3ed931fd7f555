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
 *   - more than max_num_share of the numbers changed,
 * with at least min_changed of them in either case - unless every change
 * lies in the document's first block, of at most title_bytes, while other
 * blocks are unchanged (a new headline over the same text). Rules, labels and
 * figures: docs/verify.md, "Formulaic texts". */
#include "ndd_verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void ndd_formula_params_default(ndd_formula_params_t *p)
{
    p->min_changed = NDD_FORMULA_DEFAULT_MIN_CHANGED;
    p->min_key_share = NDD_FORMULA_DEFAULT_KEY_SHARE;
    p->min_purity = NDD_FORMULA_DEFAULT_PURITY;
    p->num_share = NDD_FORMULA_DEFAULT_NUM_SHARE;
    p->max_d = NDD_FORMULA_DEFAULT_MAX_D;
    p->title_bytes = NDD_FORMULA_DEFAULT_TITLE_BYTES;
}

enum { TK_WORD = 0, TK_NAME = 1, TK_NUM = 2 };

typedef struct tok {
    uint64_t h;
    int kind;
    uint32_t blk;  /* block (line) of the span the token is in */
    uint32_t blen; /* that block's length in bytes */
} tok_t;

static int is_alnum(unsigned char c) { return (c >= '0' && c <= '9') || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

static const char *const numw[] = {"one", "two", "three", "four", "five", "six",
                                   "seven", "eight", "nine", "ten", "eleven", "twelve"};

/* Tokens of t[0..n): runs of ASCII letters and digits with . , / - ' kept
 * between two of them (3.5, 1,411,240, 6-3/16, A-2). */
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
        if (!is_alnum(c)) {
            if (c == '.' || c == '!' || c == '?' || c == ':' || c == ';' || c == '\n')
                sent = 1;
            else if (c == 0xE3 && i + 2 < n && (unsigned char)t[i + 1] == 0x80 && (unsigned char)t[i + 2] == 0x82)
                sent = 1; /* U+3002 ideographic full stop */
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
        for (size_t w = 0; !digit && w < sizeof numw / sizeof numw[0]; w++)
            if (strlen(numw[w]) == l && !memcmp(numw[w], low, l)) {
                l = (size_t)snprintf(low, sizeof low, "%zu", w + 1);
                kind = TK_NUM;
                break;
            }
        int rc = ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v);
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
 * max_d), then the path back. Marks rep[i] = 1 for each token i of x that
 * lies in a gap between matches that holds tokens of y too. Returns 1 when
 * the alignment was made, 0 when D > max_d, < 0 on an error. */
static int align_replaced(const tok_t *x, size_t nx, const tok_t *y, size_t ny, size_t max_d, uint8_t *rep)
{
    long n = (long)nx, m = (long)ny, dmax = (long)(max_d < nx + ny ? max_d : nx + ny);
    long off = dmax + 1, w = 2 * dmax + 3;
    int *trace = malloc((size_t)(dmax + 1) * (size_t)w * sizeof *trace), *v = malloc((size_t)w * sizeof *v);
    long dfound = -1;
    if (!trace || !v) {
        free(trace);
        free(v);
        return NDD_ERR_NOMEM;
    }
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
        memcpy(trace + d * w, v, (size_t)w * sizeof *v);
    }
    if (dfound < 0) {
        free(trace);
        free(v);
        return 0;
    }
    /* walk back: collect, per gap between matched runs, whether y has tokens in it */
    memset(rep, 0, nx);
    long xx = n, yy = m;
    long gap_x1 = n, gap_y1 = m; /* the current gap's end (exclusive) in x and y */
    for (long d = dfound; d >= 0; d--) {
        const int *vp = d ? trace + (d - 1) * w : NULL; /* the round before: where round d came from */
        long k = xx - yy;
        long pk = d == 0 ? 0 : (k == -d || (k != d && vp[off + k - 1] < vp[off + k + 1])) ? k + 1 : k - 1;
        long px = d == 0 ? 0 : vp[off + pk], py = px - pk;
        long sx = d == 0 ? 0 : (pk == k + 1 ? px : px + 1); /* where the snake of round d starts */
        long sy = sx - k;
        if (xx > sx) { /* a snake (matches) [sx, xx): it closes the gap after it */
            if (gap_y1 > yy)
                for (long i = xx; i < gap_x1; i++)
                    rep[i] = (uint8_t)(gap_y1 > yy);
            gap_x1 = sx;
            gap_y1 = sy;
        }
        xx = px;
        yy = py;
        if (d == 0)
            break;
    }
    /* the gap at the start */
    if (gap_y1 > 0)
        for (long i = 0; i < gap_x1; i++)
            rep[i] = 1;
    free(trace);
    free(v);
    return 1;
}

int ndd_formula_check(const ndd_formula_params_t *p, const char *a, size_t na, const char *b, size_t nb,
                      const ndd_tlcs_result_t *r, ndd_formula_result_t *out)
{
    tok_t *ta = NULL, *tb = NULL;
    size_t nta = 0, ntb = 0, ca = 0, cb = 0;
    uint8_t *rep = NULL;
    int rc = NDD_OK;
    if (!p || !r || !out || (!a && na) || (!b && nb))
        return NDD_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!r->nregions)
        return NDD_OK;
    size_t a0 = SIZE_MAX, a1 = 0, b0 = SIZE_MAX, b1 = 0;
    for (unsigned g = 0; g < r->nregions; g++) {
        const ndd_tlcs_region_t *q = &r->regions[g];
        if (q->a_end > na || q->b_end > nb || q->a_start > q->a_end || q->b_start > q->b_end)
            return NDD_ERR_INVAL;
        a0 = q->a_start < a0 ? q->a_start : a0;
        a1 = q->a_end > a1 ? q->a_end : a1;
        b0 = q->b_start < b0 ? q->b_start : b0;
        b1 = q->b_end > b1 ? q->b_end : b1;
    }
    widen(a, na, &a0, &a1);
    widen(b, nb, &b0, &b1);
    if ((rc = tokens(a + a0, a1 - a0, &ta, &nta, &ca)) || (rc = tokens(b + b0, b1 - b0, &tb, &ntb, &cb)))
        goto out;
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
    if (!(rep = malloc(nx ? nx : 1))) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    int made = align_replaced(x, nx, y, ny, p->max_d, rep);
    if (made < 0) {
        rc = made;
        goto out;
    }
    out->aligned = made;
    out->words = nx;
    if (!made)
        goto out;
    /* a new title: every change in the first block of the document, a short
     * one, while the other blocks are unchanged is the same text under
     * another headline, not a formula */
    {
        int first = 1, one = 1, others = 0;
        uint32_t blk = 0, blen = 0;
        for (size_t i = 0; i < nx; i++) {
            if (rep[i]) {
                if (first)
                    blk = x[i].blk, blen = x[i].blen, first = 0;
                else if (x[i].blk != blk)
                    one = 0;
            }
        }
        for (size_t i = 0; i < nx && !first; i++)
            others |= x[i].blk != blk;
        size_t xstart = swap ? b0 : a0;
        out->title_only = !first && one && others && blk == 0 && xstart == 0 && blen <= p->title_bytes;
    }
    for (size_t i = 0; i < nx; i++) {
        int key = x[i].kind != TK_WORD, num = x[i].kind == TK_NUM;
        out->keys += (size_t)key;
        out->numbers += (size_t)num;
        out->replaced += rep[i];
        out->keys_changed += (size_t)(key && rep[i]);
        out->numbers_changed += (size_t)(num && rep[i]);
    }
    {
        double share = out->keys ? (double)out->keys_changed / (double)out->keys : 0;
        double purity = out->replaced ? (double)out->keys_changed / (double)out->replaced : 0;
        double nshare = out->numbers ? (double)out->numbers_changed / (double)out->numbers : 0;
        int keys = out->keys_changed >= p->min_changed && share >= p->min_key_share && purity >= p->min_purity;
        int nums = out->numbers_changed >= p->min_changed && nshare > p->num_share;
        out->different = !out->title_only && (keys || nums);
    }
out:
    free(ta);
    free(tb);
    free(rep);
    return rc;
}

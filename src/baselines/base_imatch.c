/* base_imatch.c - I-Match (Chowdhury et al. 2002): one SHA1 over the sorted
 * unique terms whose normalised idf lies in a band; and Cosine similarity of
 * TF-IDF word vectors (the verifier of paper 002's comparison). */
#include "base_internal.h"

#include <math.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

static int cmp_term_hash(const void *x, const void *y)
{
    const base_term_t *a = x, *b = y;
    return (a->h > b->h) - (a->h < b->h);
}

static int cmp_term_bytes(const void *x, const void *y)
{
    const base_term_t *a = x, *b = y;
    size_t m = a->len < b->len ? a->len : b->len;
    int r = memcmp(a->p, b->p, m);
    if (r)
        return r;
    return (a->len > b->len) - (a->len < b->len);
}

int base_imatch(ndd_method_ctx_t *c, const char *text, size_t n, unsigned char md[20], size_t *nterms)
{
    size_t m = 0, k = 0;
    int rc;
    memset(md, 0, 20);
    *nterms = 0;
    if (!c->df)
        return NDD_ERR_INVAL;
    if ((rc = base_tok_run(&c->tok, text, n)))
        return rc;
    if ((rc = base_grow((void **)&c->terms, &c->termcap, c->tok.n + 1, sizeof *c->terms)))
        return rc;
    for (size_t i = 0; i < c->tok.n; i++) {
        c->terms[i].p = c->tok.low + c->tok.off[i];
        c->terms[i].len = c->tok.len[i];
        c->terms[i].h = c->tok.h[i];
    }
    /* unique terms (by hash), then the idf band */
    if (c->tok.n > 1)
        qsort(c->terms, c->tok.n, sizeof *c->terms, cmp_term_hash);
    for (size_t i = 0; i < c->tok.n; i++) {
        double idf;
        if (i && c->terms[i].h == c->terms[i - 1].h)
            continue;
        idf = base_idf_norm(c->df, c->terms[i].h);
        if (idf < c->p.imatch_lo || idf > c->p.imatch_hi)
            continue;
        c->terms[m++] = c->terms[i];
    }
    if (m == 0)
        return NDD_OK;
    if (m > 1)
        qsort(c->terms, m, sizeof *c->terms, cmp_term_bytes);
    ndd_buf_clear(&c->sbuf);
    for (size_t i = 0; i < m; i++) {
        if ((rc = ndd_buf_append(&c->sbuf, c->terms[i].p, c->terms[i].len)) || (rc = ndd_buf_putc(&c->sbuf, '\n')))
            return rc;
        k++;
    }
    SHA1((const unsigned char *)c->sbuf.data, c->sbuf.len, md);
    *nterms = k;
    return NDD_OK;
}

int ndd_imatch_digest(ndd_method_ctx_t *c, const char *text, size_t n, unsigned char digest[20], size_t *nterms)
{
    if (!c || !digest || !nterms || (n && !text))
        return NDD_ERR_INVAL;
    return base_imatch(c, text, n, digest, nterms);
}

/* ---- Cosine on TF-IDF word vectors ---- */

int base_tf_vec(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n)
{
    size_t nt;
    int rc;
    s->n = 0;
    if ((rc = base_tok_run(&c->tok, text, n)))
        return rc;
    nt = c->tok.n;
    if ((rc = base_grow((void **)&c->tmp, &c->tmpcap, nt + 1, sizeof *c->tmp)) ||
        (rc = base_grow((void **)&s->h, &s->hcap, nt + 1, sizeof *s->h)) ||
        (rc = base_grow((void **)&s->f, &s->fcap, nt + 1, sizeof *s->f)))
        return rc;
    if (nt)
        memcpy(c->tmp, c->tok.h, nt * sizeof *c->tmp);
    base_sort_u64(c->tmp, nt);
    for (size_t i = 0; i < nt;) {
        size_t j = i;
        while (j < nt && c->tmp[j] == c->tmp[i])
            j++;
        s->h[s->n] = c->tmp[i];
        s->f[s->n] = (uint32_t)(j - i);
        s->n++;
        i = j;
    }
    return NDD_OK;
}

double base_cosine(const ndd_method_ctx_t *c, const base_slot_t *a, const base_slot_t *b)
{
    double dot = 0.0, na = 0.0, nb = 0.0;
    size_t i = 0, j = 0;
    /* w = tf * idf; sums formed in hash order on both sides */
    while (i < a->n || j < b->n) {
        if (j == b->n || (i < a->n && a->h[i] < b->h[j])) {
            double w = a->f[i] * base_idf_smooth(c->df, a->h[i]);
            na += w * w;
            i++;
        } else if (i == a->n || b->h[j] < a->h[i]) {
            double w = b->f[j] * base_idf_smooth(c->df, b->h[j]);
            nb += w * w;
            j++;
        } else {
            double idf = base_idf_smooth(c->df, a->h[i]);
            double wa = a->f[i] * idf, wb = b->f[j] * idf;
            dot += wa * wb;
            na += wa * wa;
            nb += wb * wb;
            i++;
            j++;
        }
    }
    if (na <= 0.0 || nb <= 0.0)
        return 0.0;
    return dot / (sqrt(na) * sqrt(nb));
}

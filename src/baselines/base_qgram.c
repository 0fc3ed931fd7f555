/* base_qgram.c - DDD q-grams (Montanari & Puglisi, paper 003): the set of
 * q-grams of the text with spaces and punctuation removed, doc_q = |A n B| /
 * max(|A|, |B|), and exact candidate keys (partition-scoped prefix filter). */
#include "base_internal.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

int base_qgram_set(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n)
{
    const unsigned char *u = (const unsigned char *)text;
    size_t i = 0, ncp = 0, q = c->p.q, nq;
    int rc;
    s->n = 0;
    if (n && !text)
        return NDD_ERR_INVAL;
    if (n >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    ndd_buf_clear(&c->sbuf);
    if ((rc = ndd_buf_reserve(&c->sbuf, n)) ||
        (rc = base_grow((void **)&c->pos, &c->poscap, n + 2, sizeof *c->pos)))
        return rc;
    /* normal form: letters and digits only (paper 003 sec. 3.3), one entry
     * per character so that a q-gram is q characters, not q bytes */
    while (i < n) {
        uint32_t cp;
        size_t l = base_utf8_next(u, n, i, &cp);
        if (base_cp_class(cp) != BASE_SEP) {
            c->pos[ncp++] = (uint32_t)c->sbuf.len;
            memcpy(c->sbuf.data + c->sbuf.len, text + i, l);
            c->sbuf.len += l;
        }
        i += l;
    }
    c->pos[ncp] = (uint32_t)c->sbuf.len;
    if (ncp < q)
        return NDD_OK; /* no partial q-grams (paper 003 sec. 3.2) */
    nq = ncp - q + 1;
    if ((rc = base_grow((void **)&s->h, &s->hcap, nq, sizeof *s->h)))
        return rc;
    for (size_t k = 0; k < nq; k++)
        s->h[k] = XXH3_64bits(c->sbuf.data + c->pos[k], c->pos[k + q] - c->pos[k]);
    base_sort_u64(s->h, nq);
    s->n = base_unique_u64(s->h, nq);
    return NDD_OK;
}

int ndd_qgram_set(ndd_method_ctx_t *c, const char *text, size_t n, const uint64_t **set, size_t *nset)
{
    int rc;
    if (!c || !set || !nset)
        return NDD_ERR_INVAL;
    if ((rc = base_qgram_set(c, &c->slot[0], text, n)))
        return rc;
    *set = c->slot[0].h;
    *nset = c->slot[0].n;
    return NDD_OK;
}

double ndd_qgram_docq(const uint64_t *a, size_t na, const uint64_t *b, size_t nb, uint64_t *inter)
{
    size_t i = 0, j = 0, k = 0, mx = na > nb ? na : nb;
    while (i < na && j < nb) {
        if (a[i] < b[j])
            i++;
        else if (a[i] > b[j])
            j++;
        else {
            k++;
            i++;
            j++;
        }
    }
    if (inter)
        *inter = k;
    return mx ? (double)k / (double)mx : 0.0;
}

int ndd_qgram_set_keys(ndd_method_ctx_t *c, const uint64_t *set, size_t nset, const uint64_t **keys, size_t *nkeys)
{
    int rc;
    if (!c || !keys || !nkeys || (nset && !set))
        return NDD_ERR_INVAL;
    c->nkeys = 0;
    *keys = NULL;
    *nkeys = 0;
    if ((rc = base_grow((void **)&c->rk, &c->rkcap, nset + 1, sizeof *c->rk)))
        return rc;
    for (size_t i = 0; i < nset; i++) {
        c->rk[i].rank = c->df_q ? ndd_df_get(c->df_q, set[i]) : 0; /* rarest first */
        c->rk[i].id = set[i];
    }
    if ((rc = base_prefix_keys(&c->parts_q, c->p.qgram_threshold, NDD_METHOD_QGRAM, c->rk, nset, &c->keys,
                               &c->keycap, &c->nkeys)))
        return rc;
    base_sort_u64(c->keys, c->nkeys);
    c->nkeys = base_unique_u64(c->keys, c->nkeys);
    *keys = c->keys;
    *nkeys = c->nkeys;
    return NDD_OK;
}

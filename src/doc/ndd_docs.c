/* ndd_docs.c - see ndd_docs.h */
#include "ndd_docs.h"
#include "ndd_wire.h"

#include <string.h>

int ndd_docs_reserve(ndd_docs_t *d, size_t need)
{
    if (need <= d->cap) {
        if (d->key_off && d->n == 0)
            d->key_off[0] = 0;
        return NDD_OK;
    }
    size_t c = d->cap ? d->cap * 2 : 4096;
    while (c < need)
        c *= 2;
#define NDD_RE(f)                                          \
    do {                                                   \
        void *q = realloc(d->f, c * sizeof *d->f);         \
        if (!q)                                            \
            return NDD_ERR_NOMEM;                          \
        d->f = q;                                          \
    } while (0)
    NDD_RE(id_off);
    NDD_RE(url_off);
    NDD_RE(text_off);
    NDD_RE(text_len);
    NDD_RE(site);
    NDD_RE(weight);
    NDD_RE(urlh);
    NDD_RE(date);
#undef NDD_RE
    uint64_t *ko = realloc(d->key_off, (c + 1) * sizeof *ko);
    if (!ko)
        return NDD_ERR_NOMEM;
    if (!d->key_off || d->n == 0)
        ko[0] = 0;
    d->key_off = ko;
    d->cap = c;
    return NDD_OK;
}

void ndd_docs_free(ndd_docs_t *d)
{
    free(d->id_off);
    free(d->url_off);
    free(d->text_off);
    free(d->text_len);
    free(d->site);
    free(d->weight);
    free(d->urlh);
    free(d->date);
    ndd_buf_free(&d->strs);
    ndd_buf_free(&d->texts);
    free(d->keys);
    free(d->key_off);
    memset(d, 0, sizeof *d);
}

int ndd_docs_add(ndd_docs_t *d, const char *id, size_t idlen, const char *url, size_t urllen, const char *text,
                 size_t textlen, uint32_t site, uint16_t urlh, uint32_t weight, const uint64_t *keys, size_t nkeys)
{
    size_t i = d->n;
    int rc;
    if (textlen > UINT32_MAX)
        return NDD_ERR_LIMIT;
    if ((rc = ndd_docs_reserve(d, i + 1)) ||
        (rc = ndd_array_grow((void **)&d->keys, &d->keys_cap, d->nkeys + nkeys, sizeof *d->keys)))
        return rc;
    d->id_off[i] = d->strs.len;
    if ((rc = ndd_buf_append(&d->strs, id, idlen)) || (rc = ndd_buf_putc(&d->strs, '\0')))
        return rc;
    d->url_off[i] = d->strs.len;
    if ((rc = ndd_buf_append(&d->strs, url, urllen)) || (rc = ndd_buf_putc(&d->strs, '\0')))
        return rc;
    d->text_off[i] = d->texts.len;
    if ((rc = ndd_buf_append(&d->texts, text, textlen)))
        return rc;
    if (nkeys)
        memcpy(d->keys + d->nkeys, keys, nkeys * sizeof *keys);
    d->nkeys += nkeys;
    d->key_off[i + 1] = d->nkeys;
    d->text_len[i] = (uint32_t)textlen;
    d->site[i] = site;
    d->urlh[i] = urlh;
    d->weight[i] = weight;
    d->date[i] = 0;
    d->n++;
    return NDD_OK;
}

uint64_t ndd_date_key(const char *s)
{
    uint64_t k = 0;
    int n = 0;
    for (; s && *s && n < 14; s++)
        if (*s >= '0' && *s <= '9') {
            k = k * 10 + (uint64_t)(*s - '0');
            n++;
        }
    if (n < 8)
        return 0;
    for (; n < 14; n++)
        k *= 10;
    return k;
}

void ndd_docs_drop_keys(ndd_docs_t *d)
{
    free(d->keys);
    d->keys = NULL;
    d->keys_cap = d->nkeys = 0;
}

void ndd_docs_drop_texts(ndd_docs_t *d) { ndd_buf_free(&d->texts); }

/* ---- shuffle 2 records ---- */

#define DOCREC_HEAD 32

size_t ndd_docrec_size(const ndd_docrec_t *r)
{
    return DOCREC_HEAD + (r->rep != UINT64_MAX ? 8 : 0) + (r->nkeys ? 4 + 8 * (size_t)r->nkeys : 0) + (size_t)r->idlen +
           r->urllen + r->textlen;
}

int ndd_docrec_put(ndd_buf_t *b, const ndd_docrec_t *r)
{
    char h[DOCREC_HEAD];
    ndd_le64_store(h, r->g);
    ndd_le64_store(h + 8, r->label);
    ndd_le32_store(h + 16, r->idlen);
    ndd_le32_store(h + 20, r->urllen);
    ndd_le32_store(h + 24, r->textlen);
    ndd_le32_store(h + 28, (uint32_t)(r->rep != UINT64_MAX) | (r->nkeys ? 2u : 0u));
    int rc = ndd_buf_reserve(b, ndd_docrec_size(r));
    if (rc || (rc = ndd_buf_append(b, h, sizeof h)) || (r->rep != UINT64_MAX && (rc = ndd_put64(b, r->rep))) ||
        (r->nkeys && (rc = ndd_put32(b, r->nkeys))) || (rc = ndd_buf_append(b, r->id, r->idlen)) ||
        (rc = ndd_buf_append(b, r->url, r->urllen)) || (rc = ndd_buf_append(b, r->text, r->textlen)))
        return rc;
    if (!r->nkeys)
        return NDD_OK;
    /* (a parsed record passed on: its keys as they came) */
    return r->keys ? ndd_put64s(b, r->keys, r->nkeys) : ndd_buf_append(b, r->keys_le, 8 * (size_t)r->nkeys);
}

int ndd_docrec_head(const char *p, size_t n, ndd_docrec_t *r, size_t *head)
{
    ndd_cur_t c = {p, p + n, 0};
    r->g = ndd_get64(&c);
    r->label = ndd_get64(&c);
    r->idlen = ndd_get32(&c);
    r->urllen = ndd_get32(&c);
    r->textlen = ndd_get32(&c);
    uint32_t flags = ndd_get32(&c);
    r->rep = flags & 1 ? ndd_get64(&c) : UINT64_MAX;
    r->nkeys = flags & 2 ? ndd_get32(&c) : 0;
    r->id = r->url = r->text = r->keys_le = NULL;
    r->keys = NULL;
    r->text_at = 0;
    if (c.bad || flags > 3) /* no other flag is defined */
        return NDD_ERR_FORMAT;
    *head = (size_t)(c.p - p);
    return NDD_OK;
}

int ndd_docrec_parse(const char *p, size_t n, ndd_docrec_t **v, size_t *nv, size_t *cap)
{
    for (size_t at = 0, head; at < n;) {
        ndd_docrec_t r;
        int rc = ndd_docrec_head(p + at, n - at, &r, &head);
        if (rc)
            return rc;
        uint64_t body = (uint64_t)r.idlen + r.urllen + r.textlen + 8 * (uint64_t)r.nkeys;
        if (body > n - at - head)
            return NDD_ERR_FORMAT;
        r.id = p + at + head;
        r.url = r.id + r.idlen;
        r.text = r.url + r.urllen;
        r.keys_le = r.nkeys ? r.text + r.textlen : NULL;
        if ((rc = ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v)))
            return rc;
        (*v)[(*nv)++] = r;
        at += head + (size_t)body;
    }
    return NDD_OK;
}

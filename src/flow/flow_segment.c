/* flow_segment.c - one hour segment of flow mode: its documents and the
 * inverted index q-gram -> postings of the segment's documents (paper 003
 * sec. 3.6, Fig. 4: one index per hour, an entry only for q-grams present in
 * that hour). Two layouts of a q-gram's documents: a chain of postings (a
 * 4-byte document number and a 4-byte link each; the default), or the
 * paper's bitmap, grown to the last document holding the q-gram
 * (docs/flow.md compares them). */
#include "flow_internal.h"

#include <stdlib.h>
#include <string.h>

#define SEG_EMPTY UINT32_MAX

int flow_seg_create(flow_seg_t **out, int64_t hour, int bitmap)
{
    flow_seg_t *s = calloc(1, sizeof *s);
    if (!s)
        return NDD_ERR_NOMEM;
    s->hour = hour;
    s->bitmap = bitmap;
    *out = s;
    return NDD_OK;
}

void flow_seg_free(flow_seg_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->ndocs; i++) {
        free(s->docs[i].id);
        free(s->docs[i].text);
    }
    for (size_t i = 0; i < s->nbm; i++)
        free(s->bm[i].bits);
    free(s->bm);
    free(s->docs);
    free(s->keys);
    free(s->head);
    free(s->node_doc);
    free(s->node_next);
    free(s);
}

/* Slot of key in the open-addressing table (tcap a power of two, > 0). */
static size_t seg_slot(const flow_seg_t *s, uint64_t key)
{
    size_t mask = s->tcap - 1, i = (size_t)(key ^ (key >> 29)) & mask;
    while (s->head[i] != SEG_EMPTY && s->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

static int seg_rehash(flow_seg_t *s, size_t ncap)
{
    uint64_t *ok = s->keys;
    uint32_t *oh = s->head;
    size_t ocap = s->tcap;
    s->keys = malloc(ncap * sizeof *s->keys);
    s->head = malloc(ncap * sizeof *s->head);
    if (!s->keys || !s->head) {
        free(s->keys);
        free(s->head);
        s->keys = ok;
        s->head = oh;
        return NDD_ERR_NOMEM;
    }
    memset(s->head, 0xff, ncap * sizeof *s->head);
    s->tcap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (oh[i] != SEG_EMPTY) {
            size_t j = seg_slot(s, ok[i]);
            s->keys[j] = ok[i];
            s->head[j] = oh[i];
        }
    free(ok);
    free(oh);
    return NDD_OK;
}

/* The paper's layout: sets bit di in the bitmap of every q-gram of set,
 * allocating or growing it as far as document di (sec. 3.6). */
static int seg_add_bits(flow_seg_t *s, uint32_t di, const uint64_t *set, size_t nset)
{
    uint32_t need = di / 64 + 1;
    for (size_t k = 0; k < nset; k++) {
        size_t j = seg_slot(s, set[k]);
        if (s->head[j] == SEG_EMPTY) {
            s->keys[j] = set[k];
            s->head[j] = (uint32_t)s->nbm;
            s->bm[s->nbm++] = (flow_bitmap_t){NULL, 0};
            s->tused++;
        }
        flow_bitmap_t *b = &s->bm[s->head[j]];
        if (b->nwords < need) {
            uint64_t *w = realloc(b->bits, need * sizeof *w);
            if (!w)
                return NDD_ERR_NOMEM;
            memset(w + b->nwords, 0, (need - b->nwords) * sizeof *w);
            s->bm_bytes += (need - b->nwords) * sizeof *w;
            b->bits = w;
            b->nwords = need;
        }
        b->bits[di / 64] |= UINT64_C(1) << (di % 64);
    }
    return NDD_OK;
}

/* Adds the document (its id copied, text copied when given) and its postings.
 * The segment owns nothing of the caller's. */
int flow_seg_add(flow_seg_t *s, const flow_doc_t *d, const uint64_t *set, size_t nset)
{
    int rc;
    flow_doc_t *nd;
    if (s->ndocs >= SEG_EMPTY - 1 || s->nnodes + nset >= SEG_EMPTY)
        return NDD_ERR_LIMIT;
    if ((rc = ndd_array_grow((void **)&s->docs, &s->dcap, s->ndocs + 1, sizeof *s->docs)))
        return rc;
    if (s->bitmap ? (rc = ndd_array_grow((void **)&s->bm, &s->bmcap, s->tused + nset, sizeof *s->bm))
                  : ((rc = ndd_array_grow((void **)&s->node_doc, &s->ncap_doc, s->nnodes + nset, sizeof *s->node_doc)) ||
                     (rc = ndd_array_grow((void **)&s->node_next, &s->ncap_next, s->nnodes + nset,
                                          sizeof *s->node_next))))
        return rc;
    if ((s->tused + nset) * 2 > s->tcap) {
        size_t ncap = s->tcap ? s->tcap : 1024;
        while ((s->tused + nset) * 2 > ncap)
            ncap *= 2;
        if ((rc = seg_rehash(s, ncap)))
            return rc;
    }
    nd = &s->docs[s->ndocs];
    *nd = *d;
    nd->id = strdup(d->id ? d->id : "");
    nd->text = NULL;
    if (!nd->id)
        return NDD_ERR_NOMEM;
    if (d->text) {
        if (!(nd->text = malloc(d->ntext + 1))) {
            free(nd->id);
            return NDD_ERR_NOMEM;
        }
        memcpy(nd->text, d->text, d->ntext);
        nd->text[d->ntext] = 0;
    }
    s->bytes_strings += strlen(nd->id) + 1 + (nd->text ? nd->ntext + 1 : 0);
    uint32_t di = (uint32_t)s->ndocs++;
    if (s->bitmap)
        return seg_add_bits(s, di, set, nset);
    for (size_t k = 0; k < nset; k++) {
        size_t j = seg_slot(s, set[k]);
        uint32_t node = (uint32_t)s->nnodes++;
        if (s->head[j] == SEG_EMPTY) {
            s->keys[j] = set[k];
            s->tused++;
        }
        s->node_doc[node] = di;
        s->node_next[node] = s->head[j];
        s->head[j] = node;
    }
    return NDD_OK;
}

/* Adds 1 to cnt[i] for every document i of the segment holding each q-gram of
 * set; documents first met go to touched (cnt must be zero on entry for all
 * documents, as it is left by the caller). Returns the postings read. */
uint64_t flow_seg_count(const flow_seg_t *s, const uint64_t *set, size_t nset, uint32_t *cnt, uint32_t *touched,
                        size_t *ntouched)
{
    uint64_t read = 0;
    if (!s->tcap)
        return 0;
    for (size_t k = 0; k < nset; k++) {
        size_t j = seg_slot(s, set[k]);
        if (s->bitmap) {
            if (s->head[j] == SEG_EMPTY)
                continue;
            const flow_bitmap_t *b = &s->bm[s->head[j]];
            for (uint32_t w = 0; w < b->nwords; w++)
                for (uint64_t x = b->bits[w]; x; x &= x - 1) {
                    uint32_t di = w * 64 + (uint32_t)__builtin_ctzll(x);
                    if (!cnt[di]++)
                        touched[(*ntouched)++] = di;
                    read++;
                }
            continue;
        }
        for (uint32_t node = s->head[j]; node != SEG_EMPTY; node = s->node_next[node]) {
            uint32_t di = s->node_doc[node];
            if (!cnt[di]++)
                touched[(*ntouched)++] = di;
            read++;
        }
    }
    return read;
}

size_t flow_seg_bytes(const flow_seg_t *s)
{
    return sizeof *s + s->dcap * sizeof *s->docs + s->tcap * (sizeof *s->keys + sizeof *s->head) +
           s->ncap_doc * sizeof *s->node_doc + s->ncap_next * sizeof *s->node_next + s->bytes_strings +
           s->bmcap * sizeof *s->bm + s->bm_bytes;
}

size_t flow_seg_bitmap_bytes(const flow_seg_t *s)
{
    return s->tused * ((s->ndocs + 7) / 8);
}

/* flow_internal.h - the hour segment of flow mode (flow_segment.c). */
#ifndef NDD_FLOW_INTERNAL_H
#define NDD_FLOW_INTERNAL_H

#include "ndd_flow.h"

typedef struct flow_doc {
    uint64_t seq;   /* arrival number */
    int64_t t;      /* timestamp, seconds */
    char *id;       /* owned by the segment */
    uint32_t nq;    /* distinct q-grams */
    char *text;     /* tlcs: the prepared text (owned), else NULL */
    size_t ntext;
} flow_doc_t;

typedef struct flow_bitmap {
    uint64_t *bits;  /* bit i: document i of the segment holds the q-gram */
    uint32_t nwords; /* grown to the last such document (paper 003 sec. 3.6) */
} flow_bitmap_t;

typedef struct flow_seg {
    int64_t hour;                 /* floor(t / 3600) of its documents */
    flow_doc_t *docs;
    size_t ndocs, dcap;
    uint64_t *keys;               /* q-gram hash per slot */
    uint32_t *head;               /* first posting node per slot, UINT32_MAX = empty */
    size_t tcap, tused;           /* slots (power of two), distinct q-grams */
    uint32_t *node_doc, *node_next; /* posting chains: document, next node */
    size_t nnodes, ncap_doc, ncap_next;
    size_t bytes_strings;
    int bitmap;                   /* --index bitmap: head[slot] indexes bm[] instead of a chain */
    flow_bitmap_t *bm;
    size_t nbm, bmcap, bm_bytes;  /* bitmaps, their words' bytes */
} flow_seg_t;

int flow_seg_create(flow_seg_t **s, int64_t hour, int bitmap);
void flow_seg_free(flow_seg_t *s);
int flow_seg_add(flow_seg_t *s, const flow_doc_t *d, const uint64_t *set, size_t nset);
uint64_t flow_seg_count(const flow_seg_t *s, const uint64_t *set, size_t nset, uint32_t *cnt, uint32_t *touched,
                        size_t *ntouched);
size_t flow_seg_bytes(const flow_seg_t *s);
size_t flow_seg_bitmap_bytes(const flow_seg_t *s);

#endif

/* sets_cc.c - the local half of a connected-components label round and the
 * giant-set guard (size-capped single linkage) (see ndd_sets.h). */
#include "ndd_sets.h"

#include <string.h>

int ndd_cc_local_init(ndd_cc_local_t *cc, const ndd_link_t *l, size_t nl)
{
    memset(cc, 0, sizeof *cc);
    cc->ends = malloc((2 * nl + 1) * sizeof *cc->ends);
    if (!cc->ends)
        return NDD_ERR_NOMEM;
    for (size_t e = 0; e < nl; e++) {
        cc->ends[2 * e] = l[e].u;
        cc->ends[2 * e + 1] = l[e].v;
    }
    cc->n = ndd_u64_sort_unique(cc->ends, 2 * nl);
    cc->minlab = malloc((cc->n ? cc->n : 1) * sizeof *cc->minlab);
    int rc = !cc->minlab || cc->n > UINT32_MAX ? NDD_ERR_NOMEM : ndd_uf_init(&cc->uf, cc->n);
    if (rc) {
        ndd_cc_local_free(cc);
        return rc;
    }
    for (size_t e = 0; e < nl; e++)
        ndd_uf_union(&cc->uf, (uint32_t)ndd_u64_lower_bound(cc->ends, cc->n, l[e].u),
                     (uint32_t)ndd_u64_lower_bound(cc->ends, cc->n, l[e].v));
    return NDD_OK;
}

size_t ndd_cc_local_index(const ndd_cc_local_t *cc, uint64_t g) { return ndd_u64_lower_bound(cc->ends, cc->n, g); }

void ndd_cc_local_step(ndd_cc_local_t *cc, const uint64_t *lab, uint64_t *newlab)
{
    for (size_t i = 0; i < cc->n; i++)
        cc->minlab[i] = UINT64_MAX;
    for (size_t i = 0; i < cc->n; i++) {
        uint32_t root = ndd_uf_find(&cc->uf, (uint32_t)i);
        if (lab[i] < cc->minlab[root])
            cc->minlab[root] = lab[i];
    }
    for (size_t i = 0; i < cc->n; i++)
        newlab[i] = cc->minlab[ndd_uf_find(&cc->uf, (uint32_t)i)];
}

void ndd_cc_local_free(ndd_cc_local_t *cc)
{
    free(cc->ends);
    free(cc->minlab);
    ndd_uf_free(&cc->uf);
    memset(cc, 0, sizeof *cc);
}

/* ---- giant-set guard ---- */

static int cmp_glink(const void *a, const void *b)
{
    const ndd_glink_t *x = a, *y = b; /* by set, strongest first, then by ends */
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    if (x->support != y->support)
        return x->support > y->support ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

typedef struct {
    uint64_t *nodes;
    uint32_t *csz;
    ndd_uf_t uf;
} guard_ws_t;

/* One set gl[0..n) (strongest first): unions under the cap, then fn per node. */
static int guard_set(guard_ws_t *w, const ndd_glink_t *gl, size_t n, uint64_t cap, ndd_node_fn fn, void *user,
                     uint64_t *refused)
{
    size_t nn = 0;
    for (size_t k = 0; k < n; k++) {
        w->nodes[nn++] = gl[k].u;
        w->nodes[nn++] = gl[k].v;
    }
    /* sorted nodes: union-find roots are the smallest index = the smallest document number */
    nn = ndd_u64_sort_unique(w->nodes, nn);
    int rc = ndd_uf_init(&w->uf, nn);
    for (size_t k = 0; k < nn && !rc; k++)
        w->csz[k] = 1;
    for (size_t k = 0; k < n && !rc; k++) {
        uint32_t rx = ndd_uf_find(&w->uf, (uint32_t)ndd_u64_lower_bound(w->nodes, nn, gl[k].u));
        uint32_t ry = ndd_uf_find(&w->uf, (uint32_t)ndd_u64_lower_bound(w->nodes, nn, gl[k].v));
        if (rx == ry)
            continue;
        if ((uint64_t)w->csz[rx] + w->csz[ry] >= cap) {
            (*refused)++;
            continue;
        }
        ndd_uf_union(&w->uf, rx, ry);
        w->csz[ndd_uf_find(&w->uf, rx)] = w->csz[rx] + w->csz[ry];
    }
    for (size_t k = 0; k < nn && !rc; k++) {
        uint32_t root = ndd_uf_find(&w->uf, (uint32_t)k);
        rc = fn(user, w->nodes[k], w->nodes[root], w->csz[root]);
    }
    ndd_uf_free(&w->uf);
    return rc;
}

int ndd_sets_capped_linkage(ndd_glink_t *gl, size_t n, uint64_t cap, ndd_node_fn fn, void *user, uint64_t *refused,
                            uint64_t *nsets)
{
    guard_ws_t w = {malloc((2 * n + 1) * sizeof *w.nodes), malloc((2 * n + 1) * sizeof *w.csz), {0}};
    int rc = !w.nodes || !w.csz || 2 * n > UINT32_MAX ? NDD_ERR_NOMEM : NDD_OK;
    if (!rc)
        ndd_qsort(gl, n, sizeof *gl, cmp_glink);
    for (size_t a = 0; a < n && !rc;) {
        size_t b = a;
        while (b < n && gl[b].label == gl[a].label)
            b++;
        rc = guard_set(&w, gl + a, b - a, cap, fn, user, refused);
        (*nsets)++;
        a = b;
    }
    free(w.nodes);
    free(w.csz);
    return rc;
}

/* ndd_part.c - see ndd_part.h */
#include "ndd_part.h"
#include "ndd_util.h"
#include "ndd_wire.h"

#include <stdlib.h>
#include <xxhash.h>

/* floor(total * r / P) without overflow (as the original long double form) */
static uint64_t border(uint64_t total, int r, int P)
{
    return (uint64_t)((long double)total * r / P);
}

int ndd_part_plan(const ndd_input_t *in, size_t nin, int ntasks, int me, ndd_piece_t **out, size_t *nout)
{
    uint64_t total = 0, pos = 0;
    if (ntasks < 1 || me < 0 || me >= ntasks)
        return NDD_ERR_INVAL;
    for (size_t i = 0; i < nin; i++)
        total += in[i].size;
    uint64_t B0 = border(total, me, ntasks), B1 = border(total, me + 1, ntasks);
    ndd_piece_t *v = calloc(nin ? nin : 1, sizeof *v);
    size_t k = 0;
    if (!v)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < nin; i++) {
        uint64_t fs = pos, fe = pos + in[i].size;
        pos = fe;
        if (in[i].splittable && in[i].size > 0) {
            uint64_t lo = fs > B0 ? fs : B0, hi = fe < B1 ? fe : B1;
            if (lo < hi)
                v[k++] = (ndd_piece_t){&in[i], lo - fs, hi - fs};
            continue;
        }
        int owner = 0; /* the largest task t with B_t <= fs */
        for (int t = ntasks - 1; t >= 0; t--)
            if (border(total, t, ntasks) <= fs) {
                owner = t;
                break;
            }
        if (owner == me)
            v[k++] = (ndd_piece_t){&in[i], 0, UINT64_MAX};
    }
    *out = v;
    *nout = k;
    return NDD_OK;
}

uint64_t ndd_piece_bytes(const ndd_piece_t *p)
{
    return p->hi == UINT64_MAX ? p->in->size : p->hi - p->lo;
}

int ndd_part_owner_of(const uint64_t *starts, int P, uint64_t g)
{
    int lo = 0, hi = P - 1; /* largest r with starts[r] <= g, then past empty ranks */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (starts[mid] <= g)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (lo < P - 1 && starts[lo + 1] <= g)
        lo++;
    return lo;
}

void ndd_part_balance(const uint64_t *w, size_t nb, int P, size_t *first)
{
    unsigned __int128 total = 0, prefix = 0;
    for (size_t b = 0; b < nb; b++)
        total += w[b];
    first[0] = 0;
    size_t b = 0;
    for (int q = 1; q < P; q++) { /* prefix(b) * P >= q * total, prefix non-decreasing in b */
        while (b < nb && prefix * (unsigned)P < (unsigned __int128)q * total)
            prefix += w[b++];
        first[q] = b;
    }
    first[P] = nb;
}

int ndd_part_balance_owner(const size_t *first, int P, size_t b)
{
    int lo = 0, hi = P - 1; /* the largest q with first[q] <= b */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (first[mid] <= b)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

void ndd_part_share(uint64_t total, int P, int me, uint64_t *lo, uint64_t *hi)
{
    *lo = border(total, me, P);
    *hi = border(total, me + 1, P);
}

/* The first item of rank r's share: the smallest b whose prefix weight
 * (items before heavy each 1, the others w each) reaches floor(W r / P). */
static uint64_t border_weighted(uint64_t total, uint64_t heavy, uint64_t w, int r, int P)
{
    uint64_t t = border(heavy + w * (total - heavy), r, P); /* w = 1: border(total, r, P) itself */
    return t <= heavy ? t : heavy + (t - heavy + w - 1) / w;
}

int ndd_part_share_weighted(uint64_t total, uint64_t heavy, unsigned w, int P, int me, uint64_t *lo, uint64_t *hi)
{
    if (P < 1 || me < 0 || me >= P || w < 1 || heavy > total || total - heavy > (UINT64_MAX - heavy) / w)
        return NDD_ERR_INVAL;
    *lo = border_weighted(total, heavy, w, me, P);
    *hi = border_weighted(total, heavy, w, me + 1, P);
    return NDD_OK;
}

uint32_t ndd_part_hash_dest(uint64_t label, int P)
{
    char x[8];
    ndd_le64_store(x, label); /* the label's little-endian bytes: the same placement on every host */
    return (uint32_t)(XXH3_64bits(x, sizeof x) % (uint64_t)P);
}

static int cmp_big(const void *a, const void *b)
{
    const ndd_setsize_t *x = a, *y = b; /* (size desc, label asc) */
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->label < y->label ? -1 : x->label > y->label;
}

void ndd_part_lpt(ndd_setsize_t *sets, size_t n, int P, const uint64_t *start, uint32_t *dest)
{
    /* Without memory for the loads every set goes to rank 0: a worse balance,
     * never a different output (outputs do not depend on placement). */
    uint64_t *load = calloc((size_t)P, sizeof *load);
    for (int s = 0; s < P && load && start; s++)
        load[s] = start[s];
    ndd_qsort(sets, n, sizeof *sets, cmp_big);
    for (size_t i = 0; i < n; i++) {
        int best = 0;
        for (int s = 1; s < P && load; s++)
            if (load[s] < load[best])
                best = s;
        if (load)
            load[best] += sets[i].size;
        dest[i] = (uint32_t)best;
    }
    free(load);
}

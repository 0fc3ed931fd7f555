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
    /* the ends' indices: through one array when the ends' document numbers
     * lie close together (at most 8 per end apart, plus 4096), else by
     * binary search */
    uint64_t lo = cc->n ? cc->ends[0] : 0, span = cc->n ? cc->ends[cc->n - 1] - lo + 1 : 0;
    uint32_t *idx = cc->n && span <= 8 * (uint64_t)cc->n + 4096 ? malloc((size_t)span * sizeof *idx) : NULL;
    if (idx) {
        for (size_t i = 0; i < cc->n; i++)
            idx[cc->ends[i] - lo] = (uint32_t)i;
        for (size_t e = 0; e < nl; e++)
            ndd_uf_union(&cc->uf, idx[l[e].u - lo], idx[l[e].v - lo]);
        free(idx);
        return NDD_OK;
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

/* The two keys of the order above: (u, v) and (label, support descending),
 * each packed in 64 bits (b = the bits of the lower field). */
static inline uint64_t glink_key(const ndd_glink_t *x, int second, unsigned b, uint64_t max_support)
{
    uint64_t hi = second ? x->label : x->u, lo = second ? max_support - x->support : x->v;
    return b >= 64 ? lo : hi << b | lo;
}

static inline int glink_uv_less(const ndd_glink_t *x, const ndd_glink_t *y)
{
    return x->u < y->u || (x->u == y->u && x->v < y->v);
}

#define GL_RUNS_MAX 8    /* runs in (u, v) order merged instead of sorted */
#define GL_LABELS_MAX 64 /* distinct labels ranked for the one-pass second key */

/* The rank of label x among lab[0..n) (ascending, x one of them). */
static inline uint64_t glink_label_rank(const uint64_t *lab, size_t n, uint64_t x)
{
    size_t lo = 0;
    while (n > 1) {
        size_t h = n / 2;
        lo = lab[lo + h] <= x ? lo + h : lo;
        n -= h;
    }
    return lo;
}

/* gl[0..n) as nruns runs (starting at cut[0..nruns)), each in (u, v) order:
 * merged into out in (u, v) order, equal pairs in the order of gl (the
 * order a stable sort by (u, v) gives). */
static void glinks_merge(const ndd_glink_t *gl, size_t n, const size_t *cut, size_t nruns, ndd_glink_t *out)
{
    size_t h[GL_RUNS_MAX], e[GL_RUNS_MAX];
    for (size_t r = 0; r < nruns; r++) {
        h[r] = cut[r];
        e[r] = r + 1 < nruns ? cut[r + 1] : n;
    }
    for (size_t k = 0; k < n; k++) {
        size_t best = GL_RUNS_MAX;
        for (size_t r = 0; r < nruns; r++)
            if (h[r] < e[r] && (best == GL_RUNS_MAX || glink_uv_less(&gl[h[r]], &gl[h[best]])))
                best = r;
        out[k] = gl[h[best]++];
    }
}

/* Sorts gl by cmp_glink's order: a stable LSD radix sort (16-bit digits)
 * by (u, v), then by (label, support descending), when each pair of fields
 * fits in 64 bits; else (or when memory for it cannot be had, or n is
 * small) qsort. The giant sets' links arrive as a few runs already in (u, v)
 * order (each rank sends its links in that order: a run a rank): then the
 * runs are merged instead, and when the sets' labels are few and the
 * supports small, (label, support descending) takes one counting pass
 * (label ranked among the distinct ones): the same order, 2 passes instead
 * of 5 (853,821 links, 2 runs, on 2 ranks of the bench-run corpus: 31-44
 * -> 17 ms, on the rank that holds the giant set while the others wait). */
static void glinks_sort(ndd_glink_t *gl, size_t n)
{
    uint64_t mu = 0, mv = 0, ml = 0, ms = 0, lab[GL_LABELS_MAX];
    size_t cut[GL_RUNS_MAX], nruns = n ? 1 : 0, nlab = 0;
    int many = 0; /* more than GL_LABELS_MAX labels */
    cut[0] = 0;
    for (size_t k = 0; k < n; k++) {
        mu = gl[k].u > mu ? gl[k].u : mu;
        mv = gl[k].v > mv ? gl[k].v : mv;
        ml = gl[k].label > ml ? gl[k].label : ml;
        ms = gl[k].support > ms ? gl[k].support : ms;
        if (k && nruns <= GL_RUNS_MAX && glink_uv_less(&gl[k], &gl[k - 1])) {
            if (nruns < GL_RUNS_MAX)
                cut[nruns] = k;
            nruns++; /* (GL_RUNS_MAX + 1: too many) */
        }
        if (!many && (k == 0 || gl[k].label != gl[k - 1].label)) {
            size_t i = 0;
            while (i < nlab && lab[i] != gl[k].label)
                i++;
            if (i == nlab) {
                if (nlab == GL_LABELS_MAX)
                    many = 1;
                else
                    lab[nlab++] = gl[k].label;
            }
        }
    }
    unsigned bs = ndd_bits_of(ms), bl = nlab > 1 ? ndd_bits_of(nlab - 1) : 0;
    if (n >= 64 && nruns <= GL_RUNS_MAX && !many && bl + bs <= 16) {
        size_t *count;
        ndd_glink_t *tmp = ndd_radix_scratch(1, n, sizeof *tmp, &count);
        if (tmp) {
            for (size_t i = 1; i < nlab; i++) /* the labels ascending (a few) */
                for (size_t j = i; j > 0 && lab[j - 1] > lab[j]; j--) {
                    uint64_t t = lab[j];
                    lab[j] = lab[j - 1];
                    lab[j - 1] = t;
                }
            ndd_glink_t *src = gl, *dst = tmp;
            if (nruns > 1) {
                glinks_merge(gl, n, cut, nruns, tmp);
                src = tmp;
                dst = gl;
            }
#define GLINK_KEY2(x) (glink_label_rank(lab, nlab, (x).label) << bs | (ms - (x).support))
            NDD_RADIX_PASS(ndd_glink_t, src, dst, n, count, 0, GLINK_KEY2);
#undef GLINK_KEY2
            ndd_radix_done(gl, src, n, sizeof *gl, tmp, count);
            return;
        }
    }
    unsigned b[2] = {ndd_bits_of(mv), ndd_bits_of(ms)};
    unsigned total[2] = {ndd_bits_of(mu) + b[0], ndd_bits_of(ml) + b[1]};
    size_t *count;
    ndd_glink_t *tmp = ndd_radix_scratch(n >= 64 && total[0] <= 64 && total[1] <= 64, n, sizeof *tmp, &count);
    if (!tmp) {
        ndd_qsort(gl, n, sizeof *gl, cmp_glink);
        return;
    }
    ndd_glink_t *src = gl, *dst = tmp;
#define GLINK_KEY(x) glink_key(&(x), second, b[second], ms)
    for (int second = 0; second < 2; second++)
        for (unsigned shift = 0; shift < total[second]; shift += 16)
            NDD_RADIX_PASS(ndd_glink_t, src, dst, n, count, shift, GLINK_KEY);
#undef GLINK_KEY
    ndd_radix_done(gl, src, n, sizeof *gl, tmp, count);
}

void ndd_sets_glinks_sort(ndd_glink_t *gl, size_t n) { glinks_sort(gl, n); }

typedef struct {
    uint64_t *nodes;
    uint32_t *csz;
    uint8_t *closed; /* per root: refused a union while holding `small` documents or more */
    uint32_t *idx; /* node - lo -> its index, when the set's span is small */
    size_t idx_cap;
    ndd_uf_t uf;
} guard_ws_t;

/* The set's nodes, sorted and unique, in w->nodes[0..*nn); *lo = the
 * smallest; *direct = 1 when w->idx maps node - *lo to its index (the span
 * of document numbers is at most 4 times the link ends plus 4096: one
 * array), else the indices are found by binary search. */
static int guard_nodes(guard_ws_t *w, const ndd_glink_t *gl, size_t n, size_t *nn, uint64_t *lo, int *direct)
{
    uint64_t mn = UINT64_MAX, mx = 0;
    for (size_t k = 0; k < 2 * n; k++) { /* both ends of every link */
        uint64_t x = k & 1 ? gl[k / 2].v : gl[k / 2].u;
        mn = x < mn ? x : mn;
        mx = x > mx ? x : mx;
    }
    *lo = mn;
    *direct = 0;
    *nn = 0;
    if (n && mx - mn < 8 * (uint64_t)n + 4096 && !ndd_array_grow((void **)&w->idx, &w->idx_cap, mx - mn + 1, sizeof *w->idx)) {
        size_t span = (size_t)(mx - mn + 1);
        memset(w->idx, 0, span * sizeof *w->idx);
        for (size_t k = 0; k < n; k++)
            w->idx[gl[k].u - mn] = w->idx[gl[k].v - mn] = 1;
        for (size_t i = 0; i < span; i++)
            if (w->idx[i]) {
                w->idx[i] = (uint32_t)*nn;
                w->nodes[(*nn)++] = mn + i;
            }
        *direct = 1;
        return NDD_OK;
    }
    for (size_t k = 0; k < n; k++) {
        w->nodes[(*nn)++] = gl[k].u;
        w->nodes[(*nn)++] = gl[k].v;
    }
    *nn = ndd_u64_sort_unique(w->nodes, *nn);
    return NDD_OK;
}

/* One set gl[0..n) (strongest first): unions under the cap, then fn per node.
 * A component that is refused a union while it holds `small` documents or
 * more is closed: from then on it takes in only components of fewer than
 * `small` documents (while the cap allows). */
static int guard_set(guard_ws_t *w, const ndd_glink_t *gl, size_t n, uint64_t cap, uint64_t small, ndd_node_fn fn,
                     void *user, uint64_t *refused)
{
    size_t nn = 0;
    uint64_t lo = 0;
    int direct = 0;
    /* sorted nodes: union-find roots are the smallest index = the smallest document number */
    int rc = guard_nodes(w, gl, n, &nn, &lo, &direct);
    if (!rc)
        rc = ndd_uf_init(&w->uf, nn);
    for (size_t k = 0; k < nn && !rc; k++)
        w->csz[k] = 1, w->closed[k] = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        uint32_t iu = direct ? w->idx[gl[k].u - lo] : (uint32_t)ndd_u64_lower_bound(w->nodes, nn, gl[k].u);
        uint32_t iv = direct ? w->idx[gl[k].v - lo] : (uint32_t)ndd_u64_lower_bound(w->nodes, nn, gl[k].v);
        uint32_t rx = ndd_uf_find(&w->uf, iu), ry = ndd_uf_find(&w->uf, iv);
        if (rx == ry)
            continue;
        uint64_t sx = w->csz[rx], sy = w->csz[ry];
        if (sx + sy >= cap || (w->closed[rx] && sy >= small) || (w->closed[ry] && sx >= small)) {
            (*refused)++;
            w->closed[rx] |= sx >= small;
            w->closed[ry] |= sy >= small;
            continue;
        }
        uint8_t closed = w->closed[rx] | w->closed[ry];
        ndd_uf_union(&w->uf, rx, ry);
        uint32_t root = ndd_uf_find(&w->uf, rx);
        w->csz[root] = (uint32_t)(sx + sy);
        w->closed[root] = closed;
    }
    for (size_t k = 0; k < nn && !rc; k++) {
        uint32_t root = ndd_uf_find(&w->uf, (uint32_t)k);
        rc = fn(user, w->nodes[k], w->nodes[root], w->csz[root]);
    }
    ndd_uf_free(&w->uf);
    return rc;
}

int ndd_sets_capped_linkage(ndd_glink_t *gl, size_t n, uint64_t cap, uint64_t small, ndd_node_fn fn, void *user,
                            uint64_t *refused, uint64_t *nsets)
{
    guard_ws_t w = {malloc((2 * n + 1) * sizeof *w.nodes), malloc((2 * n + 1) * sizeof *w.csz),
                    malloc(2 * n + 1), NULL, 0, {0}};
    int rc = !w.nodes || !w.csz || !w.closed || 2 * n > UINT32_MAX ? NDD_ERR_NOMEM : NDD_OK;
    if (!rc)
        glinks_sort(gl, n);
    for (size_t a = 0; a < n && !rc;) {
        size_t b = a;
        while (b < n && gl[b].label == gl[a].label)
            b++;
        rc = guard_set(&w, gl + a, b - a, cap, small, fn, user, refused);
        (*nsets)++;
        a = b;
    }
    free(w.nodes);
    free(w.csz);
    free(w.closed);
    free(w.idx);
    return rc;
}

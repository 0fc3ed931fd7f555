/* ndd_cluster.c - see ndd_cluster.h */
#include "ndd_cluster.h"
#include "ndd_util.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---------------- union-find ---------------- */

int ndd_uf_init(ndd_uf_t *uf, size_t n)
{
    uf->n = n;
    uf->parent = malloc((n ? n : 1) * sizeof *uf->parent);
    if (!uf->parent)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        uf->parent[i] = (uint32_t)i;
    return NDD_OK;
}

void ndd_uf_free(ndd_uf_t *uf)
{
    free(uf->parent);
    uf->parent = NULL;
    uf->n = 0;
}

uint32_t ndd_uf_find(ndd_uf_t *uf, uint32_t x)
{
    uint32_t *p = uf->parent;
    while (p[x] != x) {
        p[x] = p[p[x]];
        x = p[x];
    }
    return x;
}

int ndd_uf_union(ndd_uf_t *uf, uint32_t x, uint32_t y)
{
    uint32_t a = ndd_uf_find(uf, x), b = ndd_uf_find(uf, y);
    if (a == b)
        return 0;
    /* the smaller element stays root: deterministic component ids */
    if (a < b)
        uf->parent[b] = a;
    else
        uf->parent[a] = b;
    return 1;
}

/* ---------------- postings ---------------- */

void ndd_postings_params_default(ndd_postings_params_t *p)
{
    p->max_docs = 10000;
    p->site_docs = 400;
    p->site_share = 0.5;
    p->site_top = 3;
    p->template_urls = 5;
    p->template_share = 0.9;
    p->max_share = 0.0; /* off by default: see docs/architecture.md */
    p->max_share_floor = 100;
    p->total_docs = 0;
}

ndd_list_kind_t ndd_postings_classify(const ndd_posting_t *list, size_t n, const ndd_postings_params_t *p,
                                      uint64_t *scratch)
{
    if (n < 2)
        return NDD_LIST_SINGLE;
    if (n > p->max_docs)
        return NDD_LIST_DROP_FREQUENT;
    if (p->max_share > 0 && n > p->max_share_floor && (double)n > p->max_share * (double)p->total_docs)
        return NDD_LIST_DROP_FREQUENT;
    if (n <= p->site_docs && (!p->template_urls || n < p->template_urls))
        return NDD_LIST_LIVE;
    /* (site, url) of the documents with a known site, sorted: runs give the
     * documents per site and the distinct URLs per site */
    size_t known = 0;
    for (size_t i = 0; i < n; i++)
        if (list[i].site)
            scratch[known++] = ((uint64_t)list[i].site << 16) | list[i].url;
    if (!known)
        return NDD_LIST_LIVE;
    ndd_u64_sort(scratch, known);
    /* per site: count, distinct urls; keep the site_top largest counts */
    uint64_t top[16] = {0};
    unsigned ntop = p->site_top < 16 ? p->site_top : 16;
    size_t best_count = 0, best_urls = 0;
    for (size_t i = 0; i < known;) {
        size_t j = i, urls = 0;
        while (j < known && (scratch[j] >> 16) == (scratch[i] >> 16)) {
            if (j == i || scratch[j] != scratch[j - 1])
                urls++;
            j++;
        }
        uint64_t c = j - i;
        if (c > best_count || (c == best_count && urls > best_urls)) {
            best_count = c;
            best_urls = urls;
        }
        for (unsigned k = 0; k < ntop; k++)
            if (c > top[k]) {
                uint64_t t = top[k];
                top[k] = c;
                c = t;
            }
        i = j;
    }
    if (n > p->site_docs) {
        uint64_t sum = 0;
        for (unsigned k = 0; k < ntop; k++)
            sum += top[k];
        if ((double)sum >= p->site_share * (double)n)
            return NDD_LIST_DROP_SITE;
    }
    if (p->template_urls && best_urls >= p->template_urls &&
        (double)best_count >= p->template_share * (double)n)
        return NDD_LIST_DROP_TEMPLATE;
    return NDD_LIST_LIVE;
}

size_t ndd_postings_representative(const ndd_posting_t *list, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (list[i].weight > list[best].weight ||
            (list[i].weight == list[best].weight && list[i].doc > list[best].doc))
            best = i;
    return best;
}

/* stable LSD radix pass on 16-bit digits */
static int radix_pass(ndd_posting_t *src, ndd_posting_t *dst, size_t n, int use_key, unsigned shift,
                      size_t *count)
{
    memset(count, 0, 65536 * sizeof *count);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = use_key ? src[i].key : src[i].doc;
        count[(v >> shift) & 0xFFFF]++;
    }
    for (size_t d = 0; d < 65536; d++)
        if (count[d] == n)
            return 0; /* all equal: nothing to do */
    size_t sum = 0;
    for (size_t d = 0; d < 65536; d++) {
        size_t c = count[d];
        count[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t v = use_key ? src[i].key : src[i].doc;
        dst[count[(v >> shift) & 0xFFFF]++] = src[i];
    }
    return 1;
}

static int radix_sort(ndd_posting_t *a, ndd_posting_t *tmp, size_t n, int first_pass)
{
    if (n < 2)
        return NDD_OK;
    size_t *count = malloc(65536 * sizeof *count);
    if (!count)
        return NDD_ERR_NOMEM;
    ndd_posting_t *src = a, *dst = tmp;
    for (int pass = first_pass; pass < 8; pass++) {
        int use_key = pass >= 4;
        unsigned shift = (unsigned)(pass % 4) * 16;
        if (radix_pass(src, dst, n, use_key, shift, count)) {
            ndd_posting_t *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    free(count);
    return NDD_OK;
}

int ndd_postings_sort(ndd_posting_t *a, ndd_posting_t *tmp, size_t n) { return radix_sort(a, tmp, n, 0); }

int ndd_postings_sort_key(ndd_posting_t *a, ndd_posting_t *tmp, size_t n) { return radix_sort(a, tmp, n, 4); }

/* Byte lev (0..15) of the 128-bit sort key key:doc, most significant first. */
static inline unsigned post_byte(const ndd_posting_t *p, unsigned lev)
{
    return lev < 8 ? (unsigned)(p->key >> (56 - 8 * lev)) & 255 : (unsigned)(p->doc >> (56 - 8 * (lev - 8))) & 255;
}

static inline int post_less(const ndd_posting_t *x, const ndd_posting_t *y)
{
    return x->key != y->key ? x->key < y->key : x->doc < y->doc;
}

/* In-place MSD radix sort (American flag sort, 8-bit digits) of a[0..n) from
 * byte lev on; buckets of at most 32 entries take insertion sort. A level
 * every entry agrees on costs one counting pass and no move. A bucket that
 * fits in scr[0..scap) is distributed into it and copied back instead: the
 * permutation's swaps form one chain of dependent loads, the distribution
 * none (this sort 3.6 -> 2.3 % of a 1-rank bench-run's samples). Equal
 * keys (key, doc) are equal postings, so any order of them is the order. */
static void flag_sort(ndd_posting_t *a, size_t n, unsigned lev, ndd_posting_t *scr, size_t scap)
{
    size_t count[256], head[256], end[256];
    for (; n > 32 && lev < 16; lev++) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[post_byte(&a[i], lev)]++;
        if (count[post_byte(&a[0], lev)] == n)
            continue; /* one bucket: the next byte */
#define POST_DIGIT(x) post_byte(&(x), lev)
        NDD_FLAG_LEVEL(ndd_posting_t, a, n, count, head, end, POST_DIGIT, scr, scap);
#undef POST_DIGIT
        for (size_t b = 0, at = 0; b < 256; at += count[b], b++)
            if (count[b] > 1)
                flag_sort(a + at, count[b], lev + 1, scr, scap);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        ndd_posting_t v = a[i];
        size_t j = i;
        for (; j > 0 && post_less(&v, &a[j - 1]); j--)
            a[j] = a[j - 1];
        a[j] = v;
    }
}

void ndd_postings_sort_inplace(ndd_posting_t *a, size_t n)
{
    size_t scap = n < NDD_FLAG_SCRATCH ? n : NDD_FLAG_SCRATCH; /* (none when it cannot be had) */
    ndd_posting_t *scr = scap > 32 ? malloc(scap * sizeof *scr) : NULL;
    flag_sort(a, n, 0, scr, scr ? scap : 0);
    free(scr);
}

/* ---------------- candidate pairs ---------------- */

void ndd_cand_params_default(ndd_cand_params_t *p)
{
    p->per_doc = 8;
    p->list_cap = 64;
    p->all_pairs_upto = 8;
    p->min_shared = 2;
}

typedef struct {
    uint64_t key;
    uint32_t member;
} keymem_t;

typedef struct {
    uint32_t member, partner, shared, pair;
} half_t;

struct ndd_cand_ws {
    keymem_t *km;
    size_t km_cap;
    uint64_t *raw; /* (i << 32 | j) pair occurrences */
    size_t raw_cap, raw_len;
    ndd_cand_t *pairs;
    size_t pairs_cap, npairs;
    half_t *half;
    size_t half_cap;
    unsigned char *keep;
    size_t keep_cap;
    ndd_cand_t *out;
    size_t out_cap;
    void *tmp; /* radix scratch: as large as raw */
    size_t tmp_cap;
    size_t *cnt; /* bucket and digit counts */
    size_t cnt_cap;
};


int ndd_cand_ws_create(ndd_cand_ws_t **ws)
{
    *ws = calloc(1, sizeof **ws);
    return *ws ? NDD_OK : NDD_ERR_NOMEM;
}

void ndd_cand_ws_free(ndd_cand_ws_t *ws)
{
    if (!ws)
        return;
    free(ws->km);
    free(ws->raw);
    free(ws->pairs);
    free(ws->half);
    free(ws->keep);
    free(ws->out);
    free(ws->tmp);
    free(ws->cnt);
    free(ws);
}

static int cmp_keymem(const void *a, const void *b)
{
    const keymem_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->member < y->member ? -1 : x->member > y->member;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_half(const void *a, const void *b)
{
    const half_t *x = a, *y = b;
    if (x->member != y->member)
        return x->member < y->member ? -1 : 1;
    if (x->shared != y->shared)
        return x->shared > y->shared ? -1 : 1;
    return x->partner < y->partner ? -1 : x->partner > y->partner;
}

static int cmp_cand(const void *a, const void *b)
{
    const ndd_cand_t *x = a, *y = b;
    if (x->shared != y->shared)
        return x->shared > y->shared ? -1 : 1;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

static int add_raw(ndd_cand_ws_t *ws, uint32_t i, uint32_t j)
{
    if (i == j)
        return NDD_OK;
    if (i > j) {
        uint32_t t = i;
        i = j;
        j = t;
    }
    int rc = ndd_array_grow((void **)&ws->raw, &ws->raw_cap, ws->raw_len + 1, sizeof *ws->raw);
    if (rc)
        return rc;
    ws->raw[ws->raw_len++] = ((uint64_t)i << 32) | j;
    return NDD_OK;
}

/* One bucket of km (entries in member order for each key) in (key, member)
 * order: a stable insertion sort on the key when short, else (two or more
 * keys in one large bucket: rare, the buckets are made so that a key has
 * one on average) qsort on (key, member) - the same order. */
static void sort_bucket(keymem_t *v, size_t m)
{
    if (m <= 32) {
        for (size_t a = 1; a < m; a++) {
            keymem_t x = v[a];
            size_t b = a;
            for (; b > 0 && v[b - 1].key > x.key; b--)
                v[b] = v[b - 1];
            v[b] = x;
        }
        return;
    }
    for (size_t a = 1; a < m; a++)
        if (v[a].key != v[0].key) {
            ndd_qsort(v, m, sizeof *v, cmp_keymem);
            return;
        }
}

/* km = every (key, member) of the set in (key, member) order: counted and
 * placed straight from keys[] (read in member order) into buckets of the
 * key's top bits, about one key a bucket, then each bucket sorted (one
 * counting pass and one placing pass instead of eight of each: the 8-bit
 * LSD radix sort of all 64 bits this replaces was most of candidate
 * selection). */
static int fill_km(ndd_cand_ws_t *ws, size_t n, const uint64_t *keys, const size_t *off, size_t nk)
{
    unsigned b = 4;
    while (b < 16 && ((size_t)1 << b) < nk)
        b++;
    size_t nb = (size_t)1 << b;
    int rc = ndd_array_grow((void **)&ws->cnt, &ws->cnt_cap, nb + 1, sizeof *ws->cnt);
    if (rc)
        return rc;
    size_t *cnt = ws->cnt;
    memset(cnt, 0, (nb + 1) * sizeof *cnt);
    for (size_t k = 0; k < nk; k++)
        cnt[(keys[k] >> (64 - b)) + 1]++;
    for (size_t d = 1; d <= nb; d++)
        cnt[d] += cnt[d - 1]; /* cnt[d]: where bucket d starts */
    for (size_t i = 0; i < n; i++)
        for (size_t k = off[i]; k < off[i + 1]; k++)
            ws->km[cnt[keys[k] >> (64 - b)]++] = (keymem_t){keys[k], (uint32_t)i};
    /* now cnt[d] is where bucket d ends (and bucket d + 1 starts) */
    for (size_t d = 0, at = 0; d < nb; at = cnt[d++])
        if (cnt[d] - at > 1)
            sort_bucket(ws->km + at, cnt[d] - at);
    return NDD_OK;
}

/* raw (i << 32 | j, i < j < n) in increasing order: a stable LSD radix sort
 * on i << bits(n - 1) | j, 11 bits a digit, every digit counted in one
 * pass (two digits up to n = 2048: two placing passes instead of the
 * eight counting and four placing passes of a byte-wise sort of the u64). */
#define RAW_DIGIT 11
static int sort_raw(ndd_cand_ws_t *ws, size_t n)
{
    size_t m = ws->raw_len;
    unsigned bn = ndd_bits_of(n - 1), nd = (2 * bn + RAW_DIGIT - 1) / RAW_DIGIT;
    const size_t radix = (size_t)1 << RAW_DIGIT;
    int rc = ndd_array_grow(&ws->tmp, &ws->tmp_cap, m * sizeof *ws->raw, 1);
    if (!rc)
        rc = ndd_array_grow((void **)&ws->cnt, &ws->cnt_cap, (size_t)nd * radix, sizeof *ws->cnt);
    if (rc)
        return rc;
#define RAW_KEY(x) (((x) >> 32) << bn | ((x)&0xFFFFFFFFu))
    size_t *cnt = ws->cnt;
    memset(cnt, 0, (size_t)nd * radix * sizeof *cnt);
    for (size_t k = 0; k < m; k++) {
        uint64_t c = RAW_KEY(ws->raw[k]);
        for (unsigned d = 0; d < nd; d++)
            cnt[d * radix + ((c >> (RAW_DIGIT * d)) & (radix - 1))]++;
    }
    uint64_t *src = ws->raw, *dst = ws->tmp;
    for (unsigned d = 0; d < nd; d++) {
        size_t *c = cnt + d * radix;
        unsigned sh = RAW_DIGIT * d;
        if (c[(RAW_KEY(src[0]) >> sh) & (radix - 1)] == m)
            continue; /* a digit every entry shares: no move */
        for (size_t x = 0, at = 0; x < radix; x++) {
            size_t t = c[x];
            c[x] = at;
            at += t;
        }
        for (size_t k = 0; k < m; k++)
            dst[c[(RAW_KEY(src[k]) >> sh) & (radix - 1)]++] = src[k];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
#undef RAW_KEY
    if (src != ws->raw)
        memcpy(ws->raw, src, m * sizeof *src);
    return NDD_OK;
}

/* Whether half-pair a ranks before b among one member's partners: more
 * shared keys first, then the lesser partner (cmp_half's order). */
static inline int half_better(const half_t *a, const half_t *b)
{
    return a->shared > b->shared || (a->shared == b->shared && a->partner < b->partner);
}

/* keep[q] = 1 for each member's per_doc strongest pairs (half_better): both
 * halves of every pair placed by member (a counting sort), then in each
 * member's bucket the per_doc best picked in a small sorted list - or,
 * for a per_doc above 16, the bucket sorted (cmp_half). The same pairs
 * as the whole half-pair array sorted by cmp_half, in a time linear in
 * the pairs. */
#define KEEP_TOPK 16
static int keep_strongest(ndd_cand_ws_t *ws, const ndd_cand_params_t *p, size_t n)
{
    size_t np = ws->npairs, nh = 2 * np;
    int rc = ndd_array_grow((void **)&ws->half, &ws->half_cap, nh ? nh : 1, sizeof *ws->half);
    if (!rc)
        rc = ndd_array_grow((void **)&ws->keep, &ws->keep_cap, np ? np : 1, 1);
    if (!rc)
        rc = ndd_array_grow((void **)&ws->cnt, &ws->cnt_cap, n + 1, sizeof *ws->cnt);
    if (rc)
        return rc;
    size_t *cnt = ws->cnt;
    half_t *h = ws->half;
    memset(cnt, 0, (n + 1) * sizeof *cnt);
    memset(ws->keep, 0, np);
    for (size_t q = 0; q < np; q++) {
        cnt[ws->pairs[q].i + 1]++;
        cnt[ws->pairs[q].j + 1]++;
    }
    for (size_t m = 1; m <= n; m++)
        cnt[m] += cnt[m - 1];
    for (size_t q = 0; q < np; q++) {
        const ndd_cand_t *c = &ws->pairs[q];
        h[cnt[c->i]++] = (half_t){c->i, c->j, c->shared, (uint32_t)q};
        h[cnt[c->j]++] = (half_t){c->j, c->i, c->shared, (uint32_t)q};
    }
    for (size_t m = 0, at = 0; m < n; at = cnt[m++]) { /* member m's halves: h[at..cnt[m]) */
        size_t len = cnt[m] - at, k = p->per_doc;
        if (k == 0) {
            continue; /* --per-doc 0: no partner kept */
        } else if (len <= k) {
            for (size_t x = at; x < cnt[m]; x++)
                ws->keep[h[x].pair] = 1;
        } else if (k <= KEEP_TOPK) {
            half_t best[KEEP_TOPK];
            size_t nb = 0;
            for (size_t x = at; x < cnt[m]; x++) {
                if (nb == k && !half_better(&h[x], &best[k - 1]))
                    continue;
                size_t y = nb < k ? nb++ : k - 1;
                for (; y > 0 && half_better(&h[x], &best[y - 1]); y--)
                    best[y] = best[y - 1];
                best[y] = h[x];
            }
            for (size_t t = 0; t < nb; t++)
                ws->keep[best[t].pair] = 1;
        } else {
            ndd_qsort(h + at, len, sizeof *h, cmp_half);
            for (size_t x = at; x < at + k; x++)
                ws->keep[h[x].pair] = 1;
        }
    }
    return NDD_OK;
}

/* out[0..m), in (i, j) order, into cmp_cand's order (more shared keys
 * first, then i, then j): a stable counting sort on the shared count. */
static int sort_out(ndd_cand_ws_t *ws, size_t m)
{
    uint32_t mx = 0;
    for (size_t k = 0; k < m; k++)
        mx = ws->out[k].shared > mx ? ws->out[k].shared : mx;
    if (m < 2 || mx == 0)
        return NDD_OK;
    if (mx > 4 * m + 1024) { /* counts far apart: the count array would be the cost */
        ndd_qsort(ws->out, m, sizeof *ws->out, cmp_cand);
        return NDD_OK;
    }
    int rc = ndd_array_grow((void **)&ws->cnt, &ws->cnt_cap, (size_t)mx + 2, sizeof *ws->cnt);
    if (!rc)
        rc = ndd_array_grow(&ws->tmp, &ws->tmp_cap, m * sizeof *ws->out, 1);
    if (rc)
        return rc;
    size_t *cnt = ws->cnt;
    ndd_cand_t *t = ws->tmp;
    memset(cnt, 0, ((size_t)mx + 2) * sizeof *cnt);
    for (size_t k = 0; k < m; k++)
        cnt[mx - ws->out[k].shared + 1]++;
    for (size_t d = 1; d <= (size_t)mx + 1; d++)
        cnt[d] += cnt[d - 1];
    for (size_t k = 0; k < m; k++)
        t[cnt[mx - ws->out[k].shared]++] = ws->out[k];
    memcpy(ws->out, t, m * sizeof *t);
    return NDD_OK;
}

int ndd_cand_select(ndd_cand_ws_t *ws, const ndd_cand_params_t *p, size_t n, const uint64_t *keys,
                    const size_t *off, const ndd_cand_t **out, size_t *nout)
{
    int rc;
    *out = NULL;
    *nout = 0;
    ws->raw_len = 0;
    ws->npairs = 0;
    if (n < 2)
        return NDD_OK;
    if (n > UINT32_MAX)
        return NDD_ERR_LIMIT;
    size_t nk = off[n];
    if ((rc = ndd_array_grow((void **)&ws->km, &ws->km_cap, nk ? nk : 1, sizeof *ws->km)))
        return rc;
    if (nk < 64) {
        for (size_t i = 0; i < n; i++)
            for (size_t k = off[i]; k < off[i + 1]; k++)
                ws->km[k] = (keymem_t){keys[k], (uint32_t)i};
        ndd_qsort(ws->km, nk, sizeof *ws->km, cmp_keymem);
    } else if ((rc = fill_km(ws, n, keys, off, nk))) {
        return rc;
    }
    for (size_t a = 0; a < nk;) {
        size_t b = a + 1;
        while (b < nk && ws->km[b].key == ws->km[a].key)
            b++;
        /* drop repeated members (a key twice in one document) */
        size_t g = b - a;
        if (g >= 2) {
            if (g <= p->list_cap) {
                for (size_t x = a; x < b; x++)
                    for (size_t y = x + 1; y < b; y++)
                        if (ws->km[x].member != ws->km[y].member &&
                            (rc = add_raw(ws, ws->km[x].member, ws->km[y].member)))
                            return rc;
            } else {
                for (size_t x = a + 1; x < b; x++)
                    if ((rc = add_raw(ws, ws->km[a].member, ws->km[x].member)))
                        return rc;
            }
        }
        a = b;
    }
    if (ws->raw_len < 64)
        ndd_qsort(ws->raw, ws->raw_len, sizeof *ws->raw, cmp_u64);
    else if ((rc = sort_raw(ws, n)))
        return rc;
    /* aggregate into pairs with counts */
    for (size_t a = 0; a < ws->raw_len;) {
        size_t b = a + 1;
        while (b < ws->raw_len && ws->raw[b] == ws->raw[a])
            b++;
        if (n > p->all_pairs_upto && b - a < p->min_shared) {
            a = b;
            continue;
        }
        if ((rc = ndd_array_grow((void **)&ws->pairs, &ws->pairs_cap, ws->npairs + 1, sizeof *ws->pairs)))
            return rc;
        ws->pairs[ws->npairs++] =
            (ndd_cand_t){(uint32_t)(ws->raw[a] >> 32), (uint32_t)ws->raw[a], (uint32_t)(b - a)};
        a = b;
    }
    size_t nout_ = 0;
    if (n <= p->all_pairs_upto) {
        /* every pair; shared counts from the aggregated list (sorted by i, j) */
        size_t all = n * (n - 1) / 2;
        if ((rc = ndd_array_grow((void **)&ws->out, &ws->out_cap, all, sizeof *ws->out)))
            return rc;
        size_t q = 0;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++) {
                uint32_t shared = 0;
                while (q < ws->npairs && (ws->pairs[q].i < i || (ws->pairs[q].i == i && ws->pairs[q].j < j)))
                    q++;
                if (q < ws->npairs && ws->pairs[q].i == i && ws->pairs[q].j == j)
                    shared = ws->pairs[q].shared;
                ws->out[nout_++] = (ndd_cand_t){i, j, shared};
            }
    } else {
        if ((rc = keep_strongest(ws, p, n)) ||
            (rc = ndd_array_grow((void **)&ws->out, &ws->out_cap, ws->npairs ? ws->npairs : 1, sizeof *ws->out)))
            return rc;
        for (size_t q = 0; q < ws->npairs; q++)
            if (ws->keep[q])
                ws->out[nout_++] = ws->pairs[q];
    }
    if ((rc = sort_out(ws, nout_)))
        return rc;
    *out = ws->out;
    *nout = nout_;
    return NDD_OK;
}

/* ---------------- sites ---------------- */

size_t ndd_url_host(const char *url, char *host, size_t cap)
{
    if (cap)
        host[0] = '\0';
    if (!url || !cap)
        return 0;
    const char *s = strstr(url, "://");
    s = s ? s + 3 : (url[0] == '/' && url[1] == '/' ? url + 2 : NULL);
    if (!s)
        return 0;
    const char *end = s + strcspn(s, "/?#");
    const char *at = memchr(s, '@', (size_t)(end - s));
    if (at)
        s = at + 1;
    const char *colon = memchr(s, ':', (size_t)(end - s));
    if (colon && s[0] != '[')
        end = colon;
    if (end - s > 4 && (s[0] == 'w' || s[0] == 'W') && (s[1] == 'w' || s[1] == 'W') &&
        (s[2] == 'w' || s[2] == 'W') && s[3] == '.')
        s += 4;
    size_t n = 0;
    for (const char *c = s; c < end && n + 1 < cap; c++)
        host[n++] = (*c >= 'A' && *c <= 'Z') ? (char)(*c + 32) : *c;
    while (n && host[n - 1] == '.')
        n--;
    host[n] = '\0';
    return n;
}

uint16_t ndd_url_hash16(const char *url)
{
    size_t n = url ? strlen(url) : 0;
    if (!n)
        return 0;
    uint16_t h = (uint16_t)XXH3_64bits(url, n);
    return h ? h : 1;
}

uint32_t ndd_url_site(const char *url)
{
    char host[256];
    size_t n = ndd_url_host(url, host, sizeof host);
    if (!n)
        return 0;
    uint32_t h = (uint32_t)XXH3_64bits(host, n);
    return h ? h : 1;
}

int ndd_pgroups_decode(const char *x, size_t len, ndd_posting_t *p, uint64_t n)
{
    size_t at = 0;
    uint64_t w = 0;
    while (at < len) {
        uint64_t k = len - at < NDD_PGROUP_HEAD ? 0 : ndd_le32_load(x + at + 16);
        if (k == 0 || k > (len - at - NDD_PGROUP_HEAD) / 8 || k > n - w)
            return NDD_ERR_FORMAT;
        uint64_t doc = ndd_le64_load(x + at);
        uint32_t site = ndd_le32_load(x + at + 8), uw = ndd_le32_load(x + at + 12);
        const char *kp = x + at + NDD_PGROUP_HEAD;
        const uint16_t url = (uint16_t)(uw & 0xffff), weight = (uint16_t)(uw >> 16);
        for (uint64_t e = 0; e < k; e++)
            p[w++] = (ndd_posting_t){ndd_le64_load(kp + 8 * e), doc, site, url, weight};
        at += NDD_PGROUP_HEAD + 8 * k;
    }
    return w == n ? NDD_OK : NDD_ERR_FORMAT;
}

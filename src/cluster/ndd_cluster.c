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

static int cmp_u64_asc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
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
    ndd_qsort(scratch, known, sizeof *scratch, cmp_u64_asc);
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
 * every entry agrees on costs one counting pass and no move. */
static void flag_sort(ndd_posting_t *a, size_t n, unsigned lev)
{
    size_t count[256], head[256], end[256];
    for (; n > 32 && lev < 16; lev++) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[post_byte(&a[i], lev)]++;
        if (count[post_byte(&a[0], lev)] == n)
            continue; /* one bucket: the next byte */
        for (size_t b = 0, at = 0; b < 256; b++) {
            head[b] = at;
            at += count[b];
            end[b] = at;
        }
        for (unsigned b = 0; b < 256; b++)
            while (head[b] < end[b]) {
                ndd_posting_t v = a[head[b]];
                unsigned d = post_byte(&v, lev);
                while (d != b) { /* cycle: v goes to its bucket, the displaced entry goes on */
                    ndd_posting_t t = a[head[d]];
                    a[head[d]++] = v;
                    v = t;
                    d = post_byte(&v, lev);
                }
                a[head[b]++] = v;
            }
        for (size_t b = 0, at = 0; b < 256; at += count[b], b++)
            if (count[b] > 1)
                flag_sort(a + at, count[b], lev + 1);
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

void ndd_postings_sort_inplace(ndd_posting_t *a, size_t n) { flag_sort(a, n, 0); }

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
    void *tmp; /* radix scratch: as large as km or raw */
    size_t tmp_cap;
};

/* Stable LSD radix sorts (8-bit digits; a digit all entries share costs one
 * counting pass and no move). km is built in member order, so sorting it
 * stably by key gives the (key, member) order of cmp_keymem; raw holds plain
 * u64. Both give exactly what qsort gave (equal entries are identical). */
#define RADIX8(T, KEY, v, tmp, n)                                                 \
    do {                                                                          \
        T *src_ = (v), *dst_ = (tmp);                                             \
        size_t cnt_[256];                                                         \
        for (unsigned sh_ = 0; sh_ < 64; sh_ += 8) {                              \
            memset(cnt_, 0, sizeof cnt_);                                         \
            for (size_t k_ = 0; k_ < (n); k_++)                                   \
                cnt_[(KEY(src_[k_]) >> sh_) & 0xFF]++;                            \
            if (cnt_[(KEY(src_[0]) >> sh_) & 0xFF] == (n))                        \
                continue;                                                         \
            for (size_t d_ = 0, at_ = 0; d_ < 256; d_++) {                        \
                size_t c_ = cnt_[d_];                                             \
                cnt_[d_] = at_;                                                   \
                at_ += c_;                                                        \
            }                                                                     \
            for (size_t k_ = 0; k_ < (n); k_++)                                   \
                dst_[cnt_[(KEY(src_[k_]) >> sh_) & 0xFF]++] = src_[k_];           \
            T *t_ = src_;                                                         \
            src_ = dst_;                                                          \
            dst_ = t_;                                                            \
        }                                                                         \
        if (src_ != (v))                                                          \
            memcpy((v), src_, (n) * sizeof *src_);                                \
    } while (0)
#define KEYMEM_KEY(x) ((x).key)
#define U64_KEY(x) (x)

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
    for (size_t i = 0; i < n; i++)
        for (size_t k = off[i]; k < off[i + 1]; k++)
            ws->km[k] = (keymem_t){keys[k], (uint32_t)i};
    if (nk < 64) {
        ndd_qsort(ws->km, nk, sizeof *ws->km, cmp_keymem);
    } else {
        if ((rc = ndd_array_grow(&ws->tmp, &ws->tmp_cap, nk * sizeof *ws->km, 1)))
            return rc;
        RADIX8(keymem_t, KEYMEM_KEY, ws->km, (keymem_t *)ws->tmp, nk);
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
    if (ws->raw_len < 64) {
        ndd_qsort(ws->raw, ws->raw_len, sizeof *ws->raw, cmp_u64);
    } else {
        if ((rc = ndd_array_grow(&ws->tmp, &ws->tmp_cap, ws->raw_len * sizeof *ws->raw, 1)))
            return rc;
        RADIX8(uint64_t, U64_KEY, ws->raw, (uint64_t *)ws->tmp, ws->raw_len);
    }
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
        size_t nh = 2 * ws->npairs;
        if ((rc = ndd_array_grow((void **)&ws->half, &ws->half_cap, nh ? nh : 1, sizeof *ws->half)) ||
            (rc = ndd_array_grow((void **)&ws->keep, &ws->keep_cap, ws->npairs ? ws->npairs : 1, 1)))
            return rc;
        for (size_t q = 0; q < ws->npairs; q++) {
            ws->half[2 * q] = (half_t){ws->pairs[q].i, ws->pairs[q].j, ws->pairs[q].shared, (uint32_t)q};
            ws->half[2 * q + 1] = (half_t){ws->pairs[q].j, ws->pairs[q].i, ws->pairs[q].shared, (uint32_t)q};
            ws->keep[q] = 0;
        }
        ndd_qsort(ws->half, nh, sizeof *ws->half, cmp_half);
        for (size_t a = 0; a < nh;) {
            size_t b = a;
            unsigned taken = 0;
            while (b < nh && ws->half[b].member == ws->half[a].member) {
                if (taken < p->per_doc) {
                    ws->keep[ws->half[b].pair] = 1;
                    taken++;
                }
                b++;
            }
            a = b;
        }
        if ((rc = ndd_array_grow((void **)&ws->out, &ws->out_cap, ws->npairs ? ws->npairs : 1, sizeof *ws->out)))
            return rc;
        for (size_t q = 0; q < ws->npairs; q++)
            if (ws->keep[q])
                ws->out[nout_++] = ws->pairs[q];
    }
    ndd_qsort(ws->out, nout_, sizeof *ws->out, cmp_cand);
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

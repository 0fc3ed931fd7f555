/* ndd_tmpl.c - template blocks of text without markup (see ndd_tmpl.h). */
#include "ndd_tmpl.h"

#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

void ndd_tmpl_params_default(ndd_tmpl_params_t *p)
{
    p->min_pages = NDD_TMPL_DEFAULT_MIN_PAGES;
    p->min_sites = NDD_TMPL_DEFAULT_MIN_SITES;
    p->max_short = NDD_TMPL_DEFAULT_MAX_SHORT;
}

/* [*s, *s + *n) without leading and trailing spaces. */
static void trim(const char **s, size_t *n)
{
    while (*n && (**s == ' ' || **s == '\t' || **s == '\r')) {
        (*s)++;
        (*n)--;
    }
    while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
        (*n)--;
}

/* SWAR on 8 bytes (with ndd_bytes_eq8) */
#define NDD_ONES 0x0101010101010101ULL
#define NDD_HIGH 0x8080808080808080ULL

/* x with its ASCII capitals lowered. */
static inline uint64_t lower8(uint64_t x)
{
    uint64_t h = x & ~NDD_HIGH, ge_a = h + NDD_ONES * (0x80 - 'A'), gt_z = h + NDD_ONES * (0x80 - 'Z' - 1);
    return x | ((ge_a & ~gt_z & ~x & NDD_HIGH) >> 2);
}

uint64_t ndd_tmpl_block_hash(const char *s, size_t n, uint32_t max_short)
{
    /* the block trimmed, each run of spaces, tabs and CRs made one space
     * (runs lie between other bytes after the trim), ASCII letters lowered;
     * hashed with XXH3 in one call when it fits the buffer (most lines),
     * else streamed (XXH3's streaming and one-shot forms give one hash).
     * 8 bytes at a time while they hold no tab, CR or second space of a
     * run: then they are the output, lowered. */
    XXH3_state_t st;
    char buf[4096];
    size_t k = 0, len = 0;
    int streaming = 0, prev_ws = 0;
    trim(&s, &n);
    for (size_t i = 0; i < n;) {
        if (k + 8 > sizeof buf) {
            if (!streaming) {
                XXH3_64bits_reset(&st);
                streaming = 1;
            }
            XXH3_64bits_update(&st, buf, k);
            k = 0;
        }
        if (i + 8 <= n) {
            uint64_t x;
            memcpy(&x, s + i, 8);
            uint64_t sp = ndd_bytes_eq8(x, ' ');
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            /* little-endian: byte q + 1 sits 8 bits above byte q */
            int plain = !(ndd_bytes_eq8(x, '\t') | ndd_bytes_eq8(x, '\r') | (sp & (sp << 8))) && !(prev_ws && (sp & 0x80));
            if (plain) {
                x = lower8(x);
                memcpy(buf + k, &x, 8);
                k += 8;
                len += 8;
                prev_ws = (sp >> 63) != 0;
                i += 8;
                continue;
            }
#endif
        }
        size_t e = i + 8 < n ? i + 8 : n;
        for (; i < e; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c == ' ' || c == '\t' || c == '\r') {
                if (!prev_ws) {
                    buf[k++] = ' ';
                    len++;
                }
                prev_ws = 1;
            } else {
                buf[k++] = (char)((unsigned)(c - 'A') < 26u ? c + 32 : c);
                len++;
                prev_ws = 0;
            }
        }
    }
    uint64_t h;
    if (streaming) {
        XXH3_64bits_update(&st, buf, k);
        h = XXH3_64bits_digest(&st);
    } else {
        h = XXH3_64bits(buf, k);
    }
    h &= ~NDD_TMPL_SHORT_BIT;
    if (!h)
        h = 1;
    return len <= max_short ? h | NDD_TMPL_SHORT_BIT : h;
}

uint32_t ndd_tmpl_page_key(const char *url, const char *id)
{
    char buf[2048];
    size_t k = 0;
    const char *s = url ? url : "";
    if (!*s) {
        s = id ? id : "";
        uint32_t h = (uint32_t)XXH3_64bits(s, strlen(s));
        return h ? h : 1;
    }
    const char *p = strstr(s, "://");
    if (p && (size_t)(p - s) < 16)
        s = p + 3;
    if ((s[0] == 'w' || s[0] == 'W') && (s[1] == 'w' || s[1] == 'W') && (s[2] == 'w' || s[2] == 'W') && s[3] == '.')
        s += 4;
    size_t hostlen = strcspn(s, "/?#");
    for (size_t i = 0; i < hostlen && k < sizeof buf; i++) {
        char c = s[i];
        buf[k++] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    /* default ports */
    if (k >= 3 && !memcmp(buf + k - 3, ":80", 3))
        k -= 3;
    else if (k >= 4 && !memcmp(buf + k - 4, ":443", 4))
        k -= 4;
    size_t rest = strcspn(s + hostlen, "#");
    for (size_t i = 0; i < rest && k < sizeof buf; i++)
        buf[k++] = s[hostlen + i];
    while (k && buf[k - 1] == '/')
        k--;
    uint32_t h = (uint32_t)XXH3_64bits(buf, k);
    return h ? h : 1;
}

/* The next block [*bs, *bs + *bl) of text[0..n) at or after *at
 * ('\n'-separated); 0 at the end. */
static int next_block(const char *text, size_t n, size_t *at, const char **bs, size_t *bl)
{
    if (*at >= n)
        return 0;
    const char *nl = memchr(text + *at, '\n', n - *at);
    size_t end = nl ? (size_t)(nl - text) : n;
    *bs = text + *at;
    *bl = end - *at;
    *at = end + 1;
    return 1;
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
            return 0;
    return 1;
}

/* Hash of a sorted list of block hashes (their little-endian bytes). */
static uint32_t content_of(const uint64_t *h, size_t m)
{
    XXH3_state_t st;
    XXH3_64bits_reset(&st);
    for (size_t i = 0; i < m; i++) {
        unsigned char b[8];
        for (int k = 0; k < 8; k++)
            b[k] = (unsigned char)(h[i] >> (8 * k));
        XXH3_64bits_update(&st, b, sizeof b);
    }
    uint32_t c = (uint32_t)XXH3_64bits_digest(&st);
    return c ? c : 1;
}

int ndd_tmpl_doc_occ(const char *text, size_t n, uint32_t page, uint32_t site, uint32_t max_short,
                     ndd_tmpl_occ_t **v, size_t *nv, size_t *cap)
{
    return ndd_tmpl_doc_occ_seq(text, n, page, site, max_short, v, nv, cap, NULL, NULL, NULL);
}

int ndd_tmpl_doc_occ_seq(const char *text, size_t n, uint32_t page, uint32_t site, uint32_t max_short,
                         ndd_tmpl_occ_t **v, size_t *nv, size_t *cap, uint64_t **seq, size_t *nseq, size_t *seqcap)
{
    size_t first = *nv;
    int rc = NDD_OK;
    if (!v || !nv || !cap || (!text && n) || (seq && (!nseq || !seqcap)))
        return NDD_ERR_INVAL;
    const char *bs;
    size_t bl, at = 0;
    while (next_block(text, n, &at, &bs, &bl)) {
        int empty = blank(bs, bl);
        uint64_t h = empty ? 0 : ndd_tmpl_block_hash(bs, bl, max_short); /* (never 0) */
        if (seq) {
            if ((rc = ndd_array_grow((void **)seq, seqcap, *nseq + 1, sizeof **seq)))
                return rc;
            (*seq)[(*nseq)++] = h;
        }
        if (empty)
            continue;
        if ((rc = ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v)))
            return rc;
        (*v)[(*nv)++] = (ndd_tmpl_occ_t){h, page, site, 0};
    }
    /* one record per distinct block, sorted by block */
    ndd_tmpl_occ_t *o = *v + first;
    size_t m = *nv - first;
    uint32_t content = 0;
    if (m > 1) {
        uint64_t *h = malloc(m * sizeof *h);
        if (!h)
            return NDD_ERR_NOMEM;
        for (size_t i = 0; i < m; i++)
            h[i] = o[i].block;
        m = ndd_u64_sort_unique(h, m);
        for (size_t i = 0; i < m; i++)
            o[i].block = h[i];
        *nv = first + m;
        content = content_of(h, m);
        free(h);
    } else if (m == 1) {
        content = content_of(&o[0].block, 1);
    }
    for (size_t i = 0; i < m; i++)
        o[i].content = content;
    return NDD_OK;
}

static int cmp_occ(const void *a, const void *b)
{
    const ndd_tmpl_occ_t *x = *(const ndd_tmpl_occ_t *const *)a, *y = *(const ndd_tmpl_occ_t *const *)b;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    if (x->site != y->site)
        return x->site < y->site ? -1 : 1;
    if (x->page != y->page)
        return x->page < y->page ? -1 : 1;
    return (x > y) - (x < y); /* a total order: equal records by position */
}

/* An occurrence's sort key (block, site << 32 | page), cmp_occ's order
 * without a pointer to follow or a call per comparison. */
typedef struct occ_key {
    uint64_t block, sp;
    const ndd_tmpl_occ_t *p;
} occ_key_t;

static inline int occ_key_lt(const occ_key_t *x, const occ_key_t *y)
{
    return x->block != y->block ? x->block < y->block : x->sp != y->sp ? x->sp < y->sp : x->p < y->p;
}

/* k[0..m) sorted by occ_key_lt (a total order: the result is cmp_occ's):
 * runs of 16 by insertion, then merged bottom-up through t (m entries). */
static void occ_keys_sort(occ_key_t *k, occ_key_t *t, size_t m)
{
    enum { RUN = 16 };
    for (size_t a = 0; a < m; a += RUN) {
        size_t b = a + RUN < m ? a + RUN : m;
        for (size_t i = a + 1; i < b; i++) {
            occ_key_t v = k[i];
            size_t j = i;
            for (; j > a && occ_key_lt(&v, &k[j - 1]); j--)
                k[j] = k[j - 1];
            k[j] = v;
        }
    }
    occ_key_t *src = k, *dst = t;
    for (size_t w = RUN; w < m; w *= 2) {
        for (size_t a = 0; a < m; a += 2 * w) {
            size_t mid = a + w < m ? a + w : m, b = a + 2 * w < m ? a + 2 * w : m, i = a, j = mid, o = a;
            while (i < mid && j < b)
                dst[o++] = occ_key_lt(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[o++] = src[i++];
            while (j < b)
                dst[o++] = src[j++];
        }
        occ_key_t *x = src;
        src = dst;
        dst = x;
    }
    if (src != k)
        memcpy(k, src, m * sizeof *k);
}

/* ix[0..n) = the occurrences in cmp_occ's order: one counting pass on the
 * top 16 bits of the block hash (stable: occ's order), then each of the
 * 65,536 buckets sorted alone (insertion sort when small). The block hashes
 * are spread, so buckets are small except for blocks repeated on many pages,
 * which are one bucket of equal blocks (docs/BENCHMARKS.md: the template
 * stage 15 % faster than with one qsort of all); those are sorted as keys
 * (occ_keys_sort: qsort's calls of cmp_occ through the pointers were 0.9 %
 * of ndd run). */
static int sort_occ(const ndd_tmpl_occ_t *occ, size_t n, const ndd_tmpl_occ_t **ix)
{
    enum { SMALL = 24 };
    size_t *at = calloc((size_t)1 << 16, sizeof *at);
    occ_key_t *keys = NULL;
    size_t kcap = 0;
    int rc = NDD_OK;
    if (!at)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        at[occ[i].block >> 48]++;
    for (size_t d = 0, sum = 0; d < ((size_t)1 << 16); d++) {
        size_t c = at[d];
        at[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++)
        ix[at[occ[i].block >> 48]++] = &occ[i];
    for (size_t d = 0, a = 0; d < ((size_t)1 << 16); d++) { /* at[d]: the end of bucket d now */
        size_t b = at[d], m = b - a;
        if (m > SMALL) {
            if ((rc = ndd_array_grow((void **)&keys, &kcap, 2 * m, sizeof *keys)))
                break;
            for (size_t i = 0; i < m; i++) {
                const ndd_tmpl_occ_t *o = ix[a + i];
                keys[i] = (occ_key_t){o->block, (uint64_t)o->site << 32 | o->page, o};
            }
            occ_keys_sort(keys, keys + m, m);
            for (size_t i = 0; i < m; i++)
                ix[a + i] = keys[i].p;
        } else {
            for (size_t k = a + 1; k < b; k++) {
                const ndd_tmpl_occ_t *v = ix[k];
                size_t j = k;
                for (; j > a && cmp_occ(&v, &ix[j - 1]) < 0; j--)
                    ix[j] = ix[j - 1];
                ix[j] = v;
            }
        }
        a = b;
    }
    free(at);
    free(keys);
    return rc;
}

int ndd_tmpl_decide(const ndd_tmpl_params_t *p, const ndd_tmpl_occ_t *occ, size_t n, uint8_t *flag,
                    ndd_tmpl_decided_t *dec)
{
    if ((!occ || !flag) && n)
        return NDD_ERR_INVAL;
    const ndd_tmpl_occ_t **ix = malloc((n ? n : 1) * sizeof *ix);
    if (!ix)
        return NDD_ERR_NOMEM;
    uint64_t *cs = NULL;
    size_t ccap = 0;
    int rc = NDD_OK;
    if ((rc = sort_occ(occ, n, ix)))
        goto out;
    for (size_t a = 0; a < n && !rc;) {
        size_t b = a;
        uint64_t block = ix[a]->block, sites = 0;
        while (b < n && ix[b]->block == block)
            b++;
        /* distinct known sites of this block */
        for (size_t i = a; i < b; i++)
            if (ix[i]->site && (i == a || ix[i]->site != ix[i - 1]->site))
                sites++;
        int corpus = p->min_sites && (block & NDD_TMPL_SHORT_BIT) && sites >= p->min_sites;
        if (corpus && dec)
            dec->corpus_blocks++;
        for (size_t s = a; s < b;) {
            size_t e = s;
            uint64_t pages = 0, contents = 0;
            while (e < b && ix[e]->site == ix[s]->site) {
                pages += e == s || ix[e]->page != ix[e - 1]->page;
                e++;
            }
            if (p->min_pages && ix[s]->site && pages >= p->min_pages) {
                if ((rc = ndd_array_grow((void **)&cs, &ccap, e - s, sizeof *cs)))
                    break;
                for (size_t i = s; i < e; i++)
                    cs[i - s] = ix[i]->content;
                contents = ndd_u64_sort_unique(cs, e - s);
            }
            int site_t = p->min_pages && ix[s]->site && contents >= p->min_pages && pages >= p->min_pages;
            if (site_t && dec)
                dec->site_blocks++;
            for (size_t i = s; i < e; i++)
                flag[ix[i] - occ] = (uint8_t)(corpus || site_t);
            s = e;
        }
        a = b;
    }
out:
    free(ix);
    free(cs);
    return rc;
}

/* ndd_tmpl_strip; with seq, block j's hash is seq[j] (0: blank) instead of
 * computed again. */
static int strip(const char *text, size_t n, const uint64_t *seq, size_t nseq, const uint64_t *tmpl, size_t ntmpl,
                 uint32_t max_short, size_t max_bytes, ndd_buf_t *out, size_t *removed)
{
    size_t gone = 0, j = 0;
    int rc = NDD_OK;
    if (!out || (!text && n) || (!tmpl && ntmpl))
        return NDD_ERR_INVAL;
    ndd_buf_clear(out);
    const char *bs;
    size_t bl, at = 0;
    while (next_block(text, n, &at, &bs, &bl)) {
        int drop = 0;
        if (seq && j >= nseq)
            return NDD_ERR_INVAL; /* (not this text's sequence) */
        uint64_t h = seq ? seq[j] : 0;
        j++;
        if (ntmpl && (seq ? h != 0 : !blank(bs, bl))) {
            h = seq ? h : ndd_tmpl_block_hash(bs, bl, max_short);
            size_t lo = ndd_u64_lower_bound(tmpl, ntmpl, h);
            drop = lo < ntmpl && tmpl[lo] == h;
        }
        if (drop) {
            gone += bl;
            continue;
        }
        if (out->len && (rc = ndd_buf_append(out, "\n", 1)))
            return rc;
        if ((rc = ndd_buf_append(out, bs, bl)))
            return rc;
    }
    if (!out->len && gone) { /* only repeated blocks: the document stays whole */
        ndd_buf_clear(out);
        int rc2 = ndd_buf_append(out, text, n);
        if (rc2)
            return rc2;
        gone = 0;
    }
    if (seq && j != nseq)
        return NDD_ERR_INVAL;
    if (max_bytes && out->len > max_bytes)
        out->len = ndd_utf8_cut(out->data, out->len, max_bytes);
    if (removed)
        *removed = gone;
    return NDD_OK;
}

int ndd_tmpl_strip(const char *text, size_t n, const uint64_t *tmpl, size_t ntmpl, uint32_t max_short,
                   size_t max_bytes, ndd_buf_t *out, size_t *removed)
{
    return strip(text, n, NULL, 0, tmpl, ntmpl, max_short, max_bytes, out, removed);
}

int ndd_tmpl_strip_seq(const char *text, size_t n, const uint64_t *seq, size_t nseq, const uint64_t *tmpl,
                       size_t ntmpl, size_t max_bytes, ndd_buf_t *out, size_t *removed)
{
    static const uint64_t none[1] = {0}; /* (a text without blocks: nothing is read) */
    if (!seq && nseq)
        return NDD_ERR_INVAL;
    return strip(text, n, seq ? seq : none, nseq, tmpl, ntmpl, 0, max_bytes, out, removed);
}

/* base_tokens.c - word tokeniser, English stopwords and SpotSigs antecedents,
 * scratch arrays, sorting, length partitions and prefix-filter keys shared by
 * the baseline methods. */
#include "base_internal.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

int base_grow(void **p, size_t *cap, size_t need, size_t el)
{
    /* the shared helper, but always leaving an allocated array (callers index it) */
    return ndd_array_grow(p, cap, need || *p ? need : 1, el);
}

uint64_t base_hash2(uint64_t a, uint64_t b)
{
    uint64_t v[2] = {a, b};
    return XXH3_64bits(v, sizeof v);
}

/* ---- character classes ---- */

int base_cp_class(uint32_t cp)
{
    if (cp < 0x80) {
        if ((cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z'))
            return BASE_WORD;
        return BASE_SEP;
    }
    if (cp <= 0xBF) /* C1 controls, Latin-1 punctuation and symbols */
        return (cp == 0xAA || cp == 0xB5 || cp == 0xBA) ? BASE_WORD : BASE_SEP;
    if (cp == 0xD7 || cp == 0xF7)
        return BASE_SEP;
    if (cp < 0x2000)
        return BASE_WORD;
    if (cp <= 0x206F || (cp >= 0x20A0 && cp <= 0x20CF) || (cp >= 0x2190 && cp <= 0x2BFF) ||
        (cp >= 0x2E00 && cp <= 0x2E7F))
        return BASE_SEP; /* general punctuation, currency, arrows, math, boxes, dingbats */
    if (cp >= 0x2E80 && cp <= 0x2FDF)
        return BASE_CJK; /* radicals */
    if (cp >= 0x3000 && cp <= 0x303F)
        return BASE_SEP; /* CJK symbols and punctuation */
    if (cp == 0x30FB)
        return BASE_SEP; /* katakana middle dot */
    if ((cp >= 0x3040 && cp <= 0x31FF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
        (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF66 && cp <= 0xFF9F) || (cp >= 0x20000 && cp <= 0x3FFFF))
        return BASE_CJK;
    if ((cp >= 0xFE00 && cp <= 0xFE1F) || (cp >= 0xFE30 && cp <= 0xFE6F) || cp == 0xFEFF ||
        (cp >= 0xFF00 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
        (cp >= 0xFF5B && cp <= 0xFF65) || (cp >= 0xFFF0 && cp <= 0xFFFF) || (cp >= 0x1F000 && cp <= 0x1FAFF) ||
        (cp >= 0xE0000 && cp <= 0xE007F))
        return BASE_SEP; /* variation selectors, CJK compatibility and fullwidth punctuation, specials, emoji, tags */
    return BASE_WORD;
}

size_t base_utf8_next(const unsigned char *s, size_t n, size_t i, uint32_t *cp)
{
    unsigned c = s[i];
    size_t need, k;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        need = 1; v = c & 0x1F; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2; v = c & 0x0F; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3; v = c & 0x07; min = 0x10000;
    } else {
        *cp = 0xFFFD;
        return 1;
    }
    if (n - i <= need) { /* truncated sequence */
        *cp = 0xFFFD;
        return 1;
    }
    for (k = 1; k <= need; k++) {
        unsigned d = s[i + k];
        if ((d & 0xC0) != 0x80) {
            *cp = 0xFFFD;
            return 1;
        }
        v = (v << 6) | (d & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
        *cp = 0xFFFD;
        return 1;
    }
    *cp = v;
    return need + 1;
}

/* ---- tokeniser ---- */

static int tok_push(base_tok_t *t, size_t off, size_t len)
{
    if (t->n == t->cap) {
        /* the three arrays grow from the same capacity by the same rule */
        size_t c1 = t->cap, c2 = t->cap, c3 = t->cap;
        if (base_grow((void **)&t->off, &c1, t->n + 1, sizeof *t->off) ||
            base_grow((void **)&t->len, &c2, t->n + 1, sizeof *t->len) ||
            base_grow((void **)&t->h, &c3, t->n + 1, sizeof *t->h))
            return NDD_ERR_NOMEM;
        t->cap = c1;
    }
    t->off[t->n] = (uint32_t)off;
    t->len[t->n] = (uint32_t)len;
    t->h[t->n] = XXH3_64bits(t->low + off, len);
    t->n++;
    return NDD_OK;
}

int base_tok_run(base_tok_t *t, const char *text, size_t n)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0, start = 0;
    int in_word = 0, rc;
    t->n = 0;
    if (n && !text)
        return NDD_ERR_INVAL;
    if (n >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    if ((rc = base_grow((void **)&t->low, &t->lowcap, n + 1, 1)))
        return rc;
    for (size_t j = 0; j < n; j++) {
        unsigned char c = s[j];
        t->low[j] = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
    }
    t->low[n] = 0;
    while (i < n) {
        uint32_t cp;
        size_t l = base_utf8_next(s, n, i, &cp);
        int cls = base_cp_class(cp);
        if (cls == BASE_WORD) {
            if (!in_word) {
                in_word = 1;
                start = i;
            }
        } else {
            if (in_word) {
                if ((rc = tok_push(t, start, i - start)))
                    return rc;
                in_word = 0;
            }
            if (cls == BASE_CJK && (rc = tok_push(t, i, l)))
                return rc;
        }
        i += l;
    }
    if (in_word && (rc = tok_push(t, start, n - start)))
        return rc;
    return NDD_OK;
}

void base_tok_free(base_tok_t *t)
{
    free(t->low);
    free(t->off);
    free(t->len);
    free(t->h);
    memset(t, 0, sizeof *t);
}

/* ---- stopwords ---- */

/* English stopwords (the NLTK list, which already splits contractions the
 * way the tokeniser does: don't -> don t) plus could, would, done, shall,
 * may, might, must. The antecedents are SpotSigs' best set (paper 004 sec.
 * 5.1): the articles and the flexions of be, can, will, have, do. */
static const char *const base_stopwords[] = {
    "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your", "yours", "yourself",
    "yourselves", "he", "him", "his", "himself", "she", "her", "hers", "herself", "it", "its", "itself",
    "they", "them", "their", "theirs", "themselves", "what", "which", "who", "whom", "this", "that",
    "these", "those", "am", "is", "are", "was", "were", "be", "been", "being", "have", "has", "had",
    "having", "do", "does", "did", "doing", "a", "an", "the", "and", "but", "if", "or", "because", "as",
    "until", "while", "of", "at", "by", "for", "with", "about", "against", "between", "into", "through",
    "during", "before", "after", "above", "below", "to", "from", "up", "down", "in", "out", "on", "off",
    "over", "under", "again", "further", "then", "once", "here", "there", "when", "where", "why", "how",
    "all", "any", "both", "each", "few", "more", "most", "other", "some", "such", "no", "nor", "not",
    "only", "own", "same", "so", "than", "too", "very", "s", "t", "can", "will", "just", "don", "should",
    "now", "d", "ll", "m", "o", "re", "ve", "y", "ain", "aren", "couldn", "didn", "doesn", "hadn", "hasn",
    "haven", "isn", "ma", "mightn", "mustn", "needn", "shan", "shouldn", "wasn", "weren", "won", "wouldn",
    "could", "would", "done", "shall", "may", "might", "must", NULL};
static const char *const base_antecedents[] = {
    "a", "an", "the", "is", "are", "was", "were", "be", "been", "being", "am", "can", "could", "will",
    "would", "have", "has", "had", "having", "do", "does", "did", "doing", "done", NULL};

static int words_add(base_words_t *w, const char *s, int kind)
{
    uint64_t h = XXH3_64bits(s, strlen(s));
    size_t i;
    if (!h)
        h = 1; /* 0 marks an empty slot; a zero hash would only alias to 1 */
    i = (size_t)base_mix64(h) & w->mask;
    while (w->slot[i] && w->slot[i] != h)
        i = (i + 1) & w->mask;
    w->slot[i] = h;
    w->kind[i] |= (uint8_t)kind;
    return NDD_OK;
}

int base_words_init(base_words_t *w)
{
    size_t sz = 1024;
    w->slot = calloc(sz, sizeof *w->slot);
    w->kind = calloc(sz, 1);
    w->mask = sz - 1;
    if (!w->slot || !w->kind) {
        base_words_free(w);
        return NDD_ERR_NOMEM;
    }
    for (size_t i = 0; base_stopwords[i]; i++)
        words_add(w, base_stopwords[i], BASE_STOP);
    for (size_t i = 0; base_antecedents[i]; i++)
        words_add(w, base_antecedents[i], BASE_STOP | BASE_ANTE);
    return NDD_OK;
}

void base_words_free(base_words_t *w)
{
    free(w->slot);
    free(w->kind);
    memset(w, 0, sizeof *w);
}

int base_words_kind(const base_words_t *w, uint64_t h)
{
    size_t i;
    if (!h)
        h = 1;
    i = (size_t)base_mix64(h) & w->mask;
    while (w->slot[i]) {
        if (w->slot[i] == h)
            return w->kind[i];
        i = (i + 1) & w->mask;
    }
    return 0;
}

/* ---- sorting ---- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

void base_sort_u64(uint64_t *a, size_t n)
{
    if (n > 1)
        qsort(a, n, sizeof *a, cmp_u64);
}

size_t base_unique_u64(uint64_t *a, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || a[m - 1] != a[i])
            a[m++] = a[i];
    return m;
}

/* ---- partitions ---- */

int ndd_baselines_ratio_ge(uint64_t num, uint64_t den, double t)
{
    return den > 0 && (double)num >= t * (double)den;
}

/* Smallest integer P > p with t * P > p (double arithmetic, the same
 * rounding as ndd_baselines_ratio_ge: fl(t * x) is monotone in x). */
static uint64_t parts_next(double t, uint64_t p)
{
    double est = (double)p / t;
    uint64_t P;
    if (est > 9.0e18)
        return UINT64_MAX;
    P = (uint64_t)est;
    if (P <= p)
        P = p + 1;
    while (P - 1 > p && t * (double)(P - 1) > (double)p)
        P--;
    while (!(t * (double)P > (double)p))
        P++;
    return P;
}

int base_parts_index(base_parts_t *pt, double t, uint64_t len, uint64_t *k)
{
    size_t lo, hi;
    if (!(t > 0.0 && t <= 1.0) || len == 0)
        return NDD_ERR_INVAL;
    if (pt->t != t || pt->n == 0) {
        pt->t = t;
        pt->n = 0;
        if (base_grow((void **)&pt->b, &pt->cap, 2, sizeof *pt->b))
            return NDD_ERR_NOMEM;
        pt->b[pt->n++] = 1;
    }
    while (pt->b[pt->n - 1] <= len) {
        uint64_t nx = parts_next(t, pt->b[pt->n - 1]);
        if (base_grow((void **)&pt->b, &pt->cap, pt->n + 1, sizeof *pt->b))
            return NDD_ERR_NOMEM;
        pt->b[pt->n++] = nx;
        if (nx == UINT64_MAX)
            break;
    }
    /* largest k with b[k] <= len */
    lo = 0;
    hi = pt->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (pt->b[mid] <= len)
            lo = mid;
        else
            hi = mid - 1;
    }
    *k = lo;
    return NDD_OK;
}

void base_parts_free(base_parts_t *pt)
{
    free(pt->b);
    memset(pt, 0, sizeof *pt);
}

int ndd_baselines_partition(double t, uint64_t len, uint64_t *k)
{
    base_parts_t pt = {0};
    int rc = base_parts_index(&pt, t, len, k);
    base_parts_free(&pt);
    return rc;
}

/* ---- prefix-filter keys ---- */

static int cmp_rank(const void *x, const void *y)
{
    const base_rank_t *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

int base_prefix_keys(base_parts_t *pt, double t, uint64_t tag, base_rank_t *el, size_t nel,
                     uint64_t **keys, size_t *keycap, size_t *nkeys)
{
    uint64_t k, need;
    size_t len = 0, prefix;
    int rc;
    if (nel > 1)
        qsort(el, nel, sizeof *el, cmp_rank);
    for (size_t i = 0; i < nel; i++) /* equal ids carry equal ranks: adjacent */
        if (len == 0 || el[len - 1].id != el[i].id)
            el[len++] = el[i];
    if (len == 0)
        return NDD_OK;
    if ((rc = base_parts_index(pt, t, len, &k)))
        return rc;
    /* a pair reaching t overlaps in >= t * max(|A|, |B|) >= t * len elements
     * (ndd_baselines_ratio_ge forms the same product, so the rounding agrees):
     * two prefixes of len - ceil(t * len) + 1 elements in one global order
     * then intersect */
    {
        double tl = t * (double)len;
        need = (uint64_t)tl;
        if ((double)need < tl)
            need++;
        if (need < 1)
            need = 1;
        if (need > len)
            need = len;
    }
    prefix = len - (size_t)need + 1;
    if ((rc = base_grow((void **)keys, keycap, *nkeys + 2 * prefix, sizeof **keys)))
        return rc;
    for (size_t i = 0; i < prefix; i++) {
        (*keys)[(*nkeys)++] = base_hash2(tag ^ (k << 8), el[i].id);
        (*keys)[(*nkeys)++] = base_hash2(tag ^ ((k + 1) << 8), el[i].id);
    }
    return NDD_OK;
}

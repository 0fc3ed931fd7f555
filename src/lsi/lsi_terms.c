/* lsi_terms.c - LSI parameters, tokenisation (words; character n-grams in
 * CJK runs), the term-document matrix rows, paper 001's SimHash of word
 * 3-shingles. Local. */
#include "ndd_lsi.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void ndd_lsi_params_default(ndd_lsi_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->k = 200;
    p->oversample = 10;
    p->power = 2;
    p->bucket_bits = 16;
    p->cjk_gram = 2;
    p->bigrams = 1;
    p->seed = 1;
    p->th1 = 32;
    p->th4 = 0.25;
    p->gate = 0.02;
    p->lsh_bands = 64;
    p->lsh_bits = 6;
}

int ndd_lsi_params_check(const ndd_lsi_params_t *p)
{
    if (!p || p->k < 1 || p->k > 4096 || p->oversample > 4096 || p->power > 16 || p->bucket_bits < 8 ||
        p->bucket_bits > 20 || p->cjk_gram < 1 || p->cjk_gram > 4 || p->bigrams > 1 || !(p->th1 >= 0 && p->th1 <= 64) ||
        !(p->th4 >= -1 && p->th4 <= 1) || !(p->gate >= 0 && p->gate <= 1) || p->lsh_bands > 256 || p->lsh_bits < 1 || p->lsh_bits > 64)
        return NDD_ERR_INVAL;
    return NDD_OK;
}

/* ---- UTF-8 classification ---- */
enum { CL_SEP = 0, CL_WORD, CL_CJK };

static int is_cjk(uint32_t c)
{
    return (c >= 0x3040 && c <= 0x30FF) ||  /* kana */
           (c >= 0x3400 && c <= 0x4DBF) ||  /* CJK ext. A */
           (c >= 0x4E00 && c <= 0x9FFF) ||  /* CJK unified */
           (c >= 0xAC00 && c <= 0xD7AF) ||  /* Hangul syllables */
           (c >= 0xF900 && c <= 0xFAFF) ||  /* compatibility ideographs */
           (c >= 0x20000 && c <= 0x2FFFF);  /* ext. B.. */
}

static int is_punct(uint32_t c)
{
    return c < 0xC0 || (c >= 0x2000 && c <= 0x2BFF) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0xFF00 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
           (c >= 0xFF5B && c <= 0xFF65) || c == 0xD7 || c == 0xF7;
}

/* Decodes one code point at s[0..n); *len its bytes (1 for an invalid byte,
 * returned as CL_SEP). */
static int next_cp(const unsigned char *s, size_t n, size_t *len)
{
    unsigned char b = s[0];
    *len = 1;
    if (b < 0x80)
        return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ? CL_WORD : CL_SEP;
    size_t need = b >= 0xF0 && b < 0xF5 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
    if (!need || need > 4 || need > n)
        return CL_SEP;
    uint32_t c = b & (0x7F >> need);
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return CL_SEP;
        c = c << 6 | (s[i] & 0x3F);
    }
    *len = need;
    if (is_cjk(c))
        return CL_CJK;
    return is_punct(c) ? CL_SEP : CL_WORD;
}

#define WORD_SEED 0x4C5349574F524431ull /* distinct hash families for words and n-grams */
#define GRAM_SEED 0x4C534943474D3031ull

#define PAIR_SEED 0x4C534950414952ull

/* Every term, and with p->bigrams each pair of consecutive terms. */
typedef struct {
    void (*fn)(void *user, uint64_t h);
    void *user;
    uint64_t prev;
    int have, bigrams;
} emit_t;

static void emit(emit_t *e, uint64_t h)
{
    e->fn(e->user, h);
    if (e->bigrams && e->have) {
        uint64_t x[2] = {e->prev, h};
        e->fn(e->user, XXH3_64bits_withSeed(x, sizeof x, PAIR_SEED));
    }
    e->prev = h;
    e->have = 1;
}

int ndd_lsi_terms(const ndd_lsi_params_t *p, const char *text, size_t len, void (*fn)(void *user, uint64_t h),
                  void *user)
{
    emit_t e = {fn, user, 0, 0, p ? (int)p->bigrams : 0};
    const unsigned char *s = (const unsigned char *)text;
    char word[256];
    size_t cpos[5]; /* byte offsets of the last cjk_gram + 1 characters of a CJK run */
    size_t i = 0;
    if (!p || (!text && len))
        return NDD_ERR_INVAL;
    while (i < len) {
        size_t l;
        int cl = next_cp(s + i, len - i, &l);
        if (cl == CL_SEP) {
            i += l;
            continue;
        }
        if (cl == CL_WORD) { /* lower-cased word, hashed (long words: their first 255 bytes) */
            size_t wl = 0, nchar = 0, ascii = 1;
            while (i < len && (cl = next_cp(s + i, len - i, &l)) == CL_WORD) {
                for (size_t k = 0; k < l; k++, wl += wl < sizeof word) {
                    unsigned char b = s[i + k];
                    if (wl < sizeof word)
                        word[wl] = (char)(b >= 'A' && b <= 'Z' ? b + 32 : b);
                }
                ascii &= l == 1;
                nchar++;
                i += l;
            }
            if (nchar > 1 || !ascii)
                emit(&e, XXH3_64bits_withSeed(word, wl < sizeof word ? wl : sizeof word, WORD_SEED));
            continue;
        }
        /* a CJK run: its character n-grams */
        size_t nrun = 0, n = p->cjk_gram;
        while (i < len && (cl = next_cp(s + i, len - i, &l)) == CL_CJK) {
            if (nrun < n)
                cpos[nrun] = i;
            else {
                memmove(cpos, cpos + 1, (n - 1) * sizeof *cpos);
                cpos[n - 1] = i;
            }
            nrun++;
            i += l;
            if (nrun >= n)
                emit(&e, XXH3_64bits_withSeed(s + cpos[0], i - cpos[0], GRAM_SEED));
        }
        if (nrun < n)
            emit(&e, XXH3_64bits_withSeed(s + cpos[0], i - cpos[0], GRAM_SEED));
    }
    return NDD_OK;
}

/* ---- matrix rows ---- */
void ndd_lsi_mat_free(ndd_lsi_mat_t *m)
{
    free(m->off);
    free(m->col);
    free(m->val);
    memset(m, 0, sizeof *m);
}

static int mat_room(ndd_lsi_mat_t *m, size_t nnz)
{
    int rc = ndd_array_grow((void **)&m->off, &m->off_cap, m->n + 2, sizeof *m->off);
    size_t c1 = m->nz_cap;
    if (rc || (rc = ndd_array_grow((void **)&m->col, &c1, m->nnz + nnz, sizeof *m->col)))
        return rc;
    if ((rc = ndd_array_grow((void **)&m->val, &m->nz_cap, m->nnz + nnz, sizeof *m->val)))
        return rc;
    if (m->n == 0)
        m->off[0] = 0;
    return NDD_OK;
}

int ndd_lsi_mat_add_row(ndd_lsi_mat_t *m, const uint32_t *col, const double *val, size_t nnz)
{
    int rc = mat_room(m, nnz);
    if (rc)
        return rc;
    for (size_t k = 0; k < nnz; k++) {
        if (k && col[k] <= col[k - 1])
            return NDD_ERR_INVAL;
        m->col[m->nnz + k] = col[k];
        m->val[m->nnz + k] = val[k];
    }
    m->nnz += nnz;
    m->off[++m->n] = m->nnz;
    return NDD_OK;
}

typedef struct {
    uint32_t *b;
    size_t n, cap;
    uint32_t mask;
    int rc;
} collect_t;

static void collect(void *user, uint64_t h)
{
    collect_t *c = user;
    if (c->rc)
        return;
    if ((c->rc = ndd_array_grow((void **)&c->b, &c->cap, c->n + 1, sizeof *c->b)))
        return;
    c->b[c->n++] = (uint32_t)(h & c->mask);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int ndd_lsi_mat_add_text(ndd_lsi_mat_t *m, const ndd_lsi_params_t *p, const char *text, size_t len)
{
    collect_t c = {NULL, 0, 0, (uint32_t)((1u << p->bucket_bits) - 1), NDD_OK};
    int rc = ndd_lsi_terms(p, text, len, collect, &c);
    if (!rc)
        rc = c.rc;
    if (!rc && c.n) /* (no term: c.b is NULL, which qsort must not get) */
        qsort(c.b, c.n, sizeof *c.b, cmp_u32);
    size_t u = 0;
    for (size_t k = 0; k < c.n; k++)
        u += !k || c.b[k] != c.b[k - 1];
    if (!rc)
        rc = mat_room(m, u);
    if (!rc) {
        size_t at = m->nnz;
        for (size_t k = 0; k < c.n; k++) {
            if (k && c.b[k] == c.b[k - 1]) {
                m->val[at - 1] += 1.0;
                continue;
            }
            m->col[at] = c.b[k];
            m->val[at++] = 1.0;
        }
        m->nnz = at;
        m->off[++m->n] = at;
    }
    free(c.b);
    return rc;
}

/* ---- SimHash of word 3-shingles ---- */
typedef struct {
    uint64_t last[2];
    size_t n;
    int32_t acc[64];
} shingle_t;

static void shingle(void *user, uint64_t h)
{
    shingle_t *s = user;
    if (s->n >= 2) {
        uint64_t x[3] = {s->last[0], s->last[1], h};
        uint64_t f = XXH3_64bits(x, sizeof x);
        for (int b = 0; b < 64; b++)
            s->acc[b] += (f >> b & 1) ? 1 : -1;
    }
    s->last[0] = s->last[1];
    s->last[1] = h;
    s->n++;
}

uint64_t ndd_lsi_simhash(const ndd_lsi_params_t *p, const char *text, size_t len)
{
    shingle_t s;
    ndd_lsi_params_t q = *p;
    q.bigrams = 0; /* shingles of the words themselves */
    memset(&s, 0, sizeof s);
    if (ndd_lsi_terms(&q, text, len, shingle, &s) || s.n < 3)
        return 0;
    uint64_t f = 0;
    for (int b = 0; b < 64; b++)
        f |= (uint64_t)(s.acc[b] > 0) << b;
    return f;
}

/* base_test_corpus.h - helpers shared by the baseline tests (test_baselines.c,
 * test_spotsigs.c): a seeded generator, small corpora from the real Reuters
 * and Clough texts (skipped when absent), edited copies, candidate pairs. */
#ifndef NDD_BASE_TEST_CORPUS_H
#define NDD_BASE_TEST_CORPUS_H

#include "ndd_test.h"
#include <dirent.h>
#include <math.h>
#include "ndd_baselines.h"

static uint64_t rng_state = 0x1234567;
static inline uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline double rndu(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

typedef struct corpus {
    char **doc;
    size_t *len;
    size_t n, cap;
} corpus_t;

static inline void corpus_add(corpus_t *c, const char *s, size_t n)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 256;
        c->doc = realloc(c->doc, c->cap * sizeof *c->doc);
        c->len = realloc(c->len, c->cap * sizeof *c->len);
        assert_non_null(c->doc);
        assert_non_null(c->len);
    }
    c->doc[c->n] = malloc(n + 1);
    assert_non_null(c->doc[c->n]);
    memcpy(c->doc[c->n], s, n);
    c->doc[c->n][n] = 0;
    c->len[c->n] = n;
    c->n++;
}

static inline void corpus_free(corpus_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->doc[i]);
    free(c->doc);
    free(c->len);
    memset(c, 0, sizeof *c);
}

/* Reuters-21578 <BODY> texts: Latin-1 -> UTF-8, &lt; &gt; &amp; decoded,
 * other entities and control characters dropped, whitespace collapsed. */
static inline int load_reuters(corpus_t *c, size_t max_docs)
{
    char dir[512], path[600];
    ndd_buf_t b = NDD_BUF_INIT;
    if (!ndd_test_dataset("reuters21578", dir, sizeof dir))
        return 0;
    for (int f = 0; f < 22 && c->n < max_docs; f++) {
        char *data;
        size_t n;
        const char *p;
        snprintf(path, sizeof path, "%s/reut2-%03d.sgm", dir, f);
        if (ndd_read_file(path, 0, &data, &n) != NDD_OK)
            continue;
        p = data;
        while (c->n < max_docs && (p = strstr(p, "<BODY>")) != NULL) {
            const char *e = strstr(p, "</BODY>");
            int sp = 1;
            if (!e)
                break;
            ndd_buf_clear(&b);
            for (const char *q = p + 6; q < e; q++) {
                unsigned char ch = (unsigned char)*q;
                if (ch == '&') {
                    const char *semi = memchr(q, ';', (size_t)(e - q));
                    if (semi && semi - q < 8) {
                        char rep = 0;
                        if (strncmp(q, "&lt;", 4) == 0)
                            rep = '<';
                        else if (strncmp(q, "&gt;", 4) == 0)
                            rep = '>';
                        else if (strncmp(q, "&amp;", 5) == 0)
                            rep = '&';
                        if (rep) {
                            ndd_buf_putc(&b, rep);
                            sp = 0;
                        }
                        q = semi;
                        continue;
                    }
                }
                if (ch <= ' ') {
                    if (!sp)
                        ndd_buf_putc(&b, ' ');
                    sp = 1;
                    continue;
                }
                sp = 0;
                if (ch < 0x80) {
                    ndd_buf_putc(&b, (char)ch);
                } else {
                    char u[2] = {(char)(0xC0 | (ch >> 6)), (char)(0x80 | (ch & 0x3F))};
                    ndd_buf_append(&b, u, 2);
                }
            }
            while (b.len && b.data[b.len - 1] == ' ')
                b.len--;
            if (b.len)
                corpus_add(c, b.data, b.len);
            p = e;
        }
        free(data);
    }
    ndd_buf_free(&b);
    return c->n > 0;
}

static inline int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Clough & Stevenson: the 5 sources and 95 answers (*.txt), in name order. */
static inline int load_clough(corpus_t *c)
{
    char dir[512], path[1024];
    char *names[256];
    size_t nn = 0;
    DIR *d;
    struct dirent *de;
    if (!ndd_test_dataset("clough", dir, sizeof dir))
        return 0;
    d = opendir(dir);
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL && nn < 256) {
        size_t l = strlen(de->d_name);
        if (l > 4 && strcmp(de->d_name + l - 4, ".txt") == 0)
            names[nn++] = strdup(de->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_str);
    for (size_t i = 0; i < nn; i++) {
        char *data;
        size_t n;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (ndd_read_file(path, 0, &data, &n) == NDD_OK) {
            corpus_add(c, data, ndd_utf8_valid_prefix(data, n));
            free(data);
        }
        free(names[i]);
    }
    return c->n > 0;
}

/* An edited copy of a text: each word is deleted, replaced by a word from
 * elsewhere in the corpus text, or followed by an inserted one with total
 * probability rate. */
static inline void edit_copy(const char *s, size_t n, double rate, const char *donor, size_t dn, ndd_buf_t *out)
{
    size_t i = 0;
    ndd_buf_clear(out);
    while (i < n) {
        size_t j = i;
        double u;
        while (j < n && s[j] != ' ')
            j++;
        u = rndu();
        if (u < rate / 3) {
            /* delete */
        } else if (u < 2 * rate / 3 && dn > 20) {
            size_t k = rnd() % (dn - 10), m = 0;
            while (k < dn && donor[k] != ' ')
                k++;
            k++;
            while (k + m < dn && donor[k + m] != ' ')
                m++;
            if (out->len)
                ndd_buf_putc(out, ' ');
            ndd_buf_append(out, donor + k, m);
        } else {
            if (out->len)
                ndd_buf_putc(out, ' ');
            ndd_buf_append(out, s + i, j - i);
            if (u < rate)
                ndd_buf_puts(out, " inserted");
        }
        i = j + 1;
    }
}

/* Candidate pairs of per-document key lists: pairs sharing >= 1 key, coded
 * a << 32 | b (a < b), sorted unique. */
typedef struct keyed {
    uint64_t key;
    uint32_t doc;
} keyed_t;
static inline int cmp_keyed(const void *x, const void *y)
{
    const keyed_t *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->doc > b->doc) - (a->doc < b->doc);
}
static inline int cmp_u64t(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}
static inline uint64_t *cand_pairs(keyed_t *kd, size_t nkd, size_t *ncand)
{
    uint64_t *p = NULL;
    size_t n = 0, cap = 0;
    qsort(kd, nkd, sizeof *kd, cmp_keyed);
    for (size_t i = 0; i < nkd;) {
        size_t j = i;
        while (j < nkd && kd[j].key == kd[i].key)
            j++;
        for (size_t a = i; a < j; a++)
            for (size_t b = a + 1; b < j; b++) {
                if (kd[a].doc == kd[b].doc)
                    continue;
                if (n == cap) {
                    cap = cap ? 2 * cap : 1024;
                    p = realloc(p, cap * sizeof *p);
                    assert_non_null(p);
                }
                p[n++] = (uint64_t)kd[a].doc << 32 | kd[b].doc;
            }
        i = j;
    }
    if (n)
        qsort(p, n, sizeof *p, cmp_u64t);
    {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (!m || p[m - 1] != p[i])
                p[m++] = p[i];
        n = m;
    }
    *ncand = n;
    return p;
}
static inline int has_pair(const uint64_t *p, size_t n, uint32_t a, uint32_t b)
{
    uint64_t x = (uint64_t)(a < b ? a : b) << 32 | (a < b ? b : a);
    return p && bsearch(&x, p, n, sizeof *p, cmp_u64t) != NULL;
}

#endif

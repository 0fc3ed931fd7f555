/* base_method.c - method names, parameters, the per-thread context, and the
 * keys()/compare() dispatch of the baseline methods. */
#include "base_internal.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#define BASE_SIMHASH_MAX_KEYS 4096
#define BASE_MINHASH_MAX 1024

static const struct {
    ndd_method_t m;
    const char *name;
} base_names[] = {
    {NDD_METHOD_SIMHASH, "simhash"}, {NDD_METHOD_MINHASH, "minhash"}, {NDD_METHOD_SPOTSIGS, "spotsigs"},
    {NDD_METHOD_QGRAM, "qgram"},     {NDD_METHOD_IMATCH, "imatch"},   {NDD_METHOD_COSINE, "cosine"},
};

int ndd_method_parse(const char *name, ndd_method_t *m)
{
    if (!name || !m)
        return NDD_ERR_INVAL;
    for (size_t i = 0; i < sizeof base_names / sizeof base_names[0]; i++)
        if (strcasecmp(name, base_names[i].name) == 0) {
            *m = base_names[i].m;
            return NDD_OK;
        }
    return NDD_ERR_INVAL;
}

const char *ndd_method_name(ndd_method_t m)
{
    for (size_t i = 0; i < sizeof base_names / sizeof base_names[0]; i++)
        if (base_names[i].m == m)
            return base_names[i].name;
    return "?";
}

unsigned ndd_method_df_kinds(ndd_method_t m)
{
    switch (m) {
    case NDD_METHOD_SIMHASH:
    case NDD_METHOD_IMATCH:
    case NDD_METHOD_COSINE:
        return 1u << NDD_DF_WORDS;
    case NDD_METHOD_QGRAM:
        return 1u << NDD_DF_QGRAMS;
    case NDD_METHOD_SPOTSIGS:
        return 1u << NDD_DF_SPOTSIGS;
    default:
        return 0;
    }
}

int ndd_method_needs_df(ndd_method_t m)
{
    return m == NDD_METHOD_SIMHASH || m == NDD_METHOD_IMATCH || m == NDD_METHOD_COSINE;
}

ndd_method_t ndd_method_default_verifier(ndd_method_t candidates)
{
    return candidates;
}

void ndd_method_params_default(ndd_method_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->simhash_k = 3;
    p->simhash_blocks = 5;
    p->shingle = 3;
    p->bands = 20;
    p->rows = 5;
    p->jaccard = 0.5;
    p->spot_chain = 3;
    p->spot_distance = 2;
    p->spot_tau = 0.44;
    p->q = 4;
    p->qgram_threshold = 0.8;
    p->imatch_lo = 0.4;
    p->imatch_hi = 0.75;
    p->cosine = 0.95;
    p->seed = 0;
}

static uint64_t binom(unsigned n, unsigned k)
{
    uint64_t r = 1;
    if (k > n)
        return 0;
    if (k > n - k)
        k = n - k;
    for (unsigned i = 1; i <= k; i++) {
        r = r * (n - k + i) / i; /* exact: r * (n-k+i) is C(n-k+i, i) * i */
        if (r > (uint64_t)1 << 40)
            return r;
    }
    return r;
}

size_t ndd_simhash_nkeys(const ndd_method_params_t *p)
{
    uint64_t b;
    if (!p || p->simhash_k >= p->simhash_blocks || p->simhash_blocks > 64)
        return 0;
    b = binom(p->simhash_blocks, p->simhash_k);
    return b > BASE_SIMHASH_MAX_KEYS ? 0 : (size_t)b;
}

static int in01(double x, int zero_ok)
{
    return (zero_ok ? x >= 0.0 : x > 0.0) && x <= 1.0;
}

int ndd_method_params_check(const ndd_method_params_t *p)
{
    if (!p)
        return NDD_ERR_INVAL;
    if (ndd_simhash_nkeys(p) == 0)
        return NDD_ERR_INVAL;
    if (p->shingle < 1 || p->shingle > 16)
        return NDD_ERR_INVAL;
    if (p->bands < 1 || p->rows < 1 || p->rows > BASE_MINHASH_MAX || p->bands > BASE_MINHASH_MAX ||
        p->bands * p->rows > BASE_MINHASH_MAX || !in01(p->jaccard, 1))
        return NDD_ERR_INVAL;
    if (p->spot_chain < 1 || p->spot_chain > 16 || p->spot_distance < 1 || p->spot_distance > 16 ||
        !in01(p->spot_tau, 0))
        return NDD_ERR_INVAL;
    if (p->q < 1 || p->q > 32 || !in01(p->qgram_threshold, 0))
        return NDD_ERR_INVAL;
    if (!in01(p->imatch_lo, 1) || !in01(p->imatch_hi, 1) || p->imatch_lo > p->imatch_hi)
        return NDD_ERR_INVAL;
    if (!in01(p->cosine, 1))
        return NDD_ERR_INVAL;
    return NDD_OK;
}

static int parse_unsigned(const char *v, unsigned *out)
{
    char *end;
    unsigned long x;
    if (!v || !*v || *v == '-')
        return NDD_ERR_INVAL;
    errno = 0;
    x = strtoul(v, &end, 10);
    if (errno || *end || x > 0xFFFFFFFFUL)
        return NDD_ERR_INVAL;
    *out = (unsigned)x;
    return NDD_OK;
}

static int parse_double(const char *v, double *out)
{
    char *end;
    double x;
    if (!v || !*v)
        return NDD_ERR_INVAL;
    errno = 0;
    x = strtod(v, &end);
    if (errno || *end || !isfinite(x))
        return NDD_ERR_INVAL;
    *out = x;
    return NDD_OK;
}

int ndd_method_params_set(ndd_method_params_t *p, const char *name, const char *value)
{
    static const struct {
        const char *name;
        size_t off;
        char kind; /* u unsigned, d double, s uint64 seed */
    } f[] = {
        {"simhash_k", offsetof(ndd_method_params_t, simhash_k), 'u'},
        {"simhash_blocks", offsetof(ndd_method_params_t, simhash_blocks), 'u'},
        {"shingle", offsetof(ndd_method_params_t, shingle), 'u'},
        {"bands", offsetof(ndd_method_params_t, bands), 'u'},
        {"rows", offsetof(ndd_method_params_t, rows), 'u'},
        {"jaccard", offsetof(ndd_method_params_t, jaccard), 'd'},
        {"spot_chain", offsetof(ndd_method_params_t, spot_chain), 'u'},
        {"spot_distance", offsetof(ndd_method_params_t, spot_distance), 'u'},
        {"spot_tau", offsetof(ndd_method_params_t, spot_tau), 'd'},
        {"q", offsetof(ndd_method_params_t, q), 'u'},
        {"qgram_threshold", offsetof(ndd_method_params_t, qgram_threshold), 'd'},
        {"imatch_lo", offsetof(ndd_method_params_t, imatch_lo), 'd'},
        {"imatch_hi", offsetof(ndd_method_params_t, imatch_hi), 'd'},
        {"cosine", offsetof(ndd_method_params_t, cosine), 'd'},
        {"seed", offsetof(ndd_method_params_t, seed), 's'},
    };
    if (!p || !name || !value)
        return NDD_ERR_INVAL;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char *dst;
        if (strcmp(name, f[i].name) != 0)
            continue;
        dst = (char *)p + f[i].off;
        if (f[i].kind == 'u') {
            unsigned u;
            if (parse_unsigned(value, &u))
                return NDD_ERR_INVAL;
            memcpy(dst, &u, sizeof u);
        } else if (f[i].kind == 'd') {
            double d;
            if (parse_double(value, &d))
                return NDD_ERR_INVAL;
            memcpy(dst, &d, sizeof d);
        } else {
            char *end;
            unsigned long long s;
            if (!*value || *value == '-')
                return NDD_ERR_INVAL;
            errno = 0;
            s = strtoull(value, &end, 0);
            if (errno || *end)
                return NDD_ERR_INVAL;
            uint64_t s64 = (uint64_t)s;
            memcpy(dst, &s64, sizeof s64);
        }
        return NDD_OK;
    }
    return NDD_ERR_INVAL;
}

/* ---- context ---- */

int ndd_method_ctx_create(ndd_method_ctx_t **out, const ndd_method_params_t *p, const ndd_df_t *df)
{
    ndd_method_ctx_t *c;
    int rc;
    if (!out)
        return NDD_ERR_INVAL;
    *out = NULL;
    c = calloc(1, sizeof *c);
    if (!c)
        return NDD_ERR_NOMEM;
    if (p)
        c->p = *p;
    else
        ndd_method_params_default(&c->p);
    if ((rc = ndd_method_params_check(&c->p)))
        goto out;
    if ((rc = base_words_init(&c->words)))
        goto out;
    if (df && (rc = ndd_method_ctx_add_df(c, df)))
        goto out;
    c->mh = malloc(BASE_MINHASH_MAX * sizeof *c->mh);
    if (!c->mh) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    *out = c;
    return NDD_OK;
out:
    ndd_method_ctx_free(c);
    return rc;
}

void ndd_method_ctx_free(ndd_method_ctx_t *c)
{
    if (!c)
        return;
    base_words_free(&c->words);
    base_tok_free(&c->tok);
    for (int i = 0; i < 2; i++) {
        free(c->slot[i].h);
        free(c->slot[i].f);
        free(c->slot[i].e);
    }
    free(c->tmp);
    free(c->hw);
    free(c->pos);
    free(c->wd);
    free(c->terms);
    free(c->rk);
    ndd_buf_free(&c->sbuf);
    free(c->keys);
    free(c->mh);
    base_parts_free(&c->parts_spot);
    base_parts_free(&c->parts_q);
    free(c);
}

int ndd_method_ctx_add_df(ndd_method_ctx_t *c, const ndd_df_t *df)
{
    const ndd_method_params_t *dp;
    if (!c || !df)
        return NDD_ERR_INVAL;
    dp = base_df_params(df);
    switch (ndd_df_kind(df)) {
    case NDD_DF_WORDS:
        c->df = df;
        return NDD_OK;
    case NDD_DF_QGRAMS:
        if (dp->q != c->p.q)
            return NDD_ERR_INVAL;
        c->df_q = df;
        return NDD_OK;
    case NDD_DF_SPOTSIGS:
        if (dp->spot_chain != c->p.spot_chain || dp->spot_distance != c->p.spot_distance)
            return NDD_ERR_INVAL;
        c->df_spot = df;
        return NDD_OK;
    }
    return NDD_ERR_INVAL;
}

const ndd_method_params_t *ndd_method_ctx_params(const ndd_method_ctx_t *c)
{
    return c ? &c->p : NULL;
}

/* ---- keys ---- */

static int keys_finish(ndd_method_ctx_t *c, const uint64_t **keys, size_t *nkeys)
{
    base_sort_u64(c->keys, c->nkeys);
    c->nkeys = base_unique_u64(c->keys, c->nkeys);
    *keys = c->keys;
    *nkeys = c->nkeys;
    return NDD_OK;
}

int ndd_method_keys(ndd_method_ctx_t *c, ndd_method_t m, const char *text, size_t n,
                    const uint64_t **keys, size_t *nkeys)
{
    int rc = NDD_OK;
    if (!c || !keys || !nkeys || (n && !text))
        return NDD_ERR_INVAL;
    *keys = NULL;
    *nkeys = 0;
    c->nkeys = 0;
    if (ndd_method_needs_df(m) && !c->df)
        return NDD_ERR_INVAL;
    switch (m) {
    case NDD_METHOD_SIMHASH: {
        uint64_t fp;
        int has;
        size_t nk = ndd_simhash_nkeys(&c->p);
        if ((rc = base_simhash_fp(c, text, n, &fp, &has)))
            return rc;
        if (!has)
            break;
        if ((rc = base_grow((void **)&c->keys, &c->keycap, nk, sizeof *c->keys)))
            return rc;
        if ((rc = ndd_simhash_fp_keys(&c->p, fp, c->keys, c->keycap, &c->nkeys)))
            return rc;
        break;
    }
    case NDD_METHOD_MINHASH: {
        base_slot_t *s = &c->slot[0];
        unsigned b = c->p.bands, r = c->p.rows;
        if ((rc = base_shingle_set(c, s, text, n)))
            return rc;
        if (s->n == 0)
            break;
        ndd_minhash_of_set(&c->p, s->h, s->n, c->mh);
        if ((rc = base_grow((void **)&c->keys, &c->keycap, b, sizeof *c->keys)))
            return rc;
        for (unsigned i = 0; i < b; i++)
            c->keys[c->nkeys++] = XXH3_64bits_withSeed(c->mh + (size_t)i * r, (size_t)r * sizeof *c->mh, i + 1);
        break;
    }
    case NDD_METHOD_SPOTSIGS: {
        base_slot_t *s = &c->slot[0];
        if ((rc = base_spot_vec(c, s, text, n, NULL)))
            return rc;
        return ndd_spotsigs_vec_keys(c, s->e, s->n, keys, nkeys);
    }
    case NDD_METHOD_QGRAM: {
        base_slot_t *s = &c->slot[0];
        if ((rc = base_qgram_set(c, s, text, n)))
            return rc;
        return ndd_qgram_set_keys(c, s->h, s->n, keys, nkeys);
    }
    case NDD_METHOD_IMATCH: {
        unsigned char md[20];
        size_t nt;
        uint64_t k;
        if ((rc = base_imatch(c, text, n, md, &nt)))
            return rc;
        if (nt == 0)
            break;
        if ((rc = base_grow((void **)&c->keys, &c->keycap, 1, sizeof *c->keys)))
            return rc;
        memcpy(&k, md, sizeof k);
        c->keys[c->nkeys++] = k;
        break;
    }
    default:
        return NDD_ERR_INVAL;
    }
    return keys_finish(c, keys, nkeys);
}

/* ---- compare ---- */

int ndd_method_compare(ndd_method_ctx_t *c, ndd_method_t v, const char *a, size_t na,
                       const char *b, size_t nb, double *score, int *duplicate)
{
    int rc = NDD_OK;
    double sc = 0.0;
    int dup = 0;
    if (!c || !score || !duplicate || (na && !a) || (nb && !b))
        return NDD_ERR_INVAL;
    if (ndd_method_needs_df(v) && !c->df)
        return NDD_ERR_INVAL;
    switch (v) {
    case NDD_METHOD_SIMHASH: {
        uint64_t fa, fb;
        int ha, hb;
        if ((rc = base_simhash_fp(c, a, na, &fa, &ha)) || (rc = base_simhash_fp(c, b, nb, &fb, &hb)))
            return rc;
        if (ha && hb) {
            int ham = (int)ndd_popcount64(fa ^ fb);
            sc = 64 - ham;
            dup = ham <= (int)c->p.simhash_k;
        }
        break;
    }
    case NDD_METHOD_MINHASH: {
        base_slot_t *sa = &c->slot[0], *sb = &c->slot[1];
        uint64_t inter = 0, uni;
        size_t i = 0, j = 0;
        if ((rc = base_shingle_set(c, sa, a, na)) || (rc = base_shingle_set(c, sb, b, nb)))
            return rc;
        while (i < sa->n && j < sb->n) {
            if (sa->h[i] < sb->h[j])
                i++;
            else if (sa->h[i] > sb->h[j])
                j++;
            else {
                inter++;
                i++;
                j++;
            }
        }
        uni = sa->n + sb->n - inter;
        if (sa->n && sb->n) {
            sc = (double)inter / (double)uni;
            dup = ndd_baselines_ratio_ge(inter, uni, c->p.jaccard);
        }
        break;
    }
    case NDD_METHOD_SPOTSIGS: {
        base_slot_t *sa = &c->slot[0], *sb = &c->slot[1];
        uint64_t num, den;
        if ((rc = base_spot_vec(c, sa, a, na, NULL)) || (rc = base_spot_vec(c, sb, b, nb, NULL)))
            return rc;
        if (sa->n && sb->n) {
            ndd_spotsigs_jaccard(sa->e, sa->n, sb->e, sb->n, &num, &den);
            sc = den ? (double)num / (double)den : 0.0;
            dup = ndd_baselines_ratio_ge(num, den, c->p.spot_tau);
        }
        break;
    }
    case NDD_METHOD_QGRAM: {
        base_slot_t *sa = &c->slot[0], *sb = &c->slot[1];
        uint64_t inter;
        if ((rc = base_qgram_set(c, sa, a, na)) || (rc = base_qgram_set(c, sb, b, nb)))
            return rc;
        if (sa->n && sb->n) {
            sc = ndd_qgram_docq(sa->h, sa->n, sb->h, sb->n, &inter);
            dup = ndd_baselines_ratio_ge(inter, sa->n > sb->n ? sa->n : sb->n, c->p.qgram_threshold);
        }
        break;
    }
    case NDD_METHOD_IMATCH: {
        unsigned char ma[20], mb[20];
        size_t ta, tb;
        if ((rc = base_imatch(c, a, na, ma, &ta)) || (rc = base_imatch(c, b, nb, mb, &tb)))
            return rc;
        dup = ta && tb && memcmp(ma, mb, sizeof ma) == 0;
        sc = dup;
        break;
    }
    case NDD_METHOD_COSINE: {
        base_slot_t *sa = &c->slot[0], *sb = &c->slot[1];
        if ((rc = base_tf_vec(c, sa, a, na)) || (rc = base_tf_vec(c, sb, b, nb)))
            return rc;
        if (sa->n && sb->n) {
            sc = base_cosine(c, sa, sb);
            dup = sc >= c->p.cosine;
        }
        break;
    }
    default:
        return NDD_ERR_INVAL;
    }
    *score = sc;
    *duplicate = dup;
    return NDD_OK;
}

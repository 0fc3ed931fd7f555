/* base_df.c - count-min sketch of document frequencies (distinct words per
 * document), mergeable by integer sums so that the result does not depend on
 * how documents were spread over ranks. */
#include "base_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

struct ndd_df {
    ndd_df_kind_t kind;
    ndd_method_params_t p;
    ndd_method_ctx_t *fx; /* feature extractor of the q-gram and spot kinds */
    unsigned depth, log2w;
    size_t width;
    uint32_t *cnt;      /* depth x width */
    uint64_t ndocs;
    base_tok_t tok;     /* workspace of add_doc */
    uint64_t *u;        /* distinct word hashes of one document */
    size_t ucap;
};

int ndd_df_create_kind(ndd_df_t **out, ndd_df_kind_t kind, const ndd_method_params_t *p, unsigned depth,
                       unsigned log2_width)
{
    ndd_df_t *df;
    int rc;
    if (!out)
        return NDD_ERR_INVAL;
    *out = NULL;
    if (depth < 1 || depth > 16 || log2_width < 4 || log2_width > 28 ||
        (kind != NDD_DF_WORDS && kind != NDD_DF_QGRAMS && kind != NDD_DF_SPOTSIGS))
        return NDD_ERR_INVAL;
    df = calloc(1, sizeof *df);
    if (!df)
        return NDD_ERR_NOMEM;
    df->kind = kind;
    if (p)
        df->p = *p;
    else
        ndd_method_params_default(&df->p);
    if ((rc = ndd_method_params_check(&df->p)))
        goto out;
    df->depth = depth;
    df->log2w = log2_width;
    df->width = (size_t)1 << log2_width;
    df->cnt = calloc((size_t)depth * df->width, sizeof *df->cnt);
    if (!df->cnt) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    if (kind != NDD_DF_WORDS && (rc = ndd_method_ctx_create(&df->fx, &df->p, NULL)))
        goto out;
    *out = df;
    return NDD_OK;
out:
    ndd_df_free(df);
    return rc;
}

int ndd_df_create_sized(ndd_df_t **df, unsigned depth, unsigned log2_width)
{
    return ndd_df_create_kind(df, NDD_DF_WORDS, NULL, depth, log2_width);
}

int ndd_df_create(ndd_df_t **df)
{
    return ndd_df_create_sized(df, 4, 20);
}

ndd_df_kind_t ndd_df_kind(const ndd_df_t *df)
{
    return df ? df->kind : NDD_DF_WORDS;
}

const ndd_method_params_t *base_df_params(const ndd_df_t *df)
{
    return &df->p;
}

void ndd_df_free(ndd_df_t *df)
{
    if (!df)
        return;
    base_tok_free(&df->tok);
    ndd_method_ctx_free(df->fx);
    free(df->u);
    free(df->cnt);
    free(df);
}

void ndd_df_clear(ndd_df_t *df)
{
    if (!df)
        return;
    memset(df->cnt, 0, (size_t)df->depth * df->width * sizeof *df->cnt);
    df->ndocs = 0;
}

uint64_t ndd_df_term_hash(const char *word, size_t n)
{
    return XXH3_64bits(word, n);
}

/* Row r's column of a term: independent-looking functions of one 64-bit
 * term hash (a bijective mixer of hash + r * odd constant). */
static inline size_t df_col(const ndd_df_t *df, uint64_t h, unsigned r)
{
    return (size_t)(base_mix64(h + (uint64_t)(r + 1) * 0x9e3779b97f4a7c15ULL) >> (64 - df->log2w));
}

int ndd_df_add_doc(ndd_df_t *df, const char *text, size_t n)
{
    const uint64_t *u;
    size_t m;
    int rc;
    if (!df || (n && !text))
        return NDD_ERR_INVAL;
    if (df->kind == NDD_DF_WORDS) {
        if ((rc = base_tok_run(&df->tok, text, n)))
            return rc;
        if ((rc = base_grow((void **)&df->u, &df->ucap, df->tok.n + 1, sizeof *df->u)))
            return rc;
        if (df->tok.n)
            memcpy(df->u, df->tok.h, df->tok.n * sizeof *df->u);
        base_sort_u64(df->u, df->tok.n);
        m = base_unique_u64(df->u, df->tok.n);
        u = df->u;
    } else if (df->kind == NDD_DF_QGRAMS) {
        base_slot_t *s = &df->fx->slot[0];
        if ((rc = base_qgram_set(df->fx, s, text, n)))
            return rc;
        u = s->h; /* sorted unique */
        m = s->n;
    } else {
        base_slot_t *s = &df->fx->slot[0];
        if ((rc = base_spot_vec(df->fx, s, text, n, NULL)))
            return rc;
        if ((rc = base_grow((void **)&df->u, &df->ucap, s->n + 1, sizeof *df->u)))
            return rc;
        for (size_t i = 0; i < s->n; i++)
            df->u[i] = s->e[i].h;
        m = s->n;
        u = df->u;
    }
    for (size_t i = 0; i < m; i++)
        for (unsigned r = 0; r < df->depth; r++) {
            uint32_t *c = &df->cnt[(size_t)r * df->width + df_col(df, u[i], r)];
            if (*c != UINT32_MAX)
                (*c)++;
        }
    df->ndocs++;
    return NDD_OK;
}

uint32_t *ndd_df_counters(ndd_df_t *df, size_t *n)
{
    if (!df) {
        if (n)
            *n = 0;
        return NULL;
    }
    if (n)
        *n = (size_t)df->depth * df->width;
    return df->cnt;
}

uint64_t *ndd_df_ndocs(ndd_df_t *df)
{
    return df ? &df->ndocs : NULL;
}

uint32_t ndd_df_get(const ndd_df_t *df, uint64_t h)
{
    uint32_t best = UINT32_MAX;
    if (!df)
        return 0;
    for (unsigned r = 0; r < df->depth; r++) {
        uint32_t c = df->cnt[(size_t)r * df->width + df_col(df, h, r)];
        if (c < best)
            best = c;
    }
    return best;
}

uint64_t base_df_ndocs(const ndd_df_t *df)
{
    return df ? df->ndocs : 0;
}

static double df_clamped(const ndd_df_t *df, uint64_t h, double N)
{
    double d = (double)ndd_df_get(df, h);
    return d > N ? N : d;
}

double base_idf_smooth(const ndd_df_t *df, uint64_t h)
{
    double N = (double)df->ndocs;
    return 1.0 + log((1.0 + N) / (1.0 + df_clamped(df, h, N)));
}

double base_idf_norm(const ndd_df_t *df, uint64_t h)
{
    double N = (double)df->ndocs, d;
    if (df->ndocs < 2)
        return 1.0;
    d = df_clamped(df, h, N);
    if (d < 1.0)
        d = 1.0;
    return log(N / d) / log(N);
}

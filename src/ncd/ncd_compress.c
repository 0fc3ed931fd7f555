/* ncd_compress.c - C(s), C(x.y) and the clamped NCD with a reusable zstd
 * context. See ndd_ncd.h for the definitions. */
#include "ndd_ncd.h"

#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_c_literalCompressionMode */
#include <zstd.h>

struct ndd_ncd_ctx {
    ZSTD_CCtx *cctx;
    ndd_buf_t cat; /* reusable concatenation buffer */
    char *out;     /* reusable output buffer */
    size_t out_cap;
    size_t empty;  /* size of the frame of the empty input, subtracted from every size */
};

static int ncd_compress(ndd_ncd_ctx_t *c, const void *s, size_t n, size_t *csize);

int ndd_ncd_ctx_create(ndd_ncd_ctx_t **cp, int level) { return ndd_ncd_ctx_create_ex(cp, level, 0); }

int ndd_ncd_ctx_create_ex(ndd_ncd_ctx_t **cp, int level, unsigned flags)
{
    ndd_ncd_ctx_t *c = NULL;
    int rc = NDD_ERR_NOMEM;
    if (!cp)
        return NDD_ERR_INVAL;
    *cp = NULL;
    if (level == 0)
        level = NDD_NCD_DEFAULT_LEVEL;
    if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel())
        return NDD_ERR_INVAL;
    c = calloc(1, sizeof *c);
    if (!c)
        goto out;
    c->cctx = ZSTD_createCCtx();
    if (!c->cctx)
        goto out;
    rc = NDD_ERR_COMPRESS;
    /* smallest frame: no checksum, no content size, no dictionary id, so that
     * the constant header weighs as little as possible in C(x). */
    if (ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_checksumFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_contentSizeFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_dictIDFlag, 0)))
        goto out;
    /* literals stored raw (no Huffman): zstd then behaves like the LZ-only
     * compressors of the paper (Snappy, LZ4). With Huffman literals, any two
     * short English strings compress ~15% better together than apart (a
     * shared entropy table, not shared content), which pulls unrelated short
     * signatures below tau; see docs/signcd.md. */
    if (!(flags & NDD_NCD_HUFFMAN_LITERALS) &&
        ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_literalCompressionMode, ZSTD_lcm_uncompressed)))
        goto out;
    /* the frame of the empty input (header + an empty block) carries no
     * information: C(s) = |zstd(s)| - |zstd("")| so that C("") = 0 as for a
     * "normal" compressor (paper 000, Definition 1). */
    c->empty = 0;
    if ((rc = ncd_compress(c, "", 0, &c->empty)))
        goto out;
    *cp = c;
    c = NULL;
    rc = NDD_OK;
out:
    ndd_ncd_ctx_free(c);
    return rc;
}

void ndd_ncd_ctx_free(ndd_ncd_ctx_t *c)
{
    if (!c)
        return;
    ZSTD_freeCCtx(c->cctx);
    ndd_buf_free(&c->cat);
    free(c->out);
    free(c);
}

static int ncd_compress(ndd_ncd_ctx_t *c, const void *s, size_t n, size_t *csize)
{
    size_t bound = ZSTD_compressBound(n);
    if (bound > c->out_cap) {
        size_t cap = c->out_cap ? c->out_cap : 4096;
        while (cap < bound)
            cap *= 2;
        char *p = realloc(c->out, cap);
        if (!p)
            return NDD_ERR_NOMEM;
        c->out = p;
        c->out_cap = cap;
    }
    size_t r = ZSTD_compress2(c->cctx, c->out, c->out_cap, n ? s : "", n);
    if (ZSTD_isError(r) || r < c->empty)
        return NDD_ERR_COMPRESS;
    *csize = r - c->empty;
    return NDD_OK;
}

int ndd_ncd_csize(ndd_ncd_ctx_t *c, const char *s, size_t n, size_t *csize)
{
    if (!c || !csize || (!s && n))
        return NDD_ERR_INVAL;
    return ncd_compress(c, s, n, csize);
}

double ndd_ncd_value(size_t cx, size_t cy, size_t cxy)
{
    size_t lo = cx < cy ? cx : cy, hi = cx < cy ? cy : cx;
    if (hi == 0)
        return 0.0;
    if (cxy < hi)
        cxy = hi;
    double v = (double)(cxy - lo) / (double)hi;
    return v > 1.0 ? 1.0 : v;
}

/* 1 when (cx, x) sorts before or equal to (cy, y): the canonical first part. */
static int ncd_first(const char *x, size_t nx, size_t cx, const char *y, size_t ny, size_t cy)
{
    if (cx != cy)
        return cx < cy;
    size_t m = nx < ny ? nx : ny;
    int d = m ? memcmp(x, y, m) : 0;
    if (d)
        return d < 0;
    return nx <= ny;
}

int ndd_ncd_pair(ndd_ncd_ctx_t *c, const char *x, size_t nx, size_t cx,
                 const char *y, size_t ny, size_t cy, double *ncd, size_t *cxy)
{
    int rc;
    size_t r = 0;
    if (!c || !ncd || (!x && nx) || (!y && ny))
        return NDD_ERR_INVAL;
    if (!ncd_first(x, nx, cx, y, ny, cy)) {
        const char *ts = x;
        size_t tn = nx, tc = cx;
        x = y, nx = ny, cx = cy;
        y = ts, ny = tn, cy = tc;
    }
    ndd_buf_clear(&c->cat);
    if ((rc = ndd_buf_append(&c->cat, x, nx)) || (rc = ndd_buf_append(&c->cat, y, ny)))
        return rc;
    if ((rc = ncd_compress(c, c->cat.data, c->cat.len, &r)))
        return rc;
    *ncd = ndd_ncd_value(cx, cy, r);
    if (cxy)
        *cxy = r;
    return NDD_OK;
}

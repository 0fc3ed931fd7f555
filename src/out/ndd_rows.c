/* ndd_rows.c - see ndd_rows.h */
#include "ndd_rows.h"

#include <stdio.h>
#include <string.h>

#include "ndd_wire.h"


static int put_score(ndd_buf_t *b, double v)
{
    char num[400]; /* "%.6f" of the largest double: 316 bytes */
    size_t n = ndd_fmt_f6(num, v); /* without printf's cost where it can (scores: 0 .. 1) */
    if (!n) {
        int k = snprintf(num, sizeof num, "%.6f", v);
        n = k > 0 && (size_t)k < sizeof num ? (size_t)k : 0;
    }
    return ndd_buf_append(b, num, n);
}

int ndd_rows_fmt_pair(ndd_buf_t *line, ndd_cols_t cols, const char *ida, size_t idalen, const char *idb,
                      size_t idblen, const char *vname, const ndd_vres_t *v)
{
    char num[32];
    int rc;
    ndd_buf_clear(line);
    NDD_TRY(ndd_tsv_append_field(line, ida, idalen));
    NDD_TRY(ndd_buf_putc(line, '\t'));
    NDD_TRY(ndd_tsv_append_field(line, idb, idblen));
    NDD_TRY(ndd_buf_putc(line, '\t'));
    NDD_TRY(ndd_buf_puts(line, vname));
    NDD_TRY(ndd_buf_putc(line, '\t'));
    if (cols == NDD_COLS_TLCS) {
        NDD_TRY(put_score(line, v->resemblance));
        NDD_TRY(ndd_buf_putc(line, '\t'));
        NDD_TRY(put_score(line, v->containment));
        NDD_TRY(ndd_buf_puts(line, "\t-\t"));
    } else if (cols == NDD_COLS_SIGNCD) {
        NDD_TRY(ndd_buf_puts(line, "-\t-\t"));
        NDD_TRY(put_score(line, v->ncd));
        NDD_TRY(ndd_buf_putc(line, '\t'));
    } else {
        NDD_TRY(ndd_buf_puts(line, "-\t-\t-\t"));
    }
    size_t nl = ndd_fmt_u64(num, v->tlcs);
    num[nl++] = '\t';
    NDD_TRY(ndd_buf_append(line, num, nl));
    NDD_TRY(put_score(line, v->score));
out:
    return rc;
}

int ndd_rows_fmt_urls(ndd_buf_t *line, const char *ua, size_t na, const char *ub, size_t nb)
{
    int rc;
    NDD_TRY(ndd_buf_putc(line, '\t'));
    NDD_TRY(ndd_tsv_append_field(line, ua, na));
    NDD_TRY(ndd_buf_putc(line, '\t'));
    NDD_TRY(ndd_tsv_append_field(line, ub, nb));
    NDD_TRY(ndd_buf_putc(line, '\n'));
out:
    return rc;
}

int ndd_rows_fmt_cluster(ndd_buf_t *line, const char *id, size_t idlen, const char *cluster, size_t clen, int kept,
                         const char *url, size_t urllen)
{
    int rc;
    ndd_buf_clear(line);
    NDD_TRY(ndd_tsv_append_field(line, id, idlen));
    NDD_TRY(ndd_buf_putc(line, '\t'));
    NDD_TRY(ndd_tsv_append_field(line, cluster, clen));
    NDD_TRY(ndd_buf_puts(line, kept ? "\t1\t" : "\t0\t"));
    NDD_TRY(ndd_tsv_append_field(line, url, urllen));
    NDD_TRY(ndd_buf_putc(line, '\n'));
out:
    return rc;
}

int ndd_rows_fmt_reject(ndd_buf_t *b, const char *file, uint64_t ordinal, uint64_t offset, const char *reason,
                        const char *url, const char *ctype)
{
    char num[64];
    int rc;
    NDD_TRY(ndd_tsv_append_field(b, file, strlen(file)));
    if (ordinal == UINT64_MAX)
        snprintf(num, sizeof num, "\t-\t%llu\t", (unsigned long long)offset);
    else
        snprintf(num, sizeof num, "\t%llu\t%llu\t", (unsigned long long)ordinal, (unsigned long long)offset);
    NDD_TRY(ndd_buf_puts(b, num));
    NDD_TRY(ndd_tsv_append_field(b, reason, strlen(reason)));
    NDD_TRY(ndd_buf_putc(b, '\t'));
    NDD_TRY(ndd_tsv_append_field(b, url && *url ? url : "-", url && *url ? strlen(url) : 1));
    NDD_TRY(ndd_buf_putc(b, '\t'));
    NDD_TRY(ndd_tsv_append_field(b, ctype && *ctype ? ctype : "-", ctype && *ctype ? strlen(ctype) : 1));
    NDD_TRY(ndd_buf_putc(b, '\n'));
out:
    return rc;
}

int ndd_row_put(ndd_buf_t *b, uint64_t k1, uint64_t k2, const char *line, size_t len)
{
    char head[NDD_ROW_HEAD];
    if (len > UINT32_MAX)
        return NDD_ERR_LIMIT;
    ndd_le64_store(head, k1);
    ndd_le64_store(head + 8, k2);
    ndd_le32_store(head + 16, (uint32_t)len);
    int rc = ndd_buf_reserve(b, NDD_ROW_HEAD + len);
    if (!rc)
        rc = ndd_buf_append(b, head, NDD_ROW_HEAD);
    if (!rc)
        rc = ndd_buf_append(b, line, len);
    return rc;
}

/* The record at *p (before end): its keys and line; NDD_ERR_FORMAT when it
 * is cut short. Advances *p past it. */
static int next_row(const char **p, const char *end, ndd_row_t *w)
{
    if ((size_t)(end - *p) < NDD_ROW_HEAD)
        return NDD_ERR_FORMAT;
    w->k1 = ndd_le64_load(*p);
    w->k2 = ndd_le64_load(*p + 8);
    w->len = ndd_le32_load(*p + 16);
    if ((size_t)(end - *p) - NDD_ROW_HEAD < w->len)
        return NDD_ERR_FORMAT;
    w->line = *p + NDD_ROW_HEAD;
    *p += NDD_ROW_HEAD + (size_t)w->len;
    return NDD_OK;
}

int ndd_rows_parse(const char *p, size_t n, ndd_row_t **v, size_t *nv, size_t *cap)
{
    const char *end = p ? p + n : p;
    int rc = NDD_OK;
    while (p && p < end) {
        ndd_row_t w;
        NDD_TRY(next_row(&p, end, &w));
        NDD_TRY(ndd_array_grow((void **)v, cap, *nv + 1, sizeof **v));
        (*v)[(*nv)++] = w;
    }
out:
    return rc;
}

static int cmp_row(const void *a, const void *b)
{
    const ndd_row_t *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

#define ROW_K1(x) ((x).k1)
#define ROW_K2(x) ((x).k2)

/* A stable LSD radix sort by k2, then by k1 (16-bit digits, as many as the
 * largest key needs: the keys are document numbers); small arrays, or no
 * scratch memory, take qsort. */
void ndd_rows_sort(ndd_row_t *v, size_t n)
{
    uint64_t m1 = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) {
        m1 |= v[i].k1;
        m2 |= v[i].k2;
    }
    size_t *count;
    ndd_row_t *tmp = ndd_radix_scratch(n >= 1024, n, sizeof *tmp, &count);
    if (!tmp) {
        ndd_qsort(v, n, sizeof *v, cmp_row);
        return;
    }
    ndd_row_t *src = v, *dst = tmp;
    for (unsigned shift = 0; shift < ndd_bits_of(m2); shift += 16)
        NDD_RADIX_PASS(ndd_row_t, src, dst, n, count, shift, ROW_K2);
    for (unsigned shift = 0; shift < ndd_bits_of(m1); shift += 16)
        NDD_RADIX_PASS(ndd_row_t, src, dst, n, count, shift, ROW_K1);
    ndd_radix_done(v, src, n, sizeof *v, tmp, count);
}

int ndd_rows_filter(ndd_buf_t *dst, const char *p, size_t n, uint64_t lo, uint64_t hi)
{
    const char *end = p ? p + n : p;
    int rc = NDD_OK;
    while (p && p < end) {
        const char *at = p;
        ndd_row_t w;
        NDD_TRY(next_row(&p, end, &w));
        if (w.k1 >= lo && w.k1 < hi)
            NDD_TRY(ndd_buf_append(dst, at, (size_t)(p - at)));
    }
out:
    return rc;
}

/* ndd_counters.c - see ndd_counters.h */
#include "ndd_counters.h"

#include <stddef.h>
#include <string.h>
#include <xxhash.h>

#include "ndd_wire.h"

const ndd_counter_info_t ndd_counter_table[] = {
#define NDD_X_INFO(f, s, k, st) {#f, s, k, st},
    NDD_COUNTERS(NDD_X_INFO)
#undef NDD_X_INFO
};
const size_t ndd_counter_table_n = sizeof ndd_counter_table / sizeof ndd_counter_table[0];

/* The struct is an array of uint64_t: the scalars in table order, then the
 * histogram. Checked here so that the value accessors below are sound. */
enum {
#define NDD_X_COUNT(f, s, k, st) +1
    NSCALARS = 0 NDD_COUNTERS(NDD_X_COUNT)
#undef NDD_X_COUNT
};
_Static_assert(offsetof(ndd_counters_t, hist) == NSCALARS * sizeof(uint64_t), "counters: padding in the scalars");
_Static_assert(sizeof(ndd_counters_t) == (NSCALARS + NDD_HIST_N) * sizeof(uint64_t), "counters: padding");

/* Value k of c (0 <= k < NDD_NCOUNTERS): a uint64_t member lies at every
 * multiple of 8 bytes (asserted above). */
static uint64_t *slot(ndd_counters_t *c, size_t k) { return (uint64_t *)(void *)((char *)c + k * sizeof(uint64_t)); }
static uint64_t value(const ndd_counters_t *c, size_t k)
{
    uint64_t v;
    memcpy(&v, (const char *)c + k * sizeof(uint64_t), sizeof v);
    return v;
}

void ndd_counters_add(ndd_counters_t *a, const ndd_counters_t *b)
{
    for (size_t k = 0; k < NDD_NCOUNTERS; k++)
        *slot(a, k) += value(b, k);
}

void ndd_counters_keep_stage(ndd_counters_t *c, int st)
{
    for (size_t k = 0; k < ndd_counter_table_n; k++)
        if (ndd_counter_table[k].stage != st)
            *slot(c, k) = 0;
    if (st != NDD_CST_REDUCE)
        memset(c->hist, 0, sizeof c->hist);
}

/* Each field name with its NUL hashed in turn (XXH64, the previous hash as
 * the seed), then "hist" and NDD_HIST_N: a checkpoint written by a build with
 * other counters (added, removed, renamed or reordered) does not match. */
static uint64_t schema_hash(void)
{
    uint64_t h = 0;
    for (size_t k = 0; k < ndd_counter_table_n; k++)
        h = XXH64(ndd_counter_table[k].field, strlen(ndd_counter_table[k].field) + 1, h);
    char tail[12] = "hist";
    ndd_le32_store(tail + 8, NDD_HIST_N);
    return XXH64(tail, sizeof tail, h);
}

int ndd_counters_pack(const ndd_counters_t *c, ndd_buf_t *out)
{
    int rc;
    NDD_TRY(ndd_buf_reserve(out, 12 + NDD_NCOUNTERS * 8));
    NDD_TRY(ndd_put32(out, (uint32_t)NDD_NCOUNTERS));
    NDD_TRY(ndd_put64(out, schema_hash()));
    for (size_t k = 0; k < NDD_NCOUNTERS; k++)
        NDD_TRY(ndd_put64(out, value(c, k)));
out:
    return rc;
}

int ndd_counters_unpack(ndd_counters_t *c, const void *p, size_t n, size_t *used)
{
    ndd_cur_t cur = {p, (const char *)p + n, 0};
    uint32_t count = ndd_get32(&cur);
    uint64_t hash = ndd_get64(&cur);
    if (cur.bad)
        return NDD_ERR_FORMAT;
    if (count != NDD_NCOUNTERS || hash != schema_hash())
        return NDD_ERR_VERSION;
    const char *v = ndd_getbytes(&cur, NDD_NCOUNTERS * 8);
    if (!v)
        return NDD_ERR_FORMAT;
    for (size_t k = 0; k < NDD_NCOUNTERS; k++)
        *slot(c, k) = ndd_le64_load(v + 8 * k);
    if (used)
        *used = (size_t)(cur.p - (const char *)p);
    return NDD_OK;
}

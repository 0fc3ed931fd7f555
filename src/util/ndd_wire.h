/* ndd_wire.h - fixed-width little-endian encoding of values that leave the
 * process (checkpoint files, records shuffled between ranks), and a bounds-
 * checked reading cursor. Local; header only. */
#ifndef NDD_WIRE_H
#define NDD_WIRE_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ndd_util.h"

static inline void ndd_le64_store(void *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, 8);
}
static inline void ndd_le32_store(void *p, uint32_t v)
{
    v = htole32(v);
    memcpy(p, &v, 4);
}
static inline uint64_t ndd_le64_load(const void *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return le64toh(v);
}
static inline uint32_t ndd_le32_load(const void *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return le32toh(v);
}
static inline int ndd_put64(ndd_buf_t *b, uint64_t v)
{
    char x[8];
    ndd_le64_store(x, v);
    return ndd_buf_append(b, x, 8);
}
static inline int ndd_put32(ndd_buf_t *b, uint32_t v)
{
    char x[4];
    ndd_le32_store(x, v);
    return ndd_buf_append(b, x, 4);
}
/* u32 length + bytes */
static inline int ndd_putstr(ndd_buf_t *b, const char *s, size_t n)
{
    int rc = n > UINT32_MAX ? NDD_ERR_LIMIT : ndd_put32(b, (uint32_t)n);
    return rc ? rc : ndd_buf_append(b, s, n);
}

/* Arrays of u64: appended / loaded as little-endian (a copy on LE hosts). */
static inline int ndd_put64s(ndd_buf_t *b, const uint64_t *v, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return ndd_buf_append(b, v, n * sizeof *v);
#else
    int rc = ndd_buf_reserve(b, n * 8);
    for (size_t i = 0; i < n && !rc; i++)
        rc = ndd_put64(b, v[i]);
    return rc;
#endif
}
static inline void ndd_load64s(uint64_t *dst, const void *src, size_t n)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n)
        memcpy(dst, src, n * sizeof *dst);
#else
    for (size_t i = 0; i < n; i++)
        dst[i] = ndd_le64_load((const char *)src + 8 * i);
#endif
}

/* Reading cursor: any read past the end sets bad and returns 0 / NULL. */
typedef struct ndd_cur {
    const char *p, *end;
    int bad;
} ndd_cur_t;

static inline uint64_t ndd_get64(ndd_cur_t *c)
{
    if (c->end - c->p < 8) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = ndd_le64_load(c->p);
    c->p += 8;
    return v;
}
static inline uint32_t ndd_get32(ndd_cur_t *c)
{
    if (c->end - c->p < 4) {
        c->bad = 1;
        return 0;
    }
    uint32_t v = ndd_le32_load(c->p);
    c->p += 4;
    return v;
}
static inline const char *ndd_getbytes(ndd_cur_t *c, size_t n)
{
    if ((size_t)(c->end - c->p) < n) {
        c->bad = 1;
        return NULL;
    }
    const char *s = c->p;
    c->p += n;
    return s;
}

#endif

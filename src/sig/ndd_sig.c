/* ndd_sig.c - see ndd_sig.h and docs/signatures.md.
 *
 * Per sentence: one MD5 (OpenSSL's low-level MD5(), see below), then for each
 * of the n rotations the rotated 128-bit value (two 64-bit words, big-endian
 * reading of the rotated bytes) and its residue mod m.
 *
 * Residues of all 16 rotations at once, without a division: byte i of the
 * digest sits at big-endian position (i - r) mod 16 of rotation r, so it
 * adds b * 256^e mod m with e = (15 - i + r) mod 16. The table row of byte
 * value b lists b * 256^e mod m for e = 0..15, twice (32 entries), so the
 * 16 contributions of byte i to rotations r = 0..15 are the 16 consecutive
 * entries starting at e = 15 - i: two unaligned 64-bit loads. Summing the
 * 16 byte positions lane-wise (SWAR: 8 lanes of 8 bits per word when
 * m <= 16, since 16 * 15 < 256; 4 lanes of 16 bits otherwise) gives every
 * rotation's residue sum, and one small table lookup reduces it mod m.
 * The lanes never carry into each other, so the result does not depend on
 * the byte order of the machine (words go through memcpy both ways).
 *
 * Each (rotation, class) slot keeps its k smallest distinct values in a tiny
 * insertion-sorted array that lives in the context (no allocation per
 * document). The projection sums +-w over the kept values in ascending order
 * (double precision, from 0.0), bit set when the sum is > 0. */

/* MD5() is deprecated in OpenSSL 3 in favour of EVP. For sentence-sized
 * inputs (20-200 bytes) the one-shot low-level call was measured 10-50 %
 * faster than a reused EVP_MD_CTX with a pre-fetched EVP_MD (bench-sig
 * prints both), so this file keeps MD5() and silences the warning here only. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/md5.h>

#include "ndd_sig.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void ndd_sig_params_default(ndd_sig_params_t *p)
{
    p->m = NDD_SIG_DEFAULT_M;
    p->n = NDD_SIG_DEFAULT_N;
    p->k = NDD_SIG_DEFAULT_K;
    p->min_sentence = NDD_TEXT_DEFAULT_MIN_SENTENCE;
}

int ndd_sig_params_check(const ndd_sig_params_t *p)
{
    if (!p || p->m < 1 || p->n < 1 || p->n > 16)
        return NDD_ERR_INVAL;
    if (p->m > NDD_SIG_MAX || (size_t)p->m * p->n > NDD_SIG_MAX)
        return NDD_ERR_INVAL;
    if (p->k > NDD_SIG_K_MAX || p->min_sentence < 1)
        return NDD_ERR_INVAL;
    return NDD_OK;
}

/* The key hashes the slot (2 bytes, little-endian) and the 16 bits bytes.
 * On a little-endian machine those are the struct's own 18 bytes (slot at
 * 0, bits at 2: checked below), hashed where they lie: a copy built byte by
 * byte stalled XXH3's wide loads on their stores (1 % of ndd run). */
_Static_assert(offsetof(ndd_sig_t, slot) == 0 && offsetof(ndd_sig_t, bits) == 2, "ndd_sig_t's layout");
uint64_t ndd_sig_key(const ndd_sig_t *s)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return XXH3_64bits(s, 18);
#else
    uint8_t b[18];
    b[0] = (uint8_t)(s->slot & 0xff);
    b[1] = (uint8_t)(s->slot >> 8);
    memcpy(b + 2, s->bits, 16);
    return XXH3_64bits(b, sizeof b);
#endif
}

void ndd_md5(const void *data, size_t n, uint8_t out[16])
{
    MD5((const unsigned char *)data, n, out);
}

void ndd_ring_rotate(const uint8_t in[16], unsigned r, uint8_t out[16])
{
    for (unsigned j = 0; j < 16; j++)
        out[j] = in[(j + r) % 16];
}

/* One kept fingerprint: the rotated value as two big-endian words and the
 * index of its sentence (the weight lives in a per-document array). Empty
 * entries hold the sentinel hi = lo = UINT64_MAX (see slot_insert_small). */
#define SIG_WTAB 2048 /* sentence lengths whose weight is tabulated */

typedef struct sig_ent {
    uint64_t hi, lo;
    uint32_t idx;
} sig_ent_t;

struct ndd_sig_ctx {
    ndd_sig_params_t p;
    unsigned nslots;             /* m * n */
    uint8_t tab8[256 * 32];      /* m <= 16: [b][e] = b * 256^(e mod 16) mod m */
    uint16_t *tab16;             /* m > 16: the same in 16-bit lanes (256 * 32) */
    uint8_t tab_mod[16 * 256];   /* [s] = s mod m for sums of 16 entries */
    double wtab[SIG_WTAB];       /* [len] = 1 + ln(len) */
    sig_ent_t *ent;              /* nslots * kcap */
    uint32_t *cnt;               /* nslots */
    size_t kcap;                 /* entries per slot allocated (k, or grown for k = all) */
    double *w;                   /* per-sentence weights of the current document */
    uint8_t (*dig)[16];          /* per-sentence MD5 digests of the current document (wcap) */
    size_t wcap;
    ndd_span_t *spans;           /* reusable for ndd_sig_doc */
    size_t spans_cap;
};

int ndd_sig_ctx_create(ndd_sig_ctx_t **ctxp, const ndd_sig_params_t *p)
{
    int rc = NDD_ERR_NOMEM;
    ndd_sig_ctx_t *c = NULL;
    if (!ctxp)
        return NDD_ERR_INVAL;
    *ctxp = NULL;
    if (ndd_sig_params_check(p))
        return NDD_ERR_INVAL;
    c = calloc(1, sizeof *c);
    if (!c)
        goto out;
    c->p = *p;
    c->nslots = p->m * p->n;
    unsigned m = p->m;
    /* 256^e mod m for e = 0..15 */
    unsigned pw[16];
    pw[0] = 1 % m;
    for (int e = 1; e < 16; e++)
        pw[e] = (pw[e - 1] * 256u) % m;
    if (m > 16) {
        c->tab16 = malloc(256 * 32 * sizeof *c->tab16);
        if (!c->tab16)
            goto out;
    }
    for (unsigned b = 0; b < 256; b++)
        for (unsigned e = 0; e < 32; e++) {
            unsigned v = (b * pw[e & 15]) % m;
            if (m > 16)
                c->tab16[b * 32 + e] = (uint16_t)v;
            else
                c->tab8[b * 32 + e] = (uint8_t)v;
        }
    for (unsigned v = 0; v < 16 * 256; v++)
        c->tab_mod[v] = (uint8_t)(v % m);
    for (unsigned l = 0; l < SIG_WTAB; l++)
        c->wtab[l] = 1.0 + log((double)l);
    c->cnt = calloc(c->nslots, sizeof *c->cnt);
    if (!c->cnt)
        goto out;
    c->kcap = p->k ? p->k : 16;
    c->ent = malloc(c->nslots * c->kcap * sizeof *c->ent);
    c->wcap = 256;
    c->w = malloc(c->wcap * sizeof *c->w);
    c->dig = malloc(c->wcap * sizeof *c->dig);
    if (!c->ent || !c->w || !c->dig)
        goto out;
    *ctxp = c;
    c = NULL;
    rc = NDD_OK;
out:
    ndd_sig_ctx_free(c);
    return rc;
}

void ndd_sig_ctx_free(ndd_sig_ctx_t *c)
{
    if (!c)
        return;
    free(c->tab16);
    free(c->ent);
    free(c->cnt);
    free(c->w);
    free(c->dig);
    free(c->spans);
    free(c);
}

const ndd_sig_params_t *ndd_sig_ctx_params(const ndd_sig_ctx_t *ctx)
{
    return &ctx->p;
}

static inline uint64_t load_be64(const uint8_t *b)
{
    return ((uint64_t)b[0] << 56) | ((uint64_t)b[1] << 48) | ((uint64_t)b[2] << 40) |
           ((uint64_t)b[3] << 32) | ((uint64_t)b[4] << 24) | ((uint64_t)b[5] << 16) |
           ((uint64_t)b[6] << 8) | (uint64_t)b[7];
}

static inline void store_be64(uint8_t *b, uint64_t v)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    v = __builtin_bswap64(v);
    memcpy(b, &v, 8);
#else
    for (int i = 7; i >= 0; i--) {
        b[i] = (uint8_t)(v & 0xff);
        v >>= 8;
    }
#endif
}

#define SIG_ONES UINT64_MAX

static void slot_insert_any(sig_ent_t *e, uint32_t *c, size_t k, uint64_t hi, uint64_t lo,
                            uint32_t idx);

/* Keeps the K smallest distinct values of a slot, for small constant K
 * (inlined with K = 1..4). Whether a fingerprint enters a slot is a coin
 * toss the branch predictor cannot learn, so the common case has no branch
 * on the data: the order is decided by the high words alone and the shift
 * is done with masks. Entries at positions >= *cnt hold the sentinel (all
 * ones). When the high word equals one held (the same sentence twice, a
 * sentinel-valued high word, or a 2^-64 coincidence) the exact insertion
 * sort takes over; it reads only the *cnt real entries. */
static inline void slot_insert_small(sig_ent_t *e, uint32_t *cnt, const unsigned K, uint64_t hi,
                                     uint64_t lo, uint32_t idx)
{
    unsigned lt[4], eq = 0;
    for (unsigned j = 0; j < K; j++) {
        lt[j] = hi < e[j].hi;
        eq |= hi == e[j].hi;
    }
    if (__builtin_expect(eq, 0)) {
        slot_insert_any(e, cnt, K, hi, lo, idx);
        return;
    }
    const unsigned ins = lt[K - 1];
    for (unsigned j = K - 1; j > 0; j--) {
        const uint64_t mp = (uint64_t)0 - (uint64_t)(ins & lt[j - 1]);                /* shift from j-1 */
        const uint64_t mn = (uint64_t)0 - (uint64_t)(ins & lt[j] & (lt[j - 1] ^ 1u)); /* new here */
        const uint64_t mk = ~(mp | mn);
        e[j].hi = (e[j - 1].hi & mp) | (hi & mn) | (e[j].hi & mk);
        e[j].lo = (e[j - 1].lo & mp) | (lo & mn) | (e[j].lo & mk);
        e[j].idx = (uint32_t)((e[j - 1].idx & mp) | (idx & mn) | (e[j].idx & mk));
    }
    const uint64_t m0 = (uint64_t)0 - (uint64_t)(ins & lt[0]);
    e[0].hi = (hi & m0) | (e[0].hi & ~m0);
    e[0].lo = (lo & m0) | (e[0].lo & ~m0);
    e[0].idx = (uint32_t)((idx & m0) | (e[0].idx & ~m0));
    *cnt += ins & (*cnt < K);
}

/* The same for any k (k > 4, or every fingerprint): plain insertion sort. */
static void slot_insert_any(sig_ent_t *e, uint32_t *c, size_t k, uint64_t hi, uint64_t lo,
                            uint32_t idx)
{
    size_t cn = *c;
    if (cn == k) {
        const sig_ent_t *last = &e[k - 1];
        if (hi > last->hi || (hi == last->hi && lo >= last->lo))
            return; /* not smaller than the largest kept (or equal to it) */
    }
    size_t i = cn;
    while (i > 0 && (hi < e[i - 1].hi || (hi == e[i - 1].hi && lo < e[i - 1].lo)))
        i--;
    if (i > 0 && e[i - 1].hi == hi && e[i - 1].lo == lo)
        return; /* the same sentence again: fingerprints form a set */
    size_t end = cn < k ? cn : k - 1; /* last index that survives the shift */
    for (size_t j = end; j > i; j--)
        e[j] = e[j - 1];
    e[i].hi = hi;
    e[i].lo = lo;
    e[i].idx = idx;
    if (cn < k)
        *c = (uint32_t)(cn + 1);
}

/* Weighted +-w projection of the c entries (ascending order) of one slot:
 * per bit, acc = 0.0, then acc += (bit ? w : -w) for each entry in order;
 * the bit is set when acc > 0. */
static void project(const sig_ent_t *e, size_t c, const double *w, uint8_t bits[16])
{
    uint64_t hi = 0, lo = 0;
    if (c == 1) {
        hi = e[0].hi; /* w > 0: the signature is the fingerprint itself */
        lo = e[0].lo;
    } else if (c == 2) {
        /* both 1: w0 + w1 > 0; only one: 0.0 + w0 - w1 > 0 exactly when w0 > w1 */
        const double w0 = w[e[0].idx], w1 = w[e[1].idx];
        hi = e[0].hi & e[1].hi;
        lo = e[0].lo & e[1].lo;
        if (w0 > w1) {
            hi |= e[0].hi & ~e[1].hi;
            lo |= e[0].lo & ~e[1].lo;
        } else if (w1 > w0) {
            hi |= e[1].hi & ~e[0].hi;
            lo |= e[1].lo & ~e[0].lo;
        }
    } else if (c <= 4) {
        /* Bit-sliced: the sum at a bit position only depends on which
         * entries have a 1 there (a mask); each mask's sum is computed in
         * the same order as the plain loop below, so results are identical. */
        for (unsigned mask = 0; mask < (1u << c); mask++) {
            double acc = 0.0;
            for (size_t j = 0; j < c; j++)
                acc += ((mask >> j) & 1) ? w[e[j].idx] : -w[e[j].idx];
            if (!(acc > 0.0))
                continue;
            uint64_t th = ~(uint64_t)0, tl = ~(uint64_t)0;
            for (size_t j = 0; j < c; j++) {
                if ((mask >> j) & 1) {
                    th &= e[j].hi;
                    tl &= e[j].lo;
                } else {
                    th &= ~e[j].hi;
                    tl &= ~e[j].lo;
                }
            }
            hi |= th;
            lo |= tl;
        }
    } else {
        for (unsigned b = 0; b < 128; b++) {
            double acc = 0.0;
            for (size_t j = 0; j < c; j++) {
                uint64_t word = b < 64 ? e[j].hi : e[j].lo;
                acc += ((word >> (63 - (b & 63))) & 1) ? w[e[j].idx] : -w[e[j].idx];
            }
            if (acc > 0.0) {
                if (b < 64)
                    hi |= (uint64_t)1 << (63 - b);
                else
                    lo |= (uint64_t)1 << (63 - (b - 64));
            }
        }
    }
    store_be64(bits, hi);
    store_be64(bits + 8, lo);
}

/* Residues mod m of the n rotations of digest d (see the top of the file). */
static inline void sig_residues(const ndd_sig_ctx_t *c, const uint8_t d[16], unsigned nrot,
                                uint8_t rv[16])
{
    if (c->p.m <= 16) {
        uint64_t a0 = 0, a1 = 0, x;
        for (unsigned i = 0; i < 16; i++) {
            const uint8_t *t = c->tab8 + (size_t)d[i] * 32 + (15 - i);
            memcpy(&x, t, 8);
            a0 += x;
            memcpy(&x, t + 8, 8);
            a1 += x;
        }
        memcpy(rv, &a0, 8);
        memcpy(rv + 8, &a1, 8);
        for (unsigned r = 0; r < nrot; r++)
            rv[r] = c->tab_mod[rv[r]];
    } else {
        uint64_t a[4] = {0, 0, 0, 0}, x;
        uint16_t s16[16];
        for (unsigned i = 0; i < 16; i++) {
            const uint16_t *t = c->tab16 + (size_t)d[i] * 32 + (15 - i);
            for (unsigned q = 0; q < 4; q++) {
                memcpy(&x, t + 4 * q, 8);
                a[q] += x;
            }
        }
        memcpy(s16, a, sizeof s16);
        for (unsigned r = 0; r < nrot; r++)
            rv[r] = c->tab_mod[s16[r]];
    }
}

/* The per-sentence loop, specialised on K so slot_insert_small unrolls. */
#define SIG_SENTENCE_LOOP(INSERT)                                                          \
    for (size_t s = 0; s < nspans; s++) {                                                  \
        uint8_t rv[16];                                                                    \
        const uint8_t *d = ctx->dig[s];                                                    \
        const size_t len = spans[s].len;                                                   \
        w[s] = len < SIG_WTAB ? ctx->wtab[len] : 1.0 + log((double)len);                   \
        sig_residues(ctx, d, nrot, rv);                                                    \
        const uint64_t H = load_be64(d), L = load_be64(d + 8);                             \
        for (unsigned r = 0; r < nrot; r++) {                                              \
            const uint64_t a = r < 8 ? H : L, b = r < 8 ? L : H;                           \
            const unsigned sh = 8 * (r & 7);                                               \
            const uint64_t hi = sh ? (a << sh) | (b >> (64 - sh)) : a;                     \
            const uint64_t lo = sh ? (b << sh) | (a >> (64 - sh)) : b;                     \
            const size_t slot = (size_t)r * m + rv[r];                                     \
            INSERT;                                                                        \
        }                                                                                  \
    }

int ndd_sig_spans(ndd_sig_ctx_t *ctx, const char *text, const ndd_span_t *spans, size_t nspans,
                  ndd_sig_t *out, size_t *nout)
{
    if (!ctx || !out || !nout || (nspans && (!text || !spans)))
        return NDD_ERR_INVAL;
    *nout = 0;
    if (nspans >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    const unsigned m = ctx->p.m, nrot = ctx->p.n, nslots = ctx->nslots;
    size_t k = ctx->p.k;
    if (k == NDD_SIG_K_ALL) {
        /* every distinct fingerprint: the per-slot arrays must hold them all */
        k = nspans ? nspans : 1;
        if (k > ctx->kcap) {
            if (k > SIZE_MAX / sizeof(sig_ent_t) / nslots)
                return NDD_ERR_NOMEM;
            sig_ent_t *ne = realloc(ctx->ent, nslots * k * sizeof *ne);
            if (!ne)
                return NDD_ERR_NOMEM;
            ctx->ent = ne;
            ctx->kcap = k;
        }
    }
    if (nspans + 1 > ctx->wcap) {
        size_t nc = ctx->wcap;
        while (nc < nspans + 1)
            nc *= 2;
        double *nw = realloc(ctx->w, nc * sizeof *nw);
        if (!nw)
            return NDD_ERR_NOMEM;
        ctx->w = nw;
        uint8_t(*nd)[16] = realloc(ctx->dig, nc * sizeof *nd);
        if (!nd)
            return NDD_ERR_NOMEM;
        ctx->dig = nd;
        ctx->wcap = nc;
    }
    sig_ent_t *ent = ctx->ent;
    uint32_t *cnt = ctx->cnt;
    double *w = ctx->w;
    ndd_md5_spans(text, spans, nspans, ctx->dig); /* every sentence's digest first: 16 at a time */
    memset(cnt, 0, nslots * sizeof *cnt);
    /* Empty entries: the all-ones sentinel, and a sentence index whose weight
     * is 0 (w[nspans]) so that the k = 2 projection below needs no branch. */
    w[nspans] = 0.0;
    for (size_t i = 0, ne = (size_t)nslots * k; i < ne; i++) {
        ent[i].hi = ent[i].lo = SIG_ONES;
        ent[i].idx = (uint32_t)nspans;
    }

    switch (ctx->p.k) {
    case 1:
        SIG_SENTENCE_LOOP(slot_insert_small(ent + slot, cnt + slot, 1, hi, lo, (uint32_t)s))
        break;
    case 2:
        SIG_SENTENCE_LOOP(slot_insert_small(ent + slot * 2, cnt + slot, 2, hi, lo, (uint32_t)s))
        break;
    case 3:
        SIG_SENTENCE_LOOP(slot_insert_small(ent + slot * 3, cnt + slot, 3, hi, lo, (uint32_t)s))
        break;
    case 4:
        SIG_SENTENCE_LOOP(slot_insert_small(ent + slot * 4, cnt + slot, 4, hi, lo, (uint32_t)s))
        break;
    default:
        SIG_SENTENCE_LOOP(slot_insert_any(ent + slot * k, cnt + slot, k, hi, lo, (uint32_t)s))
        break;
    }

    /* Output in slot order; written unconditionally, kept when the slot got
     * a fingerprint (no branch on the data for k = 1, 2). */
    size_t no = 0;
    if (k == 1 || k == 2) {
        for (size_t slot = 0; slot < nslots; slot++) {
            const sig_ent_t *e = ent + slot * k;
            uint64_t hi = e[0].hi, lo = e[0].lo;
            if (k == 2) {
                /* A missing second entry is the all-ones sentinel with
                 * weight 0: e0 & ones | e0 & ~ones & m01 = e0, as for c = 1.
                 * Two entries: both 1 -> w0 + w1 > 0; only one -> the sum
                 * 0.0 + w0 - w1 is > 0 exactly when w0 > w1 (ties give 0). */
                const double w0 = w[e[0].idx], w1 = w[e[1].idx];
                const uint64_t m01 = (uint64_t)0 - (uint64_t)(w0 > w1);
                const uint64_t m10 = (uint64_t)0 - (uint64_t)(w1 > w0);
                hi = (e[0].hi & e[1].hi) | (e[0].hi & ~e[1].hi & m01) | (e[1].hi & ~e[0].hi & m10);
                lo = (e[0].lo & e[1].lo) | (e[0].lo & ~e[1].lo & m01) | (e[1].lo & ~e[0].lo & m10);
            }
            out[no].slot = (uint16_t)slot;
            store_be64(out[no].bits, hi);
            store_be64(out[no].bits + 8, lo);
            no += cnt[slot] != 0;
        }
    } else {
        for (size_t slot = 0; slot < nslots; slot++) {
            if (!cnt[slot])
                continue;
            out[no].slot = (uint16_t)slot;
            project(ent + slot * k, cnt[slot], w, out[no].bits);
            no++;
        }
    }
    *nout = no;
    return NDD_OK;
}

int ndd_sig_doc(ndd_sig_ctx_t *ctx, const char *text, size_t n, ndd_sig_t *out, size_t *nout,
                size_t *nsentences)
{
    size_t ns = 0;
    if (!ctx || !out || !nout || (n && !text))
        return NDD_ERR_INVAL;
    *nout = 0;
    if (nsentences)
        *nsentences = 0;
    int rc = ndd_text_sentences(text ? text : "", n, ctx->p.min_sentence, &ctx->spans, &ns,
                                &ctx->spans_cap);
    if (rc)
        return rc;
    if (nsentences)
        *nsentences = ns;
    return ndd_sig_spans(ctx, text, ctx->spans, ns, out, nout);
}

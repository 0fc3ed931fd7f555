/* ndd_md5x.c - the MD5 digests of many sentences at once (see ndd_sig.h,
 * ndd_md5_spans, and docs/signatures.md, "MD5 sixteen sentences at a time").
 *
 * A document's sentences are hashed in the 16 32-bit lanes of AVX-512
 * registers: lane l holds the state (a, b, c, d) of one sentence, and each
 * step of MD5's 64 runs on all 16 at once (the four round functions are one
 * ternary-logic instruction each, the rotations one instruction). A lane whose
 * sentence has ended takes the next one, so the lanes stay full however the
 * lengths vary (until the document's last sentences: on the bench-run corpus a
 * document has 13 on average, so many lanes idle). Each round of 64 steps
 * reads one 64-byte block per lane, loaded without a branch (a masked load,
 * then the 0x80 byte and the length in bits as RFC 1321 pads), and the 16
 * blocks are transposed in registers so that a register holds word j of
 * every lane (a table in memory read back by gathers waited on its stores).
 *
 * Written by hand: MD5 itself is a solved problem and ndd hashes through
 * OpenSSL (ndd_md5), which stays the reference (test_sig compares every
 * length 0..300 and random spans, in both paths) and the path on CPUs
 * without AVX-512; but no Debian library hashes many short messages in the
 * lanes of one register (OpenSSL's multi-block code is for TLS records of
 * SHA-1/SHA-256, not exposed), and one sentence at a time MD5 runs at the
 * latency of its dependent chain of 64 steps. */
#include "ndd_sig.h"

#include <string.h>

static unsigned md5x_isa = 1; /* ndd_md5_isa */

unsigned ndd_md5_isa(unsigned max)
{
    unsigned old = md5x_isa;
    md5x_isa = max;
    return old;
}

/* one sentence at a time through the library */
static void md5_each(const char *text, const ndd_span_t *spans, size_t n, uint8_t (*out)[16])
{
    for (size_t i = 0; i < n; i++)
        ndd_md5(text + spans[i].off, spans[i].len, out[i]);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MD5X_512 1

static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

/* One step: a = b + rotl(a + f(b, c, d) + K[i] + M[g], s), f by its
 * ternary-logic table (operands b, c, d): F = b ? c : d (0xca), G = d ? b : c
 * (0xe4), H = b ^ c ^ d (0x96), I = c ^ (b | ~d) (0x39). */
#define MD5X_STEP(a, b, c, d, tt, i, g, s)                                                                    \
    a = _mm512_add_epi32(                                                                                      \
        b, _mm512_rol_epi32(_mm512_add_epi32(_mm512_ternarylogic_epi32(b, c, d, tt),                         \
                                             _mm512_add_epi32(a, _mm512_add_epi32(w[g], _mm512_set1_epi32(     \
                                                                                      (int)md5_k[i])))),     \
                            s))

/* The 64 steps over the 16 lanes' blocks w[0..16) (word j of every lane in w[j]). */
__attribute__((target("avx512f"))) static inline void md5x_rounds(__m512i st[4], const __m512i w[16])
{
    __m512i a = st[0], b = st[1], c = st[2], d = st[3];
    for (int i = 0; i < 16; i += 4) {
        MD5X_STEP(a, b, c, d, 0xca, i, i, 7);
        MD5X_STEP(d, a, b, c, 0xca, i + 1, i + 1, 12);
        MD5X_STEP(c, d, a, b, 0xca, i + 2, i + 2, 17);
        MD5X_STEP(b, c, d, a, 0xca, i + 3, i + 3, 22);
    }
    for (int i = 16; i < 32; i += 4) {
        MD5X_STEP(a, b, c, d, 0xe4, i, (5 * i + 1) & 15, 5);
        MD5X_STEP(d, a, b, c, 0xe4, i + 1, (5 * i + 6) & 15, 9);
        MD5X_STEP(c, d, a, b, 0xe4, i + 2, (5 * i + 11) & 15, 14);
        MD5X_STEP(b, c, d, a, 0xe4, i + 3, (5 * i + 16) & 15, 20);
    }
    for (int i = 32; i < 48; i += 4) {
        MD5X_STEP(a, b, c, d, 0x96, i, (3 * i + 5) & 15, 4);
        MD5X_STEP(d, a, b, c, 0x96, i + 1, (3 * i + 8) & 15, 11);
        MD5X_STEP(c, d, a, b, 0x96, i + 2, (3 * i + 11) & 15, 16);
        MD5X_STEP(b, c, d, a, 0x96, i + 3, (3 * i + 14) & 15, 23);
    }
    for (int i = 48; i < 64; i += 4) {
        MD5X_STEP(a, b, c, d, 0x39, i, (7 * i) & 15, 6);
        MD5X_STEP(d, a, b, c, 0x39, i + 1, (7 * i + 7) & 15, 10);
        MD5X_STEP(c, d, a, b, 0x39, i + 2, (7 * i + 14) & 15, 15);
        MD5X_STEP(b, c, d, a, 0x39, i + 3, (7 * i + 21) & 15, 21);
    }
    st[0] = _mm512_add_epi32(st[0], a);
    st[1] = _mm512_add_epi32(st[1], b);
    st[2] = _mm512_add_epi32(st[2], c);
    st[3] = _mm512_add_epi32(st[3], d);
}

/* The block at byte off of a message of len bytes at p, padded as RFC 1321
 * pads it (the 0x80 byte after the message, the length in bits in the last 8
 * bytes of the last block, at byte offset last), without a branch: the
 * message's bytes by a masked load (none past its end are read; an idle lane
 * has len 0 and off > last, a block of zeros). */
__attribute__((target("avx512f,avx512bw,bmi2"))) static inline __m512i md5x_block(const uint8_t *p, uint64_t len,
                                                                                 uint64_t off, uint64_t last)
{
    uint64_t avail = len > off ? len - off : 0; /* message bytes in this block (>= 64: all) */
    __m512i v = _mm512_maskz_loadu_epi8((__mmask64)_bzhi_u64(~0ull, (unsigned)(avail < 64 ? avail : 64)),
                                        (const void *)(p + (avail ? off : 0))); /* (an address in the message) */
    uint64_t e = len - off; /* the 0x80 byte's place in this block, when < 64 */
    v = _mm512_mask_set1_epi8(v, (__mmask64)((uint64_t)(e < 64) << (e & 63)), (char)0x80);
    return _mm512_mask_set1_epi64(v, (__mmask8)((off == last) << 7), (long long)(len * 8));
}

/* r[l]: lane l's block (16 words) -> w[j]: word j of every lane. Two rounds
 * of unpacks make 4 x 4 blocks in each 128-bit lane (u[g][c], 128-bit lane
 * i: word 4i + c of rows 4g .. 4g + 3), two of 128-bit shuffles gather them. */
__attribute__((target("avx512f"))) static inline void md5x_transpose(const __m512i r[16], __m512i w[16])
{
    __m512i u[4][4];
    for (int g = 0; g < 4; g++) {
        __m512i a = r[4 * g], b = r[4 * g + 1], c = r[4 * g + 2], d = r[4 * g + 3];
        __m512i ab0 = _mm512_unpacklo_epi32(a, b), ab1 = _mm512_unpackhi_epi32(a, b);
        __m512i cd0 = _mm512_unpacklo_epi32(c, d), cd1 = _mm512_unpackhi_epi32(c, d);
        u[g][0] = _mm512_unpacklo_epi64(ab0, cd0);
        u[g][1] = _mm512_unpackhi_epi64(ab0, cd0);
        u[g][2] = _mm512_unpacklo_epi64(ab1, cd1);
        u[g][3] = _mm512_unpackhi_epi64(ab1, cd1);
    }
    for (int c = 0; c < 4; c++) {
        __m512i p01 = _mm512_shuffle_i32x4(u[0][c], u[1][c], _MM_SHUFFLE(1, 0, 1, 0));
        __m512i p23 = _mm512_shuffle_i32x4(u[2][c], u[3][c], _MM_SHUFFLE(1, 0, 1, 0));
        __m512i q01 = _mm512_shuffle_i32x4(u[0][c], u[1][c], _MM_SHUFFLE(3, 2, 3, 2));
        __m512i q23 = _mm512_shuffle_i32x4(u[2][c], u[3][c], _MM_SHUFFLE(3, 2, 3, 2));
        w[c] = _mm512_shuffle_i32x4(p01, p23, _MM_SHUFFLE(2, 0, 2, 0));
        w[4 + c] = _mm512_shuffle_i32x4(p01, p23, _MM_SHUFFLE(3, 1, 3, 1));
        w[8 + c] = _mm512_shuffle_i32x4(q01, q23, _MM_SHUFFLE(2, 0, 2, 0));
        w[12 + c] = _mm512_shuffle_i32x4(q01, q23, _MM_SHUFFLE(3, 1, 3, 1));
    }
}

/* The 16 lanes' sentences: lane l holds sentence msg[l] at p[l], len[l]
 * bytes; its next block at byte off[l], its last at last[l] (an idle lane:
 * len 0, off 64 > last 0, blocks of zeros that never end). */
typedef struct md5x_lanes {
    const uint8_t *p[16];
    uint64_t len[16], off[16], last[16];
    size_t msg[16];
} md5x_lanes_t;

/* Lane l takes sentence *next when one is left (returns 1), else idles. */
static inline int md5x_take(md5x_lanes_t *ln, unsigned l, const char *text, const ndd_span_t *spans, size_t n,
                            size_t *next)
{
    if (*next >= n) {
        ln->p[l] = (const uint8_t *)text;
        ln->len[l] = ln->last[l] = 0;
        ln->off[l] = 64;
        return 0;
    }
    ln->msg[l] = *next;
    ln->p[l] = (const uint8_t *)text + spans[*next].off;
    ln->len[l] = spans[*next].len;
    ln->off[l] = 0;
    ln->last[l] = (ln->len[l] + 8) / 64 * 64;
    (*next)++;
    return 1;
}

__attribute__((target("avx512f,avx512bw,bmi2"))) static void md5x16(const char *text, const ndd_span_t *spans,
                                                                    size_t n, uint8_t (*out)[16])
{
    static const uint32_t iv[4] = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u};
    _Alignas(64) uint32_t sv[4][16];
    md5x_lanes_t ln = {.msg = {0}};
    unsigned live = 0; /* lanes holding a sentence */
    size_t next = 0;
    __m512i st[4];
    for (int q = 0; q < 4; q++)
        st[q] = _mm512_set1_epi32((int)iv[q]);
    for (unsigned l = 0; l < 16; l++)
        live |= (unsigned)md5x_take(&ln, l, text, spans, n, &next) << l;
    while (live) {
        __m512i r[16], w[16];
        unsigned done = 0; /* lanes whose sentence ends with this block */
        for (unsigned l = 0; l < 16; l++) {
            r[l] = md5x_block(ln.p[l], ln.len[l], ln.off[l], ln.last[l]);
            done |= (unsigned)(ln.off[l] == ln.last[l]) << l;
            ln.off[l] += (live >> l & 1) * 64u;
        }
        md5x_transpose(r, w);
        md5x_rounds(st, w);
        if (!done)
            continue;
        for (int q = 0; q < 4; q++) {
            _mm512_store_si512((void *)sv[q], st[q]);
            st[q] = _mm512_mask_mov_epi32(st[q], (__mmask16)done, _mm512_set1_epi32((int)iv[q]));
        }
        for (unsigned m = done; m; m &= m - 1) {
            unsigned l = (unsigned)__builtin_ctz(m);
            uint8_t *o = out[ln.msg[l]]; /* the digest: a, b, c, d little-endian */
            for (int q = 0; q < 4; q++) {
                uint32_t v = sv[q][l];
                o[4 * q] = (uint8_t)v;
                o[4 * q + 1] = (uint8_t)(v >> 8);
                o[4 * q + 2] = (uint8_t)(v >> 16);
                o[4 * q + 3] = (uint8_t)(v >> 24);
            }
            if (!md5x_take(&ln, l, text, spans, n, &next)) /* the next sentence, or idle */
                live &= ~(1u << l);
        }
    }
}

static int md5x_cpu(void)
{
    static int cpu = -1;
    if (cpu < 0)
        cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
              __builtin_cpu_supports("bmi2");
    return cpu;
}
#endif

void ndd_md5_spans(const char *text, const ndd_span_t *spans, size_t n, uint8_t (*out)[16])
{
#ifdef MD5X_512
    if (md5x_isa >= 1 && n >= NDD_MD5X_MIN && md5x_cpu()) {
        md5x16(text, spans, n, out);
        return;
    }
#endif
    md5_each(text, spans, n, out);
}

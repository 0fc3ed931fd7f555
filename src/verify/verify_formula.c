/* verify_formula.c - formulaic texts (issue 11): two short texts that share
 * their wording but not their names and numbers (dividend notices of two
 * companies, rate tables of two days, bond issues of two issuers) are
 * different documents even when their trustable LCS is long.
 *
 * After a TLCS "duplicate" the span of the trustable regions in each
 * document, widened to whole blocks (lines), is cut into word tokens and the
 * two token sequences are aligned (Myers O(ND) on token hashes). Tokens of
 * the shorter side that the alignment REPLACES by other tokens (a gap with
 * tokens on both sides; pure insertions and deletions - an extended or cut
 * copy - do not count) are the changes. Key tokens are numbers (a digit, or
 * one..twelve written out, compared as digits) and names (a capital letter
 * not starting a sentence). The pair is formulaic when
 *   - the changes are mostly key tokens (changed keys >= min_purity of the
 *     replaced tokens) and touch >= min_key_share of the keys, or
 *   - more than num_share of the numbers changed and they are >= num_purity
 *     of the replaced tokens,
 * with at least min_changed of them in either case - unless every change
 * lies in one block of at most line_bytes while other blocks are unchanged
 * (a new headline, dateline or byline over the same text). Rules, labels and
 * figures: docs/verify.md, "Formulaic texts". */
#include "ndd_verify.h"
#include "verify_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* XXH3 inlined here: one hash per token, a library call was 5 % of the
 * tokenizer (the same hash values) */
#define XXH_INLINE_ALL
#include <xxhash.h>

void ndd_formula_params_default(ndd_formula_params_t *p)
{
    p->min_changed = NDD_FORMULA_DEFAULT_MIN_CHANGED;
    p->min_key_share = NDD_FORMULA_DEFAULT_KEY_SHARE;
    p->min_purity = NDD_FORMULA_DEFAULT_PURITY;
    p->num_share = NDD_FORMULA_DEFAULT_NUM_SHARE;
    p->num_purity = NDD_FORMULA_DEFAULT_NUM_PURITY;
    p->max_d = NDD_FORMULA_DEFAULT_MAX_D;
    p->line_bytes = NDD_FORMULA_DEFAULT_LINE_BYTES;
    p->max_gap = NDD_FORMULA_DEFAULT_MAX_GAP;
}

enum { TK_WORD = 0, TK_NAME = 1, TK_NUM = 2 };

/* A side's tokens: their hashes (what the alignment compares, dense) and,
 * per token, its kind and block (ndd_ftok_t, verify_int.h). */
typedef struct toks {
    uint64_t *h;
    ndd_ftok_t *m;
    size_t n, cap;
} toks_t;

/* What a check allocates, kept between checks (ndd_formula_check_ws). */
struct ndd_formula_ws {
    toks_t a, b;      /* the two spans' tokens */
    uint8_t *rep;     /* the shorter side's marks */
    size_t rep_cap;
    int *v;           /* the alignment's V (2 max_d + 3 + 32) */
    size_t v_cap;
    int *trace;       /* its rounds' V, row d at d^2 + 2d */
    size_t trace_cap;
};

int ndd_formula_ws_create(ndd_formula_ws_t **ws)
{
    if (!ws)
        return NDD_ERR_INVAL;
    *ws = calloc(1, sizeof **ws);
    return *ws ? NDD_OK : NDD_ERR_NOMEM;
}

static void ws_release(ndd_formula_ws_t *ws)
{
    free(ws->a.h);
    free(ws->a.m);
    free(ws->b.h);
    free(ws->b.m);
    free(ws->rep);
    free(ws->v);
    free(ws->trace);
}

void ndd_formula_ws_free(ndd_formula_ws_t *ws)
{
    if (!ws)
        return;
    ws_release(ws);
    free(ws);
}

/* Byte classes of the tokenizer. */
enum { C_AL = 1, C_DG = 2, C_UP = 4, C_JN = 8, C_SE = 16 };
static const uint8_t ctab[256] = {
    ['0'] = C_AL | C_DG, ['1'] = C_AL | C_DG, ['2'] = C_AL | C_DG, ['3'] = C_AL | C_DG, ['4'] = C_AL | C_DG,
    ['5'] = C_AL | C_DG, ['6'] = C_AL | C_DG, ['7'] = C_AL | C_DG, ['8'] = C_AL | C_DG, ['9'] = C_AL | C_DG,
    ['A'] = C_AL | C_UP, ['B'] = C_AL | C_UP, ['C'] = C_AL | C_UP, ['D'] = C_AL | C_UP, ['E'] = C_AL | C_UP,
    ['F'] = C_AL | C_UP, ['G'] = C_AL | C_UP, ['H'] = C_AL | C_UP, ['I'] = C_AL | C_UP, ['J'] = C_AL | C_UP,
    ['K'] = C_AL | C_UP, ['L'] = C_AL | C_UP, ['M'] = C_AL | C_UP, ['N'] = C_AL | C_UP, ['O'] = C_AL | C_UP,
    ['P'] = C_AL | C_UP, ['Q'] = C_AL | C_UP, ['R'] = C_AL | C_UP, ['S'] = C_AL | C_UP, ['T'] = C_AL | C_UP,
    ['U'] = C_AL | C_UP, ['V'] = C_AL | C_UP, ['W'] = C_AL | C_UP, ['X'] = C_AL | C_UP, ['Y'] = C_AL | C_UP,
    ['Z'] = C_AL | C_UP, ['a'] = C_AL, ['b'] = C_AL, ['c'] = C_AL, ['d'] = C_AL, ['e'] = C_AL, ['f'] = C_AL,
    ['g'] = C_AL, ['h'] = C_AL, ['i'] = C_AL, ['j'] = C_AL, ['k'] = C_AL, ['l'] = C_AL, ['m'] = C_AL,
    ['n'] = C_AL, ['o'] = C_AL, ['p'] = C_AL, ['q'] = C_AL, ['r'] = C_AL, ['s'] = C_AL, ['t'] = C_AL,
    ['u'] = C_AL, ['v'] = C_AL, ['w'] = C_AL, ['x'] = C_AL, ['y'] = C_AL, ['z'] = C_AL,
    ['.'] = C_JN | C_SE, [','] = C_JN, ['/'] = C_JN, ['-'] = C_JN, ['\''] = C_JN,
    ['!'] = C_SE, ['?'] = C_SE, [':'] = C_SE, [';'] = C_SE, ['\n'] = C_SE};

#if defined(__SSE2__)
/* Lanes of v in [lo, hi] (bytes as unsigned), as a 0xFF mask. */
static inline __m128i in_range(__m128i v, unsigned char lo, unsigned char hi)
{
    __m128i x = _mm_add_epi8(v, _mm_set1_epi8((char)(unsigned char)(128u - lo)));
    return _mm_cmplt_epi8(x, _mm_set1_epi8((char)(unsigned char)(128u + (unsigned)(hi - lo) + 1u)));
}
#endif

/* The word token that starts at t[i] (an ASCII letter or digit): its end
 * (returned), its first 64 bytes lowered in low[0..*l) (room for 80: 16 are
 * stored at a time), *digit when it has a digit. */
static size_t word(const char *t, size_t n, size_t i, char *low, size_t *l, int *digit)
{
    size_t j = i, k = 0;
    unsigned cls = 0;
    for (;;) {
#if defined(__SSE2__)
        while (j + 16 <= n) { /* 16 bytes at a time: the run of letters and digits, lowered */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(t + j));
            __m128i up = in_range(v, 'A', 'Z'), dg = in_range(v, '0', '9');
            __m128i al = _mm_or_si128(_mm_or_si128(up, dg), in_range(v, 'a', 'z'));
            unsigned run = (unsigned)__builtin_ctz(~(unsigned)_mm_movemask_epi8(al)); /* 0 .. 16 */
            if (k < 64)
                _mm_storeu_si128((__m128i *)(void *)(low + k), _mm_or_si128(v, _mm_and_si128(up, _mm_set1_epi8(0x20))));
            cls |= ((unsigned)_mm_movemask_epi8(dg) & ((1u << run) - 1u)) ? C_DG : 0u;
            k += run;
            j += run;
            if (run < 16)
                break;
        }
#endif
        while (j < n && (ctab[(unsigned char)t[j]] & C_AL)) {
            unsigned c = ctab[(unsigned char)t[j]];
            cls |= c;
            if (k < 64)
                low[k] = (char)(t[j] | ((c & C_UP) ? 0x20 : 0));
            k++;
            j++;
        }
        /* . , / - ' between two letters or digits stays in the word */
        if (j + 1 < n && (ctab[(unsigned char)t[j]] & C_JN) && (ctab[(unsigned char)t[j + 1]] & C_AL)) {
            if (k < 64)
                low[k] = t[j];
            k++;
            j++;
            continue;
        }
        break;
    }
    *l = k < 64 ? k : 64;
    *digit = (cls & C_DG) != 0;
    return j;
}

/* Tokens of t[0..n): runs of ASCII letters and digits with . , / - ' kept
 * between two of them (3.5, 1,411,240, 6-3/16, A-2), and each CJK
 * character. At most n / 2 + 1 of them (a word token is followed by a byte
 * of no token, a CJK one takes 3 or 4 bytes): the arrays are sized once. */
int ndd_formula_tokens(const char *t, size_t n, uint64_t **hv, ndd_ftok_t **mv, size_t *nv, size_t *cap)
{
    int sent = 1;
    size_t i = 0, bstart = 0, nt = 0;
    uint32_t blk = 0;
    const char *nl = memchr(t, '\n', n);
    uint32_t blen = (uint32_t)(nl ? (size_t)(nl - t) : n);
    *nv = 0;
    if (n / 2 + 2 > *cap) {
        size_t c = n / 2 + 2;
        uint64_t *h = realloc(*hv, c * sizeof *h);
        if (h)
            *hv = h;
        ndd_ftok_t *m = h ? realloc(*mv, c * sizeof *m) : NULL;
        if (m)
            *mv = m;
        if (!h || !m)
            return NDD_ERR_NOMEM;
        *cap = c;
    }
    uint64_t *H = *hv;
    ndd_ftok_t *M = *mv;
    while (i < n) {
        unsigned char c = (unsigned char)t[i];
        unsigned k = ctab[c];
        if (k & C_AL) {
            char low[80];
            size_t l;
            int digit;
            size_t j = word(t, n, i, low, &l, &digit);
            int kind = digit ? TK_NUM : (k & C_UP) && !sent ? TK_NAME : TK_WORD;
            unsigned num = digit ? 0 : ndd_formula_number_word(low, l);
            if (num) {
                l = ndd_fmt_u64(low, num); /* (as "%u" writes it; no printf a number word) */
                kind = TK_NUM;
            }
            H[nt] = XXH3_64bits(low, l);
            M[nt++] = (ndd_ftok_t){kind, blk, blen};
            sent = 0;
            i = j;
            continue;
        }
        if (c == '\n') {
            blk++;
            bstart = i + 1;
            nl = memchr(t + bstart, '\n', n - bstart);
            blen = (uint32_t)(nl ? (size_t)(nl - t) - bstart : n - bstart);
        }
        if (c >= 0x80) { /* a CJK ideograph, kana or hangul syllable is a word of its own */
            uint32_t cp;
            size_t len = ndd_formula_utf8_cp(t + i, n - i, &cp);
            if (ndd_formula_is_cjk(cp)) {
                H[nt] = XXH3_64bits(t + i, len);
                M[nt++] = (ndd_ftok_t){TK_WORD, blk, blen};
                sent = 0;
            } else if (cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F || cp == 0xFF1B || cp == 0xFF1A) {
                sent = 1; /* 。！？；： */
            }
            i += len;
            continue;
        }
        sent |= (k & C_SE) != 0;
        i++;
    }
    *nv = nt;
    return NDD_OK;
}

/* [*s, *e) widened to the start and end of the blocks ('\n'-separated) it touches. */
static void widen(const char *t, size_t n, size_t *s, size_t *e)
{
    while (*s > 0 && t[*s - 1] != '\n')
        (*s)--;
    while (*e < n && t[*e] != '\n')
        (*e)++;
}

/* Myers O(ND) with the V vector of every round kept (O(D^2) memory, D <=
 * max_d), then the path back. rep[i] for each token i of x: 0 matched, 1 in
 * a small replacement (a gap between matches with 1..gmax tokens on both
 * sides), 2 elsewhere (deleted, or in a larger gap: a moved paragraph, an
 * inserted advertisement, a rewritten passage). Returns 1 when the alignment
 * was made, 0 when D > max_d, < 0 on an error. */
static void mark_gap(uint8_t *rep, long x0, long x1, long ny, long gmax)
{
    int small = x1 > x0 && ny > 0 && x1 - x0 <= gmax && ny <= gmax;
    for (long i = x0; i < x1; i++)
        rep[i] = small ? 1 : 2;
}

static unsigned fa_isa = 1; /* ndd_formula_isa */

unsigned ndd_formula_isa(unsigned max)
{
    unsigned old = fa_isa;
    fa_isa = max;
    return old;
}

/* Diagonal k's snake from x = xx (x[xx] == y[yy] known or not): 4 hashes a
 * step while all agree; returns the x it ends at. */
static inline long fa_snake(const uint64_t *x, long n, const uint64_t *y, long m, long xx, long k)
{
    long yy = xx - k;
    if (xx < n && yy < m && x[xx] == y[yy]) {
        long lim = n - xx < m - yy ? n - xx : m - yy, s = 1;
        const uint64_t *px = x + xx, *py = y + yy;
        while (s + 4 <= lim &&
               ((px[s] ^ py[s]) | (px[s + 1] ^ py[s + 1]) | (px[s + 2] ^ py[s + 2]) | (px[s + 3] ^ py[s + 3])) == 0)
            s += 4;
        while (s < lim && px[s] == py[s])
            s++;
        xx += s;
    }
    return xx;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define FA_512 1
#include <immintrin.h>

/* Round d over the diagonals k = -d, -d + 2, .., d, 8 at a time (AVX-512 F
 * and VL: the caller checked): the same values as the scalar round. There x
 * = v[k + 1] at k = -d, v[k - 1] + 1 at k = d, else the greater of v[k + 1]
 * and v[k - 1] + 1 (v[k - 1] + 1 on a tie); as v[-d - 1] and v[d + 1] still
 * hold -1 (no round before wrote them), that is max(v[k + 1], v[k - 1] + 1)
 * on every diagonal. Each step reads 32 entries of v from the one before its
 * first diagonal (the caller pads v by 32) and writes only its diagonals;
 * the lanes whose hashes' low halves agree run the scalar snake after the
 * step. Returns 1 when a diagonal reached (n, m). */
__attribute__((target("avx512f,avx512vl,avx2"))) static int fa_round_512(int *v, long off, long d, const uint64_t *x,
                                                                          long n, const uint64_t *y, long m)
{
    static const int il[16] = {0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0};
    static const int ir[16] = {2, 4, 6, 8, 10, 12, 14, 16, 0, 0, 0, 0, 0, 0, 0, 0};
    static const int iw[16] = {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7};
    const __m512i idl = _mm512_loadu_si512(il), idr = _mm512_loadu_si512(ir), idw = _mm512_loadu_si512(iw);
    const __m256i one = _mm256_set1_epi32(1), lane2 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i vn = _mm256_set1_epi32((int)n), vm = _mm256_set1_epi32((int)m);
    int found = 0;
    for (long k = -d; k <= d; k += 16) {
        long lanes = (d - k) / 2 + 1;
        __mmask8 lm = lanes >= 8 ? (__mmask8)0xff : (__mmask8)((1u << lanes) - 1);
        int *base = v + off + k - 1; /* lane i: v[k + 2i - 1] at base[2i], v[k + 2i] at base[2i + 1] */
        __m512i a = _mm512_loadu_si512(base), b = _mm512_loadu_si512(base + 16);
        __m256i lo = _mm512_castsi512_si256(_mm512_permutex2var_epi32(a, idl, b));
        __m256i hi = _mm512_castsi512_si256(_mm512_permutex2var_epi32(a, idr, b));
        __m256i xv = _mm256_max_epi32(hi, _mm256_add_epi32(lo, one));
        __m256i yv = _mm256_sub_epi32(xv, _mm256_add_epi32(_mm256_set1_epi32((int)k), lane2));
        __mmask8 in = lm & _mm256_cmplt_epi32_mask(xv, vn) & _mm256_cmplt_epi32_mask(yv, vm);
        /* the hashes' low halves (x86: little-endian); equal ones go to the
         * scalar snake, which compares the whole hashes first */
        __m256i hx = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), in, xv, (const void *)x, 8);
        __m256i hy = _mm256_mmask_i32gather_epi32(_mm256_setzero_si256(), in, yv, (const void *)y, 8);
        __mmask8 eq = _mm256_mask_cmpeq_epi32_mask(in, hx, hy);
        found |= (lm & ~eq & _mm256_cmpge_epi32_mask(xv, vn) & _mm256_cmpge_epi32_mask(yv, vm)) != 0;
        /* x of lane i into base[2i + 1] (odd lanes only) */
        __mmask16 odd = (__mmask16)(lanes >= 8 ? 0xaaaau : 0xaaaau & ((1u << (2 * lanes)) - 1));
        _mm512_mask_storeu_epi32(base, odd, _mm512_permutexvar_epi32(idw, _mm512_castsi256_si512(xv)));
        for (unsigned e = eq; e; e &= e - 1) { /* (a lane whose whole hashes differ keeps its x) */
            unsigned i = (unsigned)__builtin_ctz(e);
            long kk = k + 2 * (long)i, xx = fa_snake(x, n, y, m, base[2 * i + 1], kk);
            base[2 * i + 1] = (int)xx;
            found |= xx >= n && xx - kk >= m;
        }
    }
    return found;
}

static int fa_512_cpu(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
}
#endif

/* ndd_formula_align with V in *vbuf (*vcap entries) and the rounds' rows in
 * *tp (*tcap entries), grown as needed and kept by the caller. */
static int fa_align(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, size_t max_d, long gmax,
                    uint8_t *rep, int **vbuf, size_t *vcap, int **tp, size_t *tcap)
{
    long n = (long)nx, m = (long)ny, dmax = (long)(max_d < nx + ny ? max_d : nx + ny);
    long off = dmax + 1, w = 2 * dmax + 3;
    /* trace row d keeps V on diagonals -d-1 .. d+1 only (what the walk back
     * reads of it), at TROW(d) = d^2 + 2d: the rows grow with the D found,
     * not with max_d (a max_d x max_d table was a multi-MB allocation and
     * a copy of 2 max_d + 3 entries per round for every formulaic check) */
#define TROW(d) ((size_t)(d) * (size_t)(d) + 2 * (size_t)(d))
    long dfound = -1;
    if (ndd_array_grow((void **)vbuf, vcap, (size_t)(w + 32), sizeof **vbuf)) /* + 32: fa_round_512 reads past the end */
        return NDD_ERR_NOMEM;
    int *v = *vbuf;
    for (long i = 0; i < w + 32; i++)
        v[i] = -1;
    v[off + 1] = 0;
    int wide = 0;
#ifdef FA_512
    wide = fa_isa >= 1 && n < INT32_MAX && m < INT32_MAX && fa_512_cpu();
#endif
    for (long d = 0; d <= dmax && dfound < 0; d++) {
#ifdef FA_512
        if (wide && d >= 8) {
            if (fa_round_512(v, off, d, x, n, y, m))
                dfound = d;
        } else
#endif
            for (long k = -d; k <= d; k += 2) {
                long xx =
                    (k == -d || (k != d && v[off + k - 1] < v[off + k + 1])) ? v[off + k + 1] : v[off + k - 1] + 1;
                xx = fa_snake(x, n, y, m, xx, k);
                v[off + k] = (int)xx;
                if (xx >= n && xx - k >= m)
                    dfound = d;
            }
        if (TROW(d + 1) > *tcap && ndd_array_grow((void **)tp, tcap, TROW(d + 1), sizeof **tp))
            return NDD_ERR_NOMEM;
        /* diagonals -d-1 .. d+1 (within v: d <= dmax) */
        memcpy(*tp + TROW(d), v + off - d - 1, (size_t)(2 * d + 3) * sizeof *v);
    }
    if (dfound < 0)
        return 0;
    const int *trace = *tp;
    /* walk back: matched tokens 0; each gap between matched runs: a small
     * replacement (tokens on both sides, at most gmax on each) 1, anything
     * else (pure deletion, a moved or rewritten passage) 2 */
    memset(rep, 2, nx);
    long xx = n, yy = m;
    long gap_x1 = n, gap_y1 = m; /* the current gap's end (exclusive) in x and y */
    for (long d = dfound; d >= 0; d--) {
        /* the round before (where round d came from): row d - 1 starts at
         * diagonal -d, so diagonal k is vp[k + d] */
        const int *vp = d ? trace + TROW(d - 1) : NULL;
        long k = xx - yy;
        long pk = d == 0 ? 0 : (k == -d || (k != d && vp[k - 1 + d] < vp[k + 1 + d])) ? k + 1 : k - 1;
        long px = d == 0 ? 0 : vp[pk + d], py = px - pk;
        long sx = d == 0 ? 0 : (pk == k + 1 ? px : px + 1); /* where the snake of round d starts */
        long sy = sx - k;
        if (xx > sx) { /* a snake (matches) [sx, xx): it closes the gap after it */
            mark_gap(rep, xx, gap_x1, gap_y1 - yy, gmax);
            for (long i = sx; i < xx; i++)
                rep[i] = 0;
            gap_x1 = sx;
            gap_y1 = sy;
        }
        xx = px;
        yy = py;
        if (d == 0)
            break;
    }
    mark_gap(rep, 0, gap_x1, gap_y1, gmax); /* the gap at the start */
    return 1;
#undef TROW
}

int ndd_formula_align(const uint64_t *x, size_t nx, const uint64_t *y, size_t ny, size_t max_d, long gmax,
                      uint8_t *rep)
{
    int *v = NULL, *trace = NULL;
    size_t vcap = 0, tcap = 0;
    int rc = fa_align(x, nx, y, ny, max_d, gmax, rep, &v, &vcap, &trace, &tcap);
    free(v);
    free(trace);
    return rc;
}

/* The spans of the regions in a and b (r's regions and partner spans),
 * widened to whole blocks. */
static int spans(const char *a, size_t na, const char *b, size_t nb, const ndd_tlcs_result_t *r, size_t *a0,
                 size_t *a1, size_t *b0, size_t *b1)
{
    *a0 = *b0 = SIZE_MAX;
    *a1 = *b1 = 0;
    for (unsigned g = 0; g < r->nregions; g++) {
        const ndd_tlcs_region_t *q = &r->regions[g];
        if (q->a_end > na || q->b_end > nb || q->a_start > q->a_end || q->b_start > q->b_end)
            return NDD_ERR_INVAL;
        *a0 = q->a_start < *a0 ? q->a_start : *a0;
        *a1 = q->a_end > *a1 ? q->a_end : *a1;
        *b0 = q->b_start < *b0 ? q->b_start : *b0;
        *b1 = q->b_end > *b1 ? q->b_end : *b1;
    }
    widen(a, na, a0, a1);
    widen(b, nb, b0, b1);
    return NDD_OK;
}

/* The rules on the two spans' tokens. */
static int judge(ndd_formula_ws_t *ws, const ndd_formula_params_t *p, const toks_t *ta, const toks_t *tb,
                 ndd_formula_result_t *out)
{
    /* the shorter token sequence is x (ties: the smaller hash sequence): symmetric */
    size_t nta = ta->n, ntb = tb->n;
    int swap = ntb < nta;
    for (size_t i = 0; !swap && nta == ntb && i < nta; i++)
        if (ta->h[i] != tb->h[i]) {
            swap = tb->h[i] < ta->h[i];
            break;
        }
    const toks_t *tx = swap ? tb : ta, *ty = swap ? ta : tb;
    const ndd_ftok_t *x = tx->m;
    size_t nx = tx->n, ny = ty->n;
    if (ndd_array_grow((void **)&ws->rep, &ws->rep_cap, nx ? nx : 1, 1))
        return NDD_ERR_NOMEM;
    uint8_t *rep = ws->rep;
    int made = fa_align(tx->h, nx, ty->h, ny, p->max_d, (long)p->max_gap, rep, &ws->v, &ws->v_cap, &ws->trace,
                        &ws->trace_cap);
    if (made >= 0) {
        out->aligned = made;
        out->words = nx;
    }
    if (made <= 0)
        return made;
    /* one line: every change in one short block (a new headline, another
     * dateline or byline) while the other blocks are unchanged is the same
     * text, not a formula */
    {
        int first = 1, one = 1, others = 0;
        uint32_t blk = 0, blen = 0;
        for (size_t i = 0; i < nx; i++) {
            if (rep[i] == 1) {
                if (first)
                    blk = x[i].blk, blen = x[i].blen, first = 0;
                else if (x[i].blk != blk)
                    one = 0;
            }
        }
        for (size_t i = 0; i < nx && !first; i++)
            others |= x[i].blk != blk;
        out->one_line = !first && one && others && blen <= p->line_bytes;
    }
    for (size_t i = 0; i < nx; i++) {
        if (rep[i] == 2)
            continue; /* outside the comparison: deleted or in a larger change */
        int key = x[i].kind != TK_WORD, num = x[i].kind == TK_NUM, ch = rep[i] == 1;
        out->keys += (size_t)key;
        out->numbers += (size_t)num;
        out->replaced += (size_t)ch;
        out->keys_changed += (size_t)(key && ch);
        out->numbers_changed += (size_t)(num && ch);
    }
    double share = out->keys ? (double)out->keys_changed / (double)out->keys : 0;
    double purity = out->replaced ? (double)out->keys_changed / (double)out->replaced : 0;
    double nshare = out->numbers ? (double)out->numbers_changed / (double)out->numbers : 0;
    int keys = out->keys_changed >= p->min_changed && share >= p->min_key_share && purity >= p->min_purity;
    double npur = out->replaced ? (double)out->numbers_changed / (double)out->replaced : 0;
    int nums = out->numbers_changed >= p->min_changed && nshare > p->num_share && npur >= p->num_purity;
    out->different = !out->one_line && (keys || nums);
    return NDD_OK;
}

int ndd_formula_check_ws(ndd_formula_ws_t *ws, const ndd_formula_params_t *p, const char *a, size_t na,
                         const char *b, size_t nb, const ndd_tlcs_result_t *r, ndd_formula_result_t *out)
{
    size_t a0, a1, b0, b1;
    int rc;
    if (!ws || !p || !r || !out || (!a && na) || (!b && nb))
        return NDD_ERR_INVAL;
    memset(out, 0, sizeof *out);
    if (!r->nregions)
        return NDD_OK;
    if ((rc = spans(a, na, b, nb, r, &a0, &a1, &b0, &b1)))
        return rc;
    toks_t *ta = &ws->a, *tb = &ws->b;
    if (!(rc = ndd_formula_tokens(a + a0, a1 - a0, &ta->h, &ta->m, &ta->n, &ta->cap)) &&
        !(rc = ndd_formula_tokens(b + b0, b1 - b0, &tb->h, &tb->m, &tb->n, &tb->cap)))
        rc = judge(ws, p, ta, tb, out);
    return rc;
}

int ndd_formula_check(const ndd_formula_params_t *p, const char *a, size_t na, const char *b, size_t nb,
                      const ndd_tlcs_result_t *r, ndd_formula_result_t *out)
{
    ndd_formula_ws_t ws; /* for this one check (ndd_formula_check_ws checks the arguments) */
    memset(&ws, 0, sizeof ws);
    int rc = ndd_formula_check_ws(&ws, p, a, na, b, nb, r, out);
    ws_release(&ws);
    return rc;
}

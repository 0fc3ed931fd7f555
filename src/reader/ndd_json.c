/* ndd_json.c - see ndd_json.h. Hand-written because the need is narrow
 * (validate a line, pick 3-4 top-level keys, decode only the strings used)
 * and speed matters: strings are scanned 16 bytes at a time (SSE2, else 8:
 * a 64-bit word) to the next quote, backslash or control byte; a wanted
 * member with a decode buffer (the body) is decoded in the same pass. */
#include "ndd_json.h"

#include <stdint.h>
#include <string.h>

#define J_MALFORMED "malformed JSON"
#define J_ESCAPE "invalid JSON escape"

typedef struct {
    const char *p, *e;
    const char *why;
} jctx_t;

static inline int j_ws(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static inline void j_skip_ws(jctx_t *j)
{
    while (j->p < j->e && j_ws((unsigned char)*j->p))
        j->p++;
}

/* non-zero when one of the 8 bytes of w is '"', '\\' or < 0x20 */
static inline uint64_t j_special8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t q = w ^ (ones * (uint64_t)'"');
    uint64_t b = w ^ (ones * (uint64_t)'\\');
    uint64_t t = ((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20u) & ~w);
    return t & high;
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* bit i set when lane i of v is '"', '\\' or < 0x20 */
static inline unsigned j_special_v(__m128i v)
{
    __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    /* unsigned v < 0x20: a signed compare with the top bits flipped */
    __m128i c = _mm_cmplt_epi8(_mm_xor_si128(v, _mm_set1_epi8((char)0x80)), _mm_set1_epi8((char)(0x20 ^ 0x80)));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b), c));
}

/* bit i set when p[i] (i < 16) is '"', '\\' or < 0x20 */
static inline unsigned j_special16(const char *p) { return j_special_v(_mm_loadu_si128((const __m128i *)(const void *)p)); }
#endif

static inline int j_hex(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The four hex digits at p (p + 4 <= end checked by the caller): the code
 * unit, or -1. */
static long j_hex4(const char *p)
{
    long u = 0;
    for (int k = 0; k < 4; k++) {
        int h = j_hex((unsigned char)p[k]);
        if (h < 0)
            return -1;
        u = u << 4 | h;
    }
    return u;
}

/* The escape at p (a backslash; e: the end of the input): its length, 2
 * (\" \\ \/ \b \f \n \r \t: *v the byte it stands for) or 6 (\uXXXX: *v
 * the code unit); 0 when the input ends after the backslash; -1 when it is
 * no escape of JSON's. The one escape rule of the scan and both decoders. */
static inline int j_escape(const char *p, const char *e, long *v)
{
    if (e - p < 2)
        return 0;
    switch (p[1]) {
    case '"': case '\\': case '/': *v = p[1]; return 2;
    case 'b': *v = '\b'; return 2;
    case 'f': *v = '\f'; return 2;
    case 'n': *v = '\n'; return 2;
    case 'r': *v = '\r'; return 2;
    case 't': *v = '\t'; return 2;
    case 'u': return e - p >= 6 && (*v = j_hex4(p + 2)) >= 0 ? 6 : -1;
    default: return -1;
    }
}

/* The code point of the code unit *cp of a \u escape, *p just after it: a
 * high surrogate takes the low half that must follow as an escape (*p moves
 * past it). -1 for a lone or mismatched surrogate (*p stays). */
static inline int j_pair(const char **p, const char *e, long *cp)
{
    if (*cp >= 0xDC00 && *cp <= 0xDFFF)
        return -1; /* a lone low surrogate */
    if (*cp < 0xD800 || *cp > 0xDBFF)
        return 0;
    long lo = -1;
    if (e - *p < 6 || **p != '\\' || j_escape(*p, e, &lo) != 6 || lo < 0xDC00 || lo > 0xDFFF)
        return -1; /* a high surrogate without its low half */
    *p += 6;
    *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
    return 0;
}

/* j->p just after the opening quote. On success j->p is just after the
 * closing quote and *end points to it; *esc tells whether escapes occur. */
static int j_string(jctx_t *j, const char **end, int *esc)
{
    const char *p = j->p, *e = j->e;
    *esc = 0;
    for (;;) {
#if defined(__SSE2__)
        while (e - p >= 16) { /* to the next special byte, 16 at a time */
            unsigned m = j_special16(p);
            if (m) {
                p += __builtin_ctz(m);
                break;
            }
            p += 16;
        }
#endif
        while (e - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            if (j_special8(w))
                break;
            p += 8;
        }
        if (p >= e)
            goto malformed;
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *end = p;
            j->p = p + 1;
            return NDD_OK;
        }
        if (c < 0x20)
            goto malformed;
        if (c == '\\') {
            long v;
            int l = j_escape(p, e, &v);
            *esc = 1;
            if (l == 0)
                goto malformed;
            if (l < 0)
                goto escape;
            p += l;
            continue;
        }
        p++;
    }
malformed:
    j->why = J_MALFORMED;
    return NDD_ERR_FORMAT;
escape:
    j->why = J_ESCAPE;
    return NDD_ERR_FORMAT;
}

/* A scan's failure: why it failed, NDD_ERR_FORMAT. */
static int j_fail(jctx_t *j, const char *why)
{
    j->why = why;
    return NDD_ERR_FORMAT;
}

/* j_string (the same checks, the same errors) that also decodes the string
 * into out as j_decode does, in the same pass: *bad = 1 (out left empty)
 * where the decoding fails on a surrogate; the scan then goes on as
 * j_string's. out has room for the rest of the input: the decoding only
 * shortens (an escape of 2, 6 or 12 bytes gives 1, at most 3 or 4). */
static int j_string_decode(jctx_t *j, const char **end, ndd_buf_t *out, int *bad)
{
    const char *p = j->p, *e = j->e;
    *bad = 0;
    ndd_buf_clear(out);
    if (ndd_buf_reserve(out, (size_t)(e - p)))
        return NDD_ERR_NOMEM;
    char *o = out->data;
    for (;;) {
#if defined(__SSE2__)
        while (e - p >= 16) { /* 16 bytes stored as they are, up to the next special byte */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            _mm_storeu_si128((__m128i *)(void *)o, v);
            unsigned m = j_special_v(v);
            if (m) {
                unsigned t = (unsigned)__builtin_ctz(m);
                p += t;
                o += t;
                break;
            }
            p += 16;
            o += 16;
        }
#endif
        while (p < e) {
            unsigned char c = (unsigned char)*p;
            if (c == '"' || c == '\\' || c < 0x20)
                break;
            *o++ = (char)c;
            p++;
        }
        if (p >= e)
            return j_fail(j, J_MALFORMED);
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *end = p;
            j->p = p + 1;
            out->len = *bad ? 0 : (size_t)(o - out->data);
            out->data[out->len] = '\0';
            return NDD_OK;
        }
        if (c < 0x20)
            return j_fail(j, J_MALFORMED);
        long cp;
        int l = j_escape(p, e, &cp);
        if (l <= 0)
            return j_fail(j, l == 0 ? J_MALFORMED : J_ESCAPE);
        p += l;
        if (l == 2)
            *o++ = (char)cp;
        else if (*bad) /* (decoding failed already: only the scan goes on) */
            ;
        else if (j_pair(&p, e, &cp)) /* (the bytes after a lone half are scanned as they come) */
            *bad = 1;
        else
            o += ndd_utf8_encode((uint32_t)cp, o);
    }
}

static int j_number(jctx_t *j)
{
    const char *p = j->p, *e = j->e;
    if (p < e && *p == '-')
        p++;
    if (p >= e)
        goto bad;
    if (*p == '0') {
        p++;
    } else if (*p >= '1' && *p <= '9') {
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    } else {
        goto bad;
    }
    if (p < e && *p == '.') {
        p++;
        if (p >= e || *p < '0' || *p > '9')
            goto bad;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p >= e || *p < '0' || *p > '9')
            goto bad;
        while (p < e && *p >= '0' && *p <= '9')
            p++;
    }
    j->p = p;
    return NDD_OK;
bad:
    j->why = J_MALFORMED;
    return NDD_ERR_FORMAT;
}

static int j_literal(jctx_t *j, const char *lit, size_t n)
{
    if ((size_t)(j->e - j->p) < n || memcmp(j->p, lit, n) != 0) {
        j->why = J_MALFORMED;
        return NDD_ERR_FORMAT;
    }
    j->p += n;
    return NDD_OK;
}

static int j_value(jctx_t *j, int depth, ndd_json_type_t *type, const char **vp, size_t *vn, ndd_json_want_t *dw);

static int j_object_body(jctx_t *j, int depth, ndd_json_want_t *want, size_t nwant);

static int j_array_body(jctx_t *j, int depth)
{
    ndd_json_type_t t;
    const char *vp;
    size_t vn;
    j_skip_ws(j);
    if (j->p < j->e && *j->p == ']') {
        j->p++;
        return NDD_OK;
    }
    for (;;) {
        int rc = j_value(j, depth, &t, &vp, &vn, NULL);
        if (rc)
            return rc;
        j_skip_ws(j);
        if (j->p >= j->e)
            break;
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p == ']') {
            j->p++;
            return NDD_OK;
        }
        break;
    }
    j->why = J_MALFORMED;
    return NDD_ERR_FORMAT;
}

/* dw: a wanted member whose string value is decoded as it is scanned (its
 * decode buffer), or NULL. */
static int j_value(jctx_t *j, int depth, ndd_json_type_t *type, const char **vp, size_t *vn, ndd_json_want_t *dw)
{
    int rc;
    j_skip_ws(j);
    if (j->p >= j->e)
        goto bad;
    *vp = j->p;
    switch (*j->p) {
    case '"': {
        const char *end;
        int esc, bad = 0;
        j->p++;
        *vp = j->p;
        if ((rc = dw ? j_string_decode(j, &end, dw->decode, &bad) : j_string(j, &end, &esc)))
            return rc;
        if (dw)
            dw->decoded = bad ? -1 : 1;
        *type = NDD_JSON_STRING;
        *vn = (size_t)(end - *vp);
        return NDD_OK;
    }
    case '{':
        if (depth >= NDD_JSON_MAX_DEPTH)
            goto bad;
        j->p++;
        if ((rc = j_object_body(j, depth + 1, NULL, 0)))
            return rc;
        *type = NDD_JSON_OBJECT;
        break;
    case '[':
        if (depth >= NDD_JSON_MAX_DEPTH)
            goto bad;
        j->p++;
        if ((rc = j_array_body(j, depth + 1)))
            return rc;
        *type = NDD_JSON_ARRAY;
        break;
    case 't':
        if ((rc = j_literal(j, "true", 4)))
            return rc;
        *type = NDD_JSON_BOOL;
        break;
    case 'f':
        if ((rc = j_literal(j, "false", 5)))
            return rc;
        *type = NDD_JSON_BOOL;
        break;
    case 'n':
        if ((rc = j_literal(j, "null", 4)))
            return rc;
        *type = NDD_JSON_NULL;
        break;
    default:
        if ((rc = j_number(j)))
            return rc;
        *type = NDD_JSON_NUMBER;
        break;
    }
    *vn = (size_t)(j->p - *vp);
    return NDD_OK;
bad:
    j->why = J_MALFORMED;
    return NDD_ERR_FORMAT;
}

/* Decodes p[0..n) into out (room for n bytes is enough); returns bytes written or -1. */
static long j_decode(const char *p, size_t n, char *out)
{
    const char *e = p + n;
    char *o = out;
    while (p < e) {
        const char *bs = NULL;
#if defined(__SSE2__)
        /* 16 bytes at a time up to the next backslash: o <= out + (p - start)
         * (decoding only shortens), so o + 16 stays within the n bytes */
        while (e - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));
            _mm_storeu_si128((__m128i *)(void *)o, v);
            if (m) {
                o += __builtin_ctz(m);
                p += __builtin_ctz(m);
                bs = p;
                break;
            }
            o += 16;
            p += 16;
        }
#endif
        if (!bs)
            bs = memchr(p, '\\', (size_t)(e - p));
        size_t run = bs ? (size_t)(bs - p) : (size_t)(e - p);
        memcpy(o, p, run);
        o += run;
        p += run;
        if (!bs)
            break;
        long cp;
        int l = j_escape(p, e, &cp); /* (the scan checked its syntax) */
        if (l <= 0)
            return -1;
        p += l;
        if (l == 2)
            *o++ = (char)cp;
        else if (j_pair(&p, e, &cp))
            return -1;
        else
            o += ndd_utf8_encode((uint32_t)cp, o);
    }
    return (long)(o - out);
}

static int j_key_matches(const char *kp, size_t kn, int esc, const char *key)
{
    size_t klen = strlen(key);
    if (!esc)
        return kn == klen && memcmp(kp, key, kn) == 0;
    char tmp[64];
    if (kn > sizeof tmp)
        return 0; /* an escaped key this long cannot decode to a short wanted key */
    long m = j_decode(kp, kn, tmp);
    return m >= 0 && (size_t)m == klen && memcmp(tmp, key, klen) == 0;
}

/* j->p just after '{'. */
static int j_object_body(jctx_t *j, int depth, ndd_json_want_t *want, size_t nwant)
{
    int rc;
    j_skip_ws(j);
    if (j->p < j->e && *j->p == '}') {
        j->p++;
        return NDD_OK;
    }
    for (;;) {
        j_skip_ws(j);
        if (j->p >= j->e || *j->p != '"')
            goto bad;
        j->p++;
        const char *kp = j->p, *kend;
        int esc;
        if ((rc = j_string(j, &kend, &esc)))
            return rc;
        j_skip_ws(j);
        if (j->p >= j->e || *j->p != ':')
            goto bad;
        j->p++;
        ndd_json_type_t t;
        const char *vp;
        size_t vn;
        /* the wanted members with this key (a bit each: nwant <= 64 here),
         * the first with a decode buffer decoding a string value as it goes */
        uint64_t hit = 0;
        ndd_json_want_t *dw = NULL;
        for (size_t i = 0; i < nwant; i++)
            if (j_key_matches(kp, (size_t)(kend - kp), esc, want[i].key)) {
                hit |= (uint64_t)1 << i;
                if (!dw && want[i].decode)
                    dw = &want[i];
            }
        if (dw)
            dw->decoded = 0; /* (set again when the value is a string) */
        if ((rc = j_value(j, depth, &t, &vp, &vn, dw)))
            return rc;
        for (size_t i = 0; i < nwant; i++) {
            if (hit >> i & 1) {
                want[i].type = t;
                want[i].p = vp;
                want[i].n = vn;
                if (want[i].decode && &want[i] != dw) /* a later member, not a string, or a second buffer */
                    want[i].decoded = 0;
            }
        }
        j_skip_ws(j);
        if (j->p >= j->e)
            goto bad;
        if (*j->p == ',') {
            j->p++;
            continue;
        }
        if (*j->p == '}') {
            j->p++;
            return NDD_OK;
        }
        goto bad;
    }
bad:
    j->why = J_MALFORMED;
    return NDD_ERR_FORMAT;
}

int ndd_json_object_scan(const char *s, size_t n, ndd_json_want_t *want, size_t nwant, const char **why)
{
    jctx_t j = {s, s + n, NULL};
    if (nwant > 64) { /* (a bit per wanted key while a member is scanned) */
        if (why)
            *why = "too many wanted keys";
        return NDD_ERR_INVAL;
    }
    for (size_t i = 0; i < nwant; i++) {
        want[i].type = NDD_JSON_ABSENT;
        want[i].p = NULL;
        want[i].n = 0;
        want[i].decoded = 0;
    }
    int rc;
    j_skip_ws(&j);
    if (j.p >= j.e || *j.p != '{') {
        j.why = J_MALFORMED;
        rc = NDD_ERR_FORMAT;
        goto out;
    }
    j.p++;
    if ((rc = j_object_body(&j, 1, want, nwant)))
        goto out;
    j_skip_ws(&j);
    if (j.p != j.e) {
        j.why = J_MALFORMED; /* garbage after the object */
        rc = NDD_ERR_FORMAT;
    }
out:
    if (rc && why)
        *why = j.why;
    return rc;
}

int ndd_json_string_decode(const char *p, size_t n, ndd_buf_t *out, const char **why)
{
    ndd_buf_clear(out);
    int rc = ndd_buf_reserve(out, n);
    if (rc)
        return rc;
    long m = j_decode(p, n, out->data);
    if (m < 0) {
        if (why)
            *why = J_ESCAPE;
        out->data[0] = '\0';
        return NDD_ERR_FORMAT;
    }
    out->len = (size_t)m;
    out->data[out->len] = '\0';
    return NDD_OK;
}

/* ndd_jtree.c - the small JSON tree of ndd_stats.h (RFC 8259), enough for
 * stats.json: every member kept, in document order. Hand-written (moved from
 * 'ndd stats'): the reader's ndd_json.h scans only the top-level keys of a
 * JSONL record, and a tree of a few hundred nodes needs no library. */
#include "ndd_stats.h"

#include <stdlib.h>
#include <string.h>

struct ndd_jv {
    ndd_jv_type_t t;
    int b;              /* NDD_JV_BOOL */
    double num;         /* NDD_JV_NUM */
    char *str;          /* NDD_JV_STR: decoded; NDD_JV_NUM: the number as written */
    size_t n;           /* NDD_JV_ARR / NDD_JV_OBJ: members */
    char **keys;        /* NDD_JV_OBJ */
    struct ndd_jv *kids; /* NDD_JV_ARR / NDD_JV_OBJ */
};

typedef struct {
    const char *s, *end;
    int depth;
    int rc; /* NDD_ERR_FORMAT, or NDD_ERR_NOMEM once an allocation failed */
} jparser_t;

#define J_MAX_DEPTH 64

/* Frees what v holds (not v itself). */
static void j_clear(ndd_jv_t *v)
{
    for (size_t i = 0; i < v->n; i++) {
        j_clear(&v->kids[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->kids);
    free(v->keys);
    free(v->str);
    memset(v, 0, sizeof *v);
}

void ndd_json_free(ndd_jv_t *v)
{
    if (!v)
        return;
    j_clear(v);
    free(v);
}

static void j_ws(jparser_t *p)
{
    while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r'))
        p->s++;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int j_hex4(jparser_t *p, uint32_t *v)
{
    if (p->end - p->s < 4)
        return -1;
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int h = hexval(p->s[i]);
        if (h < 0)
            return -1;
        *v = *v * 16 + (uint32_t)h;
    }
    p->s += 4;
    return 0;
}

/* The code point of a \u escape (p->s after the 'u'), surrogate pairs joined. */
static int j_uescape(jparser_t *p, uint32_t *cp)
{
    uint32_t lo;
    if (j_hex4(p, cp))
        return -1;
    if (*cp >= 0xD800 && *cp <= 0xDBFF) {
        if (p->end - p->s < 2 || p->s[0] != '\\' || p->s[1] != 'u')
            return -1;
        p->s += 2;
        if (j_hex4(p, &lo) || lo < 0xDC00 || lo > 0xDFFF)
            return -1;
        *cp = 0x10000 + ((*cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (*cp >= 0xDC00 && *cp <= 0xDFFF) {
        return -1;
    }
    return 0;
}

/* The character of a one-letter escape; 0 when e is not one. */
static char j_escape(char e)
{
    switch (e) {
    case '"': return '"';
    case '\\': return '\\';
    case '/': return '/';
    case 'b': return '\b';
    case 'f': return '\f';
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    default: return 0;
    }
}

/* Parses a string (p->s at the opening quote) into a new NUL-terminated copy. */
static int j_string(jparser_t *p, char **out)
{
    ndd_buf_t b = NDD_BUF_INIT;
    int mem = 0;
    p->s++;
    while (p->s < p->end && *p->s != '"') {
        char c = *p->s++, o;
        if ((unsigned char)c < 0x20)
            goto bad;
        if (c != '\\') {
            if ((mem = ndd_buf_putc(&b, c)))
                goto bad;
            continue;
        }
        if (p->s >= p->end)
            goto bad;
        char e = *p->s++;
        if (e == 'u') {
            uint32_t cp;
            char u[4];
            if (j_uescape(p, &cp))
                goto bad;
            size_t k = ndd_utf8_encode(cp, u);
            if (!k || (mem = ndd_buf_append(&b, u, k)))
                goto bad;
            continue;
        }
        if (!(o = j_escape(e)) || (mem = ndd_buf_putc(&b, o)))
            goto bad;
    }
    if (p->s >= p->end)
        goto bad;
    p->s++;
    if (!b.data && (mem = ndd_buf_reserve(&b, 1)))
        goto bad;
    *out = b.data;
    return 0;
bad:
    if (mem)
        p->rc = NDD_ERR_NOMEM;
    ndd_buf_free(&b);
    return -1;
}

static int j_value(jparser_t *p, ndd_jv_t *v);

static int j_push(jparser_t *p, ndd_jv_t *v, size_t *cap)
{
    if (v->n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 8;
    ndd_jv_t *k = realloc(v->kids, nc * sizeof *k);
    if (!k)
        goto nomem;
    v->kids = k;
    if (v->t == NDD_JV_OBJ) {
        char **ks = realloc(v->keys, nc * sizeof *ks);
        if (!ks)
            goto nomem;
        v->keys = ks;
    }
    *cap = nc;
    return 0;
nomem:
    p->rc = NDD_ERR_NOMEM;
    return -1;
}

/* "key": of an object member, into v->keys[v->n]. */
static int j_key(jparser_t *p, ndd_jv_t *v)
{
    char *key = NULL;
    j_ws(p);
    if (p->s >= p->end || *p->s != '"' || j_string(p, &key))
        return -1;
    j_ws(p);
    if (p->s >= p->end || *p->s != ':') {
        free(key);
        return -1;
    }
    p->s++;
    v->keys[v->n] = key;
    return 0;
}

static int j_container(jparser_t *p, ndd_jv_t *v, char close)
{
    size_t cap = 0;
    if (++p->depth > J_MAX_DEPTH)
        return -1;
    p->s++;
    j_ws(p);
    if (p->s < p->end && *p->s == close) {
        p->s++;
        p->depth--;
        return 0;
    }
    for (;;) {
        if (j_push(p, v, &cap))
            return -1;
        if (v->t == NDD_JV_OBJ && j_key(p, v))
            return -1;
        memset(&v->kids[v->n], 0, sizeof v->kids[v->n]);
        v->n++; /* counted before parsing so that j_clear releases a partial member */
        if (j_value(p, &v->kids[v->n - 1]))
            return -1;
        j_ws(p);
        if (p->s < p->end && *p->s == ',') {
            p->s++;
            continue;
        }
        if (p->s < p->end && *p->s == close) {
            p->s++;
            p->depth--;
            return 0;
        }
        return -1;
    }
}

static const char *j_digits(const char *q, const char *end)
{
    while (q < end && *q >= '0' && *q <= '9')
        q++;
    return q;
}

/* number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int j_number(jparser_t *p, ndd_jv_t *v)
{
    const char *q = p->s;
    if (q < p->end && *q == '-')
        q++;
    if (q >= p->end || *q < '0' || *q > '9')
        return -1;
    q = *q == '0' ? q + 1 : j_digits(q, p->end);
    if (q < p->end && *q == '.') {
        q++;
        if (q >= p->end || *q < '0' || *q > '9')
            return -1;
        q = j_digits(q, p->end);
    }
    if (q < p->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < p->end && (*q == '+' || *q == '-'))
            q++;
        if (q >= p->end || *q < '0' || *q > '9')
            return -1;
        q = j_digits(q, p->end);
    }
    size_t len = (size_t)(q - p->s);
    v->t = NDD_JV_NUM;
    v->str = malloc(len + 1);
    if (!v->str) {
        p->rc = NDD_ERR_NOMEM;
        return -1;
    }
    memcpy(v->str, p->s, len);
    v->str[len] = 0;
    v->num = strtod(v->str, NULL);
    p->s = q;
    return 0;
}

static int j_value(jparser_t *p, ndd_jv_t *v)
{
    j_ws(p);
    if (p->s >= p->end)
        return -1;
    char c = *p->s;
    if (c == '{') {
        v->t = NDD_JV_OBJ;
        return j_container(p, v, '}');
    }
    if (c == '[') {
        v->t = NDD_JV_ARR;
        return j_container(p, v, ']');
    }
    if (c == '"') {
        v->t = NDD_JV_STR;
        return j_string(p, &v->str);
    }
    static const struct {
        const char *w;
        ndd_jv_type_t t;
        int b;
    } lits[] = {{"true", NDD_JV_BOOL, 1}, {"false", NDD_JV_BOOL, 0}, {"null", NDD_JV_NULL, 0}};
    for (size_t i = 0; i < 3; i++) {
        size_t l = strlen(lits[i].w);
        if ((size_t)(p->end - p->s) >= l && !memcmp(p->s, lits[i].w, l)) {
            v->t = lits[i].t;
            v->b = lits[i].b;
            p->s += l;
            return 0;
        }
    }
    return j_number(p, v);
}

int ndd_json_parse_at(const char *s, size_t n, ndd_jv_t **root, size_t *at)
{
    if (!s) { /* an empty input (NULL + 0 would be undefined) */
        s = "";
        n = 0;
    }
    jparser_t p = {s, s + n, 0, NDD_ERR_FORMAT};
    ndd_jv_t *v = calloc(1, sizeof *v);
    *root = NULL;
    if (at)
        *at = 0;
    if (!v)
        return NDD_ERR_NOMEM;
    int bad = j_value(&p, v);
    if (!bad) {
        j_ws(&p);
        bad = p.s != p.end;
    }
    if (bad) {
        if (at)
            *at = (size_t)(p.s - s);
        ndd_json_free(v);
        return p.rc;
    }
    *root = v;
    return NDD_OK;
}

int ndd_json_parse(const char *s, size_t n, ndd_jv_t **root) { return ndd_json_parse_at(s, n, root, NULL); }

ndd_jv_type_t ndd_json_type(const ndd_jv_t *v) { return v ? v->t : NDD_JV_ABSENT; }

size_t ndd_json_count(const ndd_jv_t *v) { return v && (v->t == NDD_JV_ARR || v->t == NDD_JV_OBJ) ? v->n : 0; }

const ndd_jv_t *ndd_json_item(const ndd_jv_t *v, size_t i) { return i < ndd_json_count(v) ? &v->kids[i] : NULL; }

const char *ndd_json_key(const ndd_jv_t *v, size_t i)
{
    return v && v->t == NDD_JV_OBJ && i < v->n ? v->keys[i] : NULL;
}

const ndd_jv_t *ndd_json_member(const ndd_jv_t *obj, const char *key)
{
    if (!obj || obj->t != NDD_JV_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return &obj->kids[i];
    return NULL;
}

const ndd_jv_t *ndd_json_get(const ndd_jv_t *obj, const char *path)
{
    char seg[256];
    while (obj && *path) {
        const char *dot = strchr(path, '.');
        size_t l = dot ? (size_t)(dot - path) : strlen(path);
        if (l >= sizeof seg)
            return NULL;
        memcpy(seg, path, l);
        seg[l] = 0;
        obj = ndd_json_member(obj, seg);
        path += l + (dot != NULL);
    }
    return obj;
}

int ndd_json_number(const ndd_jv_t *v, double *out)
{
    if (!v || v->t != NDD_JV_NUM)
        return 0;
    *out = v->num;
    return 1;
}

const char *ndd_json_str(const ndd_jv_t *v) { return v && v->t == NDD_JV_STR ? v->str : NULL; }

const char *ndd_json_numtext(const ndd_jv_t *v) { return v && v->t == NDD_JV_NUM ? v->str : NULL; }

int ndd_json_bool(const ndd_jv_t *v, int *out)
{
    if (!v || v->t != NDD_JV_BOOL)
        return 0;
    *out = v->b;
    return 1;
}

/* test_sig.c - paper-002 signatures: MD5 known answers, ring rotation, a
 * hand-worked projection, a brute-force oracle, parameter checks, and the
 * template-robustness measurement on real Reuters text. */
#include "ndd_test.h"
#include "ndd_sig.h"
#include "ndd_text.h"

#include <math.h>
#include <xxhash.h> /* the library's XXH3, not inlined: what ndd_sig_key's inlined one must equal */

/* ------------------------------------------------------------------ helpers */

static void hex16(const uint8_t b[16], char out[33])
{
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static void assert_hex16(const uint8_t b[16], const char *want)
{
    char h[33];
    hex16(b, h);
    assert_string_equal(h, want);
}

/* Spans of NUL-separated sentences laid out in one buffer. */
typedef struct {
    char *text;
    size_t len;
    ndd_span_t sp[64];
    size_t ns;
} sent_doc_t;

static void sd_init(sent_doc_t *d, const char *const *sents, size_t n)
{
    size_t tot = 0;
    for (size_t i = 0; i < n; i++)
        tot += strlen(sents[i]) + 1;
    d->text = malloc(tot + 1);
    assert_non_null(d->text);
    d->len = 0;
    d->ns = n;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(sents[i]);
        memcpy(d->text + d->len, sents[i], l);
        d->sp[i].off = (uint32_t)d->len;
        d->sp[i].len = (uint32_t)l;
        d->len += l;
        d->text[d->len++] = '\n';
    }
    d->text[d->len] = '\0';
}

static void sig_of(const ndd_sig_params_t *p, const sent_doc_t *d, ndd_sig_t *out, size_t *nout)
{
    ndd_sig_ctx_t *c = NULL;
    assert_int_equal(ndd_sig_ctx_create(&c, p), NDD_OK);
    assert_int_equal(ndd_sig_spans(c, d->text, d->sp, d->ns, out, nout), NDD_OK);
    ndd_sig_ctx_free(c);
}

/* ------------------------------------------------------------ known answers */

static void test_md5_rfc1321(void **state)
{
    (void)state;
    static const char *const v[][2] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"1234567890123456789012345678901234567890123456789012345678901234567890"
         "1234567890",
         "57edf4a22be3c955ac49da2e2107b67a"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t d[16];
        ndd_md5(v[i][0], strlen(v[i][0]), d);
        assert_hex16(d, v[i][1]);
    }
}

/* ndd_md5_spans against the library one sentence at a time (ndd_md5): every
 * length 0..300 (the padding's edges at 55, 56, 63, 64, 119, 120, ..) in one
 * call, so that lanes end at every block; then random spans of random
 * documents, n below and above NDD_MD5X_MIN and the 16 lanes; both paths. */
static void test_md5_spans(void **state)
{
    (void)state;
    enum { L = 301, N = 700 };
    static char text[L * 2 + 4096];
    static ndd_span_t sp[N];
    static uint8_t got[N][16], want[16];
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < sizeof text; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        text[i] = (char)(x >> 56);
    }
    for (unsigned isa = 0; isa < 2; isa++) {
        unsigned old = ndd_md5_isa(isa);
        for (uint32_t l = 0; l < L; l++) /* lengths 0..300, each at its own offset */
            sp[l] = (ndd_span_t){(uint32_t)(l * 7 % 1024), l};
        ndd_md5_spans(text, sp, L, got);
        for (uint32_t l = 0; l < L; l++) {
            ndd_md5(text + sp[l].off, sp[l].len, want);
            assert_memory_equal(got[l], want, 16);
        }
        for (int round = 0; round < 200; round++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            size_t n = (size_t)(x >> 33) % (round < 50 ? 20 : N);
            for (size_t i = 0; i < n; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                uint32_t len = (uint32_t)(x >> 60) ? (uint32_t)(x >> 40) % 260 : (uint32_t)(x >> 40) % 2048;
                sp[i] = (ndd_span_t){(uint32_t)(x >> 20) % (uint32_t)(sizeof text - len), len};
            }
            ndd_md5_spans(text, sp, n, got);
            for (size_t i = 0; i < n; i++) {
                ndd_md5(text + sp[i].off, sp[i].len, want);
                assert_memory_equal(got[i], want, 16);
            }
        }
        ndd_md5_isa(old);
    }
}

static void test_ring_rotate(void **state)
{
    (void)state;
    uint8_t d[16], r[16];
    ndd_md5("abc", 3, d); /* 900150983cd24fb0d6963f7d28e17f72 */
    ndd_ring_rotate(d, 0, r);
    assert_hex16(r, "900150983cd24fb0d6963f7d28e17f72");
    ndd_ring_rotate(d, 1, r);
    assert_hex16(r, "0150983cd24fb0d6963f7d28e17f7290");
    ndd_ring_rotate(d, 5, r);
    assert_hex16(r, "d24fb0d6963f7d28e17f72900150983c");
    ndd_ring_rotate(d, 15, r);
    assert_hex16(r, "72900150983cd24fb0d6963f7d28e17f");
    /* 16 rotations are 16 distinct fingerprints holding the same bytes */
    for (unsigned a = 0; a < 16; a++) {
        uint8_t ra[16];
        ndd_ring_rotate(d, a, ra);
        for (unsigned b = a + 1; b < 16; b++) {
            uint8_t rb[16];
            ndd_ring_rotate(d, b, rb);
            assert_true(memcmp(ra, rb, 16) != 0);
        }
    }
}

/* ------------------------------------------------- hand-worked projections */

/* m = 1, n = 1: one slot (rotation 0, class 0) holding every sentence. */
static void test_projection_hand(void **state)
{
    (void)state;
    ndd_sig_params_t p;
    ndd_sig_t out[NDD_SIG_MAX];
    size_t no;
    ndd_sig_params_default(&p);
    p.m = 1;
    p.n = 1;
    p.k = 3;

    /* (1) Three sentences, lengths 20, 40, 99:
     *   MD5 0d011ef9177f5a369359772ae838037a  w = 1 + ln 20 = 3.9957
     *       ecb6c4717ac087fef41caa2201e06e7c  w = 1 + ln 40 = 4.6889
     *       a55cb94a8a259de6213a222e4455753b  w = 1 + ln 99 = 5.5951
     * Every weight is below the sum of the other two (5.5951 < 8.6846), so a
     * bit's sum is positive exactly when at least two of the three have a 1
     * there: the signature is the bitwise majority
     *   (a&b)|(a&c)|(b&c) = ad149c791a659ff6b118222a4070677a. */
    {
        const char *s[] = {
            "Twenty byte sentence",
            "This sentence is exactly forty bytes ok.",
            "A sentence of one hundred bytes, padded with words to reach that exact length for "
            "the hand check ok",
        };
        sent_doc_t d;
        sd_init(&d, s, 3);
        assert_int_equal(d.sp[2].len, 99);
        sig_of(&p, &d, out, &no);
        assert_int_equal(no, 1);
        assert_int_equal(out[0].slot, 0);
        assert_hex16(out[0].bits, "ad149c791a659ff6b118222a4070677a");
        free(d.text);
    }
    /* (2) Lengths 17, 18, 5000: w = 3.8332, 3.8904, 9.5172. The heavy one
     * outweighs the two others together (9.5172 > 7.7236), so the signature
     * is its fingerprint a1afb2336d5b67da1f874c942dcf58f3 ("y" x 5000). */
    {
        char *big = malloc(5001);
        assert_non_null(big);
        memset(big, 'y', 5000);
        big[5000] = '\0';
        const char *s[] = {"Seventeen bytes!!", "Eighteen bytes ok!", big};
        sent_doc_t d;
        sd_init(&d, s, 3);
        sig_of(&p, &d, out, &no);
        assert_int_equal(no, 1);
        assert_hex16(out[0].bits, "a1afb2336d5b67da1f874c942dcf58f3");
        free(d.text);
        free(big);
    }
    /* (3) Tie: two 20-byte sentences have equal weights, so where their bits
     * differ the sum is exactly 0 (non-positive -> 0) and where both are 1 it
     * is positive: the signature is the AND of
     *   0d011ef9177f5a369359772ae838037a and MD5("Another twenty bytes")
     *   = 04001471070d1a028210440a28080130. */
    {
        const char *s[] = {"Twenty byte sentence", "Another twenty bytes"};
        sent_doc_t d;
        sd_init(&d, s, 2);
        p.k = 2;
        sig_of(&p, &d, out, &no);
        assert_int_equal(no, 1);
        assert_hex16(out[0].bits, "04001471070d1a028210440a28080130");
        /* the same sentence twice counts once: k = 2 still gives its fingerprint */
        const char *s2[] = {"Twenty byte sentence", "Twenty byte sentence"};
        sent_doc_t d2;
        sd_init(&d2, s2, 2);
        sig_of(&p, &d2, out, &no);
        assert_int_equal(no, 1);
        assert_hex16(out[0].bits, "0d011ef9177f5a369359772ae838037a");
        free(d.text);
        free(d2.text);
    }
    /* (4) Classes: "abc" alone, m = 7, n = 3, k = 1. Rotations as 128-bit
     * big-endian integers mod 7 (computed with Python big ints):
     *   r0 900150983cd24fb0d6963f7d28e17f72 mod 7 = 0 -> slot 0*7+0 = 0
     *   r1 0150983cd24fb0d6963f7d28e17f7290 mod 7 = 2 -> slot 1*7+2 = 9
     *   r2 50983cd24fb0d6963f7d28e17f729001 mod 7 = 5 -> slot 2*7+5 = 19
     * and with k = 1 a signature is the fingerprint itself. */
    {
        const char *s[] = {"abc"};
        sent_doc_t d;
        sd_init(&d, s, 1);
        p.m = 7;
        p.n = 3;
        p.k = 1;
        sig_of(&p, &d, out, &no);
        assert_int_equal(no, 3);
        assert_int_equal(out[0].slot, 0);
        assert_hex16(out[0].bits, "900150983cd24fb0d6963f7d28e17f72");
        assert_int_equal(out[1].slot, 9);
        assert_hex16(out[1].bits, "0150983cd24fb0d6963f7d28e17f7290");
        assert_int_equal(out[2].slot, 19);
        assert_hex16(out[2].bits, "50983cd24fb0d6963f7d28e17f729001");
        free(d.text);
    }
}

/* ------------------------------------------------------------ brute force */

typedef struct {
    uint8_t d[16];
    size_t len;
} bf_fp_t;

typedef struct {
    uint8_t v[16];
    double w;
} bf_rot_t;

static int bf_cmp_fp(const void *a, const void *b)
{
    return memcmp(((const bf_fp_t *)a)->d, ((const bf_fp_t *)b)->d, 16);
}

static int bf_cmp_rot(const void *a, const void *b)
{
    return memcmp(((const bf_rot_t *)a)->v, ((const bf_rot_t *)b)->v, 16);
}

/* Straight from the paper, slowly: full 128-bit mod by long division over the
 * bytes, all fingerprints of a class sorted, k smallest projected. */
static void brute_sig(const ndd_sig_params_t *p, const char *text, const ndd_span_t *sp, size_t ns,
                      ndd_sig_t *out, size_t *nout)
{
    bf_fp_t *fp = calloc(ns + 1, sizeof *fp);
    bf_rot_t *cl = calloc(ns + 1, sizeof *cl);
    assert_non_null(fp);
    assert_non_null(cl);
    for (size_t i = 0; i < ns; i++) {
        ndd_md5(text + sp[i].off, sp[i].len, fp[i].d);
        fp[i].len = sp[i].len;
    }
    qsort(fp, ns, sizeof *fp, bf_cmp_fp);
    size_t nu = 0;
    for (size_t i = 0; i < ns; i++)
        if (nu == 0 || memcmp(fp[nu - 1].d, fp[i].d, 16) != 0)
            fp[nu++] = fp[i];
    *nout = 0;
    for (unsigned r = 0; r < p->n; r++) {
        for (unsigned cls = 0; cls < p->m; cls++) {
            size_t nc = 0;
            for (size_t i = 0; i < nu; i++) {
                uint8_t rot[16];
                ndd_ring_rotate(fp[i].d, r, rot);
                unsigned rem = 0;
                for (int j = 0; j < 16; j++)
                    rem = (rem * 256 + rot[j]) % p->m;
                if (rem != cls)
                    continue;
                memcpy(cl[nc].v, rot, 16);
                cl[nc].w = 1.0 + log((double)fp[i].len);
                nc++;
            }
            if (!nc)
                continue;
            qsort(cl, nc, sizeof *cl, bf_cmp_rot);
            size_t take = (p->k == NDD_SIG_K_ALL || p->k > nc) ? nc : p->k;
            ndd_sig_t *s = &out[(*nout)++];
            s->slot = (uint16_t)(r * p->m + cls);
            memset(s->bits, 0, 16);
            for (int b = 0; b < 128; b++) {
                double acc = 0.0;
                for (size_t j = 0; j < take; j++)
                    acc += ((cl[j].v[b / 8] >> (7 - b % 8)) & 1) ? cl[j].w : -cl[j].w;
                if (acc > 0.0)
                    s->bits[b / 8] |= (uint8_t)(1u << (7 - b % 8));
            }
        }
    }
    free(fp);
    free(cl);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    /* splitmix64: deterministic across platforms */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A random document: sentences drawn from a small pool (so duplicates occur
 * inside a document and lengths repeat, giving exact weight ties). */
static size_t random_doc(char *text, size_t cap, ndd_span_t *sp, size_t maxs)
{
    static char pool[40][320];
    static size_t plen[40];
    static int pool_ready = 0;
    if (!pool_ready) {
        for (int i = 0; i < 40; i++) {
            plen[i] = 17 + rnd() % (i < 10 ? 4 : 290); /* the first 10: 17..20 bytes */
            for (size_t j = 0; j < plen[i]; j++)
                pool[i][j] = (char)('a' + rnd() % 26);
        }
        pool_ready = 1;
    }
    size_t ns = rnd() % (maxs + 1), len = 0;
    for (size_t i = 0; i < ns; i++) {
        int which = (int)(rnd() % 40);
        size_t l = plen[which];
        if (rnd() % 3 == 0) { /* fresh random sentence */
            which = -1;
            l = 17 + rnd() % 200;
        }
        assert_true(len + l + 1 < cap);
        for (size_t j = 0; j < l; j++)
            text[len + j] = which < 0 ? (char)('a' + rnd() % 26) : pool[which][j];
        sp[i].off = (uint32_t)len;
        sp[i].len = (uint32_t)l;
        len += l;
        text[len++] = ' ';
    }
    return ns;
}

static void test_brute_force_oracle(void **state)
{
    (void)state;
    static const unsigned cfg[][3] = {
        /* m, n, k */
        {7, 16, 1}, {7, 16, 2}, {7, 16, 3}, {7, 16, 4}, {7, 16, 5}, {7, 16, NDD_SIG_K_ALL},
        {1, 1, 3},  {3, 5, 2},  {13, 16, 3}, {16, 16, 2}, {256, 1, 2}, {10, 7, 8},
        {17, 15, 2}, {100, 2, 3}, {2, 16, 1}, {16, 9, 4},
    };
    static char text[70000];
    ndd_span_t sp[200];
    ndd_sig_t fast[NDD_SIG_MAX], slow[NDD_SIG_MAX];
    size_t total_sigs = 0;
    for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
        ndd_sig_params_t p;
        ndd_sig_params_default(&p);
        p.m = cfg[c][0];
        p.n = cfg[c][1];
        p.k = cfg[c][2];
        ndd_sig_ctx_t *ctx = NULL;
        assert_int_equal(ndd_sig_ctx_create(&ctx, &p), NDD_OK);
        for (int it = 0; it < 40; it++) {
            size_t ns = random_doc(text, sizeof text, sp, it % 10 == 0 ? 200 : 30);
            size_t nf = 0, nb = 0;
            assert_int_equal(ndd_sig_spans(ctx, text, sp, ns, fast, &nf), NDD_OK);
            brute_sig(&p, text, sp, ns, slow, &nb);
            assert_int_equal(nf, nb);
            for (size_t i = 0; i < nf; i++) {
                assert_int_equal(fast[i].slot, slow[i].slot);
                assert_memory_equal(fast[i].bits, slow[i].bits, 16);
            }
            if (ns > 0)
                assert_true(nf > 0);
            total_sigs += nf;
        }
        ndd_sig_ctx_free(ctx);
    }
    assert_true(total_sigs > 10000); /* the oracle really compared something */
}

/* The same document always gives the same signatures, whatever the context
 * processed before (workspace reuse must not leak state). */
static void test_deterministic(void **state)
{
    (void)state;
    static char text[70000], other[70000];
    ndd_span_t sp[200], sp2[200];
    ndd_sig_t a[NDD_SIG_MAX], b[NDD_SIG_MAX];
    size_t na, nb;
    ndd_sig_params_t p;
    ndd_sig_params_default(&p);
    ndd_sig_ctx_t *c1 = NULL, *c2 = NULL;
    assert_int_equal(ndd_sig_ctx_create(&c1, &p), NDD_OK);
    assert_int_equal(ndd_sig_ctx_create(&c2, &p), NDD_OK);
    size_t ns = 0;
    while (ns < 5)
        ns = random_doc(text, sizeof text, sp, 60);
    assert_int_equal(ndd_sig_spans(c1, text, sp, ns, a, &na), NDD_OK);
    for (int i = 0; i < 5; i++) {
        size_t ns2 = random_doc(other, sizeof other, sp2, 120);
        assert_int_equal(ndd_sig_spans(c2, other, sp2, ns2, b, &nb), NDD_OK);
    }
    assert_int_equal(ndd_sig_spans(c2, text, sp, ns, b, &nb), NDD_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof a[0]);
    /* keys follow the signature, and are the library's XXH3 of (slot LE16, bits) */
    for (size_t i = 0; i < na; i++) {
        uint8_t kb[18] = {(uint8_t)(a[i].slot & 0xff), (uint8_t)(a[i].slot >> 8)};
        memcpy(kb + 2, a[i].bits, 16);
        assert_true(ndd_sig_key(&a[i]) == ndd_sig_key(&b[i]));
        assert_true(ndd_sig_key(&a[i]) == XXH3_64bits(kb, sizeof kb));
    }
    ndd_sig_t x = a[0];
    x.slot ^= 1;
    assert_true(ndd_sig_key(&x) != ndd_sig_key(&a[0]));
    ndd_sig_ctx_free(c1);
    ndd_sig_ctx_free(c2);
}

static void test_params(void **state)
{
    (void)state;
    ndd_sig_params_t p, q;
    ndd_sig_ctx_t *c = NULL;
    ndd_sig_params_default(&p);
    assert_int_equal(p.m, 7);
    assert_int_equal(p.n, 16);
    assert_int_equal(p.min_sentence, 17);
    assert_int_equal(ndd_sig_params_check(&p), NDD_OK);
    q = p; q.n = 0;
    assert_int_equal(ndd_sig_params_check(&q), NDD_ERR_INVAL);
    assert_int_equal(ndd_sig_ctx_create(&c, &q), NDD_ERR_INVAL);
    assert_null(c);
    q = p; q.n = 17;
    assert_int_equal(ndd_sig_params_check(&q), NDD_ERR_INVAL);
    q = p; q.m = 0;
    assert_int_equal(ndd_sig_params_check(&q), NDD_ERR_INVAL);
    q = p; q.m = 17; q.n = 16; /* 272 > NDD_SIG_MAX */
    assert_int_equal(ndd_sig_params_check(&q), NDD_ERR_INVAL);
    assert_int_equal(ndd_sig_ctx_create(&c, &q), NDD_ERR_INVAL);
    q = p; q.m = 16; q.n = 16; /* exactly 256 */
    assert_int_equal(ndd_sig_params_check(&q), NDD_OK);
    q = p; q.m = 257; q.n = 1;
    assert_int_equal(ndd_sig_params_check(&q), NDD_ERR_INVAL);
    q = p; q.k = NDD_SIG_K_MAX + 1;
    assert_int_equal(ndd_sig_params_check(&q), NDD_ERR_INVAL);
    q = p; q.min_sentence = 0;
    assert_int_equal(ndd_sig_params_check(&q), NDD_ERR_INVAL);
    assert_int_equal(ndd_sig_params_check(NULL), NDD_ERR_INVAL);
    assert_int_equal(ndd_sig_ctx_create(&c, &p), NDD_OK);
    assert_non_null(c);
    assert_int_equal(ndd_sig_ctx_params(c)->k, p.k);
    ndd_sig_ctx_free(c);
    ndd_sig_ctx_free(NULL);
}

/* ------------------------------------------------- template robustness */

/* Reuters-21578 bodies wrapped in site templates: two copies of one article
 * in different templates should share most signatures, two different
 * articles in the same template almost none. Prints the table that
 * docs/signatures.md reproduces. */

#define TR_NART 200       /* articles measured */
#define TR_NTPL 5         /* site templates */
#define TR_POOL 60        /* headlines for "related articles" lists (other stories) */

typedef struct {
    char *title; /* HTML-escaped as in the SGML (entities kept) */
    char *body;  /* paragraphs separated by '\n' */
    size_t body_len;
} tr_art_t;

/* SGML (Latin-1, entities) -> UTF-8 HTML-safe text: control-character
 * entities (&#3; ...) dropped, '<' and '&' kept as entities, Latin-1 bytes
 * re-encoded; hard line wraps become spaces, a line starting with spaces
 * starts a paragraph ('\n'). */
static char *tr_clean(const char *s, size_t n, size_t *outn)
{
    ndd_buf_t b = NDD_BUF_INIT;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\n'))
        i++;
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '&' && i + 2 < n && s[i + 1] == '#') {
            size_t j = i + 2;
            unsigned v = 0;
            while (j < n && s[j] >= '0' && s[j] <= '9')
                v = v * 10 + (unsigned)(s[j++] - '0');
            if (j < n && s[j] == ';' && v < 32) {
                i = j;
                continue;
            }
        }
        if (c == '\n') {
            if (i + 1 < n && s[i + 1] == ' ') {
                while (i + 1 < n && s[i + 1] == ' ')
                    i++;
                ndd_buf_putc(&b, '\n');
            } else {
                ndd_buf_putc(&b, ' ');
            }
            continue;
        }
        if (c >= 0x80) {
            ndd_buf_putc(&b, (char)(0xc0 | (c >> 6)));
            ndd_buf_putc(&b, (char)(0x80 | (c & 0x3f)));
            continue;
        }
        if (c < 32)
            continue;
        ndd_buf_putc(&b, (char)c);
    }
    while (b.len && (b.data[b.len - 1] == ' ' || b.data[b.len - 1] == '\n'))
        b.data[--b.len] = '\0';
    return ndd_buf_steal(&b, outn);
}

static const char *tr_find(const char *s, const char *end, const char *pat)
{
    size_t pn = strlen(pat);
    for (const char *p = s; p + pn <= end; p++)
        if (*p == *pat && memcmp(p, pat, pn) == 0)
            return p;
    return NULL;
}

/* Loads distinct bodies of 700..2600 bytes (the first TR_NART) and TR_POOL
 * titles of other stories. Returns 0 when the corpus is absent. */
static int tr_load(tr_art_t *arts, size_t *nart, char **pool, size_t *npool)
{
    char dir[512];
    if (!ndd_test_dataset("reuters21578", dir, sizeof dir))
        return 0;
    *nart = *npool = 0;
    uint8_t (*seen)[16] = calloc(25000, 16);
    size_t nseen = 0;
    assert_non_null(seen);
    for (int f = 0; f < 22 && (*nart < TR_NART || *npool < TR_POOL); f++) {
        char path[600];
        char *data = NULL;
        size_t len = 0;
        snprintf(path, sizeof path, "%s/reut2-%03d.sgm", dir, f);
        assert_int_equal(ndd_read_file(path, 0, &data, &len), NDD_OK);
        const char *p = data, *end = data + len;
        while ((p = tr_find(p, end, "<REUTERS")) != NULL) {
            const char *q = tr_find(p + 8, end, "</REUTERS>");
            if (!q)
                break;
            const char *t0 = tr_find(p, q, "<TITLE>"), *t1 = t0 ? tr_find(t0, q, "</TITLE>") : NULL;
            const char *b0 = tr_find(p, q, "<BODY>"), *b1 = b0 ? tr_find(b0, q, "</BODY>") : NULL;
            p = q;
            if (!t0 || !t1)
                continue;
            size_t tn = 0, bn = 0;
            char *title = tr_clean(t0 + 7, (size_t)(t1 - t0 - 7), &tn);
            char *body = b0 && b1 ? tr_clean(b0 + 6, (size_t)(b1 - b0 - 6), &bn) : NULL;
            uint8_t h[16];
            ndd_md5(body ? body : "", bn, h);
            int dup = 0;
            for (size_t i = 0; i < nseen && !dup; i++)
                dup = memcmp(seen[i], h, 16) == 0;
            if (body && !dup && bn >= 700 && bn <= 2600 && tn > 0 && *nart < TR_NART) {
                memcpy(seen[nseen++], h, 16);
                arts[*nart].title = title;
                arts[*nart].body = body;
                arts[*nart].body_len = bn;
                (*nart)++;
                continue;
            }
            if (tn >= 20 && *npool < TR_POOL && !dup) {
                pool[(*npool)++] = title;
                title = NULL;
            }
            free(title);
            free(body);
        }
        free(data);
    }
    free(seen);
    return *nart == TR_NART && *npool == TR_POOL;
}

static void tr_paragraphs(ndd_buf_t *b, const tr_art_t *a, const char *open, const char *close)
{
    const char *s = a->body, *e = a->body + a->body_len;
    while (s < e) {
        const char *nl = memchr(s, '\n', (size_t)(e - s));
        if (!nl)
            nl = e;
        ndd_buf_puts(b, open);
        ndd_buf_append(b, s, (size_t)(nl - s));
        ndd_buf_puts(b, close);
        s = nl + 1;
    }
}

static void tr_links(ndd_buf_t *b, const char *const *names, size_t n, const char *before,
                     const char *after, const char *sep)
{
    for (size_t i = 0; i < n; i++) {
        if (i && sep)
            ndd_buf_puts(b, sep);
        ndd_buf_puts(b, before);
        ndd_buf_puts(b, "<a href=\"/");
        ndd_buf_puts(b, names[i]);
        ndd_buf_puts(b, "\">");
        ndd_buf_puts(b, names[i]);
        ndd_buf_puts(b, "</a>");
        ndd_buf_puts(b, after);
    }
}

/* The related-articles list of a page: 4 headlines of the template's 12
 * (chosen per page, as real sites do). */
static void tr_related(ndd_buf_t *b, char *const *pool, int tpl, size_t page, const char *before,
                       const char *after)
{
    for (size_t i = 0; i < 4; i++) {
        size_t h = (size_t)tpl * 12 + (page * 7 + i * 5) % 12;
        ndd_buf_puts(b, before);
        ndd_buf_puts(b, "<a href=\"/story/");
        char num[32];
        snprintf(num, sizeof num, "%zu", h);
        ndd_buf_puts(b, num);
        ndd_buf_puts(b, "\">");
        ndd_buf_puts(b, pool[h]);
        ndd_buf_puts(b, "</a>");
        ndd_buf_puts(b, after);
    }
}

static void tr_page(ndd_buf_t *b, int tpl, const tr_art_t *a, char *const *pool, size_t page)
{
    static const char *const nav0[] = {"Home", "World", "Business", "Markets", "Commodities",
                                       "Energy", "Technology", "Politics", "Opinion", "Sports",
                                       "Weather", "Contact", "Subscribe", "Archive"};
    static const char *const nav1[] = {"Front page", "Stocks", "Bonds", "Currencies", "Metals",
                                       "Grains", "Oil and gas", "Analysis", "Columns",
                                       "Data", "Calendar", "Help"};
    static const char *const nav2[] = {"Index", "Latest", "Cocoa", "Coffee", "Sugar", "Wheat",
                                       "Corn", "Soybeans", "Cattle", "Cotton", "Freight",
                                       "Ports", "Shipping", "Contacts", "Links", "Search"};
    static const char *const nav3[] = {"Home", "Economy", "Banking", "Companies", "Mergers",
                                       "Earnings", "Central banks", "Trade", "Regulation",
                                       "Interviews", "Podcasts", "Events", "About"};
    static const char *const nav4[] = {"News", "Local business", "Harbor", "Real estate",
                                       "Manufacturing", "Retail", "Transport", "Jobs",
                                       "People", "Letters", "Classifieds", "Advertise",
                                       "E-paper", "Login", "Register", "Sitemap", "RSS",
                                       "Privacy"};
    ndd_buf_clear(b);
    ndd_buf_puts(b, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>");
    ndd_buf_puts(b, a->title);
    ndd_buf_puts(b, "</title><style>body{font-family:serif}</style>"
                    "<script>var _sa=window._sa||[];_sa.push(['page','story']);</script></head><body>\n");
    switch (tpl) {
    case 0: /* semantic HTML5 */
        ndd_buf_puts(b, "<header><div class=\"brand\">The Daily Ledger</div><p class=\"tagline\">"
                        "Independent reporting on money, markets and the people who move them.</p></header>\n<nav><ul>");
        tr_links(b, nav0, 14, "<li>", "</li>", NULL);
        ndd_buf_puts(b, "</ul></nav>\n<main><article><h1>");
        ndd_buf_puts(b, a->title);
        ndd_buf_puts(b, "</h1>\n");
        tr_paragraphs(b, a, "<p>", "</p>\n");
        ndd_buf_puts(b, "</article></main>\n<aside><h3>Related articles</h3><ul>");
        tr_related(b, pool, 0, page, "<li>", "</li>");
        ndd_buf_puts(b, "</ul><p>The Daily Ledger has covered commodity markets since 1952. "
                        "Our correspondents file from more than forty cities around the world.</p></aside>\n"
                        "<div class=\"ad-box\"><p>Trade smarter with LedgerPro terminals. "
                        "Real-time quotes, charts and alerts for just 29 dollars a month, first month free!</p></div>\n"
                        "<footer><p>Copyright 1987 The Daily Ledger Company. All rights reserved.</p>"
                        "<p>About us: we are an independent newsroom owned by our readers; corrections can be sent to the desk at any time.</p>"
                        "<p><a href=\"/privacy\">Privacy policy</a> | <a href=\"/terms\">Terms of use</a> | "
                        "<a href=\"/contact\">Contact the newsroom</a></p></footer>\n");
        break;
    case 1: /* plain divs with common class names, inline menu */
        ndd_buf_puts(b, "<div id=\"top\"><div class=\"logo\">MarketWire Online</div><div class=\"slogan\">"
                        "Your first stop for breaking financial news, every trading day of the year.</div></div>\n"
                        "<div class=\"menu\">");
        tr_links(b, nav1, 12, "", "", " | ");
        ndd_buf_puts(b, "</div>\n<div class=\"content\"><h2>");
        ndd_buf_puts(b, a->title);
        ndd_buf_puts(b, "</h2>");
        tr_paragraphs(b, a, "<div class=\"para\">", "</div>\n");
        ndd_buf_puts(b, "</div>\n<div class=\"sidebar\"><h4>You may also like</h4>");
        tr_related(b, pool, 1, page, "<div class=\"item\">", "</div>");
        ndd_buf_puts(b, "<div class=\"blurb\">MarketWire Online is read by over two million investors each month. "
                        "Sign up for our free morning briefing and never miss a market move.</div></div>\n"
                        "<div class=\"promo\">Looking for a new broker? Compare fees from twelve online brokers side by side and save hundreds a year.</div>\n"
                        "<div class=\"bottom\">(c) 1987 MarketWire Online Inc. Reproduction without written permission is prohibited. "
                        "Quotes are delayed by at least fifteen minutes. <a href=\"/about\">About</a> "
                        "<a href=\"/jobs\">Careers</a> <a href=\"/advertise\">Advertise with us</a></div>\n");
        break;
    case 2: /* table layout with class names no rule knows */
        ndd_buf_puts(b, "<table width=\"100%\"><tr><td colspan=\"3\" class=\"hd\"><b>Commodity Street</b><br>"
                        "Prices, crops and freight from the trading floors of the world</td></tr>\n<tr><td class=\"lft\">");
        tr_links(b, nav2, 16, "", "<br>", NULL);
        ndd_buf_puts(b, "</td><td class=\"mid\"><h1>");
        ndd_buf_puts(b, a->title);
        ndd_buf_puts(b, "</h1>");
        tr_paragraphs(b, a, "<p>", "</p>\n");
        ndd_buf_puts(b, "</td><td class=\"rgt\"><b>More from Commodity Street</b><br>");
        tr_related(b, pool, 2, page, "", "<br>");
        ndd_buf_puts(b, "<p>Commodity Street is published by traders for traders. "
                        "Send your market reports and photographs to our editors.</p>"
                        "<p class=\"x7\">Grain storage at harvest prices? Silo Systems builds steel bins in four weeks, call today for a quote.</p>"
                        "</td></tr>\n<tr><td colspan=\"3\" class=\"ft\">All content copyright 1987 Commodity Street Publishing. "
                        "Market data is provided for information only and is not an offer to buy or sell. "
                        "<a href=\"/disclaimer\">Disclaimer</a> - <a href=\"/mail\">Write to us</a></td></tr></table>\n");
        break;
    case 3: /* mixed: semantic header, div columns with unusual names */
        ndd_buf_puts(b, "<header class=\"site-head\"><a href=\"/\">Global Finance Review</a>"
                        "<span>Analysis and commentary for the professional investor.</span></header>\n"
                        "<div class=\"col-a\"><ul>");
        tr_links(b, nav3, 13, "<li>", "</li>", NULL);
        ndd_buf_puts(b, "</ul></div>\n<div class=\"col-b\"><div class=\"story-body\"><h1>");
        ndd_buf_puts(b, a->title);
        ndd_buf_puts(b, "</h1>");
        tr_paragraphs(b, a, "<p>", "</p>\n");
        ndd_buf_puts(b, "</div></div>\n<section class=\"box\"><h3>Further reading</h3>");
        tr_related(b, pool, 3, page, "<p>", "</p>");
        ndd_buf_puts(b, "<p>Global Finance Review is edited in London and New York. "
                        "Our analysts hold no positions in the securities they write about.</p></section>\n"
                        "<div class=\"sponsored-links\"><p>Advertisement: Retire on your own terms with Meridian Wealth, "
                        "independent advice since 1961.</p></div>\n"
                        "<div class=\"site-info\"><p>Global Finance Review is a trademark of GFR Media Ltd. "
                        "Registered office: 10 Fleet Lane, London.</p><p>Terms and conditions apply to all subscriptions; "
                        "cancel at any time.</p><p><a href=\"/rss\">RSS feeds</a> <a href=\"/legal\">Legal notice</a> "
                        "<a href=\"/cookies\">Cookie settings</a></p></div>\n");
        break;
    default: /* div soup with a masthead and a rail */
        ndd_buf_puts(b, "<div class=\"wrap\"><div class=\"masthead\"><h2>Harbor Business Journal</h2>"
                        "<div>Covering trade, industry and finance along the waterfront since 1899.</div></div>\n<nav class=\"main-nav\">");
        tr_links(b, nav4, 18, "<span>", "</span> ", NULL);
        ndd_buf_puts(b, "</nav>\n<div class=\"story\"><h1>");
        ndd_buf_puts(b, a->title);
        ndd_buf_puts(b, "</h1>");
        tr_paragraphs(b, a, "<p>", "</p>\n");
        ndd_buf_puts(b, "</div>\n<div class=\"rail\"><h3>Most read this week</h3><ol>");
        tr_related(b, pool, 4, page, "<li>", "</li>");
        ndd_buf_puts(b, "</ol><div class=\"nl\">Get the Harbor Business Journal newsletter in your inbox every morning. "
                        "It is free, and you can unsubscribe whenever you like.</div>"
                        "<div class=\"spot\">Harbor Savings Bank: business loans approved in forty-eight hours. "
                        "Member FDIC.</div></div>\n"
                        "<div class=\"legal\">Harbor Business Journal, 200 Pier Street. Copyright 1987, all rights reserved. "
                        "Use of this site constitutes acceptance of our user agreement. "
                        "<a href=\"/privacy\">Privacy</a> <a href=\"/contact\">Contact</a></div></div>\n");
        break;
    }
    ndd_buf_puts(b, "<script>_sa.push(['track']);</script></body></html>\n");
}

/* Signatures two documents have in common (same slot, same bits), not
 * counting those whose key is in drop[0..ndrop) (sorted). */
static size_t tr_common(const ndd_sig_t *a, size_t na, const ndd_sig_t *b, size_t nb,
                        const uint64_t *drop, size_t ndrop)
{
    size_t i = 0, j = 0, c = 0;
    while (i < na && j < nb) {
        if (a[i].slot < b[j].slot) {
            i++;
        } else if (a[i].slot > b[j].slot) {
            j++;
        } else {
            if (memcmp(a[i].bits, b[j].bits, 16) == 0) {
                uint64_t key = ndd_sig_key(&a[i]);
                size_t lo = 0, hi = ndrop;
                while (lo < hi) {
                    size_t mid = lo + (hi - lo) / 2;
                    if (drop[mid] < key)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                c += !(lo < ndrop && drop[lo] == key);
            }
            i++;
            j++;
        }
    }
    return c;
}

static int tr_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    double copy_share, diff_share; /* mean of common / mean(W_a, W_b) */
    double copy_any, diff_any;     /* share of pairs with >= 1 common signature */
    double copy_any_f, diff_any_f; /* the same after dropping frequent signatures */
    double copy_share_f, diff_share_f;
} tr_result_t;

static const unsigned tr_ks[] = {1, 2, 3, 4, NDD_SIG_K_ALL};
#define TR_NK (sizeof tr_ks / sizeof tr_ks[0])
#define TR_NPAGE (3 * TR_NART)
#define TR_DF 10 /* stand-in for the postings filter: drop signatures in >= TR_DF of the pages */

/* Pages per article a: 0 = (a, t1), 1 = (a, t2 != t1), 2 = (a + 1, t1).
 * Pairs: copies (0, 1), different articles in the same template (0, 2). */
static void tr_measure(const tr_art_t *arts, char *const *pool, int boilerplate,
                       tr_result_t res[TR_NK], double tshare[3])
{
    ndd_text_opts_t to, all;
    ndd_text_opts_default(&to);
    ndd_text_opts_default(&all);
    to.boilerplate = boilerplate;
    ndd_buf_t html = NDD_BUF_INIT, txt = NDD_BUF_INIT;
    ndd_sig_t(*sig)[NDD_SIG_MAX] = malloc(TR_NPAGE * sizeof *sig);
    size_t *nsig = calloc(TR_NPAGE, sizeof *nsig);
    uint64_t *keys = malloc(TR_NPAGE * NDD_SIG_MAX * sizeof *keys);
    uint64_t *drop = malloc(TR_NPAGE * NDD_SIG_MAX * sizeof *drop);
    char **texts = calloc(TR_NPAGE, sizeof *texts);
    size_t *tlen = calloc(TR_NPAGE, sizeof *tlen);
    assert_true(sig && nsig && keys && drop && texts && tlen);
    tshare[0] = 0;
    tshare[1] = 1;
    tshare[2] = 0;
    for (size_t a = 0; a < TR_NART; a++) {
        int t1 = (int)(a % TR_NTPL), t2 = (int)((a + 1 + a / TR_NTPL) % TR_NTPL);
        if (t2 == t1)
            t2 = (t1 + 1) % TR_NTPL;
        const tr_art_t *pa[3] = {&arts[a], &arts[a], &arts[(a + 1) % TR_NART]};
        int tp[3] = {t1, t2, t1};
        for (int d = 0; d < 3; d++) {
            size_t pg = 3 * a + (size_t)d;
            tr_page(&html, tp[d], pa[d], pool, pg);
            assert_int_equal(ndd_text_from_html(html.data, html.len, &to, &txt), NDD_OK);
            texts[pg] = ndd_buf_steal(&txt, &tlen[pg]);
            if (d == 0) {
                /* template share of the visible text (all of it: boilerplate off) */
                assert_int_equal(ndd_text_from_html(html.data, html.len, &all, &txt), NDD_OK);
                size_t page_len = txt.len;
                ndd_buf_clear(&html);
                ndd_buf_puts(&html, "<html><body><h1>");
                ndd_buf_puts(&html, pa[d]->title);
                ndd_buf_puts(&html, "</h1>");
                tr_paragraphs(&html, pa[d], "<p>", "</p>");
                ndd_buf_puts(&html, "</body></html>");
                assert_int_equal(ndd_text_from_html(html.data, html.len, &all, &txt), NDD_OK);
                size_t art = txt.len;
                double sh = page_len > art ? 1.0 - (double)art / (double)page_len : 0.0;
                tshare[0] += sh / TR_NART;
                tshare[1] = sh < tshare[1] ? sh : tshare[1];
                tshare[2] = sh > tshare[2] ? sh : tshare[2];
            }
        }
    }
    for (size_t q = 0; q < TR_NK; q++) {
        ndd_sig_params_t p;
        ndd_sig_ctx_t *ctx = NULL;
        ndd_sig_params_default(&p);
        p.k = tr_ks[q];
        assert_int_equal(ndd_sig_ctx_create(&ctx, &p), NDD_OK);
        size_t nkeys = 0, ndrop = 0;
        for (size_t pg = 0; pg < TR_NPAGE; pg++) {
            size_t nsent;
            assert_int_equal(ndd_sig_doc(ctx, texts[pg], tlen[pg], sig[pg], &nsig[pg], &nsent), NDD_OK);
            for (size_t i = 0; i < nsig[pg]; i++)
                keys[nkeys++] = ndd_sig_key(&sig[pg][i]);
        }
        ndd_sig_ctx_free(ctx);
        qsort(keys, nkeys, sizeof *keys, tr_cmp_u64);
        for (size_t i = 0; i < nkeys;) {
            size_t j = i;
            while (j < nkeys && keys[j] == keys[i])
                j++;
            if (j - i >= TR_DF)
                drop[ndrop++] = keys[i];
            i = j;
        }
        tr_result_t *r = &res[q];
        memset(r, 0, sizeof *r);
        for (size_t a = 0; a < TR_NART; a++) {
            const size_t A = 3 * a, B = A + 1, C = A + 2;
            const double wab = (nsig[A] + nsig[B]) / 2.0, wac = (nsig[A] + nsig[C]) / 2.0;
            double cab = (double)tr_common(sig[A], nsig[A], sig[B], nsig[B], NULL, 0);
            double cac = (double)tr_common(sig[A], nsig[A], sig[C], nsig[C], NULL, 0);
            double fab = (double)tr_common(sig[A], nsig[A], sig[B], nsig[B], drop, ndrop);
            double fac = (double)tr_common(sig[A], nsig[A], sig[C], nsig[C], drop, ndrop);
            r->copy_share += wab > 0 ? cab / wab : 0;
            r->diff_share += wac > 0 ? cac / wac : 0;
            r->copy_share_f += wab > 0 ? fab / wab : 0;
            r->diff_share_f += wac > 0 ? fac / wac : 0;
            r->copy_any += cab > 0;
            r->diff_any += cac > 0;
            r->copy_any_f += fab > 0;
            r->diff_any_f += fac > 0;
        }
        r->copy_share /= TR_NART;
        r->diff_share /= TR_NART;
        r->copy_share_f /= TR_NART;
        r->diff_share_f /= TR_NART;
        r->copy_any /= TR_NART;
        r->diff_any /= TR_NART;
        r->copy_any_f /= TR_NART;
        r->diff_any_f /= TR_NART;
    }
    for (size_t pg = 0; pg < TR_NPAGE; pg++)
        free(texts[pg]);
    free(texts);
    free(tlen);
    free(sig);
    free(nsig);
    free(keys);
    free(drop);
    ndd_buf_free(&html);
    ndd_buf_free(&txt);
}

static void test_template_robustness(void **state)
{
    (void)state;
    static tr_art_t arts[TR_NART];
    static char *pool[TR_POOL];
    size_t nart = 0, npool = 0;
    if (!tr_load(arts, &nart, pool, &npool)) {
        for (size_t i = 0; i < nart; i++) {
            free(arts[i].title);
            free(arts[i].body);
        }
        for (size_t i = 0; i < npool; i++)
            free(pool[i]);
        skip();
    }
    tr_result_t r[2][TR_NK];
    double tshare[3];
    for (int bp = 0; bp < 2; bp++)
        tr_measure(arts, pool, bp, r[bp], tshare);
    printf("%d articles, %d templates; template share of the visible text: mean %.1f %%, "
           "min %.1f %%, max %.1f %%\n",
           TR_NART, TR_NTPL, 100 * tshare[0], 100 * tshare[1], 100 * tshare[2]);
    printf("| boilerplate | k | copies: shared | copies: >=1 common | different: shared | "
           "different: >=1 common | after df<%d filter: copies >=1 / different >=1 |\n", TR_DF);
    printf("|---|---|---|---|---|---|---|\n");
    for (int bp = 0; bp < 2; bp++)
        for (size_t q = 0; q < TR_NK; q++) {
            char kk[16];
            if (tr_ks[q])
                snprintf(kk, sizeof kk, "%u", tr_ks[q]);
            else
                snprintf(kk, sizeof kk, "all");
            printf("| %s | %s | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% / %.1f %% |\n",
                   bp ? "on" : "off", kk, 100 * r[bp][q].copy_share, 100 * r[bp][q].copy_any,
                   100 * r[bp][q].diff_share, 100 * r[bp][q].diff_any, 100 * r[bp][q].copy_any_f,
                   100 * r[bp][q].diff_any_f);
        }
    /* The experiment is what the issue asks for: templates are 25-55 % of
     * the visible text on average. */
    assert_true(tshare[0] >= 0.25 && tshare[0] <= 0.55);
    /* The defaults (k = NDD_SIG_DEFAULT_K, text with boilerplate removal)
     * reach, with a margin under the measured figures (docs/signatures.md):
     * copies share most signatures and nearly always at least one
     * (candidate recall); different articles share few, and after the
     * frequent-signature filter almost never one. */
    size_t qd = TR_NK;
    for (size_t q = 0; q < TR_NK; q++)
        if (tr_ks[q] == NDD_SIG_DEFAULT_K)
            qd = q;
    assert_true(qd < TR_NK);
    const tr_result_t *d = &r[NDD_SIG_DEFAULT_BOILERPLATE][qd];
    assert_true(d->copy_share >= 0.55);
    assert_true(d->copy_any >= 0.95);
    assert_true(d->diff_share <= 0.15);
    assert_true(d->copy_any_f >= 0.95);
    assert_true(d->diff_any_f <= 0.05);
    /* and the default beats the other settings on both counts: no k has
     * copies sharing more while different articles share less */
    for (int bp = 0; bp < 2; bp++)
        for (size_t q = 0; q < TR_NK; q++)
            assert_false(r[bp][q].copy_share > d->copy_share && r[bp][q].diff_share < d->diff_share);
    for (size_t i = 0; i < nart; i++) {
        free(arts[i].title);
        free(arts[i].body);
    }
    for (size_t i = 0; i < npool; i++)
        free(pool[i]);
}

/* ndd_sig_doc: sentences from the text module; none of >= 17 bytes, no signature. */
static void test_doc_short_sentences(void **state)
{
    (void)state;
    ndd_sig_params_t p;
    ndd_sig_ctx_t *c = NULL;
    ndd_sig_t out[NDD_SIG_MAX];
    size_t no = 99, ns = 99;
    ndd_sig_params_default(&p);
    assert_int_equal(ndd_sig_ctx_create(&c, &p), NDD_OK);
    /* pieces of at most 16 bytes (the terminator counts), the last exactly 16 */
    const char *shorty = "Hello there. Short one! Is it? Yes; it is.\nTiny line\nSixteen bytes ok";
    assert_int_equal(ndd_sig_doc(c, shorty, strlen(shorty), out, &no, &ns), NDD_OK);
    assert_int_equal(no, 0);
    assert_int_equal(ns, 0);
    assert_int_equal(ndd_sig_doc(c, "", 0, out, &no, &ns), NDD_OK);
    assert_int_equal(no, 0);
    assert_int_equal(ns, 0);
    /* one sentence of 17 bytes: every rotation gives one signature, W = n */
    const char *one = "Seventeen bytes!! tiny.";
    assert_int_equal(ndd_sig_doc(c, one, strlen(one), out, &no, &ns), NDD_OK);
    assert_int_equal(ns, 1);
    assert_int_equal(no, p.n);
    /* ndd_sig_doc agrees with ndd_sig_spans on the spans of the text module */
    const char *txt = "The first sentence of this text is long enough. The second one, too!\n"
                      "A third sentence on a new block; and a fourth clause after it.";
    ndd_span_t *sp = NULL;
    size_t nsp = 0, cap = 0, n1 = 0, n2 = 0;
    ndd_sig_t o2[NDD_SIG_MAX];
    assert_int_equal(ndd_text_sentences(txt, strlen(txt), p.min_sentence, &sp, &nsp, &cap), NDD_OK);
    assert_true(nsp >= 3);
    assert_int_equal(ndd_sig_doc(c, txt, strlen(txt), out, &n1, &ns), NDD_OK);
    assert_int_equal(ns, nsp);
    assert_int_equal(ndd_sig_spans(c, txt, sp, nsp, o2, &n2), NDD_OK);
    assert_int_equal(n1, n2);
    assert_memory_equal(out, o2, n1 * sizeof out[0]);
    free(sp);
    ndd_sig_ctx_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md5_rfc1321),
        cmocka_unit_test(test_md5_spans),
        cmocka_unit_test(test_ring_rotate),
        cmocka_unit_test(test_projection_hand),
        cmocka_unit_test(test_brute_force_oracle),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_doc_short_sentences),
        cmocka_unit_test(test_template_robustness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

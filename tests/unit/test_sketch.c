/* test_sketch.c - filtered sketches against a brute-force window oracle. */
#include "ndd_test.h"
#include "ndd_verify.h"
#include "verify_anchor_int.h"

static uint64_t rng_state = 0x243F6A8885A308D3ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* b[0..nb) for a[0..na): blocks of A (up to maxblock bytes each) with a
 * random byte after each, up to cap bytes; returns nb. */
static size_t gen_shared(const uint8_t *a, size_t na, uint8_t *b, size_t cap, size_t maxblock, unsigned alpha)
{
    size_t nb = 0;
    while (nb < cap && na) {
        size_t from = rndn(na), len = 1 + rndn(maxblock);
        if (from + len > na)
            len = na - from;
        memcpy(b + nb, a + from, len);
        nb += len;
        b[nb++] = (uint8_t)('a' + rndn(alpha));
    }
    return nb;
}

/* keep[i] = 1 iff byte i of x lies in a window of x that occurs in y. */
static void brute_keep(const uint8_t *x, size_t nx, const uint8_t *y, size_t ny, size_t s, uint8_t *keep)
{
    memset(keep, 0, nx);
    if (nx < s || ny < s)
        return;
    for (size_t i = 0; i + s <= nx; i++)
        for (size_t j = 0; j + s <= ny; j++)
            if (!memcmp(x + i, y + j, s)) {
                memset(keep + i, 1, s);
                break;
            }
}

/* The view must hold exactly the kept bytes, with maximal consistent runs. */
static void check_view(const ndd_sketch_view_t *v, const uint8_t *x, size_t nx, const uint8_t *keep)
{
    size_t want = 0;
    for (size_t i = 0; i < nx; i++)
        want += keep[i];
    assert_int_equal(v->len, want);
    size_t sk = 0;
    for (size_t r = 0; r < v->nruns; r++) {
        const ndd_sketch_run_t *run = &v->runs[r];
        assert_int_equal(run->sk, sk);
        assert_true(run->len > 0);
        assert_true(run->pos + run->len <= nx);
        if (r > 0) /* maximal: runs never touch */
            assert_true(run->pos > v->runs[r - 1].pos + v->runs[r - 1].len);
        for (size_t k = 0; k < run->len; k++)
            assert_true(keep[run->pos + k]);
        assert_memory_equal(v->bytes + run->sk, x + run->pos, run->len);
        if (run->pos > 0)
            assert_false(keep[run->pos - 1]);
        if (run->pos + run->len < nx)
            assert_false(keep[run->pos + run->len]);
        sk += run->len;
    }
    assert_int_equal(sk, v->len);
}

static void test_random_vs_brute(void **state)
{
    (void)state;
    ndd_sketch_ws_t *ws;
    assert_int_equal(ndd_sketch_ws_create(&ws), NDD_OK);
    uint8_t a[300], b[300], ka[300], kb[300];
    size_t checked = 0, nonempty = 0;
    for (int round = 0; round < 2000; round++) {
        unsigned alpha = (unsigned[]){2, 3, 4, 26}[round % 4];
        size_t s = 1 + rndn(10);
        size_t na = rndn(120), nb = rndn(300);
        for (size_t i = 0; i < na; i++)
            a[i] = (uint8_t)('a' + rndn(alpha));
        if (round % 3 == 0) { /* B shares blocks of A */
            nb = gen_shared(a, na, b, 250, 20, alpha);
        } else {
            for (size_t i = 0; i < nb; i++)
                b[i] = (uint8_t)('a' + rndn(alpha));
        }
        if (round & 1) { /* exercise both table/stream roles */
            uint8_t t[300];
            size_t nt = na;
            memcpy(t, a, na);
            memcpy(a, b, nb > 300 ? 300 : nb);
            na = nb;
            memcpy(b, t, nt);
            nb = nt;
        }
        assert_int_equal(ndd_sketch_filter(ws, a, na, b, nb, s), NDD_OK);
        brute_keep(a, na, b, nb, s, ka);
        brute_keep(b, nb, a, na, s, kb);
        ndd_sketch_view_t va, vb;
        ndd_sketch_get(ws, 0, &va);
        ndd_sketch_get(ws, 1, &vb);
        check_view(&va, a, na, ka);
        check_view(&vb, b, nb, kb);
        checked++;
        nonempty += va.len > 0;
    }
    assert_true(nonempty > checked / 3);
    ndd_sketch_ws_free(ws);
}

/* The v entry of the anchor of hash hh at position pos (ndd_verify.h). */
static uint64_t v_entry(const ndd_anchors_t *x, uint32_t hh, uint32_t pos)
{
    return x->v_narrow ? (uint64_t)((hh >> (x->bidx_shift - 16) & 0xffff) << 16 | pos) : (uint64_t)hh << 32 | pos;
}

static uint64_t v_at(const ndd_anchors_t *x, size_t i)
{
    return x->v_narrow ? ((const uint32_t *)x->v)[i] : ((const uint64_t *)x->v)[i];
}

/* Anchors: the bound is never below either sketch (the property the run's
 * pruning rests on), equals the union of the intervals of the anchors whose
 * hash the other side has (brute force over the anchor lists), is the whole
 * text for identical texts, and every run of w k-grams holds an anchor.
 * text: the text they were made of (each anchor's hash is its k-gram's). */
static void check_anchors(const ndd_anchors_t *x, const uint8_t *text, size_t w)
{
    /* h the distinct hashes increasing; ppos the positions increasing,
     * pu[t] the distinct hash of ppos[t] (its k-gram's hash); v by bucket
     * (hash >> bidx_shift), increasing within each (wide: by hash, then
     * position), each anchor's entry once */
    size_t k, ww;
    ndd_anchor_shape(x->window, &k, &ww);
    assert_int_equal(ww, w);
    assert_int_equal(x->v_narrow, x->n && x->len <= 65536);
    for (size_t u = 1; u < x->nh; u++)
        assert_true(x->h[u] > x->h[u - 1]);
    size_t below = 0; /* the sample of ndd_anchors_likely_close */
    for (size_t u = 0; u < x->nh; u++)
        below += x->h[u] < NDD_ANCHOR_SAMPLE_CUT;
    assert_int_equal(x->ns, below);
    size_t nbk = x->n ? (size_t)1 << (32 - x->bidx_shift) : 0;
    if (x->n) {
        assert_int_equal(x->bidx[0], 0);
        assert_int_equal(x->bidx[nbk], x->n);
    }
    for (size_t b = 0; b < nbk; b++) {
        assert_true(x->bidx[b] <= x->bidx[b + 1]);
        for (size_t i = x->bidx[b] + 1; i < x->bidx[b + 1]; i++)
            assert_true(v_at(x, i) > v_at(x, i - 1));
    }
    for (size_t t = 0; t < x->n; t++) {
        assert_true(t == 0 || x->ppos[t] > x->ppos[t - 1]);
        uint32_t u = ndd_anchors_pu(x, t), hh = x->h[u];
        assert_true(u < x->nh);
        assert_true(hh == ndd_kgram_hash(text + x->ppos[t], k));
        uint64_t key = v_entry(x, hh, x->ppos[t]); /* in its bucket (increasing: a binary search) */
        size_t b = (size_t)((uint64_t)hh >> x->bidx_shift), lo = x->bidx[b], hi = x->bidx[b + 1];
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (v_at(x, mid) < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        assert_true(lo < x->bidx[b + 1] && v_at(x, lo) == key); /* n entries, n distinct keys: each once */
    }
    assert_true(x->nh <= x->n && (x->nh > 0) == (x->n > 0));
    if (x->len < x->window) {
        assert_int_equal(x->n, 0);
        return;
    }
    size_t m = x->len - k + 1;
    uint8_t *is = calloc(m, 1);
    assert_non_null(is);
    for (size_t t = 0; t < x->n; t++) {
        assert_true(x->ppos[t] < m);
        is[x->ppos[t]] = 1;
    }
    for (size_t r = 0; r + w <= m; r++) { /* k-grams r .. r + w - 1 hold an anchor */
        int any = 0;
        for (size_t q = r; q < r + w; q++)
            any |= is[q];
        assert_true(any);
    }
    free(is);
}

/* The hash of x's anchor t (check_anchors checked it against the text). */
static uint32_t anchor_hash(const ndd_anchors_t *x, size_t t)
{
    return x->h[ndd_anchors_pu(x, t)];
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The union of [p - w + 1, p + S) within x's text over the anchors p of x
 * whose hash y has (y's hashes looked up in a sorted copy of them). */
static size_t brute_cover(const ndd_anchors_t *x, const ndd_anchors_t *y, size_t w, uint8_t *in)
{
    uint32_t *hy = malloc((y->n + 1) * sizeof *hy);
    assert_non_null(hy);
    for (size_t j = 0; j < y->n; j++)
        hy[j] = anchor_hash(y, j);
    qsort(hy, y->n, sizeof *hy, cmp_u32);
    memset(in, 0, x->len + 1);
    for (size_t i = 0; i < x->n; i++) {
        uint32_t h = anchor_hash(x, i);
        if (!bsearch(&h, hy, y->n, sizeof *hy, cmp_u32))
            continue;
        size_t p = x->ppos[i], lo = p + 1 >= w ? p + 1 - w : 0;
        for (size_t b = lo; b < p + x->window && b < x->len; b++)
            in[b] = 1;
    }
    free(hy);
    size_t t = 0;
    for (size_t b = 0; b < x->len; b++)
        t += in[b];
    return t;
}

/* Both unions of xa x xb with every code path of the bound (plain C, SSE2,
 * AVX2, AVX-512: the same) equal the brute-force ones (in: xa's and xb's
 * text lengths + 1 bytes of scratch). */
static void bound_every_isa(const ndd_anchors_t *xa, const ndd_anchors_t *xb, size_t w, uint8_t *in)
{
    uint64_t *mark = NULL;
    size_t mark_cap = 0, ua, ub, ca = brute_cover(xa, xb, w, in), cb = brute_cover(xb, xa, w, in);
    for (unsigned isa = 0; isa <= 3; isa++) {
        ndd_anchors_isa(isa);
        assert_int_equal(ndd_anchors_bound(xa, xb, &mark, &mark_cap, 0, &ua, &ub), NDD_OK);
        assert_int_equal(ua, ca);
        assert_int_equal(ub, cb);
    }
    free(mark);
}


static void same_sketches(const ndd_sketch_ws_t *x, const ndd_sketch_ws_t *y)
{
    for (int which = 0; which < 2; which++) {
        ndd_sketch_view_t u, v;
        ndd_sketch_get(x, which, &u);
        ndd_sketch_get(y, which, &v);
        assert_int_equal(u.len, v.len);
        assert_int_equal(u.nruns, v.nruns);
        assert_memory_equal(u.bytes, v.bytes, u.len);
        for (size_t r = 0; r < u.nruns; r++) {
            assert_int_equal(u.runs[r].sk, v.runs[r].sk);
            assert_int_equal(u.runs[r].pos, v.runs[r].pos);
            assert_int_equal(u.runs[r].len, v.runs[r].len);
        }
    }
}

/* Long texts sharing long stretches with sparse edits (blocks of 64
 * anchors all flagged, mostly flagged, none; lists long enough for the
 * SIMD blocks to run on with every offset), against the brute-force cover.
 * The lengths give up to 1,024, up to 2,048 and more distinct hashes: the
 * AVX-512 flags hold the marks of up to 1,024 in two registers, of up to
 * 2,048 in four, and leave longer lists to the AVX2 code. */
static void test_anchors_bound_long(void **state)
{
    (void)state;
    ndd_anchors_t xa = {0}, xb = {0};
    uint64_t *scratch = NULL;
    size_t scratch_cap = 0, n = 12000, seen[4] = {0, 0, 0, 0};
    uint8_t *a = malloc(n), *b = malloc(n), *in = malloc(n + 1);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(in);
    for (int round = 0; round < 40; round++) {
        size_t na = (size_t[]){6000, 9000, 12000}[round % 7 % 3] - rndn(200), nb = 0;
        for (size_t i = 0; i < na; i++)
            a[i] = (uint8_t)('a' + rndn(round % 5 == 4 ? 3 : 26));
        size_t every = (size_t[]){30, 100, 400, 3000}[round % 4];
        for (size_t i = 0; i < na && nb < n; i++) { /* a copy with an edit every ~`every` bytes */
            if (rndn(every))
                b[nb++] = a[i];
            else if (rndn(2))
                b[nb++] = (uint8_t)('A' + rndn(26));
        }
        if (round % 8 == 7) /* an unrelated second half */
            for (size_t i = nb / 2; i < nb; i++)
                b[i] = (uint8_t)('a' + rndn(26));
        /* S = 200: one interval (S + w - 1 = 392 bytes) passes a gap byte, so
         * every flagged anchor's share is taken alone; S = 48: the cap (88)
         * passes 64, so a share after a run of 64 unflagged anchors needs
         * the positions */
        size_t s = round % 10 == 9 ? 200 : round % 10 == 6 ? 48 : round % 3 ? 16 : 10, k, w;
        ndd_anchor_shape(s, &k, &w);
        assert_int_equal(ndd_anchors_make(&xa, a, na, s, &scratch, &scratch_cap), NDD_OK);
        assert_int_equal(ndd_anchors_make(&xb, b, nb, s, &scratch, &scratch_cap), NDD_OK);
        assert_true((xa.gap == NULL) == (s == 200));
        seen[3] += s == 48;
        check_anchors(&xa, a, w);
        check_anchors(&xb, b, w);
        seen[xa.nh <= 1024 ? 0 : xa.nh <= 2048 ? 1 : 2]++;
        bound_every_isa(&xa, &xb, w, in);
    }
    for (int k = 0; k < 4; k++)
        assert_true(seen[k] > 0);
    ndd_anchors_free(&xa);
    ndd_anchors_free(&xb);
    free(scratch);
    free(a);
    free(b);
    free(in);
}

/* More than 65,536 anchors: the hash indexes take 4 bytes (pu_wide), in
 * every code path, with many distinct hashes (random text) and with few
 * (a period of 300 bytes: at most 2,048 distinct hashes, where the AVX-512
 * cover would run for 2-byte indexes), against the sorted-copy cover; and
 * the anchors of a text just below the limit keep 2-byte indexes. */
static void test_anchors_bound_wide(void **state)
{
    (void)state;
    ndd_anchors_t xa = {0}, xb = {0};
    uint64_t *scratch = NULL;
    size_t scratch_cap = 0, n = 420000, k, w;
    uint8_t *a = malloc(n), *b = malloc(n), *in = malloc(n + 1);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(in);
    ndd_anchor_shape(16, &k, &w);
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < n; i++) /* round 1: a random period of 300 bytes */
            a[i] = round && i >= 300 ? a[i % 300] : (uint8_t)('a' + rndn(26));
        size_t nb = 0;
        for (size_t i = 0; i < n; i++) /* a copy with an edit every ~100 bytes, its last third unrelated */
            b[nb++] = i > 2 * n / 3 ? (uint8_t)('a' + rndn(26)) : rndn(100) ? a[i] : (uint8_t)('A' + rndn(26));
        assert_int_equal(ndd_anchors_make(&xa, a, n, 16, &scratch, &scratch_cap), NDD_OK);
        assert_int_equal(ndd_anchors_make(&xb, b, nb, 16, &scratch, &scratch_cap), NDD_OK);
        assert_true(xa.n > 65536 && xa.pu_wide && xb.n > 65536 && xb.pu_wide);
        assert_true(round ? xa.nh <= 2048 : xa.nh > 2048);
        check_anchors(&xa, a, w);
        check_anchors(&xb, b, w);
        bound_every_isa(&xa, &xb, w, in);
    }
    /* at most 65,536 anchors: 2-byte indexes (random text: ~0.2 anchors a byte) */
    size_t m = 200000;
    for (size_t i = 0; i < m; i++)
        a[i] = (uint8_t)('a' + rndn(26));
    assert_int_equal(ndd_anchors_make(&xa, a, m, 16, &scratch, &scratch_cap), NDD_OK);
    assert_true(xa.n <= 65536 && !xa.pu_wide);
    check_anchors(&xa, a, w);
    ndd_anchors_free(&xa);
    ndd_anchors_free(&xb);
    free(scratch);
    free(a);
    free(b);
    free(in);
}

/* The anchors made with the runs' minima 4 at a time (AVX2) are those of
 * the plain C (van Herk) loop, every array, for windows 1 .. 40 (w from 1
 * to 33) on random and repetitive texts of every length up to 300. */
static void test_anchors_paths(void **state)
{
    (void)state;
    ndd_anchors_t x = {0}, y = {0};
    uint64_t *scratch = NULL;
    size_t scratch_cap = 0;
    uint8_t t[300];
    for (int round = 0; round < 3000; round++) {
        unsigned alpha = (unsigned[]){1, 2, 4, 26, 256}[round % 5];
        size_t n = rndn(sizeof t + 1), s = 1 + rndn(40);
        for (size_t i = 0; i < n; i++)
            t[i] = (uint8_t)(alpha == 256 ? rndn(256) : 'a' + rndn(alpha));
        unsigned old = ndd_anchors_isa(0);
        assert_int_equal(ndd_anchors_make(&x, t, n, s, &scratch, &scratch_cap), NDD_OK);
        ndd_anchors_isa(2);
        assert_int_equal(ndd_anchors_make(&y, t, n, s, &scratch, &scratch_cap), NDD_OK);
        ndd_anchors_isa(old);
        assert_int_equal(x.n, y.n);
        assert_int_equal(x.nh, y.nh);
        assert_int_equal(x.noff, y.noff);
        if (x.n) {
            assert_int_equal(x.v_narrow, y.v_narrow);
            assert_memory_equal(x.v, y.v, x.n * (x.v_narrow ? 4 : 8));
            assert_memory_equal(x.ppos, y.ppos, x.n * sizeof *x.ppos);
            assert_int_equal(x.pu_wide, y.pu_wide);
            assert_memory_equal(x.pu, y.pu, x.n * (x.pu_wide ? 4 : 2));
            assert_memory_equal(x.h, y.h, x.nh * sizeof *x.h);
        }
        if (x.noff)
            assert_memory_equal(x.off, y.off, x.noff);
    }
    /* a repetitive text and a long one (about 8,000 anchors): in order, each once */
    size_t n = 40000;
    uint8_t *big = malloc(n);
    assert_non_null(big);
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < n; i++)
            big[i] = (uint8_t)('a' + rndn(round ? 26 : 3));
        assert_int_equal(ndd_anchors_make(&x, big, round ? n : 2000, 16, &scratch, &scratch_cap), NDD_OK);
        check_anchors(&x, big, 9);
    }
    free(big);
    ndd_anchors_free(&x);
    ndd_anchors_free(&y);
    free(scratch);
}

static void test_anchors_bound(void **state)
{
    (void)state;
    ndd_sketch_ws_t *ws, *ws2;
    assert_int_equal(ndd_sketch_ws_create(&ws), NDD_OK);
    assert_int_equal(ndd_sketch_ws_create(&ws2), NDD_OK);
    ndd_anchors_t xa = {0}, xb = {0};
    uint64_t *mark = NULL, *scratch = NULL;
    uint8_t a[600], b[600], in[601];
    size_t mark_cap = 0, scratch_cap = 0, pruned_like = 0;
    for (int round = 0; round < 3000; round++) {
        unsigned alpha = (unsigned[]){2, 3, 4, 26}[round % 4];
        size_t s = (size_t[]){16, 16, 1 + rndn(24)}[round % 3];
        size_t na = rndn(500), nb = 0;
        for (size_t i = 0; i < na; i++)
            a[i] = (uint8_t)('a' + rndn(alpha));
        int shares = (round / 4) % 2;
        if (shares) { /* B shares blocks of A */
            nb = gen_shared(a, na, b, 480, 60, alpha);
        } else {
            nb = rndn(500);
            for (size_t i = 0; i < nb; i++)
                b[i] = (uint8_t)('a' + rndn(alpha));
        }
        size_t k, w, ua, ub;
        ndd_anchor_shape(s, &k, &w);
        assert_int_equal(ndd_anchors_make(&xa, a, na, s, &scratch, &scratch_cap), NDD_OK);
        assert_int_equal(ndd_anchors_make(&xb, b, nb, s, &scratch, &scratch_cap), NDD_OK);
        check_anchors(&xa, a, w);
        check_anchors(&xb, b, w);
        assert_int_equal(ndd_anchors_bound(&xa, &xb, &mark, &mark_cap, 0, &ua, &ub), NDD_OK);
        assert_int_equal(ua, brute_cover(&xa, &xb, w, in));
        assert_int_equal(ub, brute_cover(&xb, &xa, w, in));
        { /* past need B's union is left out (its length, still a bound); at need it is made */
            size_t va, vb;
            assert_int_equal(ndd_anchors_bound(&xa, &xb, &mark, &mark_cap, ua + 1, &va, &vb), NDD_OK);
            assert_int_equal(va, ua);
            assert_int_equal(vb, xa.n && xb.n ? nb : 0);
            assert_int_equal(ndd_anchors_bound(&xa, &xb, &mark, &mark_cap, ua, &va, &vb), NDD_OK);
            assert_int_equal(vb, ub);
        }
        assert_int_equal(ndd_sketch_filter(ws, a, na, b, nb, s), NDD_OK);
        ndd_sketch_view_t va, vb;
        ndd_sketch_get(ws, 0, &va);
        ndd_sketch_get(ws, 1, &vb);
        /* the anchored sketches are the table's, byte for byte and run for run */
        assert_int_equal(ndd_sketch_filter_anchored(ws2, a, na, &xa, b, nb, &xb, s), NDD_OK);
        same_sketches(ws, ws2);
        assert_true(ua >= va.len);
        assert_true(ub >= vb.len);
        assert_true(ua <= na && ub <= nb);
        pruned_like += alpha == 26 && !shares && s == 16 && na >= 100 && ua < na / 4;
        /* a text against itself: all of it */
        assert_int_equal(ndd_anchors_bound(&xa, &xa, &mark, &mark_cap, 0, &ua, &ub), NDD_OK);
        assert_int_equal(ua, na >= s ? na : 0);
    }
    assert_true(pruned_like > 50); /* unrelated texts over 26 letters, S = 16: the bound is small */
    assert_int_equal(ndd_anchors_make(&xa, a, 10, 0, &scratch, &scratch_cap), NDD_ERR_INVAL);
    ndd_anchors_free(&xa);
    ndd_anchors_free(&xb);
    free(mark);
    free(scratch);
    ndd_sketch_ws_free(ws);
    ndd_sketch_ws_free(ws2);
}

/* The order hint of ndd_tlcs_compare: a copy with 1 % of its bytes changed
 * is close, unrelated text and a text of 100 bytes (too few sampled
 * anchors) are not. (The results never depend on it: test_tlcs.) */
static void test_likely_close(void **state)
{
    (void)state;
    enum { N = 20000 };
    ndd_anchors_t xa = {0}, xb = {0};
    uint64_t *scratch = NULL;
    size_t scratch_cap = 0;
    char *a = malloc(N), *b = malloc(N);
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < N; i++)
        a[i] = (char)('a' + rndn(26));
    assert_int_equal(ndd_anchors_make(&xa, a, N, 16, &scratch, &scratch_cap), NDD_OK);
    for (int kind = 0; kind < 4; kind++) {
        size_t nb = kind == 3 ? 100 : N;
        for (size_t i = 0; i < nb; i++)
            b[i] = kind == 2 ? (char)('a' + rndn(26)) : kind == 1 && rndn(100) == 0 ? '#' : a[i];
        assert_int_equal(ndd_anchors_make(&xb, b, nb, 16, &scratch, &scratch_cap), NDD_OK);
        assert_int_equal(ndd_anchors_likely_close(&xa, &xb), kind < 2);
        assert_int_equal(ndd_anchors_likely_close(&xb, &xa), kind < 2);
    }
    ndd_anchors_free(&xa);
    ndd_anchors_free(&xb);
    free(scratch);
    free(a);
    free(b);
}

/* The set-up of the tests that compare the anchored sketches with the
 * table's: two sketch workspaces, two texts' anchors and room for the texts
 * (FIX_BYTES each). */
#define FIX_BYTES 70000
typedef struct sk_fix {
    ndd_sketch_ws_t *ws, *ws2;
    ndd_anchors_t xa, xb;
    uint64_t *scratch;
    size_t scratch_cap;
    uint8_t *a, *b;
} sk_fix_t;

static int fix_setup(void **state)
{
    sk_fix_t *f = calloc(1, sizeof *f);
    *state = f;
    if (!f || ndd_sketch_ws_create(&f->ws) || ndd_sketch_ws_create(&f->ws2))
        return -1;
    f->a = malloc(FIX_BYTES);
    f->b = malloc(FIX_BYTES);
    return f->a && f->b ? 0 : -1;
}

static int fix_teardown(void **state)
{
    sk_fix_t *f = *state;
    if (!f)
        return 0;
    ndd_anchors_free(&f->xa);
    ndd_anchors_free(&f->xb);
    free(f->scratch);
    free(f->a);
    free(f->b);
    ndd_sketch_ws_free(f->ws);
    ndd_sketch_ws_free(f->ws2);
    free(f);
    return 0;
}

/* f's anchors for its texts a[0..na) and b[0..nb) with window s. */
static void fix_anchors(sk_fix_t *f, size_t na, size_t nb, size_t s)
{
    assert_int_equal(ndd_anchors_make(&f->xa, f->a, na, s, &f->scratch, &f->scratch_cap), NDD_OK);
    assert_int_equal(ndd_anchors_make(&f->xb, f->b, nb, s, &f->scratch, &f->scratch_cap), NDD_OK);
}

/* The anchored sketches of (a, b) and of (b, a) are the table's. */
static void same_both_ways(sk_fix_t *f, size_t na, size_t nb, size_t s)
{
    assert_int_equal(ndd_sketch_filter(f->ws, f->a, na, f->b, nb, s), NDD_OK);
    assert_int_equal(ndd_sketch_filter_anchored(f->ws2, f->a, na, &f->xa, f->b, nb, &f->xb, s), NDD_OK);
    same_sketches(f->ws, f->ws2);
    assert_int_equal(ndd_sketch_filter(f->ws, f->b, nb, f->a, na, s), NDD_OK);
    assert_int_equal(ndd_sketch_filter_anchored(f->ws2, f->b, nb, &f->xb, f->a, na, &f->xa, s), NDD_OK);
    same_sketches(f->ws, f->ws2);
}

/* 4-byte v entries (texts up to 65,536 bytes) key a lookup by the hash's
 * bucket and 16 bits more: a text where two distinct hashes share them
 * (a few in a hundred texts of 3,000 random bytes) gives the anchored
 * sketches extra candidates, which must change nothing; and texts at the
 * limit and past it (8-byte entries) give the table's sketches too. */
static void test_anchors_shared_key(void **state)
{
    sk_fix_t *f = *state;
    uint8_t *a = f->a, *b = f->b;
    const ndd_anchors_t *xa = &f->xa, *xb = &f->xb;
    size_t k, w, found = 0;
    ndd_anchor_shape(16, &k, &w);
    for (int tries = 0; tries < 20000 && found < 3; tries++) {
        size_t na = 3000;
        for (size_t i = 0; i < na; i++)
            a[i] = (uint8_t)('a' + rndn(26));
        assert_int_equal(ndd_anchors_make(&f->xa, a, na, 16, &f->scratch, &f->scratch_cap), NDD_OK);
        assert_true(xa->v_narrow);
        int shared = 0;
        for (size_t u = 1; u < xa->nh; u++)
            shared |= xa->h[u - 1] >> (xa->bidx_shift - 16) == xa->h[u] >> (xa->bidx_shift - 16);
        if (!shared)
            continue;
        found++;
        check_anchors(xa, a, w);
        for (int edit = 0; edit < 2; edit++) { /* B: a copy with a letter changed every ~40 (or 400) bytes */
            for (size_t i = 0; i < na; i++)
                b[i] = rndn(edit ? 400 : 40) ? a[i] : (uint8_t)('A' + rndn(26));
            assert_int_equal(ndd_anchors_make(&f->xb, b, na, 16, &f->scratch, &f->scratch_cap), NDD_OK);
            check_anchors(xb, b, w);
            same_both_ways(f, na, na, 16);
        }
    }
    assert_int_equal(found, 3);
    for (int round = 0; round < 2; round++) { /* 65,536 bytes (4-byte entries) and 70,000 (8-byte) */
        size_t na = round ? FIX_BYTES : 65536;
        for (size_t i = 0; i < na; i++)
            a[i] = (uint8_t)('a' + rndn(26));
        for (size_t i = 0; i < na; i++) /* a copy, shifted by 1,000 bytes, with a letter changed every ~50 */
            b[i] = i < 1000 ? (uint8_t)('a' + rndn(26)) : rndn(50) ? a[i - 1000] : (uint8_t)('A' + rndn(26));
        fix_anchors(f, na, na, 16);
        assert_int_equal(xa->v_narrow, !round);
        assert_int_equal(xb->v_narrow, !round);
        check_anchors(xa, a, w);
        check_anchors(xb, b, w);
        same_both_ways(f, na, na, 16);
    }
}

/* The anchored sketches on texts that defeat the lookup (one k-gram
 * anchored all over the other text: the budget runs out and the table takes
 * over), on windows too wide for the offsets (w > 255: the table), on
 * anchors made for another text or window (the table), and on real text:
 * always the table's sketches. */
static void test_anchored_cases(void **state)
{
    sk_fix_t *f = *state;
    uint8_t *a = f->a, *b = f->b;
    size_t n = 20000;
    for (int round = 0; round < 6; round++) {
        size_t s = round == 4 ? 300 : 16, na = n, nb = n;
        for (size_t i = 0; i < n; i++) {
            if (round == 0) { /* periodic: the same anchor every period */
                a[i] = (uint8_t)"abcdefghij"[i % 10];
                b[i] = (uint8_t)"abcdefghij"[(i * 7 / 3) % 10];
            } else if (round == 1) { /* long runs of one byte with rare breaks */
                a[i] = i % 997 ? 'x' : 'y';
                b[i] = i % 991 ? 'x' : 'z';
            } else {
                a[i] = (uint8_t)('a' + rndn(round == 2 ? 2 : 26));
                b[i] = i > 500 && i < 9000 ? a[i - 300] : (uint8_t)('a' + rndn(26));
            }
        }
        fix_anchors(f, na, nb, s);
        if (round == 5) /* anchors of another text: refused, the table answers */
            nb -= 7;
        same_both_ways(f, na, nb, s);
    }
}

/* Repetitive input: every window identical; must stay linear and exact. */
static void test_repetitive(void **state)
{
    (void)state;
    ndd_sketch_ws_t *ws;
    assert_int_equal(ndd_sketch_ws_create(&ws), NDD_OK);
    size_t n = 1 << 20;
    char *a = malloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    memset(a, 'x', n);
    memset(b, 'x', n / 2);
    memset(b + n / 2, 'y', n / 2);
    assert_int_equal(ndd_sketch_filter(ws, a, n, b, n, 16), NDD_OK);
    ndd_sketch_view_t va, vb;
    ndd_sketch_get(ws, 0, &va);
    ndd_sketch_get(ws, 1, &vb);
    assert_int_equal(va.len, n);
    assert_int_equal(va.nruns, 1);
    assert_int_equal(vb.len, n / 2);
    assert_int_equal(vb.nruns, 1);
    /* shorter than the window: empty sketches */
    assert_int_equal(ndd_sketch_filter(ws, a, 15, b, n, 16), NDD_OK);
    ndd_sketch_get(ws, 0, &va);
    ndd_sketch_get(ws, 1, &vb);
    assert_int_equal(va.len, 0);
    assert_int_equal(vb.len, 0);
    assert_int_equal(ndd_sketch_filter(ws, a, n, b, n, 0), NDD_ERR_INVAL);
    free(a);
    free(b);
    ndd_sketch_ws_free(ws);
}

/* Real text: two Clough answers to the same task vs the source. The sketch
 * of a cut (copy-paste) answer keeps most of it; the strain-away of a
 * non-reuse answer is high. Checked against the brute-force oracle too. */
static char *slurp(const char *dir, const char *name, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 16);
    assert_non_null(buf);
    *n = fread(buf, 1, 1 << 16, f);
    fclose(f);
    return buf;
}

static void test_clough(void **state)
{
    (void)state;
    char dir[512];
    if (!ndd_test_dataset("clough", dir, sizeof dir)) {
        skip();
        return;
    }
    ndd_sketch_ws_t *ws;
    assert_int_equal(ndd_sketch_ws_create(&ws), NDD_OK);
    size_t no, nc, nn;
    char *orig = slurp(dir, "orig_taska.txt", &no);
    char *cut = slurp(dir, "g0pD_taska.txt", &nc);  /* category cut */
    char *non = slurp(dir, "g0pA_taska.txt", &nn);  /* category non */
    uint8_t *k1 = malloc(no), *k2 = malloc(no > nc ? no : nc);
    assert_non_null(k1);
    assert_non_null(k2);
    ndd_sketch_view_t va, vb;
    assert_int_equal(ndd_sketch_filter(ws, orig, no, cut, nc, 16), NDD_OK);
    ndd_sketch_get(ws, 0, &va);
    ndd_sketch_get(ws, 1, &vb);
    brute_keep((uint8_t *)orig, no, (uint8_t *)cut, nc, 16, k1);
    brute_keep((uint8_t *)cut, nc, (uint8_t *)orig, no, 16, k2);
    check_view(&va, (uint8_t *)orig, no, k1);
    check_view(&vb, (uint8_t *)cut, nc, k2);
    double keep_cut = (double)vb.len / (double)nc;
    assert_int_equal(ndd_sketch_filter(ws, orig, no, non, nn, 16), NDD_OK);
    ndd_sketch_get(ws, 0, &va);
    ndd_sketch_get(ws, 1, &vb);
    double strain_non = 1.0 - (double)(va.len + vb.len) / (double)(no + nn);
    fprintf(stderr, "clough task a: cut answer keeps %.2f of its bytes; non-reuse pair strain-away %.2f\n",
            keep_cut, strain_non);
    assert_true(keep_cut > 0.5);
    assert_true(strain_non > 0.8);
    free(k1);
    free(k2);
    free(orig);
    free(cut);
    free(non);
    ndd_sketch_ws_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_vs_brute),
        cmocka_unit_test(test_repetitive),
        cmocka_unit_test(test_anchors_paths), cmocka_unit_test(test_anchors_bound),
        cmocka_unit_test(test_anchors_bound_long), cmocka_unit_test(test_anchors_bound_wide),
        cmocka_unit_test_setup_teardown(test_anchors_shared_key, fix_setup, fix_teardown),
        cmocka_unit_test_setup_teardown(test_anchored_cases, fix_setup, fix_teardown),
        cmocka_unit_test(test_likely_close),
        cmocka_unit_test(test_clough),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

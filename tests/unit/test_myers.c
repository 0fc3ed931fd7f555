/* test_myers.c - Myers O(ND) LCS / SES against a brute-force DP oracle. */
#include "ndd_test.h"
#include "ndd_verify.h"
#include "verify_int.h"

/* xorshift64*: deterministic test randomness */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* O(nm) LCS length, two rows. */
static size_t dp_lcs(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t *prev = calloc(nb + 1, sizeof *prev), *cur = calloc(nb + 1, sizeof *cur);
    assert_non_null(prev);
    assert_non_null(cur);
    for (size_t i = 1; i <= na; i++) {
        cur[0] = 0;
        for (size_t j = 1; j <= nb; j++) {
            if (a[i - 1] == b[j - 1])
                cur[j] = prev[j - 1] + 1;
            else
                cur[j] = prev[j] > cur[j - 1] ? prev[j] : cur[j - 1];
        }
        size_t *t = prev;
        prev = cur;
        cur = t;
    }
    size_t r = prev[nb];
    free(prev);
    free(cur);
    return r;
}

/* Applies the script to A and checks it rebuilds B; returns the EQ byte count. */
static size_t check_script(const ndd_myers_ws_t *ws, const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t n;
    const ndd_edit_t *s = ndd_myers_script(ws, &n);
    uint8_t *out = malloc(nb + 1);
    assert_non_null(out);
    size_t ia = 0, ib = 0, eq = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(s[i].len > 0);
        assert_int_equal(s[i].a, ia);
        assert_int_equal(s[i].b, ib);
        switch (s[i].op) {
        case NDD_EDIT_EQ:
            assert_true(ia + s[i].len <= na);
            assert_true(ib + s[i].len <= nb);
            memcpy(out + ib, a + ia, s[i].len); /* EQ copies from A */
            ia += s[i].len;
            ib += s[i].len;
            eq += s[i].len;
            break;
        case NDD_EDIT_DEL:
            assert_true(ia + s[i].len <= na);
            ia += s[i].len;
            break;
        case NDD_EDIT_INS:
            assert_true(ib + s[i].len <= nb);
            memcpy(out + ib, b + ib, s[i].len);
            ib += s[i].len;
            break;
        default:
            fail();
        }
        if (i > 0) /* runs are merged: no two consecutive runs of the same op */
            assert_true(s[i].op != s[i - 1].op);
    }
    assert_int_equal(ia, na);
    assert_int_equal(ib, nb);
    assert_memory_equal(out, b, nb);
    free(out);
    return eq;
}

static void gen_random(uint8_t *s, size_t n, unsigned alpha)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (uint8_t)(alpha >= 256 ? rndn(256) : 'a' + rndn(alpha));
}

/* B = A with edits at the given rate (percent): substitution, insertion, deletion. */
/* b = a cut into nbk (<= 10) blocks put in a random order, one byte in
 * `every` replaced by '#'; returns b's length (na). */
static size_t moved_blocks(const uint8_t *a, size_t na, size_t nbk, size_t every, uint8_t *b)
{
    size_t cut[11], perm[10], nb = 0;
    for (size_t q = 0; q <= nbk; q++)
        cut[q] = na * q / nbk;
    for (size_t q = 0; q < nbk; q++)
        perm[q] = q;
    for (size_t q = nbk - 1; q > 0; q--) {
        size_t r = rndn(q + 1), t = perm[q];
        perm[q] = perm[r];
        perm[r] = t;
    }
    for (size_t q = 0; q < nbk; q++)
        for (size_t i = cut[perm[q]]; i < cut[perm[q] + 1]; i++)
            b[nb++] = rndn(every) ? a[i] : (uint8_t)'#';
    return nb;
}

static size_t mutate(const uint8_t *a, size_t na, uint8_t *b, size_t cap, unsigned alpha, unsigned rate)
{
    size_t nb = 0;
    for (size_t i = 0; i < na && nb < cap; i++) {
        if (rndn(100) < rate) {
            switch (rndn(3)) {
            case 0: /* substitution */
                gen_random(b + nb++, 1, alpha);
                break;
            case 1: /* insertion */
                gen_random(b + nb++, 1, alpha);
                if (nb < cap)
                    b[nb++] = a[i];
                break;
            default: /* deletion */
                break;
            }
        } else {
            b[nb++] = a[i];
        }
    }
    return nb;
}

static void test_paper_example(void **state)
{
    (void)state;
    ndd_myers_ws_t *ws;
    assert_int_equal(ndd_myers_ws_create(&ws), NDD_OK);
    ndd_myers_out_t o;
    const char *a = "abcabba", *b = "cbabac"; /* Myers 1986 / paper 002 Fig. 1 */
    assert_int_equal(ndd_myers_diff(ws, a, 7, b, 6, SIZE_MAX, &o), NDD_OK);
    assert_int_equal(o.lcs, 4);
    assert_int_equal(o.d, 5);
    assert_false(o.hit_limit);
    assert_int_equal(check_script(ws, (const uint8_t *)a, 7, (const uint8_t *)b, 6), 4);
    /* empty inputs */
    assert_int_equal(ndd_myers_diff(ws, "", 0, "", 0, SIZE_MAX, &o), NDD_OK);
    assert_int_equal(o.d, 0);
    assert_int_equal(ndd_myers_diff(ws, "abc", 3, "", 0, SIZE_MAX, &o), NDD_OK);
    assert_int_equal(o.d, 3);
    assert_int_equal(check_script(ws, (const uint8_t *)"abc", 3, (const uint8_t *)"", 0), 0);
    assert_int_equal(ndd_myers_diff(ws, NULL, 0, "xy", 2, SIZE_MAX, &o), NDD_OK);
    assert_int_equal(o.d, 2);
    /* no common byte at all */
    assert_int_equal(ndd_myers_diff(ws, "aaaa", 4, "bbb", 3, SIZE_MAX, &o), NDD_OK);
    assert_int_equal(o.lcs, 0);
    assert_int_equal(o.d, 7);
    assert_int_equal(check_script(ws, (const uint8_t *)"aaaa", 4, (const uint8_t *)"bbb", 3), 0);
    ndd_myers_ws_free(ws);
}

/* >= 10,000 random small pairs, alphabets 2/4/26/256, edit rates 0-100 %. */
static void test_random_vs_dp(void **state)
{
    (void)state;
    static const unsigned alphas[] = {2, 4, 26, 256};
    static const unsigned rates[] = {0, 1, 5, 10, 20, 35, 50, 75, 100};
    ndd_myers_ws_t *ws;
    assert_int_equal(ndd_myers_ws_create(&ws), NDD_OK);
    uint8_t a[200], b[400];
    size_t pairs = 0, nonzero_d = 0;
    for (int round = 0; round < 300; round++)
        for (size_t ai = 0; ai < 4; ai++)
            for (size_t ri = 0; ri < sizeof rates / sizeof rates[0]; ri++) {
                unsigned alpha = alphas[ai], rate = rates[ri];
                size_t na = rndn(round % 10 == 0 ? 200 : 60);
                gen_random(a, na, alpha);
                size_t nb;
                if (rate == 100) { /* independent string */
                    nb = rndn(round % 10 == 0 ? 200 : 60);
                    gen_random(b, nb, alpha);
                } else {
                    nb = mutate(a, na, b, sizeof b, alpha, rate);
                }
                if (rndn(4) == 0) { /* sometimes swap roles */
                    uint8_t t[400];
                    memcpy(t, a, na);
                    memcpy(a, b, nb > 200 ? 200 : nb);
                    size_t nt = na;
                    na = nb > 200 ? 200 : nb;
                    memcpy(b, t, nt);
                    nb = nt;
                }
                ndd_myers_out_t o;
                assert_int_equal(ndd_myers_diff(ws, a, na, b, nb, SIZE_MAX, &o), NDD_OK);
                size_t want = dp_lcs(a, na, b, nb);
                if (o.lcs != want)
                    fail_msg("pair %zu alpha %u rate %u: myers %zu dp %zu", pairs, alpha, rate, o.lcs, want);
                assert_int_equal(o.d, na + nb - 2 * want);
                assert_int_equal(check_script(ws, a, na, b, nb), want);
                nonzero_d += o.d > 0;
                /* the cost limit: exactly D passes, D - 1 stops */
                if (o.d > 0 && pairs % 3 == 0) {
                    ndd_myers_out_t o2;
                    assert_int_equal(ndd_myers_diff(ws, a, na, b, nb, o.d, &o2), NDD_OK);
                    assert_false(o2.hit_limit);
                    assert_int_equal(o2.lcs, want);
                    assert_int_equal(ndd_myers_diff(ws, a, na, b, nb, o.d - 1, &o2), NDD_OK);
                    assert_true(o2.hit_limit);
                    assert_true(o2.lcs <= want); /* a lower bound */
                    size_t n;
                    ndd_myers_script(ws, &n);
                    assert_int_equal(n, 0);
                }
                pairs++;
            }
    assert_true(pairs >= 10000);
    assert_true(nonzero_d > pairs / 2);
    ndd_myers_ws_free(ws);
}

/* ---- the reference bisection: GNU diff's diag() without heuristics, the
 * overlap checked on every diagonal as it is written, the plainest form of
 * what verify_myers.c computes. TLCS reads the script's shape (which of the
 * minimal scripts), not only D, so a faster Myers must give this script. ---- */
typedef struct ref_ws {
    ndd_edit_t e[4096];
    size_t n;
    int32_t v1[4200], v2[4200];
} ref_ws_t;

static void ref_emit(ref_ws_t *w, int op, size_t a, size_t b, size_t len)
{
    if (!len)
        return;
    if (w->n) {
        ndd_edit_t *l = &w->e[w->n - 1];
        if (l->op == op && ((op == NDD_EDIT_EQ && l->a + l->len == a && l->b + l->len == b) ||
                            (op == NDD_EDIT_DEL && l->a + l->len == a && l->b == b) ||
                            (op == NDD_EDIT_INS && l->a == a && l->b + l->len == b))) {
            l->len += len;
            return;
        }
    }
    assert_true(w->n < sizeof w->e / sizeof w->e[0]);
    w->e[w->n++] = (ndd_edit_t){op, a, b, len};
}

static void ref_bisect(ref_ws_t *w, const uint8_t *A, int64_t n, const uint8_t *B, int64_t m, int64_t *sx, int64_t *sy)
{
    const int64_t delta = n - m, off = (n + m + 1) / 2 + 2;
    const int odd = (delta & 1) != 0;
    assert_true(2 * off + 3 < 4200);
    int32_t *fv = w->v1 + off, *bv = w->v2 + off - delta;
    int64_t fmin = 0, fmax = 0, bmin = delta, bmax = delta;
    fv[0] = 0;
    bv[delta] = (int32_t)n;
    for (int64_t c = 1;; c++) {
        if (fmin > -m)
            fv[--fmin - 1] = -1;
        else
            ++fmin;
        if (fmax < n)
            fv[++fmax + 1] = -1;
        else
            --fmax;
        for (int64_t k = fmax; k >= fmin; k -= 2) {
            int64_t tlo = fv[k - 1], thi = fv[k + 1], x = tlo < thi ? thi : tlo + 1, y = x - k;
            while (x < n && y < m && A[x] == B[y])
                x++, y++;
            fv[k] = (int32_t)x;
            if (odd && bmin <= k && k <= bmax && bv[k] <= x) {
                *sx = x, *sy = y;
                return;
            }
        }
        if (bmin > -m)
            bv[--bmin - 1] = INT32_MAX;
        else
            ++bmin;
        if (bmax < n)
            bv[++bmax + 1] = INT32_MAX;
        else
            --bmax;
        for (int64_t k = bmax; k >= bmin; k -= 2) {
            int64_t tlo = bv[k - 1], thi = bv[k + 1], x = tlo < thi ? tlo : thi - 1, y = x - k;
            while (x > 0 && y > 0 && A[x - 1] == B[y - 1])
                x--, y--;
            bv[k] = (int32_t)x;
            if (!odd && fmin <= k && k <= fmax && x <= fv[k]) {
                *sx = x, *sy = y;
                return;
            }
        }
    }
}

static void ref_rec(ref_ws_t *w, const uint8_t *A, size_t a0, size_t a1, const uint8_t *B, size_t b0, size_t b1)
{
    size_t p = 0, s = 0;
    while (a0 + p < a1 && b0 + p < b1 && A[a0 + p] == B[b0 + p])
        p++;
    ref_emit(w, NDD_EDIT_EQ, a0, b0, p);
    a0 += p, b0 += p;
    while (a1 - s > a0 && b1 - s > b0 && A[a1 - s - 1] == B[b1 - s - 1])
        s++;
    a1 -= s, b1 -= s;
    if (a0 == a1 || b0 == b1) {
        ref_emit(w, NDD_EDIT_DEL, a0, b0, a1 - a0);
        ref_emit(w, NDD_EDIT_INS, a1, b0, b1 - b0);
    } else {
        int64_t x, y;
        ref_bisect(w, A + a0, (int64_t)(a1 - a0), B + b0, (int64_t)(b1 - b0), &x, &y);
        ref_rec(w, A, a0, a0 + (size_t)x, B, b0, b0 + (size_t)y);
        ref_rec(w, A, a0 + (size_t)x, a1, B, b0 + (size_t)y, b1);
    }
    ref_emit(w, NDD_EDIT_EQ, a1, b1, s);
}

/* Scripts equal the reference's, run for run, on random pairs over small
 * and large alphabets and on texts whose blocks were reordered and edited
 * (large D, where the bisection's choices matter most). */
static void test_script_vs_reference(void **state)
{
    (void)state;
    static ref_ws_t w;
    ndd_myers_ws_t *ws;
    assert_int_equal(ndd_myers_ws_create(&ws), NDD_OK);
    static const char words[] = "the of and to in a is that for it as with was on be by company said "
                                "pct shares year market oil bank trade dollar prices ";
    uint8_t a[1100], b[1300];
    /* both bisections: plain C (isa 0) and 8 diagonals at a time (2, where the CPU has AVX2) */
    for (int round = 0; round < 12000; round++) {
        /* plain C; AVX2 rounds (the LCS rows where they pay); every split
         * of 32 bytes or more from the rows where they apply, word by word
         * and 8 words at a time (AVX-512, where the CPU has it) */
        ndd_myers_isa(round < 3000 ? 0 : round < 9000 ? 2 : 3);
        ndd_myers_rows(round < 6000 ? 1 : 2);
        size_t na, nb;
        if (round % 2) {
            unsigned alpha = (unsigned[]){2, 3, 4, 26}[round / 2 % 4];
            na = rndn(300);
            gen_random(a, na, alpha);
            nb = round % 6 == 1 ? mutate(a, na, b, sizeof b, alpha, 20) : rndn(300);
            if (round % 6 != 1)
                gen_random(b, nb, alpha);
        } else { /* word text, cut into 5 blocks, reordered, every 40th byte changed */
            na = 200 + rndn(800);
            for (size_t i = 0; i < na; i++)
                a[i] = (uint8_t)words[(i * 7 + rndn(3) * 13 + (size_t)round) % (sizeof words - 1)];
            nb = moved_blocks(a, na, 5, 40, b);
        }
        ndd_myers_out_t o;
        assert_int_equal(ndd_myers_diff(ws, a, na, b, nb, SIZE_MAX, &o), NDD_OK);
        w.n = 0;
        ref_rec(&w, a, 0, na, b, 0, nb);
        size_t n;
        const ndd_edit_t *e = ndd_myers_script(ws, &n);
        assert_int_equal(n, w.n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(e[i].op, w.e[i].op);
            assert_int_equal(e[i].a, w.e[i].a);
            assert_int_equal(e[i].b, w.e[i].b);
            assert_int_equal(e[i].len, w.e[i].len);
        }
    }
    ndd_myers_isa(3);
    ndd_myers_rows(1);
    print_message("splits from the LCS rows: %llu\n", (unsigned long long)ndd_myers_rows_count());
    ndd_myers_ws_free(ws);
}

/* The same result and the same script, run for run, from two workspaces. */
static void same_diff(const ndd_myers_ws_t *w0, const ndd_myers_out_t *o0, const ndd_myers_ws_t *w1,
                      const ndd_myers_out_t *o1)
{
    assert_int_equal(o0->hit_limit, o1->hit_limit);
    assert_int_equal(o0->lcs, o1->lcs);
    assert_int_equal(o0->d, o1->d);
    size_t n0, n1;
    const ndd_edit_t *e0 = ndd_myers_script(w0, &n0), *e1 = ndd_myers_script(w1, &n1);
    assert_int_equal(n0, n1);
    for (size_t i = 0; i < n0; i++) {
        assert_int_equal(e0[i].op, e1[i].op);
        assert_int_equal(e0[i].a, e1[i].a);
        assert_int_equal(e0[i].b, e1[i].b);
        assert_int_equal(e0[i].len, e1[i].len);
    }
}

/* The AVX2 bisection (and the splits from the LCS rows) against the plain
 * one on longer inputs (the reference above is limited to ~1 KB): word
 * texts with reordered, edited blocks,
 * random bytes over small alphabets (long snakes, lanes at the grid's
 * edges; alphabets 2, 4, 26 and all bytes), and D limits below, at and above D:
 * the same result and script. */
static void test_wide_equals_scalar(void **state)
{
    (void)state;
    ndd_myers_ws_t *w0, *w2;
    assert_int_equal(ndd_myers_ws_create(&w0), NDD_OK);
    assert_int_equal(ndd_myers_ws_create(&w2), NDD_OK);
    static const char words[] = "the of and to in a is that for it as with was on be by company said "
                                "pct shares year market oil bank trade dollar prices ";
    static uint8_t a[6000], b[7000];
    for (int round = 0; round < 120; round++) {
        size_t na = rndn(3000), nb;
        if (round % 3 == 0) { /* word text, 2..9 blocks reordered, every 30th byte changed */
            for (size_t i = 0; i < na; i++)
                a[i] = (uint8_t)words[(i * 7 + rndn(3) * 13 + (size_t)round) % (sizeof words - 1)];
            nb = moved_blocks(a, na, 2 + rndn(8), 30, b);
        } else {
            unsigned alpha = (unsigned[]){2, 4, 26, 256}[round / 3 % 4];
            gen_random(a, na, alpha);
            nb = round % 2 ? mutate(a, na, b, sizeof b, alpha, 5 + (unsigned)rndn(40)) : rndn(3000);
            if (round % 2 == 0)
                gen_random(b, nb, alpha);
        }
        size_t lims[4] = {SIZE_MAX, 0, 0, 0};
        for (int li = 0; li < 4; li++) {
            ndd_myers_out_t o0, o2;
            ndd_myers_isa(0);
            assert_int_equal(ndd_myers_diff(w0, a, na, b, nb, lims[li], &o0), NDD_OK);
            ndd_myers_isa(2 + (unsigned)(round / 2 % 2)); /* the rows word by word, or 8 words at a time */
            ndd_myers_rows(1 + round % 2); /* the LCS rows where they pay, or wherever they apply */
            assert_int_equal(ndd_myers_diff(w2, a, na, b, nb, lims[li], &o2), NDD_OK);
            ndd_myers_rows(1);
            same_diff(w0, &o0, w2, &o2);
            if (li == 0) { /* limits: D - 1 (hit), D (not), a random one */
                lims[1] = o0.d ? o0.d - 1 : 0;
                lims[2] = o0.d;
                lims[3] = rndn(o0.d + 1);
            }
        }
    }
    ndd_myers_isa(3);
    ndd_myers_ws_free(w0);
    ndd_myers_ws_free(w2);
}

/* The splits from the LCS rows against the rounds' on the shapes where the
 * rows' conditions matter: lengths far apart (paths that reach an edge and
 * leave the grid), a copy with an inserted or dropped run, moved blocks,
 * periodic texts, one sequence a prefix of the other, alphabets of 2 to 256
 * bytes, D limits below, at and above D; the rows word by word and 8 words
 * at a time. The rows must have made more than 5,000 splits (about 98,000). */
static void test_rows_equal_rounds(void **state)
{
    (void)state;
    ndd_myers_ws_t *w0, *w1;
    assert_int_equal(ndd_myers_ws_create(&w0), NDD_OK);
    assert_int_equal(ndd_myers_ws_create(&w1), NDD_OK);
    static uint8_t a[6000], b[12000];
    const uint64_t used0 = ndd_myers_rows_count();
    uint64_t redo0, redo1;
    const uint64_t band0 = ndd_myers_band_count(&redo0);
    for (int round = 0; round < 4000; round++) {
        const int shape = round % 9;
        const unsigned alpha = (unsigned[]){2, 3, 4, 8, 26, 256}[rndn(6)];
        /* now and then rows of more than 64 words (AVX-512: read back from memory) */
        size_t na = round % 50 == 0 ? 4100 + rndn(1900) : rndn(700), nb = 0;
        gen_random(a, na, alpha);
        if (shape == 0) { /* unrelated */
            nb = rndn(700);
            gen_random(b, nb, alpha);
        } else if (shape == 1) { /* an edited piece of a: much shorter */
            size_t from = rndn(na + 1), len = rndn(na - from + 1);
            for (size_t i = 0; i < len; i++)
                b[nb++] = rndn(10) ? a[from + i] : (uint8_t)rndn(256);
        } else if (shape == 2) { /* blocks moved, every 20th byte changed */
            nb = moved_blocks(a, na, 2 + rndn(6), 20, b);
        } else if (shape == 3) { /* long insertions, dropped bytes */
            for (size_t i = 0; i < na; i++) {
                if (!rndn(200))
                    for (size_t l = rndn(300); l > 0 && nb < sizeof b - 1; l--)
                        b[nb++] = (uint8_t)rndn(alpha);
                if (rndn(150))
                    b[nb++] = a[i];
            }
        } else if (shape == 4) { /* periodic */
            size_t p = 1 + rndn(5), p2 = 1 + rndn(5);
            for (size_t i = 0; i < na; i++)
                a[i] = (uint8_t)(i % p);
            nb = rndn(900);
            for (size_t i = 0; i < nb; i++)
                b[i] = (uint8_t)(i % p2 ? i % p2 : rndn(alpha));
            if (round % 50 == 0) /* a long b too */
                for (; nb < 4500; nb++)
                    b[nb] = (uint8_t)(nb % p2);
        } else if (shape == 5) { /* much longer: a with a byte added after every third */
            for (size_t i = 0; i < na; i++) {
                b[nb++] = a[i];
                if (!rndn(3))
                    b[nb++] = (uint8_t)rndn(alpha);
            }
        } else if (shape == 7 || shape == 8) { /* a near copy (the rows in a band): a byte replaced, dropped or
                                                  * added every gap bytes; 8: with a run moved */
            na = shape == 7 ? 1000 + rndn(5000) : 100 + rndn(1900);
            gen_random(a, na, alpha);
            size_t gap = shape == 7 ? 20 + rndn(400) : 4 + rndn(300);
            for (size_t i = 0; i < na && nb < sizeof b - 2; i++) {
                if (rndn(gap)) {
                    b[nb++] = a[i];
                    continue;
                }
                unsigned e = (unsigned)rndn(3);
                uint8_t c;
                gen_random(&c, 1, alpha);
                if (e == 0)
                    b[nb++] = c;
                else if (e == 2) {
                    b[nb++] = c;
                    b[nb++] = a[i];
                }
            }
            if (shape == 8 && nb > 200) { /* a run of b moved to its end */
                size_t from = rndn(nb / 2), len = 1 + rndn(nb / 8);
                uint8_t t[12000];
                memcpy(t, b + from, len);
                memmove(b + from, b + from + len, nb - from - len);
                memcpy(b + nb - len, t, len);
            }
        } else { /* a prefix of b, then edits */
            memcpy(b, a, na);
            nb = na + rndn(400);
            gen_random(b + na, nb - na, alpha);
            for (size_t i = 0; i < nb; i++)
                if (!rndn(30))
                    b[i] = (uint8_t)rndn(alpha);
        }
        const uint8_t *x = a, *y = b;
        size_t nx = na, ny = nb;
        if (round % 2) { /* either side the longer */
            x = b;
            nx = nb;
            y = a;
            ny = na;
        }
        size_t lim = rndn(4) ? SIZE_MAX : rndn(nx + ny + 1);
        ndd_myers_out_t o0, o1;
        ndd_myers_rows(0);
        assert_int_equal(ndd_myers_diff(w0, x, nx, y, ny, lim, &o0), NDD_OK);
        ndd_myers_rows(2);
        ndd_myers_isa(2 + (unsigned)(round / 2 % 2));
        assert_int_equal(ndd_myers_diff(w1, x, nx, y, ny, lim, &o1), NDD_OK);
        ndd_myers_isa(3);
        ndd_myers_rows(1);
        same_diff(w0, &o0, w1, &o1);
    }
    const uint64_t used1 = ndd_myers_rows_count(), band1 = ndd_myers_band_count(&redo1);
    print_message("splits from the LCS rows: %llu; rows in a band: %llu, made again wider: %llu\n",
                  (unsigned long long)(used1 - used0), (unsigned long long)(band1 - band0),
                  (unsigned long long)(redo1 - redo0));
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt")) {
        assert_true(used1 - used0 > 5000);
        assert_true(band1 - band0 > 5000);
        assert_true(redo1 - redo0 > 50);
    }
#endif
    ndd_myers_ws_free(w0);
    ndd_myers_ws_free(w1);
}

/* Longer real-ish sequences: the script must still rebuild B and be minimal
 * (checked by DP on 3 KB x 3 KB), and the limit must bound the run. */
static void test_longer(void **state)
{
    (void)state;
    ndd_myers_ws_t *ws;
    assert_int_equal(ndd_myers_ws_create(&ws), NDD_OK);
    size_t na = 3000;
    uint8_t *a = malloc(na), *b = malloc(2 * na);
    assert_non_null(a);
    assert_non_null(b);
    for (unsigned rate = 0; rate <= 40; rate += 8) {
        gen_random(a, na, 4);
        size_t nb = mutate(a, na, b, 2 * na, 4, rate);
        ndd_myers_out_t o;
        assert_int_equal(ndd_myers_diff(ws, a, na, b, nb, SIZE_MAX, &o), NDD_OK);
        size_t want = dp_lcs(a, na, b, nb);
        assert_int_equal(o.lcs, want);
        assert_int_equal(check_script(ws, a, na, b, nb), want);
    }
    /* a large pair with a small difference is fast; with a tiny limit it stops */
    size_t big = 1 << 20;
    uint8_t *x = malloc(big), *y = malloc(big + 16);
    assert_non_null(x);
    assert_non_null(y);
    gen_random(x, big, 256);
    memcpy(y, x, big);
    y[big / 3] ^= 1;
    memmove(y + big / 2 + 5, y + big / 2, big - big / 2);
    memcpy(y + big / 2, "HELLO", 5);
    ndd_myers_out_t o;
    assert_int_equal(ndd_myers_diff(ws, x, big, y, big + 5, SIZE_MAX, &o), NDD_OK);
    assert_int_equal(o.d, 7);
    assert_int_equal(o.lcs, big - 1);
    assert_int_equal(check_script(ws, x, big, y, big + 5), big - 1);
    gen_random(y, big, 256);
    assert_int_equal(ndd_myers_diff(ws, x, big, y, big, 100, &o), NDD_OK);
    assert_true(o.hit_limit);
    free(x);
    free(y);
    free(a);
    free(b);
    ndd_myers_ws_free(ws);
}

static void test_auto_limit(void **state)
{
    (void)state;
    assert_int_equal(ndd_myers_auto_limit(0), 0);
    assert_int_equal(ndd_myers_auto_limit(10), 10);
    assert_int_equal(ndd_myers_auto_limit(20480), 20480);
    assert_int_equal(ndd_myers_auto_limit((size_t)1 << 20), 1 << 15);
    assert_int_equal(ndd_myers_auto_limit((size_t)200 << 20), 1 << 15);
    /* D >= |na - nb|: a length difference over the limit stops at once */
    ndd_myers_ws_t *ws;
    assert_int_equal(ndd_myers_ws_create(&ws), NDD_OK);
    ndd_myers_out_t o;
    char big[1000];
    memset(big, 'a', sizeof big);
    assert_int_equal(ndd_myers_diff(ws, big, sizeof big, "aaaaaaaaaa", 10, 5, &o), NDD_OK);
    assert_true(o.hit_limit);
    assert_int_equal(o.lcs, 10); /* the common prefix: a lower bound, here exact */
    assert_int_equal(ndd_myers_diff(ws, big, sizeof big, "aaaaaaaaaa", 10, 990, &o), NDD_OK);
    assert_false(o.hit_limit);
    assert_int_equal(o.d, 990);
    ndd_myers_ws_free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_example),
        cmocka_unit_test(test_random_vs_dp),
        cmocka_unit_test(test_script_vs_reference),
        cmocka_unit_test(test_wide_equals_scalar),
        cmocka_unit_test(test_rows_equal_rounds),
        cmocka_unit_test(test_longer),
        cmocka_unit_test(test_auto_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

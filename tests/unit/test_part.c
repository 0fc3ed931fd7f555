/* Unit tests for src/part (shards by bytes, owners, resume shares, LPT
 * placement) and src/doc (the documents batch and the shuffle-2 record),
 * against brute force. */
#include "ndd_test.h"
#include "ndd_docs.h"
#include "ndd_part.h"
#include "ndd_util.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) { return ndd_test_xorshift(&rng_state); }
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* Over all tasks: every byte of a splittable file is read exactly once (by
 * the task whose range holds it), every other file exactly once, by the task
 * whose range holds its first byte; pieces come in input order. */
static void test_plan(void **state)
{
    (void)state;
    for (int round = 0; round < 400; round++) {
        size_t nin = rndn(8);
        ndd_input_t in[8];
        memset(in, 0, sizeof in);
        uint64_t total = 0, start[8];
        for (size_t i = 0; i < nin; i++) {
            in[i].size = rndn(5) ? rndn(3000) : 0;
            in[i].splittable = (int)rndn(2);
            start[i] = total;
            total += in[i].size;
        }
        int T = 1 + (int)rndn(9);
        uint8_t *covered = calloc(total + 1, 1);
        int whole[8] = {0};
        for (int t = 0; t < T; t++) {
            ndd_piece_t *p = NULL;
            size_t np = 0;
            assert_int_equal(ndd_part_plan(in, nin, T, t, &p, &np), NDD_OK);
            uint64_t lo_t = (uint64_t)((long double)total * t / T), hi_t = (uint64_t)((long double)total * (t + 1) / T);
            const ndd_input_t *prev = NULL;
            for (size_t k = 0; k < np; k++) {
                size_t i = (size_t)(p[k].in - in);
                assert_true(i < nin);
                assert_true(!prev || p[k].in > prev);
                prev = p[k].in;
                if (p[k].hi == UINT64_MAX) {
                    assert_false(in[i].splittable && in[i].size > 0);
                    assert_int_equal(ndd_piece_bytes(&p[k]), in[i].size);
                    whole[i]++;
                    /* the owner: the last task whose range starts at or before the file's first byte */
                    int owner = 0;
                    for (int r = 0; r < T; r++)
                        if ((uint64_t)((long double)total * r / T) <= start[i])
                            owner = r;
                    assert_int_equal(owner, t);
                } else {
                    assert_true(in[i].splittable);
                    assert_true(p[k].lo < p[k].hi && p[k].hi <= in[i].size);
                    assert_int_equal(ndd_piece_bytes(&p[k]), p[k].hi - p[k].lo);
                    for (uint64_t b = p[k].lo; b < p[k].hi; b++) {
                        uint64_t g = start[i] + b;
                        assert_true(g >= lo_t && g < hi_t);
                        covered[g]++;
                    }
                }
            }
            free(p);
        }
        for (size_t i = 0; i < nin; i++) {
            if (in[i].splittable && in[i].size > 0) {
                for (uint64_t b = 0; b < in[i].size; b++)
                    assert_int_equal(covered[start[i] + b], 1);
                assert_int_equal(whole[i], 0);
            } else
                assert_int_equal(whole[i], 1);
        }
        free(covered);
    }
    ndd_piece_t *p = NULL;
    size_t np = 0;
    assert_int_equal(ndd_part_plan(NULL, 0, 0, 0, &p, &np), NDD_ERR_INVAL);
    assert_int_equal(ndd_part_plan(NULL, 0, 2, 2, &p, &np), NDD_ERR_INVAL);
    assert_int_equal(ndd_part_plan(NULL, 0, 2, -1, &p, &np), NDD_ERR_INVAL);
}

static void test_owner_share(void **state)
{
    (void)state;
    for (int round = 0; round < 500; round++) {
        int P = 1 + (int)rndn(9);
        uint64_t starts[11], at = 0;
        for (int r = 0; r < P; r++) {
            starts[r] = at;
            at += rndn(3) ? rndn(50) : 0; /* some ranks hold nothing */
        }
        starts[P] = at;
        for (uint64_t g = 0; g < at; g++) {
            int want = -1;
            for (int r = 0; r < P; r++)
                if (starts[r] <= g && g < starts[r + 1])
                    want = r;
            assert_int_equal(ndd_part_owner_of(starts, P, g), want);
        }
        uint64_t total = rnd() % 100000, prev = 0;
        for (int r = 0; r < P; r++) {
            uint64_t lo, hi;
            ndd_part_share(total, P, r, &lo, &hi);
            assert_int_equal(lo, prev);
            assert_true(lo <= hi);
            assert_true(hi - lo <= total / (uint64_t)P + 1);
            prev = hi;
        }
        assert_int_equal(prev, total);
        assert_true(ndd_part_hash_dest(rnd(), P) < (uint32_t)P);
        /* weighted shares against brute force: rank r starts at the first
         * item whose prefix weight reaches floor(W r / P); w = 1 is ndd_part_share */
        uint64_t tw = rndn(4) ? rnd() % 3000 : rnd() % 20, heavy = tw ? rnd() % (tw + 1) : 0;
        unsigned w = 1 + (unsigned)rndn(5);
        uint64_t W = heavy + w * (tw - heavy), pw = 0, b = 0;
        prev = 0;
        for (int r = 0; r < P; r++) {
            uint64_t lo, hi, lo1, hi1, t = W * (uint64_t)r / (uint64_t)P;
            while (pw < t) /* brute force: walk the items until the prefix weight reaches t */
                pw += b++ < heavy ? 1 : w;
            assert_int_equal(ndd_part_share_weighted(tw, heavy, w, P, r, &lo, &hi), NDD_OK);
            assert_int_equal(lo, b);
            assert_int_equal(lo, prev);
            assert_true(lo <= hi);
            prev = hi;
            assert_int_equal(ndd_part_share_weighted(tw, heavy, 1, P, r, &lo, &hi), NDD_OK);
            ndd_part_share(tw, P, r, &lo1, &hi1);
            assert_int_equal(lo, lo1);
            assert_int_equal(hi, hi1);
        }
        assert_int_equal(prev, tw);
        uint64_t lo, hi;
        assert_int_equal(ndd_part_share_weighted(tw, tw + 1, w, P, 0, &lo, &hi), NDD_ERR_INVAL);
        assert_int_equal(ndd_part_share_weighted(tw, heavy, 0, P, 0, &lo, &hi), NDD_ERR_INVAL);
        assert_int_equal(ndd_part_share_weighted(tw, heavy, w, P, P, &lo, &hi), NDD_ERR_INVAL);
        assert_int_equal(ndd_part_share_weighted(UINT64_MAX / 2, 0, 3, P, 0, &lo, &hi), NDD_ERR_INVAL);
    }
}

/* LPT: the rule as written (largest first, to the least loaded rank, ties to
 * the lowest, from the ranks' starting loads), and its guarantee, checked by
 * exhaustive search on small instances: makespan <= 4/3 of the optimum from
 * empty ranks, <= 3/2 from starting loads (LPT with machines available at
 * different times, Lee 1991). */
static void test_lpt(void **state)
{
    (void)state;
    for (int round = 0; round < 600; round++) {
        size_t n = rndn(9);
        int P = 1 + (int)rndn(4), started = round % 2;
        ndd_setsize_t s[9], o[9];
        uint32_t dest[9];
        uint64_t start[4] = {0};
        for (size_t i = 0; i < n; i++)
            s[i] = o[i] = (ndd_setsize_t){rnd() % 1000, 1 + rndn(100)};
        for (int r = 0; started && r < P; r++)
            start[r] = rndn(150);
        ndd_part_lpt(s, n, P, started ? start : NULL, dest);
        uint64_t load[4] = {start[0], start[1], start[2], start[3]}, ms = 0;
        for (size_t i = 0; i < n; i++) {
            if (i)
                assert_true(s[i - 1].size > s[i].size || (s[i - 1].size == s[i].size && s[i - 1].label <= s[i].label));
            int best = 0;
            for (int r = 1; r < P; r++)
                if (load[r] < load[best])
                    best = r;
            assert_int_equal(dest[i], best);
            load[best] += s[i].size;
        }
        for (int r = 0; r < P; r++)
            ms = load[r] > ms ? load[r] : ms;
        uint64_t opt = UINT64_MAX, combos = 1;
        for (size_t i = 0; i < n; i++)
            combos *= (uint64_t)P;
        for (uint64_t c = 0; c < combos; c++) {
            uint64_t l[4] = {start[0], start[1], start[2], start[3]}, x = c, m = 0;
            for (size_t i = 0; i < n; i++, x /= (uint64_t)P)
                l[x % (uint64_t)P] += o[i].size;
            for (int r = 0; r < P; r++)
                m = l[r] > m ? l[r] : m;
            opt = m < opt ? m : opt;
        }
        if (n && !started)
            assert_true(3 * ms <= 4 * opt);
        if (n && started)
            assert_true(2 * ms <= 3 * opt);
    }
}

static void test_docrec(void **state)
{
    (void)state;
    ndd_buf_t b = NDD_BUF_INIT;
    ndd_docrec_t in[50];
    char texts[50][64];
    uint64_t keys[50][6];
    for (size_t i = 0; i < 50; i++) {
        size_t tl = rndn(60);
        for (size_t k = 0; k < tl; k++)
            texts[i][k] = (char)('a' + rndn(26));
        /* every third record an exact follower (its representative on the wire) */
        in[i] = (ndd_docrec_t){rnd(), rnd(), i % 3 == 1 ? rnd() >> 1 : UINT64_MAX, "id", "http://x/", texts[i],
                               (uint32_t)(i % 3), (uint32_t)(i % 10), (uint32_t)tl, 0, NULL, 0, NULL};
        if (i % 4 == 2) { /* every fourth with its candidate keys (some also followers) */
            in[i].nkeys = (uint32_t)(1 + i % 6);
            for (size_t k = 0; k < in[i].nkeys; k++)
                keys[i][k] = rnd();
            in[i].keys = keys[i];
        }
        assert_int_equal(ndd_docrec_put(&b, &in[i]), NDD_OK);
    }
    size_t total = 0;
    for (size_t i = 0; i < 50; i++)
        total += ndd_docrec_size(&in[i]);
    assert_int_equal(b.len, total);
    ndd_docrec_t *out = NULL;
    size_t n = 0, cap = 0;
    assert_int_equal(ndd_docrec_parse(b.data, b.len, &out, &n, &cap), NDD_OK);
    assert_int_equal(n, 50);
    for (size_t i = 0; i < 50; i++) {
        assert_int_equal(out[i].g, in[i].g);
        assert_int_equal(out[i].label, in[i].label);
        assert_true(out[i].rep == in[i].rep);
        assert_int_equal(out[i].textlen, in[i].textlen);
        assert_memory_equal(out[i].text, in[i].text, in[i].textlen);
        assert_memory_equal(out[i].id, in[i].id, in[i].idlen);
        assert_memory_equal(out[i].url, in[i].url, in[i].urllen);
        assert_int_equal(out[i].nkeys, in[i].nkeys);
        assert_true((out[i].keys_le != NULL) == (in[i].nkeys != 0));
        for (size_t k = 0; k < in[i].nkeys; k++)
            assert_true(ndd_docrec_key(&out[i], k) == in[i].keys[k]);
    }
    /* the wire form is little-endian with a zero flags word (no follower) */
    assert_int_equal((unsigned char)b.data[0], in[0].g & 0xff);
    assert_int_equal(b.data[28] | b.data[29] | b.data[30] | b.data[31], 0);
    /* record 2 has keys: flags 2, then the key count after the header */
    size_t s0 = ndd_docrec_size(&in[0]), s1 = ndd_docrec_size(&in[1]);
    assert_int_equal(b.data[s0 + s1 + 28], 2);
    /* every cut inside a record is refused, a follower's and one with keys too */
    for (size_t cut = 1; cut < s0 + s1 + ndd_docrec_size(&in[2]); cut++) {
        size_t m = 0;
        if (cut != s0 && cut != s0 + s1)
            assert_int_equal(ndd_docrec_parse(b.data, cut, &out, &m, &cap), NDD_ERR_FORMAT);
    }
    /* an unknown flag is refused */
    b.data[28] = 4;
    size_t m = 0;
    assert_int_equal(ndd_docrec_parse(b.data, b.len, &out, &m, &cap), NDD_ERR_FORMAT);
    free(out);
    ndd_buf_free(&b);
}

static void test_docs(void **state)
{
    (void)state;
    ndd_docs_t d = NDD_DOCS_INIT;
    uint64_t keys[5000];
    size_t nk_total = 0;
    for (size_t i = 0; i < 5000; i++) /* grows past the first reservation */
        keys[i] = rnd();
    for (size_t i = 0; i < 5000; i++) {
        char id[32], url[32], text[32];
        int il = snprintf(id, sizeof id, "d%zu", i), ul = snprintf(url, sizeof url, "http://h%zu/", i % 7);
        int tl = snprintf(text, sizeof text, "text %zu", i * 31);
        size_t nk = i % 4;
        assert_int_equal(ndd_docs_add(&d, id, (size_t)il, url, (size_t)ul, text, (size_t)tl, (uint32_t)i, (uint16_t)i,
                                      (uint32_t)nk, keys + nk_total % 4000, nk),
                         NDD_OK);
        nk_total += nk;
    }
    assert_int_equal(d.n, 5000);
    assert_int_equal(d.key_off[0], 0);
    assert_int_equal(d.nkeys, nk_total);
    size_t at = 0;
    for (size_t i = 0; i < 5000; i++) {
        char id[32], text[32];
        snprintf(id, sizeof id, "d%zu", i);
        int tl = snprintf(text, sizeof text, "text %zu", i * 31);
        assert_string_equal(ndd_docs_id(&d, i), id);
        assert_int_equal(d.text_len[i], (uint32_t)tl);
        assert_memory_equal(ndd_docs_text(&d, i), text, (size_t)tl);
        assert_int_equal(d.key_off[i + 1] - d.key_off[i], i % 4);
        for (uint64_t k = d.key_off[i]; k < d.key_off[i + 1]; k++)
            assert_int_equal(d.keys[k], keys[at % 4000 + (k - d.key_off[i])]);
        at += i % 4;
        assert_int_equal(d.site[i], (uint32_t)i);
        assert_int_equal(d.urlh[i], (uint16_t)i);
    }
    ndd_docs_drop_keys(&d);
    assert_null(d.keys);
    assert_int_equal(d.n, 5000);
    ndd_docs_free(&d);
    assert_int_equal(d.n, 0);
    ndd_docs_free(&d); /* twice is fine */
}

/* ndd_part_balance against its definition (each boundary found by summing
 * from the start, in exact 128-bit arithmetic) and the owner against a
 * linear search (and every bucket lies in its owner's range). */
static void test_balance(void **state)
{
    (void)state;
    uint64_t w[300];
    size_t first[10];
    for (int round = 0; round < 2000; round++) {
        size_t nb = rndn(300);
        int P = 1 + (int)rndn(9);
        unsigned kind = (unsigned)(round % 4);
        for (size_t b = 0; b < nb; b++) /* uniform, sparse, skewed to the front, and huge weights */
            w[b] = kind == 0 ? rndn(100) : kind == 1 ? (rndn(10) ? 0 : rndn(1000)) : kind == 2 ? 1000 / (b + 1) : rnd() >> 4;
        ndd_part_balance(w, nb, P, first);
        assert_int_equal(first[0], 0);
        assert_int_equal(first[P], nb);
        unsigned __int128 total = 0;
        for (size_t b = 0; b < nb; b++)
            total += w[b];
        for (int q = 1; q < P; q++) {
            size_t want = 0;
            unsigned __int128 pre = 0;
            while (want < nb && pre * (unsigned)P < (unsigned __int128)q * total)
                pre += w[want++];
            assert_int_equal(first[q], want);
            assert_true(first[q - 1] <= first[q]);
        }
        for (size_t b = 0; b < nb; b++) {
            int owner = 0;
            for (int q = 0; q < P; q++)
                if (first[q] <= b)
                    owner = q;
            assert_int_equal(ndd_part_balance_owner(first, P, b), owner);
            assert_true(b >= first[owner] && b < first[owner + 1]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan),   cmocka_unit_test(test_owner_share), cmocka_unit_test(test_lpt),
        cmocka_unit_test(test_docrec), cmocka_unit_test(test_docs),    cmocka_unit_test(test_balance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* fuzz_verify.c - the trustable-LCS verifier (src/verify): the input is
 * split into two documents at the first 0xFF byte (or in the middle); the
 * first byte picks the window, the iteration count and the exact mode.
 * Checks: scores in [0, 1], TLCS <= LCS bound <= both lengths, symmetry
 * (compare(B, A) gives the same numbers), and for short inputs Myers' edit
 * distance against a dynamic-programming LCS (exact oracle). The formulaic
 * check runs on every duplicate. The anchor bound (what ndd run tries before
 * the sketches) is never below either sketch and never above the text, and
 * the sketches made from the anchors equal the table's. */
#include "fuzz_common.h"
#include "ndd_verify.h"

#include <string.h>

static size_t lcs_dp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb)
{
    size_t row[129] = {0};
    for (size_t i = 1; i <= na; i++) {
        size_t diag = 0;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            row[j] = a[i - 1] == b[j - 1] ? diag + 1 : (row[j] > row[j - 1] ? row[j] : row[j - 1]);
            diag = up;
        }
    }
    return row[nb];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ndd_tlcs_ws_t *ws;
    static ndd_myers_ws_t *mw;
    if (!ws && (ndd_tlcs_ws_create(&ws) || ndd_myers_ws_create(&mw)))
        abort();
    if (size < 1)
        return 0;
    uint8_t f = data[0];
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    const uint8_t *cut = memchr(p, 0xFF, n);
    size_t na = cut ? (size_t)(cut - p) : n / 2;
    const char *a = (const char *)p, *b = (const char *)p + na + (cut ? 1 : 0);
    size_t nb = n - na - (cut ? 1 : 0);

    ndd_tlcs_params_t tp;
    ndd_tlcs_params_default(&tp);
    tp.window = 2 + (f & 15);
    tp.max_iter = 1 + ((f >> 4) & 3);
    tp.exact = (f >> 6) & 1;
    if ((f >> 7) & 1)
        tp.subst_share = 0;
    ndd_tlcs_result_t r1, r2;
    FUZZ_CHECK(ndd_tlcs_compare(ws, &tp, a, na, b, nb, &r1) == NDD_OK);
    FUZZ_CHECK(r1.resemblance >= 0 && r1.resemblance <= 1 && r1.containment >= 0 && r1.containment <= 1);
    FUZZ_CHECK(r1.tlcs <= na && r1.tlcs <= nb);
    FUZZ_CHECK(r1.sketch_a <= na && r1.sketch_b <= nb);
    FUZZ_CHECK(r1.pruned_by_bound || r1.tlcs <= r1.lcs_upper);
    if (!tp.exact) {
        static ndd_anchors_t xa, xb;
        static uint64_t *mark, *scratch;
        static size_t mark_cap, scratch_cap;
        size_t ua, ub;
        FUZZ_CHECK(ndd_anchors_make(&xa, a, na, tp.window, &scratch, &scratch_cap) == NDD_OK);
        FUZZ_CHECK(ndd_anchors_make(&xb, b, nb, tp.window, &scratch, &scratch_cap) == NDD_OK);
        FUZZ_CHECK(ndd_anchors_bound(&xa, &xb, &mark, &mark_cap, 0, &ua, &ub) == NDD_OK);
        FUZZ_CHECK(ua >= r1.sketch_a && ub >= r1.sketch_b && ua <= na && ub <= nb);
        size_t va, vb; /* past need: B's union left out (its length), A's the same */
        FUZZ_CHECK(ndd_anchors_bound(&xa, &xb, &mark, &mark_cap, ua + 1, &va, &vb) == NDD_OK);
        FUZZ_CHECK(va == ua && vb == (xa.n && xb.n ? nb : 0));
        FUZZ_CHECK(ndd_anchors_bound(&xa, &xb, &mark, &mark_cap, ua, &va, &vb) == NDD_OK);
        FUZZ_CHECK(va == ua && vb == ub);
        /* the sketches from the anchors are the table's, byte for byte */
        static ndd_sketch_ws_t *s1, *s2;
        if (!s1 && (ndd_sketch_ws_create(&s1) || ndd_sketch_ws_create(&s2)))
            abort();
        FUZZ_CHECK(ndd_sketch_filter(s1, a, na, b, nb, tp.window) == NDD_OK);
        FUZZ_CHECK(ndd_sketch_filter_anchored(s2, a, na, &xa, b, nb, &xb, tp.window) == NDD_OK);
        for (int w = 0; w < 2; w++) {
            ndd_sketch_view_t u, v;
            ndd_sketch_get(s1, w, &u);
            ndd_sketch_get(s2, w, &v);
            FUZZ_CHECK(u.len == v.len && u.nruns == v.nruns && (!u.len || !memcmp(u.bytes, v.bytes, u.len)));
            for (size_t k = 0; k < u.nruns; k++)
                FUZZ_CHECK(u.runs[k].pos == v.runs[k].pos && u.runs[k].len == v.runs[k].len);
        }
    }
    FUZZ_CHECK(ndd_tlcs_compare(ws, &tp, b, nb, a, na, &r2) == NDD_OK);
    FUZZ_CHECK(r1.tlcs == r2.tlcs && r1.duplicate == r2.duplicate && r1.lcs == r2.lcs);
    if (r1.duplicate) {
        ndd_formula_params_t fp;
        ndd_formula_result_t fr;
        ndd_formula_params_default(&fp);
        FUZZ_CHECK(ndd_formula_check(&fp, a, na, b, nb, &r1, &fr) == NDD_OK);
        FUZZ_CHECK(fr.keys_changed <= fr.keys && fr.numbers_changed <= fr.numbers);
    }
    if (na <= 128 && nb <= 128) { /* exact LCS oracle for Myers */
        ndd_myers_out_t mo;
        FUZZ_CHECK(ndd_myers_diff(mw, a, na, b, nb, SIZE_MAX, &mo) == NDD_OK);
        FUZZ_CHECK(!mo.hit_limit && mo.lcs == lcs_dp(p, na, (const uint8_t *)b, nb));
        size_t ne, ia = 0, ib = 0;
        const ndd_edit_t *e = ndd_myers_script(mw, &ne);
        for (size_t k = 0; k < ne; k++) { /* the script walks both sequences exactly */
            FUZZ_CHECK(e[k].a == ia && e[k].b == ib);
            if (e[k].op == NDD_EDIT_EQ)
                FUZZ_CHECK(!memcmp(a + ia, b + ib, e[k].len));
            ia += e[k].op != NDD_EDIT_INS ? e[k].len : 0;
            ib += e[k].op != NDD_EDIT_DEL ? e[k].len : 0;
        }
        FUZZ_CHECK(ia == na && ib == nb);
    }
    return 0;
}

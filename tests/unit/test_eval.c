/* Unit tests for src/eval with hand-computed small cases. */
#include "ndd_test.h"
#include "ndd_eval.h"
#include "ndd_util.h"
#include <math.h>

static void test_perfect_and_empty(void **state)
{
    (void)state;
    ndd_eval_doc_t d[4] = {{1, 10, 0}, {1, 10, 1}, {2, 20, 0}, {2, 20, 1}};
    ndd_eval_result_t r;
    assert_int_equal(ndd_eval_clusters(d, 4, 10, &r), NDD_OK);
    assert_int_equal(r.tp, 2);
    assert_true(r.precision == 1.0 && r.recall == 1.0 && r.f1 == 1.0);
    assert_true(fabs(r.ari - 1.0) < 1e-12);
    assert_int_equal(r.gold_removable, 2);
    assert_int_equal(r.removed_correct, 2);
    assert_true(r.removal_recall == 1.0);
    /* nothing predicted, nothing in gold */
    assert_int_equal(ndd_eval_clusters(d, 0, 10, &r), NDD_OK);
    assert_true(r.precision == 1.0 && r.recall == 1.0);
}

static void test_hand_case(void **state)
{
    (void)state;
    /* N = 6 documents a..f. gold: {a,b,c} {d,e} {f}; predicted: {a,b} {c,d,e} {f}.
     * gold pairs: 3 + 1 = 4; predicted pairs: 1 + 3 = 4;
     * TP: (a,b) and (d,e) = 2 -> P = R = F1 = 0.5.
     * ARI: expected = 4*4/C(6,2)=16/15; max = 4; ARI = (2 - 16/15) / (4 - 16/15) = (14/15)/(44/15) = 14/44. */
    ndd_eval_doc_t d[6] = {{1, 1, 0}, {1, 1, 1}, {1, 2, 1}, {2, 2, 0}, {2, 2, 1}, {3, 3, 0}};
    ndd_eval_result_t r;
    assert_int_equal(ndd_eval_clusters(d, 6, 6, &r), NDD_OK);
    assert_int_equal(r.gold_pairs, 4);
    assert_int_equal(r.pred_pairs, 4);
    assert_int_equal(r.tp, 2);
    assert_true(fabs(r.f1 - 0.5) < 1e-12);
    assert_true(fabs(r.ari - 14.0 / 44.0) < 1e-12);
    /* removed: b (gold 1, a kept: right), c (gold 1: right), e (gold 2, d kept: right) */
    assert_int_equal(r.removed, 3);
    assert_int_equal(r.removed_correct, 3);
    assert_int_equal(r.gold_removable, 3);
}

static void test_wrong_removal(void **state)
{
    (void)state;
    /* a singleton in gold merged into a cluster and removed: not correct */
    ndd_eval_doc_t d[3] = {{1, 5, 0}, {1, 5, 1}, {9, 5, 1}};
    ndd_eval_result_t r;
    assert_int_equal(ndd_eval_clusters(d, 3, 100, &r), NDD_OK);
    assert_int_equal(r.removed, 2);
    assert_int_equal(r.removed_correct, 1);
    assert_true(fabs(r.precision - 1.0 / 3.0) < 1e-12);
    assert_true(r.recall == 1.0);
    assert_int_equal(ndd_eval_clusters(d, 3, 2, &r), NDD_ERR_INVAL);
}

static void test_auc(void **state)
{
    (void)state;
    size_t idx[6];
    double s1[4] = {0.9, 0.8, 0.2, 0.1};
    int l1[4] = {1, 1, 0, 0};
    assert_true(fabs(ndd_eval_auc(s1, l1, 4, idx) - 1.0) < 1e-12);
    int l2[4] = {0, 0, 1, 1};
    assert_true(fabs(ndd_eval_auc(s1, l2, 4, idx)) < 1e-12);
    /* ties: one positive and one negative with the same score -> 0.5 */
    double s3[2] = {0.5, 0.5};
    int l3[2] = {1, 0};
    assert_true(fabs(ndd_eval_auc(s3, l3, 2, idx) - 0.5) < 1e-12);
    /* hand case: pos {0.8, 0.4}, neg {0.6, 0.2}: pairs won 3 of 4 -> 0.75 */
    double s4[4] = {0.8, 0.4, 0.6, 0.2};
    int l4[4] = {1, 1, 0, 0};
    assert_true(fabs(ndd_eval_auc(s4, l4, 4, idx) - 0.75) < 1e-12);
    int l5[2] = {1, 1};
    assert_true(ndd_eval_auc(s3, l5, 2, idx) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_perfect_and_empty),
        cmocka_unit_test(test_hand_case),
        cmocka_unit_test(test_wrong_removal),
        cmocka_unit_test(test_auc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

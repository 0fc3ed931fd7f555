/* compare_signcd.c - 'ndd compare --verifier signcd': SigNCD (paper 000) of
 * two already-prepared texts, as a human report or one JSON object. Local. */
#include "ndd_cli.h"
#include "ndd_ncd.h"
#include "ndd_util.h"

#include <math.h>

/* Shows at most this many bytes of each signature in the human report. */
#define NDD_COMPARE_SIG_SHOW 160

static void compare_signcd_show(FILE *out, const char *label, const ndd_buf_t *s, size_t spots, int no_sig)
{
    size_t cut = ndd_utf8_cut(s->data, s->len, NDD_COMPARE_SIG_SHOW);
    if (no_sig)
        fprintf(out, "  %s: whole text, %zu bytes\n", label, s->len);
    else if (spots < NDD_NCD_DEFAULT_MIN_SPOTS)
        fprintf(out, "  %s: %zu comma spots (< %d): whole text, %zu bytes\n", label, spots,
                NDD_NCD_DEFAULT_MIN_SPOTS, s->len);
    else
        fprintf(out, "  %s: %zu comma spots, signature %zu bytes: %.*s%s\n", label, spots, s->len,
                (int)cut, s->data, cut < s->len ? " ..." : "");
}

int ndd_compare_signcd(const char *a, size_t na, const char *b, size_t nb, int json,
                       double tau, int no_signature, FILE *out, int *duplicate)
{
    ndd_ncd_ctx_t *ctx = NULL;
    ndd_buf_t sa = NDD_BUF_INIT, sb = NDD_BUF_INIT, js = NDD_BUF_INIT;
    size_t spots_a = 0, spots_b = 0, ca = 0, cb = 0, cab = 0;
    double ncd = 1.0;
    int rc;

    if (duplicate)
        *duplicate = 0;
    if ((!a && na) || (!b && nb) || !out || !duplicate)
        return NDD_ERR_INVAL;
    if (!(tau >= 0.0) || isinf(tau))
        tau = NDD_NCD_DEFAULT_TAU;
    if ((rc = ndd_ncd_ctx_create(&ctx, 0)))
        goto out;
    if (no_signature) {
        if ((rc = ndd_buf_append(&sa, a, na)) || (rc = ndd_buf_append(&sb, b, nb)))
            goto out;
    } else {
        if ((rc = ndd_ncd_signature_ex(a, na, NULL, &sa, &spots_a)) ||
            (rc = ndd_ncd_signature_ex(b, nb, NULL, &sb, &spots_b)))
            goto out;
    }
    if ((rc = ndd_ncd_csize(ctx, sa.data, sa.len, &ca)) || (rc = ndd_ncd_csize(ctx, sb.data, sb.len, &cb)) ||
        (rc = ndd_ncd_pair(ctx, sa.data, sa.len, ca, sb.data, sb.len, cb, &ncd, &cab)))
        goto out;
    *duplicate = ncd <= tau;

    if (json) {
        /* c_ab is the raw C(x.y) before the clamp (see ndd_ncd.h); ncd is clamped */
        if ((rc = ndd_buf_puts(&js, "{\"verifier\":\"signcd\",\"duplicate\":")) ||
            (rc = ndd_buf_puts(&js, *duplicate ? "true" : "false")))
            goto out;
        char num[512];
        snprintf(num, sizeof num,
                 ",\"ncd\":%.6f,\"tau\":%.6f,\"signature\":%s,\"c_a\":%zu,\"c_b\":%zu,\"c_ab\":%zu,"
                 "\"spots_a\":%zu,\"spots_b\":%zu,\"sig_a_bytes\":%zu,\"sig_b_bytes\":%zu,"
                 "\"zstd_level\":%d,\"sig_a\":",
                 ncd, tau, no_signature ? "false" : "true", ca, cb, cab, spots_a, spots_b, sa.len, sb.len,
                 NDD_NCD_DEFAULT_LEVEL);
        if ((rc = ndd_buf_puts(&js, num)) || (rc = ndd_json_append_string(&js, sa.data, sa.len)) ||
            (rc = ndd_buf_puts(&js, ",\"sig_b\":")) || (rc = ndd_json_append_string(&js, sb.data, sb.len)) ||
            (rc = ndd_buf_puts(&js, "}\n")))
            goto out;
        fputs(js.data, out);
    } else {
        fprintf(out, "verifier: signcd (%s, zstd level %d, C = compressed bytes net of the empty frame)\n",
                no_signature ? "whole-text NCD" : "Sig-1L punctuation-spot signatures", NDD_NCD_DEFAULT_LEVEL);
        compare_signcd_show(out, "A", &sa, spots_a, no_signature);
        compare_signcd_show(out, "B", &sb, spots_b, no_signature);
        fprintf(out, "  C(A) = %zu, C(B) = %zu, C(A.B) = %zu\n", ca, cb, cab);
        fprintf(out, "  NCD = (max(C(A.B), C(A), C(B)) - min(C(A), C(B))) / max(C(A), C(B)), clamped to [0, 1] = %.6f\n",
                ncd);
        fprintf(out, "verdict: %s (NCD %.6f %s tau %.2f)\n", *duplicate ? "duplicate" : "not duplicate", ncd,
                *duplicate ? "<=" : ">", tau);
    }
out:
    ndd_buf_free(&sa);
    ndd_buf_free(&sb);
    ndd_buf_free(&js);
    ndd_ncd_ctx_free(ctx);
    return rc;
}

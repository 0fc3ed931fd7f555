/* fuzz_signcd.c - SigNCD (src/ncd): punctuation-spot signatures of two
 * documents (split as in fuzz_verify.c), their compressed sizes and the NCD:
 * the signature is never longer than its text plus separators, the NCD is
 * finite, in [0, 1.5] and symmetric. */
#include "fuzz_common.h"
#include "ndd_ncd.h"

#include <math.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ndd_ncd_ctx_t *c;
    if (!c && ndd_ncd_ctx_create(&c, 0))
        abort();
    const uint8_t *cut = memchr(data, 0xFF, size);
    size_t na = cut ? (size_t)(cut - data) : size / 2;
    const char *a = (const char *)data, *b = (const char *)data + na + (cut ? 1 : 0);
    size_t nb = size - na - (cut ? 1 : 0);
    ndd_buf_t sa = NDD_BUF_INIT, sb = NDD_BUF_INIT;
    size_t ca, cb, cxy;
    double v1, v2;
    FUZZ_CHECK(ndd_ncd_signature(a, na, &sa) == NDD_OK && ndd_ncd_signature(b, nb, &sb) == NDD_OK);
    FUZZ_CHECK(sa.len <= 2 * na + 1 && sb.len <= 2 * nb + 1);
    const char *xa = sa.data ? sa.data : "", *xb = sb.data ? sb.data : "";
    FUZZ_CHECK(ndd_ncd_csize(c, xa, sa.len, &ca) == NDD_OK && ndd_ncd_csize(c, xb, sb.len, &cb) == NDD_OK);
    FUZZ_CHECK(ndd_ncd_pair(c, xa, sa.len, ca, xb, sb.len, cb, &v1, &cxy) == NDD_OK);
    FUZZ_CHECK(ndd_ncd_pair(c, xb, sb.len, cb, xa, sa.len, ca, &v2, NULL) == NDD_OK);
    FUZZ_CHECK(isfinite(v1) && v1 >= 0 && v1 <= 1.5 && v1 == v2);
    ndd_buf_free(&sa);
    ndd_buf_free(&sb);
    return 0;
}

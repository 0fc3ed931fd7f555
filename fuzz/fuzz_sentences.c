/* fuzz_sentences.c - sentence splitting (ndd_text_sentences) on raw bytes
 * and on normalised text: spans lie inside the text, in increasing order,
 * without overlap, each at least min_len bytes. */
#include "fuzz_common.h"
#include "ndd_text.h"

static void check(const char *t, size_t n, size_t min_len)
{
    ndd_span_t *sp = NULL;
    size_t ns = 0, cap = 0;
    FUZZ_CHECK(ndd_text_sentences(t, n, min_len, &sp, &ns, &cap) == NDD_OK);
    size_t end = 0;
    for (size_t k = 0; k < ns; k++) {
        FUZZ_CHECK((size_t)sp[k].off >= end);
        FUZZ_CHECK((size_t)sp[k].off + sp[k].len <= n);
        FUZZ_CHECK(sp[k].len >= min_len && sp[k].len > 0);
        end = (size_t)sp[k].off + sp[k].len;
    }
    free(sp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t min_len = data[0] % 32;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    check(s, n, min_len);
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.max_bytes = 0;
    ndd_buf_t t = NDD_BUF_INIT;
    FUZZ_CHECK(ndd_text_from_plain(s, n, &o, &t) == NDD_OK);
    check(t.data ? t.data : "", t.len, min_len);
    ndd_buf_free(&t);
    return 0;
}

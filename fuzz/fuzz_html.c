/* fuzz_html.c - HTML -> visible text and plain text normalisation
 * (src/text): the first byte picks the options (boilerplate mode, title,
 * soft wrap, the --max-doc-bytes cut, HTML or plain). The call succeeds,
 * the output respects the cut and holds no NUL byte. */
#include "fuzz_common.h"
#include "ndd_text.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    uint8_t f = data[0];
    o.boilerplate = f & 1;
    o.keep_title = (f >> 1) & 1;
    o.soft_wrap = (f >> 2) & 1;
    static const size_t cuts[4] = {10240, 0, 64, 1000};
    o.max_bytes = cuts[(f >> 3) & 3];
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    ndd_buf_t out = NDD_BUF_INIT;
    int rc = (f >> 5) & 1 ? ndd_text_from_plain(s, n, &o, &out) : ndd_text_from_html(s, n, &o, &out);
    FUZZ_CHECK(rc == NDD_OK);
    FUZZ_CHECK(!o.max_bytes || out.len <= o.max_bytes);
    FUZZ_CHECK(!out.data || memchr(out.data, 0, out.len) == NULL);
    ndd_buf_free(&out);
    return 0;
}

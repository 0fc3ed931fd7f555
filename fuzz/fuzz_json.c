/* fuzz_json.c - the JSONL record scanner and string decoder (src/reader/ndd_json.h). */
#include "fuzz_common.h"
#include "ndd_json.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    ndd_buf_t text = NDD_BUF_INIT, html = NDD_BUF_INIT, out = NDD_BUF_INIT;
    ndd_json_want_t want[4] = {{"id", 0, 0, 0, NULL, 0}, {"text", 0, 0, 0, &text, 0}, {"html", 0, 0, 0, &html, 0},
                               {"url", 0, 0, 0, NULL, 0}};
    ndd_json_want_t plain[4] = {{"id", 0, 0, 0, NULL, 0}, {"text", 0, 0, 0, NULL, 0}, {"html", 0, 0, 0, NULL, 0},
                                {"url", 0, 0, 0, NULL, 0}};
    const char *why = NULL, *why2 = NULL;
    int rc = ndd_json_object_scan(s, size, want, 4, &why);
    /* text and html decoded as they are scanned: the same verdict as a plain scan */
    FUZZ_CHECK(ndd_json_object_scan(s, size, plain, 4, &why2) == rc);
    if (rc) {
        FUZZ_CHECK(why != NULL && why2 != NULL && !strcmp(why, why2));
        goto out;
    }
    for (int k = 0; k < 4; k++) {
        FUZZ_CHECK(want[k].type == plain[k].type && want[k].p == plain[k].p && want[k].n == plain[k].n);
        if (want[k].type == NDD_JSON_ABSENT)
            continue;
        FUZZ_CHECK(want[k].p >= s && want[k].p + want[k].n <= s + size); /* spans inside the input */
        if (want[k].type != NDD_JSON_STRING) {
            FUZZ_CHECK(want[k].decoded == 0);
            continue;
        }
        if (ndd_json_string_decode(want[k].p, want[k].n, &out, &why) == NDD_OK) {
            FUZZ_CHECK(out.len <= want[k].n); /* an escape never decodes longer than it is written */
            if (want[k].decode) /* decoded as scanned: the same bytes */
                FUZZ_CHECK(want[k].decoded == 1 && want[k].decode->len == out.len &&
                           !memcmp(want[k].decode->data, out.data, out.len));
        } else {
            FUZZ_CHECK(why != NULL);
            FUZZ_CHECK(!want[k].decode || want[k].decoded == -1);
        }
    }
out:
    ndd_buf_free(&text);
    ndd_buf_free(&html);
    ndd_buf_free(&out);
    return 0;
}

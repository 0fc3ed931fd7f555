/* fuzz_json.c - the JSONL record scanner and string decoder (src/reader/ndd_json.h). */
#include "fuzz_common.h"
#include "ndd_json.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    ndd_json_want_t want[4] = {{"id", 0, 0, 0}, {"text", 0, 0, 0}, {"html", 0, 0, 0}, {"url", 0, 0, 0}};
    const char *why = NULL;
    int rc = ndd_json_object_scan(s, size, want, 4, &why);
    if (rc) {
        FUZZ_CHECK(why != NULL);
        return 0;
    }
    ndd_buf_t out = NDD_BUF_INIT;
    for (int k = 0; k < 4; k++) {
        if (want[k].type == NDD_JSON_ABSENT)
            continue;
        FUZZ_CHECK(want[k].p >= s && want[k].p + want[k].n <= s + size); /* spans inside the input */
        if (want[k].type != NDD_JSON_STRING)
            continue;
        if (ndd_json_string_decode(want[k].p, want[k].n, &out, &why) == NDD_OK)
            FUZZ_CHECK(out.len <= want[k].n); /* an escape never decodes longer than it is written */
        else
            FUZZ_CHECK(why != NULL);
    }
    ndd_buf_free(&out);
    return 0;
}

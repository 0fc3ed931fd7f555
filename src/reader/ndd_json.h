/* ndd_json.h - a small strict JSON scanner for JSONL records (internal to
 * src/reader, usable by tests).
 *
 * ndd_json_object_scan() validates one JSON object (RFC 8259 grammar:
 * strings with escapes, numbers, true/false/null, nested objects/arrays up
 * to NDD_JSON_MAX_DEPTH) and records, for a few wanted top-level keys, the
 * type and raw span of the LAST member with that key. Strings are decoded
 * afterwards, only when needed, with ndd_json_string_decode(), or during
 * the scan for a wanted member given a decode buffer (the only allocation). */
#ifndef NDD_JSON_H
#define NDD_JSON_H

#include <stddef.h>

#include "ndd_util.h"

#define NDD_JSON_MAX_DEPTH 256

typedef enum {
    NDD_JSON_ABSENT = 0,
    NDD_JSON_STRING, /* span: bytes between the quotes, escapes not decoded */
    NDD_JSON_NUMBER, /* span: the number as written */
    NDD_JSON_NULL,
    NDD_JSON_BOOL,
    NDD_JSON_OBJECT,
    NDD_JSON_ARRAY
} ndd_json_type_t;

typedef struct ndd_json_want {
    const char *key;      /* wanted key (decoded form), NUL-terminated */
    ndd_json_type_t type; /* out: NDD_JSON_ABSENT when the key is not a top-level member */
    const char *p;        /* out: raw span of the value */
    size_t n;
    /* in (may be NULL): a string value of this key is also decoded into it
     * while it is scanned, as ndd_json_string_decode(p, n) would decode it
     * (one pass over a long value instead of two); out: decoded = 1 when it
     * holds the value (the last one's), -1 when the value's decoding fails
     * (a lone or mismatched surrogate: the scan itself goes on, then
     * ndd_json_string_decode would fail with "invalid JSON escape"), 0 when
     * the value is not a string or absent */
    ndd_buf_t *decode;
    int decoded;
} ndd_json_want_t;

/* Scans s[0..n) as exactly one JSON object with optional surrounding
 * whitespace. Returns NDD_OK, or NDD_ERR_FORMAT with *why set to
 * "malformed JSON" or "invalid JSON escape" (an escape other than
 * \" \\ \/ \b \f \n \r \t \uXXXX). */
int ndd_json_object_scan(const char *s, size_t n, ndd_json_want_t *want, size_t nwant, const char **why);

/* Decodes the raw string span p[0..n) (as recorded by the scan) into out
 * (replacing its contents). \uXXXX escapes become UTF-8; a surrogate pair
 * becomes one code point; a lone or mismatched surrogate gives
 * NDD_ERR_FORMAT with *why = "invalid JSON escape". Raw bytes are copied as
 * they are (UTF-8 validity is the caller's check). \u0000 gives a NUL byte. */
int ndd_json_string_decode(const char *p, size_t n, ndd_buf_t *out, const char **why);

#endif

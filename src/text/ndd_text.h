/* ndd_text.h - HTML -> visible text, whitespace normalisation, truncation to
 * --max-doc-bytes, and sentence splitting (paper 002). Plain C, no MPI.
 *
 * Text format produced by the extractors: valid UTF-8; blocks (paragraphs,
 * block-level elements, <br>) separated by a single '\n'; inside a block, runs
 * of whitespace collapsed to one ' '; no leading/trailing whitespace. */
#ifndef NDD_TEXT_H
#define NDD_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

#define NDD_TEXT_DEFAULT_MAX_BYTES 10240  /* paper 002 keeps the first 10 KB */
#define NDD_TEXT_DEFAULT_MIN_SENTENCE 17  /* paper 002: sentences longer than 16 bytes */

typedef struct ndd_text_opts {
    size_t max_bytes;   /* keep at most this many bytes, never cutting a UTF-8 character; 0 = no limit */
    int boilerplate;    /* 1: also drop nav/header/footer/aside/form/select/button-like markup and link-dense blocks (see docs/text.md) */
    /* Added fields: 0 (what a zero-initialised struct gives) is the default. */
    int keep_title;     /* HTML: 1 = emit the <title> text as a block where it occurs; 0 = drop it (not body text) */
    int soft_wrap;      /* plain text: 0 = every '\n' is a block break (WET / JSONL: one line per block);
                         * 1 = a single '\n' is a soft line wrap (a space, or nothing between two CJK
                         *     characters) and only a blank line or an indented line (two spaces or a
                         *     tab first: the paragraph mark of wire text) breaks a block (hard-wrapped prose) */
} ndd_text_opts_t;

void ndd_text_opts_default(ndd_text_opts_t *o); /* max_bytes 10240, everything else 0 */

/* HTML -> visible text (drops script, style, noscript, template, svg,
 * comments, tags; decodes the HTML5 named and numeric references; with
 * o->boilerplate also site templates). out is cleared first. Never fails on
 * malformed HTML; errors: NDD_ERR_NOMEM, NDD_ERR_INVAL (out NULL, or html
 * NULL with n > 0). o NULL = defaults. Rules: docs/text.md. */
int ndd_text_from_html(const char *html, size_t n, const ndd_text_opts_t *o, ndd_buf_t *out);
/* Plain text -> the same normalised form: whitespace collapsed, control
 * characters and ANSI escape sequences dropped, line breaks handled per
 * o->soft_wrap, truncated to o->max_bytes. out is cleared first. */
int ndd_text_from_plain(const char *txt, size_t n, const ndd_text_opts_t *o, ndd_buf_t *out);

typedef struct ndd_span {
    uint32_t off;
    uint32_t len;
} ndd_span_t;

/* Splits normalised text into sentences at . ! ? ; and 。！？；(and at block
 * breaks '\n'); keeps sentences of at least min_len bytes (after trimming
 * spaces). *spans is a reusable array of capacity *cap (grown with realloc).
 * Rules (docs/text.md): the terminator (and closing quotes/brackets right after
 * it) belongs to the sentence; an ASCII terminator only ends a sentence when
 * followed by a space, '\n' or the end (so 3.5, U.S.A, example.com stay whole),
 * and '.' after Mr Mrs Ms Dr Prof St Jr Sr vs cf e.g i.e does not end one; the
 * CJK terminators always end one. n must be < 4 GiB (NDD_ERR_LIMIT). */
int ndd_text_sentences(const char *text, size_t n, size_t min_len,
                       ndd_span_t **spans, size_t *nspans, size_t *cap);

#endif

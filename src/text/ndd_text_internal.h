/* ndd_text_internal.h - shared pieces of the text module: the HTML5 entity
 * table, the HTML tag classes (also used by tests/tools/ndd_gumbo_text.c so
 * that the gumbo reference applies exactly the same block/drop rules), and the
 * normalising text emitter used by both the HTML and the plain-text paths.
 * Not part of the public API. */
#ifndef NDD_TEXT_INTERNAL_H
#define NDD_TEXT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "ndd_util.h"
#include "ndd_text.h"

/* ---- named character references (ndd_text_entities.c, generated) ---- */
typedef struct ndd_text_entity {
    const char *name;  /* without the ';' */
    const char *val;   /* UTF-8, 1 or 2 code points */
    uint8_t len;       /* strlen(name) */
    uint8_t vlen;      /* strlen(val) */
    uint8_t legacy;    /* 1: HTML5 also accepts it without ';' (amp, lt, nbsp, copy, ...) */
} ndd_text_entity_t;

extern const ndd_text_entity_t ndd_text_entities[];
extern const size_t ndd_text_nentities;

/* Exact lookup of an entity name (without '&' and ';'); NULL when unknown. */
const ndd_text_entity_t *ndd_text_entity_find(const char *name, size_t len);

/* Decodes the character reference starting at s[i] == '&' (s[i..end)).
 * Returns the number of input bytes it spans (0: not a reference, the '&' is
 * literal text) and writes the decoded UTF-8 to out (at most 8 bytes) with its
 * length in *olen. Rules in docs/text.md. */
size_t ndd_text_decode_ref(const char *s, size_t i, size_t end, char out[8], size_t *olen);

/* ---- HTML tag classes ---- */
enum {
    NDD_TAG_BLOCK = 0x0001,   /* block-level: a block break at its start and end tags */
    NDD_TAG_SPACE = 0x0002,   /* replaced element (img, input, iframe, video...): separates words */
    NDD_TAG_VOID = 0x0004,    /* void element: never has content or an end tag */
    NDD_TAG_RAW = 0x0008,     /* raw text content up to </name: no tags, no entities */
    NDD_TAG_RCDATA = 0x0010,  /* raw text content up to </name, entities decoded (title, textarea) */
    NDD_TAG_DROP = 0x0020,    /* content is not visible text (script, style, noscript, template, svg, iframe, ...) */
    NDD_TAG_BP = 0x0040,      /* boilerplate mode drops the element with its content (nav, footer, aside, form, ...) */
    NDD_TAG_CLOSE_P = 0x0080, /* its start tag closes an open <p> */
    NDD_TAG_SCOPE = 0x0100,   /* HTML5 scope boundary: end tags do not close elements beyond it (table, td, th, template, ...) */
    NDD_TAG_ARTICLE = 0x0200, /* article / main: header/masthead inside them is content */
    NDD_TAG_LIST = 0x0400     /* ul, ol, menu, dl: boundary for the implied end of li / dd / dt */
};

/* Boilerplate mode's words in class, id and role values (ndd_text_html.c;
 * classes ORed: a word may be a token and a role). */
enum {
    NDD_BP_TOKEN = 1, /* names boilerplate (nav, footer, sidebar, cookie, ...) */
    NDD_BP_GUARD = 2, /* keeps the element: content or a page state (entry, main, has, open, ...) */
    NDD_BP_WEAK = 4,  /* header / masthead: a site header outside article / main */
    NDD_BP_ROLE = 8   /* a role value that names boilerplate (banner, navigation, dialog, ...) */
};
#define NDD_BP_WORD_MAX 16 /* longer words are no words of the table */
typedef struct ndd_text_bp_word {
    const char *s; /* lower case */
    uint8_t n;     /* strlen(s) */
    uint8_t cls;   /* NDD_BP_* */
} ndd_text_bp_word_t;
extern const ndd_text_bp_word_t ndd_text_bp_words[];
extern const size_t ndd_text_nbp_words;
/* The classes of the word t[0..n) (ASCII case ignored); 0 when it is none. */
unsigned ndd_text_bp_class(const char *t, size_t n);

/* Tag ids the HTML extractor handles specially (0 = unknown tag). */
enum {
    NDD_TAG_ID_UNKNOWN = 0,
    NDD_TAG_ID_A = 1, NDD_TAG_ID_BODY, NDD_TAG_ID_BR, NDD_TAG_ID_DD, NDD_TAG_ID_DT,
    NDD_TAG_ID_H, NDD_TAG_ID_HEADER, NDD_TAG_ID_HTML, NDD_TAG_ID_LI, NDD_TAG_ID_MATH,
    NDD_TAG_ID_OPTGROUP, NDD_TAG_ID_OPTION, NDD_TAG_ID_P, NDD_TAG_ID_PLAINTEXT,
    NDD_TAG_ID_SVG, NDD_TAG_ID_TABLE, NDD_TAG_ID_TBODY, NDD_TAG_ID_TD, NDD_TAG_ID_TEXTAREA,
    NDD_TAG_ID_TH, NDD_TAG_ID_TITLE, NDD_TAG_ID_TR, NDD_TAG_ID_XMP, NDD_TAG_ID_ARTICLE,
    NDD_TAG_ID_MAIN, NDD_TAG_ID_OTHER /* known tag without special handling */
};

/* Classes of a lower-case tag name: NDD_TAG_* flags, *id = NDD_TAG_ID_*. */
unsigned ndd_text_tag_class(const char *lname, size_t len, int *id);
/* The table behind it, for tests: its size and its i-th name, flags and id. */
size_t ndd_text_tag_count(void);
const char *ndd_text_tag_at(size_t i, unsigned *flags, int *id);

/* ---- the normalising emitter ---- */
enum { NDD_EM_SPACE = 1, NDD_EM_SOFT = 2, NDD_EM_BREAK = 4 };

typedef struct ndd_text_em {
    ndd_buf_t *out;
    int err;             /* first allocation failure; later emits are no-ops */
    unsigned pend;       /* NDD_EM_* separators seen since the last visible character */
    int track;           /* boilerplate mode: track blocks for link density */
    int block_open;      /* a block has visible text */
    size_t block_start;  /* out->len before the current block's separator */
    size_t block_chars;  /* visible bytes of the current block */
    size_t link_chars;   /* ... of which inside <a href> */
    int in_link;
} ndd_text_em_t;

void ndd_text_em_init(ndd_text_em_t *e, ndd_buf_t *out, int track);
/* Bytes of the output that can no longer change (for the early stop at max_bytes). */
static inline size_t ndd_text_em_committed(const ndd_text_em_t *e)
{
    return (e->track && e->block_open) ? e->block_start : e->out->len;
}
/* Ends the current block (boilerplate mode: drops it when its link density > 0.5). */
void ndd_text_em_close_block(ndd_text_em_t *e);
static inline void ndd_text_em_break(ndd_text_em_t *e)
{
    if (e->block_open)
        ndd_text_em_close_block(e);
    e->pend |= NDD_EM_BREAK;
}
static inline void ndd_text_em_space(ndd_text_em_t *e) { e->pend |= NDD_EM_SPACE; }
/* Slow path of ndd_text_em_text: writes the pending separator. */
void ndd_text_em_sep(ndd_text_em_t *e, const char *p, size_t k);
/* Emits k bytes of visible text (no whitespace, no control characters)
 * of which sp are single spaces between words (each what a separator
 * before the next word writes; no visible byte for boilerplate mode). */
static inline void ndd_text_em_words(ndd_text_em_t *e, const char *p, size_t k, size_t sp)
{
    ndd_buf_t *b = e->out;
    if (b->len + k + 2 > b->cap) { /* room for a separator, the text and the NUL */
        if (e->err)
            return;
        if (ndd_buf_reserve(b, k + 2) != NDD_OK) {
            e->err = NDD_ERR_NOMEM;
            return;
        }
    }
    if (e->pend == NDD_EM_SPACE && !e->track && b->len) { /* the common case, inline */
        b->data[b->len++] = ' ';
        e->pend = 0;
    } else if (e->pend || (e->track && !e->block_open)) {
        ndd_text_em_sep(e, p, k);
        if (e->err)
            return;
    }
    memcpy(b->data + b->len, p, k);
    b->len += k;
    if (e->track) {
        e->block_chars += k - sp;
        if (e->in_link)
            e->link_chars += k - sp;
    }
}
/* Emits k bytes of visible text (no whitespace, no control characters). */
static inline void ndd_text_em_text(ndd_text_em_t *e, const char *p, size_t k) { ndd_text_em_words(e, p, k, 0); }
/* Emits one decoded code point (whitespace -> separator, controls dropped). */
void ndd_text_em_cp(ndd_text_em_t *e, uint32_t cp);
/* Emits a decoded UTF-8 string code point by code point (entity values). */
void ndd_text_em_utf8(ndd_text_em_t *e, const char *p, size_t k);
/* Copies s[0..n) into dst (cleared first) replacing every byte that does not
 * start a valid UTF-8 sequence by U+FFFD. */
int ndd_text_utf8_repair(const char *s, size_t n, ndd_buf_t *dst);
/* Finishes: closes the block, repairs invalid UTF-8 (U+FFFD), keeps the first
 * max_bytes (0 = all) without cutting a character, trims trailing whitespace. */
int ndd_text_em_finish(ndd_text_em_t *e, size_t max_bytes);

/* ---- byte classes for the text scanners ---- */
enum {
    NDD_CC_ORD = 0,  /* ordinary byte: copied */
    NDD_CC_WS,       /* ASCII whitespace other than \n \r */
    NDD_CC_NL,       /* \n */
    NDD_CC_CR,       /* \r */
    NDD_CC_CTRL,     /* C0 control / DEL: dropped */
    NDD_CC_ESC,      /* ESC: dropped (plain text: the whole ANSI sequence) */
    NDD_CC_LT,       /* '<' */
    NDD_CC_AMP,      /* '&' */
    NDD_CC_UNI       /* lead byte of a possible Unicode space / C1 control / BOM */
};
extern const uint8_t ndd_text_cclass[256];
/* For tests: the widest instructions the HTML text scan and the sentence
 * split may use (0 plain C,
 * 1 SSE2 where built for it, 2 AVX2 where the CPU has it: the default);
 * returns the former setting. Not
 * thread-safe: set it before any extraction runs. */
unsigned ndd_text_isa(unsigned max);
extern unsigned ndd_text_isa_max; /* what ndd_text_isa set (the HTML scan and the sentence split read it) */

/* Classifies the non-ASCII character at s[i] (class NDD_CC_UNI): returns
 * NDD_CC_WS (a Unicode space), NDD_CC_CTRL (C1 control or BOM: drop) or
 * NDD_CC_ORD, with its byte length in *len. */
int ndd_text_uni_class(const unsigned char *s, size_t i, size_t n, size_t *len);

/* 1 if the code point is a CJK (wide, space-less script) character. */
int ndd_text_cjk(uint32_t cp);

#endif

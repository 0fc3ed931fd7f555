/* ndd_text_plain.c - plain text -> the normalised text form (docs/text.md):
 * whitespace collapsed, control characters and ANSI escape sequences dropped,
 * line breaks turned into block breaks ('\n') or, with opts->soft_wrap, soft
 * wraps (a blank line or an indented line still breaks), then truncated to
 * max_bytes. */
#include "ndd_text_internal.h"

/* Length of the ANSI escape sequence at s[i] == ESC. */
static size_t ndd_ansi_len(const unsigned char *s, size_t i, size_t n)
{
    size_t k = i + 1;
    if (k >= n)
        return 1;
    if (s[k] == '[') { /* CSI: parameters, intermediates, one final byte */
        k++;
        while (k < n && s[k] >= 0x30 && s[k] <= 0x3F)
            k++;
        while (k < n && s[k] >= 0x20 && s[k] <= 0x2F)
            k++;
        if (k < n && s[k] >= 0x40 && s[k] <= 0x7E)
            k++;
        return k - i;
    }
    if (s[k] == ']') { /* OSC: up to BEL or ESC '\' */
        k++;
        while (k < n && s[k] != 0x07 && !(s[k] == 0x1B && k + 1 < n && s[k + 1] == '\\'))
            k++;
        if (k < n)
            k += s[k] == 0x07 ? 1 : 2;
        return k - i;
    }
    /* other escapes: intermediates 0x20-0x2F then one final byte 0x30-0x7E */
    while (k < n && s[k] >= 0x20 && s[k] <= 0x2F)
        k++;
    if (k < n && s[k] >= 0x30 && s[k] <= 0x7E)
        k++;
    return k - i;
}

int ndd_text_from_plain(const char *txt, size_t n, const ndd_text_opts_t *o, ndd_buf_t *out)
{
    ndd_text_opts_t def;
    ndd_text_em_t e;
    const unsigned char *s = (const unsigned char *)txt;
    if (!out || (!txt && n))
        return NDD_ERR_INVAL;
    if (!o) {
        ndd_text_opts_default(&def);
        o = &def;
    }
    ndd_buf_t fixed = NDD_BUF_INIT;
    int rc;
    if (!ndd_utf8_valid(txt, n)) { /* rare: repair first (U+FFFD) */
        if ((rc = ndd_text_utf8_repair(txt, n, &fixed))) {
            ndd_buf_free(&fixed);
            return rc;
        }
        txt = fixed.data;
        n = fixed.len;
        s = (const unsigned char *)txt;
    }
    ndd_text_em_init(&e, out, 0);
    size_t stop = o->max_bytes ? o->max_bytes + 8 : (size_t)-1;
    unsigned nls = 0; /* newlines since the last visible character */
    size_t i = 0;
    while (i < n && !e.err) {
        size_t j = i, len;
        for (;;) { /* a run of ordinary bytes, across ordinary non-ASCII characters */
            while (j < n && (ndd_text_cclass[s[j]] == NDD_CC_ORD || ndd_text_cclass[s[j]] == NDD_CC_LT ||
                             ndd_text_cclass[s[j]] == NDD_CC_AMP))
                j++;
            if (j < n && ndd_text_cclass[s[j]] == NDD_CC_UNI && ndd_text_uni_class(s, j, n, &len) == NDD_CC_ORD) {
                j += len;
                continue;
            }
            break;
        }
        if (j > i) {
            ndd_text_em_text(&e, txt + i, j - i);
            nls = 0;
            i = j;
            if (out->len >= stop)
                break;
            if (i >= n)
                break;
        }
        int nl = 0;
        switch (ndd_text_cclass[s[i]]) {
        case NDD_CC_WS:
            ndd_text_em_space(&e);
            i++;
            break;
        case NDD_CC_CR:
            if (i + 1 < n && s[i + 1] == '\n')
                i++; /* CR LF is one line break */
            /* fall through */
        case NDD_CC_NL:
            nl = 1;
            i++;
            break;
        case NDD_CC_ESC:
            i += ndd_ansi_len(s, i, n);
            break;
        case NDD_CC_UNI:
            switch (ndd_text_uni_class(s, i, n, &len)) {
            case NDD_CC_WS:
                ndd_text_em_space(&e);
                break;
            case NDD_CC_CTRL:
                break;
            default:
                ndd_text_em_text(&e, txt + i, len);
                nls = 0;
                break;
            }
            i += len;
            break;
        default: /* NDD_CC_CTRL */
            i++;
            break;
        }
        if (nl) {
            /* soft wrap: a blank line, or an indented line (two spaces or a
             * tab: the paragraph mark of hard-wrapped wire text), starts a block */
            int indented = i < n && (s[i] == '\t' || (s[i] == ' ' && i + 1 < n && s[i + 1] == ' '));
            if (!o->soft_wrap || ++nls >= 2 || indented)
                ndd_text_em_break(&e);
            else
                e.pend |= NDD_EM_SOFT;
        }
    }
    rc = ndd_text_em_finish(&e, o->max_bytes);
    ndd_buf_free(&fixed);
    return rc;
}

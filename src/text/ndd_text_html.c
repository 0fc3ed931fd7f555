/* ndd_text_html.c - HTML -> visible text in one streaming pass (docs/text.md).
 *
 * A small HTML5-style tokenizer (data, tags with quoted attributes, comments,
 * bogus comments, raw text / RCDATA elements, character references) feeds the
 * normalising emitter of ndd_text_common.c. A bounded stack of open elements
 * with HTML5's common implied end tags tracks which content is suppressed
 * (template, svg; in boilerplate mode nav/footer/aside/form..., class/id/role
 * boilerplate tokens and hidden elements) and whether we are inside a link.
 * Hand-written: no kept library extracts text from HTML in one pass at this
 * speed (gumbo builds a whole DOM; it serves as the reference in the tests). */
#include "ndd_text_internal.h"

#include <pthread.h>
#include <string.h>

/* ---- tag table (sorted by name) ---- */
#define B NDD_TAG_BLOCK
#define SP NDD_TAG_SPACE
#define V NDD_TAG_VOID
#define RAW NDD_TAG_RAW
#define RC NDD_TAG_RCDATA
#define DR NDD_TAG_DROP
#define BP NDD_TAG_BP
#define CP NDD_TAG_CLOSE_P
#define SC NDD_TAG_SCOPE
#define AR NDD_TAG_ARTICLE
#define LI NDD_TAG_LIST
#define O NDD_TAG_ID_OTHER

typedef struct ndd_tag_info {
    const char *name;
    uint16_t flags;
    uint8_t id;
} ndd_tag_info_t;

static const ndd_tag_info_t ndd_tags[] = {
    {"a", 0, NDD_TAG_ID_A},
    {"abbr", 0, O},
    {"acronym", 0, O},
    {"address", B | CP, O},
    {"applet", SC | SP, O},
    {"area", V, O},
    {"article", B | CP | AR, NDD_TAG_ID_ARTICLE},
    {"aside", B | CP | BP, O},
    {"audio", SP, O},
    {"b", 0, O},
    {"base", V, O},
    {"basefont", V, O},
    {"bdi", 0, O},
    {"bdo", 0, O},
    {"bgsound", V, O},
    {"big", 0, O},
    {"blockquote", B | CP, O},
    {"body", B, NDD_TAG_ID_BODY},
    {"br", B | V, NDD_TAG_ID_BR},
    {"button", B | BP, O},
    {"canvas", SP, O},
    {"caption", B | SC, O},
    {"center", B | CP, O},
    {"cite", 0, O},
    {"code", 0, O},
    {"col", V, O},
    {"colgroup", 0, O},
    {"data", 0, O},
    {"datalist", DR, O},
    {"dd", B | CP, NDD_TAG_ID_DD},
    {"del", 0, O},
    {"details", B | CP, O},
    {"dfn", 0, O},
    {"dialog", B | CP | BP, O},
    {"dir", B | CP, O},
    {"div", B | CP, O},
    {"dl", B | CP | LI, O},
    {"dt", B | CP, NDD_TAG_ID_DT},
    {"em", 0, O},
    {"embed", V | SP, O},
    {"fieldset", B | CP, O},
    {"figcaption", B | CP, O},
    {"figure", B | CP, O},
    {"font", 0, O},
    {"footer", B | CP | BP, O},
    {"form", B | CP | BP, O},
    {"frame", V, O},
    {"frameset", B, O},
    {"h1", B | CP, NDD_TAG_ID_H},
    {"h2", B | CP, NDD_TAG_ID_H},
    {"h3", B | CP, NDD_TAG_ID_H},
    {"h4", B | CP, NDD_TAG_ID_H},
    {"h5", B | CP, NDD_TAG_ID_H},
    {"h6", B | CP, NDD_TAG_ID_H},
    {"head", 0, O},
    {"header", B | CP | BP, NDD_TAG_ID_HEADER},
    {"hgroup", B | CP, O},
    {"hr", B | V | CP, O},
    {"html", B | SC, NDD_TAG_ID_HTML},
    {"i", 0, O},
    {"iframe", RAW | DR | SP, O},
    {"image", V | SP, O},
    {"img", V | SP, O},
    {"input", V | SP, O},
    {"ins", 0, O},
    {"kbd", 0, O},
    {"keygen", V, O},
    {"label", 0, O},
    {"legend", B, O},
    {"li", B | CP, NDD_TAG_ID_LI},
    {"link", V, O},
    {"listing", B | CP, O},
    {"main", B | CP | AR, NDD_TAG_ID_MAIN},
    {"map", 0, O},
    {"mark", 0, O},
    {"marquee", SC, O},
    {"math", 0, NDD_TAG_ID_MATH},
    {"menu", B | CP | BP | LI, O},
    {"menuitem", BP, O},
    {"meta", V, O},
    {"meter", 0, O},
    {"nav", B | CP | BP, O},
    {"nobr", 0, O},
    {"noembed", RAW | DR, O},
    {"noframes", RAW | DR, O},
    {"noscript", RAW | DR, O},
    {"object", SC | SP, O},
    {"ol", B | CP | LI, O},
    {"optgroup", B, NDD_TAG_ID_OPTGROUP},
    {"option", B, NDD_TAG_ID_OPTION},
    {"output", 0, O},
    {"p", B | CP, NDD_TAG_ID_P},
    {"param", V, O},
    {"picture", 0, O},
    {"plaintext", B | CP, NDD_TAG_ID_PLAINTEXT},
    {"pre", B | CP, O},
    {"progress", 0, O},
    {"q", 0, O},
    {"rp", 0, O},
    {"rt", 0, O},
    {"ruby", 0, O},
    {"s", 0, O},
    {"samp", 0, O},
    {"script", RAW | DR, O},
    {"section", B | CP, O},
    {"select", B | BP, O},
    {"slot", 0, O},
    {"small", 0, O},
    {"source", V, O},
    {"span", 0, O},
    {"strike", 0, O},
    {"strong", 0, O},
    {"style", RAW | DR, O},
    {"sub", 0, O},
    {"summary", B | CP, O},
    {"sup", 0, O},
    {"svg", DR | SP, NDD_TAG_ID_SVG},
    {"table", B | CP | SC, NDD_TAG_ID_TABLE},
    {"tbody", B, NDD_TAG_ID_TBODY},
    {"td", B | SC, NDD_TAG_ID_TD},
    {"template", DR | SC, O},
    {"textarea", B | RC | BP, NDD_TAG_ID_TEXTAREA},
    {"tfoot", B, NDD_TAG_ID_TBODY},
    {"th", B | SC, NDD_TAG_ID_TH},
    {"thead", B, NDD_TAG_ID_TBODY},
    {"time", 0, O},
    {"title", B | RC | DR, NDD_TAG_ID_TITLE},
    {"tr", B, NDD_TAG_ID_TR},
    {"track", V, O},
    {"tt", 0, O},
    {"u", 0, O},
    {"ul", B | CP | LI, O},
    {"var", 0, O},
    {"video", SP, O},
    {"wbr", V, O},
    {"xmp", B | CP | RAW, NDD_TAG_ID_XMP},
};
#undef B
#undef SP
#undef V
#undef RAW
#undef RC
#undef DR
#undef BP
#undef CP
#undef SC
#undef AR
#undef LI
#undef O

size_t ndd_text_tag_count(void)
{
    return sizeof ndd_tags / sizeof ndd_tags[0];
}

const char *ndd_text_tag_at(size_t i, unsigned *flags, int *id)
{
    *flags = ndd_tags[i].flags;
    *id = ndd_tags[i].id;
    return ndd_tags[i].name;
}

/* The names by hash: open addressing with linear probing, 512 slots (over
 * 3x the names), each a name's index + 1 (0 empty), made once (pthread_once:
 * the local engine's ranks are threads). A binary search over the names
 * took 2.5 % of a run, most of it in mispredicted branches. */
#define NDD_TAG_SLOTS 512
static uint16_t ndd_tag_slot[NDD_TAG_SLOTS];
static uint8_t ndd_tag_nlen[sizeof ndd_tags / sizeof ndd_tags[0]];
/* each name as two words, byte k at bits 8 (k % 8) of word k / 8 (zero past
 * the name): a lookup compares words, not bytes (a memcmp a probe was a fifth
 * of the HTML pass's own time) */
static uint64_t ndd_tag_w[sizeof ndd_tags / sizeof ndd_tags[0]][2];

/* A name's words as ndd_tag_w holds them (len <= 16). */
static inline void ndd_tag_words(const char *name, size_t len, uint64_t w[2])
{
    w[0] = w[1] = 0;
    for (size_t k = 0; k < len && k < 16; k++)
        w[k / 8] |= (uint64_t)(unsigned char)name[k] << (8 * (k % 8));
}
static pthread_once_t ndd_tag_once = PTHREAD_ONCE_INIT;
_Static_assert(3 * (sizeof ndd_tags / sizeof ndd_tags[0]) < NDD_TAG_SLOTS, "the tag table is full");

/* FNV-1a of a lower-case name: the hash ndd_tag_name makes while it reads
 * the name, so that a tag's lookup does not hash it again. */
static inline uint32_t ndd_tag_fnv(const char *s, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static inline size_t ndd_tag_home(uint32_t fnv) { return (fnv ^ fnv >> 16) & (NDD_TAG_SLOTS - 1); }

static void ndd_tag_table_make(void)
{
    for (size_t i = 0; i < sizeof ndd_tags / sizeof ndd_tags[0]; i++) {
        size_t len = strlen(ndd_tags[i].name), k = ndd_tag_home(ndd_tag_fnv(ndd_tags[i].name, len));
        ndd_tag_words(ndd_tags[i].name, len, ndd_tag_w[i]); /* (names are at most 16 bytes, the lookup's
                                                             * bound: test_tag_lookup finds every one) */
        ndd_tag_nlen[i] = (uint8_t)len;
        while (ndd_tag_slot[k])
            k = (k + 1) & (NDD_TAG_SLOTS - 1);
        ndd_tag_slot[k] = (uint16_t)(i + 1);
    }
}

/* ndd_text_tag_class with the name's ndd_tag_fnv and words (ndd_tag_words,
 * len <= 16) already made, and the table made (ndd_tag_once). */
static unsigned ndd_tag_class_fnv(const uint64_t kw[2], size_t len, uint32_t fnv, int *id)
{
    for (size_t k = ndd_tag_home(fnv); ndd_tag_slot[k]; k = (k + 1) & (NDD_TAG_SLOTS - 1)) {
        size_t i = ndd_tag_slot[k] - 1u;
        if (ndd_tag_w[i][0] == kw[0] && ndd_tag_w[i][1] == kw[1] && ndd_tag_nlen[i] == len) {
            *id = ndd_tags[i].id;
            return ndd_tags[i].flags;
        }
    }
    *id = NDD_TAG_ID_UNKNOWN;
    return 0;
}

unsigned ndd_text_tag_class(const char *lname, size_t len, int *id)
{
    uint64_t w[2];
    pthread_once(&ndd_tag_once, ndd_tag_table_make);
    if (len > 16) { /* no name is that long */
        *id = NDD_TAG_ID_UNKNOWN;
        return 0;
    }
    ndd_tag_words(lname, len, w);
    return ndd_tag_class_fnv(w, len, ndd_tag_fnv(lname, len), id);
}

/* ---- the extractor state ---- */
#define NDD_HTML_STACK 512

enum { /* stack entry flags */
    NDD_SE_SUPP = 1,    /* this element suppresses its content */
    NDD_SE_LINK = 2,    /* <a href> */
    NDD_SE_ARTICLE = 4, /* article / main */
    NDD_SE_FOREIGN = 8, /* svg / math */
    NDD_SE_WEAK = 16,   /* boilerplate mode: dropped at its end if its text is short */
    NDD_SE_INFOREIGN = 32, /* svg / math or an element opened inside them */
    NDD_SE_TABLE = 64   /* table */
};

#define NDD_WEAK_MAX 16          /* nested weak elements tracked */
#define NDD_WEAK_MIN_TEXT 256    /* a weak element keeps its text from this many bytes on */

typedef struct ndd_stack_ent {
    uint32_t hash;  /* FNV-1a of the lower-case name */
    uint16_t tflags;
    uint8_t id;
    uint8_t flags;
} ndd_stack_ent_t;

typedef struct ndd_html {
    ndd_text_em_t em;
    const ndd_text_opts_t *o;
    unsigned supp, links, article, foreign, tables;
    size_t depth;
    size_t nweak;
    size_t weak_mark[NDD_WEAK_MAX]; /* out->len when the weak element opened */
    ndd_stack_ent_t stk[NDD_HTML_STACK];
} ndd_html_t;

/* Attributes the boilerplate rules look at (spans into the input). */
typedef struct ndd_attrs {
    const char *cls, *id, *role, *style;
    size_t cls_n, id_n, role_n, style_n;
    int href, hidden;
} ndd_attrs_t;

static inline int ndd_is_ws(unsigned c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
static inline unsigned ndd_lower(unsigned c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

static int ndd_ieq(const char *a, size_t an, const char *lit)
{
    size_t ln = strlen(lit);
    if (an != ln)
        return 0;
    for (size_t k = 0; k < an; k++)
        if (ndd_lower((unsigned char)a[k]) != (unsigned char)lit[k])
            return 0;
    return 1;
}

static void ndd_record_attr(ndd_attrs_t *a, const char *nm, size_t nn, const char *v, size_t vn)
{
    switch (nn) {
    case 2:
        if (ndd_ieq(nm, nn, "id")) {
            a->id = v;
            a->id_n = vn;
        }
        break;
    case 4:
        if (ndd_ieq(nm, nn, "href"))
            a->href = 1;
        else if (ndd_ieq(nm, nn, "role")) {
            a->role = v;
            a->role_n = vn;
        }
        break;
    case 5:
        if (ndd_ieq(nm, nn, "class")) {
            a->cls = v;
            a->cls_n = vn;
        } else if (ndd_ieq(nm, nn, "style")) {
            a->style = v;
            a->style_n = vn;
        }
        break;
    case 6:
        if (ndd_ieq(nm, nn, "hidden"))
            a->hidden = 1;
        break;
    case 11:
        if (ndd_ieq(nm, nn, "aria-hidden") && vn == 4 && ndd_ieq(v, vn, "true"))
            a->hidden = 1;
        break;
    default:
        break;
    }
}

/* Parses the attributes of a tag from s[i] (just after its name) to its '>'.
 * Returns the index after the '>', or NDD_INCOMPLETE when the input ends
 * inside the tag (HTML5 then drops the tag). a may be NULL. */
#define NDD_INCOMPLETE ((size_t)-1)
static size_t ndd_parse_attrs(const char *str, size_t i, size_t n, int *selfclose, ndd_attrs_t *a)
{
    const unsigned char *s = (const unsigned char *)str;
    *selfclose = 0;
    for (;;) {
        while (i < n && (ndd_is_ws(s[i]) || s[i] == '/')) {
            if (s[i] == '/' && i + 1 < n && s[i + 1] == '>') {
                *selfclose = 1;
                return i + 2;
            }
            i++;
        }
        if (i >= n)
            return NDD_INCOMPLETE;
        if (s[i] == '>')
            return i + 1;
        size_t ns = i++; /* an attribute name may start with '=' */
        while (i < n && !ndd_is_ws(s[i]) && s[i] != '/' && s[i] != '>' && s[i] != '=')
            i++;
        size_t ne = i;
        while (i < n && ndd_is_ws(s[i]))
            i++;
        size_t vs = i, ve = i;
        if (i < n && s[i] == '=') {
            i++;
            while (i < n && ndd_is_ws(s[i]))
                i++;
            if (i < n && (s[i] == '"' || s[i] == '\'')) {
                const unsigned char *q = memchr(s + i + 1, s[i], n - i - 1);
                if (!q)
                    return NDD_INCOMPLETE;
                vs = i + 1;
                ve = (size_t)(q - s);
                i = ve + 1;
            } else {
                vs = i;
                while (i < n && !ndd_is_ws(s[i]) && s[i] != '>')
                    i++;
                ve = i;
            }
        }
        if (a)
            ndd_record_attr(a, str + ns, ne - ns, str + vs, ve - vs);
    }
}

/* ---- boilerplate class/id/role tokens ---- */
/* Each word once with its classes (ndd_text_internal.h): NDD_BP_TOKEN
 * names boilerplate; NDD_BP_GUARD keeps the element: it names content
 * ("entry-header", "main-nav-content") or a state of the page ("has-sidebar",
 * "menu-open"); NDD_BP_WEAK, header / masthead, names a site header outside
 * article / main; NDD_BP_ROLE, a role attribute's value that names
 * boilerplate. */
#define NDD_BPW(w, c) {w, (uint8_t)(sizeof w - 1), (uint8_t)(c)}
const ndd_text_bp_word_t ndd_text_bp_words[] = {
    NDD_BPW("ad", NDD_BP_TOKEN), NDD_BPW("ads", NDD_BP_TOKEN), NDD_BPW("adsense", NDD_BP_TOKEN),
    NDD_BPW("advert", NDD_BP_TOKEN), NDD_BPW("advertisement", NDD_BP_TOKEN), NDD_BPW("advertising", NDD_BP_TOKEN),
    NDD_BPW("adverts", NDD_BP_TOKEN), NDD_BPW("banner", NDD_BP_TOKEN | NDD_BP_ROLE),
    NDD_BPW("breadcrumb", NDD_BP_TOKEN), NDD_BPW("breadcrumbs", NDD_BP_TOKEN), NDD_BPW("consent", NDD_BP_TOKEN),
    NDD_BPW("cookie", NDD_BP_TOKEN), NDD_BPW("cookies", NDD_BP_TOKEN), NDD_BPW("footer", NDD_BP_TOKEN),
    NDD_BPW("gdpr", NDD_BP_TOKEN), NDD_BPW("header", NDD_BP_TOKEN | NDD_BP_WEAK),
    NDD_BPW("masthead", NDD_BP_TOKEN | NDD_BP_WEAK), NDD_BPW("menu", NDD_BP_TOKEN | NDD_BP_ROLE),
    NDD_BPW("menubar", NDD_BP_TOKEN | NDD_BP_ROLE), NDD_BPW("nav", NDD_BP_TOKEN), NDD_BPW("navbar", NDD_BP_TOKEN),
    NDD_BPW("navigation", NDD_BP_TOKEN | NDD_BP_ROLE), NDD_BPW("newsletter", NDD_BP_TOKEN),
    NDD_BPW("pager", NDD_BP_TOKEN), NDD_BPW("pagination", NDD_BP_TOKEN), NDD_BPW("popup", NDD_BP_TOKEN),
    NDD_BPW("promo", NDD_BP_TOKEN), NDD_BPW("related", NDD_BP_TOKEN), NDD_BPW("share", NDD_BP_TOKEN),
    NDD_BPW("sharing", NDD_BP_TOKEN), NDD_BPW("sidebar", NDD_BP_TOKEN), NDD_BPW("skip", NDD_BP_TOKEN),
    NDD_BPW("social", NDD_BP_TOKEN), NDD_BPW("sponsor", NDD_BP_TOKEN), NDD_BPW("sponsored", NDD_BP_TOKEN),
    NDD_BPW("submenu", NDD_BP_TOKEN), NDD_BPW("subscribe", NDD_BP_TOKEN),
    NDD_BPW("toolbar", NDD_BP_TOKEN | NDD_BP_ROLE), NDD_BPW("widget", NDD_BP_TOKEN), NDD_BPW("widgets", NDD_BP_TOKEN),
    NDD_BPW("article", NDD_BP_GUARD), NDD_BPW("body", NDD_BP_GUARD), NDD_BPW("content", NDD_BP_GUARD),
    NDD_BPW("entry", NDD_BP_GUARD), NDD_BPW("has", NDD_BP_GUARD), NDD_BPW("is", NDD_BP_GUARD),
    NDD_BPW("main", NDD_BP_GUARD), NDD_BPW("no", NDD_BP_GUARD), NDD_BPW("open", NDD_BP_GUARD),
    NDD_BPW("post", NDD_BP_GUARD), NDD_BPW("story", NDD_BP_GUARD), NDD_BPW("text", NDD_BP_GUARD),
    NDD_BPW("with", NDD_BP_GUARD), NDD_BPW("without", NDD_BP_GUARD),
    NDD_BPW("alertdialog", NDD_BP_ROLE), NDD_BPW("complementary", NDD_BP_ROLE), NDD_BPW("contentinfo", NDD_BP_ROLE),
    NDD_BPW("dialog", NDD_BP_ROLE), NDD_BPW("search", NDD_BP_ROLE)};
#undef NDD_BPW
const size_t ndd_text_nbp_words = sizeof ndd_text_bp_words / sizeof ndd_text_bp_words[0];

/* The words by hash, as the tag names (ndd_tag_slot): a linear search of
 * the lists with strlen on each entry was about 6 % of HTML -> signatures
 * (bench_sig). */
#define NDD_BP_SLOTS 256
static uint8_t ndd_bp_slot[NDD_BP_SLOTS];
static pthread_once_t ndd_bp_once = PTHREAD_ONCE_INIT;
_Static_assert(3 * (sizeof ndd_text_bp_words / sizeof ndd_text_bp_words[0]) < NDD_BP_SLOTS, "the word table is full");

static void ndd_bp_table_make(void)
{
    for (size_t i = 0; i < ndd_text_nbp_words; i++) {
        const ndd_text_bp_word_t *w = &ndd_text_bp_words[i];
        size_t k = ndd_tag_fnv(w->s, w->n) & (NDD_BP_SLOTS - 1);
        while (ndd_bp_slot[k])
            k = (k + 1) & (NDD_BP_SLOTS - 1);
        ndd_bp_slot[k] = (uint8_t)(i + 1);
    }
}

unsigned ndd_text_bp_class(const char *t, size_t n)
{
    char low[NDD_BP_WORD_MAX];
    if (n == 0 || n > sizeof low)
        return 0;
    for (size_t k = 0; k < n; k++)
        low[k] = (char)ndd_lower((unsigned char)t[k]);
    pthread_once(&ndd_bp_once, ndd_bp_table_make);
    for (size_t k = ndd_tag_fnv(low, n) & (NDD_BP_SLOTS - 1); ndd_bp_slot[k]; k = (k + 1) & (NDD_BP_SLOTS - 1)) {
        const ndd_text_bp_word_t *w = &ndd_text_bp_words[ndd_bp_slot[k] - 1u];
        if (w->n == n && memcmp(w->s, low, n) == 0)
            return w->cls;
    }
    return 0;
}

/* Scans an attribute value split at space, '-', '_' and ':'; sets bit 1 when a
 * boilerplate token occurs, bit 2 when a guard token occurs, bit 4 for the
 * weak tokens header / masthead (outside article / main). */
static unsigned ndd_scan_tokens(const char *v, size_t vn, int in_article)
{
    unsigned r = 0;
    size_t i = 0;
    if (vn > 512)
        vn = 512;
    while (i < vn) {
        while (i < vn && (ndd_is_ws((unsigned char)v[i]) || v[i] == '-' || v[i] == '_' || v[i] == ':'))
            i++;
        size_t st = i;
        while (i < vn && !(ndd_is_ws((unsigned char)v[i]) || v[i] == '-' || v[i] == '_' || v[i] == ':'))
            i++;
        unsigned c = ndd_text_bp_class(v + st, i - st);
        if (c & NDD_BP_GUARD)
            r |= 2;
        else if (c & NDD_BP_WEAK)
            r |= in_article ? 0 : 4;
        else if (c & NDD_BP_TOKEN)
            r |= 1;
    }
    return r;
}

static int ndd_style_hidden(const char *v, size_t vn)
{
    /* display:none or visibility:hidden, ignoring case and whitespace */
    char t[256];
    size_t k = 0;
    for (size_t i = 0; i < vn && k < sizeof t - 1; i++)
        if (!ndd_is_ws((unsigned char)v[i]))
            t[k++] = (char)ndd_lower((unsigned char)v[i]);
    t[k] = '\0';
    return strstr(t, "display:none") != NULL || strstr(t, "visibility:hidden") != NULL;
}

/* Boilerplate mode: does this start tag open a suppressed element? Returns 0
 * (no), 1 (drop it with its content) or 2 (weak: a site header - keep its text
 * only when it is long, as some templates put the page content in <header>). */
static int ndd_bp_drop(const ndd_html_t *h, int id, unsigned tflags, const ndd_attrs_t *a)
{
    if (id == NDD_TAG_ID_HTML || id == NDD_TAG_ID_BODY)
        return 0;
    if (a->hidden || (a->style && ndd_style_hidden(a->style, a->style_n)))
        return 1;
    if (id == NDD_TAG_ID_MAIN || id == NDD_TAG_ID_ARTICLE)
        return 0;
    if (id == NDD_TAG_ID_HEADER)
        return h->article > 0 ? 0 : 2;
    if (tflags & NDD_TAG_BP)
        return 1;
    if (a->role && (ndd_text_bp_class(a->role, a->role_n) & NDD_BP_ROLE))
        return 1;
    unsigned r = 0;
    if (a->cls)
        r |= ndd_scan_tokens(a->cls, a->cls_n, h->article > 0);
    if (a->id)
        r |= ndd_scan_tokens(a->id, a->id_n, h->article > 0);
    if (r & 2)
        return 0;
    return (r & 1) ? 1 : (r & 4) ? 2 : 0;
}

/* ---- the stack of open elements ---- */
/* End of a weak element: drop its text when it is short. */
static void ndd_weak_end(ndd_html_t *h)
{
    ndd_text_em_t *e = &h->em;
    size_t mark = h->weak_mark[--h->nweak];
    if (e->err || e->out->len <= mark || e->out->len - mark >= NDD_WEAK_MIN_TEXT)
        return;
    size_t removed = e->out->len - mark;
    e->out->len = mark;
    e->out->data[mark] = '\0';
    if (e->block_open) {
        if (e->block_start >= mark) {
            e->block_open = 0;
        } else {
            e->block_chars -= removed < e->block_chars ? removed : e->block_chars;
            if (e->link_chars > e->block_chars)
                e->link_chars = e->block_chars;
        }
    }
}

static void ndd_pop_to(ndd_html_t *h, size_t k) /* pops entries k..depth-1 */
{
    while (h->depth > k) {
        const ndd_stack_ent_t *e = &h->stk[--h->depth];
        if (e->flags & NDD_SE_SUPP)
            h->supp--;
        if (e->flags & NDD_SE_LINK)
            h->links--;
        if (e->flags & NDD_SE_ARTICLE)
            h->article--;
        if (e->flags & NDD_SE_FOREIGN)
            h->foreign--;
        if (e->flags & NDD_SE_TABLE)
            h->tables--;
        if (e->flags & NDD_SE_WEAK)
            ndd_weak_end(h);
    }
    h->em.in_link = h->links > 0;
}

/* Index+1 of the nearest open element with id `id` (or id2), searching down
 * from the top and stopping at an element whose tag flags match `stop`; 0 if none. */
static size_t ndd_find(const ndd_html_t *h, int id, int id2, unsigned stop)
{
    for (size_t k = h->depth; k > 0; k--) {
        const ndd_stack_ent_t *e = &h->stk[k - 1];
        if (e->id == id || e->id == id2)
            return k;
        if (e->tflags & stop)
            return 0;
    }
    return 0;
}

static void ndd_implied_ends(ndd_html_t *h, int id, unsigned tflags)
{
    size_t k;
    if (tflags & NDD_TAG_CLOSE_P) { /* close a <p> that has only inline elements above it */
        for (k = h->depth; k > 0; k--) {
            const ndd_stack_ent_t *e = &h->stk[k - 1];
            if (e->id == NDD_TAG_ID_P) {
                ndd_pop_to(h, k - 1);
                break;
            }
            if (e->tflags & (NDD_TAG_BLOCK | NDD_TAG_SCOPE))
                break;
        }
    }
    switch (id) {
    case NDD_TAG_ID_LI:
        if ((k = ndd_find(h, NDD_TAG_ID_LI, -1, NDD_TAG_SCOPE | NDD_TAG_LIST)))
            ndd_pop_to(h, k - 1);
        break;
    case NDD_TAG_ID_DD:
    case NDD_TAG_ID_DT:
        if ((k = ndd_find(h, NDD_TAG_ID_DD, NDD_TAG_ID_DT, NDD_TAG_SCOPE | NDD_TAG_LIST)))
            ndd_pop_to(h, k - 1);
        break;
    case NDD_TAG_ID_TR:
    case NDD_TAG_ID_TBODY:
        /* clear back to the table body: pop an open tr (and for tbody/thead/tfoot
         * an open tbody) with the cells above it, not crossing the table */
        for (k = h->depth; k > 0; k--) {
            const ndd_stack_ent_t *e = &h->stk[k - 1];
            if (e->id == NDD_TAG_ID_TABLE || e->id == NDD_TAG_ID_HTML)
                break;
            if (e->id == NDD_TAG_ID_TR || (id == NDD_TAG_ID_TBODY && e->id == NDD_TAG_ID_TBODY)) {
                ndd_pop_to(h, k - 1);
                break;
            }
        }
        break;
    case NDD_TAG_ID_TD:
    case NDD_TAG_ID_TH:
        for (k = h->depth; k > 0; k--) {
            const ndd_stack_ent_t *e = &h->stk[k - 1];
            if (e->id == NDD_TAG_ID_TR || e->id == NDD_TAG_ID_TABLE || e->id == NDD_TAG_ID_HTML)
                break;
            if (e->id == NDD_TAG_ID_TD || e->id == NDD_TAG_ID_TH) {
                ndd_pop_to(h, k - 1);
                break;
            }
        }
        break;
    case NDD_TAG_ID_OPTION:
    case NDD_TAG_ID_OPTGROUP:
        if (h->depth && h->stk[h->depth - 1].id == NDD_TAG_ID_OPTION)
            ndd_pop_to(h, h->depth - 1);
        if (id == NDD_TAG_ID_OPTGROUP && h->depth && h->stk[h->depth - 1].id == NDD_TAG_ID_OPTGROUP)
            ndd_pop_to(h, h->depth - 1);
        break;
    case NDD_TAG_ID_H:
        if (h->depth && h->stk[h->depth - 1].id == NDD_TAG_ID_H)
            ndd_pop_to(h, h->depth - 1);
        break;
    case NDD_TAG_ID_A:
        if ((k = ndd_find(h, NDD_TAG_ID_A, -1, NDD_TAG_SCOPE)))
            ndd_pop_to(h, k - 1);
        break;
    default:
        break;
    }
}

static void ndd_push(ndd_html_t *h, uint32_t hash, int id, unsigned tflags, unsigned flags)
{
    if (h->depth >= NDD_HTML_STACK)
        return; /* pathological nesting: deeper elements are not tracked (docs/text.md) */
    if (flags & NDD_SE_WEAK) {
        if (h->nweak < NDD_WEAK_MAX)
            h->weak_mark[h->nweak++] = h->em.out->len;
        else
            flags &= ~(unsigned)NDD_SE_WEAK;
    }
    ndd_stack_ent_t *e = &h->stk[h->depth++];
    e->hash = hash;
    e->id = (uint8_t)id;
    e->tflags = (uint16_t)tflags;
    e->flags = (uint8_t)flags;
    if (flags & NDD_SE_SUPP)
        h->supp++;
    if (flags & NDD_SE_LINK)
        h->links++;
    if (flags & NDD_SE_ARTICLE)
        h->article++;
    if (flags & NDD_SE_FOREIGN)
        h->foreign++;
    if (flags & NDD_SE_TABLE)
        h->tables++;
    h->em.in_link = h->links > 0;
}

/* Separator of a start or end tag (none inside suppressed content). */
static void ndd_tag_sep(ndd_html_t *h, unsigned tflags)
{
    if (h->supp)
        return;
    if (tflags & NDD_TAG_BLOCK)
        ndd_text_em_break(&h->em);
    else if (tflags & NDD_TAG_SPACE)
        ndd_text_em_space(&h->em);
}

static void ndd_end_tag(ndd_html_t *h, uint32_t hash, int id, unsigned tflags)
{
    if (id == NDD_TAG_ID_BR || id == NDD_TAG_ID_P) {
        /* </br> is a <br>; a stray </p> makes an empty <p> (HTML5): both break */
        ndd_tag_sep(h, tflags);
    }
    if (id == NDD_TAG_ID_BR || id == NDD_TAG_ID_BODY || id == NDD_TAG_ID_HTML)
        return; /* </body> and </html> do not close anything (HTML5) */
    /* table structure end tags close cells; block end tags stop at scope
     * boundaries; inline end tags stop at any block (HTML5 "special")
     * element. An end tag that closes nothing is ignored, separator included. */
    int table = id == NDD_TAG_ID_TABLE || id == NDD_TAG_ID_TBODY || id == NDD_TAG_ID_TR;
    unsigned stop = table ? 0 : (tflags & (NDD_TAG_BLOCK | NDD_TAG_SCOPE)) ? NDD_TAG_SCOPE : (NDD_TAG_BLOCK | NDD_TAG_SCOPE);
    for (size_t k = h->depth; k > 0; k--) {
        const ndd_stack_ent_t *e = &h->stk[k - 1];
        if (e->hash == hash && (id == NDD_TAG_ID_UNKNOWN || e->id == id)) {
            if (id != NDD_TAG_ID_P)
                ndd_tag_sep(h, tflags);
            ndd_pop_to(h, k - 1);
            return;
        }
        if (table && (e->id == NDD_TAG_ID_TABLE || e->id == NDD_TAG_ID_HTML))
            return;
        if (e->tflags & stop)
            return;
    }
}

/* Index of the '<' of the end tag "</name" (case-insensitive, followed by
 * whitespace, '/', '>' or the end) at or after i; n when there is none. */
static size_t ndd_find_end_tag(const char *s, size_t i, size_t n, const char *lname, size_t len)
{
    while (i < n) {
        const char *p = memchr(s + i, '<', n - i);
        if (!p)
            return n;
        size_t k = (size_t)(p - s);
        if (k + 2 + len <= n && s[k + 1] == '/') {
            size_t t = 0;
            while (t < len && ndd_lower((unsigned char)s[k + 2 + t]) == (unsigned char)lname[t])
                t++;
            if (t == len && (k + 2 + len == n || ndd_is_ws((unsigned char)s[k + 2 + len]) ||
                             s[k + 2 + len] == '/' || s[k + 2 + len] == '>'))
                return k;
        }
        i = k + 1;
    }
    return n;
}

enum { NDD_SCAN_LT = 1, NDD_SCAN_ENT = 2 };

unsigned ndd_text_isa_max = 2; /* ndd_text_isa: 0 plain C, 1 SSE2, 2 AVX2 where the CPU has it */

unsigned ndd_text_isa(unsigned max)
{
    unsigned old = ndd_text_isa_max;
    ndd_text_isa_max = max;
    return old;
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* The bytes of v that are not NDD_CC_ORD, a space aside (as a 16-bit mask):
 * below 0x20, '&', '<', DEL and the lead bytes of class NDD_CC_UNI (C2,
 * E1, E2, E3, EF). */
static inline unsigned scan_not_ord(__m128i v)
{
    __m128i x = _mm_cmpeq_epi8(_mm_max_epu8(v, _mm_set1_epi8(0x1F)), _mm_set1_epi8(0x1F)); /* <= 0x1F */
    x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8('&')));
    x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8('<')));
    x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)));
    x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xC2)));
    x = _mm_or_si128(x, _mm_cmpeq_epi8(v, _mm_set1_epi8((char)0xEF)));
    __m128i e = _mm_sub_epi8(v, _mm_set1_epi8((char)0xE1)); /* E1..E3 -> 0..2 */
    x = _mm_or_si128(x, _mm_cmpeq_epi8(_mm_min_epu8(e, _mm_set1_epi8(2)), e));
    return (unsigned)_mm_movemask_epi8(x);
}

/* From j (< end - 16) on: how far the run of ordinary bytes that started
 * at i goes, a space followed by an ordinary byte included when the run
 * before it is not empty, 16 bytes at a time (the loop below byte by byte
 * does the same); *sp counts those spaces. Stops at the first block with
 * anything else, at its first such byte. */
static size_t scan_run_sse2(const unsigned char *s, size_t i, size_t j, size_t end, size_t *sp)
{
    while (j + 17 <= end) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + j));
        __m128i w = _mm_loadu_si128((const __m128i *)(const void *)(s + j + 1)); /* each byte's next one */
        unsigned sps = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
        unsigned next_bad = scan_not_ord(w) | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(w, _mm_set1_epi8(' ')));
        unsigned bad = scan_not_ord(v) | (sps & next_bad) | (j == i ? sps & 1u : 0u);
        if (!bad) {
            *sp += ndd_popcount64(sps);
            j += 16;
            continue;
        }
        unsigned r = (unsigned)__builtin_ctz(bad);
        *sp += ndd_popcount64(sps & ((1u << r) - 1u));
        return j + r;
    }
    return j;
}
#endif

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define SCAN_AVX2 1
/* scan_not_ord and scan_run_sse2 32 bytes at a time (AVX2; the same
 * stops and counts: test_scan_isa compares every path with plain C). */
__attribute__((target("avx2"))) static inline unsigned scan_not_ord_avx2(__m256i v)
{
    __m256i x = _mm256_cmpeq_epi8(_mm256_max_epu8(v, _mm256_set1_epi8(0x1F)), _mm256_set1_epi8(0x1F));
    x = _mm256_or_si256(x, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('&')));
    x = _mm256_or_si256(x, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('<')));
    x = _mm256_or_si256(x, _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7F)));
    x = _mm256_or_si256(x, _mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)0xC2)));
    x = _mm256_or_si256(x, _mm256_cmpeq_epi8(v, _mm256_set1_epi8((char)0xEF)));
    __m256i e = _mm256_sub_epi8(v, _mm256_set1_epi8((char)0xE1));
    x = _mm256_or_si256(x, _mm256_cmpeq_epi8(_mm256_min_epu8(e, _mm256_set1_epi8(2)), e));
    return (unsigned)_mm256_movemask_epi8(x);
}

__attribute__((target("avx2,popcnt"))) static size_t scan_run_avx2(const unsigned char *s, size_t i, size_t j,
                                                                   size_t end, size_t *sp)
{
    while (j + 33 <= end) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(s + j));
        __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)(s + j + 1));
        unsigned sps = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')));
        unsigned next_bad =
            scan_not_ord_avx2(w) | (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(w, _mm256_set1_epi8(' ')));
        unsigned bad = scan_not_ord_avx2(v) | (sps & next_bad) | (j == i ? sps & 1u : 0u);
        if (!bad) {
            *sp += (size_t)__builtin_popcount(sps);
            j += 32;
            continue;
        }
        unsigned r = (unsigned)__builtin_ctz(bad);
        *sp += (size_t)__builtin_popcount(sps & ((1u << r) - 1u));
        return j + r;
    }
    return j;
}

static int scan_avx2_cpu(void)
{
    static int cpu = -1;
    if (cpu < 0)
        cpu = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
    return cpu;
}
#endif

/* Emits the text s[i..end): stops at '<' when mode has NDD_SCAN_LT (returns
 * its index), decodes character references when it has NDD_SCAN_ENT. */
static size_t ndd_scan_text(ndd_html_t *h, const char *str, size_t i, size_t end, int mode)
{
    const unsigned char *s = (const unsigned char *)str;
    ndd_text_em_t *e = &h->em;
    while (i < end) {
        size_t j = i, len, sp = 0;
        for (;;) { /* a run of ordinary bytes, across ordinary non-ASCII characters */
            int wide_done = 0; /* the 32-byte loop stopped at a byte the loops below take */
#if defined(SCAN_AVX2)
            if (ndd_text_isa_max >= 2 && scan_avx2_cpu()) {
                j = scan_run_avx2(s, i, j, end, &sp);
                wide_done = j + 33 <= end;
            }
#endif
#if defined(__SSE2__)
            if (ndd_text_isa_max && !wide_done)
                j = scan_run_sse2(s, i, j, end, &sp);
#endif
            (void)wide_done;
            while (j < end && ndd_text_cclass[s[j]] == NDD_CC_ORD)
                j++;
            if (j > i && j + 1 < end && s[j] == ' ' && ndd_text_cclass[s[j + 1]] == NDD_CC_ORD) {
                j += 2; /* one space between words: what a separator would write */
                sp++;
                continue;
            }
            if (j < end && ndd_text_cclass[s[j]] == NDD_CC_UNI && ndd_text_uni_class(s, j, end, &len) == NDD_CC_ORD) {
                j += len;
                continue;
            }
            break;
        }
        if (j > i) {
            ndd_text_em_words(e, str + i, j - i, sp);
            i = j;
            if (i >= end)
                break;
        }
        switch (ndd_text_cclass[s[i]]) {
        case NDD_CC_WS:
        case NDD_CC_NL:
        case NDD_CC_CR:
            ndd_text_em_space(e);
            i++;
            break;
        case NDD_CC_CTRL:
        case NDD_CC_ESC:
            i++;
            break;
        case NDD_CC_LT:
            if (mode & NDD_SCAN_LT)
                return i;
            ndd_text_em_text(e, "<", 1);
            i++;
            break;
        case NDD_CC_AMP: {
            char u[8];
            size_t ul, used = (mode & NDD_SCAN_ENT) ? ndd_text_decode_ref(str, i, end, u, &ul) : 0;
            if (used) {
                ndd_text_em_utf8(e, u, ul);
                i += used;
            } else {
                ndd_text_em_text(e, "&", 1);
                i++;
            }
            break;
        }
        case NDD_CC_UNI:
            switch (ndd_text_uni_class(s, i, end, &len)) {
            case NDD_CC_WS:
                ndd_text_em_space(e);
                break;
            case NDD_CC_CTRL:
                break;
            default:
                ndd_text_em_text(e, str + i, len);
                break;
            }
            i += len;
            break;
        default: /* not reached: NDD_CC_ORD runs are handled above */
            ndd_text_em_text(e, str + i, 1);
            i++;
            break;
        }
    }
    return end;
}

/* Skips a bogus comment (<!x, <?x, </1): up to and including the next '>'. */
static size_t ndd_skip_to_gt(const char *s, size_t i, size_t n)
{
    const char *p = memchr(s + i, '>', n - i);
    return p ? (size_t)(p - s) + 1 : n;
}

static size_t ndd_skip_comment(const char *s, size_t i, size_t n) /* s[i..i+4) == "<!--" */
{
    size_t st = i + 4;
    if (st < n && s[st] == '>')
        return st + 1;
    if (st + 1 < n && s[st] == '-' && s[st + 1] == '>')
        return st + 2;
    size_t k = st;
    while (k < n) {
        const char *p = memchr(s + k, '>', n - k);
        if (!p)
            return n;
        size_t g = (size_t)(p - s);
        if (g >= st + 2 && s[g - 1] == '-' && s[g - 2] == '-')
            return g + 1;
        if (g >= st + 3 && s[g - 1] == '!' && s[g - 2] == '-' && s[g - 3] == '-')
            return g + 1;
        k = g + 1;
    }
    return n;
}

/* Reads a tag name at s[i..): lower-cases up to 16 bytes into lname and
 * into kw as ndd_tag_words lays them out (in registers: words read back from
 * lname stalled on its byte stores), hashes all of it; returns the index
 * after the name. */
static size_t ndd_tag_name(const char *str, size_t i, size_t n, char lname[16], uint64_t kw[2], size_t *lnlen,
                           uint32_t *hash)
{
    const unsigned char *s = (const unsigned char *)str;
    uint32_t hv = 2166136261u;
    uint64_t w0 = 0, w1 = 0;
    size_t k = 0;
    while (i < n && !ndd_is_ws(s[i]) && s[i] != '/' && s[i] != '>') {
        unsigned c = ndd_lower(s[i]);
        hv = (hv ^ c) * 16777619u;
        if (k < 8)
            w0 |= (uint64_t)c << (8 * k);
        else if (k < 16)
            w1 |= (uint64_t)c << (8 * (k - 8));
        if (k < 16)
            lname[k] = (char)c;
        k++;
        i++;
    }
    kw[0] = w0;
    kw[1] = w1;
    *lnlen = k;
    *hash = hv;
    return i;
}

/* HTML start tags that end svg / math content (HTML5 "in foreign content"). */
static int ndd_breaks_out(const char *lname, size_t len, int id)
{
    static const char *const names[] = {
        "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed",
        "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta",
        "nobr", "ol", "p", "pre", "ruby", "s", "small", "span", "strike", "strong", "sub", "sup", "table",
        "tt", "u", "ul", "var"};
    if (id == NDD_TAG_ID_UNKNOWN)
        return 0;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k]) == len && memcmp(names[k], lname, len) == 0)
            return 1;
    return 0;
}

/* MathML text / HTML integration points: HTML content is allowed inside.
 * FNV-1a hashes (as ndd_tag_name computes them) of mi mo mn ms mtext
 * foreignobject desc. */
static int ndd_integration_point(uint32_t hash)
{
    static const uint32_t h[7] = {0x5C2E17C3u, 0x622E2135u, 0x612E1FA2u, 0x562E0E51u, 0x901527DFu, 0xF791ADE8u, 0x83030020u};
    for (int k = 0; k < 7; k++)
        if (h[k] == hash)
            return 1;
    return 0;
}

/* Handles the markup at s[i] == '<'; returns the index after it. */
static size_t ndd_markup(ndd_html_t *h, const char *str, size_t i, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t k = i + 1;
    if (k >= n) {
        if (!h->supp)
            ndd_text_em_text(&h->em, "<", 1);
        return n;
    }
    unsigned c = s[k];
    if (c == '!') {
        if (k + 2 < n && s[k + 1] == '-' && s[k + 2] == '-')
            return ndd_skip_comment(str, i, n);
        if (h->foreign && n - k >= 8 && memcmp(str + k + 1, "[CDATA[", 7) == 0) {
            /* a CDATA section in svg / math is text up to "]]>" */
            size_t st = k + 8, e = st;
            while (e + 2 < n && !(s[e] == ']' && s[e + 1] == ']' && s[e + 2] == '>'))
                e++;
            if (e + 2 >= n)
                e = n;
            if (!h->supp)
                ndd_scan_text(h, str, st, e, 0);
            return e + 3 < n ? e + 3 : n;
        }
        return ndd_skip_to_gt(str, k, n); /* DOCTYPE, CDATA outside foreign content, bogus comment */
    }
    if (c == '?')
        return ndd_skip_to_gt(str, k, n);
    int end = 0;
    if (c == '/') {
        k++;
        if (k >= n) {
            if (!h->supp)
                ndd_text_em_text(&h->em, "</", 2);
            return n;
        }
        if (s[k] == '>')
            return k + 1; /* "</>" is ignored */
        if (!((s[k] | 0x20) >= 'a' && (s[k] | 0x20) <= 'z'))
            return ndd_skip_to_gt(str, k, n);
        end = 1;
    } else if (!((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) {
        if (!h->supp)
            ndd_text_em_text(&h->em, "<", 1); /* "a < b", "<3": literal text */
        return k;
    }

    char lname[16];
    size_t lnlen;
    uint32_t hash;
    uint64_t kw[2];
    k = ndd_tag_name(str, k, n, lname, kw, &lnlen, &hash);
    int id = NDD_TAG_ID_UNKNOWN;
    unsigned tflags = lnlen <= 16 ? ndd_tag_class_fnv(kw, lnlen, hash, &id) : 0; /* hash: ndd_tag_fnv */
    int selfclose;
    ndd_attrs_t a;
    memset(&a, 0, sizeof a);
    size_t after = ndd_parse_attrs(str, k, n, &selfclose, h->o->boilerplate && !end ? &a : NULL);
    if (after == NDD_INCOMPLETE)
        return n; /* the input ends inside the tag: HTML5 drops it */
    if (end) {
        ndd_end_tag(h, hash, id, tflags);
        return after;
    }

    /* start tag */
    if (h->foreign && ndd_breaks_out(lname, lnlen, id) && h->depth &&
        !ndd_integration_point(h->stk[h->depth - 1].hash)) {
        /* an HTML element in svg / math closes them (HTML5 foreign content) */
        size_t d = h->depth;
        while (d > 0 && (h->stk[d - 1].flags & NDD_SE_INFOREIGN) && !ndd_integration_point(h->stk[d - 1].hash))
            d--;
        ndd_pop_to(h, d);
    }
    if (!h->tables && (id == NDD_TAG_ID_TD || id == NDD_TAG_ID_TH || id == NDD_TAG_ID_TR || id == NDD_TAG_ID_TBODY))
        return after; /* table parts outside a table are ignored (HTML5 "in body") */
    int bp = (h->o->boilerplate && !h->supp) ? ndd_bp_drop(h, id, tflags, &a) : 0;
    ndd_tag_sep(h, tflags);

    if (tflags & (NDD_TAG_RAW | NDD_TAG_RCDATA)) {
        size_t ce = ndd_find_end_tag(str, after, n, lname, lnlen);
        int visible = !h->supp && bp != 1 && (!(tflags & NDD_TAG_DROP) || (id == NDD_TAG_ID_TITLE && h->o->keep_title));
        if (visible) {
            ndd_implied_ends(h, id, tflags);
            ndd_scan_text(h, str, after, ce, (tflags & NDD_TAG_RCDATA) ? NDD_SCAN_ENT : 0);
            if (tflags & NDD_TAG_BLOCK)
                ndd_text_em_break(&h->em);
        }
        if (ce >= n)
            return n;
        int sc2;
        size_t e2 = ndd_parse_attrs(str, ce + 2 + lnlen, n, &sc2, NULL);
        return e2 == NDD_INCOMPLETE ? n : e2;
    }
    if (id == NDD_TAG_ID_PLAINTEXT) {
        if (!h->supp && bp != 1)
            ndd_scan_text(h, str, after, n, 0);
        return n;
    }
    ndd_implied_ends(h, id, tflags);
    if (tflags & NDD_TAG_VOID)
        return after;
    if (selfclose && (id == NDD_TAG_ID_SVG || id == NDD_TAG_ID_MATH || h->foreign))
        return after; /* self-closing is honoured in foreign content only */
    unsigned flags = 0;
    if (bp == 1 || (tflags & NDD_TAG_DROP))
        flags |= NDD_SE_SUPP;
    else if (bp == 2)
        flags |= NDD_SE_WEAK;
    if (id == NDD_TAG_ID_A && a.href)
        flags |= NDD_SE_LINK;
    if (tflags & NDD_TAG_ARTICLE)
        flags |= NDD_SE_ARTICLE;
    if (id == NDD_TAG_ID_SVG || id == NDD_TAG_ID_MATH)
        flags |= NDD_SE_FOREIGN;
    if (h->foreign || (flags & NDD_SE_FOREIGN))
        flags |= NDD_SE_INFOREIGN;
    if (id == NDD_TAG_ID_TABLE && !h->foreign)
        flags |= NDD_SE_TABLE;
    ndd_push(h, hash, id, tflags, flags);
    return after;
}

int ndd_text_from_html(const char *html, size_t n, const ndd_text_opts_t *o, ndd_buf_t *out)
{
    ndd_text_opts_t def;
    if (!out || (!html && n))
        return NDD_ERR_INVAL;
    if (!o) {
        ndd_text_opts_default(&def);
        o = &def;
    }
    pthread_once(&ndd_tag_once, ndd_tag_table_make); /* the tags' table, once a document (ndd_markup reads it) */
    ndd_html_t hs; /* ~4 KB on the stack: no allocation per document */
    ndd_html_t *h = &hs;
    ndd_buf_t fixed = NDD_BUF_INIT;
    int rc;
    if (!ndd_utf8_valid(html, n)) { /* rare: repair first, so bytes split by tags cannot join */
        if ((rc = ndd_text_utf8_repair(html, n, &fixed))) {
            ndd_buf_free(&fixed);
            return rc;
        }
        html = fixed.data;
        n = fixed.len;
    }
    h->o = o;
    h->supp = h->links = h->article = h->foreign = h->tables = 0;
    h->depth = 0;
    h->nweak = 0;
    ndd_text_em_init(&h->em, out, o->boilerplate != 0);
    size_t stop = o->max_bytes ? o->max_bytes + 8 : (size_t)-1;
    size_t i = 0;
    while (i < n) {
        if (h->supp) {
            const char *p = memchr(html + i, '<', n - i);
            if (!p)
                break;
            i = (size_t)(p - html);
        } else {
            i = ndd_scan_text(h, html, i, n, NDD_SCAN_LT | NDD_SCAN_ENT);
            if (i >= n)
                break;
        }
        i = ndd_markup(h, html, i, n);
        size_t committed = ndd_text_em_committed(&h->em);
        if (h->nweak && h->weak_mark[0] < committed)
            committed = h->weak_mark[0];
        if (committed >= stop || h->em.err)
            break;
    }
    ndd_pop_to(h, 0); /* end of input closes every element (evaluates weak ones) */
    rc = ndd_text_em_finish(&h->em, o->max_bytes);
    ndd_buf_free(&fixed);
    return rc;
}

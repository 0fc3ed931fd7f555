/* cmd_compare.c - 'ndd compare': verify one pair of documents with the
 * trustable-LCS verifier of paper 002 (or SigNCD) and explain the verdict.
 * Local: no MPI. Documents are prepared as 'ndd run' prepares them (visible
 * text, boilerplate removal, first --max-doc-bytes), unless --raw. */
#include "ndd_cli.h"
#include "ndd_ncd.h"
#include "ndd_reader.h"
#include "ndd_cluster.h"
#include "ndd_tmpl.h"
#include "ndd_sig.h"
#include "ndd_text.h"
#include "ndd_util.h"
#include "ndd_verify.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CMP_DEFAULT_MAX_FILE ((size_t)1 << 30) /* files above 1 GiB are refused */

enum { CMP_FMT_AUTO, CMP_FMT_HTML, CMP_FMT_TEXT };

typedef struct cmp_cfg {
    int json, raw, signcd, format, no_signature, formula, show;
    const char *corpus;  /* ndd compare CORPUS ID_A ID_B: the documents are records of CORPUS */
    ndd_fields_t fields; /* its JSONL fields */
    int templates;       /* CORPUS: the template pass of ndd run over the corpus (default on) */
    ndd_tmpl_params_t tmpl;
    double tau;
    ndd_formula_params_t fp;
    size_t max_file;
    ndd_text_opts_t text;
    ndd_tlcs_params_t tp;
    const char *path[2];
} cmp_cfg_t;

typedef struct cmp_doc {
    char *data;    /* the file as read */
    size_t len;
    char *url;     /* CORPUS: the record's URL and id (for the template pass) */
    char *id;
    ndd_buf_t full; /* CORPUS with templates: the text before the template blocks are removed */
    uint64_t *tmpl; /* ... its template blocks (sorted) */
    size_t ntmpl;
    ndd_buf_t text; /* prepared text (unused with --raw) */
    const char *use; /* what is compared */
    size_t nuse;
    int html;
} cmp_doc_t;

static void cmp_help(void)
{
    ndd_tlcs_params_t p;
    ndd_text_opts_t t;
    ndd_tlcs_params_default(&p);
    ndd_text_opts_default(&t);
    printf("usage: ndd compare [options] A B\n"
           "       ndd compare [options] CORPUS ID_A ID_B\n"
           "\n"
           "Verifies whether the documents A and B (files; or the records ID_A and ID_B\n"
           "of CORPUS, any input of ndd run, e.g. to understand a pair of pairs.tsv) are\n"
           "near-duplicates and explains why. Default verifier: trustable LCS (paper 002): filtered sketches\n"
           "(common %zu-byte windows) -> Myers LCS of the sketches -> the trustable\n"
           "region of the edit curve (slope <= %.2f, central, longest; repeated on the\n"
           "rest up to --max-iter times) -> resemblance = TLCS / (|A| + |B| - TLCS) and\n"
           "containment = TLCS / min(|A|, |B|) -> duplicate when resemblance >= %.2f or\n"
           "containment >= %.2f. Lengths are bytes of the prepared texts.\n"
           "\n"
           "Documents are prepared as 'ndd run' does: HTML -> visible text, whitespace\n"
           "normalised, the first --max-doc-bytes kept. The format comes from the\n"
           "extension (.html .htm .xhtml .shtml .php .asp -> HTML; .txt .text .md -> text),\n"
           "else from the content (markup at the start -> HTML), or from --format.\n"
           "Files with NUL bytes or invalid UTF-8 are refused (as 'ndd run' rejects them)\n"
           "unless --raw.\n"
           "\n"
           "options:\n"
           "      --verifier tlcs|signcd  the verifier (default tlcs)\n"
           "      --json                one JSON object instead of the report\n"
           "      --raw                 compare the bytes as given: no HTML extraction, no\n"
           "                            normalisation, no truncation, no UTF-8 check\n"
           "      --exact               no sketch filtering: exact LCS of the two byte sequences\n"
           "      --format auto|html|text  how to read both files (default auto)\n"
           "      --max-doc-bytes B     keep the first B bytes of text, 0 = all (default %zu)\n"
           "      --boilerplate on|off  drop navigation/header/footer/link lists (default %s, as ndd run)\n"
           "      --soft-wrap on|off    plain text: a single newline is a line wrap (default off, as ndd run)\n"
           "      --max-file-bytes B    refuse larger files (default 1G)\n"
           "      --show                print both prepared texts with the trustable regions\n"
           "                            marked [[ ... ]] (TLCS)\n"
           "      --id-field, --text-field, --html-field, --url-field PATH\n"
           "                            the fields of a JSONL CORPUS, as in ndd run\n"
           "      --templates on|off    CORPUS: ndd run's template pass over the whole corpus (lines\n"
           "                            repeated on many pages of a site or many sites leave the\n"
           "                            texts compared, as in ndd run; --show lists them) (default on)\n"
           "  TLCS:\n"
           "      --window S            sketch window in bytes (default %zu)\n"
           "      --slope T             slope threshold of the trustable region (default %.2f)\n"
           "      --resemblance R       resemblance threshold (default %.2f)\n"
           "      --containment C       containment threshold (default %.2f)\n"
           "      --max-d D             Myers cost limit, 0 = auto: min(n, max(64, 2^28 / n)) for\n"
           "                            n = the two sketch lengths (default 0)\n"
           "      --max-iter N          iterative TLCS depth, 1 = the basic TLCS (default %u, max %d)\n"
           "      --min-iter-tlcs B     later iterations need a TLCS of B bytes (default %zu)\n"
           "      --blocks K            blocks of the base regions, 0 = auto (default 0)\n"
           "      --reserve             also run the exact TLCS and report the reserve rate\n"
           "      --substitutions on|off  small gaps strained away by both sketches at one place do not\n"
           "                            break the trustable region (default on; off = paper 002)\n"
           "      --formulaic on|off    reject a duplicate whose regions hold other names and numbers\n"
           "                            (the same formula about another company or day) (default on)\n"
           "  SigNCD:\n"
           "      --threshold T, --tau T  duplicate when NCD <= T (default %.2f)\n"
           "      --no-signature        plain NCD of the whole texts\n"
           "  -h, --help                this text\n"
           "\n"
           "JSON fields (tlcs): verifier, duplicate, resemblance, containment, lcs, tlcs, d,\n"
           "len_a, len_b, sketch_a, sketch_b, lcs_upper, max_d, hit_cost_limit,\n"
           "pruned_by_bound, iterations, strain_away, reserve, regions [{a:[s,e], b:[s,e],\n"
           "tlcs}], formulaic {aligned, words, replaced, keys, keys_changed, numbers,\n"
           "numbers_changed, one_line, different} (null when not checked), mode, exact,\n"
           "format_a, format_b, bytes_a, bytes_b. d is null when the\n"
           "cost limit was hit (lcs is then a lower bound).\n"
           "Exit codes: 0 compared (either verdict), 1 runtime error, 2 bad usage.\n",
           p.window, p.slope, p.min_resemblance, p.min_containment, t.max_bytes,
           NDD_SIG_DEFAULT_BOILERPLATE ? "on" : "off", p.window, p.slope, p.min_resemblance,
           p.min_containment, p.max_iter, NDD_TLCS_MAX_REGIONS, p.min_iter_tlcs, NDD_NCD_DEFAULT_TAU);
}

enum {
    O_VERIFIER = 1000, O_JSON, O_RAW, O_EXACT, O_FORMAT, O_MAXDOC, O_BOILER, O_MAXFILE, O_WINDOW,
    O_SLOPE, O_RES, O_CONT, O_MAXD, O_MAXITER, O_MINIT, O_BLOCKS, O_RESERVE, O_TAU, O_NOSIG, O_SOFTWRAP,
    O_SUBST, O_FORMULA, O_SHOW, O_FID, O_FTEXT, O_FHTML, O_FURL, O_TEMPLATES
};

static int cmp_double(const char *opt, const char *v, double lo, double hi, double *out)
{
    if (ndd_cli_parse_double(v, out) || !(*out >= lo && *out <= hi))
        return ndd_cli_usage_error("compare", "%s wants a number in [%g, %g], not '%s'", opt, lo, hi, v);
    return 0;
}

/* 0 ok, -1 --help shown, else an exit code */
/* One option of compare (not -h, not a missing value): 0, or the usage
 * error's code. name: the option as written, arg: its value. */
static int cmp_option(cmp_cfg_t *c, int ch, const char *name, const char *arg)
{
    const char *cmd = "compare";
    int rc;
    long l;
    size_t z;
    switch (ch) {
    case O_VERIFIER:
        if (!strcmp(arg, "tlcs"))
            c->signcd = 0;
        else if (!strcmp(arg, "signcd"))
            c->signcd = 1;
        else
            return ndd_cli_usage_error(cmd, "unknown verifier '%s' (tlcs or signcd)", arg);
        break;
    case O_JSON:
        c->json = 1;
        break;
    case O_RAW:
        c->raw = 1;
        break;
    case O_EXACT:
        c->tp.exact = 1;
        break;
    case O_RESERVE:
        c->tp.reserve = 1;
        break;
    case O_NOSIG:
        c->no_signature = 1;
        break;
    case O_FORMAT:
        if (!strcmp(arg, "auto"))
            c->format = CMP_FMT_AUTO;
        else if (!strcmp(arg, "html"))
            c->format = CMP_FMT_HTML;
        else if (!strcmp(arg, "text"))
            c->format = CMP_FMT_TEXT;
        else
            return ndd_cli_usage_error(cmd, "--format wants auto, html or text, not '%s'", arg);
        break;
    case O_BOILER:
    case O_SOFTWRAP:
    case O_SUBST:
    case O_TEMPLATES:
    case O_FORMULA: {
        int v = !strcmp(arg, "on") ? 1 : !strcmp(arg, "off") ? 0 : -1;
        if (v < 0)
            return ndd_cli_usage_error(cmd, "%s wants on or off, not '%s'", name, arg);
        if (ch == O_BOILER)
            c->text.boilerplate = v;
        else if (ch == O_SOFTWRAP)
            c->text.soft_wrap = v;
        else if (ch == O_SUBST)
            c->tp.subst_share = v ? NDD_TLCS_DEFAULT_SUBST_SHARE : 0;
        else if (ch == O_TEMPLATES)
            c->templates = v;
        else
            c->formula = v;
        break;
    }
    case O_MAXDOC:
    case O_MAXFILE:
    case O_MAXD:
    case O_MINIT:
        if (ndd_cli_parse_size(arg, &z))
            return ndd_cli_usage_error(cmd, "%s wants a byte count (K/M/G suffixes allowed), not '%s'",
                                       name, arg);
        if (ch == O_MAXDOC)
            c->text.max_bytes = z;
        else if (ch == O_MAXFILE)
            c->max_file = z;
        else if (ch == O_MAXD)
            c->tp.max_d = z;
        else
            c->tp.min_iter_tlcs = z;
        break;
    case O_WINDOW:
        if (ndd_cli_parse_long(arg, 1, 4096, &l))
            return ndd_cli_usage_error(cmd, "--window wants 1..4096 bytes, not '%s'", arg);
        c->tp.window = (size_t)l;
        break;
    case O_MAXITER:
        if (ndd_cli_parse_long(arg, 1, NDD_TLCS_MAX_REGIONS, &l))
            return ndd_cli_usage_error(cmd, "--max-iter wants 1..%d, not '%s'", NDD_TLCS_MAX_REGIONS, arg);
        c->tp.max_iter = (unsigned)l;
        break;
    case O_BLOCKS:
        if (ndd_cli_parse_long(arg, 0, 4096, &l))
            return ndd_cli_usage_error(cmd, "--blocks wants 0..4096, not '%s'", arg);
        c->tp.blocks = (unsigned)l;
        break;
    case O_SLOPE:
        if ((rc = cmp_double("--slope", arg, 0.0, 1.0, &c->tp.slope)))
            return rc;
        break;
    case O_RES:
        if ((rc = cmp_double("--resemblance", arg, 0.0, 1.0, &c->tp.min_resemblance)))
            return rc;
        break;
    case O_CONT:
        if ((rc = cmp_double("--containment", arg, 0.0, 1.0, &c->tp.min_containment)))
            return rc;
        break;
    case O_TAU:
        if ((rc = cmp_double(name, arg, 0.0, 1.0, &c->tau)))
            return rc;
        break;
    case O_SHOW:
        c->show = 1;
        break;
    case O_FID:
    case O_FTEXT:
    case O_FHTML:
    case O_FURL:
        if (ndd_fields_check(arg))
            return ndd_cli_usage_error(cmd, "%s takes a field name or a dotted path, not '%s'",
                                       name, arg);
        *(ch == O_FID ? &c->fields.id : ch == O_FTEXT ? &c->fields.text : ch == O_FHTML ? &c->fields.html
          : &c->fields.url) = arg;
        break;
    default:
        return ndd_cli_usage_error(cmd, "unknown option '%s'", name);
    }
    return 0;
}

static int cmp_parse(int argc, char **argv, cmp_cfg_t *c)
{
    static const struct option opts[] = {
        {"verifier", required_argument, 0, O_VERIFIER},
        {"json", no_argument, 0, O_JSON},
        {"raw", no_argument, 0, O_RAW},
        {"exact", no_argument, 0, O_EXACT},
        {"format", required_argument, 0, O_FORMAT},
        {"max-doc-bytes", required_argument, 0, O_MAXDOC},
        {"boilerplate", required_argument, 0, O_BOILER},
        {"max-file-bytes", required_argument, 0, O_MAXFILE},
        {"window", required_argument, 0, O_WINDOW},
        {"slope", required_argument, 0, O_SLOPE},
        {"resemblance", required_argument, 0, O_RES},
        {"containment", required_argument, 0, O_CONT},
        {"max-d", required_argument, 0, O_MAXD},
        {"max-iter", required_argument, 0, O_MAXITER},
        {"min-iter-tlcs", required_argument, 0, O_MINIT},
        {"blocks", required_argument, 0, O_BLOCKS},
        {"reserve", no_argument, 0, O_RESERVE},
        {"threshold", required_argument, 0, O_TAU},
        {"tau", required_argument, 0, O_TAU},
        {"no-signature", no_argument, 0, O_NOSIG},
        {"soft-wrap", required_argument, 0, O_SOFTWRAP},
        {"substitutions", required_argument, 0, O_SUBST},
        {"formulaic", required_argument, 0, O_FORMULA},
        {"show", no_argument, 0, O_SHOW},
        {"templates", required_argument, 0, O_TEMPLATES},
        {"id-field", required_argument, 0, O_FID},
        {"text-field", required_argument, 0, O_FTEXT},
        {"html-field", required_argument, 0, O_FHTML},
        {"url-field", required_argument, 0, O_FURL},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *cmd = "compare";
    int ch, rc, longidx;
    optind = 1;
    opterr = 0;
    while ((longidx = -1, ch = getopt_long(argc, argv, ":h", opts, &longidx)) != -1) {
        switch (ch) {
        case 'h':
            cmp_help();
            return -1;
        case ':':
            return ndd_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        case '?':
            return ndd_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        default:
            if ((rc = cmp_option(c, ch, ndd_cli_optname(opts, longidx, ch), optarg)))
                return rc;
        }
    }
    if (argc - optind == 3) {
        c->corpus = argv[optind];
        c->path[0] = argv[optind + 1];
        c->path[1] = argv[optind + 2];
        return 0;
    }
    if (argc - optind != 2)
        return ndd_cli_usage_error(cmd, "expects two files A B, or CORPUS ID_A ID_B; got %d argument(s)",
                                   argc - optind);
    c->path[0] = argv[optind];
    c->path[1] = argv[optind + 1];
    return 0;
}

static int cmp_ext_format(const char *path)
{
    static const char *html[] = {".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp"};
    static const char *text[] = {".txt", ".text", ".md"};
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return CMP_FMT_AUTO;
    for (size_t i = 0; i < sizeof html / sizeof html[0]; i++)
        if (!strcasecmp(dot, html[i]))
            return CMP_FMT_HTML;
    for (size_t i = 0; i < sizeof text / sizeof text[0]; i++)
        if (!strcasecmp(dot, text[i]))
            return CMP_FMT_TEXT;
    return CMP_FMT_AUTO;
}

/* Markup at the start (after a BOM and whitespace): '<' then a letter, '!' or '?'. */
static int cmp_sniff_html(const char *s, size_t n)
{
    size_t i = 0;
    if (n >= 3 && !memcmp(s, "\xef\xbb\xbf", 3))
        i = 3;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    if (i + 1 >= n || s[i] != '<')
        return 0;
    unsigned char c = (unsigned char)s[i + 1];
    return c == '!' || c == '?' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The text ndd run's map stage keeps of a body (with the template pass: 3 x
 * --max-doc-bytes, so that --max-doc-bytes are left once templates go). */
static int cmp_map_text(const cmp_cfg_t *c, const char *body, size_t n, int html, ndd_buf_t *out)
{
    ndd_text_opts_t o = c->text;
    if (o.max_bytes)
        o.max_bytes = o.max_bytes > SIZE_MAX / NDD_TMPL_READ_FACTOR ? SIZE_MAX : o.max_bytes * NDD_TMPL_READ_FACTOR;
    return html ? ndd_text_from_html(body, n, &o, out) : ndd_text_from_plain(body, n, &o, out);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ndd run's template pass, for A and B only: the occurrences of their blocks
 * on every page of the corpus (a second read of it), decided as the owners
 * of the blocks decide (ndd_tmpl_decide): d[k].tmpl = A's / B's template
 * blocks, d[k].full = the text before they go. Prints the error and returns
 * 1 on failure. */
static int cmp_corpus_templates(const cmp_cfg_t *c, const ndd_input_t *in, size_t nin, cmp_doc_t *d)
{
    ndd_tmpl_occ_t *occ = NULL, *mine = NULL;
    size_t nocc = 0, cap = 0, nmine = 0, mcap = 0, start[3] = {0, 0, 0};
    uint64_t *blocks = NULL;
    uint8_t *flag = NULL;
    ndd_buf_t text = NDD_BUF_INIT;
    int rc = NDD_OK, ret = 1;
    for (int k = 0; k < 2 && !rc; k++) { /* A's and B's own blocks */
        start[k] = nmine;
        if (!(rc = cmp_map_text(c, d[k].data, d[k].len, d[k].html, &d[k].full)))
            rc = ndd_tmpl_doc_occ(d[k].full.data ? d[k].full.data : "", d[k].full.len,
                                  ndd_tmpl_page_key(d[k].url, d[k].id), ndd_url_site(d[k].url), c->tmpl.max_short,
                                  &mine, &nmine, &mcap);
    }
    start[2] = nmine;
    if (!rc && !(blocks = malloc((nmine ? nmine : 1) * sizeof *blocks)))
        rc = NDD_ERR_NOMEM;
    for (size_t i = 0; !rc && i < nmine; i++)
        blocks[i] = mine[i].block;
    if (!rc)
        qsort(blocks, nmine, sizeof *blocks, cmp_u64);
    for (size_t f = 0; f < nin && !rc; f++) { /* every page's occurrences of those blocks */
        ndd_reader_t *rd = NULL;
        ndd_doc_t doc;
        if (ndd_reader_open(&rd, &in[f], 0, UINT64_MAX, NULL, NULL) || ndd_reader_set_fields(rd, &c->fields)) {
            ndd_reader_free(rd);
            continue;
        }
        while (!rc && (rc = ndd_reader_next(rd, &doc)) == NDD_OK) {
            size_t before = nocc;
            if ((rc = cmp_map_text(c, doc.body, doc.body_len, doc.is_html, &text)) || !text.len)
                continue;
            rc = ndd_tmpl_doc_occ(text.data, text.len, ndd_tmpl_page_key(doc.url, doc.id), ndd_url_site(doc.url),
                                  c->tmpl.max_short, &occ, &nocc, &cap);
            size_t w = before;
            for (size_t i = before; !rc && i < nocc; i++)
                if (bsearch(&occ[i].block, blocks, nmine, sizeof *blocks, cmp_u64))
                    occ[w++] = occ[i];
            nocc = w;
        }
        if (rc == NDD_ERR_EOF)
            rc = NDD_OK;
        ndd_reader_free(rd);
    }
    if (!rc && !(flag = malloc(nocc ? nocc : 1)))
        rc = NDD_ERR_NOMEM;
    if (!rc)
        rc = ndd_tmpl_decide(&c->tmpl, occ, nocc, flag, NULL);
    for (int k = 0; k < 2 && !rc; k++) { /* A's block is a template when its own occurrence is flagged */
        if (!(d[k].tmpl = malloc((start[k + 1] - start[k] + 1) * sizeof *d[k].tmpl))) {
            rc = NDD_ERR_NOMEM;
            break;
        }
        for (size_t i = start[k]; i < start[k + 1]; i++)
            for (size_t q = 0; q < nocc; q++)
                if (occ[q].block == mine[i].block && occ[q].page == mine[i].page && occ[q].site == mine[i].site &&
                    occ[q].content == mine[i].content) {
                    if (flag[q])
                        d[k].tmpl[d[k].ntmpl++] = mine[i].block;
                    break;
                }
    }
    if (rc)
        fprintf(stderr, "ndd compare: the template pass over %s failed: %s\n", c->corpus, ndd_strerror(rc));
    else
        ret = 0;
    free(occ);
    free(mine);
    free(blocks);
    free(flag);
    ndd_buf_free(&text);
    return ret;
}

/* CORPUS ID_A ID_B: reads the corpus as ndd run does until both records are
 * found; their bodies become d[0].data, d[1].data (html from the record).
 * Prints the error and returns 1 on failure. */
static int cmp_load_corpus(const cmp_cfg_t *c, cmp_doc_t *d)
{
    ndd_input_t *in = NULL;
    size_t nin = 0, found = 0;
    uint64_t ndocs = 0;
    const char *bad = NULL;
    int rc = ndd_input_expand(&c->corpus, 1, NDD_FMT_AUTO, &in, &nin, &bad), err = errno, ret = 1;
    if (rc) {
        fprintf(stderr, "ndd compare: cannot read %s: %s\n", bad ? bad : c->corpus, ndd_cli_why(rc, err));
        return 1;
    }
    for (size_t f = 0; f < nin && found < 2; f++) {
        ndd_reader_t *rd = NULL;
        ndd_doc_t doc;
        if (ndd_reader_open(&rd, &in[f], 0, UINT64_MAX, NULL, NULL) || ndd_reader_set_fields(rd, &c->fields)) {
            ndd_reader_free(rd);
            continue;
        }
        while (found < 2 && (rc = ndd_reader_next(rd, &doc)) == NDD_OK) {
            ndocs++;
            for (int k = 0; k < 2; k++) {
                if (d[k].data || strcmp(doc.id, c->path[k]))
                    continue;
                if (!(d[k].data = malloc(doc.body_len + 1))) {
                    ndd_reader_free(rd);
                    fprintf(stderr, "ndd compare: out of memory\n");
                    goto out;
                }
                memcpy(d[k].data, doc.body, doc.body_len + 1);
                d[k].len = doc.body_len;
                d[k].html = doc.is_html;
                d[k].url = strdup(doc.url);
                d[k].id = strdup(doc.id);
                found++;
            }
        }
        ndd_reader_free(rd);
        if (rc != NDD_OK && rc != NDD_ERR_EOF) {
            fprintf(stderr, "ndd compare: reading %s: %s\n", in[f].name, ndd_strerror(rc));
            goto out;
        }
    }
    for (int k = 0; k < 2; k++)
        if (!d[k].data) {
            fprintf(stderr, "ndd compare: %s: no document with id '%s' in %s (%llu documents read; rejected "
                            "records are not documents: see rejects.tsv of ndd run)\n",
                    k ? "B" : "A", c->path[k], c->corpus, (unsigned long long)ndocs);
            goto out;
        }
    ret = c->templates ? cmp_corpus_templates(c, in, nin, d) : 0;
out:
    ndd_input_free(in, nin);
    return ret;
}

/* The text compared: the bytes as read (--raw), or the prepared text - the
 * template pass's output for a corpus record (tmpl), else HTML or plain
 * text extraction. Prints the error and returns 1 on failure. */
static int cmp_prepare(const cmp_cfg_t *c, const char *name, int tmpl, cmp_doc_t *d)
{
    if (c->raw) {
        d->use = d->data;
        d->nuse = d->len;
        return 0;
    }
    int rc = tmpl     ? ndd_tmpl_strip(d->full.data ? d->full.data : "", d->full.len, d->tmpl, d->ntmpl,
                                       c->tmpl.max_short, c->text.max_bytes, &d->text, NULL)
             : d->html ? ndd_text_from_html(d->data, d->len, &c->text, &d->text)
                       : ndd_text_from_plain(d->data, d->len, &c->text, &d->text);
    if (rc) {
        fprintf(stderr, "ndd compare: %s: text extraction failed: %s\n", name, ndd_strerror(rc));
        return 1;
    }
    d->use = d->text.data ? d->text.data : "";
    d->nuse = d->text.len;
    return 0;
}

/* Reads and prepares one document; prints the error and returns 1 on failure. */
static int cmp_load(const cmp_cfg_t *c, int which, cmp_doc_t *d)
{
    const char *path = c->path[which], *name = which ? "B" : "A";
    if (c->corpus) /* read by cmp_load_corpus */
        return cmp_prepare(c, name, c->templates, d);
    int rc = ndd_read_file(path, c->max_file, &d->data, &d->len);
    if (rc == NDD_ERR_LIMIT) {
        fprintf(stderr, "ndd compare: %s: %s is larger than %zu bytes (--max-file-bytes)\n", name, path,
                c->max_file);
        return 1;
    }
    if (rc) {
        fprintf(stderr, "ndd compare: %s: cannot read %s: %s\n", name, path,
                rc == NDD_ERR_IO && errno ? strerror(errno) : ndd_strerror(rc));
        return 1;
    }
    if (c->raw)
        return cmp_prepare(c, name, 0, d);
    const char *nul = memchr(d->data, 0, d->len);
    if (nul) {
        fprintf(stderr,
                "ndd compare: %s: %s looks binary (NUL byte at offset %zu); 'ndd run' rejects such\n"
                "documents. Use --raw to compare the bytes.\n",
                name, path, (size_t)(nul - d->data));
        return 1;
    }
    size_t ok = ndd_utf8_valid_prefix(d->data, d->len);
    if (ok != d->len) {
        fprintf(stderr,
                "ndd compare: %s: %s is not valid UTF-8 (offset %zu); 'ndd run' rejects such\n"
                "documents. Convert it (e.g. iconv -f latin1 -t utf-8) or use --raw to compare the bytes.\n",
                name, path, ok);
        return 1;
    }
    int fmt = c->format != CMP_FMT_AUTO ? c->format : cmp_ext_format(path);
    if (fmt == CMP_FMT_AUTO)
        fmt = cmp_sniff_html(d->data, d->len) ? CMP_FMT_HTML : CMP_FMT_TEXT;
    d->html = fmt == CMP_FMT_HTML;
    return cmp_prepare(c, name, 0, d);
}

static const char *cmp_fmt_name(const cmp_cfg_t *c, const cmp_doc_t *d)
{
    return c->raw ? "raw" : d->html ? "html" : "text";
}

/* The first bytes of a region, on one line (text mode only). */
static void cmp_snippet(FILE *out, const char *s, size_t n)
{
    size_t cut = ndd_utf8_cut(s, n, 60);
    fputs(" \"", out);
    for (size_t i = 0; i < cut; i++)
        fputc(s[i] == '\n' || s[i] == '\t' ? ' ' : s[i], out);
    fputs(cut < n ? "...\"" : "\"", out);
}

static void cmp_report(const cmp_cfg_t *c, const cmp_doc_t *d, const ndd_tlcs_result_t *r,
                       const ndd_formula_result_t *fr, FILE *out)
{
    const ndd_tlcs_params_t *p = &c->tp;
    size_t mn = r->len_a < r->len_b ? r->len_a : r->len_b;
    fprintf(out, "verifier: tlcs (window %zu, slope %.2f, max-iter %u%s; duplicate if resemblance >= %.2f or containment >= %.2f)\n",
            p->window, p->slope, p->max_iter, p->exact ? ", exact: no sketches" : "", p->min_resemblance,
            p->min_containment);
    if (r->len_a == 0 || r->len_b == 0) {
        fprintf(out, "  %s has no %s: nothing to compare\n", r->len_a == 0 ? "A" : "B",
                c->raw ? "bytes" : "text");
    } else {
        fprintf(out, "  sketches: A %zu of %zu bytes, B %zu of %zu bytes (strain-away %.3f)\n", r->sketch_a,
                r->len_a, r->sketch_b, r->len_b, r->strain_away);
        double ru, cu;
        ndd_tlcs_scores(r->lcs_upper, r->len_a, r->len_b, &ru, &cu);
        fprintf(out, "  upper bound: TLCS <= min(sketch A, sketch B) = %zu -> resemblance <= %.3f, containment <= %.3f%s\n",
                r->lcs_upper, ru, cu, r->pruned_by_bound ? ": cannot reach the thresholds, no LCS run" : "");
        if (!r->pruned_by_bound) {
            if (r->iterations && r->hit_cost_limit && r->nregions == 0)
                fprintf(out, "  LCS of the sketches: >= %zu (Myers stopped: D > cost limit %zu)\n", r->lcs, r->max_d);
            else
                fprintf(out, "  LCS of the sketches: %zu, shortest edit script D = %zu (cost limit %zu)\n", r->lcs,
                        r->d, r->max_d);
            fprintf(out, "  trustable LCS: %zu bytes in %u region(s), %u Myers run(s)%s\n", r->tlcs, r->nregions,
                    r->iterations, r->hit_cost_limit ? (r->iterations > 1 ? ", the last run hit the cost limit" : ", the run hit the cost limit") : "");
            for (unsigned i = 0; i < r->nregions; i++) {
                const ndd_tlcs_region_t *g = &r->regions[i];
                fprintf(out, "    region %u: A [%zu, %zu) B [%zu, %zu) %zu bytes", i + 1, g->a_start, g->a_end,
                        g->b_start, g->b_end, g->tlcs);
                if (!c->raw)
                    cmp_snippet(out, d[0].use + g->a_start, g->a_end - g->a_start);
                fputc('\n', out);
            }
        }
        if (r->reserve >= 0)
            fprintf(out, "  reserve rate: TLCS(sketches) / TLCS(exact) = %.3f\n", r->reserve);
    }
    fprintf(out, "  resemblance = TLCS / (|A| + |B| - TLCS) = %zu / %zu = %.3f\n", r->tlcs,
            r->len_a + r->len_b - r->tlcs, r->resemblance);
    fprintf(out, "  containment = TLCS / min(|A|, |B|) = %zu / %zu = %.3f\n", r->tlcs, mn, r->containment);
    if (fr && fr->aligned)
        fprintf(out, "  formulaic check: of %zu words in the regions of the shorter side, %zu replaced by a few\n"
                     "    other words: %zu of %zu numbers and names, %zu of %zu numbers%s\n",
                fr->words, fr->replaced, fr->keys_changed, fr->keys, fr->numbers_changed, fr->numbers,
                fr->one_line ? "; all in one short line (a headline or dateline)" : "");
    else if (fr)
        fprintf(out, "  formulaic check: not judged (more than %zu word edits)\n", c->fp.max_d);
    if (fr && fr->different)
        fprintf(out, "verdict: not duplicate (formulaic: the same wording about other names or numbers)\n");
    else if (r->duplicate)
        fprintf(out, "verdict: duplicate (%s)\n",
                r->resemblance >= p->min_resemblance ? "resemblance reaches its threshold"
                                                     : "containment reaches its threshold");
    else
        fprintf(out, "verdict: not duplicate\n");
    /* a short explanation */
    fputs("why: ", out);
    if (r->len_a == 0 || r->len_b == 0)
        fputs("an empty document is never a duplicate.\n", out);
    else if (r->pruned_by_bound)
        fputs("too little text is shared: even if every byte the two sketches keep were matched, the\n"
              "     thresholds could not be reached, so no LCS was computed.\n", out);
    else if (r->hit_cost_limit && r->nregions == 0)
        fputs("the documents differ by more edit operations than the cost limit allows; the verdict is\n"
              "     conservative. Raise --max-d to compute the exact LCS.\n", out);
    else if (fr && fr->different)
        fprintf(out, "the trustable LCS is long (%zu bytes) but what differs inside it is names and numbers\n"
                     "     (%zu of %zu changed): the same formula (a dividend notice, a rate table, a bond\n"
                     "     issue) about another company, day or issue.\n",
                r->tlcs, fr->keys_changed, fr->keys);
    else if (r->nregions == 0)
        fprintf(out, "they share %zu bytes of LCS, but no part of it is dense (edit-curve slope <= %.2f)\n"
                     "     around the centre of the documents: the common text looks like template\n"
                     "     (header, menus, footer) or scattered phrases, not the main content.\n",
                r->lcs, p->slope);
    else if (r->duplicate)
        fprintf(out, "the main content matches: %zu trustable bytes, %.0f %% of the shorter document,\n"
                     "     in %u region(s) covering the centre (the rest is template or edits).\n",
                r->tlcs, 100.0 * r->containment, r->nregions);
    else
        fprintf(out, "only %zu bytes (%.0f %% of the shorter document) are trustable common content;\n"
                     "     the rest of the LCS (%zu bytes) is outside the central, dense region(s).\n",
                r->tlcs, 100.0 * r->containment, r->lcs > r->tlcs ? r->lcs - r->tlcs : 0);
}

static int cmp_json(const cmp_cfg_t *c, const cmp_doc_t *d, const ndd_tlcs_result_t *r,
                    const ndd_formula_result_t *fr, FILE *out)
{
    ndd_buf_t j = NDD_BUF_INIT;
    char num[1024];
    int rc;
    snprintf(num, sizeof num,
             "{\"verifier\":\"tlcs\",\"duplicate\":%s,\"resemblance\":%.6f,\"containment\":%.6f,"
             "\"lcs\":%zu,\"tlcs\":%zu,\"d\":",
             r->duplicate ? "true" : "false", r->resemblance, r->containment, r->lcs, r->tlcs);
    if ((rc = ndd_buf_puts(&j, num)))
        goto out;
    if (r->hit_cost_limit && r->nregions == 0 && r->iterations)
        snprintf(num, sizeof num, "null");
    else
        snprintf(num, sizeof num, "%zu", r->d);
    if ((rc = ndd_buf_puts(&j, num)))
        goto out;
    snprintf(num, sizeof num,
             ",\"len_a\":%zu,\"len_b\":%zu,\"sketch_a\":%zu,\"sketch_b\":%zu,\"lcs_upper\":%zu,"
             "\"max_d\":%zu,\"hit_cost_limit\":%s,\"pruned_by_bound\":%s,\"iterations\":%u,"
             "\"strain_away\":%.6f,\"reserve\":",
             r->len_a, r->len_b, r->sketch_a, r->sketch_b, r->lcs_upper, r->max_d,
             r->hit_cost_limit ? "true" : "false", r->pruned_by_bound ? "true" : "false", r->iterations,
             r->strain_away);
    if ((rc = ndd_buf_puts(&j, num)))
        goto out;
    if (r->reserve >= 0)
        snprintf(num, sizeof num, "%.6f", r->reserve);
    else
        snprintf(num, sizeof num, "null");
    if ((rc = ndd_buf_puts(&j, num)) || (rc = ndd_buf_puts(&j, ",\"regions\":[")))
        goto out;
    for (unsigned i = 0; i < r->nregions; i++) {
        const ndd_tlcs_region_t *g = &r->regions[i];
        snprintf(num, sizeof num, "%s{\"a\":[%zu,%zu],\"b\":[%zu,%zu],\"tlcs\":%zu}", i ? "," : "", g->a_start,
                 g->a_end, g->b_start, g->b_end, g->tlcs);
        if ((rc = ndd_buf_puts(&j, num)))
            goto out;
    }
    if (fr)
        snprintf(num, sizeof num,
                 "],\"formulaic\":{\"aligned\":%s,\"words\":%zu,\"keys\":%zu,\"keys_changed\":%zu,\"numbers\":%zu,"
                 "\"numbers_changed\":%zu,\"replaced\":%zu,\"one_line\":%s,\"different\":%s}",
                 fr->aligned ? "true" : "false", fr->words, fr->keys, fr->keys_changed, fr->numbers, fr->numbers_changed,
                 fr->replaced, fr->one_line ? "true" : "false", fr->different ? "true" : "false");
    else
        snprintf(num, sizeof num, "],\"formulaic\":null");
    if ((rc = ndd_buf_puts(&j, num)))
        goto out;
    snprintf(num, sizeof num,
             ",\"mode\":\"%s\",\"exact\":%s,\"format_a\":\"%s\",\"format_b\":\"%s\",\"bytes_a\":%zu,"
             "\"bytes_b\":%zu,\"window\":%zu,\"slope\":%.6f,\"min_resemblance\":%.6f,"
             "\"min_containment\":%.6f,\"max_iter\":%u}\n",
             c->raw ? "raw" : "text", c->tp.exact ? "true" : "false", cmp_fmt_name(c, &d[0]),
             cmp_fmt_name(c, &d[1]), d[0].len, d[1].len, c->tp.window, c->tp.slope, c->tp.min_resemblance,
             c->tp.min_containment, c->tp.max_iter);
    if ((rc = ndd_buf_puts(&j, num)))
        goto out;
    fputs(j.data, out);
out:
    ndd_buf_free(&j);
    return rc;
}

/* --show, CORPUS: the lines the template pass removed from a document. */
static void cmp_show_templates(const cmp_cfg_t *c, const cmp_doc_t *d, const char *name, FILE *out)
{
    const char *s = d->full.data ? d->full.data : "";
    size_t n = d->full.len, shown = 0;
    fprintf(out, "\n--- %s: template lines removed by the template pass (%zu distinct) ---\n", name, d->ntmpl);
    for (size_t a = 0; a < n && d->ntmpl;) {
        const char *nl = memchr(s + a, '\n', n - a);
        size_t b = nl ? (size_t)(nl - s) : n;
        uint64_t h = ndd_tmpl_block_hash(s + a, b - a, c->tmpl.max_short);
        if (b > a && bsearch(&h, d->tmpl, d->ntmpl, sizeof *d->tmpl, cmp_u64)) {
            fputs("{template} ", out);
            fwrite(s + a, 1, b - a, out);
            fputc('\n', out);
            shown++;
        }
        a = b + 1;
    }
    if (!shown)
        fputs("(none)\n", out);
}

/* --show: the prepared text of document which (0 A, 1 B) with its trustable
 * regions marked [[ ... ]] (regions in text order). */
static void cmp_show(const char *s, size_t n, const ndd_tlcs_result_t *r, int which, const char *name, FILE *out)
{
    size_t st[NDD_TLCS_MAX_REGIONS], en[NDD_TLCS_MAX_REGIONS], m = 0;
    for (unsigned k = 0; k < r->nregions && m < NDD_TLCS_MAX_REGIONS; k++, m++) {
        st[m] = which ? r->regions[k].b_start : r->regions[k].a_start;
        en[m] = which ? r->regions[k].b_end : r->regions[k].a_end;
    }
    for (size_t i = 1; i < m; i++) /* insertion sort by start */
        for (size_t j = i; j > 0 && st[j] < st[j - 1]; j--) {
            size_t t = st[j]; st[j] = st[j - 1]; st[j - 1] = t;
            t = en[j]; en[j] = en[j - 1]; en[j - 1] = t;
        }
    fprintf(out, "\n--- %s: the text compared (%zu bytes), trustable regions marked [[ ... ]] ---\n", name, n);
    size_t at = 0;
    for (size_t k = 0; k < m; k++) {
        size_t a = st[k] < at ? at : st[k] > n ? n : st[k], b = en[k] > n ? n : en[k];
        if (b < a)
            b = a;
        fwrite(s + at, 1, a - at, out);
        fputs("[[", out);
        fwrite(s + a, 1, b - a, out);
        fputs("]]", out);
        at = b;
    }
    fwrite(s + at, 1, n - at, out);
    fputs("\n", out);
}

int ndd_cmd_compare(int argc, char **argv)
{
    cmp_cfg_t c;
    cmp_doc_t d[2];
    ndd_tlcs_ws_t *ws = NULL;
    int ret = NDD_EXIT_RUNTIME, rc;

    memset(&c, 0, sizeof c);
    memset(d, 0, sizeof d);
    ndd_tlcs_params_default(&c.tp);
    ndd_text_opts_default(&c.text);
    c.text.boilerplate = NDD_SIG_DEFAULT_BOILERPLATE;
    c.tau = NDD_NCD_DEFAULT_TAU;
    c.max_file = CMP_DEFAULT_MAX_FILE;
    c.formula = 1;
    c.templates = 1;
    ndd_tmpl_params_default(&c.tmpl);
    ndd_formula_params_default(&c.fp);
    if ((rc = cmp_parse(argc, argv, &c)))
        return rc < 0 ? NDD_EXIT_OK : rc;

    if (c.corpus && cmp_load_corpus(&c, d))
        goto out;
    for (int i = 0; i < 2; i++)
        if (cmp_load(&c, i, &d[i]))
            goto out;

    if (!c.json) {
        for (int i = 0; i < 2; i++) {
            if (c.raw)
                printf("%s: %s (raw, %zu bytes)\n", i ? "B" : "A", c.path[i], d[i].len);
            else
                printf("%s: %s (%s, %zu bytes read -> %zu bytes of text%s)\n", i ? "B" : "A", c.path[i],
                       d[i].html ? "html" : "text", d[i].len, d[i].nuse,
                       c.text.max_bytes && d[i].nuse + 4 >= c.text.max_bytes ? ", at the --max-doc-bytes limit" : "");
        }
    }

    if (c.signcd) {
        int dup = 0;
        rc = ndd_compare_signcd(d[0].use, d[0].nuse, d[1].use, d[1].nuse, c.json, c.tau, c.no_signature, stdout,
                                &dup);
        if (rc) {
            fprintf(stderr, "ndd compare: signcd: %s\n", ndd_strerror(rc));
            goto out;
        }
        ret = NDD_EXIT_OK;
        goto out;
    }

    ndd_tlcs_result_t r;
    if ((rc = ndd_tlcs_ws_create(&ws)) ||
        (rc = ndd_tlcs_compare(ws, &c.tp, d[0].use, d[0].nuse, d[1].use, d[1].nuse, &r))) {
        if (rc == NDD_ERR_NOMEM)
            fprintf(stderr, "ndd compare: out of memory (documents of %zu and %zu bytes%s)\n", d[0].nuse, d[1].nuse,
                    c.raw ? "; drop --raw or pass smaller files" : "");
        else
            fprintf(stderr, "ndd compare: %s\n", ndd_strerror(rc));
        goto out;
    }
    ndd_formula_result_t fr, *frp = NULL;
    if (r.duplicate && c.formula) {
        if ((rc = ndd_formula_check(&c.fp, d[0].use, d[0].nuse, d[1].use, d[1].nuse, &r, &fr))) {
            fprintf(stderr, "ndd compare: %s\n", ndd_strerror(rc));
            goto out;
        }
        frp = &fr;
        if (fr.different)
            r.duplicate = 0;
    }
    if (c.json) {
        if (cmp_json(&c, d, &r, frp, stdout)) {
            fprintf(stderr, "ndd compare: out of memory\n");
            goto out;
        }
    } else {
        cmp_report(&c, d, &r, frp, stdout);
        if (c.show)
            for (int i = 0; i < 2; i++) {
                if (c.corpus && c.templates)
                    cmp_show_templates(&c, &d[i], i ? "B" : "A", stdout);
                cmp_show(d[i].use, d[i].nuse, &r, i, i ? "B" : "A", stdout);
            }
    }
    ret = NDD_EXIT_OK;
out:
    if (fflush(stdout) && ret == NDD_EXIT_OK) {
        fprintf(stderr, "ndd compare: cannot write the output\n");
        ret = NDD_EXIT_RUNTIME;
    }
    ndd_tlcs_ws_free(ws);
    for (int i = 0; i < 2; i++) {
        free(d[i].data);
        free(d[i].url);
        free(d[i].id);
        free(d[i].tmpl);
        ndd_buf_free(&d[i].full);
        ndd_buf_free(&d[i].text);
    }
    return ret;
}

/* cmd_flow.c - 'ndd flow': paper 003's detector for a stream of timestamped
 * documents (src/flow): inputs in the given order, or a directory polled for
 * new files; one verdict line per document as soon as it is decided; a
 * summary (documents per second, memory per hour segment) at the end.
 * Local: no MPI. docs/flow.md. */
#include "ndd_cli.h"
#include "ndd_flow.h"
#include "ndd_reader.h"
#include "ndd_sig.h"
#include "ndd_text.h"
#include "ndd_util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static const char *flow_cmd = "flow";
static volatile sig_atomic_t flow_stop_signal;

typedef struct flow_cfg {
    ndd_flow_params_t p;
    ndd_fields_t fields;
    ndd_text_opts_t text;
    const char *out, *stats, *follow;
    double poll, idle_exit;
    int quiet, fields_date_given;
    ndd_cli_archive_t archive; /* --content-types, --url-include, --url-exclude (as ndd run) */
} flow_cfg_t;

/* The running command: its flow, output, counters of what the core does not see. */
typedef struct flow_ctx {
    const flow_cfg_t *c;
    ndd_flow_t *f;
    FILE *out;
    ndd_buf_t line, text;
    uint64_t rejects, bad_dates, files, not_selected;
    double busy;           /* seconds spent reading and deciding (not polling) */
    const char *stopped;   /* why the stream ended */
} flow_ctx_t;

static void flow_help(void)
{
    ndd_flow_params_t p;
    ndd_text_opts_t t;
    ndd_flow_params_default(&p);
    ndd_text_opts_default(&t);
    printf("usage: ndd flow [options] INPUT...\n"
           "       ndd flow [options] --follow DIR [INPUT...]\n"
           "\n"
           "Near-duplicates in a stream of timestamped documents (paper 003, DDD): each document\n"
           "is decided on arrival against the documents of the last --window, kept as one\n"
           "inverted index (q-gram -> documents) per hour; hours older than the window are\n"
           "dropped. A document at time t is compared with every earlier accepted document\n"
           "whose time t' has |t - t'| < window (in time order: t' in (t - window, t]); the\n"
           "best match at or above the threshold makes it a near-duplicate, else it is new.\n"
           "INPUT files are read in the order given (directories: their files in name order);\n"
           "any input of ndd run (JSONL, WARC/WET, text/HTML files; '-' = standard input).\n"
           "The time is WARC-Date, or the JSONL field --date-field: RFC 3339 / ISO 8601\n"
           "(2012-03-01T10:15:00Z, 2012-03-01 10:15:00+01:00, 2012-03-01) or YYYYMMDDhhmmss.\n"
           "\n"
           "Verdicts (--out, TSV, one line per document, written as soon as it is decided,\n"
           "after the header line id url date verdict of_id score):\n"
           "  new, near-duplicate (of_id: the earlier document, score: its measure),\n"
           "  late (more than --max-late behind the latest time seen: not compared, not indexed),\n"
           "  undated (no or unreadable time: not compared, not indexed).\n"
           "\n"
           "options:\n"
           "      --window DUR         the window: Ns, Nm, Nh, Nd or Nw (default 24h, paper 003 sec. 3.6)\n"
           "      --max-late DUR       accept documents up to DUR behind the latest time seen, 0 for\n"
           "                           none (default 1h; hours held: (window + max-late) / 1h + 1)\n"
           "      --measure M          qgram: the paper's doc_q = |A n B| / max(|A|, |B|) over distinct\n"
           "                           q-grams of the text without spaces and punctuation (default);\n"
           "                           tlcs: paper 002's trustable LCS on the index's candidates\n"
           "      --index postings|bitmap  how an hour lists a q-gram's documents: chained postings\n"
           "                           (default) or the paper's bitmap of the hour's documents (sec. 3.6);\n"
           "                           the same verdicts, other memory and time\n"
           "      --q N                q-gram length in characters (default %u, paper 003 sec. 4)\n"
           "      --threshold T        qgram: near-duplicate when doc_q >= T (default %.2f, paper 003)\n"
           "      --candidate-min F    tlcs: verify documents sharing >= F of the smaller q-gram set;\n"
           "                           0: every document in the window (default %.2f)\n"
           "      --resemblance R      tlcs: duplicate when resemblance >= R (default %.2f) ...\n"
           "      --containment C      ... or containment >= C (default %.2f)\n"
           "      --formulaic on|off   tlcs: reject a duplicate whose regions hold other names and numbers\n"
           "                           (the same formula about another company or day; as ndd run) (default on)\n"
           "      --out FILE|-         the verdict lines (default -: standard output)\n"
           "      --stats FILE         also write the summary as a JSON object\n"
           "      --follow DIR         then poll DIR for new files and read them in name order (names\n"
           "                           starting with '.' or ending in .tmp or .part are not read: write\n"
           "                           a file under such a name, then rename it); stops when a file\n"
           "                           named STOP is in DIR (after the files listed with it), after\n"
           "                           --idle-exit, or on SIGINT/SIGTERM (after the current document)\n"
           "      --poll SECONDS       --follow: time between two listings (default 1)\n"
           "      --idle-exit SECONDS  --follow: stop when no new file came for SECONDS (default 0: never)\n"
           "      --date-field PATH    JSONL: the document's time (default date)\n"
           "      --id-field, --text-field, --html-field, --url-field PATH\n"
           "                           the JSONL fields, as in ndd run\n"
           "      --max-doc-bytes N    keep the first N bytes of visible text, 0 = all (default %zu)\n"
           "      --boilerplate on|off drop navigation/footer/link-list markup (default %s)\n"
           "      --soft-wrap on|off   plain text: a single newline is a line wrap (default off, as ndd run)\n"
           NDD_CLI_ARCHIVE_HELP
           "  -q, --quiet              no summary on standard error\n"
           "  -h, --help               this text\n"
           "Exit codes: 0 ok, 1 runtime error, 2 bad usage.\n",
           p.q, p.threshold, p.candidate_min, p.tlcs.min_resemblance, p.tlcs.min_containment, t.max_bytes,
           NDD_SIG_DEFAULT_BOILERPLATE ? "on" : "off");
}

enum {
    F_WINDOW = 1000, F_LATE, F_MEASURE, F_Q, F_THRESH, F_CMIN, F_RES, F_CONT, F_OUT, F_STATS, F_FOLLOW, F_POLL,
    F_IDLE, F_FORMULA, F_SOFTWRAP, F_INDEX, F_FDATE, F_FID, F_FTEXT, F_FHTML, F_FURL, F_MAXDOC, F_BOILER, F_CTYPES,
    F_URLINC, F_URLEXC
};

static int flow_double(const char *name, const char *v, double lo, double hi, int lo_open, double *out)
{
    if (ndd_cli_parse_double(v, out) || *out < lo || *out > hi || (lo_open && *out == lo))
        return ndd_cli_usage_error(flow_cmd, "%s wants a number in %s%g, %g], not '%s'", name, lo_open ? "(" : "[",
                                   lo, hi, v);
    return 0;
}

static int flow_duration(const char *name, const char *v, int zero_ok, int64_t *out)
{
    if (zero_ok && !strcmp(v, "0")) {
        *out = 0;
        return 0;
    }
    if (ndd_flow_parse_duration(v, out) || (!zero_ok && *out == 0))
        return ndd_cli_usage_error(flow_cmd, "%s wants a duration such as 90m, 24h or 3d%s, not '%s'", name,
                                   zero_ok ? " (or 0)" : "", v);
    return 0;
}

/* One option (not -h): 0, or the usage error's exit code. */
static int flow_option(flow_cfg_t *c, int ch, const char *name, const char *arg)
{
    long l;
    size_t z;
    switch (ch) {
    case F_WINDOW: return flow_duration(name, arg, 0, &c->p.window);
    case F_LATE: return flow_duration(name, arg, 1, &c->p.max_late);
    case F_MEASURE:
        if (!strcmp(arg, "qgram"))
            c->p.measure = NDD_FLOW_QGRAM;
        else if (!strcmp(arg, "tlcs"))
            c->p.measure = NDD_FLOW_TLCS;
        else
            return ndd_cli_usage_error(flow_cmd, "--measure wants qgram or tlcs, not '%s'", arg);
        return 0;
    case F_INDEX:
        if (!strcmp(arg, "postings"))
            c->p.index = NDD_FLOW_INDEX_POSTINGS;
        else if (!strcmp(arg, "bitmap"))
            c->p.index = NDD_FLOW_INDEX_BITMAP;
        else
            return ndd_cli_usage_error(flow_cmd, "--index wants postings or bitmap, not '%s'", arg);
        return 0;
    case F_Q:
        if (ndd_cli_parse_long(arg, 1, 64, &l))
            return ndd_cli_usage_error(flow_cmd, "--q wants 1..64 characters, not '%s'", arg);
        c->p.q = (unsigned)l;
        return 0;
    case F_THRESH: return flow_double(name, arg, 0, 1, 1, &c->p.threshold);
    case F_CMIN: return flow_double(name, arg, 0, 1, 0, &c->p.candidate_min);
    case F_RES: return flow_double(name, arg, 0, 1, 0, &c->p.tlcs.min_resemblance);
    case F_CONT: return flow_double(name, arg, 0, 1, 0, &c->p.tlcs.min_containment);
    case F_POLL: return flow_double(name, arg, 0.01, 86400, 0, &c->poll);
    case F_IDLE: return flow_double(name, arg, 0, 1e9, 0, &c->idle_exit);
    case F_OUT: c->out = arg; return 0;
    case F_STATS: c->stats = arg; return 0;
    case F_FOLLOW: c->follow = arg; return 0;
    case F_MAXDOC:
        if (ndd_cli_parse_size(arg, &z))
            return ndd_cli_usage_error(flow_cmd, "%s wants a byte count (K/M/G suffixes allowed), not '%s'", name, arg);
        c->text.max_bytes = z;
        return 0;
    case F_BOILER:
    case F_SOFTWRAP:
    case F_FORMULA:
        if (strcmp(arg, "on") && strcmp(arg, "off"))
            return ndd_cli_usage_error(flow_cmd, "%s wants on or off, not '%s'", name, arg);
        *(ch == F_BOILER ? &c->text.boilerplate : ch == F_SOFTWRAP ? &c->text.soft_wrap : &c->p.formulaic) =
            !strcmp(arg, "on");
        return 0;
    case F_FDATE: case F_FID: case F_FTEXT: case F_FHTML: case F_FURL:
        if (ndd_fields_check(arg))
            return ndd_cli_usage_error(flow_cmd, "%s takes a field name or a dotted path such as metadata.url, "
                                       "not '%s'", name, arg);
        *(ch == F_FID ? &c->fields.id : ch == F_FTEXT ? &c->fields.text : ch == F_FHTML ? &c->fields.html
          : ch == F_FURL ? &c->fields.url : &c->fields.date) = arg;
        return 0;
    case F_CTYPES: return ndd_cli_archive_opt(flow_cmd, name, NDD_CLI_CTYPES, arg, &c->archive);
    case F_URLINC: return ndd_cli_archive_opt(flow_cmd, name, NDD_CLI_URL_INCLUDE, arg, &c->archive);
    case F_URLEXC: return ndd_cli_archive_opt(flow_cmd, name, NDD_CLI_URL_EXCLUDE, arg, &c->archive);
    case 'q': c->quiet = 1; return 0;
    default: return ndd_cli_usage_error(flow_cmd, "unknown option '%s'", name);
    }
}

/* 0 ok, -1 --help shown, else an exit code; *first: the first INPUT. */
static int flow_parse(int argc, char **argv, flow_cfg_t *c, int *first)
{
    static const struct option opts[] = {
        {"window", required_argument, 0, F_WINDOW}, {"max-late", required_argument, 0, F_LATE},
        {"measure", required_argument, 0, F_MEASURE}, {"q", required_argument, 0, F_Q},
        {"index", required_argument, 0, F_INDEX},
        {"threshold", required_argument, 0, F_THRESH}, {"candidate-min", required_argument, 0, F_CMIN},
        {"resemblance", required_argument, 0, F_RES}, {"containment", required_argument, 0, F_CONT},
        {"out", required_argument, 0, F_OUT}, {"stats", required_argument, 0, F_STATS},
        {"follow", required_argument, 0, F_FOLLOW}, {"poll", required_argument, 0, F_POLL},
        {"idle-exit", required_argument, 0, F_IDLE}, {"date-field", required_argument, 0, F_FDATE},
        {"id-field", required_argument, 0, F_FID}, {"text-field", required_argument, 0, F_FTEXT},
        {"html-field", required_argument, 0, F_FHTML}, {"url-field", required_argument, 0, F_FURL},
        {"max-doc-bytes", required_argument, 0, F_MAXDOC}, {"boilerplate", required_argument, 0, F_BOILER},
        {"formulaic", required_argument, 0, F_FORMULA}, {"soft-wrap", required_argument, 0, F_SOFTWRAP},
        {"content-types", required_argument, 0, F_CTYPES}, {"url-include", required_argument, 0, F_URLINC},
        {"url-exclude", required_argument, 0, F_URLEXC},
        {"quiet", no_argument, 0, 'q'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int ch, rc, longidx;
    optind = 1;
    opterr = 0;
    while ((longidx = -1, ch = getopt_long(argc, argv, ":hq", opts, &longidx)) != -1) {
        if (ch == 'h') {
            flow_help();
            return -1;
        }
        if (ch == ':')
            return ndd_cli_usage_error(flow_cmd, "option '%s' needs a value", argv[optind - 1]);
        if (ch == '?')
            return ndd_cli_usage_error(flow_cmd, "unknown option '%s'", argv[optind - 1]);
        if ((rc = flow_option(c, ch, ndd_cli_optname(opts, longidx, ch), optarg)))
            return rc;
    }
    if (optind >= argc && !c->follow)
        return ndd_cli_usage_error(flow_cmd, "no INPUT and no --follow DIR");
    if (!c->follow && (c->idle_exit > 0 || c->poll != 1.0))
        return ndd_cli_usage_error(flow_cmd, "--poll and --idle-exit need --follow DIR");
    if (c->follow) {
        struct stat st;
        if (stat(c->follow, &st) || !S_ISDIR(st.st_mode))
            return ndd_cli_usage_error(flow_cmd, "--follow wants a directory, not '%s'", c->follow);
    }
    if (c->p.measure != NDD_FLOW_TLCS && c->p.candidate_min != NDD_FLOW_DEFAULT_CANDIDATE_MIN)
        return ndd_cli_usage_error(flow_cmd, "--candidate-min applies to --measure tlcs");
    *first = optind;
    return 0;
}

/* ---------------------------------------------------------------- running */

static void flow_on_signal(int sig)
{
    flow_stop_signal = sig;
}

static void flow_on_reject(void *user, const ndd_reject_t *rej)
{
    (void)rej;
    ((flow_ctx_t *)user)->rejects++;
}

/* One document: its text, its time, the verdict, the line. */
static int flow_doc(flow_ctx_t *x, const ndd_doc_t *doc)
{
    const flow_cfg_t *c = x->c;
    ndd_flow_verdict_t v;
    int64_t t = 0;
    int dated = 0, rc;
    char num[64];
    const ndd_cli_archive_t *a = &c->archive;
    if (ndd_reader_admit(ndd_cli_archive_types(a), ndd_cli_archive_include(a), ndd_cli_archive_exclude(a), doc)) {
        x->not_selected++; /* archive controls, as ndd run (which makes them rejects) */
        return NDD_OK;
    }
    rc = doc->is_html ? ndd_text_from_html(doc->body, doc->body_len, &c->text, &x->text)
                      : ndd_text_from_plain(doc->body, doc->body_len, &c->text, &x->text);
    if (rc)
        return rc;
    if (doc->date && *doc->date) {
        dated = ndd_flow_parse_time(doc->date, &t) == NDD_OK;
        x->bad_dates += (uint64_t)!dated;
    }
    if ((rc = ndd_flow_add(x->f, doc->id, dated, t, x->text.data ? x->text.data : "", x->text.len, &v)))
        return rc;
    ndd_buf_clear(&x->line);
    if ((rc = ndd_tsv_append_field(&x->line, doc->id, strlen(doc->id))) || (rc = ndd_buf_putc(&x->line, '\t')) ||
        (rc = ndd_tsv_append_field(&x->line, doc->url, strlen(doc->url))) || (rc = ndd_buf_putc(&x->line, '\t')) ||
        (rc = ndd_tsv_append_field(&x->line, doc->date ? doc->date : "", doc->date ? strlen(doc->date) : 0)) ||
        (rc = ndd_buf_putc(&x->line, '\t')) || (rc = ndd_buf_puts(&x->line, ndd_flow_kind_name(v.kind))) ||
        (rc = ndd_buf_putc(&x->line, '\t')))
        return rc;
    if (v.kind == NDD_FLOW_DUP) {
        snprintf(num, sizeof num, "\t%.6f", v.score);
        if ((rc = ndd_tsv_append_field(&x->line, v.of_id, strlen(v.of_id))) || (rc = ndd_buf_puts(&x->line, num)))
            return rc;
    } else if ((rc = ndd_buf_putc(&x->line, '\t'))) {
        return rc;
    }
    if ((rc = ndd_buf_putc(&x->line, '\n')))
        return rc;
    if (fwrite(x->line.data, 1, x->line.len, x->out) != x->line.len || fflush(x->out))
        return NDD_ERR_IO;
    return NDD_OK;
}

/* Reads one INPUT (a file, a directory, '-'); prints the error and returns 1 on failure. */
static int flow_input(flow_ctx_t *x, const char *path)
{
    ndd_input_t *in = NULL;
    size_t nin = 0;
    const char *bad = NULL;
    int rc = ndd_input_expand(&path, 1, NDD_FMT_AUTO, &in, &nin, &bad), err = errno, ret = 0;
    if (rc) {
        fprintf(stderr, "ndd flow: cannot read %s: %s\n", bad ? bad : path, ndd_cli_why(rc, err));
        return 1;
    }
    double t0 = ndd_now();
    for (size_t i = 0; i < nin && !ret && !flow_stop_signal; i++) {
        ndd_reader_t *rd = NULL;
        ndd_doc_t doc;
        if ((rc = ndd_reader_open(&rd, &in[i], 0, UINT64_MAX, flow_on_reject, x)) ||
            (rc = ndd_reader_set_fields(rd, &x->c->fields))) {
            fprintf(stderr, "ndd flow: cannot read %s: %s\n", in[i].name, ndd_strerror(rc));
            ndd_reader_free(rd);
            ret = 1;
            break;
        }
        x->files++;
        while (!flow_stop_signal && (rc = ndd_reader_next(rd, &doc)) == NDD_OK)
            if ((rc = flow_doc(x, &doc)))
                break;
        if (rc != NDD_OK && rc != NDD_ERR_EOF) {
            fprintf(stderr, "ndd flow: %s: %s\n", in[i].name,
                    rc == NDD_ERR_IO ? "cannot write the verdicts (or read the input)" : ndd_strerror(rc));
            ret = 1;
        }
        ndd_reader_free(rd);
    }
    x->busy += ndd_now() - t0;
    ndd_input_free(in, nin);
    return ret;
}

static int flow_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int flow_name_readable(const char *n)
{
    size_t l = strlen(n);
    return n[0] != '.' && strcmp(n, "STOP") && !(l >= 4 && !strcmp(n + l - 4, ".tmp")) &&
           !(l >= 5 && !strcmp(n + l - 5, ".part"));
}

/* One listing of DIR: the names not read yet, in name order (*fresh, n), and
 * whether STOP is there. -1 when DIR cannot be read. */
static int flow_list(const char *dir, char ***seen, size_t *nseen, size_t *cap, char ***fresh, size_t *nfresh,
                     int *stop)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t fcap = 0;
    if (!d)
        return -1;
    *nfresh = 0;
    *stop = 0;
    while ((e = readdir(d))) {
        char *name = e->d_name;
        if (!strcmp(name, "STOP"))
            *stop = 1;
        if (!flow_name_readable(name) || (*nseen && bsearch(&name, *seen, *nseen, sizeof **seen, flow_name_cmp)))
            continue;
        char *dup = strdup(name);
        if (!dup || ndd_array_grow((void **)fresh, &fcap, *nfresh + 1, sizeof **fresh) ||
            ndd_array_grow((void **)seen, cap, *nseen + 1, sizeof **seen)) {
            free(dup);
            closedir(d);
            return -1;
        }
        (*fresh)[(*nfresh)++] = dup;
        (*seen)[(*nseen)++] = dup;
        qsort(*seen, *nseen, sizeof **seen, flow_name_cmp);
    }
    closedir(d);
    ndd_qsort(*fresh, *nfresh, sizeof **fresh, flow_name_cmp);
    return 0;
}

/* --follow: read new files of DIR in name order until STOP, --idle-exit or a signal. */
static int flow_follow(flow_ctx_t *x)
{
    const flow_cfg_t *c = x->c;
    char **seen = NULL, **fresh = NULL, path[4096];
    size_t nseen = 0, cap = 0, nfresh = 0;
    double last = ndd_now();
    int ret = 0, stop = 0;
    while (!ret && !flow_stop_signal) {
        if (flow_list(c->follow, &seen, &nseen, &cap, &fresh, &nfresh, &stop)) {
            fprintf(stderr, "ndd flow: cannot list %s: %s\n", c->follow, strerror(errno));
            ret = 1;
            break;
        }
        for (size_t i = 0; i < nfresh && !ret && !flow_stop_signal; i++) {
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", c->follow, fresh[i]);
            if (stat(path, &st) || !S_ISREG(st.st_mode))
                continue;
            ret = flow_input(x, path);
            last = ndd_now();
        }
        if (stop) {
            x->stopped = "STOP file";
            break;
        }
        if (c->idle_exit > 0 && ndd_now() - last >= c->idle_exit) {
            x->stopped = "--idle-exit";
            break;
        }
        struct timespec ts = {(time_t)c->poll, (long)((c->poll - (double)(time_t)c->poll) * 1e9)};
        nanosleep(&ts, NULL);
    }
    for (size_t i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
    free(fresh);
    return ret;
}

/* ---------------------------------------------------------------- summary */

static long flow_peak_rss_kib(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_maxrss;
}

static void flow_summary(const flow_ctx_t *x, FILE *o)
{
    ndd_flow_stats_t s;
    ndd_flow_get_stats(x->f, &s);
    double rate = x->busy > 0 ? (double)s.docs / x->busy : 0;
    fprintf(o, "ndd flow: %llu documents in %.3f s (%.0f documents/s): %llu new, %llu near-duplicate, %llu late, "
               "%llu undated (%llu unreadable dates); %llu out of time order accepted; %llu records rejected, "
               "%llu not selected (--content-types, --url-include, --url-exclude)\n",
            (unsigned long long)s.docs, x->busy, rate, (unsigned long long)s.new_docs, (unsigned long long)s.dups,
            (unsigned long long)s.late, (unsigned long long)s.undated, (unsigned long long)x->bad_dates,
            (unsigned long long)s.out_of_order, (unsigned long long)x->rejects, (unsigned long long)x->not_selected);
    fprintf(o, "ndd flow: hour segments: %llu held at the end, at most %llu, %llu created, %llu dropped; the largest "
               "%.2f MiB (%llu documents; the paper's bitmaps for it: %.2f MiB); all held at most %.2f MiB; "
               "peak RSS %.1f MiB\n",
            (unsigned long long)s.segments_held, (unsigned long long)s.segments_held_max,
            (unsigned long long)s.segments_created, (unsigned long long)s.segments_dropped,
            (double)s.segment_bytes_max / 1048576.0, (unsigned long long)s.segment_docs_max,
            (double)s.segment_bitmap_bytes_max / 1048576.0, (double)s.bytes_held_max / 1048576.0,
            (double)flow_peak_rss_kib() / 1024.0);
    fprintf(o, "ndd flow: pairs in the window %llu, sharing a q-gram %llu, TLCS runs %llu (formulaic %llu)%s%s\n",
            (unsigned long long)s.pairs_in_window, (unsigned long long)s.pairs_sharing,
            (unsigned long long)s.tlcs_runs, (unsigned long long)s.formulaic, x->stopped ? "; stopped by " : "", x->stopped ? x->stopped : "");
}

static int flow_stats_json(const flow_ctx_t *x, const char *path)
{
    ndd_flow_stats_t s;
    const ndd_flow_params_t *p = &x->c->p;
    FILE *o = fopen(path, "w");
    if (!o)
        return -1;
    ndd_flow_get_stats(x->f, &s);
    fprintf(o, "{\"measure\":\"%s\",\"index\":\"%s\",\"window_s\":%lld,\"max_late_s\":%lld,\"q\":%u,\"threshold\":%g,"
               "\"candidate_min\":%g,\"documents\":%llu,\"seconds\":%.6f,\"documents_per_s\":%.3f,"
               "\"new\":%llu,\"near_duplicate\":%llu,\"late\":%llu,\"undated\":%llu,\"bad_dates\":%llu,"
               "\"out_of_order\":%llu,\"rejects\":%llu,\"not_selected\":%llu,\"pairs_in_window\":%llu,"
               "\"pairs_sharing_qgram\":%llu,\"lookups\":%llu,\"postings_read\":%llu,\"tlcs_runs\":%llu,\"formulaic_rejected\":%llu,\"segments_held\":%llu,\"segments_held_max\":%llu,"
               "\"segments_created\":%llu,\"segments_dropped\":%llu,\"segment_bytes_max\":%zu,"
               "\"segment_docs_max\":%llu,\"segment_bitmap_bytes_max\":%zu,\"bytes_held_max\":%zu,"
               "\"peak_rss_kib\":%ld,\"stopped_by\":\"%s\"}\n",
            p->measure == NDD_FLOW_TLCS ? "tlcs" : "qgram", p->index == NDD_FLOW_INDEX_BITMAP ? "bitmap" : "postings",
            (long long)p->window, (long long)p->max_late, p->q,
            p->threshold, p->candidate_min, (unsigned long long)s.docs, x->busy,
            x->busy > 0 ? (double)s.docs / x->busy : 0.0, (unsigned long long)s.new_docs, (unsigned long long)s.dups,
            (unsigned long long)s.late, (unsigned long long)s.undated, (unsigned long long)x->bad_dates,
            (unsigned long long)s.out_of_order, (unsigned long long)x->rejects, (unsigned long long)x->not_selected,
            (unsigned long long)s.pairs_in_window, (unsigned long long)s.pairs_sharing, (unsigned long long)s.lookups,
            (unsigned long long)s.postings_read, (unsigned long long)s.tlcs_runs, (unsigned long long)s.formulaic,
            (unsigned long long)s.segments_held,
            (unsigned long long)s.segments_held_max, (unsigned long long)s.segments_created,
            (unsigned long long)s.segments_dropped, s.segment_bytes_max, (unsigned long long)s.segment_docs_max,
            s.segment_bitmap_bytes_max, s.bytes_held_max, flow_peak_rss_kib(), x->stopped ? x->stopped : "end of input");
    return fclose(o) ? -1 : 0;
}

int ndd_cmd_flow(int argc, char **argv)
{
    flow_cfg_t c;
    flow_ctx_t x;
    int first = 0, rc, ret = NDD_EXIT_RUNTIME;
    memset(&c, 0, sizeof c);
    memset(&x, 0, sizeof x);
    ndd_flow_params_default(&c.p);
    ndd_text_opts_default(&c.text);
    c.text.boilerplate = NDD_SIG_DEFAULT_BOILERPLATE;
    c.fields.date = "date";
    c.out = "-";
    c.poll = 1.0;
    if ((rc = flow_parse(argc, argv, &c, &first))) {
        ndd_cli_archive_free(&c.archive);
        return rc < 0 ? NDD_EXIT_OK : rc;
    }
    x.c = &c;
    if ((rc = ndd_flow_create(&x.f, &c.p))) {
        fprintf(stderr, "ndd flow: %s\n", ndd_strerror(rc));
        ndd_cli_archive_free(&c.archive);
        return NDD_EXIT_RUNTIME;
    }
    x.out = strcmp(c.out, "-") ? fopen(c.out, "w") : stdout;
    if (!x.out) {
        fprintf(stderr, "ndd flow: cannot write %s: %s\n", c.out, strerror(errno));
        goto out;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = flow_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (fputs("id\turl\tdate\tverdict\tof_id\tscore\n", x.out) == EOF || fflush(x.out)) {
        fprintf(stderr, "ndd flow: cannot write %s\n", c.out);
        goto out;
    }
    for (int i = first; i < argc && !flow_stop_signal; i++)
        if (flow_input(&x, argv[i]))
            goto out;
    if (c.follow && flow_follow(&x))
        goto out;
    if (flow_stop_signal)
        x.stopped = flow_stop_signal == SIGINT ? "SIGINT" : "SIGTERM";
    if (!c.quiet)
        flow_summary(&x, stderr);
    if (c.stats && flow_stats_json(&x, c.stats)) {
        fprintf(stderr, "ndd flow: cannot write %s: %s\n", c.stats, strerror(errno));
        goto out;
    }
    ret = NDD_EXIT_OK;
out:
    if (x.out && x.out != stdout && fclose(x.out) && ret == NDD_EXIT_OK) {
        fprintf(stderr, "ndd flow: cannot write %s\n", c.out);
        ret = NDD_EXIT_RUNTIME;
    }
    ndd_flow_free(x.f);
    ndd_buf_free(&x.line);
    ndd_buf_free(&x.text);
    ndd_cli_archive_free(&c.archive);
    return ret;
}

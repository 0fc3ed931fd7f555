/* cmd_run.c - 'ndd run': options, then the job (ndd_run, src/engine) on an
 * engine, then the summary from rank 0. */
#include "ndd_cli.h"
#include "ndd_ckpt.h"
#include "ndd_run.h"
#include "ndd_util.h"

#include <dirent.h>
#include <getopt.h>
#include <sys/stat.h>
#include <xxhash.h>
#include <stdlib.h>
#include <string.h>

/* What the command line adds to the job's configuration. */
typedef struct run_opts {
    ndd_run_cfg_t cfg;
    int quiet;
    int force;   /* --force: write into a non-empty output directory */
    ndd_cli_archive_t archive; /* --content-types, --url-include, --url-exclude */
    ndd_cli_log_t log;
    ndd_cli_engine_t engine;
    ndd_buf_t index_opts; /* --index: the options that decide results, as given (canonical names) */
} run_opts_t;

/* The checkpoint, output and engine options of run's --help (no format
 * arguments: the defaults are in the text). */
static void run_help_tail(void)
{
    fputs(
        "checkpoints (see docs/architecture.md):\n"
        "      --work-dir WORK      keep the stage checkpoints here (default: DIR/.ndd-work, removed\n"
        "                           after a successful run; when a run of the same command line was\n"
        "                           interrupted, running it again resumes it there, and says so);\n"
        "                           refused if WORK holds an earlier run\n"
        "      --resume WORK        continue the run checkpointed in WORK, with any number of ranks:\n"
        "                           missing map shards are redone, a finished verification is reused;\n"
        "                           inputs, text and signature options come from WORK/manifest\n"
        "      --stop-after verify  stop once the verified pairs are checkpointed (with --work-dir/--resume)\n"
        "      --mem-per-rank SIZE  the memory budget of each rank (K, M, G, T suffixes): a stage that\n"
        "                           would exceed it waits on disk in WORK/spill (its texts, shuffle 1\n"
        "                           in rounds of key ranges, links as sorted runs, received texts read\n"
        "                           set by set); the outputs are the same for any budget. Default: 75 %\n"
        "                           of the node's memory (MemTotal, its cgroup's or Slurm's limit)\n"
        "                           shared by the node's ranks, logged at the start\n"
        "      --index DIR          add the inputs as a new batch to the persistent index in DIR\n"
        "                           (an empty or new DIR: the first batch); the outputs cover every\n"
        "                           indexed document, as one run over all batches' inputs in order\n"
        "                           would, and new-pairs.tsv lists the pairs with a new document;\n"
        "                           every batch must give the same options (docs/index.md)\n"
        "      --map-task I         run only map task I (0-based) of --map-tasks N, without MPI: read\n"
        "      --map-tasks N        the share rank I of N would read and write WORK/map/shard-I (for\n"
        "                           Slurm job arrays: slurm/ndd-stages.sh); a finished task is skipped\n"
        "output:\n"
        "      --keep K             which document of a cluster to keep: longest (default), first,\n"
        "                           newest or oldest by capture date (WARC-Date, or --date-field;\n"
        "                           undated documents are kept only when no member has a date)\n"
        "      --write-dedup FILE   also write the corpus without the removed duplicates: every kept\n"
        "                           record as it was read, in input order (a JSONL line with all its\n"
        "                           fields; a WARC record byte for byte when FILE is .warc[.gz|.zst]);\n"
        "                           records of text/HTML files become JSONL lines (id, url, text).\n"
        "                           FILE.zst: zstd, FILE.gz: gzip (a member per WARC record), else plain\n"
        "      --force              write into a non-empty output directory (default: refused)\n"
        "      --progress SECONDS   rank 0 prints every SECONDS the items done / total, rate and ETA of\n"
        "                           the read and verify stages (summed over ranks), the end of every\n"
        "                           stage, and the whole job's share done and ETA, estimated from\n"
        "                           typical stage shares (default 0: off)\n"
        "engine:\n"
        NDD_CLI_ENGINE_HELP
        "  -q, --quiet              no summary on stdout\n"
        "  -v, --verbose            log progress to stderr\n"
        "  -h, --help               this text\n"
        "\n"
        "Exit codes: 0 ok, 1 runtime error on any rank, 2 bad usage.\n",
        stdout);
}

static void run_help(void)
{
    ndd_run_cfg_t d;
    ndd_run_cfg_default(&d);
    printf(
        "usage: [mpirun -n P] ndd run -o DIR [options] INPUT...\n"
        "       ndd run --engine local[:P] -o DIR [options] INPUT...\n"
        "       [mpirun -n P] ndd run --resume WORK -o DIR [verification/output options]\n"
        "       [mpirun -n P] ndd run --index INDEX -o DIR [options] INPUT...   (add a batch: docs/index.md)\n"
        "       ndd run --map-task I --map-tasks N --work-dir WORK [input/text/signature options] INPUT...\n"
        "\n"
        "Finds near-duplicate documents in the inputs with paper 002's method:\n"
        "sentence signatures -> perhaps-similar sets -> trustable-LCS verification.\n"
        "INPUT: JSONL (.jsonl, .jsonl.gz, .jsonl.zst; fields id, text or html, url),\n"
        "WARC/WET (.warc, .warc.gz, .wet.gz) or directories of .txt/.html files;\n"
        "'-' (or a pipe such as /dev/stdin) reads standard input.\n"
        "Outputs in DIR: pairs.tsv, clusters.tsv, scores.tsv, rejects.tsv, stats.json\n"
        "(identical for any number of ranks, except the timings in stats.json).\n"
        "\n"
        "input and text:\n"
        "  -o, --output DIR         output directory (required; created if missing)\n"
        "      --format F           force the input format: jsonl|warc|text|html (default: by name/content)\n"
        "      --id-field PATH      JSONL: the field holding the document id, a string or a number\n"
        "                           (default id); a dotted PATH names a nested field: meta.id\n"
        "      --text-field PATH    JSONL: the field holding the text (default text; when given, the\n"
        "                           html field is read only with --html-field)\n"
        "      --html-field PATH    JSONL: the field holding HTML, used when present (default html)\n"
        "      --url-field PATH     JSONL: the page's URL (default url; Common Crawl derived JSONL:\n"
        "                           metadata.url)\n"
        "      --date-field PATH    JSONL: the capture date, a string such as 2020-03-29T09:04:10Z\n"
        "                           (default: none; WARC: WARC-Date), for --keep newest|oldest\n"
        "      --allow-empty        a run that reads no document succeeds (default: exit 1)\n"
        NDD_CLI_ARCHIVE_HELP
        "      --max-doc-bytes N    keep the first N bytes of visible text (default %zu, paper 002)\n"
        "      --boilerplate on|off drop navigation/footer/link-list markup before signatures and\n"
        "                           verification (default %s)\n"
        "      --soft-wrap on|off   plain text: a single newline is a line wrap, only a blank line\n"
        "                           separates blocks (for hard-wrapped text such as news wires) (default off)\n"
        "      --templates on|off   template pass: drop text blocks (lines) that repeat on many pages of\n"
        "                           one site, or short ones on many sites, from the text used for\n"
        "                           signatures and verification (never from --write-dedup) (default %s)\n"
        "      --template-pages N   ... a block on >= N distinct URLs of one site (default %u; 0: rule off)\n"
        "      --template-sites N   ... a block of <= --template-short bytes on >= N sites (default %u; 0: off)\n"
        "      --template-short B   (default %u)\n"
        "      --exact on|off       exact pass: documents with identical text (after the template pass,\n"
        "                           within --max-doc-bytes) are grouped by a 128-bit hash before the\n"
        "                           sets, so any number of copies ends in one cluster; copies take no\n"
        "                           part in the signature, frequency and giant-set rules (default %s)\n"
        "signatures (paper 002):\n"
        "  -m N                     residue classes (default %u)\n"
        "  -n N                     ring rotations, 1..16 (default %u)\n"
        "  -k N                     smallest fingerprints per class (default %u)\n"
        "      --max-list N         drop signatures held by more than N documents (default %zu)\n"
        "      --max-share F        ... or by more than F of all documents (and more than\n"
        "                           --max-share-floor) (default %.3f, 0 disables)\n"
        "      --max-share-floor N  (default %zu)\n"
        "      --site-list N        drop signatures held by more than N documents when concentrated\n"
        "                           on a few sites (default %zu)\n"
        "      --site-share F       'concentrated': the top --site-top sites hold >= F of the list (default %.2f)\n"
        "      --site-top N         (default %u)\n"
        "      --template-urls N    drop signatures whose documents are (>= --template-share) on one\n"
        "                           site with at least N distinct URLs: the site's template (default %zu;\n"
        "                           0 disables; re-crawls of one URL are never dropped by this rule)\n"
        "      --template-share F   (default %.2f)\n"
        "perhaps-similar sets and candidate pairs:\n"
        "      --min-link N         link a document to a list's representative only when N of its\n"
        "                           signatures do so (default %zu; 1 = paper 002)\n"
        "      --per-doc N          candidate partners per document, strongest first (default %u)\n"
        "      --list-cap N         inside a set, a signature shared by more than N members only links\n"
        "                           them to its first member (default %u)\n"
        "      --all-pairs-upto N   sets of at most N members verify every pair (default %u)\n"
        "      --min-shared N       in larger sets, pairs sharing fewer than N signatures are not\n"
        "                           candidates (default %u)\n"
        "      --giant N            sets of at least N documents are giant: reported, and split by\n"
        "                           size-capped single linkage: inside a giant set, links are taken\n"
        "                           strongest first and a union that would make a set of N or more\n"
        "                           documents is refused; a part of 8 or more documents that is\n"
        "                           refused a union closes: it takes in only parts of fewer than 8\n"
        "                           (default %zu)\n"
        "      --no-giant-guard     keep giant sets whole (report only)\n"
        "verification:\n"
        "      --verifier V         tlcs (trustable LCS, paper 002), signcd (paper 000), lsi (conceptual\n"
        "                           duplicates, paper 001's LSI), tlcs+lsi (TLCS decides textual\n"
        "                           duplicates, LSI adds conceptual ones; pairs.tsv names the rule),\n"
        "                           or a baseline: simhash (Hamming), minhash|jaccard (shingle Jaccard),\n"
        "                           spotsigs, qgram (doc_q), imatch (equal digest), cosine (TF-IDF)\n"
        "                           (default: tlcs; with --candidates M, M's own verifier)\n"
        "      --candidates C       sentence (paper 002 signatures, default), or a baseline's candidate\n"
        "                           generator: simhash (Manku tables), minhash (LSH bands), spotsigs,\n"
        "                           qgram (paper 003), imatch (one digest) - see docs/baselines.md.\n"
        "                           Baselines run as their papers describe: --min-link 1, no site or\n"
        "                           template rule (unless given explicitly)\n"
        "      --method-param N=V   a baseline parameter (e.g. simhash_k=3, bands=20, rows=5, jaccard=0.5,\n"
        "                           spot_tau=0.44, qgram_threshold=0.8, cosine=0.95); repeatable\n"
        "      --window N           sketch window in bytes (default %zu)\n"
        "      --slope F            slope threshold of the trustable region (default %.2f)\n"
        "      --resemblance F      duplicate when resemblance >= F ... (default %.2f)\n"
        "      --containment F      ... or containment >= F (default %.2f)\n"
        "      --max-d N            Myers cost limit (default: automatic, see docs/verify.md)\n"
        "      --max-iter N         iterative TLCS depth (default: the verifier's, 4)\n"
        "      --substitutions on|off  TLCS: small gaps that both sketches strained away at the same\n"
        "                           place (a rotating snippet, a changed word) do not break the\n"
        "                           trustable region (default on; off = paper 002's curve)\n"
        "      --formulaic on|off   TLCS: a duplicate whose regions hold other names and numbers\n"
        "                           (the same formula about another company or day) is rejected\n"
        "                           (default on; docs/verify.md)\n"
        "      --tau F              SigNCD: duplicate when SigNCD <= F (default %.2f)\n"
        "      --lsi-k N            LSI: concept dimensions of the truncated SVD (default %u)\n"
        "      --lsi-oversample N   LSI: extra random directions of the range finder (default %u)\n"
        "      --lsi-power N        LSI: power iterations (default %u)\n"
        "      --lsi-th1 F          LSI: textual gate, SimHash similarity 64 - Hamming >= F (default %.0f)\n"
        "      --lsi-th4 F          LSI: conceptual duplicate when the cosine of the fingerprints\n"
        "                           >= F (default %.2f)\n"
        "      --lsi-gate F         tlcs+lsi: LSI adds a pair only when its TLCS resemblance >= F\n"
        "                           (default %.2f)\n"
        "      --lsi-seed N         LSI: seed of the random test matrix and the LSH hyperplanes (default %llu)\n"
        "      --lsi-lsh BxR        LSI: cosine LSH candidate keys, B bands of R hyperplanes\n"
        "                           (default %ux%u; 0x0: none) - see docs/lsi.md\n"
        "      --verify-all         verify every candidate pair, also pairs already joined by\n"
        "                           verified edges (slower; exact threshold sweeps in ndd eval)\n",
        d.text.max_bytes, d.text.boilerplate ? "on" : "off", d.templates ? "on" : "off", d.tmpl.min_pages,
        d.tmpl.min_sites, d.tmpl.max_short, d.exact ? "on" : "off", d.sig.m, d.sig.n, d.sig.k, d.postings.max_docs,
        d.postings.max_share, d.postings.max_share_floor,
        d.postings.site_docs, d.postings.site_share, d.postings.site_top,
        d.postings.template_urls, d.postings.template_share, d.min_link_sigs, d.cand.per_doc, d.cand.list_cap,
        d.cand.all_pairs_upto, d.cand.min_shared, d.giant_set, d.window, d.slope, d.min_resemblance, d.min_containment, d.tau,
        d.lsi.k, d.lsi.oversample, d.lsi.power, d.lsi.th1, d.lsi.th4, d.lsi.gate, (unsigned long long)d.lsi.seed, d.lsi.lsh_bands, d.lsi.lsh_bits);
    run_help_tail();
}

enum {
    O_FORMAT = 1000, O_MAXDOC, O_BOILER, O_MAXLIST, O_SITELIST, O_SITESHARE, O_SITETOP, O_PERDOC, O_LISTCAP,
    O_ALLPAIRS, O_GIANT, O_VERIFIER, O_WINDOW, O_SLOPE, O_RES, O_CONT, O_MAXD, O_MAXITER, O_TAU, O_KEEP, O_DEDUP, O_VERIFYALL, O_TURLS, O_TSHARE, O_MAXSHARE, O_MAXFLOOR, O_MINLINK, O_NOGUARD, O_SOFTWRAP, O_WORKDIR, O_RESUME, O_STOPAFTER, O_MAPTASK, O_MAPTASKS, O_PROGRESS, O_CANDIDATES, O_MPARAM, O_MINSHARED, O_ENGINE,
    O_TEMPLATES, O_TPAGES, O_TSITES, O_TSHORT, O_SUBST, O_FORMULA, O_EXACT,
    O_LSIK, O_LSIOVER, O_LSIPOWER, O_LSITH1, O_LSITH4, O_LSILSH, O_LSIGATE, O_LSISEED,
    O_FID, O_FTEXT, O_FHTML, O_FURL, O_FDATE, O_ALLOWEMPTY, O_FORCE, O_CTYPES, O_URLINC, O_URLEXC, O_MEMRANK, O_INDEX
};

static const char *const run_cmd = "run";
/* The name of the option being parsed ("--tau", "-m"), set by parse(). */
static const char *run_optname = "";

/* The answer of an option family's helper (run_opt_*) for an option it does
 * not know; otherwise it answers 0 (handled) or NDD_EXIT_USAGE (after the
 * message). Each helper takes the option getopt_long just returned (optarg
 * its value, run_optname as the messages name it). */
enum { RUN_OPT_NOT_MINE = -2 };

/* What parse() remembers between options: the defaults that a baseline's
 * --candidates replaces unless the option was given. */
typedef struct run_given {
    int verifier, min_link, template_urls, site_list;
} run_given_t;

/* 1 for "on", 0 for "off", -1 for anything else. */
static int run_on_off(const char *s)
{
    if (!strcmp(s, "on"))
        return 1;
    if (!strcmp(s, "off"))
        return 0;
    return -1;
}

/* The value of the size option just read, or a usage error. */
static int run_opt_size(char **argv, size_t *z)
{
    (void)argv;
    if (ndd_cli_parse_size(optarg, z))
        return ndd_cli_usage_error(run_cmd, "%s takes a whole number >= 0 (K, M, G suffixes allowed), not '%s'",
                                   run_optname, optarg);
    return 0;
}

/* The value (lo..hi) of the whole-number option just read, or a usage error. */
static int run_opt_whole(char **argv, long lo, long hi, long *l)
{
    (void)argv;
    if (ndd_cli_parse_long(optarg, lo, hi, l))
        return ndd_cli_usage_error(run_cmd, "%s takes a whole number in %ld..%ld, not '%s'", run_optname, lo, hi,
                                   optarg);
    return 0;
}

/* The value (0..hi) of the number option just read, or a usage error. */
static int run_opt_number(char **argv, double hi, double *f)
{
    (void)argv;
    if (ndd_cli_parse_double(optarg, f) || !(*f >= 0 && *f <= hi))
        return ndd_cli_usage_error(run_cmd, "%s takes a number in [0, %g], not '%s'", run_optname, hi, optarg);
    return 0;
}

/* Input and text: -o, --format, --max-doc-bytes, --boilerplate, --soft-wrap,
 * the template pass. */
static int run_opt_input(int ch, char **argv, ndd_run_cfg_t *c)
{
    size_t z;
    long l;
    int v;
    switch (ch) {
    case 'o': c->outdir = optarg; return 0;
    case O_FORMAT:
        if (!strcmp(optarg, "jsonl")) c->format = NDD_FMT_JSONL;
        else if (!strcmp(optarg, "warc") || !strcmp(optarg, "wet")) c->format = NDD_FMT_WARC;
        else if (!strcmp(optarg, "text") || !strcmp(optarg, "txt")) c->format = NDD_FMT_TEXT;
        else if (!strcmp(optarg, "html")) c->format = NDD_FMT_HTML;
        else if (!strcmp(optarg, "auto")) c->format = NDD_FMT_AUTO;
        else return ndd_cli_usage_error(run_cmd, "unknown --format '%s' (jsonl, warc, text, html)", optarg);
        return 0;
    case O_MAXDOC:
        if (run_opt_size(argv, &z))
            return NDD_EXIT_USAGE;
        c->text.max_bytes = z;
        return 0;
    case O_BOILER:
        if ((v = run_on_off(optarg)) < 0)
            return ndd_cli_usage_error(run_cmd, "--boilerplate takes on or off");
        c->text.boilerplate = v;
        return 0;
    case O_SOFTWRAP:
        if ((v = run_on_off(optarg)) < 0)
            return ndd_cli_usage_error(run_cmd, "--soft-wrap takes on or off");
        c->text.soft_wrap = v;
        return 0;
    case O_TEMPLATES:
        if ((v = run_on_off(optarg)) < 0)
            return ndd_cli_usage_error(run_cmd, "--templates takes on or off");
        c->templates = v;
        return 0;
    case O_EXACT:
        if ((v = run_on_off(optarg)) < 0)
            return ndd_cli_usage_error(run_cmd, "--exact takes on or off");
        c->exact = v;
        return 0;
    case O_FID:
    case O_FTEXT:
    case O_FHTML:
    case O_FURL:
    case O_FDATE:
        if (ndd_fields_check(optarg))
            return ndd_cli_usage_error(run_cmd, "%s takes a field name or a dotted path such as metadata.url "
                                       "(1..%d non-empty names of at most 63 bytes), not '%s'", run_optname,
                                       NDD_FIELD_MAX_DEPTH, optarg);
        *(ch == O_FID ? &c->fields.id : ch == O_FTEXT ? &c->fields.text : ch == O_FHTML ? &c->fields.html
          : ch == O_FURL ? &c->fields.url : &c->fields.date) = optarg;
        return 0;
    case O_ALLOWEMPTY: c->allow_empty = 1; return 0;
    case O_TPAGES:
    case O_TSITES:
    case O_TSHORT:
        if (run_opt_whole(argv, ch == O_TSHORT ? 1 : 0, 1000000000L, &l))
            return NDD_EXIT_USAGE;
        *(ch == O_TPAGES ? &c->tmpl.min_pages : ch == O_TSITES ? &c->tmpl.min_sites : &c->tmpl.max_short) = (uint32_t)l;
        return 0;
    default: return RUN_OPT_NOT_MINE;
    }
}

/* Signatures and postings: -m, -n, -k and the frequent-signature filter. */
static int run_opt_sig(int ch, char **argv, ndd_run_cfg_t *c, run_given_t *g)
{
    long l;
    size_t z;
    double f;
    switch (ch) {
    case 'm':
    case 'n':
    case 'k':
        if (ndd_cli_parse_long(optarg, ch == 'k' ? 0 : 1, ch == 'n' ? 16 : 256, &l))
            return ndd_cli_usage_error(run_cmd, "-%c takes a whole number in %d..%d, not '%s'", ch, ch == 'k' ? 0 : 1,
                                       ch == 'n' ? 16 : 256, optarg);
        if (ch == 'm') c->sig.m = (unsigned)l;
        else if (ch == 'n') c->sig.n = (unsigned)l;
        else c->sig.k = (unsigned)l;
        return 0;
    case O_MAXLIST:
    case O_MAXFLOOR:
    case O_SITELIST:
    case O_TURLS:
        if (run_opt_size(argv, &z))
            return NDD_EXIT_USAGE;
        if (ch == O_MAXLIST) c->postings.max_docs = z;
        else if (ch == O_MAXFLOOR) c->postings.max_share_floor = z;
        else if (ch == O_SITELIST) {
            c->postings.site_docs = z;
            g->site_list = 1;
        } else {
            c->postings.template_urls = z;
            g->template_urls = 1;
        }
        return 0;
    case O_SITETOP:
        if (run_opt_whole(argv, 0, 1000000, &l))
            return NDD_EXIT_USAGE;
        c->postings.site_top = (unsigned)l;
        return 0;
    case O_MAXSHARE:
    case O_SITESHARE:
    case O_TSHARE:
        if (run_opt_number(argv, 1.0, &f))
            return NDD_EXIT_USAGE;
        if (ch == O_MAXSHARE) c->postings.max_share = f;
        else if (ch == O_SITESHARE) c->postings.site_share = f;
        else c->postings.template_share = f;
        return 0;
    default: return RUN_OPT_NOT_MINE;
    }
}

/* Perhaps-similar sets and candidate pairs. */
static int run_opt_sets(int ch, char **argv, ndd_run_cfg_t *c, run_given_t *g)
{
    long l;
    size_t z;
    switch (ch) {
    case O_MINLINK:
    case O_GIANT:
        if (run_opt_size(argv, &z))
            return NDD_EXIT_USAGE;
        if (ch == O_GIANT) {
            c->giant_set = z ? z : 1;
        } else {
            c->min_link_sigs = z ? z : 1;
            g->min_link = 1;
        }
        return 0;
    case O_PERDOC:
    case O_LISTCAP:
    case O_ALLPAIRS:
    case O_MINSHARED:
        if (run_opt_whole(argv, 0, 1000000, &l))
            return NDD_EXIT_USAGE;
        if (ch == O_PERDOC) c->cand.per_doc = (unsigned)l;
        else if (ch == O_LISTCAP) c->cand.list_cap = (unsigned)l;
        else if (ch == O_ALLPAIRS) c->cand.all_pairs_upto = (unsigned)l;
        else c->cand.min_shared = (unsigned)l;
        return 0;
    case O_NOGUARD: c->giant_guard = 0; return 0;
    default: return RUN_OPT_NOT_MINE;
    }
}

/* --verifier, --candidates and --method-param: which method runs. */
static int run_opt_method(int ch, ndd_run_cfg_t *c, run_given_t *g)
{
    ndd_method_t m;
    char name[64];
    const char *eq;
    switch (ch) {
    case O_VERIFIER:
        g->verifier = 1;
        if (!strcmp(optarg, "tlcs")) c->verifier = NDD_VERIFIER_TLCS;
        else if (!strcmp(optarg, "lsi")) c->verifier = NDD_VERIFIER_LSI;
        else if (!strcmp(optarg, "tlcs+lsi")) c->verifier = NDD_VERIFIER_TLCS_LSI;
        else if (!strcmp(optarg, "signcd")) c->verifier = NDD_VERIFIER_SIGNCD;
        else if (!strcmp(optarg, "jaccard")) {
            c->verifier = NDD_VERIFIER_METHOD;
            c->vmethod = NDD_METHOD_MINHASH;
        } else if (!ndd_method_parse(optarg, &m)) {
            c->verifier = NDD_VERIFIER_METHOD;
            c->vmethod = m;
        } else
            return ndd_cli_usage_error(run_cmd, "unknown --verifier '%s' (tlcs, signcd, lsi, tlcs+lsi, simhash, "
                                                "minhash, jaccard, spotsigs, qgram, imatch, cosine)", optarg);
        return 0;
    case O_CANDIDATES:
        if (!strcmp(optarg, "sentence")) c->candidates = 0;
        else if (!ndd_method_parse(optarg, &m) && m != NDD_METHOD_COSINE) c->candidates = (int)m;
        else return ndd_cli_usage_error(run_cmd, "unknown --candidates '%s' (sentence, simhash, minhash, spotsigs, "
                                                 "qgram, imatch)", optarg);
        return 0;
    case O_MPARAM:
        eq = strchr(optarg, '=');
        if (!eq || (size_t)(eq - optarg) >= sizeof name)
            return ndd_cli_usage_error(run_cmd, "--method-param takes NAME=VALUE (%s)", optarg);
        memcpy(name, optarg, (size_t)(eq - optarg));
        name[eq - optarg] = '\0';
        if (ndd_method_params_set(&c->mparams, name, eq + 1))
            return ndd_cli_usage_error(run_cmd, "unknown or malformed --method-param '%s'", optarg);
        return 0;
    default: return RUN_OPT_NOT_MINE;
    }
}

/* Verification: the method (run_opt_method), then its thresholds and limits. */
static int run_opt_verify(int ch, char **argv, ndd_run_cfg_t *c, run_given_t *g)
{
    long l;
    size_t z;
    double f;
    switch (ch) {
    case O_WINDOW:
    case O_MAXD:
        if (run_opt_size(argv, &z))
            return NDD_EXIT_USAGE;
        if (ch == O_WINDOW) {
            if (z < 1 || z > 4096)
                return ndd_cli_usage_error(run_cmd, "--window takes a whole number in 1..4096, not '%s'", optarg);
            c->window = z;
        } else c->max_d = z;
        return 0;
    case O_MAXITER:
        if (run_opt_whole(argv, 1, 16, &l))
            return NDD_EXIT_USAGE;
        c->max_iter = (unsigned)l;
        return 0;
    case O_SUBST:
    case O_FORMULA: {
        int v = run_on_off(optarg);
        if (v < 0)
            return ndd_cli_usage_error(run_cmd, "%s takes on or off, not '%s'", run_optname, optarg);
        *(ch == O_SUBST ? &c->subst : &c->formula) = v;
        return 0;
    }
    case O_SLOPE:
    case O_RES:
    case O_CONT:
    case O_TAU:
        if (run_opt_number(argv, ch == O_SLOPE ? 10.0 : 1.0, &f))
            return NDD_EXIT_USAGE;
        if (ch == O_SLOPE) c->slope = f;
        else if (ch == O_RES) c->min_resemblance = f;
        else if (ch == O_CONT) c->min_containment = f;
        else c->tau = f;
        return 0;
    case O_VERIFYALL: c->verify_all = 1; return 0;
    case O_LSIK:
    case O_LSIOVER:
    case O_LSIPOWER:
        if (run_opt_whole(argv, ch == O_LSIK ? 1 : 0, ch == O_LSIPOWER ? 16 : 4096, &l))
            return NDD_EXIT_USAGE;
        *(ch == O_LSIK ? &c->lsi.k : ch == O_LSIOVER ? &c->lsi.oversample : &c->lsi.power) = (unsigned)l;
        return 0;
    case O_LSISEED:
        if (run_opt_whole(argv, 0, 2147483647L, &l))
            return NDD_EXIT_USAGE;
        c->lsi.seed = (uint64_t)l;
        return 0;
    case O_LSITH1:
        if (run_opt_number(argv, 64.0, &f))
            return NDD_EXIT_USAGE;
        c->lsi.th1 = f;
        return 0;
    case O_LSITH4:
    case O_LSIGATE:
        if (run_opt_number(argv, 1.0, &f))
            return NDD_EXIT_USAGE;
        *(ch == O_LSITH4 ? &c->lsi.th4 : &c->lsi.gate) = f;
        return 0;
    case O_LSILSH: {
        unsigned b, r;
        char tail;
        if (sscanf(optarg, "%ux%u%c", &b, &r, &tail) != 2 || b > 256 || (b && (r < 1 || r > 64)) || (!b && r))
            return ndd_cli_usage_error(run_cmd, "--lsi-lsh takes BxR: 1..256 bands of 1..64 hyperplanes, or 0x0 (%s)",
                                       optarg);
        c->lsi.lsh_bands = b;
        c->lsi.lsh_bits = b ? r : 1;
        return 0;
    }
    default: return run_opt_method(ch, c, g);
    }
}

/* Checkpoints: --work-dir, --resume, --stop-after, --map-task(s). */
static int run_opt_ckpt(int ch, char **argv, ndd_run_cfg_t *c)
{
    long l;
    switch (ch) {
    case O_WORKDIR: c->work_dir = optarg; return 0;
    case O_MEMRANK: {
        size_t z;
        if (ndd_cli_parse_size(optarg, &z) || z < ((size_t)1 << 20))
            return ndd_cli_usage_error(run_cmd, "--mem-per-rank takes a size of at least 1M (K, M, G, T suffixes), "
                                       "not '%s'", optarg);
        c->mem_per_rank = z;
        return 0;
    }
    case O_INDEX: c->index_dir = optarg; return 0;
    case O_RESUME: c->resume = optarg; return 0;
    case O_STOPAFTER:
        if (strcmp(optarg, "verify"))
            return ndd_cli_usage_error(run_cmd, "--stop-after takes 'verify'");
        c->stop_after_verify = 1;
        return 0;
    case O_MAPTASK:
    case O_MAPTASKS:
        if (ndd_cli_parse_long(optarg, ch == O_MAPTASK ? 0 : 1, 1000000, &l))
            return ndd_cli_usage_error(run_cmd, "%s takes a whole number in %d..1000000, not '%s'", run_optname,
                                       ch == O_MAPTASK ? 0 : 1, optarg);
        if (ch == O_MAPTASK) c->map_task = (int)l;
        else c->map_tasks = (int)l;
        return 0;
    default: return RUN_OPT_NOT_MINE;
    }
}

/* Output and engine: --keep, --write-dedup, --progress, --engine, -q, -v. */
static int run_opt_output(int ch, run_opts_t *o)
{
    ndd_run_cfg_t *c = &o->cfg;
    double f;
    switch (ch) {
    case O_KEEP:
        if (!strcmp(optarg, "longest")) c->keep = NDD_KEEP_LONGEST;
        else if (!strcmp(optarg, "first")) c->keep = NDD_KEEP_FIRST;
        else if (!strcmp(optarg, "newest")) c->keep = NDD_KEEP_NEWEST;
        else if (!strcmp(optarg, "oldest")) c->keep = NDD_KEEP_OLDEST;
        else return ndd_cli_usage_error(run_cmd, "--keep takes longest, first, newest or oldest, not '%s'", optarg);
        return 0;
    case O_DEDUP: c->write_dedup = optarg; return 0;
    case O_PROGRESS:
        if (ndd_cli_parse_double(optarg, &f) || !(f >= 0 && f <= 86400))
            return ndd_cli_usage_error(run_cmd, "--progress takes seconds in [0, 86400], not '%s'", optarg);
        c->progress = f;
        return 0;
    case O_ENGINE:
        if (ndd_cli_engine_parse(optarg, &o->engine))
            return ndd_cli_usage_error(run_cmd, "--engine takes mpi, local or local:P with P in 1..%d (%s)",
                                       NDD_LOCAL_MAX_RANKS, optarg);
        return 0;
    case O_FORCE: o->force = 1; return 0;
    case O_CTYPES:
    case O_URLINC:
    case O_URLEXC:
        return ndd_cli_archive_opt(run_cmd, run_optname,
                                   ch == O_CTYPES   ? NDD_CLI_CTYPES
                                   : ch == O_URLINC ? NDD_CLI_URL_INCLUDE
                                                    : NDD_CLI_URL_EXCLUDE,
                                   optarg, &o->archive);
    case 'q': o->quiet = 1; return 0;
    case 'v': o->log.level = 2; return 0;
    default: return RUN_OPT_NOT_MINE;
    }
}

/* One option through the families in turn: 0, NDD_EXIT_USAGE or RUN_OPT_NOT_MINE. */
static int run_opt(int ch, char **argv, run_opts_t *o, run_given_t *g)
{
    ndd_run_cfg_t *c = &o->cfg;
    int rc = run_opt_input(ch, argv, c);
    if (rc == RUN_OPT_NOT_MINE)
        rc = run_opt_sig(ch, argv, c, g);
    if (rc == RUN_OPT_NOT_MINE)
        rc = run_opt_sets(ch, argv, c, g);
    if (rc == RUN_OPT_NOT_MINE)
        rc = run_opt_verify(ch, argv, c, g);
    if (rc == RUN_OPT_NOT_MINE)
        rc = run_opt_ckpt(ch, argv, c);
    if (rc == RUN_OPT_NOT_MINE)
        rc = run_opt_output(ch, o);
    return rc;
}

/* A baseline runs as its paper describes: pairs sharing one key are
 * candidates, with its own verifier, unless the options say otherwise. */
static void run_baseline_defaults(ndd_run_cfg_t *c, const run_given_t *g)
{
    if (!c->candidates)
        return;
    if (!g->verifier) {
        c->verifier = NDD_VERIFIER_METHOD;
        c->vmethod = ndd_method_default_verifier((ndd_method_t)c->candidates);
    }
    if (!g->min_link)
        c->min_link_sigs = 1;
    if (!g->template_urls)
        c->postings.template_urls = 0;
    if (!g->site_list)
        c->postings.site_docs = SIZE_MAX;
}

/* What identifies a command: the hash of its arguments, as 16 hex digits
 * (an interrupted run's default work directory is resumed by the same
 * command). */
static void command_key(int argc, char **argv, char key[40])
{
    XXH3_state_t *x = XXH3_createState();
    key[0] = '\0';
    if (!x)
        return;
    XXH3_64bits_reset(x);
    for (int i = 0; i < argc; i++)
        XXH3_64bits_update(x, argv[i], strlen(argv[i]) + 1);
    snprintf(key, 40, "%016llx", (unsigned long long)XXH3_64bits_digest(x));
    XXH3_freeState(x);
}

/* 1 when DIR/.ndd-work holds a run of this very command (its manifest's
 * command key): the files beside it are that run's outputs, written before
 * it was stopped, which its resume writes again. */
static int outdir_of_this_command(const char *dir, int argc, char **argv)
{
    char wd[4096], key[40];
    ndd_manifest_t m;
    if (snprintf(wd, sizeof wd, "%s/.ndd-work", dir) >= (int)sizeof wd)
        return 0;
    command_key(argc, argv, key);
    memset(&m, 0, sizeof m);
    if (!key[0] || ndd_ckpt_manifest_read(wd, &m) != NDD_OK)
        return 0;
    const char *was = ndd_ckpt_manifest_opt(&m, "command");
    int same = was && !strcmp(was, key);
    ndd_ckpt_manifest_free(&m);
    return same;
}

/* An output directory that holds anything but ndd's own work directory
 * (.ndd-work) or the --write-dedup file is refused without --force: a run
 * would overwrite its files and mix its outputs with others. Not when the
 * work directory is an interrupted run of this same command (stopped while
 * it wrote its outputs, or before an --index batch landed): running the
 * command again resumes it and writes them again. */
static int run_check_outdir(const run_opts_t *o, int argc, char **argv)
{
    const char *dir = o->cfg.outdir, *dd = o->cfg.write_dedup, *base = NULL;
    struct stat st;
    if (!dir || o->force || stat(dir, &st) != 0)
        return 0;
    if (!S_ISDIR(st.st_mode))
        return ndd_cli_usage_error(run_cmd, "-o %s exists and is not a directory", dir);
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* the run says why it cannot write there */
    if (dd) { /* the --write-dedup file inside DIR */
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
            n--;
        if (!strncmp(dd, dir, n) && dd[n] == '/' && !strchr(dd + n + 1, '/'))
            base = dd + n + 1;
    }
    char first[256] = "";
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".ndd-work") ||
            (base && !strcmp(e->d_name, base)))
            continue;
        snprintf(first, sizeof first, "%s", e->d_name);
        break;
    }
    closedir(d);
    if (!first[0] || outdir_of_this_command(dir, argc, argv))
        return 0;
    return ndd_cli_usage_error(run_cmd, "output directory %s is not empty (it holds %s): give another -o DIR, or "
                               "--force to write over it", dir, first);
}

/* After the options: the combinations, and the inputs (argv[optind..]). */
static int run_check(int argc, char **argv, run_opts_t *o)
{
    ndd_run_cfg_t *c = &o->cfg;
    if (c->map_tasks || c->map_task) {
        if (!c->map_tasks || c->map_task >= c->map_tasks)
            return ndd_cli_usage_error(run_cmd, "--map-task I needs --map-tasks N with 0 <= I < N");
        if (!c->work_dir)
            return ndd_cli_usage_error(run_cmd, "--map-task needs --work-dir WORK");
        if (c->resume || c->outdir)
            return ndd_cli_usage_error(run_cmd, "--map-task writes only WORK: no -o, no --resume");
        if (o->engine.given)
            return ndd_cli_usage_error(run_cmd, "--map-task runs one task in this process: no --engine");
    } else if (!c->outdir && !(c->stop_after_verify && (c->resume || c->work_dir))) {
        return ndd_cli_usage_error(run_cmd, "-o DIR is required");
    }
    if (c->index_dir && (c->resume || c->work_dir || c->stop_after_verify || c->map_tasks))
        return ndd_cli_usage_error(run_cmd, "--index adds a batch in one run: no --resume, --work-dir, --stop-after or "
                                   "--map-task (an interrupted batch resumes when the same command runs again)");
    if (c->index_dir && c->write_dedup)
        return ndd_cli_usage_error(run_cmd, "--index and --write-dedup: the deduplicated corpus would need the earlier "
                                   "batches' inputs again; not supported");
    if (c->index_dir && strchr(c->index_dir, '\n'))
        return ndd_cli_usage_error(run_cmd, "--index DIR: a directory name with a newline is not supported");
    if (c->stop_after_verify && !c->resume && !c->work_dir)
        return ndd_cli_usage_error(run_cmd, "--stop-after needs --work-dir or --resume (else nothing is kept)");
    if (c->resume && c->work_dir)
        return ndd_cli_usage_error(run_cmd, "--resume WORK continues WORK: do not also give --work-dir");
    if (run_check_outdir(o, argc, argv))
        return NDD_EXIT_USAGE;
    if (c->resume) {
        if (optind < argc)
            return ndd_cli_usage_error(run_cmd, "--resume takes its inputs from WORK/manifest: give no INPUT");
        c->inputs = NULL;
        c->ninputs = 0;
        return ndd_cli_engine_check(run_cmd, &o->engine);
    }
    if (optind >= argc)
        return ndd_cli_usage_error(run_cmd, "no INPUT given");
    if (ndd_sig_params_check(&c->sig))
        return ndd_cli_usage_error(run_cmd, "invalid signature parameters (-m %u -n %u -k %u)", c->sig.m, c->sig.n,
                                   c->sig.k);
    c->inputs = (const char *const *)(argv + optind);
    c->ninputs = (size_t)(argc - optind);
    return ndd_cli_engine_check(run_cmd, &o->engine);
}

/* --index: the options that decide results go into o->index_opts as given
 * (canonical names, in order); those that do not (where the outputs and
 * checkpoints go, the engine, messages) are left out. */
static int run_note_opt(run_opts_t *o, int ch)
{
    static const int skip[] = {'o', 'q', 'v', O_ENGINE, O_PROGRESS, O_FORCE, O_WORKDIR, O_RESUME, O_STOPAFTER,
                               O_MAPTASK, O_MAPTASKS, O_INDEX, O_ALLOWEMPTY, O_DEDUP, O_MEMRANK};
    for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
        if (ch == skip[i])
            return 0;
    if (o->index_opts.len && ndd_buf_putc(&o->index_opts, ' '))
        return NDD_EXIT_RUNTIME;
    if (ndd_buf_puts(&o->index_opts, run_optname) ||
        (optarg && (ndd_buf_putc(&o->index_opts, ' ') || ndd_buf_puts(&o->index_opts, optarg))))
        return NDD_EXIT_RUNTIME;
    return 0;
}

/* 0 ok, -1 --help shown, else an exit code (NDD_EXIT_USAGE). */
static int parse(int argc, char **argv, run_opts_t *o)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},       {"format", required_argument, 0, O_FORMAT},
        {"max-doc-bytes", required_argument, 0, O_MAXDOC}, {"boilerplate", required_argument, 0, O_BOILER},
        {"max-list", required_argument, 0, O_MAXLIST}, {"site-list", required_argument, 0, O_SITELIST},
        {"site-share", required_argument, 0, O_SITESHARE}, {"site-top", required_argument, 0, O_SITETOP},
        {"per-doc", required_argument, 0, O_PERDOC},  {"list-cap", required_argument, 0, O_LISTCAP},
        {"all-pairs-upto", required_argument, 0, O_ALLPAIRS}, {"min-shared", required_argument, 0, O_MINSHARED}, {"giant", required_argument, 0, O_GIANT},
        {"verifier", required_argument, 0, O_VERIFIER}, {"window", required_argument, 0, O_WINDOW},
        {"slope", required_argument, 0, O_SLOPE},     {"resemblance", required_argument, 0, O_RES},
        {"containment", required_argument, 0, O_CONT}, {"max-d", required_argument, 0, O_MAXD},
        {"max-iter", required_argument, 0, O_MAXITER}, {"tau", required_argument, 0, O_TAU},
        {"keep", required_argument, 0, O_KEEP},       {"write-dedup", required_argument, 0, O_DEDUP},
        {"verify-all", no_argument, 0, O_VERIFYALL},
        {"template-urls", required_argument, 0, O_TURLS}, {"template-share", required_argument, 0, O_TSHARE},
        {"max-share", required_argument, 0, O_MAXSHARE}, {"max-share-floor", required_argument, 0, O_MAXFLOOR},
        {"min-link", required_argument, 0, O_MINLINK}, {"no-giant-guard", no_argument, 0, O_NOGUARD},
        {"soft-wrap", required_argument, 0, O_SOFTWRAP}, {"templates", required_argument, 0, O_TEMPLATES},
        {"exact", required_argument, 0, O_EXACT},
        {"template-pages", required_argument, 0, O_TPAGES}, {"template-sites", required_argument, 0, O_TSITES},
        {"template-short", required_argument, 0, O_TSHORT}, {"substitutions", required_argument, 0, O_SUBST},
        {"formulaic", required_argument, 0, O_FORMULA},
        {"lsi-k", required_argument, 0, O_LSIK}, {"lsi-oversample", required_argument, 0, O_LSIOVER},
        {"lsi-power", required_argument, 0, O_LSIPOWER}, {"lsi-th1", required_argument, 0, O_LSITH1},
        {"lsi-th4", required_argument, 0, O_LSITH4}, {"lsi-gate", required_argument, 0, O_LSIGATE},
        {"lsi-seed", required_argument, 0, O_LSISEED}, {"lsi-lsh", required_argument, 0, O_LSILSH},
        {"work-dir", required_argument, 0, O_WORKDIR}, {"mem-per-rank", required_argument, 0, O_MEMRANK}, {"resume", required_argument, 0, O_RESUME},
        {"stop-after", required_argument, 0, O_STOPAFTER}, {"map-task", required_argument, 0, O_MAPTASK},
        {"map-tasks", required_argument, 0, O_MAPTASKS}, {"progress", required_argument, 0, O_PROGRESS},
        {"candidates", required_argument, 0, O_CANDIDATES}, {"method-param", required_argument, 0, O_MPARAM},
        {"engine", required_argument, 0, O_ENGINE},
        {"id-field", required_argument, 0, O_FID},    {"text-field", required_argument, 0, O_FTEXT},
        {"html-field", required_argument, 0, O_FHTML}, {"url-field", required_argument, 0, O_FURL},
        {"date-field", required_argument, 0, O_FDATE}, {"allow-empty", no_argument, 0, O_ALLOWEMPTY},
        {"force", no_argument, 0, O_FORCE},
        {"content-types", required_argument, 0, O_CTYPES}, {"url-include", required_argument, 0, O_URLINC},
        {"url-exclude", required_argument, 0, O_URLEXC}, {"index", required_argument, 0, O_INDEX},
        {"quiet", no_argument, 0, 'q'},               {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},                {0, 0, 0, 0}};
    run_given_t given = {0, 0, 0, 0};
    int ch, rc, longidx;
    optind = 1;
    opterr = 0;
    while ((longidx = -1, ch = getopt_long(argc, argv, "o:m:n:k:qvh", opts, &longidx)) != -1) {
        run_optname = ndd_cli_optname(opts, longidx, ch);
        if (ch == 'h') {
            run_help();
            return -1;
        }
        rc = run_opt(ch, argv, o, &given); /* '?': nobody's */
        if (rc == RUN_OPT_NOT_MINE) {
            if (optopt)
                return ndd_cli_usage_error(run_cmd, "option -%c is unknown or lacks its value", optopt);
            return ndd_cli_usage_error(run_cmd, "unknown option '%s'", argv[optind - 1]);
        }
        if (rc)
            return rc;
        if ((rc = run_note_opt(o, ch)))
            return rc;
    }
    if (o->archive.types)
        o->cfg.content_types = o->archive.types;
    if (o->archive.inc.len)
        o->cfg.url_include = ndd_cli_archive_include(&o->archive);
    if (o->archive.exc_given)
        o->cfg.url_exclude = ndd_cli_archive_exclude(&o->archive);
    if (ndd_method_params_check(&o->cfg.mparams))
        return ndd_cli_usage_error(run_cmd, "a --method-param value is out of range (see docs/baselines.md)");
    run_baseline_defaults(&o->cfg, &given);
    return run_check(argc, argv, o);
}

/* Collective on comm: the job, then its summary or its failure from rank 0. */
static int run_job(ndd_comm_t *comm, void *arg)
{
    const run_opts_t *o = arg;
    const ndd_run_cfg_t *c = &o->cfg;
    ndd_run_summary_t sum;
    memset(&sum, 0, sizeof sum);
    int rc = ndd_run(comm, c, &sum);
    if (comm->rank != 0)
        return rc;
    if (rc) {
        if (c->map_tasks)
            fprintf(stderr, "ndd run: map task %d failed: %s\n", c->map_task, ndd_strerror(rc));
        else
            fprintf(stderr, "ndd run: failed: %s\n", ndd_strerror(rc));
        return rc;
    }
    if (o->quiet)
        return rc;
    if (c->map_tasks && sum.map_already_done) {
        printf("ndd run: map task %d of %d already complete (%llu documents)\n", c->map_task, c->map_tasks,
               (unsigned long long)sum.docs);
    } else if (c->map_tasks) {
        printf("ndd run: map task %d of %d: %llu documents, %llu rejected -> %s/map\n", c->map_task, c->map_tasks,
               (unsigned long long)sum.docs, (unsigned long long)sum.rejected, c->work_dir);
    } else if (sum.stopped_after_verify) {
        printf("ndd run: stopped after verification; continue with: ndd run --resume %s -o DIR\n", sum.work_dir);
    } else {
        printf("ndd run: %llu documents (%llu rejected) in %.2f s on %d rank%s\n", (unsigned long long)sum.docs,
               (unsigned long long)sum.rejected, sum.wall, sum.ranks, sum.ranks > 1 ? "s" : "");
        printf("ndd run: %llu perhaps-similar sets, %llu candidate pairs, %llu accepted\n",
               (unsigned long long)sum.sets, (unsigned long long)sum.cand_pairs, (unsigned long long)sum.accepted);
        printf("ndd run: %llu clusters holding %llu documents; %llu duplicates removed (%.2f %%: %llu exact, "
               "%llu near)\n",
               (unsigned long long)sum.clusters, (unsigned long long)sum.docs_in_clusters,
               (unsigned long long)sum.removed, sum.docs ? 100.0 * (double)sum.removed / (double)sum.docs : 0.0,
               (unsigned long long)sum.removed_exact, (unsigned long long)(sum.removed - sum.removed_exact));
        if (c->index_dir)
            printf("ndd run: batch %llu added to index %s (%llu new documents; the outputs cover all %llu)\n",
                   (unsigned long long)sum.index_batch, c->index_dir, (unsigned long long)sum.index_docs_new,
                   (unsigned long long)sum.docs);
    }
    if (fflush(stdout)) {
        fprintf(stderr, "ndd run: cannot write the summary: %s\n", ndd_strerror(NDD_ERR_IO));
        rc = NDD_ERR_IO;
    }
    return rc;
}

int ndd_cmd_run(int argc, char **argv)
{
    run_opts_t o;
    memset(&o, 0, sizeof o);
    ndd_run_cfg_default(&o.cfg);
    o.log.level = 1;
    int prc = parse(argc, argv, &o);
    if (prc) {
        ndd_cli_archive_free(&o.archive);
        ndd_buf_free(&o.index_opts);
        return prc < 0 ? NDD_EXIT_OK : prc; /* -1: --help */
    }
    /* what identifies this command: its arguments (an interrupted run's
     * default work directory is resumed by the same command) */
    char key[40];
    command_key(argc, argv, key);
    if (key[0])
        o.cfg.command = key;
    if (o.cfg.index_dir) {
        if (strchr(o.index_opts.data ? o.index_opts.data : "", '\n')) {
            ndd_buf_free(&o.index_opts);
            ndd_cli_archive_free(&o.archive);
            return ndd_cli_usage_error(run_cmd, "--index: an option value with a newline is not supported");
        }
        o.cfg.index_opts = o.index_opts.data ? o.index_opts.data : "";
    }
    o.cfg.argv = (const char *const *)argv; /* "ndd" is not in it: argv[0] is "run" */
    o.cfg.argc = (size_t)argc;
    o.cfg.log = ndd_cli_log;
    o.cfg.log_user = &o.log;
    o.cfg.progress_fn = o.cfg.progress > 0 ? ndd_cli_progress : NULL;
    static int with_dedup;
    with_dedup = o.cfg.write_dedup != NULL;
    o.cfg.progress_user = &with_dedup;
    if (o.cfg.map_tasks) { /* one map task: one rank in this process, no MPI */
        o.engine.kind = NDD_ENGINE_LOCAL;
        o.engine.ranks = 1;
    }
    int rc = ndd_cli_engine_run(&o.engine, "run", &argc, &argv, run_job, &o) ? NDD_EXIT_RUNTIME : NDD_EXIT_OK;
    ndd_cli_archive_free(&o.archive);
    ndd_buf_free(&o.index_opts);
    return rc;
}

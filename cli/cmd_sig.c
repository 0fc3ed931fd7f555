/* cmd_sig.c - 'ndd sig': read documents and print their paper-002 signatures.
 *
 * Runs on an engine (--engine: MPI ranks, or threads of this process): ranks
 * take whole input files, balanced by bytes (deterministic), compute, send
 * their output to rank 0 (one exchange), and rank 0 writes every file's
 * output in file order, so that the output is byte-identical for any rank
 * count. An inspection command: each rank keeps its formatted output in
 * memory until the gather. */
#include "ndd_cli.h"
#include "ndd_comm.h"
#include "ndd_reader.h"
#include "ndd_sig.h"
#include "ndd_text.h"
#include "ndd_util.h"
#include "ndd_wire.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int json;
    ndd_format_t format;
    ndd_sig_params_t sig;
    ndd_text_opts_t text;
    const char *rejects;
    const char *output;
    const char *const *inputs;
    size_t ninputs;
    ndd_cli_engine_t engine;
} sig_cfg_t;

static void sig_help(void)
{
    ndd_sig_params_t p;
    ndd_text_opts_t t;
    ndd_sig_params_default(&p);
    ndd_text_opts_default(&t);
    printf("usage: [mpirun -n P] ndd sig [options] INPUT...\n"
           "       ndd sig --engine local[:P] [options] INPUT...\n"
           "\n"
           "Reads documents and prints their paper-002 signatures: MD5 of every sentence\n"
           "of at least %zu bytes, 16 ring rotations of the digest, m residue classes x n\n"
           "rotations, the k smallest fingerprints of each class projected with weights\n"
           "w = 1 + ln(sentence bytes) -> up to m*n 128-bit signatures per document.\n"
           "INPUT: JSONL (.jsonl, .jsonl.gz, .jsonl.zst), WARC/WET (.warc, .warc.gz,\n"
           ".wet.gz) or directories of .txt/.html files. The output follows the input\n"
           "order (file, then record) and is identical for any number of ranks.\n"
           "\n"
           "options:\n"
           "      --json               one JSON object per document and line (default: text lines)\n"
           "      --format F           force the input format: jsonl|warc|text|html|auto (default auto)\n"
           "  -m M                     residue classes, 1..%d (default %u)\n"
           "  -n N                     ring rotations, 1..16 (default %u); m*n <= %d\n"
           "  -k K                     smallest fingerprints per class, 0 = all, max %d (default %u)\n"
           "      --max-doc-bytes B    keep the first B bytes of visible text, 0 = all (default %zu)\n"
           "      --boilerplate on|off drop navigation/footer/link-list markup first (default %s)\n"
           "      --rejects FILE       write rejected records as TSV (file, record, offset, reason)\n"
           "  -o, --output FILE        write to FILE instead of standard output\n"
           NDD_CLI_ENGINE_HELP
           "  -h, --help               this text\n"
           "\n"
           "Text output, per document:\n"
           "  doc id=ID url=URL file=NAME offset=BYTES sentences=S W=W\n"
           "  sig SLOT r=ROTATION c=CLASS HEX32    (W lines; SLOT = ROTATION*m + CLASS)\n"
           "JSON output: {\"id\",\"url\",\"file\",\"offset\",\"sentences\",\"W\",\n"
           "  \"signatures\":[{\"slot\",\"r\",\"c\",\"bits\",\"key\"}]}  (key: the 64-bit posting key, hex)\n"
           "A summary goes to standard error.\n"
           "Exit codes: 0 ok, 1 runtime error on any rank, 2 bad usage.\n",
           p.min_sentence, NDD_SIG_MAX, p.m, p.n, NDD_SIG_MAX, NDD_SIG_K_MAX, p.k, t.max_bytes,
           NDD_SIG_DEFAULT_BOILERPLATE ? "on" : "off");
}

enum { O_JSON = 1000, O_FORMAT, O_MAXDOC, O_BOILER, O_REJECTS, O_ENGINE };

/* 0 ok, -1 --help shown, else an exit code */
static int sig_parse(int argc, char **argv, sig_cfg_t *c)
{
    static const struct option opts[] = {
        {"json", no_argument, 0, O_JSON},
        {"format", required_argument, 0, O_FORMAT},
        {"max-doc-bytes", required_argument, 0, O_MAXDOC},
        {"boilerplate", required_argument, 0, O_BOILER},
        {"rejects", required_argument, 0, O_REJECTS},
        {"output", required_argument, 0, 'o'},
        {"engine", required_argument, 0, O_ENGINE},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *cmd = "sig";
    int ch;
    long l;
    size_t z;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, ":m:n:k:o:h", opts, NULL)) != -1) {
        switch (ch) {
        case 'h':
            sig_help();
            return -1;
        case O_JSON:
            c->json = 1;
            break;
        case 'o':
            c->output = optarg;
            break;
        case O_REJECTS:
            c->rejects = optarg;
            break;
        case O_ENGINE:
            if (ndd_cli_engine_parse(optarg, &c->engine))
                return ndd_cli_usage_error(cmd, "--engine takes mpi, local or local:P with P in 1..%d ('%s')",
                                           NDD_LOCAL_MAX_RANKS, optarg);
            break;
        case 'm':
        case 'n':
        case 'k': {
            long lo = ch == 'k' ? 0 : 1;
            long hi = ch == 'm' ? NDD_SIG_MAX : ch == 'n' ? 16 : NDD_SIG_K_MAX;
            if (ndd_cli_parse_long(optarg, lo, hi, &l))
                return ndd_cli_usage_error(cmd, "-%c takes a whole number %ld..%ld ('%s')", ch, lo, hi, optarg);
            if (ch == 'm')
                c->sig.m = (unsigned)l;
            else if (ch == 'n')
                c->sig.n = (unsigned)l;
            else
                c->sig.k = (unsigned)l;
            break;
        }
        case O_FORMAT:
            if (!strcmp(optarg, "jsonl"))
                c->format = NDD_FMT_JSONL;
            else if (!strcmp(optarg, "warc") || !strcmp(optarg, "wet"))
                c->format = NDD_FMT_WARC;
            else if (!strcmp(optarg, "text") || !strcmp(optarg, "txt"))
                c->format = NDD_FMT_TEXT;
            else if (!strcmp(optarg, "html"))
                c->format = NDD_FMT_HTML;
            else if (!strcmp(optarg, "auto"))
                c->format = NDD_FMT_AUTO;
            else
                return ndd_cli_usage_error(cmd, "unknown --format '%s' (jsonl, warc, text, html, auto)", optarg);
            break;
        case O_MAXDOC:
            if (ndd_cli_parse_size(optarg, &z))
                return ndd_cli_usage_error(cmd, "--max-doc-bytes takes a size ('%s')", optarg);
            c->text.max_bytes = z;
            break;
        case O_BOILER:
            if (!strcmp(optarg, "on"))
                c->text.boilerplate = 1;
            else if (!strcmp(optarg, "off"))
                c->text.boilerplate = 0;
            else
                return ndd_cli_usage_error(cmd, "--boilerplate takes on or off ('%s')", optarg);
            break;
        case ':':
            return ndd_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        case '?':
        default:
            if (optopt)
                return ndd_cli_usage_error(cmd, "unknown option '-%c'", optopt);
            return ndd_cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return ndd_cli_usage_error(cmd, "no INPUT given");
    if (ndd_sig_params_check(&c->sig))
        return ndd_cli_usage_error(cmd, "m*n must be at most %d (-m %u -n %u)", NDD_SIG_MAX, c->sig.m, c->sig.n);
    c->inputs = (const char *const *)(argv + optind);
    c->ninputs = (size_t)(argc - optind);
    return ndd_cli_engine_check(cmd, &c->engine);
}

/* ---- per-rank work ---- */

typedef struct {
    ndd_buf_t out;  /* this file's formatted documents */
    ndd_buf_t rej;  /* this file's reject lines */
    uint64_t rejected;
} sig_file_t;

typedef struct {
    uint64_t docs, rejected, nosig, sigs, bytes;
} sig_counts_t;

static void sig_on_reject(void *user, const ndd_reject_t *rej)
{
    sig_file_t *f = user;
    char num[64];
    ndd_tsv_append_field(&f->rej, rej->file, strlen(rej->file));
    if (rej->ordinal == UINT64_MAX)
        snprintf(num, sizeof num, "\t-\t%llu\t", (unsigned long long)rej->offset);
    else
        snprintf(num, sizeof num, "\t%llu\t%llu\t", (unsigned long long)rej->ordinal,
                 (unsigned long long)rej->offset);
    ndd_buf_puts(&f->rej, num);
    ndd_tsv_append_field(&f->rej, rej->reason, strlen(rej->reason));
    ndd_buf_putc(&f->rej, '\n');
    f->rejected++;
}

static void hex_bits(const uint8_t b[16], char out[33])
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hx[b[i] >> 4];
        out[2 * i + 1] = hx[b[i] & 15];
    }
    out[32] = '\0';
}

static int sig_format_doc(ndd_buf_t *b, const sig_cfg_t *c, const ndd_input_t *in, const ndd_doc_t *d,
                          size_t nsent, const ndd_sig_t *s, size_t ns)
{
    char num[160], hex[33];
    int rc = 0;
    const char *url = d->url ? d->url : "";
    if (c->json) {
        rc |= ndd_buf_puts(b, "{\"id\":");
        rc |= ndd_json_append_string(b, d->id, strlen(d->id));
        rc |= ndd_buf_puts(b, ",\"url\":");
        rc |= ndd_json_append_string(b, url, strlen(url));
        rc |= ndd_buf_puts(b, ",\"file\":");
        rc |= ndd_json_append_string(b, in->name, strlen(in->name));
        snprintf(num, sizeof num, ",\"offset\":%llu,\"sentences\":%zu,\"W\":%zu,\"signatures\":[",
                 (unsigned long long)d->offset, nsent, ns);
        rc |= ndd_buf_puts(b, num);
        for (size_t i = 0; i < ns; i++) {
            hex_bits(s[i].bits, hex);
            snprintf(num, sizeof num, "%s{\"slot\":%u,\"r\":%u,\"c\":%u,\"bits\":\"%s\",\"key\":\"%016llx\"}",
                     i ? "," : "", (unsigned)s[i].slot, (unsigned)s[i].slot / c->sig.m,
                     (unsigned)s[i].slot % c->sig.m, hex, (unsigned long long)ndd_sig_key(&s[i]));
            rc |= ndd_buf_puts(b, num);
        }
        rc |= ndd_buf_puts(b, "]}\n");
    } else {
        rc |= ndd_buf_puts(b, "doc id=");
        rc |= ndd_tsv_append_field(b, d->id, strlen(d->id));
        rc |= ndd_buf_puts(b, " url=");
        if (*url)
            rc |= ndd_tsv_append_field(b, url, strlen(url));
        else
            rc |= ndd_buf_putc(b, '-');
        rc |= ndd_buf_puts(b, " file=");
        rc |= ndd_tsv_append_field(b, in->name, strlen(in->name));
        snprintf(num, sizeof num, " offset=%llu sentences=%zu W=%zu\n", (unsigned long long)d->offset, nsent, ns);
        rc |= ndd_buf_puts(b, num);
        for (size_t i = 0; i < ns; i++) {
            hex_bits(s[i].bits, hex);
            snprintf(num, sizeof num, "sig %u r=%u c=%u %s\n", (unsigned)s[i].slot,
                     (unsigned)s[i].slot / c->sig.m, (unsigned)s[i].slot % c->sig.m, hex);
            rc |= ndd_buf_puts(b, num);
        }
    }
    return rc ? NDD_ERR_NOMEM : NDD_OK;
}

/* Local. Reads one whole input file and formats its documents. */
static int sig_file(const sig_cfg_t *c, const ndd_input_t *in, ndd_sig_ctx_t *ctx, ndd_buf_t *text,
                    ndd_sig_t *sigs, sig_file_t *f, sig_counts_t *cnt)
{
    ndd_reader_t *r = NULL;
    int rc = ndd_reader_open(&r, in, 0, UINT64_MAX, sig_on_reject, f);
    if (rc) {
        /* an input that cannot be opened is a reject, as in 'ndd run' */
        ndd_reject_t rej = {in->name, in->file_index, UINT64_MAX, 0, ndd_strerror(rc), NULL, NULL};
        sig_on_reject(f, &rej);
        cnt->rejected++;
        return NDD_OK;
    }
    ndd_doc_t d;
    while ((rc = ndd_reader_next(r, &d)) == NDD_OK) {
        cnt->docs++;
        cnt->bytes += d.body_len;
        rc = d.is_html ? ndd_text_from_html(d.body, d.body_len, &c->text, text)
                       : ndd_text_from_plain(d.body, d.body_len, &c->text, text);
        size_t ns = 0, nsent = 0;
        if (!rc)
            rc = ndd_sig_doc(ctx, text->data ? text->data : "", text->len, sigs, &ns, &nsent);
        if (!rc)
            rc = sig_format_doc(&f->out, c, in, &d, nsent, sigs, ns);
        if (rc)
            break;
        cnt->sigs += ns;
        cnt->nosig += ns == 0;
    }
    if (rc == NDD_ERR_EOF)
        rc = NDD_OK;
    cnt->rejected += ndd_reader_nrejected(r);
    ndd_reader_free(r);
    return rc;
}

/* Local. Whole files to ranks, balanced by bytes: largest first to the least
 * loaded rank (ties: smaller file index, lower rank). Deterministic. */
static int *sig_assign(const ndd_input_t *in, size_t nin, int P)
{
    int *owner = malloc((nin ? nin : 1) * sizeof *owner);
    size_t *order = malloc((nin ? nin : 1) * sizeof *order);
    uint64_t *load = calloc((size_t)P, sizeof *load);
    if (!owner || !order || !load) {
        free(owner);
        owner = NULL;
        goto out;
    }
    for (size_t i = 0; i < nin; i++)
        order[i] = i;
    for (size_t i = 1; i < nin; i++) { /* insertion sort: size desc, index asc */
        size_t v = order[i], j = i;
        while (j > 0 && (in[order[j - 1]].size < in[v].size ||
                         (in[order[j - 1]].size == in[v].size && order[j - 1] > v))) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = v;
    }
    for (size_t i = 0; i < nin; i++) {
        int best = 0;
        for (int p = 1; p < P; p++)
            if (load[p] < load[best])
                best = p;
        owner[order[i]] = best;
        load[best] += in[order[i]].size + 1;
    }
out:
    free(order);
    free(load);
    return owner;
}

/* Rank-0 output helpers. */
static int sig_write_all(FILE *fp, const char *data, size_t n)
{
    return n && fwrite(data, 1, n, fp) != n ? NDD_ERR_IO : NDD_OK;
}

/* Frees the n buffers of v, then v (NULL: nothing). */
static void sig_bufs_free(ndd_buf_t *v, int n)
{
    for (int s = 0; v && s < n; s++)
        ndd_buf_free(&v[s]);
    free(v);
}

/* Local. Reads and formats this rank's files (owner[i] == me) into files[i]. */
static int sig_compute(const sig_cfg_t *c, const ndd_input_t *in, size_t nin, const int *owner, int me,
                       sig_file_t *files, sig_counts_t *cnt)
{
    ndd_sig_ctx_t *ctx = NULL;
    ndd_buf_t text = NDD_BUF_INIT;
    ndd_sig_t *sigs = malloc(NDD_SIG_MAX * sizeof *sigs);
    int rc = sigs ? ndd_sig_ctx_create(&ctx, &c->sig) : NDD_ERR_NOMEM;
    for (size_t i = 0; i < nin && !rc; i++)
        if (owner[i] == me)
            rc = sig_file(c, &in[i], ctx, &text, sigs, &files[i], cnt);
    ndd_buf_free(&text);
    free(sigs);
    ndd_sig_ctx_free(ctx);
    return rc;
}

/* Local. Appends this rank's files to send as (index, out length, reject
 * length, bytes...), freeing each file's buffers once packed. */
static int sig_pack(sig_file_t *files, size_t nin, const int *owner, int me, ndd_buf_t *send)
{
    int rc = NDD_OK;
    for (size_t i = 0; i < nin && !rc; i++) {
        if (owner[i] != me)
            continue;
        if (ndd_put64(send, i) || ndd_put64(send, files[i].out.len) || ndd_put64(send, files[i].rej.len) ||
            ndd_buf_append(send, files[i].out.data, files[i].out.len) ||
            ndd_buf_append(send, files[i].rej.data, files[i].rej.len))
            rc = NDD_ERR_NOMEM;
        ndd_buf_free(&files[i].out);
        ndd_buf_free(&files[i].rej);
    }
    return rc;
}

/* Collective on comm: *send (sig_pack) to rank 0 in one exchange; *recv
 * receives comm->size buffers, the pieces of every rank on rank 0. */
static int sig_gather(ndd_comm_t *comm, ndd_buf_t *send, ndd_buf_t **recv)
{
    const int P = comm->size;
    ndd_buf_t *sendv = calloc((size_t)P, sizeof *sendv);
    *recv = calloc((size_t)P, sizeof **recv);
    int rc = sendv && *recv ? NDD_OK : NDD_ERR_NOMEM;
    rc = ndd_comm_agree(comm, rc);
    if (!rc) {
        sendv[0] = *send; /* everything to rank 0 */
        *send = (ndd_buf_t)NDD_BUF_INIT;
        rc = ndd_comm_exchange(comm, sendv, *recv, NULL);
    }
    sig_bufs_free(sendv, P);
    return rc;
}

/* One input file's output and reject lines, inside a received buffer. */
typedef struct sig_piece {
    const char *out, *rej;
    uint64_t nout, nrej;
} sig_piece_t;

/* Local (rank 0). Indexes the pieces of recv[0..P-1] by file: pc[nin]. */
static int sig_index(const ndd_buf_t *recv, int P, sig_piece_t *pc, size_t nin)
{
    for (int s = 0; s < P; s++) {
        ndd_cur_t cur = {recv[s].data, recv[s].data + recv[s].len, 0};
        while (cur.p < cur.end) {
            uint64_t idx = ndd_get64(&cur), on = ndd_get64(&cur), jn = ndd_get64(&cur);
            if (cur.bad || idx >= nin || (uint64_t)(cur.end - cur.p) < on || (uint64_t)(cur.end - cur.p) - on < jn)
                return NDD_ERR_INTERNAL;
            pc[idx].out = cur.p;
            pc[idx].nout = on;
            pc[idx].rej = cur.p + on;
            pc[idx].nrej = jn;
            cur.p += on + jn;
        }
    }
    return NDD_OK;
}

/* Local (rank 0). Writes the pieces in file order to the output (standard
 * output without -o) and to the rejects file (with --rejects). */
static int sig_write_files(const sig_cfg_t *cfg, const sig_piece_t *pc, size_t nin)
{
    int rc = NDD_OK;
    FILE *fo = cfg->output ? fopen(cfg->output, "wb") : stdout, *fr = NULL;
    if (!fo) {
        fprintf(stderr, "ndd sig: cannot write '%s'\n", cfg->output);
        rc = NDD_ERR_IO;
    }
    if (!rc && cfg->rejects) {
        fr = fopen(cfg->rejects, "wb");
        if (!fr) {
            fprintf(stderr, "ndd sig: cannot write '%s'\n", cfg->rejects);
            rc = NDD_ERR_IO;
        } else if (fputs("file\trecord\toffset\treason\n", fr) == EOF) {
            rc = NDD_ERR_IO;
        }
    }
    for (size_t i = 0; i < nin && !rc; i++) {
        rc = sig_write_all(fo, pc[i].out, pc[i].nout);
        if (!rc && fr)
            rc = sig_write_all(fr, pc[i].rej, pc[i].nrej);
    }
    if (fo && fflush(fo) != 0 && !rc)
        rc = NDD_ERR_IO;
    if (fo && fo != stdout && fclose(fo) != 0 && !rc)
        rc = NDD_ERR_IO;
    if (fr && fclose(fr) != 0 && !rc)
        rc = NDD_ERR_IO;
    return rc;
}

/* Local (rank 0). The gathered pieces (recv, from P ranks) in file order,
 * then the summary (c_sum: docs, rejected, without signatures, signatures,
 * bytes; t_max: the slowest rank's compute seconds) on standard error. */
static int sig_output(const sig_cfg_t *cfg, const ndd_buf_t *recv, int P, size_t nin, const uint64_t c_sum[5],
                      double t_max)
{
    sig_piece_t *pc = calloc(nin ? nin : 1, sizeof *pc);
    int rc = pc ? sig_index(recv, P, pc, nin) : NDD_ERR_NOMEM;
    if (!rc)
        rc = sig_write_files(cfg, pc, nin);
    if (!rc)
        fprintf(stderr,
                "ndd sig: %llu documents read, %llu rejected, %llu without signatures, %llu signatures; "
                "%.1f MB in %.2f s (%.1f MB/s) on %d rank%s\n",
                (unsigned long long)c_sum[0], (unsigned long long)c_sum[1], (unsigned long long)c_sum[2],
                (unsigned long long)c_sum[3], c_sum[4] / 1e6, t_max, t_max > 0 ? c_sum[4] / 1e6 / t_max : 0.0, P,
                P > 1 ? "s" : "");
    free(pc);
    return rc;
}

/* Collective on comm: one rank's share of 'ndd sig'. */
static int sig_job(ndd_comm_t *comm, void *arg)
{
    const sig_cfg_t cfg = *(const sig_cfg_t *)arg;
    const int me = comm->rank, P = comm->size;
    ndd_input_t *in = NULL;
    size_t nin = 0;
    int *owner = NULL;
    sig_file_t *files = NULL;
    ndd_buf_t send = NDD_BUF_INIT, *recv = NULL;
    sig_counts_t cnt;
    memset(&cnt, 0, sizeof cnt);
    const char *bad = NULL;
    const char *what = "reading the inputs";
    double t0 = ndd_now();

    int rc = ndd_input_expand(cfg.inputs, cfg.ninputs, cfg.format, &in, &nin, &bad), err = errno;
    rc = ndd_comm_agree(comm, rc);
    if (rc) {
        if (me == 0)
            fprintf(stderr, "ndd sig: cannot read input '%s': %s\n", bad ? bad : "?", ndd_cli_why(rc, err));
        what = NULL;
        goto out;
    }
    owner = sig_assign(in, nin, P);
    files = calloc(nin ? nin : 1, sizeof *files);
    rc = owner && files ? sig_compute(&cfg, in, nin, owner, me, files, &cnt) : NDD_ERR_NOMEM;
    double t_compute = ndd_now() - t0;

    if (!rc)
        rc = sig_pack(files, nin, owner, me, &send);
    rc = ndd_comm_agree(comm, rc);
    if (rc)
        goto out;
    what = "gathering the output";
    if ((rc = sig_gather(comm, &send, &recv)))
        goto out;

    uint64_t c_sum[5] = {cnt.docs, cnt.rejected, cnt.nosig, cnt.sigs, cnt.bytes};
    double t_max = t_compute;
    if ((rc = ndd_comm_allreduce(comm, c_sum, 5, NDD_TY_U64, NDD_RED_SUM)) ||
        (rc = ndd_comm_allreduce(comm, &t_max, 1, NDD_TY_F64, NDD_RED_MAX)))
        goto out;
    if (me == 0) {
        what = "writing the output";
        rc = sig_output(&cfg, recv, P, nin, c_sum, t_max);
    }
    rc = ndd_comm_agree(comm, rc);

out:
    if (rc && me == 0 && what)
        fprintf(stderr, "ndd sig: failed while %s: %s\n", what, ndd_strerror(rc));
    if (files)
        for (size_t i = 0; i < nin; i++) {
            ndd_buf_free(&files[i].out);
            ndd_buf_free(&files[i].rej);
        }
    sig_bufs_free(recv, P);
    ndd_buf_free(&send);
    free(files);
    free(owner);
    ndd_input_free(in, nin);
    return rc;
}

int ndd_cmd_sig(int argc, char **argv)
{
    sig_cfg_t cfg;
    memset(&cfg, 0, sizeof cfg);
    ndd_sig_params_default(&cfg.sig);
    ndd_text_opts_default(&cfg.text);
    cfg.text.boilerplate = NDD_SIG_DEFAULT_BOILERPLATE;
    int prc = sig_parse(argc, argv, &cfg);
    if (prc < 0)
        return NDD_EXIT_OK;
    if (prc)
        return prc;
    return ndd_cli_engine_run(&cfg.engine, "sig", &argc, &argv, sig_job, &cfg) ? NDD_EXIT_RUNTIME : NDD_EXIT_OK;
}

/* cmd_signcd.c - 'ndd signcd': every pair of documents with SigNCD <= tau
 * (paper 000), with the exact P1 pruning and optionally P2, split across the
 * ranks of an engine (--engine: MPI ranks, or threads of this process).
 * Output does not depend on the rank count.
 *
 * Stages (each ends with an agreement so that all ranks branch alike):
 *   1. read: each rank reads whole input files (greedy balance by bytes),
 *      extracts text, computes the signature and C(sig) of each document.
 *   2. exchange: allgather of (file_index, offset, C, id, sig) records, so
 *      every rank holds every signature (fine for tens of thousands of
 *      documents: every rank holds all of them).
 *   3. compare: documents sorted by (C, doc index); rows split by
 *      ndd_ncd_split (contiguous, P2-block aligned, balanced by P1 widths);
 *      each rank runs ndd_ncd_allpairs on its rows.
 *   4. gather: pairs to rank 0 (one exchange), printed sorted by (doc a,
 *      doc b); counters summed. */
#include "ndd_cli.h"
#include "ndd_comm.h"
#include "ndd_ncd.h"
#include "ndd_reader.h"
#include "ndd_text.h"
#include "ndd_util.h"
#include "ndd_wire.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

typedef struct signcd_opts {
    const char *outdir;
    double tau;
    int no_signature;
    int p1, p2;
    size_t p2_block;
    double p2_slack;
    int level;
    unsigned ctx_flags;
    size_t cjk_chars;
    ndd_format_t format;
    size_t max_doc_bytes;
    int boilerplate;
    const char **inputs;
    size_t ninputs;
    ndd_cli_engine_t engine;
} signcd_opts_t;

/* One document after the exchange. */
typedef struct signcd_doc {
    uint32_t file_index;
    uint64_t offset;
    uint64_t csize;
    const char *id;
    uint32_t id_len;
    const char *sig;
    uint32_t sig_len;
} signcd_doc_t;

typedef struct signcd_reject_ctx {
    uint64_t n;
    int rank;
} signcd_reject_ctx_t;

static void signcd_usage(FILE *f)
{
    fprintf(f,
            "usage: [mpirun -n P] ndd signcd [options] INPUT...\n"
            "\n"
            "Finds every pair of documents whose SigNCD (paper 000: normalized compression\n"
            "distance of punctuation-spot signatures, zstd) is <= tau, with the exact P1\n"
            "size-ratio pruning and optionally the P2 triangle-inequality pruning. Under\n"
            "mpirun (or --engine local:P) the comparisons are split across ranks; the output\n"
            "does not depend on the rank count. INPUT: JSONL (.jsonl[.gz|.zst]), WARC/WET\n"
            "(.warc[.gz]), .txt, .html files or directories of them. Document order key:\n"
            "(input file, offset).\n"
            "\n"
            "options:\n"
            "  -o, --output DIR     write DIR/pairs.tsv and DIR/stats.json (default: pairs to\n"
            "                       stdout, counters to stderr)\n"
            "  --tau T              duplicate when NCD <= T (default %.1f, paper 000)\n"
            "  --no-signature       plain NCD on whole documents instead of signatures\n"
            "  --no-p1              compare every pair (brute force; for benchmarks)\n"
            "  --p2                 also prune with the triangle inequality (P2)\n"
            "  --p2-block N         P2 pivots: earlier rows of the same block of N rows (default %d)\n"
            "  --p2-slack S         P2 skips a pair when |NCD(x,z)-NCD(y,z)| > tau + S (default %.1f)\n"
            "  --level L            zstd level (default %d)\n"
            "  --huffman-literals   let zstd entropy-code literals (measurements only)\n"
            "  --cjk-chars K        CJK rule: characters before a comma (default %d)\n"
            "  --format F           auto|jsonl|warc|text|html (default auto)\n"
            "  --max-doc-bytes B    keep the first B bytes of each text (default %d, 0 = all)\n"
            "  --boilerplate        drop navigation-like HTML blocks (see docs/text.md)\n"
            "  --engine E           mpi (default): the ranks of mpirun/srun, or one rank without\n"
            "                       them; local[:P]: P ranks as threads of this process, no MPI\n"
            "                       (P: 1..256, default the number of CPUs)\n"
            "  -h, --help           this help\n"
            "\n"
            "pairs.tsv: id_a <TAB> id_b <TAB> ncd (%%.6f), sorted by document order, a before b.\n"
            "Exit codes: 0 ok, 1 runtime error, 2 bad usage.\n",
            NDD_NCD_DEFAULT_TAU, NDD_NCD_DEFAULT_P2_BLOCK, NDD_NCD_DEFAULT_P2_SLACK, NDD_NCD_DEFAULT_LEVEL,
            NDD_NCD_DEFAULT_CJK_CHARS, NDD_TEXT_DEFAULT_MAX_BYTES);
}

/* Local. Parses argv; returns 0, or NDD_EXIT_USAGE after printing (on the
 * launcher's rank 0 only, as MPI has not started yet). */
static int signcd_parse(int argc, char **argv, signcd_opts_t *o, int *help)
{
    const char *cmd = "signcd";
    int quiet = ndd_cli_launch_rank() != 0;
    memset(o, 0, sizeof *o);
    o->tau = NDD_NCD_DEFAULT_TAU;
    o->p1 = 1;
    o->p2_block = NDD_NCD_DEFAULT_P2_BLOCK;
    o->p2_slack = NDD_NCD_DEFAULT_P2_SLACK;
    o->level = NDD_NCD_DEFAULT_LEVEL;
    o->cjk_chars = NDD_NCD_DEFAULT_CJK_CHARS;
    o->format = NDD_FMT_AUTO;
    o->max_doc_bytes = NDD_TEXT_DEFAULT_MAX_BYTES;
    *help = 0;
    o->inputs = calloc((size_t)argc + 1, sizeof *o->inputs);
    if (!o->inputs)
        return NDD_EXIT_RUNTIME;
#define SIGNCD_ERR(...) (quiet ? NDD_EXIT_USAGE : ndd_cli_usage_error(cmd, __VA_ARGS__))
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long lv;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            *help = 1;
            return 0;
        } else if (!strcmp(a, "--")) {
            for (i++; i < argc; i++)
                o->inputs[o->ninputs++] = argv[i];
        } else if (!strcmp(a, "--no-signature")) {
            o->no_signature = 1;
        } else if (!strcmp(a, "--no-p1")) {
            o->p1 = 0;
        } else if (!strcmp(a, "--p2")) {
            o->p2 = 1;
        } else if (!strcmp(a, "--boilerplate")) {
            o->boilerplate = 1;
        } else if (!strcmp(a, "--huffman-literals")) {
            o->ctx_flags |= NDD_NCD_HUFFMAN_LITERALS;
        } else if (a[0] == '-' && a[1]) {
            if (!v)
                return SIGNCD_ERR("option %s needs a value", a);
            i++;
            if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
                o->outdir = v;
            } else if (!strcmp(a, "--tau")) {
                if (ndd_cli_parse_double(v, &o->tau) || !(o->tau >= 0.0 && o->tau <= 1.0))
                    return SIGNCD_ERR("--tau wants a number in [0, 1], not '%s'", v);
            } else if (!strcmp(a, "--p2-block")) {
                if (ndd_cli_parse_long(v, 1, 1 << 20, &lv))
                    return SIGNCD_ERR("--p2-block wants an integer in [1, 1048576], not '%s'", v);
                o->p2_block = (size_t)lv;
            } else if (!strcmp(a, "--p2-slack")) {
                if (ndd_cli_parse_double(v, &o->p2_slack) || !(o->p2_slack >= 0.0 && o->p2_slack <= 1.0))
                    return SIGNCD_ERR("--p2-slack wants a number in [0, 1], not '%s'", v);
            } else if (!strcmp(a, "--level")) {
                if (ndd_cli_parse_long(v, -50, 22, &lv) || lv == 0)
                    return SIGNCD_ERR("--level wants a zstd level in [-50, 22] other than 0, not '%s'", v);
                o->level = (int)lv;
            } else if (!strcmp(a, "--cjk-chars")) {
                if (ndd_cli_parse_long(v, 1, 1 << 20, &lv))
                    return SIGNCD_ERR("--cjk-chars wants an integer >= 1, not '%s'", v);
                o->cjk_chars = (size_t)lv;
            } else if (!strcmp(a, "--max-doc-bytes")) {
                if (ndd_cli_parse_size(v, &o->max_doc_bytes))
                    return SIGNCD_ERR("--max-doc-bytes wants a size, not '%s'", v);
            } else if (!strcmp(a, "--engine")) {
                if (ndd_cli_engine_parse(v, &o->engine))
                    return SIGNCD_ERR("--engine wants mpi, local or local:P with P in [1, %d], not '%s'",
                                      NDD_LOCAL_MAX_RANKS, v);
            } else if (!strcmp(a, "--format")) {
                if (!strcmp(v, "auto"))
                    o->format = NDD_FMT_AUTO;
                else if (!strcmp(v, "jsonl"))
                    o->format = NDD_FMT_JSONL;
                else if (!strcmp(v, "warc"))
                    o->format = NDD_FMT_WARC;
                else if (!strcmp(v, "text"))
                    o->format = NDD_FMT_TEXT;
                else if (!strcmp(v, "html"))
                    o->format = NDD_FMT_HTML;
                else
                    return SIGNCD_ERR("--format wants auto|jsonl|warc|text|html, not '%s'", v);
            } else {
                return SIGNCD_ERR("unknown option %s", a);
            }
        } else {
            o->inputs[o->ninputs++] = a;
        }
    }
    if (!o->ninputs)
        return SIGNCD_ERR("no INPUT given");
#undef SIGNCD_ERR
    return ndd_cli_engine_check(cmd, &o->engine);
}

static void signcd_on_reject(void *user, const ndd_reject_t *rej)
{
    signcd_reject_ctx_t *rc = user;
    rc->n++;
    ndd_cli_logf(NULL, rc->rank, 2, "signcd: rejected %s record %llu (offset %llu): %s", rej->file,
                 (unsigned long long)rej->ordinal, (unsigned long long)rej->offset, rej->reason);
}

/* Local. Greedy balance by bytes: files in decreasing size (ties by index)
 * go to the least loaded rank (ties by rank). owner[i] receives the rank. */
static int signcd_assign(const ndd_input_t *in, size_t n, int nranks, int *owner)
{
    size_t *ord = malloc((n ? n : 1) * sizeof *ord);
    uint64_t *load = calloc((size_t)nranks, sizeof *load);
    if (!ord || !load) {
        free(ord);
        free(load);
        return NDD_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        ord[i] = i;
    for (size_t i = 1; i < n; i++) { /* insertion sort: few files */
        size_t t = ord[i], j = i;
        while (j > 0 && (in[ord[j - 1]].size < in[t].size ||
                         (in[ord[j - 1]].size == in[t].size && ord[j - 1] > t))) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = t;
    }
    for (size_t k = 0; k < n; k++) {
        int best = 0;
        for (int r = 1; r < nranks; r++)
            if (load[r] < load[best])
                best = r;
        owner[ord[k]] = best;
        load[best] += in[ord[k]].size + 1;
    }
    free(ord);
    free(load);
    return NDD_OK;
}

/* Local. Reads rank me's files and appends one record per document to recs
 * (little-endian): u32 file_index, u64 offset, u64 csize, u32 id_len,
 * u32 sig_len, id, sig. */
static int signcd_read(const signcd_opts_t *o, const ndd_input_t *in, size_t nin, const int *owner, int me,
                       ndd_buf_t *recs, uint64_t *ndocs, uint64_t *nrej, uint64_t *text_bytes,
                       uint64_t *sig_bytes)
{
    ndd_ncd_ctx_t *ctx = NULL;
    ndd_reader_t *rd = NULL;
    ndd_buf_t text = NDD_BUF_INIT, sig = NDD_BUF_INIT;
    ndd_text_opts_t to;
    ndd_ncd_sig_opts_t so;
    signcd_reject_ctx_t rej = {0, me};
    int rc;

    ndd_text_opts_default(&to);
    to.max_bytes = o->max_doc_bytes;
    to.boilerplate = o->boilerplate;
    ndd_ncd_sig_opts_default(&so);
    so.cjk_max_chars = o->cjk_chars;
    if ((rc = ndd_ncd_ctx_create_ex(&ctx, o->level, o->ctx_flags)))
        goto out;
    for (size_t f = 0; f < nin; f++) {
        if (owner[f] != me)
            continue;
        if ((rc = ndd_reader_open(&rd, &in[f], 0, UINT64_MAX, signcd_on_reject, &rej))) {
            ndd_cli_logf(NULL, me, 0, "signcd: cannot open %s: %s", in[f].name, ndd_strerror(rc));
            goto out;
        }
        for (;;) {
            ndd_doc_t d;
            rc = ndd_reader_next(rd, &d);
            if (rc == NDD_ERR_EOF)
                break;
            if (rc) {
                ndd_cli_logf(NULL, me, 0, "signcd: reading %s: %s", in[f].name, ndd_strerror(rc));
                goto out;
            }
            rc = d.is_html ? ndd_text_from_html(d.body, d.body_len, &to, &text)
                           : ndd_text_from_plain(d.body, d.body_len, &to, &text);
            if (rc)
                goto out;
            if (o->no_signature) {
                ndd_buf_clear(&sig);
                rc = ndd_buf_append(&sig, text.data, text.len);
            } else {
                rc = ndd_ncd_signature_ex(text.data, text.len, &so, &sig, NULL);
            }
            if (rc)
                goto out;
            size_t cs;
            if ((rc = ndd_ncd_csize(ctx, sig.data, sig.len, &cs)))
                goto out;
            size_t idlen = strlen(d.id);
            if (idlen > UINT32_MAX || sig.len > UINT32_MAX) {
                rc = NDD_ERR_LIMIT;
                goto out;
            }
            if ((rc = ndd_put32(recs, d.file_index)) || (rc = ndd_put64(recs, d.offset)) ||
                (rc = ndd_put64(recs, cs)) || (rc = ndd_put32(recs, (uint32_t)idlen)) ||
                (rc = ndd_put32(recs, (uint32_t)sig.len)) || (rc = ndd_buf_append(recs, d.id, idlen)) ||
                (rc = ndd_buf_append(recs, sig.data, sig.len)))
                goto out;
            (*ndocs)++;
            *text_bytes += text.len;
            *sig_bytes += sig.len;
        }
        rc = NDD_OK;
        ndd_reader_free(rd);
        rd = NULL;
    }
out:
    *nrej = rej.n;
    ndd_reader_free(rd);
    ndd_ncd_ctx_free(ctx);
    ndd_buf_free(&text);
    ndd_buf_free(&sig);
    return rc;
}

static int signcd_doc_cmp(const void *pa, const void *pb)
{
    const signcd_doc_t *a = pa, *b = pb;
    if (a->file_index != b->file_index)
        return a->file_index < b->file_index ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return 0;
}

/* Local. Parses the gathered records into docs sorted by (file_index, offset). */
static int signcd_parse_records(const char *all, size_t nall, uint64_t ndocs, signcd_doc_t **docs)
{
    signcd_doc_t *d = calloc(ndocs ? ndocs : 1, sizeof *d);
    size_t p = 0;
    if (!d)
        return NDD_ERR_NOMEM;
    for (uint64_t k = 0; k < ndocs; k++) {
        uint32_t il, sl;
        if (nall - p < 28) {
            free(d);
            return NDD_ERR_INTERNAL;
        }
        d[k].file_index = ndd_le32_load(all + p);
        d[k].offset = ndd_le64_load(all + p + 4);
        d[k].csize = ndd_le64_load(all + p + 12);
        il = ndd_le32_load(all + p + 20);
        sl = ndd_le32_load(all + p + 24);
        p += 28;
        if (nall - p < (size_t)il + sl) {
            free(d);
            return NDD_ERR_INTERNAL;
        }
        d[k].id = all + p;
        d[k].id_len = il;
        d[k].sig = all + p + il;
        d[k].sig_len = sl;
        p += (size_t)il + sl;
    }
    if (p != nall) {
        free(d);
        return NDD_ERR_INTERNAL;
    }
    qsort(d, ndocs, sizeof *d, signcd_doc_cmp);
    *docs = d;
    return NDD_OK;
}

typedef struct signcd_pair {
    uint64_t a, b; /* doc indices, a < b */
    double ncd;
} signcd_pair_t;

static int signcd_pair_cmp(const void *pa, const void *pb)
{
    const signcd_pair_t *a = pa, *b = pb;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    return 0;
}

/* Collective on comm. Gathers the pairs of every rank to rank 0 (*all, *nall
 * there; nothing elsewhere) with one exchange: 24 bytes a pair (a, b, the
 * bits of ncd; little-endian). */
static int signcd_gather_pairs(ndd_comm_t *comm, const signcd_pair_t *mine, size_t n, signcd_pair_t **all,
                               size_t *nall)
{
    const int P = comm->size;
    ndd_buf_t *send = calloc((size_t)P, sizeof *send), *recv = calloc((size_t)P, sizeof *recv);
    int rc = send && recv ? NDD_OK : NDD_ERR_NOMEM;
    *all = NULL;
    *nall = 0;
    for (size_t k = 0; k < n && !rc; k++) {
        uint64_t bits;
        memcpy(&bits, &mine[k].ncd, sizeof bits);
        if (ndd_put64(&send[0], mine[k].a) || ndd_put64(&send[0], mine[k].b) || ndd_put64(&send[0], bits))
            rc = NDD_ERR_NOMEM;
    }
    if ((rc = ndd_comm_agree(comm, rc)) || (rc = ndd_comm_exchange(comm, send, recv, NULL)))
        goto out;
    if (comm->rank == 0) {
        size_t total = 0;
        for (int s = 0; s < P; s++)
            total += recv[s].len / 24;
        *all = malloc((total ? total : 1) * sizeof **all);
        if (!*all)
            rc = NDD_ERR_NOMEM;
        for (int s = 0; s < P && !rc; s++) {
            if (recv[s].len % 24) {
                rc = NDD_ERR_INTERNAL;
                break;
            }
            for (size_t off = 0; off < recv[s].len; off += 24) {
                signcd_pair_t *q = &(*all)[(*nall)++];
                uint64_t bits = ndd_le64_load(recv[s].data + off + 16);
                q->a = ndd_le64_load(recv[s].data + off);
                q->b = ndd_le64_load(recv[s].data + off + 8);
                memcpy(&q->ncd, &bits, sizeof bits);
            }
        }
    }
    rc = ndd_comm_agree(comm, rc);
out:
    if (send)
        for (int s = 0; s < P; s++)
            ndd_buf_free(&send[s]);
    if (recv)
        for (int s = 0; s < P; s++)
            ndd_buf_free(&recv[s]);
    free(send);
    free(recv);
    if (rc) {
        free(*all);
        *all = NULL;
        *nall = 0;
    }
    return rc;
}

/* Local (rank 0). Writes the pairs as TSV to f. */
static int signcd_write_pairs(FILE *f, const signcd_doc_t *docs, const signcd_pair_t *pairs, size_t n)
{
    ndd_buf_t line = NDD_BUF_INIT;
    int rc = NDD_OK;
    for (size_t k = 0; k < n; k++) {
        char num[64];
        ndd_buf_clear(&line);
        snprintf(num, sizeof num, "\t%.6f\n", pairs[k].ncd);
        if ((rc = ndd_tsv_append_field(&line, docs[pairs[k].a].id, docs[pairs[k].a].id_len)) ||
            (rc = ndd_buf_putc(&line, '\t')) ||
            (rc = ndd_tsv_append_field(&line, docs[pairs[k].b].id, docs[pairs[k].b].id_len)) ||
            (rc = ndd_buf_puts(&line, num)))
            break;
        if (fwrite(line.data, 1, line.len, f) != line.len) {
            rc = NDD_ERR_IO;
            break;
        }
    }
    ndd_buf_free(&line);
    return rc;
}

/* Local. CPU seconds (user + system) used so far by this rank: the process
 * on MPI, the thread on the local engine (whose ranks share one process). */
static double signcd_cpu_s(const ndd_comm_t *comm)
{
    if (strcmp(comm->ops->name, "mpi")) {
        struct timespec ts;
        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
            return 0.0;
        return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
    }
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return 0.0;
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static FILE *signcd_open_out(const char *dir, const char *name)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return NULL;
    return fopen(path, "w");
}

/* The figures of stats.json and of the summary line, over all ranks. */
typedef struct signcd_figures {
    int ranks;
    uint64_t docs[4];  /* documents, rejected, text bytes, signature bytes */
    uint64_t pairs[5]; /* pairs, compared, pruned by P1, pruned by P2, found */
    double t_read, t_exch, t_cmp_max, t_cmp_min, t_total, cpu;
} signcd_figures_t;

/* Collective on comm: stage 1. Each rank reads its share of the inputs
 * (signcd_assign, signcd_read) into recs; docs[4] receives the documents,
 * rejected records, text bytes and signature bytes summed over the ranks. */
static int signcd_stage_read(ndd_comm_t *comm, const signcd_opts_t *o, ndd_buf_t *recs, uint64_t docs[4])
{
    const int me = comm->rank;
    ndd_input_t *in = NULL;
    size_t nin = 0;
    int *owner = NULL;
    const char *bad = NULL;
    uint64_t loc[4] = {0, 0, 0, 0};
    int rc = ndd_input_expand(o->inputs, o->ninputs, o->format, &in, &nin, &bad), err = errno;
    if ((rc = ndd_comm_agree(comm, rc))) {
        if (me == 0)
            fprintf(stderr, "ndd signcd: %s: %s\n", bad ? bad : "inputs", ndd_cli_why(rc, err));
        goto out;
    }
    owner = calloc(nin ? nin : 1, sizeof *owner);
    rc = owner ? signcd_assign(in, nin, comm->size, owner) : NDD_ERR_NOMEM;
    if (!rc)
        rc = signcd_read(o, in, nin, owner, me, recs, &loc[0], &loc[1], &loc[2], &loc[3]);
    if ((rc = ndd_comm_agree(comm, rc))) {
        if (me == 0)
            fprintf(stderr, "ndd signcd: reading inputs failed: %s\n", ndd_strerror(rc));
        goto out;
    }
    memcpy(docs, loc, sizeof loc);
    rc = ndd_comm_allreduce(comm, docs, 4, NDD_TY_U64, NDD_RED_SUM);
out:
    ndd_input_free(in, nin);
    free(owner);
    return rc;
}

/* Local. Stage 3: the n documents sorted by (C, doc index), this rank's rows
 * of the P (ndd_ncd_split), ndd_ncd_allpairs on them. *mine receives the
 * *nmine pairs found (doc indices, a < b), *st the counters. */
static int signcd_compare(const signcd_opts_t *o, const signcd_doc_t *docs, size_t n, int P, int me,
                          signcd_pair_t **mine, size_t *nmine, ndd_ncd_stats_t *st)
{
    ndd_ncd_ctx_t *ctx = NULL;
    ndd_ncd_hits_t hits = {0};
    ndd_ncd_allpairs_opts_t ao;
    ndd_ncd_allpairs_opts_default(&ao);
    ao.tau = o->tau;
    ao.p1 = o->p1;
    ao.p2 = o->p2;
    ao.p2_block = o->p2_block;
    ao.p2_slack = o->p2_slack;
    ndd_ncd_item_t *items = calloc(n ? n : 1, sizeof *items);
    int rc = items ? ndd_ncd_ctx_create_ex(&ctx, o->level, o->ctx_flags) : NDD_ERR_NOMEM;
    size_t lo = 0, hi = 0;
    if (!rc) {
        for (size_t i = 0; i < n; i++) {
            items[i].s = docs[i].sig;
            items[i].len = docs[i].sig_len;
            items[i].csize = (size_t)docs[i].csize;
            items[i].key = i;
        }
        ndd_ncd_sort(items, n);
        rc = ndd_ncd_split(items, n, &ao, (size_t)P, (size_t)me, &lo, &hi);
    }
    if (!rc)
        rc = ndd_ncd_allpairs(ctx, items, n, lo, hi, &ao, &hits, st);
    if (!rc && hits.n) {
        *mine = malloc(hits.n * sizeof **mine);
        if (!*mine)
            rc = NDD_ERR_NOMEM;
        for (size_t k = 0; *mine && k < hits.n; k++) {
            uint64_t a = items[hits.v[k].a].key, b = items[hits.v[k].b].key;
            (*mine)[k].a = a < b ? a : b;
            (*mine)[k].b = a < b ? b : a;
            (*mine)[k].ncd = hits.v[k].ncd;
        }
        *nmine = *mine ? hits.n : 0;
    }
    free(items);
    ndd_ncd_ctx_free(ctx);
    ndd_ncd_hits_free(&hits);
    return rc;
}

/* Local (rank 0). The stats.json object (one line) into js. */
static void signcd_stats_json(char *js, size_t n, const signcd_opts_t *o, const signcd_figures_t *fg)
{
    snprintf(js, n,
             "{\"command\":\"signcd\",\"ranks\":%d,\"docs\":%llu,\"rejected\":%llu,"
             "\"text_bytes\":%llu,\"sig_bytes\":%llu,\"signature\":%s,\"tau\":%.6f,"
             "\"p1\":%s,\"p2\":%s,\"p2_block\":%zu,\"p2_slack\":%.6f,\"zstd_level\":%d,"
             "\"huffman_literals\":%s,"
             "\"cjk_chars\":%zu,\"max_doc_bytes\":%zu,"
             "\"pairs\":%llu,\"compared\":%llu,\"pruned_p1\":%llu,\"pruned_p2\":%llu,\"found\":%llu,"
             "\"time_read_s\":%.3f,\"time_exchange_s\":%.3f,\"time_compare_max_s\":%.3f,"
             "\"time_compare_min_s\":%.3f,\"time_total_s\":%.3f,\"cpu_s\":%.3f}\n",
             fg->ranks, (unsigned long long)fg->docs[0], (unsigned long long)fg->docs[1],
             (unsigned long long)fg->docs[2], (unsigned long long)fg->docs[3], o->no_signature ? "false" : "true",
             o->tau, o->p1 ? "true" : "false", o->p2 ? "true" : "false", o->p2_block, o->p2_slack, o->level,
             (o->ctx_flags & NDD_NCD_HUFFMAN_LITERALS) ? "true" : "false", o->cjk_chars, o->max_doc_bytes,
             (unsigned long long)fg->pairs[0], (unsigned long long)fg->pairs[1], (unsigned long long)fg->pairs[2],
             (unsigned long long)fg->pairs[3], (unsigned long long)fg->pairs[4], fg->t_read, fg->t_exch,
             fg->t_cmp_max, fg->t_cmp_min, fg->t_total, fg->cpu);
}

/* Local (rank 0). The pairs (sorted) to DIR/pairs.tsv or standard output,
 * stats.json to DIR (with -o), the summary line to standard error. */
static int signcd_output(const signcd_opts_t *o, const signcd_doc_t *docs, const signcd_pair_t *pairs,
                         size_t npairs, const signcd_figures_t *fg)
{
    FILE *fp = NULL, *fs = NULL;
    int rc = NDD_OK;
    if (o->outdir) {
        if (mkdir(o->outdir, 0777) && errno != EEXIST)
            rc = NDD_ERR_IO;
        if (!rc && (!(fp = signcd_open_out(o->outdir, "pairs.tsv")) || !(fs = signcd_open_out(o->outdir, "stats.json"))))
            rc = NDD_ERR_IO;
    }
    if (!rc)
        rc = signcd_write_pairs(fp ? fp : stdout, docs, pairs, npairs);
    if (!rc) {
        char js[2048];
        signcd_stats_json(js, sizeof js, o, fg);
        if (fs) {
            if (fputs(js, fs) == EOF)
                rc = NDD_ERR_IO;
        }
        fprintf(stderr,
                "ndd signcd: %llu docs (%llu rejected), %llu pairs: compared %llu, pruned by P1 %llu, "
                "by P2 %llu; %llu with %s <= %.2f; %.3f s on %d rank%s\n",
                (unsigned long long)fg->docs[0], (unsigned long long)fg->docs[1], (unsigned long long)fg->pairs[0],
                (unsigned long long)fg->pairs[1], (unsigned long long)fg->pairs[2], (unsigned long long)fg->pairs[3],
                (unsigned long long)fg->pairs[4], o->no_signature ? "NCD" : "SigNCD", o->tau, fg->t_total,
                fg->ranks, fg->ranks == 1 ? "" : "s");
    }
    if (fp && fclose(fp) && !rc)
        rc = NDD_ERR_IO;
    if (fs && fclose(fs) && !rc)
        rc = NDD_ERR_IO;
    if (!rc && fflush(stdout))
        rc = NDD_ERR_IO;
    if (rc)
        fprintf(stderr, "ndd signcd: writing output failed: %s\n", ndd_strerror(rc));
    return rc;
}

/* Collective on comm: one rank's share of 'ndd signcd'. */
static int signcd_job(ndd_comm_t *comm, void *arg)
{
    const signcd_opts_t o = *(const signcd_opts_t *)arg;
    const int me = comm->rank, P = comm->size;
    ndd_buf_t recs = NDD_BUF_INIT, all = NDD_BUF_INIT;
    signcd_doc_t *docs = NULL;
    signcd_pair_t *mine = NULL, *pairs = NULL;
    size_t nmine = 0, npairs = 0;
    ndd_ncd_stats_t st = {0, 0, 0, 0, 0};
    signcd_figures_t fg;
    memset(&fg, 0, sizeof fg);
    fg.ranks = P;

    double t0 = ndd_now(), cpu0 = signcd_cpu_s(comm);

    /* ---- 1. read, text, signature, C(sig) ---- */
    int rc = signcd_stage_read(comm, &o, &recs, fg.docs);
    if (rc)
        goto done;
    fg.t_read = ndd_now() - t0;

    /* ---- 2. exchange ---- */
    rc = ndd_comm_allgather(comm, recs.data, recs.len, &all, NULL);
    ndd_buf_free(&recs);
    if (!rc)
        rc = signcd_parse_records(all.data, all.len, fg.docs[0], &docs);
    if ((rc = ndd_comm_agree(comm, rc))) {
        if (me == 0)
            fprintf(stderr, "ndd signcd: exchanging signatures failed: %s\n", ndd_strerror(rc));
        goto done;
    }
    fg.t_exch = ndd_now() - t0 - fg.t_read;

    /* ---- 3. compare ---- */
    double t_cmp0 = ndd_now();
    rc = signcd_compare(&o, docs, (size_t)fg.docs[0], P, me, &mine, &nmine, &st);
    double t_cmp = ndd_now() - t_cmp0;
    if ((rc = ndd_comm_agree(comm, rc))) {
        if (me == 0)
            fprintf(stderr, "ndd signcd: comparing failed: %s\n", ndd_strerror(rc));
        goto done;
    }

    /* ---- 4. gather pairs and counters ---- */
    uint64_t cg[5] = {st.pairs, st.compared, st.pruned_p1, st.pruned_p2, st.found};
    double tg[2] = {t_cmp, -t_cmp};
    fg.cpu = signcd_cpu_s(comm) - cpu0;
    if ((rc = ndd_comm_allreduce(comm, cg, 5, NDD_TY_U64, NDD_RED_SUM)) ||
        (rc = ndd_comm_allreduce(comm, tg, 2, NDD_TY_F64, NDD_RED_MAX)) ||
        (rc = ndd_comm_allreduce(comm, &fg.cpu, 1, NDD_TY_F64, NDD_RED_SUM)))
        goto done;
    memcpy(fg.pairs, cg, sizeof cg);
    fg.t_cmp_max = tg[0];
    fg.t_cmp_min = -tg[1];
    rc = signcd_gather_pairs(comm, mine, nmine, &pairs, &npairs);
    if (rc) {
        if (me == 0)
            fprintf(stderr, "ndd signcd: gathering pairs failed: %s\n", ndd_strerror(rc));
        goto done;
    }
    if (me == 0) {
        ndd_qsort(pairs, npairs, sizeof *pairs, signcd_pair_cmp);
        fg.t_total = ndd_now() - t0;
        rc = signcd_output(&o, docs, pairs, npairs, &fg);
    }
    rc = ndd_comm_agree(comm, rc);
done:
    ndd_buf_free(&recs);
    ndd_buf_free(&all);
    free(docs);
    free(mine);
    free(pairs);
    return rc;
}

int ndd_cmd_signcd(int argc, char **argv)
{
    signcd_opts_t o;
    int help = 0;
    int prc = signcd_parse(argc, argv, &o, &help);
    if (help) {
        if (ndd_cli_launch_rank() == 0)
            signcd_usage(stdout);
        prc = NDD_EXIT_OK;
    } else if (!prc) {
        prc = ndd_cli_engine_run(&o.engine, "signcd", &argc, &argv, signcd_job, &o) ? NDD_EXIT_RUNTIME : NDD_EXIT_OK;
    }
    free(o.inputs);
    return prc;
}

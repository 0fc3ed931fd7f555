/* bench_sig.c - signature-stage throughput against the raw MD5 rate of the
 * same library on the same sentences, one core (run by scripts/bench-sig.sh).
 *
 * usage: bench_sig [-r REPS] [-k K] [--boilerplate on|off] INPUT...
 *
 * Reads every document of the inputs into memory (not timed), then times,
 * each REPS times (the best time is kept; these machines are shared):
 *   html    HTML -> text (ndd_text_from_html, HTML documents only)
 *   split   text -> sentences (ndd_text_sentences)
 *   md5     MD5() over every kept sentence (what ndd_md5 calls)
 *   md5x    the same, a document's sentences at once (ndd_md5_spans: 16 at a
 *           time in AVX-512 lanes where the CPU has them)
 *   evp     the same through EVP (one EVP_MD_CTX reused, EVP_MD fetched once)
 *   spans   sentences -> signatures (ndd_sig_spans)
 *   text    text -> signatures (ndd_sig_doc: split + signatures)
 *   raw     raw body -> signatures (extraction + ndd_sig_doc)
 * Rates are MB of the stage's input per second of CPU time; the ratios
 * compare times on the same sentences. */
#include "ndd_reader.h"
#include "ndd_sig.h"
#include "ndd_text.h"
#include "ndd_util.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of this thread: the machines these run on are shared, and time
 * spent descheduled is not the stage's cost. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    char *body;
    size_t body_len;
    int is_html;
    char *text;
    size_t text_len;
    size_t span0, nspans; /* into the global span array */
} bdoc_t;

static void die(const char *what, int rc)
{
    fprintf(stderr, "bench_sig: %s: %s\n", what, ndd_strerror(rc));
    exit(1);
}

int main(int argc, char **argv)
{
    int reps = 3, boilerplate = NDD_SIG_DEFAULT_BOILERPLATE;
    unsigned k = NDD_SIG_DEFAULT_K;
    const char **paths = calloc((size_t)argc, sizeof *paths);
    size_t npaths = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-k") && i + 1 < argc)
            k = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--boilerplate") && i + 1 < argc)
            boilerplate = !strcmp(argv[++i], "on");
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: bench_sig [-r REPS] [-k K] [--boilerplate on|off] INPUT...\n");
            return 2;
        } else
            paths[npaths++] = argv[i];
    }
    if (!npaths || reps < 1) {
        fprintf(stderr, "usage: bench_sig [-r REPS] [-k K] [--boilerplate on|off] INPUT...\n");
        return 2;
    }

    /* ---- load ---- */
    ndd_input_t *in = NULL;
    size_t nin = 0;
    const char *bad = NULL;
    int rc = ndd_input_expand(paths, npaths, NDD_FMT_AUTO, &in, &nin, &bad);
    if (rc)
        die(bad ? bad : "inputs", rc);
    size_t ndocs = 0, cap = 1024;
    bdoc_t *docs = calloc(cap, sizeof *docs);
    uint64_t html_bytes = 0, body_bytes = 0;
    for (size_t f = 0; f < nin; f++) {
        ndd_reader_t *r = NULL;
        if ((rc = ndd_reader_open(&r, &in[f], 0, UINT64_MAX, NULL, NULL)))
            die(in[f].name, rc);
        ndd_doc_t d;
        while ((rc = ndd_reader_next(r, &d)) == 0) {
            if (ndocs == cap) {
                cap *= 2;
                docs = realloc(docs, cap * sizeof *docs);
            }
            bdoc_t *b = &docs[ndocs++];
            memset(b, 0, sizeof *b);
            b->body = malloc(d.body_len + 1);
            memcpy(b->body, d.body, d.body_len);
            b->body[d.body_len] = '\0';
            b->body_len = d.body_len;
            b->is_html = d.is_html;
            body_bytes += d.body_len;
            if (d.is_html)
                html_bytes += d.body_len;
        }
        if (rc != NDD_ERR_EOF)
            die(in[f].name, rc);
        ndd_reader_free(r);
    }
    ndd_input_free(in, nin);

    ndd_text_opts_t to;
    ndd_text_opts_default(&to);
    to.boilerplate = boilerplate;
    ndd_sig_params_t sp;
    ndd_sig_params_default(&sp);
    sp.k = k;
    ndd_sig_ctx_t *ctx = NULL;
    if ((rc = ndd_sig_ctx_create(&ctx, &sp)))
        die("parameters", rc);
    ndd_buf_t buf = NDD_BUF_INIT;
    ndd_span_t *tmp = NULL, *spans = NULL;
    size_t tmpcap = 0, nspans = 0, spcap = 0;
    ndd_sig_t out[NDD_SIG_MAX];
    size_t nout;
    uint64_t text_bytes = 0, sent_bytes = 0, nsigs = 0;
    enum { T_HTML, T_SPLIT, T_MD5, T_MD5X, T_EVP, T_SPANS, T_TEXT, T_RAW, T_N };
    double best[T_N];
    for (int i = 0; i < T_N; i++)
        best[i] = 1e300;
    EVP_MD *md5 = EVP_MD_fetch(NULL, "MD5", NULL);
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    if (!md5 || !mctx)
        die("EVP MD5", NDD_ERR_INTERNAL);
    uint8_t dig[16], (*digs)[16] = NULL;
    size_t digcap = 0;
    unsigned sink = 0;

    for (int rep = 0; rep < reps; rep++) {
        double t;
        /* html -> text (kept for the next stages) */
        t = now();
        for (size_t i = 0; i < ndocs; i++) {
            bdoc_t *b = &docs[i];
            rc = b->is_html ? ndd_text_from_html(b->body, b->body_len, &to, &buf)
                            : ndd_text_from_plain(b->body, b->body_len, &to, &buf);
            if (rc)
                die("text", rc);
            if (rep == 0) {
                b->text = ndd_buf_steal(&buf, &b->text_len);
                if (!b->text) {
                    b->text = calloc(1, 1);
                    b->text_len = 0;
                }
                text_bytes += b->text_len;
            }
        }
        t = now() - t;
        best[T_HTML] = t < best[T_HTML] ? t : best[T_HTML];

        /* split */
        t = now();
        size_t tot = 0;
        for (size_t i = 0; i < ndocs; i++) {
            bdoc_t *b = &docs[i];
            size_t ns = 0;
            if ((rc = ndd_text_sentences(b->text, b->text_len, sp.min_sentence, &tmp, &ns, &tmpcap)))
                die("sentences", rc);
            if (rep == 0) {
                if (nspans + ns > spcap) {
                    spcap = (nspans + ns) * 2;
                    spans = realloc(spans, spcap * sizeof *spans);
                }
                memcpy(spans + nspans, tmp, ns * sizeof *spans);
                b->span0 = nspans;
                b->nspans = ns;
                nspans += ns;
                for (size_t j = 0; j < ns; j++)
                    sent_bytes += tmp[j].len;
            }
            tot += ns;
        }
        t = now() - t;
        best[T_SPLIT] = t < best[T_SPLIT] ? t : best[T_SPLIT];

        /* raw MD5 over the same sentences */
        t = now();
        for (size_t i = 0; i < ndocs; i++) {
            const bdoc_t *b = &docs[i];
            for (size_t j = 0; j < b->nspans; j++) {
                const ndd_span_t *s = &spans[b->span0 + j];
                ndd_md5(b->text + s->off, s->len, dig);
                sink += dig[0];
            }
        }
        t = now() - t;
        best[T_MD5] = t < best[T_MD5] ? t : best[T_MD5];

        t = now();
        for (size_t i = 0; i < ndocs; i++) {
            const bdoc_t *b = &docs[i];
            if (b->nspans > digcap) {
                digcap = b->nspans * 2;
                digs = realloc(digs, digcap * sizeof *digs);
                if (!digs)
                    die("md5x", NDD_ERR_NOMEM);
            }
            ndd_md5_spans(b->text, spans + b->span0, b->nspans, digs);
            sink += b->nspans ? digs[0][0] : 0;
        }
        t = now() - t;
        best[T_MD5X] = t < best[T_MD5X] ? t : best[T_MD5X];

        t = now();
        for (size_t i = 0; i < ndocs; i++) {
            const bdoc_t *b = &docs[i];
            for (size_t j = 0; j < b->nspans; j++) {
                const ndd_span_t *s = &spans[b->span0 + j];
                unsigned ol = 0;
                EVP_DigestInit_ex(mctx, md5, NULL);
                EVP_DigestUpdate(mctx, b->text + s->off, s->len);
                EVP_DigestFinal_ex(mctx, dig, &ol);
                sink += dig[0];
            }
        }
        t = now() - t;
        best[T_EVP] = t < best[T_EVP] ? t : best[T_EVP];

        /* sentences -> signatures */
        t = now();
        uint64_t ns_total = 0;
        for (size_t i = 0; i < ndocs; i++) {
            const bdoc_t *b = &docs[i];
            if ((rc = ndd_sig_spans(ctx, b->text, spans + b->span0, b->nspans, out, &nout)))
                die("signatures", rc);
            ns_total += nout;
        }
        t = now() - t;
        best[T_SPANS] = t < best[T_SPANS] ? t : best[T_SPANS];
        nsigs = ns_total;

        /* text -> signatures */
        t = now();
        for (size_t i = 0; i < ndocs; i++) {
            const bdoc_t *b = &docs[i];
            size_t nsent;
            if ((rc = ndd_sig_doc(ctx, b->text, b->text_len, out, &nout, &nsent)))
                die("signatures", rc);
            sink += (unsigned)nout;
        }
        t = now() - t;
        best[T_TEXT] = t < best[T_TEXT] ? t : best[T_TEXT];

        /* raw body -> signatures */
        t = now();
        for (size_t i = 0; i < ndocs; i++) {
            const bdoc_t *b = &docs[i];
            size_t nsent;
            rc = b->is_html ? ndd_text_from_html(b->body, b->body_len, &to, &buf)
                            : ndd_text_from_plain(b->body, b->body_len, &to, &buf);
            if (rc || (rc = ndd_sig_doc(ctx, buf.data ? buf.data : "", buf.len, out, &nout, &nsent)))
                die("raw", rc);
            sink += (unsigned)nout;
        }
        t = now() - t;
        best[T_RAW] = t < best[T_RAW] ? t : best[T_RAW];
        (void)tot;
    }

    const double MB = 1e6;
    printf("bench_sig: %zu documents (%.1f MB bodies, %.1f MB HTML), %.1f MB text, %zu sentences "
           "(%.1f MB, mean %.0f bytes), %llu signatures; m=%u n=%u k=%u boilerplate=%s; best of %d\n",
           ndocs, body_bytes / MB, html_bytes / MB, text_bytes / MB, nspans, sent_bytes / MB,
           nspans ? (double)sent_bytes / nspans : 0.0, (unsigned long long)nsigs, sp.m, sp.n, sp.k,
           boilerplate ? "on" : "off", reps);
    printf("%-34s %9s %10s\n", "stage (input)", "seconds", "MB/s");
    printf("%-34s %9.3f %10.1f\n", "html->text (body MB)", best[T_HTML], body_bytes / MB / best[T_HTML]);
    printf("%-34s %9.3f %10.1f\n", "text->sentences (text MB)", best[T_SPLIT], text_bytes / MB / best[T_SPLIT]);
    printf("%-34s %9.3f %10.1f\n", "MD5() on sentences (text MB)", best[T_MD5], text_bytes / MB / best[T_MD5]);
    printf("%-34s %9.3f %10.1f\n", "MD5 16 lanes (ndd_md5_spans)", best[T_MD5X], text_bytes / MB / best[T_MD5X]);
    printf("%-34s %9.3f %10.1f\n", "EVP MD5 on sentences (text MB)", best[T_EVP], text_bytes / MB / best[T_EVP]);
    printf("%-34s %9.3f %10.1f\n", "sentences->signatures (text MB)", best[T_SPANS], text_bytes / MB / best[T_SPANS]);
    printf("%-34s %9.3f %10.1f\n", "text->signatures (text MB)", best[T_TEXT], text_bytes / MB / best[T_TEXT]);
    printf("%-34s %9.3f %10.1f\n", "raw body->signatures (body MB)", best[T_RAW], body_bytes / MB / best[T_RAW]);
    printf("ratio sentences->signatures / raw MD5():  %.2f  (goal >= 0.50)\n", best[T_MD5] / best[T_SPANS]);
    printf("ratio text->signatures / raw MD5():       %.2f\n", best[T_MD5] / best[T_TEXT]);
    printf("ratio EVP / MD5() (same sentences):       %.2f\n", best[T_MD5] / best[T_EVP]);
    printf("ratio 16 lanes / MD5() (same sentences):  %.2f\n", best[T_MD5] / best[T_MD5X]);
    printf("share of raw body->signatures time in html->text: %.0f %%\n", 100 * best[T_HTML] / best[T_RAW]);
    if (sink == 0x7fffffff)
        printf(" \n");

    for (size_t i = 0; i < ndocs; i++) {
        free(docs[i].body);
        free(docs[i].text);
    }
    free(docs);
    free(spans);
    free(digs);
    free(tmp);
    free(paths);
    ndd_buf_free(&buf);
    ndd_sig_ctx_free(ctx);
    EVP_MD_CTX_free(mctx);
    EVP_MD_free(md5);
    return 0;
}

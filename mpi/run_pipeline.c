/* run_pipeline.c - 'ndd run': paper 002's three steps as an MPI
 * MapReduce-style job. Every stage is local work in src/ plus one collective
 * movement here; see docs/architecture.md for the data flow and the
 * canonical output order.
 *
 * Global document numbers: ranks read contiguous byte ranges of the input
 * list in order, so an exclusive scan of the per-rank document counts numbers
 * documents in (file_index, offset) order whatever the rank count. Every
 * output is ordered by these numbers and written by the rank that read the
 * document, at offsets from an exclusive scan (MPI-IO). */
#include "run_internal.h"
#include "ndd_exchange.h"
#include "ndd_mpi.h"
#include "ndd_progress.h"
#include "ndd_util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <xxhash.h>
#include <zstd.h>

void ndd_run_cfg_default(ndd_run_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    c->format = NDD_FMT_AUTO;
    ndd_text_opts_default(&c->text);
    c->text.boilerplate = NDD_SIG_DEFAULT_BOILERPLATE; /* one text for signatures and verification */
    ndd_sig_params_default(&c->sig);
    ndd_postings_params_default(&c->postings);
    ndd_cand_params_default(&c->cand);
    c->giant_set = 1000;
    c->min_link_sigs = 2;
    c->giant_guard = 1;
    c->big_set = 64;
    c->verifier = NDD_VERIFIER_TLCS;
    c->window = 16;
    c->slope = 0.1;
    c->min_resemblance = 0.28;
    c->min_containment = 0.7;
    c->max_d = 0; /* 0 = the verifier's default */
    c->max_iter = 0;
    c->tau = 0.7;
    c->keep = NDD_KEEP_LONGEST;
    ndd_method_params_default(&c->mparams);
}

/* ------------------------------------------------------------------ */
/* stage bookkeeping                                                   */

static const char *stage_names[ST_N] = {"read", "signatures", "shuffle1", "postings", "components",
                                        "shuffle2", "verify", "output", "dedup"};

int ndd_docs_reserve(docs_t *d, size_t need)
{
    if (need <= d->cap)
        return NDD_OK;
    size_t c = d->cap ? d->cap * 2 : 4096;
    while (c < need)
        c *= 2;
#define RE(f)                                               \
    do {                                                    \
        void *q = realloc(d->f, c * sizeof *d->f);          \
        if (!q)                                             \
            return NDD_ERR_NOMEM;                           \
        d->f = q;                                           \
    } while (0)
    RE(id_off);
    RE(url_off);
    RE(text_off);
    RE(text_len);
    RE(site);
    RE(weight);
    RE(urlh);
#undef RE
    uint64_t *ko = realloc(d->key_off, (c + 1) * sizeof *ko);
    if (!ko)
        return NDD_ERR_NOMEM;
    d->key_off = ko;
    d->cap = c;
    return NDD_OK;
}

void ndd_docs_free(docs_t *d)
{
    free(d->id_off);
    free(d->url_off);
    free(d->text_off);
    free(d->text_len);
    free(d->site);
    free(d->weight);
    free(d->urlh);
    ndd_buf_free(&d->strs);
    ndd_buf_free(&d->texts);
    free(d->keys);
    free(d->key_off);
    free(d->in_set);
    free(d->removed);
    free(d->label);
    free(d->starts);
}

const char *ndd_doc_id(const run_t *r, size_t i) { return r->d.strs.data + r->d.id_off[i]; }
const char *ndd_doc_url(const run_t *r, size_t i) { return r->d.strs.data + r->d.url_off[i]; }

/* ------------------------------------------------------------------ */
/* stage 1-2: shard, read, text, signatures                            */

typedef struct {
    const ndd_input_t *in;
    uint64_t lo, hi; /* byte range inside the file; lo = 0, hi = UINT64_MAX for whole */
} piece_t;

/* The pieces of the input this rank reads: the concatenated byte stream of
 * all inputs is cut into P equal ranges; a splittable file is cut at range
 * borders (the reader takes the lines starting in its range), any other file
 * goes whole to the rank whose range holds its first byte. */
static int plan_shard(const ndd_input_t *in, size_t nin, int P, int me, piece_t **out, size_t *nout)
{
    uint64_t total = 0;
    for (size_t i = 0; i < nin; i++)
        total += in[i].size;
    uint64_t B0 = (uint64_t)((long double)total * me / P), B1 = (uint64_t)((long double)total * (me + 1) / P);
    piece_t *v = calloc(nin ? nin : 1, sizeof *v);
    if (!v)
        return NDD_ERR_NOMEM;
    size_t k = 0;
    uint64_t pos = 0;
    for (size_t i = 0; i < nin; i++) {
        uint64_t fs = pos, fe = pos + in[i].size;
        pos = fe;
        if (in[i].splittable && in[i].size > 0) {
            uint64_t lo = fs > B0 ? fs : B0, hi = fe < B1 ? fe : B1;
            if (lo < hi)
                v[k++] = (piece_t){&in[i], lo - fs, hi - fs};
        } else {
            /* owner of position fs: the largest rank r with B_r <= fs */
            int owner = 0;
            for (int r = P - 1; r >= 0; r--)
                if ((uint64_t)((long double)total * r / P) <= fs) {
                    owner = r;
                    break;
                }
            if (owner == me)
                v[k++] = (piece_t){&in[i], 0, UINT64_MAX};
        }
    }
    *out = v;
    *nout = k;
    return NDD_OK;
}

static void on_reject(void *user, const ndd_reject_t *rej)
{
    run_t *r = user;
    ndd_buf_t *b = &r->rejects;
    char num[64];
    ndd_tsv_append_field(b, rej->file, strlen(rej->file));
    if (rej->ordinal == UINT64_MAX)
        snprintf(num, sizeof num, "\t-\t%llu\t", (unsigned long long)rej->offset);
    else
        snprintf(num, sizeof num, "\t%llu\t%llu\t", (unsigned long long)rej->ordinal,
                 (unsigned long long)rej->offset);
    ndd_buf_puts(b, num);
    ndd_tsv_append_field(b, rej->reason, strlen(rej->reason));
    ndd_buf_putc(b, '\n');
    r->c.rejected++;
}

/* Reads map task `task` of `ntasks` (a normal run: task = rank, ntasks = P).
 * Local, except with progress = 1 (then collective: every rank reads). */
static int stage_read(run_t *r, const ndd_input_t *in, size_t nin, int task, int ntasks, int progress)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    piece_t *pieces = NULL;
    size_t npieces = 0;
    ndd_sig_ctx_t *sig = NULL;
    ndd_sig_t *sigs = NULL;
    ndd_buf_t text = NDD_BUF_INIT;
    ndd_reader_t *rd = NULL;
    int rc = plan_shard(in, nin, ntasks, task, &pieces, &npieces);
    if (rc)
        goto out;
    if ((rc = ndd_sig_ctx_create(&sig, &cfg->sig)))
        goto out;
    sigs = malloc(NDD_SIG_MAX * sizeof *sigs);
    if (!sigs) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    docs_t *d = &r->d;
    if ((rc = ndd_docs_reserve(d, 1)))
        goto out;
    d->key_off[0] = 0;
    double t_sig = 0, t0 = ndd_mpi_now();
    uint64_t my_bytes = 0, bytes_before = 0;
    for (size_t p = 0; p < npieces; p++)
        my_bytes += pieces[p].hi == UINT64_MAX ? pieces[p].in->size : pieces[p].hi - pieces[p].lo;
    if (progress && (rc = ndd_mpi_agree(rc)))
        goto out;
    ndd_progress_t *prog = progress ? ndd_progress_begin("read", "bytes", cfg->progress, my_bytes) : NULL;
    for (size_t p = 0; p < npieces && !rc; p++) {
        uint64_t piece_bytes = pieces[p].hi == UINT64_MAX ? pieces[p].in->size : pieces[p].hi - pieces[p].lo;
        uint64_t piece_lo = pieces[p].hi == UINT64_MAX ? 0 : pieces[p].lo;
        r->c.input_bytes += piece_bytes;
        if ((rc = ndd_reader_open(&rd, pieces[p].in, pieces[p].lo, pieces[p].hi, on_reject, r))) {
            /* an input that cannot be opened is a reject, not a failed run */
            ndd_reject_t rej = {pieces[p].in->name, pieces[p].in->file_index, UINT64_MAX, 0, ndd_strerror(rc)};
            on_reject(r, &rej);
            rc = NDD_OK;
            continue;
        }
        ndd_doc_t doc;
        while ((rc = ndd_reader_next(rd, &doc)) == NDD_OK) {
            r->c.docs_read++;
            if (prog && !(r->c.docs_read & 63)) {
                uint64_t in_piece = doc.offset > piece_lo ? doc.offset - piece_lo : 0;
                ndd_progress_update(prog, bytes_before + (in_piece < piece_bytes ? in_piece : piece_bytes));
            }
            rc = doc.is_html ? ndd_text_from_html(doc.body, doc.body_len, &cfg->text, &text)
                             : ndd_text_from_plain(doc.body, doc.body_len, &cfg->text, &text);
            if (rc)
                break;
            if (text.len == 0) {
                ndd_reject_t rej = {pieces[p].in->name, doc.file_index, doc.ordinal, doc.offset, "no visible text"};
                on_reject(r, &rej);
                r->c.no_text++;
                continue;
            }
            double ts = ndd_mpi_now();
            size_t nsig = 0, nsent = 0;
            if (!cfg->candidates && (rc = ndd_sig_doc(sig, text.data, text.len, sigs, &nsig, &nsent)))
                break; /* baseline candidates compute their keys later (they may need corpus df) */
            size_t i = d->n;
            if ((rc = ndd_docs_reserve(d, i + 1)) ||
                (rc = ndd_array_grow((void **)&d->keys, &d->keys_cap, d->nkeys + nsig, sizeof *d->keys)))
                break;
            for (size_t s = 0; s < nsig; s++)
                d->keys[d->nkeys + s] = ndd_sig_key(&sigs[s]);
            d->nkeys += nsig;
            d->key_off[i + 1] = d->nkeys;
            t_sig += ndd_mpi_now() - ts;
            d->id_off[i] = d->strs.len;
            if ((rc = ndd_buf_append(&d->strs, doc.id, strlen(doc.id) + 1)))
                break;
            d->url_off[i] = d->strs.len;
            if ((rc = ndd_buf_append(&d->strs, doc.url, strlen(doc.url) + 1)))
                break;
            d->text_off[i] = d->texts.len;
            d->text_len[i] = (uint32_t)text.len;
            if ((rc = ndd_buf_append(&d->texts, text.data, text.len)))
                break;
            d->site[i] = ndd_url_site(doc.url);
            d->weight[i] = (uint32_t)nsig;
            d->urlh[i] = ndd_url_hash16(doc.url);
            d->n++;
            r->c.text_bytes += text.len;
            r->c.signatures += nsig;
            if (!nsig && !cfg->candidates)
                r->c.no_sigs++;
        }
        if (rc == NDD_ERR_EOF)
            rc = NDD_OK;
        ndd_reader_free(rd);
        rd = NULL;
        bytes_before += piece_bytes;
    }
    ndd_progress_end(prog, my_bytes);
    r->t[ST_SIG] = t_sig;
    r->t[ST_READ] = ndd_mpi_now() - t0 - t_sig;
out:
    ndd_reader_free(rd);
    ndd_sig_ctx_free(sig);
    free(sigs);
    free(pieces);
    ndd_buf_free(&text);
    return rc;
}

/* ------------------------------------------------------------------ */
/* stage 3-4: shuffle 1 and postings                                   */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u64pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int key_dropped(const run_t *r, uint64_t key)
{
    size_t lo = 0, hi = r->ndropped;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->dropped[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->ndropped && r->dropped[lo] == key;
}

static ndd_buf_t *bufs_new(int P)
{
    return calloc((size_t)P, sizeof(ndd_buf_t));
}

static void bufs_free(ndd_buf_t *b, int P)
{
    if (!b)
        return;
    for (int i = 0; i < P; i++)
        ndd_buf_free(&b[i]);
    free(b);
}

static int stage_shuffle1_postings(run_t *r)
{
    int P = r->P, rc = NDD_OK;
    docs_t *d = &r->d;
    ndd_buf_t *send = bufs_new(P), *recv = bufs_new(P);
    ndd_posting_t *post = NULL, *tmp = NULL;
    uint64_t *scratch = NULL;
    uint64_t *dropped_local = NULL;
    size_t ndl = 0, dl_cap = 0, edge_cap = 0;
    int *counts = NULL, *displs = NULL;
    double t0 = ndd_mpi_now();
    if (!send || !recv) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < d->n && !rc; i++)
        for (uint64_t k = d->key_off[i]; k < d->key_off[i + 1]; k++) {
            ndd_posting_t p = {d->keys[k], d->first + i, d->site[i], d->urlh[i], (uint16_t)d->weight[i]};
            if ((rc = ndd_buf_append(&send[p.key % (uint64_t)P], &p, sizeof p)))
                break;
        }
    free(d->keys);
    d->keys = NULL;
    d->keys_cap = d->nkeys = 0;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    rc = ndd_exchange(send, recv, ndd_exchange_chunk(), &r->c.shuffle1_bytes);
    for (int s = 0; s < P; s++)
        ndd_buf_free(&send[s]);
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    r->t[ST_SHUFFLE1] = ndd_mpi_now() - t0;
    t0 = ndd_mpi_now();

    size_t np = 0;
    for (int s = 0; s < P; s++)
        np += recv[s].len / sizeof(ndd_posting_t);
    post = malloc((np ? np : 1) * sizeof *post);
    tmp = malloc((np ? np : 1) * sizeof *tmp);
    scratch = malloc((np ? np : 1) * sizeof *scratch);
    if (!post || !tmp || !scratch)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    size_t at = 0;
    for (int s = 0; s < P; s++) {
        if (recv[s].len)
            memcpy(post + at, recv[s].data, recv[s].len);
        at += recv[s].len / sizeof(ndd_posting_t);
        ndd_buf_free(&recv[s]);
    }
    /* sources are in rank order and each sent its documents in order, and
     * ranks hold increasing document ranges: post[] is ordered by document */
    if ((rc = ndd_postings_sort_key(post, tmp, np)))
        goto agree;
    free(tmp);
    tmp = NULL;
    ndd_postings_params_t pp = r->cfg->postings;
    pp.total_docs = d->starts[P];
    for (size_t a = 0; a < np;) {
        size_t b = a + 1;
        while (b < np && post[b].key == post[a].key)
            b++;
        /* a document holding one key twice (two slots with equal bits) counts once */
        size_t w = a + 1;
        for (size_t x = a + 1; x < b; x++)
            if (post[x].doc != post[w - 1].doc)
                post[w++] = post[x];
        size_t n = w - a;
        r->c.keys_distinct++;
        ndd_list_kind_t kind = ndd_postings_classify(post + a, n, &pp, scratch);
        switch (kind) {
        case NDD_LIST_SINGLE:
            r->c.postings_single++;
            break;
        case NDD_LIST_DROP_FREQUENT:
        case NDD_LIST_DROP_SITE:
        case NDD_LIST_DROP_TEMPLATE: {
            if (kind == NDD_LIST_DROP_FREQUENT)
                r->c.lists_dropped_frequent++; /* > max_docs or > max_share of the corpus */
            else if (kind == NDD_LIST_DROP_SITE)
                r->c.lists_dropped_site++;
            else
                r->c.lists_dropped_template++;
            r->c.postings_dropped += n;
            if ((rc = ndd_array_grow((void **)&dropped_local, &dl_cap, ndl + 1, sizeof *dropped_local)))
                goto agree;
            dropped_local[ndl++] = post[a].key;
            break;
        }
        case NDD_LIST_LIVE: {
            r->c.lists_live++;
            size_t rep = a + ndd_postings_representative(post + a, n);
            if ((rc = ndd_array_grow((void **)&r->edges, &edge_cap, 2 * (r->nedges + n), sizeof *r->edges)))
                goto agree;
            for (size_t x = a; x < w; x++) {
                if (x == rep)
                    continue;
                uint64_t u = post[x].doc, v = post[rep].doc;
                r->edges[2 * r->nedges] = u < v ? u : v;
                r->edges[2 * r->nedges + 1] = u < v ? v : u;
                r->nedges++;
            }
            break;
        }
        }
        a = b;
    }
    /* links with their multiplicity (how many signatures link the pair) */
    ndd_qsort(r->edges, r->nedges, 2 * sizeof *r->edges, cmp_u64pair);
    for (size_t e = 0; e < r->nedges && !rc;) {
        size_t f = e + 1;
        while (f < r->nedges && r->edges[2 * f] == r->edges[2 * e] && r->edges[2 * f + 1] == r->edges[2 * e + 1])
            f++;
        uint64_t rec[3] = {r->edges[2 * e], r->edges[2 * e + 1], f - e};
        uint64_t h = XXH3_64bits(rec, 2 * sizeof *rec);
        rc = ndd_buf_append(&send[h % (uint64_t)P], rec, sizeof rec);
        e = f;
    }
    free(r->edges);
    r->edges = NULL;
    r->nedges = 0;
agree:
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    /* global multiplicity: every link goes to one rank by hash; keep the
     * links supported by at least min_link_sigs signatures */
    if ((rc = ndd_exchange(send, recv, ndd_exchange_chunk(), &r->c.shuffle1_bytes)))
        goto out;
    {
        size_t nl = 0;
        for (int s = 0; s < P; s++)
            nl += recv[s].len / (3 * sizeof(uint64_t));
        uint64_t *lk = malloc((nl ? nl : 1) * 3 * sizeof *lk);
        r->edges = malloc((nl ? nl : 1) * 2 * sizeof *r->edges);
        r->emult = malloc((nl ? nl : 1) * sizeof *r->emult);
        if (!lk || !r->edges || !r->emult)
            rc = NDD_ERR_NOMEM;
        size_t got = 0;
        for (int s = 0; s < P && !rc; s++) {
            if (recv[s].len)
                memcpy(lk + 3 * got, recv[s].data, recv[s].len);
            got += recv[s].len / (3 * sizeof(uint64_t));
            ndd_buf_free(&recv[s]);
        }
        if (!rc)
            ndd_qsort(lk, nl, 3 * sizeof *lk, cmp_u64pair);
        for (size_t e = 0; e < nl && !rc;) {
            size_t f = e;
            uint64_t mult = 0;
            while (f < nl && lk[3 * f] == lk[3 * e] && lk[3 * f + 1] == lk[3 * e + 1])
                mult += lk[3 * f++ + 2];
            r->c.links_all++;
            if (mult >= r->cfg->min_link_sigs) {
                r->edges[2 * r->nedges] = lk[3 * e];
                r->edges[2 * r->nedges + 1] = lk[3 * e + 1];
                r->emult[r->nedges] = mult > UINT32_MAX ? UINT32_MAX : (uint32_t)mult;
                r->nedges++;
            }
            e = f;
        }
        r->c.edges = r->nedges;
        free(lk);
    }
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    /* every rank learns the dropped keys (the verifiers ignore them) */
    counts = malloc((size_t)P * sizeof *counts);
    displs = malloc((size_t)P * sizeof *displs);
    if ((rc = ndd_mpi_agree(!counts || !displs ? NDD_ERR_NOMEM : NDD_OK)))
        goto out;
    int mine = (int)ndl;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    size_t total = 0;
    for (int s = 0; s < P; s++) {
        displs[s] = (int)total;
        total += (size_t)counts[s];
    }
    r->dropped = malloc((total ? total : 1) * sizeof *r->dropped);
    if ((rc = ndd_mpi_agree(r->dropped ? NDD_OK : NDD_ERR_NOMEM)))
        goto out;
    MPI_Allgatherv(dropped_local, mine, MPI_UINT64_T, r->dropped, counts, displs, MPI_UINT64_T, MPI_COMM_WORLD);
    r->ndropped = total;
    ndd_qsort(r->dropped, total, sizeof *r->dropped, cmp_u64);
    r->t[ST_POSTINGS] = ndd_mpi_now() - t0;
out:
    bufs_free(send, P);
    bufs_free(recv, P);
    free(post);
    free(tmp);
    free(scratch);
    free(dropped_local);
    free(counts);
    free(displs);
    return rc;
}

/* ------------------------------------------------------------------ */
/* stage 5: perhaps-similar sets = connected components               */

/* Sends, for each rank d, the slice ids[lo_d..hi_d) of the sorted array ids
 * (ids grouped by owner because owners hold contiguous ranges) and returns in
 * reply[] what each owner answered for them, in the same order: the owner
 * maps every requested g to answer(g). */
typedef uint64_t (*answer_fn)(run_t *r, uint64_t g);

static uint64_t answer_label(run_t *r, uint64_t g)
{
    size_t i = (size_t)(g - r->d.first);
    r->d.in_set[i] = 1;
    return r->d.label[i];
}

static int request_by_owner(run_t *r, const uint64_t *ids, size_t n, answer_fn fn, uint64_t *reply)
{
    int P = r->P, rc = NDD_OK;
    ndd_buf_t *send = bufs_new(P), *recv = bufs_new(P);
    size_t *from = calloc((size_t)P + 1, sizeof *from);
    if (!send || !recv || !from)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    for (size_t i = 0; i < n; i++) {
        int o = ndd_owner_of(r->d.starts, P, ids[i]);
        if ((rc = ndd_buf_append(&send[o], &ids[i], sizeof ids[i])))
            break;
    }
    if ((rc = ndd_mpi_agree(rc)) || (rc = ndd_exchange(send, recv, ndd_exchange_chunk(), NULL)))
        goto out;
    /* answer in place, send back */
    for (int s = 0; s < P; s++) {
        uint64_t *q = (uint64_t *)recv[s].data;
        size_t m = recv[s].len / sizeof *q;
        for (size_t i = 0; i < m; i++)
            q[i] = fn(r, q[i]);
        from[s] = send[s].len / sizeof(uint64_t);
    }
    if ((rc = ndd_exchange(recv, send, ndd_exchange_chunk(), NULL)))
        goto out;
    size_t at = 0;
    for (int s = 0; s < P; s++) {
        if (send[s].len)
            memcpy(reply + at, send[s].data, send[s].len);
        at += send[s].len / sizeof(uint64_t);
    }
out:
    bufs_free(send, P);
    bufs_free(recv, P);
    free(from);
    return rc;
}

/* One connected-components pass over the active links: labels converge to
 * the smallest document number of each component. Collective. */
static int cc_once(run_t *r, const uint8_t *active, uint64_t *rounds)
{
    int P = r->P, rc = NDD_OK;
    docs_t *d = &r->d;
    uint64_t *ends = NULL, *lab = NULL, *minlab = NULL;
    ndd_uf_t uf = {0};
    ndd_buf_t *send = bufs_new(P), *recv = bufs_new(P);
    for (size_t i = 0; i < d->n; i++) {
        d->label[i] = d->first + i;
        d->in_set[i] = 0;
    }
    size_t ne = 0;
    ends = malloc((2 * r->nedges + 1) * sizeof *ends);
    if (!ends || !send || !recv)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    for (size_t e = 0; e < r->nedges; e++)
        if (active[e]) {
            ends[ne++] = r->edges[2 * e];
            ends[ne++] = r->edges[2 * e + 1];
        }
    ndd_qsort(ends, ne, sizeof *ends, cmp_u64);
    size_t nu = 0;
    for (size_t i = 0; i < ne; i++)
        if (!nu || ends[i] != ends[nu - 1])
            ends[nu++] = ends[i];
    lab = malloc((nu ? nu : 1) * sizeof *lab);
    minlab = malloc((nu ? nu : 1) * sizeof *minlab);
    if (!lab || !minlab || nu > UINT32_MAX)
        rc = NDD_ERR_NOMEM;
    if (!rc)
        rc = ndd_uf_init(&uf, nu);
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    for (size_t e = 0; e < r->nedges; e++) {
        if (!active[e])
            continue;
        uint64_t *pu = bsearch(&r->edges[2 * e], ends, nu, sizeof *ends, cmp_u64);
        uint64_t *pv = bsearch(&r->edges[2 * e + 1], ends, nu, sizeof *ends, cmp_u64);
        ndd_uf_union(&uf, (uint32_t)(pu - ends), (uint32_t)(pv - ends));
    }
    /* rounds: fetch labels, take the minimum over each local component, push
     * decreases to the owners; stop when no rank changed a label */
    for (;;) {
        (*rounds)++;
        if ((rc = request_by_owner(r, ends, nu, answer_label, lab)))
            goto out;
        for (size_t i = 0; i < nu; i++)
            minlab[i] = UINT64_MAX;
        for (size_t i = 0; i < nu; i++) {
            uint32_t root = ndd_uf_find(&uf, (uint32_t)i);
            if (lab[i] < minlab[root])
                minlab[root] = lab[i];
        }
        for (int s = 0; s < P; s++)
            ndd_buf_clear(&send[s]);
        for (size_t i = 0; i < nu && !rc; i++) {
            uint64_t m = minlab[ndd_uf_find(&uf, (uint32_t)i)];
            if (m < lab[i]) {
                uint64_t upd[2] = {ends[i], m};
                rc = ndd_buf_append(&send[ndd_owner_of(d->starts, P, ends[i])], upd, sizeof upd);
            }
        }
        if ((rc = ndd_mpi_agree(rc)) || (rc = ndd_exchange(send, recv, ndd_exchange_chunk(), NULL)))
            goto out;
        int changed = 0, any = 0;
        for (int s = 0; s < P; s++) {
            const uint64_t *u = (const uint64_t *)recv[s].data;
            size_t nupd = recv[s].len / (2 * sizeof *u);
            for (size_t k = 0; k < nupd; k++) {
                size_t i = (size_t)(u[2 * k] - d->first);
                if (u[2 * k + 1] < d->label[i]) {
                    d->label[i] = u[2 * k + 1];
                    changed = 1;
                }
            }
        }
        MPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        if (!any)
            break;
    }
out:
    bufs_free(send, P);
    bufs_free(recv, P);
    free(ends);
    free(lab);
    free(minlab);
    ndd_uf_free(&uf);
    return rc;
}

static int cmp_lc(const void *a, const void *b)
{
    const lc_t *x = a, *y = b;
    return x->label < y->label ? -1 : x->label > y->label;
}

/* Set sizes. Every local document in a set gets its set's size in
 * size_of[]; the labels this rank owns and their sizes are left in
 * r->owned (sorted by label). *largest = the largest set of all ranks.
 * Collective. */
static int set_sizes(run_t *r, uint64_t *size_of, uint64_t *largest)
{
    int P = r->P, rc = NDD_OK;
    docs_t *d = &r->d;
    lc_t *mine = malloc((d->n ? d->n : 1) * sizeof *mine);
    ndd_buf_t *send = bufs_new(P), *recv = bufs_new(P);
    size_t nm = 0;
    if (!mine || !send || !recv)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    for (size_t i = 0; i < d->n; i++)
        if (d->in_set[i])
            mine[nm++] = (lc_t){d->label[i], 1};
    ndd_qsort(mine, nm, sizeof *mine, cmp_lc);
    size_t nl = 0;
    for (size_t i = 0; i < nm; i++) {
        if (nl && mine[nl - 1].label == mine[i].label)
            mine[nl - 1].count++;
        else
            mine[nl++] = mine[i];
    }
    for (size_t i = 0; i < nl && !rc; i++)
        rc = ndd_buf_append(&send[ndd_owner_of(d->starts, P, mine[i].label)], &mine[i], sizeof mine[i]);
    if ((rc = ndd_mpi_agree(rc)) || (rc = ndd_exchange(send, recv, ndd_exchange_chunk(), NULL)))
        goto out;
    size_t nrecv = 0;
    for (int s = 0; s < P; s++)
        nrecv += recv[s].len / sizeof(lc_t);
    free(r->owned);
    r->owned = malloc((nrecv ? nrecv : 1) * sizeof *r->owned);
    if ((rc = ndd_mpi_agree(r->owned ? NDD_OK : NDD_ERR_NOMEM)))
        goto out;
    size_t at = 0;
    for (int s = 0; s < P; s++) {
        if (recv[s].len)
            memcpy(r->owned + at, recv[s].data, recv[s].len);
        at += recv[s].len / sizeof(lc_t);
    }
    ndd_qsort(r->owned, nrecv, sizeof *r->owned, cmp_lc);
    size_t nt = 0;
    uint64_t big = 0;
    for (size_t i = 0; i < nrecv; i++) {
        if (nt && r->owned[nt - 1].label == r->owned[i].label)
            r->owned[nt - 1].count += r->owned[i].count;
        else
            r->owned[nt++] = r->owned[i];
    }
    r->nowned = nt;
    for (size_t i = 0; i < nt; i++)
        if (r->owned[i].count > big)
            big = r->owned[i].count;
    MPI_Allreduce(&big, largest, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    /* answer every source with the sizes of the labels it asked about, in order */
    for (int s = 0; s < P; s++) {
        lc_t *q = (lc_t *)recv[s].data;
        size_t m = recv[s].len / sizeof *q;
        for (size_t i = 0; i < m; i++)
            q[i].count = ((lc_t *)bsearch(&q[i], r->owned, nt, sizeof *r->owned, cmp_lc))->count;
    }
    if ((rc = ndd_exchange(recv, send, ndd_exchange_chunk(), NULL)))
        goto out;
    {
        /* answers come back per owner in the order asked; owners are
         * monotone in label, so the concatenation is sorted by label */
        size_t na = 0;
        for (int s = 0; s < P; s++)
            na += send[s].len / sizeof(lc_t);
        lc_t *ans = malloc((na ? na : 1) * sizeof *ans);
        if ((rc = ndd_mpi_agree(ans ? NDD_OK : NDD_ERR_NOMEM))) {
            free(ans);
            goto out;
        }
        size_t k = 0;
        for (int s = 0; s < P; s++) {
            if (send[s].len)
                memcpy(ans + k, send[s].data, send[s].len);
            k += send[s].len / sizeof(lc_t);
        }
        for (size_t i = 0; i < d->n; i++) {
            size_of[i] = 1;
            if (d->in_set[i]) {
                lc_t key = {d->label[i], 0};
                size_of[i] = ((lc_t *)bsearch(&key, ans, na, sizeof *ans, cmp_lc))->count;
            }
        }
        free(ans);
    }
out:
    free(mine);
    bufs_free(send, P);
    bufs_free(recv, P);
    return rc;
}

static uint64_t *g_size_of; /* for answer_size */
static uint64_t answer_size(run_t *r, uint64_t g) { return g_size_of[g - r->d.first]; }

typedef struct {
    uint64_t label, u, v, support;
} glink_t;

static int cmp_glink(const void *a, const void *b)
{
    const glink_t *x = a, *y = b; /* by set, strongest first, then by ends */
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    if (x->support != y->support)
        return x->support > y->support ? -1 : 1;
    if (x->u != y->u)
        return x->u < y->u ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Giant-set guard: size-capped single linkage. The links of every giant set
 * (>= giant_set documents) go to the owner of the set's label, which unites
 * their ends strongest link first (ties by document numbers) and refuses a
 * union that would make a component of giant_set documents or more; the
 * components are the new sets. True near-duplicate clusters are held by
 * their strongest links and always form; what is refused are the weakest
 * links of oversized chains (generic sentences, shared paragraphs of
 * different articles). One rank handles each giant set, in a fixed order:
 * the result does not depend on the rank count. Collective. */
static int split_giant_sets(run_t *r, uint64_t *size_of)
{
    int P = r->P, rc = NDD_OK;
    docs_t *d = &r->d;
    ndd_buf_t *send = bufs_new(P), *recv = bufs_new(P);
    uint64_t *ends = malloc((2 * r->nedges + 1) * sizeof *ends), *info = NULL;
    glink_t *gl = NULL;
    uint64_t *nodes = NULL;
    uint32_t *csz = NULL;
    ndd_uf_t uf = {0};
    size_t nq = 0, nu = 0;
    if (!send || !recv || !ends)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    for (size_t e = 0; e < r->nedges; e++)
        ends[nq++] = r->edges[2 * e];
    ndd_qsort(ends, nq, sizeof *ends, cmp_u64);
    for (size_t i = 0; i < nq; i++)
        if (!nu || ends[i] != ends[nu - 1])
            ends[nu++] = ends[i];
    info = malloc((2 * nu + 1) * sizeof *info);
    if ((rc = ndd_mpi_agree(info ? NDD_OK : NDD_ERR_NOMEM)))
        goto out;
    /* label and set size of every link's first end (both ends share both) */
    g_size_of = size_of;
    if ((rc = request_by_owner(r, ends, nu, answer_label, info)) ||
        (rc = request_by_owner(r, ends, nu, answer_size, info + nu)))
        goto out;
    for (size_t e = 0; e < r->nedges && !rc; e++) {
        size_t iu = (size_t)((uint64_t *)bsearch(&r->edges[2 * e], ends, nu, sizeof *ends, cmp_u64) - ends);
        if (info[nu + iu] < r->cfg->giant_set)
            continue;
        glink_t g = {info[iu], r->edges[2 * e], r->edges[2 * e + 1], r->emult[e]};
        rc = ndd_buf_append(&send[ndd_owner_of(d->starts, P, g.label)], &g, sizeof g);
    }
    if ((rc = ndd_mpi_agree(rc)) || (rc = ndd_exchange(send, recv, ndd_exchange_chunk(), NULL)))
        goto out;
    size_t ng = 0;
    for (int s = 0; s < P; s++)
        ng += recv[s].len / sizeof(glink_t);
    gl = malloc((ng + 1) * sizeof *gl);
    nodes = malloc((2 * ng + 1) * sizeof *nodes);
    if ((rc = ndd_mpi_agree(!gl || !nodes ? NDD_ERR_NOMEM : NDD_OK)))
        goto out;
    size_t at = 0;
    for (int s = 0; s < P; s++) {
        if (recv[s].len)
            memcpy(gl + at, recv[s].data, recv[s].len);
        at += recv[s].len / sizeof(glink_t);
        ndd_buf_clear(&send[s]);
    }
    ndd_qsort(gl, ng, sizeof *gl, cmp_glink);
    for (size_t a = 0; a < ng && !rc;) {
        size_t b = a;
        while (b < ng && gl[b].label == gl[a].label)
            b++;
        /* the set's nodes, sorted: union-find roots are the smallest index =
         * the smallest document number */
        size_t nn = 0;
        for (size_t k = a; k < b; k++) {
            nodes[nn++] = gl[k].u;
            nodes[nn++] = gl[k].v;
        }
        ndd_qsort(nodes, nn, sizeof *nodes, cmp_u64);
        size_t w = 0;
        for (size_t k = 0; k < nn; k++)
            if (!w || nodes[k] != nodes[w - 1])
                nodes[w++] = nodes[k];
        nn = w;
        free(csz);
        csz = malloc(nn * sizeof *csz);
        ndd_uf_free(&uf);
        if (!csz || (rc = ndd_uf_init(&uf, nn))) {
            rc = rc ? rc : NDD_ERR_NOMEM;
            break;
        }
        for (size_t k = 0; k < nn; k++)
            csz[k] = 1;
        for (size_t k = a; k < b; k++) {
            uint32_t x = (uint32_t)((uint64_t *)bsearch(&gl[k].u, nodes, nn, sizeof *nodes, cmp_u64) - nodes);
            uint32_t y = (uint32_t)((uint64_t *)bsearch(&gl[k].v, nodes, nn, sizeof *nodes, cmp_u64) - nodes);
            uint32_t rx = ndd_uf_find(&uf, x), ry = ndd_uf_find(&uf, y);
            if (rx == ry)
                continue;
            if ((uint64_t)csz[rx] + csz[ry] >= r->cfg->giant_set) {
                r->c.links_cut_giant++;
                continue;
            }
            ndd_uf_union(&uf, rx, ry);
            csz[ndd_uf_find(&uf, rx)] = csz[rx] + csz[ry];
        }
        r->c.giant_sets_split++;
        for (size_t k = 0; k < nn && !rc; k++) {
            uint32_t root = ndd_uf_find(&uf, (uint32_t)k);
            uint64_t upd[3] = {nodes[k], nodes[root], csz[root]};
            rc = ndd_buf_append(&send[ndd_owner_of(d->starts, P, nodes[k])], upd, sizeof upd);
        }
        a = b;
    }
    if ((rc = ndd_mpi_agree(rc)) || (rc = ndd_exchange(send, recv, ndd_exchange_chunk(), NULL)))
        goto out;
    for (int s = 0; s < P; s++) {
        const uint64_t *q = (const uint64_t *)recv[s].data;
        size_t m = recv[s].len / (3 * sizeof *q);
        for (size_t k = 0; k < m; k++) {
            size_t i = (size_t)(q[3 * k] - d->first);
            d->label[i] = q[3 * k + 1];
            d->in_set[i] = q[3 * k + 2] > 1; /* a node left alone is no longer in a set */
        }
    }
out:
    bufs_free(send, P);
    bufs_free(recv, P);
    free(ends);
    free(info);
    free(gl);
    free(nodes);
    free(csz);
    ndd_uf_free(&uf);
    return rc;
}

/* Perhaps-similar sets: connected components of the links, then the giant-
 * set guard (split_giant_sets) when a set holds giant_set documents or more.
 * Collective. On return size_of[] holds each local document's set size. */
static int stage_components(run_t *r, uint64_t *size_of)
{
    int rc = NDD_OK;
    docs_t *d = &r->d;
    double t0 = ndd_mpi_now();
    uint8_t *active = malloc(r->nedges ? r->nedges : 1);
    uint64_t *ends = NULL, *esize = NULL;
    d->label = malloc((d->n ? d->n : 1) * sizeof *d->label);
    d->in_set = calloc(d->n ? d->n : 1, 1);
    if (!active || !d->label || !d->in_set)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    memset(active, 1, r->nedges);
    uint64_t largest = 0;
    if ((rc = cc_once(r, active, &r->cc_rounds)) || (rc = set_sizes(r, size_of, &largest)))
        goto out;
    if (largest >= r->cfg->giant_set && r->cfg->giant_guard) {
        if ((rc = split_giant_sets(r, size_of)) || (rc = set_sizes(r, size_of, &largest)))
            goto out;
    }
out:
    free(active);
    free(ends);
    free(esize);
    free(r->edges);
    r->edges = NULL;
    r->t[ST_CC] = ndd_mpi_now() - t0;
    return rc;
}

/* ------------------------------------------------------------------ */
/* set placement                                                       */

typedef struct {
    uint64_t label, size, dest;
} lsd_t;

static int cmp_big(const void *a, const void *b)
{
    const lc_t *x = a, *y = b; /* (size desc, label asc) */
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->label < y->label ? -1 : x->label > y->label;
}

static int cmp_lsd(const void *a, const void *b)
{
    const lsd_t *x = a, *y = b;
    return x->label < y->label ? -1 : x->label > y->label;
}

static uint64_t hash_dest(uint64_t label, int P)
{
    return XXH3_64bits(&label, sizeof label) % (uint64_t)P;
}

/* Destination rank of every local document in a set: sets smaller than
 * big_set by a hash of their label; big sets by LPT over all ranks (largest
 * first onto the least loaded rank; cost = size, as candidate pairs are
 * bounded per member). Also the set statistics (owner of each label counts
 * it). Collective. */
static int stage_place_sets(run_t *r, const uint64_t *size_of, uint32_t *dest_of)
{
    int P = r->P, rc = NDD_OK;
    docs_t *d = &r->d;
    lc_t *big = NULL, *allbig = NULL;
    lsd_t *bigdest = NULL;
    uint64_t *load = NULL;
    int *counts = NULL, *displs = NULL;
    size_t nbig = 0;
    big = malloc((r->nowned ? r->nowned : 1) * sizeof *big);
    counts = malloc((size_t)P * sizeof *counts);
    displs = malloc((size_t)P * sizeof *displs);
    load = calloc((size_t)P, sizeof *load);
    if (!big || !counts || !displs || !load)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    for (size_t i = 0; i < r->nowned; i++) {
        uint64_t sz = r->owned[i].count;
        r->c.sets++;
        r->c.docs_in_sets += sz;
        int b = 0;
        while (b + 1 < HIST_N && (sz >> (b + 1)) > 0)
            b++;
        r->c.hist[b]++;
        if (sz >= r->cfg->giant_set) {
            r->c.giant_sets++;
            r->c.docs_in_giant_sets += sz;
        }
        if (sz >= r->cfg->big_set)
            big[nbig++] = r->owned[i];
    }
    int nb = (int)(nbig * sizeof(lc_t));
    MPI_Allgather(&nb, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
    size_t totalb = 0;
    for (int s = 0; s < P; s++) {
        displs[s] = (int)totalb;
        totalb += (size_t)counts[s];
    }
    allbig = malloc(totalb ? totalb : 1);
    size_t nallbig = totalb / sizeof(lc_t);
    bigdest = malloc((nallbig ? nallbig : 1) * sizeof *bigdest);
    if ((rc = ndd_mpi_agree(!allbig || !bigdest ? NDD_ERR_NOMEM : NDD_OK)))
        goto out;
    MPI_Allgatherv(big, nb, MPI_BYTE, allbig, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
    ndd_qsort(allbig, nallbig, sizeof *allbig, cmp_big);
    for (size_t i = 0; i < nallbig; i++) {
        int best = 0;
        for (int s = 1; s < P; s++)
            if (load[s] < load[best])
                best = s;
        load[best] += allbig[i].count;
        bigdest[i] = (lsd_t){allbig[i].label, allbig[i].count, (uint64_t)best};
    }
    ndd_qsort(bigdest, nallbig, sizeof *bigdest, cmp_lsd);
    for (size_t i = 0; i < d->n; i++) {
        if (!d->in_set[i])
            continue;
        dest_of[i] = (uint32_t)hash_dest(d->label[i], P);
        if (size_of[i] >= r->cfg->big_set) {
            lsd_t key = {d->label[i], 0, 0};
            lsd_t *hit = bsearch(&key, bigdest, nallbig, sizeof *bigdest, cmp_lsd);
            if (hit)
                dest_of[i] = (uint32_t)hit->dest;
        }
    }
out:
    free(big);
    free(allbig);
    free(bigdest);
    free(load);
    free(counts);
    free(displs);
    return rc;
}

/* ------------------------------------------------------------------ */
/* stage 6: shuffle 2 (zstd-compressed texts to the set owners)        */

typedef struct {
    uint64_t g, label;
    uint32_t idlen, urllen, textlen, pad;
} docrec_t;

typedef struct {
    uint64_t label, g;
    uint32_t dest;
    uint32_t i;
} order_t;

static int cmp_order(const void *a, const void *b)
{
    const order_t *x = a, *y = b;
    if (x->dest != y->dest)
        return x->dest < y->dest ? -1 : 1;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

static int compress_bufs(ndd_buf_t *raw, ndd_buf_t *out, int P, ZSTD_CCtx *cctx)
{
    for (int s = 0; s < P; s++) {
        ndd_buf_clear(&out[s]);
        if (!raw[s].len)
            continue;
        size_t bound = ZSTD_compressBound(raw[s].len);
        uint64_t rawlen = raw[s].len;
        int rc = ndd_buf_reserve(&out[s], bound + sizeof rawlen);
        if (rc)
            return rc;
        memcpy(out[s].data, &rawlen, sizeof rawlen);
        size_t z = ZSTD_compress2(cctx, out[s].data + sizeof rawlen, bound, raw[s].data, raw[s].len);
        if (ZSTD_isError(z))
            return NDD_ERR_COMPRESS;
        out[s].len = sizeof rawlen + z;
    }
    return NDD_OK;
}

static int decompress_bufs(ndd_buf_t *in, ndd_buf_t *out, int P)
{
    for (int s = 0; s < P; s++) {
        ndd_buf_clear(&out[s]);
        if (!in[s].len)
            continue;
        uint64_t rawlen;
        if (in[s].len < sizeof rawlen)
            return NDD_ERR_FORMAT;
        memcpy(&rawlen, in[s].data, sizeof rawlen);
        int rc = ndd_buf_reserve(&out[s], (size_t)rawlen);
        if (rc)
            return rc;
        size_t z = ZSTD_decompress(out[s].data, (size_t)rawlen, in[s].data + sizeof rawlen, in[s].len - sizeof rawlen);
        if (ZSTD_isError(z) || z != rawlen)
            return NDD_ERR_COMPRESS;
        out[s].len = z;
        ndd_buf_free(&in[s]);
    }
    return NDD_OK;
}

/* ------------------------------------------------------------------ */
/* stage 7-8: verification inside sets, clusters                      */

typedef struct {
    uint64_t g, label;
    const char *id, *url, *text;
    uint32_t idlen, urllen, textlen;
} member_t;

static int cmp_member(const void *a, const void *b)
{
    const member_t *x = a, *y = b;
    if (x->label != y->label)
        return x->label < y->label ? -1 : 1;
    return x->g < y->g ? -1 : x->g > y->g;
}

/* a row for the output writer: sorted by (k1, k2) at the owner of k1 */
static int emit_row(ndd_buf_t *send, const uint64_t *starts, int P, uint64_t k1, uint64_t k2,
                    const ndd_buf_t *line)
{
    uint32_t len = (uint32_t)line->len;
    ndd_buf_t *b = &send[ndd_owner_of(starts, P, k1)];
    int rc;
    if ((rc = ndd_buf_append(b, &k1, sizeof k1)) || (rc = ndd_buf_append(b, &k2, sizeof k2)) ||
        (rc = ndd_buf_append(b, &len, sizeof len)) || (rc = ndd_buf_append(b, line->data, line->len)))
        return rc;
    return NDD_OK;
}

static void fmt_score(ndd_buf_t *b, double v)
{
    char num[32];
    snprintf(num, sizeof num, "%.6f", v);
    ndd_buf_puts(b, num);
}

static void note_top(run_t *r, uint64_t size, uint64_t label, const member_t *first)
{
    if (r->ntop == TOP_N && size <= r->top[TOP_N - 1].size)
        return;
    topset_t t = {size, label, {0}};
    size_t n = first->idlen < sizeof t.first_id - 1 ? first->idlen : sizeof t.first_id - 1;
    memcpy(t.first_id, first->id, n);
    size_t pos = r->ntop < TOP_N ? r->ntop++ : TOP_N - 1;
    r->top[pos] = t;
    while (pos > 0 && (r->top[pos].size > r->top[pos - 1].size ||
                       (r->top[pos].size == r->top[pos - 1].size && r->top[pos].label < r->top[pos - 1].label))) {
        topset_t x = r->top[pos];
        r->top[pos] = r->top[pos - 1];
        r->top[pos - 1] = x;
        pos--;
    }
}

static void fmt_pair(ndd_buf_t *line, const run_t *r, const member_t *a, const member_t *b, const char *vname,
                     const ndd_vres_t *v)
{
    char num[32];
    ndd_buf_clear(line);
    ndd_tsv_append_field(line, a->id, a->idlen);
    ndd_buf_putc(line, '\t');
    ndd_tsv_append_field(line, b->id, b->idlen);
    ndd_buf_putc(line, '\t');
    ndd_buf_puts(line, vname);
    ndd_buf_putc(line, '\t');
    if (r->cfg->verifier == NDD_VERIFIER_TLCS) {
        fmt_score(line, v->resemblance);
        ndd_buf_putc(line, '\t');
        fmt_score(line, v->containment);
        ndd_buf_puts(line, "\t-\t");
    } else if (r->cfg->verifier == NDD_VERIFIER_SIGNCD) {
        ndd_buf_puts(line, "-\t-\t");
        fmt_score(line, v->ncd);
        ndd_buf_putc(line, '\t');
    } else {
        ndd_buf_puts(line, "-\t-\t-\t");
    }
    snprintf(num, sizeof num, "%llu\t", (unsigned long long)v->tlcs);
    ndd_buf_puts(line, num);
    fmt_score(line, v->score);
}

static int verify_set(run_t *r, member_t *m, size_t n, ndd_verifier_t *vf, ndd_sig_ctx_t *sig, ndd_sig_t *sigs,
                      ndd_cand_ws_t *cws, ndd_buf_t *send_pairs, ndd_buf_t *send_clusters, ndd_buf_t *send_scores,
                      ndd_buf_t *line,
                      uint64_t **keys, size_t *keys_cap, size_t **off, size_t *off_cap, const char **texts,
                      size_t *lens)
{
    int rc = NDD_OK;
    ndd_uf_t uf = {0};
    note_top(r, n, m[0].label, &m[0]);
    if ((rc = ndd_array_grow((void **)off, off_cap, n + 1, sizeof **off)))
        return rc;
    size_t nk = 0;
    (*off)[0] = 0;
    for (size_t i = 0; i < n; i++) {
        size_t nsig = 0, nsent = 0;
        const uint64_t *mk = NULL;
        if (r->cfg->candidates)
            rc = ndd_method_keys(r->mctx, (ndd_method_t)r->cfg->candidates, m[i].text, m[i].textlen, &mk, &nsig);
        else
            rc = ndd_sig_doc(sig, m[i].text, m[i].textlen, sigs, &nsig, &nsent);
        if (rc || (rc = ndd_array_grow((void **)keys, keys_cap, nk + nsig, sizeof **keys)))
            return rc;
        for (size_t s = 0; s < nsig; s++) {
            uint64_t k = mk ? mk[s] : ndd_sig_key(&sigs[s]);
            if (!key_dropped(r, k))
                (*keys)[nk++] = k;
        }
        (*off)[i + 1] = nk;
        texts[i] = m[i].text;
        lens[i] = m[i].textlen;
    }
    const ndd_cand_t *cand;
    size_t nc;
    if ((rc = ndd_cand_select(cws, &r->cfg->cand, n, *keys, *off, &cand, &nc)))
        return rc;
    r->c.cand_pairs += nc;
    r->c.verify_work += nc;
    if ((rc = ndd_uf_init(&uf, n)))
        return rc;
    if ((rc = ndd_verifier_set_begin(vf, n, texts, lens)))
        goto out;
    for (size_t q = 0; q < nc; q++) {
        uint32_t i = cand[q].i, j = cand[q].j;
        if (!r->cfg->verify_all && ndd_uf_find(&uf, i) == ndd_uf_find(&uf, j)) {
            r->c.pairs_skipped_joined++;
            continue;
        }
        ndd_vres_t v;
        if (m[i].textlen == m[j].textlen && !memcmp(m[i].text, m[j].text, m[i].textlen)) {
            memset(&v, 0, sizeof v);
            v.duplicate = 1;
            v.resemblance = v.containment = 1.0;
            v.ncd = 0.0;
            v.tlcs = m[i].textlen;
            v.score = r->cfg->verifier == NDD_VERIFIER_TLCS ? 1.0 : r->cfg->verifier == NDD_VERIFIER_SIGNCD ? 0.0
                      : r->cfg->vmethod == NDD_METHOD_SIMHASH ? 64.0 : 1.0;
            r->c.pairs_exact++;
        } else {
            if ((rc = ndd_verifier_pair(vf, i, j, &v)))
                goto out;
            r->c.pairs_verified++;
            if (r->cfg->verifier == NDD_VERIFIER_TLCS) {
                r->c.sketch_pairs++;
                r->c.strain_away_micro += (uint64_t)(v.strain_away * 1e6 + 0.5);
            }
            r->c.pairs_pruned_bound += (uint64_t)v.pruned_by_bound;
            r->c.pairs_cost_limit += (uint64_t)v.hit_cost_limit;
        }
        fmt_pair(line, r, &m[i], &m[j], ndd_verifier_name(vf), &v);
        ndd_buf_puts(line, v.duplicate ? "\t1\n" : "\t0\n");
        if ((rc = emit_row(send_scores, r->d.starts, r->P, m[i].g, m[j].g, line)))
            goto out;
        if (!v.duplicate)
            continue;
        r->c.pairs_accepted++;
        ndd_uf_union(&uf, i, j);
        line->len -= 3; /* the same row without the accepted flag */
        ndd_buf_putc(line, '\n');
        if ((rc = emit_row(send_pairs, r->d.starts, r->P, m[i].g, m[j].g, line)))
            goto out;
    }
    /* clusters: components of the verified edges; root = first member
     * (smallest g); keep = longest text (ties: first) or first */
    uint32_t *csize = calloc(n, sizeof *csize), *keep = malloc(n * sizeof *keep);
    if (!csize || !keep) {
        free(csize);
        free(keep);
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t root = ndd_uf_find(&uf, (uint32_t)i);
        if (!csize[root]++)
            keep[root] = root;
        else if (r->cfg->keep == NDD_KEEP_LONGEST && m[i].textlen > m[keep[root]].textlen)
            keep[root] = (uint32_t)i;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        uint32_t root = ndd_uf_find(&uf, (uint32_t)i);
        if (csize[root] < 2)
            continue;
        int kept = keep[root] == i;
        if (root == i)
            r->c.clusters++;
        r->c.docs_in_clusters++;
        r->c.docs_removed += !kept;
        ndd_buf_clear(line);
        ndd_tsv_append_field(line, m[i].id, m[i].idlen);
        ndd_buf_putc(line, '\t');
        ndd_tsv_append_field(line, m[root].id, m[root].idlen);
        ndd_buf_puts(line, kept ? "\t1\t" : "\t0\t");
        ndd_tsv_append_field(line, m[i].url, m[i].urllen);
        ndd_buf_putc(line, '\n');
        rc = emit_row(send_clusters, r->d.starts, r->P, m[i].g, (uint64_t)kept, line);
    }
    free(csize);
    free(keep);
out:
    ndd_uf_free(&uf);
    return rc;
}

static int stage_shuffle2_verify(run_t *r, const uint64_t *size_of)
{
    int P = r->P, rc = NDD_OK;
    docs_t *d = &r->d;
    double t0 = ndd_mpi_now();
    uint32_t *dest_of = calloc(d->n ? d->n : 1, sizeof *dest_of);
    order_t *ord = NULL;
    ndd_buf_t *raw = bufs_new(P), *z = bufs_new(P), *send_pairs = bufs_new(P), *send_clusters = bufs_new(P),
              *send_scores = bufs_new(P);
    member_t *mem = NULL;
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    ndd_verifier_t *vf = NULL;
    ndd_sig_ctx_t *sig = NULL;
    ndd_sig_t *sigs = malloc(NDD_SIG_MAX * sizeof *sigs);
    ndd_cand_ws_t *cws = NULL;
    ndd_buf_t line = NDD_BUF_INIT;
    uint64_t *keys = NULL;
    size_t keys_cap = 0, *off = NULL, off_cap = 0;
    const char **texts = NULL;
    size_t *lens = NULL, tl_cap = 0, tl_cap2 = 0;
    if (!dest_of || !raw || !z || !send_pairs || !send_clusters || !send_scores || !cctx || !sigs)
        rc = NDD_ERR_NOMEM;
    if (!rc)
        rc = stage_place_sets(r, size_of, dest_of);
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    size_t nord = 0;
    ord = malloc((d->n ? d->n : 1) * sizeof *ord);
    if ((rc = ndd_mpi_agree(ord ? NDD_OK : NDD_ERR_NOMEM)))
        goto out;
    for (size_t i = 0; i < d->n; i++)
        if (d->in_set[i])
            ord[nord++] = (order_t){d->label[i], d->first + i, dest_of[i], (uint32_t)i};
    ndd_qsort(ord, nord, sizeof *ord, cmp_order);
    for (size_t k = 0; k < nord && !rc; k++) {
        size_t i = ord[k].i;
        const char *id = ndd_doc_id(r, i), *url = ndd_doc_url(r, i);
        docrec_t h = {d->first + i, d->label[i], (uint32_t)strlen(id), (uint32_t)strlen(url), d->text_len[i], 0};
        ndd_buf_t *b = &raw[ord[k].dest];
        if ((rc = ndd_buf_append(b, &h, sizeof h)) || (rc = ndd_buf_append(b, id, h.idlen)) ||
            (rc = ndd_buf_append(b, url, h.urllen)) ||
            (rc = ndd_buf_append(b, d->texts.data + d->text_off[i], h.textlen)))
            break;
        r->c.shuffle2_raw_bytes += ord[k].dest == (uint32_t)r->me ? 0 : sizeof h + h.idlen + h.urllen + h.textlen;
    }
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
    if (!rc)
        rc = compress_bufs(raw, z, P, cctx);
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    for (int s = 0; s < P; s++)
        ndd_buf_free(&raw[s]);
    if ((rc = ndd_exchange(z, raw, ndd_exchange_chunk(), &r->c.shuffle2_bytes)))
        goto out;
    rc = decompress_bufs(raw, z, P); /* z now holds the plain records */
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    r->t[ST_SHUFFLE2] = ndd_mpi_now() - t0;
    t0 = ndd_mpi_now();

    /* parse members, sort by (label, g), verify set by set */
    size_t nm = 0, mcap = 0;
    for (int s = 0; s < P && !rc; s++) {
        const char *p = z[s].data, *end = z[s].data + z[s].len;
        while (p < end) {
            docrec_t h;
            memcpy(&h, p, sizeof h);
            p += sizeof h;
            if ((rc = ndd_array_grow((void **)&mem, &mcap, nm + 1, sizeof *mem)))
                break;
            mem[nm].g = h.g;
            mem[nm].label = h.label;
            mem[nm].id = p;
            mem[nm].idlen = h.idlen;
            p += h.idlen;
            mem[nm].url = p;
            mem[nm].urllen = h.urllen;
            p += h.urllen;
            mem[nm].text = p;
            mem[nm].textlen = h.textlen;
            p += h.textlen;
            nm++;
        }
    }
    if (!rc)
        ndd_qsort(mem, nm, sizeof *mem, cmp_member);
    if (!rc)
        rc = ndd_verifier_create(&vf, r->cfg, r->dfs, r->ndfs);
    if (!rc)
        rc = ndd_sig_ctx_create(&sig, &r->cfg->sig);
    if (!rc)
        rc = ndd_cand_ws_create(&cws);
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    ndd_progress_t *prog = ndd_progress_begin("verify", "docs", r->cfg->progress, nm);
    for (size_t a = 0; a < nm && !rc;) {
        size_t b = a + 1;
        while (b < nm && mem[b].label == mem[a].label)
            b++;
        size_t n = b - a;
        if ((rc = ndd_array_grow((void **)&texts, &tl_cap, n, sizeof *texts)) ||
            (rc = ndd_array_grow((void **)&lens, &tl_cap2, n, sizeof *lens)))
            break;
        rc = verify_set(r, mem + a, n, vf, sig, sigs, cws, send_pairs, send_clusters, send_scores, &line, &keys,
                        &keys_cap, &off,
                        &off_cap, texts, lens);
        a = b;
        ndd_progress_update(prog, a);
    }
    ndd_progress_end(prog, nm);
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    r->t[ST_VERIFY] = ndd_mpi_now() - t0;
    t0 = ndd_mpi_now();
    /* rows to the owners of their first document */
    if ((rc = ndd_exchange(send_pairs, raw, ndd_exchange_chunk(), &r->c.shuffle3_bytes)))
        goto out;
    for (int s = 0; s < P && !rc; s++)
        rc = ndd_buf_append(&r->pair_rows, raw[s].data, raw[s].len);
    if ((rc = ndd_mpi_agree(rc)) ||
        (rc = ndd_exchange(send_clusters, raw, ndd_exchange_chunk(), &r->c.shuffle3_bytes)))
        goto out;
    for (int s = 0; s < P && !rc; s++)
        rc = ndd_buf_append(&r->cluster_rows, raw[s].data, raw[s].len);
    if ((rc = ndd_mpi_agree(rc)) ||
        (rc = ndd_exchange(send_scores, raw, ndd_exchange_chunk(), &r->c.shuffle3_bytes)))
        goto out;
    for (int s = 0; s < P && !rc; s++)
        rc = ndd_buf_append(&r->score_rows, raw[s].data, raw[s].len);
    rc = ndd_mpi_agree(rc);
    r->t[ST_OUTPUT] += ndd_mpi_now() - t0;
out:
    free(dest_of);
    free(ord);
    bufs_free(raw, P);
    bufs_free(z, P);
    bufs_free(send_pairs, P);
    bufs_free(send_clusters, P);
    bufs_free(send_scores, P);
    free(mem);
    ZSTD_freeCCtx(cctx);
    ndd_verifier_free(vf);
    ndd_sig_ctx_free(sig);
    free(sigs);
    ndd_cand_ws_free(cws);
    ndd_buf_free(&line);
    free(keys);
    free(off);
    free(texts);
    free(lens);
    return rc;
}

/* ------------------------------------------------------------------ */
/* outputs                                                             */

typedef struct {
    uint64_t k1, k2;
    const char *line;
    uint32_t len;
} row_t;

static int cmp_row(const void *a, const void *b)
{
    const row_t *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 < y->k1 ? -1 : 1;
    return x->k2 < y->k2 ? -1 : x->k2 > y->k2;
}

/* Sorts received rows and writes them (with a header from rank 0) as one file.
 * For cluster rows (mark_removed) k2 is the keep flag: mark removed docs. */
static int write_rows(run_t *r, const ndd_buf_t *rows, const char *path, const char *header, int mark_removed)
{
    int rc = NDD_OK;
    row_t *v = NULL;
    size_t n = 0, cap = 0;
    ndd_buf_t out = NDD_BUF_INIT;
    const char *p = rows->data, *end = rows->data + rows->len;
    while (p && p < end) {
        row_t w;
        memcpy(&w.k1, p, 8);
        memcpy(&w.k2, p + 8, 8);
        memcpy(&w.len, p + 16, 4);
        w.line = p + 20;
        p += 20 + w.len;
        if ((rc = ndd_array_grow((void **)&v, &cap, n + 1, sizeof *v)))
            break;
        v[n++] = w;
    }
    if (!rc) {
        if (!mark_removed)
            ndd_qsort(v, n, sizeof *v, cmp_row);
        else {
            /* k2 is not an order key for clusters: order by document only */
            for (size_t i = 0; i < n; i++) {
                r->d.removed[v[i].k1 - r->d.first] = v[i].k2 == 0;
                v[i].k2 = 0;
            }
            ndd_qsort(v, n, sizeof *v, cmp_row);
        }
    }
    if (!rc && r->me == 0)
        rc = ndd_buf_puts(&out, header);
    for (size_t i = 0; i < n && !rc; i++)
        rc = ndd_buf_append(&out, v[i].line, v[i].len);
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    rc = ndd_write_ordered(path, out.data ? out.data : "", out.len);
out:
    free(v);
    ndd_buf_free(&out);
    return rc;
}

static int path_join(char *buf, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(buf, cap, "%s/%s", dir, name);
    return n < 0 || (size_t)n >= cap ? NDD_ERR_INVAL : NDD_OK;
}

static uint64_t answer_removed(run_t *r, uint64_t g) { return r->d.removed[g - r->d.first]; }

/* Second pass over this rank's input shard for --write-dedup: every document
 * that was not removed, as JSONL (id, url, full visible text), one zstd
 * frame per rank (frames concatenate into one valid .zst stream). The shard's
 * documents are numbered by an exclusive scan and their removed flags asked
 * from their owners, so this works for any rank count, also after --resume.
 * Collective. */
static int stage_dedup(run_t *r, const ndd_input_t *in, size_t nin)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    piece_t *pieces = NULL;
    size_t npieces = 0, ndocs = 0, lcap = 0;
    ndd_reader_t *rd = NULL;
    ndd_buf_t text = NDD_BUF_INIT, lines = NDD_BUF_INIT, out = NDD_BUF_INIT, z = NDD_BUF_INIT;
    size_t *loff = NULL;
    uint64_t *ids = NULL, *flags = NULL;
    ndd_text_opts_t full = cfg->text;
    full.max_bytes = 0;
    int rc = plan_shard(in, nin, r->P, r->me, &pieces, &npieces);
    for (size_t p = 0; p < npieces && !rc; p++) {
        if (ndd_reader_open(&rd, pieces[p].in, pieces[p].lo, pieces[p].hi, NULL, NULL))
            continue;
        ndd_doc_t doc;
        while ((rc = ndd_reader_next(rd, &doc)) == NDD_OK) {
            rc = doc.is_html ? ndd_text_from_html(doc.body, doc.body_len, &full, &text)
                             : ndd_text_from_plain(doc.body, doc.body_len, &full, &text);
            if (rc)
                break;
            if (text.len == 0) /* rejected in the read stage: no number */
                continue;
            if ((rc = ndd_array_grow((void **)&loff, &lcap, ndocs + 2, sizeof *loff)))
                break;
            loff[ndocs] = lines.len;
            ndd_buf_puts(&lines, "{\"id\":");
            ndd_json_append_string(&lines, doc.id, strlen(doc.id));
            ndd_buf_puts(&lines, ",\"url\":");
            ndd_json_append_string(&lines, doc.url, strlen(doc.url));
            ndd_buf_puts(&lines, ",\"text\":");
            ndd_json_append_string(&lines, text.data, text.len);
            rc = ndd_buf_puts(&lines, "}\n");
            ndocs++;
            loff[ndocs] = lines.len;
        }
        if (rc == NDD_ERR_EOF)
            rc = NDD_OK;
        ndd_reader_free(rd);
        rd = NULL;
    }
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    uint64_t mine = ndocs, first = 0;
    MPI_Exscan(&mine, &first, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (r->me == 0)
        first = 0;
    ids = malloc((ndocs ? ndocs : 1) * sizeof *ids);
    flags = malloc((ndocs ? ndocs : 1) * sizeof *flags);
    if ((rc = ndd_mpi_agree(!ids || !flags ? NDD_ERR_NOMEM : NDD_OK)))
        goto out;
    for (size_t i = 0; i < ndocs; i++)
        ids[i] = first + i;
    if ((rc = request_by_owner(r, ids, ndocs, answer_removed, flags)))
        goto out;
    for (size_t i = 0; i < ndocs && !rc; i++)
        if (!flags[i])
            rc = ndd_buf_append(&out, lines.data + loff[i], loff[i + 1] - loff[i]);
    if (!rc && (out.len || r->me == 0)) {
        size_t bound = ZSTD_compressBound(out.len);
        if (!(rc = ndd_buf_reserve(&z, bound))) {
            size_t n = ZSTD_compress(z.data, bound, out.data ? out.data : "", out.len, 3);
            if (ZSTD_isError(n))
                rc = NDD_ERR_COMPRESS;
            else
                z.len = n;
        }
    }
    if ((rc = ndd_mpi_agree(rc)) == NDD_OK)
        rc = ndd_write_ordered(cfg->write_dedup, z.data ? z.data : "", z.len);
out:
    ndd_reader_free(rd);
    free(pieces);
    free(loff);
    free(ids);
    free(flags);
    ndd_buf_free(&text);
    ndd_buf_free(&lines);
    ndd_buf_free(&out);
    ndd_buf_free(&z);
    return rc;
}

/* ------------------------------------------------------------------ */
/* stats.json                                                          */

static int cmp_top(const void *a, const void *b)
{
    const topset_t *x = a, *y = b;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    return x->label < y->label ? -1 : x->label > y->label;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void json_kv_u64(ndd_buf_t *b, const char *k, uint64_t v, int comma)
{
    char s[128];
    snprintf(s, sizeof s, "%s\"%s\": %llu", comma ? ",\n    " : "\n    ", k, (unsigned long long)v);
    ndd_buf_puts(b, s);
}

static int write_stats(run_t *r, double wall)
{
    int P = r->P, rc = NDD_OK;
    counters_t sum;
    MPI_Reduce(&r->c, &sum, (int)NCOUNTERS, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    uint64_t work = r->c.verify_work, wmax = 0, wmin = 0;
    MPI_Reduce(&work, &wmax, 1, MPI_UINT64_T, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&work, &wmin, 1, MPI_UINT64_T, MPI_MIN, 0, MPI_COMM_WORLD);
    double *times = malloc((size_t)P * ST_N * sizeof *times);
    long rss = 0;
    struct rusage ru;
    if (!getrusage(RUSAGE_SELF, &ru))
        rss = ru.ru_maxrss; /* KiB on Linux */
    long *rsses = malloc((size_t)P * sizeof *rsses);
    uint64_t *inbytes = malloc((size_t)P * sizeof *inbytes);
    topset_t *tops = malloc((size_t)P * TOP_N * sizeof *tops);
    uint64_t *ntops = malloc((size_t)P * sizeof *ntops);
    if (!times || !rsses || !inbytes || !tops || !ntops)
        rc = NDD_ERR_NOMEM;
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    MPI_Gather(r->t, ST_N, MPI_DOUBLE, times, ST_N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(&rss, 1, MPI_LONG, rsses, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    MPI_Gather(&r->c.input_bytes, 1, MPI_UINT64_T, inbytes, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    uint64_t nt = r->ntop;
    MPI_Gather(&nt, 1, MPI_UINT64_T, ntops, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Gather(r->top, (int)(TOP_N * sizeof(topset_t)), MPI_BYTE, tops, (int)(TOP_N * sizeof(topset_t)), MPI_BYTE, 0,
               MPI_COMM_WORLD);
    if (r->me != 0)
        goto out;
    {
        ndd_buf_t b = NDD_BUF_INIT;
        char s[512], path[4096];
        ndd_buf_puts(&b, "{\n  \"version\": \"" NDD_VERSION "\",\n");
        snprintf(s, sizeof s, "  \"ranks\": %d,\n  \"wall_seconds\": %.3f,\n  \"verifier\": \"%s\",\n", P, wall,
                 r->cfg->verifier == NDD_VERIFIER_TLCS     ? "tlcs"
                 : r->cfg->verifier == NDD_VERIFIER_SIGNCD ? "signcd"
                                                           : ndd_method_name(r->cfg->vmethod));
        ndd_buf_puts(&b, s);
        snprintf(s, sizeof s, "  \"candidates\": \"%s\",\n",
                 r->cfg->candidates ? ndd_method_name((ndd_method_t)r->cfg->candidates) : "sentence");
        ndd_buf_puts(&b, s);
        ndd_buf_puts(&b, "  \"read\": {");
        json_kv_u64(&b, "input_bytes", sum.input_bytes, 0);
        json_kv_u64(&b, "docs_read", sum.docs_read, 1);
        json_kv_u64(&b, "rejected", sum.rejected, 1);
        json_kv_u64(&b, "no_visible_text", sum.no_text, 1);
        json_kv_u64(&b, "docs", sum.docs_read - sum.no_text, 1);
        json_kv_u64(&b, "text_bytes", sum.text_bytes, 1);
        json_kv_u64(&b, "docs_without_signatures", sum.no_sigs, 1);
        ndd_buf_puts(&b, "\n  },\n  \"signatures\": {");
        json_kv_u64(&b, "signatures", sum.signatures, 0);
        json_kv_u64(&b, "distinct", sum.keys_distinct, 1);
        json_kv_u64(&b, "held_by_one_doc", sum.postings_single, 1);
        json_kv_u64(&b, "lists_live", sum.lists_live, 1);
        json_kv_u64(&b, "dropped_frequent", sum.lists_dropped_frequent, 1);
        json_kv_u64(&b, "dropped_site_concentrated", sum.lists_dropped_site, 1);
        json_kv_u64(&b, "dropped_site_template", sum.lists_dropped_template, 1);
        json_kv_u64(&b, "postings_in_dropped_lists", sum.postings_dropped, 1);
        json_kv_u64(&b, "links", sum.links_all, 1);
        json_kv_u64(&b, "links_kept", sum.edges, 1);
        json_kv_u64(&b, "min_link_signatures", r->cfg->min_link_sigs, 1);
        ndd_buf_puts(&b, "\n  },\n  \"sets\": {");
        json_kv_u64(&b, "components_rounds", r->cc_rounds, 0);
        json_kv_u64(&b, "sets", sum.sets, 1);
        json_kv_u64(&b, "docs_in_sets", sum.docs_in_sets, 1);
        snprintf(s, sizeof s, ",\n    \"average_set_size\": %.3f",
                 sum.sets ? (double)sum.docs_in_sets / (double)sum.sets : 0.0);
        ndd_buf_puts(&b, s);
        json_kv_u64(&b, "giant_sets", sum.giant_sets, 1);
        json_kv_u64(&b, "docs_in_giant_sets", sum.docs_in_giant_sets, 1);
        json_kv_u64(&b, "giant_threshold", r->cfg->giant_set, 1);
        json_kv_u64(&b, "giant_sets_split", sum.giant_sets_split, 1);
        json_kv_u64(&b, "giant_guard_links_refused", sum.links_cut_giant, 1);
        ndd_buf_puts(&b, ",\n    \"size_histogram\": {");
        int first = 1;
        for (int h = 1; h < HIST_N; h++) {
            if (!sum.hist[h])
                continue;
            snprintf(s, sizeof s, "%s\"%llu-%llu\": %llu", first ? "" : ", ", 1ull << h, (2ull << h) - 1,
                     (unsigned long long)sum.hist[h]);
            ndd_buf_puts(&b, s);
            first = 0;
        }
        ndd_buf_puts(&b, "},\n    \"largest\": [");
        /* merge the per-rank top lists */
        topset_t best[TOP_N * 4];
        size_t nb = 0, nall = 0;
        topset_t *all = malloc((size_t)P * TOP_N * sizeof *all);
        for (int q = 0; q < P && all; q++)
            for (uint64_t k = 0; k < ntops[q]; k++)
                all[nall++] = tops[(size_t)q * TOP_N + k];
        if (all)
            ndd_qsort(all, nall, sizeof *all, cmp_top);
        for (size_t k = 0; k < nall && k < TOP_N; k++)
            best[nb++] = all[k];
        free(all);
        for (size_t k = 0; k < nb; k++) {
            snprintf(s, sizeof s, "%s{\"size\": %llu, \"first_doc\": ", k ? ", " : "",
                     (unsigned long long)best[k].size);
            ndd_buf_puts(&b, s);
            ndd_json_append_string(&b, best[k].first_id, strlen(best[k].first_id));
            ndd_buf_puts(&b, "}");
        }
        ndd_buf_puts(&b, "]\n  },\n  \"verify\": {");
        json_kv_u64(&b, "candidate_pairs", sum.cand_pairs, 0);
        json_kv_u64(&b, "skipped_already_joined", sum.pairs_skipped_joined, 1);
        json_kv_u64(&b, "identical_text", sum.pairs_exact, 1);
        json_kv_u64(&b, "verified", sum.pairs_verified, 1);
        json_kv_u64(&b, "pruned_by_bound", sum.pairs_pruned_bound, 1);
        json_kv_u64(&b, "cost_limit_hits", sum.pairs_cost_limit, 1);
        json_kv_u64(&b, "accepted", sum.pairs_accepted, 1);
        snprintf(s, sizeof s, ",\n    \"trustable_rate\": %.4f",
                 sum.docs_in_sets ? (double)sum.docs_in_clusters / (double)sum.docs_in_sets : 0.0);
        ndd_buf_puts(&b, s);
        json_kv_u64(&b, "work_max_rank", wmax, 1);
        json_kv_u64(&b, "work_min_rank", wmin, 1);
        ndd_buf_puts(&b, "\n  },\n  \"sketch\": {");
        json_kv_u64(&b, "pairs", sum.sketch_pairs, 0);
        if (sum.sketch_pairs)
            snprintf(s, sizeof s, ",\n    \"strain_away\": %.4f",
                     (double)sum.strain_away_micro / 1e6 / (double)sum.sketch_pairs);
        else
            snprintf(s, sizeof s, ",\n    \"strain_away\": null");
        ndd_buf_puts(&b, s);
        ndd_buf_puts(&b, ",\n    \"reserve\": null");
        ndd_buf_puts(&b, "\n  },\n  \"clusters\": {");
        json_kv_u64(&b, "clusters", sum.clusters, 0);
        json_kv_u64(&b, "docs_in_clusters", sum.docs_in_clusters, 1);
        json_kv_u64(&b, "docs_removed", sum.docs_removed, 1);
        uint64_t ndocs = sum.docs_read - sum.no_text;
        snprintf(s, sizeof s, ",\n    \"duplicate_fraction\": %.6f",
                 ndocs ? (double)sum.docs_removed / (double)ndocs : 0.0);
        ndd_buf_puts(&b, s);
        ndd_buf_puts(&b, "\n  },\n  \"shuffle_bytes\": {");
        json_kv_u64(&b, "shuffle1_signatures", sum.shuffle1_bytes, 0);
        json_kv_u64(&b, "shuffle2_texts_compressed", sum.shuffle2_bytes, 1);
        json_kv_u64(&b, "shuffle2_texts_raw", sum.shuffle2_raw_bytes, 1);
        json_kv_u64(&b, "shuffle3_rows", sum.shuffle3_bytes, 1);
        snprintf(s, sizeof s, ",\n    \"per_doc\": %.1f",
                 ndocs ? (double)(sum.shuffle1_bytes + sum.shuffle2_bytes + sum.shuffle3_bytes) / (double)ndocs : 0.0);
        ndd_buf_puts(&b, s);
        ndd_buf_puts(&b, "\n  },\n  \"stage_seconds\": {");
        double *col = malloc((size_t)P * sizeof *col);
        for (int st = 0; st < ST_N && col; st++) {
            for (int q = 0; q < P; q++)
                col[q] = times[(size_t)q * ST_N + st];
            ndd_qsort(col, (size_t)P, sizeof *col, cmp_double);
            double med = P % 2 ? col[P / 2] : 0.5 * (col[P / 2 - 1] + col[P / 2]);
            snprintf(s, sizeof s, "%s\n    \"%s\": {\"min\": %.4f, \"median\": %.4f, \"max\": %.4f}", st ? "," : "",
                     stage_names[st], col[0], med, col[P - 1]);
            ndd_buf_puts(&b, s);
        }
        free(col);
        ndd_buf_puts(&b, "\n  },\n  \"per_rank\": [");
        for (int q = 0; q < P; q++) {
            snprintf(s, sizeof s, "%s\n    {\"rank\": %d, \"input_bytes\": %llu, \"peak_rss_kib\": %ld, \"stage_seconds\": {",
                     q ? "," : "", q, (unsigned long long)inbytes[q], rsses[q]);
            ndd_buf_puts(&b, s);
            for (int st = 0; st < ST_N; st++) {
                snprintf(s, sizeof s, "%s\"%s\": %.4f", st ? ", " : "", stage_names[st], times[(size_t)q * ST_N + st]);
                ndd_buf_puts(&b, s);
            }
            ndd_buf_puts(&b, "}}");
        }
        ndd_buf_puts(&b, "\n  ]\n}\n");
        if (!(rc = path_join(path, sizeof path, r->cfg->outdir, "stats.json"))) {
            FILE *f = fopen(path, "w");
            if (!f || fwrite(b.data, 1, b.len, f) != b.len)
                rc = NDD_ERR_IO;
            if (f && fclose(f))
                rc = NDD_ERR_IO;
        }
        if (!r->cfg->quiet) {
            printf("ndd run: %llu documents (%llu rejected) in %.2f s on %d rank%s\n",
                   (unsigned long long)ndocs, (unsigned long long)sum.rejected, wall, P, P > 1 ? "s" : "");
            printf("ndd run: %llu perhaps-similar sets, %llu candidate pairs, %llu accepted\n",
                   (unsigned long long)sum.sets, (unsigned long long)sum.cand_pairs,
                   (unsigned long long)sum.pairs_accepted);
            printf("ndd run: %llu clusters holding %llu documents; %llu duplicates removed (%.2f %%)\n",
                   (unsigned long long)sum.clusters, (unsigned long long)sum.docs_in_clusters,
                   (unsigned long long)sum.docs_removed,
                   ndocs ? 100.0 * (double)sum.docs_removed / (double)ndocs : 0.0);
        }
        ndd_buf_free(&b);
    }
out:
    free(times);
    free(rsses);
    free(inbytes);
    free(tops);
    free(ntops);
    return ndd_mpi_agree(rc);
}

/* ------------------------------------------------------------------ */

/* Baseline methods (--candidates / --verifier from src/baselines): the corpus
 * document-frequency sketches they need, summed over ranks (integer sums:
 * the same for any rank count), then, for baseline candidates, each
 * document's candidate keys in place of the sentence signatures.
 * Collective. */
static int stage_baselines(run_t *r)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    docs_t *d = &r->d;
    unsigned kinds = 0;
    int rc = NDD_OK;
    if (cfg->candidates)
        kinds |= ndd_method_df_kinds((ndd_method_t)cfg->candidates);
    if (cfg->verifier == NDD_VERIFIER_METHOD)
        kinds |= ndd_method_df_kinds(cfg->vmethod);
    if (!kinds && !cfg->candidates)
        return NDD_OK;
    double t0 = ndd_mpi_now();
    for (int k = 0; k < 3 && !rc; k++) {
        if (!(kinds & (1u << k)))
            continue;
        ndd_df_t *df = NULL;
        if ((rc = ndd_df_create_kind(&df, (ndd_df_kind_t)k, &cfg->mparams, 4, 20)))
            break;
        r->dfs[r->ndfs++] = df;
        for (size_t i = 0; i < d->n && !rc; i++)
            rc = ndd_df_add_doc(df, d->texts.data + d->text_off[i], d->text_len[i]);
    }
    if ((rc = ndd_mpi_agree(rc)))
        return rc;
    for (size_t k = 0; k < r->ndfs; k++) {
        size_t n;
        uint32_t *c = ndd_df_counters(r->dfs[k], &n);
        for (size_t off = 0; off < n; off += (size_t)1 << 26) { /* chunks: MPI counts are int */
            size_t m = n - off < ((size_t)1 << 26) ? n - off : (size_t)1 << 26;
            MPI_Allreduce(MPI_IN_PLACE, c + off, (int)m, MPI_UINT32_T, MPI_SUM, MPI_COMM_WORLD);
        }
        MPI_Allreduce(MPI_IN_PLACE, ndd_df_ndocs(r->dfs[k]), 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    }
    if (cfg->candidates) {
        rc = ndd_method_ctx_create(&r->mctx, &cfg->mparams, NULL);
        for (size_t k = 0; k < r->ndfs && !rc; k++)
            rc = ndd_method_ctx_add_df(r->mctx, r->dfs[k]);
        d->nkeys = 0;
        if (!rc && d->key_off)
            d->key_off[0] = 0;
        for (size_t i = 0; i < d->n && !rc; i++) {
            const uint64_t *mk;
            size_t nk;
            if ((rc = ndd_method_keys(r->mctx, (ndd_method_t)cfg->candidates, d->texts.data + d->text_off[i],
                                      d->text_len[i], &mk, &nk)) ||
                (rc = ndd_array_grow((void **)&d->keys, &d->keys_cap, d->nkeys + nk, sizeof *d->keys)))
                break;
            if (nk)
                memcpy(d->keys + d->nkeys, mk, nk * sizeof *mk);
            d->nkeys += nk;
            d->key_off[i + 1] = d->nkeys;
            d->weight[i] = nk > 65535 ? 65535 : (uint32_t)nk;
            r->c.signatures += nk;
            r->c.no_sigs += !nk;
        }
    }
    r->t[ST_SIG] += ndd_mpi_now() - t0;
    return ndd_mpi_agree(rc);
}

static void run_free(run_t *r)
{
    ndd_docs_free(&r->d);
    memset(&r->d, 0, sizeof r->d);
    ndd_buf_free(&r->rejects);
    ndd_buf_free(&r->pair_rows);
    ndd_buf_free(&r->cluster_rows);
    ndd_buf_free(&r->score_rows);
    free(r->dropped);
    free(r->edges);
    free(r->emult);
    free(r->owned);
    for (size_t k = 0; k < r->ndfs; k++)
        ndd_df_free(r->dfs[k]);
    r->ndfs = 0;
    ndd_method_ctx_free(r->mctx);
    r->mctx = NULL;
}

static int file_exists(const char *dir, const char *name)
{
    char p[4200];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

/* 'ndd run --map-task I --map-tasks N --work-dir W': one map task, no MPI:
 * reads exactly what rank I of N would read, writes W/map/shard-I. A task
 * whose shard is already complete does nothing. Local. */
static int run_map_task(const ndd_run_cfg_t *cfg)
{
    run_t R;
    memset(&R, 0, sizeof R);
    R.cfg = cfg;
    R.P = 1;
    ndd_input_t *in = NULL;
    size_t nin = 0;
    const char *bad = NULL;
    uint64_t n;
    int rc;
    if (ndd_ckpt_shard_check(cfg->work_dir, cfg->map_task, &n) == NDD_OK) {
        if (!cfg->quiet)
            printf("ndd run: map task %d of %d already complete (%llu documents)\n", cfg->map_task, cfg->map_tasks,
                   (unsigned long long)n);
        return NDD_OK;
    }
    if ((rc = ndd_ckpt_manifest_write(cfg->work_dir, cfg, cfg->map_tasks)))
        NDD_LOG(0, "cannot write %s/manifest: %s", cfg->work_dir, ndd_strerror(rc));
    else if ((rc = ndd_input_expand(cfg->inputs, cfg->ninputs, cfg->format, &in, &nin, &bad)))
        NDD_LOG(0, "cannot read input %s: %s", bad ? bad : "?", ndd_strerror(rc));
    else if ((rc = stage_read(&R, in, nin, cfg->map_task, cfg->map_tasks, 0)))
        NDD_LOG(0, "reading failed: %s", ndd_strerror(rc));
    else if ((rc = ndd_ckpt_shard_write(cfg->work_dir, cfg->map_task, &R)))
        NDD_LOG(0, "cannot write the shard: %s", ndd_strerror(rc));
    else if (!cfg->quiet)
        printf("ndd run: map task %d of %d: %zu documents, %llu rejected -> %s/map\n", cfg->map_task, cfg->map_tasks,
               R.d.n, (unsigned long long)R.c.rejected, cfg->work_dir);
    run_free(&R);
    ndd_input_free(in, nin);
    return rc;
}

/* Resume: recompute missing map shards (task i on rank i % P), then load
 * this rank's contiguous range of documents (and, for rejects and read
 * counters, a contiguous range of shards). Collective. */
static int resume_map(run_t *r, const ndd_input_t *in, size_t nin, const char *wd, int nshards)
{
    int rc = NDD_OK;
    uint64_t *cnt = calloc((size_t)nshards, sizeof *cnt);
    if ((rc = ndd_mpi_agree(cnt ? NDD_OK : NDD_ERR_NOMEM)))
        goto out;
    for (int i = r->me; i < nshards && !rc; i += r->P) {
        uint64_t n;
        if (ndd_ckpt_shard_check(wd, i, &n) == NDD_OK)
            continue;
        run_t T;
        memset(&T, 0, sizeof T);
        T.cfg = r->cfg;
        T.P = r->P;
        T.me = r->me;
        NDD_LOG(1, "redoing map shard %d of %d", i, nshards);
        rc = stage_read(&T, in, nin, i, nshards, 0);
        if (!rc)
            rc = ndd_ckpt_shard_write(wd, i, &T);
        run_free(&T);
    }
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    uint64_t total = 0;
    for (int i = 0; i < nshards && !rc; i++) {
        rc = ndd_ckpt_shard_count(wd, i, &cnt[i]);
        total += cnt[i];
    }
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    uint64_t lo = (uint64_t)((long double)total * r->me / r->P), hi = (uint64_t)((long double)total * (r->me + 1) / r->P);
    int s_lo = (int)((long)nshards * r->me / r->P), s_hi = (int)((long)nshards * (r->me + 1) / r->P);
    uint64_t at = 0;
    for (int i = 0; i < nshards && !rc; i++) {
        uint64_t a = at, b = at + cnt[i];
        at = b;
        int meta = i >= s_lo && i < s_hi;
        uint64_t x = a > lo ? a : lo, y = b < hi ? b : hi;
        if (x < y || meta)
            rc = ndd_ckpt_shard_load(wd, i, r, x < y ? x - a : 0, x < y ? y - x : 0, meta);
    }
    rc = ndd_mpi_agree(rc);
out:
    free(cnt);
    return rc;
}

int ndd_run(const ndd_run_cfg_t *cfg_in)
{
    ndd_run_cfg_t cfgv = *cfg_in;
    const ndd_run_cfg_t *cfg = &cfgv;
    if (cfg->map_tasks)
        return run_map_task(cfg);
    run_t R;
    memset(&R, 0, sizeof R);
    run_t *r = &R;
    r->cfg = cfg;
    r->P = ndd_mpi_size();
    r->me = ndd_mpi_rank();
    ndd_input_t *in = NULL;
    size_t nin = 0;
    const char *bad = NULL;
    char path[4096], wd[4096];
    double t_start = ndd_mpi_now();
    uint64_t *size_of = NULL;
    void *manifest = NULL;
    int rc = NDD_OK, nshards = r->P, default_wd = 0, verified = 0;

    /* the work directory: given, resumed, or a default one removed on success */
    if (cfg->resume)
        snprintf(wd, sizeof wd, "%s", cfg->resume);
    else if (cfg->work_dir)
        snprintf(wd, sizeof wd, "%s", cfg->work_dir);
    else {
        snprintf(wd, sizeof wd, "%s/.ndd-work", cfg->outdir);
        default_wd = 1;
    }
    if (cfg->resume) {
        rc = ndd_ckpt_manifest_read(wd, &cfgv, &nshards, &manifest);
        if (rc && r->me == 0)
            NDD_LOG(0, "cannot resume from %s: no readable manifest (%s)", wd, ndd_strerror(rc));
    } else if (!default_wd && file_exists(wd, "manifest")) {
        if (r->me == 0)
            NDD_LOG(0, "work directory %s holds an earlier run: resume it with --resume %s, or remove it", wd, wd);
        rc = NDD_ERR_INVAL;
    }
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    if (r->me == 0 && cfg->outdir && mkdir(cfg->outdir, 0777) && errno != EEXIST) {
        NDD_LOG(0, "cannot create output directory %s: %s", cfg->outdir, strerror(errno));
        rc = NDD_ERR_IO;
    }
    if (!rc && r->me == 0 && !cfg->resume) {
        if (default_wd)
            ndd_ckpt_remove(wd); /* a stale default work dir of a failed run */
        rc = ndd_ckpt_manifest_write(wd, cfg, nshards);
        if (rc)
            NDD_LOG(0, "cannot write the work directory %s: %s", wd, ndd_strerror(rc));
    }
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    rc = ndd_input_expand(cfg->inputs, cfg->ninputs, cfg->format, &in, &nin, &bad);
    if (rc && r->me == 0)
        NDD_LOG(0, "cannot read input %s: %s", bad ? bad : "?", ndd_strerror(rc));
    if ((rc = ndd_mpi_agree(rc)))
        goto out;
    NDD_LOG(2, "%zu input files", nin);

    /* map stage: read + signatures, checkpointed per shard */
    if (cfg->resume) {
        double t0 = ndd_mpi_now();
        if ((rc = resume_map(r, in, nin, wd, nshards)))
            goto out;
        r->t[ST_READ] = ndd_mpi_now() - t0;
    } else {
        rc = stage_read(r, in, nin, r->me, r->P, 1);
        if (rc)
            NDD_LOG(0, "reading failed: %s", ndd_strerror(rc));
        if (!rc && (rc = ndd_ckpt_shard_write(wd, r->me, r)))
            NDD_LOG(0, "cannot write the map shard: %s", ndd_strerror(rc));
        if ((rc = ndd_mpi_agree(rc)))
            goto out;
    }
    if ((rc = ndd_global_ranges(r->d.n, &r->d.first, &r->d.starts)))
        goto out;
    r->d.removed = calloc(r->d.n ? r->d.n : 1, 1);
    if ((rc = ndd_mpi_agree(r->d.removed ? NDD_OK : NDD_ERR_NOMEM)))
        goto out;

    /* reduce stages up to verification, checkpointed as one step */
    int nparts = 0;
    if (cfg->resume && ndd_ckpt_verify_done_read(wd, &nparts, r) == NDD_OK) {
        for (int p = 0; p < nparts && !rc; p++)
            rc = ndd_ckpt_verify_load(wd, p, r, r->d.first, r->d.first + r->d.n, r->me == 0);
        if (rc)
            NDD_LOG(0, "cannot load verified part: %s", ndd_strerror(rc));
        if ((rc = ndd_mpi_agree(rc)))
            goto out;
        verified = 1;
    }
    if (!verified) {
        if ((rc = stage_baselines(r)) || (rc = stage_shuffle1_postings(r)))
            goto out;
        size_of = malloc((r->d.n ? r->d.n : 1) * sizeof *size_of);
        if ((rc = ndd_mpi_agree(size_of ? NDD_OK : NDD_ERR_NOMEM)))
            goto out;
        if ((rc = stage_components(r, size_of)))
            goto out;
        if ((rc = stage_shuffle2_verify(r, size_of)))
            goto out;
        rc = ndd_ckpt_verify_write(wd, r->me, r);
        if ((rc = ndd_mpi_agree(rc)))
            goto out;
        if (r->me == 0)
            rc = ndd_ckpt_verify_done_write(wd, r->P, r);
        if ((rc = ndd_mpi_agree(rc)))
            goto out;
    }
    if (cfg->stop_after_verify) {
        if (r->me == 0 && !cfg->quiet)
            printf("ndd run: stopped after verification; continue with: ndd run --resume %s -o DIR\n", wd);
        goto out;
    }
    double t0 = ndd_mpi_now();
    if ((rc = path_join(path, sizeof path, cfg->outdir, "pairs.tsv")) ||
        (rc = write_rows(r, &r->pair_rows, path,
                         "id_a\tid_b\tverifier\tresemblance\tcontainment\tncd\ttlcs\tscore\n", 0)))
        goto out;
    if ((rc = path_join(path, sizeof path, cfg->outdir, "scores.tsv")) ||
        (rc = write_rows(r, &r->score_rows, path,
                         "id_a\tid_b\tverifier\tresemblance\tcontainment\tncd\ttlcs\tscore\taccepted\n", 0)))
        goto out;
    if ((rc = path_join(path, sizeof path, cfg->outdir, "clusters.tsv")) ||
        (rc = write_rows(r, &r->cluster_rows, path, "id\tcluster\tkeep\turl\n", 1)))
        goto out;
    {
        ndd_buf_t hdr = NDD_BUF_INIT;
        if (r->me == 0)
            ndd_buf_puts(&hdr, "file\trecord\toffset\treason\n");
        ndd_buf_append(&hdr, r->rejects.data ? r->rejects.data : "", r->rejects.len);
        rc = path_join(path, sizeof path, cfg->outdir, "rejects.tsv");
        if (!rc)
            rc = ndd_write_ordered(path, hdr.data ? hdr.data : "", hdr.len);
        ndd_buf_free(&hdr);
        if (rc)
            goto out;
    }
    r->t[ST_OUTPUT] += ndd_mpi_now() - t0;
    if (cfg->write_dedup) {
        t0 = ndd_mpi_now();
        if ((rc = stage_dedup(r, in, nin)))
            goto out;
        r->t[ST_DEDUP] = ndd_mpi_now() - t0;
    }
    rc = write_stats(r, ndd_mpi_now() - t_start);
    if (!rc && default_wd && r->me == 0)
        ndd_ckpt_remove(wd);
out:
    rc = ndd_mpi_agree(rc);
    run_free(r);
    free(size_of);
    ndd_input_free(in, nin);
    ndd_ckpt_manifest_free(manifest);
    return rc;
}

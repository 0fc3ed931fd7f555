/* run_read.c - the map stage of ndd run (read + visible text + paper 002
 * signatures, one shard of the input per task), the baseline methods'
 * corpus statistics, and the second pass of --write-dedup. */
#include "run_internal.h"
#include "ndd_wire.h"

#include <stdint.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

static void on_reject(void *user, const ndd_reject_t *rej)
{
    run_t *r = user;
    ndd_rows_fmt_reject(&r->rejects, rej->file, rej->ordinal, rej->offset, rej->reason, rej->url, rej->ctype);
    r->c.rejected++;
}

const char *ndd_doc_admit(const ndd_run_cfg_t *cfg, const ndd_doc_t *doc)
{
    return ndd_reader_admit(cfg->content_types ? cfg->content_types : NDD_DEFAULT_CONTENT_TYPES, cfg->url_include,
                            cfg->url_exclude, doc);
}

/* Visible text of one record (the whole text when max_bytes is 0). */
static int doc_text(const ndd_doc_t *doc, const ndd_text_opts_t *o, ndd_buf_t *text)
{
    return doc->is_html ? ndd_text_from_html(doc->body, doc->body_len, o, text)
                        : ndd_text_from_plain(doc->body, doc->body_len, o, text);
}

typedef struct {
    ndd_sig_ctx_t *sig;
    ndd_sig_t *sigs;
    uint64_t *keys;
    ndd_buf_t text;
    double t_sig;
} map_ws_t;

/* One record: text, signatures, appended to the batch (or a reject). */
static int map_doc(run_t *r, map_ws_t *w, const ndd_piece_t *piece, const ndd_doc_t *doc)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    ndd_text_opts_t o = cfg->text;
    if (cfg->templates && o.max_bytes) /* room for the main text once the template pass drops blocks */
        o.max_bytes = o.max_bytes > SIZE_MAX / NDD_TMPL_READ_FACTOR ? SIZE_MAX : o.max_bytes * NDD_TMPL_READ_FACTOR;
    const char *no = ndd_doc_admit(cfg, doc);
    if (no) {
        ndd_reject_t rej = {piece->in->name, doc->file_index, doc->ordinal, doc->offset, no, doc->url, doc->ctype};
        on_reject(r, &rej);
        r->c.docs_read--; /* a reject, not a document: read.docs + read.rejected count each record once */
        return NDD_OK;
    }
    int rc = doc_text(doc, &o, &w->text);
    if (rc)
        return rc;
    if (w->text.len == 0) {
        ndd_reject_t rej = {piece->in->name, doc->file_index, doc->ordinal, doc->offset, "no visible text",
                            doc->url, doc->ctype};
        on_reject(r, &rej);
        r->c.no_text++;
        return NDD_OK;
    }
    double ts = ndd_now();
    size_t nsig = 0, nsent = 0;
    /* baseline candidates compute their keys later (they may need corpus df);
     * with the template pass, every document's keys come after it */
    if (!cfg->candidates && !cfg->templates && (rc = ndd_sig_doc(w->sig, w->text.data, w->text.len, w->sigs, &nsig, &nsent)))
        return rc;
    for (size_t s = 0; s < nsig; s++)
        w->keys[s] = ndd_sig_key(&w->sigs[s]);
    w->t_sig += ndd_now() - ts;
    rc = ndd_docs_add(&r->d, doc->id, strlen(doc->id), doc->url, strlen(doc->url), w->text.data, w->text.len,
                      ndd_url_site(doc->url), ndd_url_hash16(doc->url), (uint32_t)nsig, w->keys, nsig);
    if (rc)
        return rc;
    ndd_docs_set_date(&r->d, r->d.n - 1, ndd_date_key(doc->date));
    r->c.text_bytes += w->text.len;
    return NDD_OK;
}

/* Reads one piece; reports progress every 64 documents. */
static int map_piece(run_t *r, map_ws_t *w, const ndd_piece_t *piece, ndd_prog_t *prog, uint64_t bytes_before)
{
    uint64_t piece_bytes = ndd_piece_bytes(piece), piece_lo = piece->hi == UINT64_MAX ? 0 : piece->lo;
    ndd_reader_t *rd = NULL;
    int rc = ndd_reader_open(&rd, piece->in, piece->lo, piece->hi, on_reject, r);
    r->c.input_bytes += rc ? piece_bytes : ndd_reader_input_bytes(rd);
    if (rc) { /* an input that cannot be opened is a reject, not a failed run */
        ndd_reject_t rej = {piece->in->name, piece->in->file_index, UINT64_MAX, 0, ndd_strerror(rc), NULL, NULL};
        on_reject(r, &rej);
        return NDD_OK;
    }
    if ((rc = ndd_reader_set_fields(rd, &r->cfg->fields))) {
        ndd_reader_free(rd);
        return rc;
    }
    ndd_doc_t doc;
    while ((rc = ndd_reader_next(rd, &doc)) == NDD_OK) {
        r->c.docs_read++;
        if (prog && !(r->c.docs_read & 63)) {
            uint64_t in_piece = doc.offset > piece_lo ? doc.offset - piece_lo : 0;
            ndd_prog_update(prog, bytes_before + (in_piece < piece_bytes ? in_piece : piece_bytes));
        }
        if ((rc = map_doc(r, w, piece, &doc)))
            break;
    }
    ndd_reader_free(rd);
    return rc == NDD_ERR_EOF ? NDD_OK : rc;
}

static int map_setup(run_t *r, map_ws_t *w, const ndd_input_t *in, size_t nin, int task, int ntasks,
                     ndd_piece_t **pieces, size_t *npieces)
{
    int rc = ndd_part_plan(in, nin, ntasks, task, pieces, npieces);
    if (rc || (rc = ndd_sig_ctx_create(&w->sig, &r->cfg->sig)))
        return rc;
    w->sigs = malloc(NDD_SIG_MAX * sizeof *w->sigs);
    w->keys = malloc(NDD_SIG_MAX * sizeof *w->keys);
    return !w->sigs || !w->keys ? NDD_ERR_NOMEM : NDD_OK;
}

int ndd_stage_read(run_t *r, const ndd_input_t *in, size_t nin, int task, int ntasks, int progress)
{
    ndd_piece_t *pieces = NULL;
    size_t npieces = 0;
    map_ws_t w = {NULL, NULL, NULL, NDD_BUF_INIT, 0};
    ndd_prog_t *prog = NULL;
    double t0 = ndd_now();
    uint64_t my_bytes = 0, before = 0;
    int rc = map_setup(r, &w, in, nin, task, ntasks, &pieces, &npieces);
    uint64_t plain = 0; /* bytes of the pieces read as they lie (not decompressed) */
    for (size_t p = 0; p < npieces; p++) {
        my_bytes += ndd_piece_bytes(&pieces[p]);
        plain += pieces[p].in->compression ? 0 : ndd_piece_bytes(&pieces[p]);
    }
    /* The texts' room at once: the bytes of the uncompressed pieces (markup,
     * escapes and entities are longer than the text they give; a text beyond
     * that, or from a compressed input, grows the buffer as before). Doubling
     * copied every text about once more, each copy into fresh pages (the
     * kernel clearing them: 4 % of a 1-rank run); pages never written are
     * never touched, so the room costs address space, not memory. A hint:
     * when it cannot be had, the buffer grows from empty. */
    if (!rc && plain > r->d.texts.cap && plain < SIZE_MAX / 2)
        (void)ndd_buf_reserve(&r->d.texts, (size_t)plain);
    if (progress && (rc = ndd_comm_agree(r->comm, rc)) == NDD_OK)
        prog = ndd_prog_begin(r, "read", "bytes", my_bytes);
    for (size_t p = 0; p < npieces && !rc; p++) {
        rc = map_piece(r, &w, &pieces[p], prog, before);
        before += ndd_piece_bytes(&pieces[p]);
    }
    ndd_prog_end(prog, my_bytes);
    r->t[NDD_ST_SIG] = w.t_sig;
    r->t[NDD_ST_READ] = ndd_now() - t0 - w.t_sig;
    ndd_sig_ctx_free(w.sig);
    free(w.sigs);
    free(w.keys);
    free(pieces);
    ndd_buf_free(&w.text);
    return rc;
}

/* ------------------------------------------------------------------ */

/* Baseline methods (--candidates / --verifier from src/baselines): the corpus
 * document-frequency sketches they need, summed over ranks (integer sums:
 * the same for any rank count), then, for baseline candidates, each
 * document's candidate keys in place of the sentence signatures. */
static int baseline_keys(run_t *r)
{
    ndd_docs_t *d = &r->d;
    int rc = ndd_method_ctx_create(&r->mctx, &r->cfg->mparams, NULL);
    for (size_t k = 0; k < r->ndfs && !rc; k++)
        rc = ndd_method_ctx_add_df(r->mctx, r->dfs[k]);
    d->nkeys = 0;
    if (!rc && d->key_off)
        d->key_off[0] = 0;
    for (size_t i = 0; i < d->n && !rc; i++) {
        const uint64_t *mk = NULL;
        size_t nk = 0;
        if (ndd_exact_is_follower(r, i)) { /* no keys: it joins its representative's set later */
            d->key_off[i + 1] = d->nkeys;
            continue;
        }
        if ((rc = ndd_method_keys(r->mctx, (ndd_method_t)r->cfg->candidates, ndd_docs_text(d, i), d->text_len[i], &mk,
                                  &nk)) ||
            (rc = ndd_array_grow((void **)&d->keys, &d->keys_cap, d->nkeys + nk, sizeof *d->keys)))
            break;
        if (nk)
            memcpy(d->keys + d->nkeys, mk, nk * sizeof *mk);
        d->nkeys += nk;
        d->key_off[i + 1] = d->nkeys;
        d->weight[i] = nk > 65535 ? 65535 : (uint32_t)nk;
        r->c.signatures += nk;
        r->c.no_sigs += !nk; /* (reduce counters: ndd_stage_templates zeroed them) */
    }
    return rc;
}

int ndd_stage_baselines(run_t *r)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    unsigned kinds = 0;
    int rc = NDD_OK;
    if (cfg->candidates)
        kinds |= ndd_method_df_kinds((ndd_method_t)cfg->candidates);
    if (cfg->verifier == NDD_VERIFIER_METHOD)
        kinds |= ndd_method_df_kinds(cfg->vmethod);
    if (!kinds && !cfg->candidates)
        return NDD_OK;
    double t0 = ndd_now();
    for (int k = 0; k < 3 && !rc; k++) {
        if (!(kinds & (1u << k)))
            continue;
        ndd_df_t *df = NULL;
        if ((rc = ndd_df_create_kind(&df, (ndd_df_kind_t)k, &cfg->mparams, 4, 20)))
            break;
        r->dfs[r->ndfs++] = df;
        for (size_t i = 0; i < r->d.n && !rc; i++) /* distinct texts: an exact copy counts once */
            if (!ndd_exact_is_follower(r, i))
                rc = ndd_df_add_doc(df, ndd_docs_text(&r->d, i), r->d.text_len[i]);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    for (size_t k = 0; k < r->ndfs; k++) {
        size_t n;
        uint32_t *cnt = ndd_df_counters(r->dfs[k], &n);
        NDD_TRY(ndd_comm_allreduce(r->comm, cnt, n, NDD_TY_U32, NDD_RED_SUM));
        NDD_TRY(ndd_comm_allreduce(r->comm, ndd_df_ndocs(r->dfs[k]), 1, NDD_TY_U64, NDD_RED_SUM));
    }
    if (cfg->candidates)
        rc = baseline_keys(r);
    r->t[NDD_ST_SIG] += ndd_now() - t0;
    rc = ndd_comm_agree(r->comm, rc);
out:
    return rc;
}

/* ------------------------------------------------------------------ */

/* The --write-dedup file's kind from its name: WARC for .warc / .warc.gz /
 * .warc.zst (also .wet), else JSONL; compressed by zstd for .zst, by gzip
 * for .gz. */
void ndd_dedup_kind(const char *path, int *warc, int *comp)
{
    size_t n = strlen(path);
    *comp = 0;
    if (n >= 4 && !strcmp(path + n - 4, ".zst")) {
        *comp = 2;
        n -= 4;
    } else if (n >= 3 && !strcmp(path + n - 3, ".gz")) {
        *comp = 1;
        n -= 3;
    }
    *warc = (n >= 5 && !strncmp(path + n - 5, ".warc", 5)) || (n >= 4 && !strncmp(path + n - 4, ".wet", 4));
}

/* One gzip member of in[0..n) appended to out. */
static int gz_member(const char *in, size_t n, ndd_buf_t *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NDD_ERR_COMPRESS;
    size_t bound = deflateBound(&z, (uLong)n) + 32;
    int rc = ndd_buf_reserve(out, bound);
    if (!rc) {
        z.next_in = (Bytef *)(uintptr_t)in;
        z.avail_in = (uInt)n;
        z.next_out = (Bytef *)out->data + out->len;
        z.avail_out = (uInt)bound;
        rc = deflate(&z, Z_FINISH) == Z_STREAM_END ? NDD_OK : NDD_ERR_COMPRESS;
        if (!rc)
            out->len += bound - z.avail_out;
    }
    deflateEnd(&z);
    return rc;
}

/* This rank's shard again: each document as the record the output keeps
 * (rec[i] .. rec[i+1]): the record as read (a JSONL line to a JSONL file, a
 * WARC record to a WARC file), else, for a JSONL file, a line of id, url and
 * the full visible text (no --max-doc-bytes cut). Only the documents the
 * read stage numbered (ndd_doc_admitted). */
static int dedup_records(run_t *r, const ndd_input_t *in, size_t nin, int warc, ndd_buf_t *recs, size_t **roff,
                         size_t *ndocs)
{
    ndd_piece_t *pieces = NULL;
    size_t npieces = 0, lcap = 0;
    ndd_reader_t *rd = NULL;
    ndd_buf_t text = NDD_BUF_INIT;
    ndd_text_opts_t full = r->cfg->text;
    full.max_bytes = 0;
    int rc = ndd_part_plan(in, nin, r->P, r->me, &pieces, &npieces);
    for (size_t p = 0; p < npieces && !rc; p++) {
        if (ndd_reader_open(&rd, pieces[p].in, pieces[p].lo, pieces[p].hi, NULL, NULL))
            continue;
        int copy = pieces[p].in->format == (warc ? NDD_FMT_WARC : NDD_FMT_JSONL);
        ndd_doc_t doc;
        rc = ndd_reader_set_fields(rd, &r->cfg->fields);
        while (!rc && (rc = ndd_reader_next(rd, &doc)) == NDD_OK) {
            if (ndd_doc_admit(r->cfg, &doc)) /* rejected in the read stage: no number */
                continue;
            if ((rc = doc_text(&doc, &full, &text)))
                break;
            if (text.len == 0) /* rejected in the read stage: no number */
                continue;
            if ((rc = ndd_array_grow((void **)roff, &lcap, *ndocs + 2, sizeof **roff)))
                break;
            (*roff)[*ndocs] = recs->len;
            if (copy && doc.raw) {
                ndd_buf_append(recs, doc.raw, doc.raw_len);
                rc = ndd_buf_append(recs, doc.raw_tail, doc.raw_tail_len);
            } else if (warc) {
                rc = NDD_ERR_INTERNAL; /* ndd_run refuses non-WARC inputs for a WARC output */
            } else {
                ndd_buf_puts(recs, "{\"id\":");
                ndd_json_append_string(recs, doc.id, strlen(doc.id));
                ndd_buf_puts(recs, ",\"url\":");
                ndd_json_append_string(recs, doc.url, strlen(doc.url));
                ndd_buf_puts(recs, ",\"text\":");
                ndd_json_append_string(recs, text.data, text.len);
                rc = ndd_buf_puts(recs, "}\n");
            }
            (*ndocs)++;
            (*roff)[*ndocs] = recs->len;
        }
        if (rc == NDD_ERR_EOF)
            rc = NDD_OK;
        ndd_reader_free(rd);
        rd = NULL;
    }
    free(pieces);
    ndd_buf_free(&text);
    return rc;
}

static uint64_t answer_removed(run_t *r, uint64_t g) { return r->removed[g - r->first]; }

static int zstd_frame(const ndd_buf_t *in, ndd_buf_t *z)
{
    size_t bound = ZSTD_compressBound(in->len);
    int rc = ndd_buf_reserve(z, bound);
    if (rc)
        return rc;
    size_t n = ZSTD_compress(z->data, bound, in->data ? in->data : "", in->len, 3);
    if (ZSTD_isError(n))
        return NDD_ERR_COMPRESS;
    z->len = n;
    return NDD_OK;
}

/* Every document that was not removed, as the record it was read from (see
 * dedup_records), in document order. A .zst file gets one zstd frame per
 * rank, a .gz file one gzip member per rank (JSONL) or per record (WARC, as
 * WARC files are usually compressed): frames and members concatenate into
 * one valid file. The shard's documents are numbered by an exclusive scan
 * and their removed flags asked from their owners, so this works for any
 * rank count, also after --resume. */
int ndd_stage_dedup(run_t *r, const ndd_input_t *in, size_t nin)
{
    ndd_buf_t recs = NDD_BUF_INIT, out = NDD_BUF_INIT, z = NDD_BUF_INIT;
    size_t *roff = NULL, ndocs = 0;
    uint64_t *ids = NULL, *flags = NULL, first = 0, total = 0, kept = 0, kept_before = 0, kept_total = 0;
    int warc, comp;
    ndd_dedup_kind(r->cfg->write_dedup, &warc, &comp);
    int rc = ndd_comm_agree(r->comm, dedup_records(r, in, nin, warc, &recs, &roff, &ndocs));
    if (rc)
        goto out;
    NDD_TRY(ndd_comm_exscan_u64(r->comm, ndocs, &first, &total));
    ids = malloc((ndocs ? ndocs : 1) * sizeof *ids);
    flags = malloc((ndocs ? ndocs : 1) * sizeof *flags);
    NDD_TRY(ndd_comm_agree(r->comm, !ids || !flags ? NDD_ERR_NOMEM : NDD_OK));
    for (size_t i = 0; i < ndocs; i++)
        ids[i] = first + i;
    NDD_TRY(ndd_request_by_owner(r, ids, ndocs, answer_removed, flags));
    for (size_t i = 0; i < ndocs; i++)
        kept += !flags[i];
    NDD_TRY(ndd_comm_exscan_u64(r->comm, kept, &kept_before, &kept_total));
    for (size_t i = 0; i < ndocs && !rc; i++) {
        if (flags[i])
            continue;
        if (comp == 1 && warc)
            rc = gz_member(recs.data + roff[i], roff[i + 1] - roff[i], &z);
        else
            rc = ndd_buf_append(&out, recs.data + roff[i], roff[i + 1] - roff[i]);
    }
    /* an empty corpus is still a valid compressed file: rank 0 writes an empty frame or member */
    if (!rc && comp == 2 && (out.len || r->me == 0))
        rc = zstd_frame(&out, &z);
    else if (!rc && comp == 1 && !warc && (out.len || (r->me == 0 && !kept_total)))
        rc = gz_member(out.data ? out.data : "", out.len, &z);
    else if (!rc && comp == 1 && warc && r->me == 0 && !kept_total)
        rc = gz_member("", 0, &z);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    const ndd_buf_t *w = comp ? &z : &out;
    rc = ndd_write_output(r, r->cfg->write_dedup, w->data ? w->data : "", w->len);
out:
    free(roff);
    free(ids);
    free(flags);
    ndd_buf_free(&recs);
    ndd_buf_free(&out);
    ndd_buf_free(&z);
    return rc;
}

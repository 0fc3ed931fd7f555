/* flow.c - flow mode (paper 003): the stream clock, hour segments held for
 * the window and dropped behind it, candidates from the segments' inverted
 * indexes and the verdict of each document (ndd_flow.h, docs/flow.md). */
#include "flow_internal.h"
#include "ndd_baselines.h"

#include <string.h>

struct ndd_flow {
    ndd_flow_params_t p;
    ndd_method_ctx_t *mctx;   /* the q-gram sets (ndd_qgram_set) */
    ndd_tlcs_ws_t *ws;        /* tlcs */
    flow_seg_t **segs;        /* held segments, ascending hour */
    size_t nsegs, scap;
    uint32_t *cnt, *touched;  /* list_counters of paper 003 Fig. 2, per segment */
    size_t ccap;
    uint64_t seq;
    int have_clock;
    ndd_flow_stats_t st;
};

void ndd_flow_params_default(ndd_flow_params_t *p)
{
    memset(p, 0, sizeof *p);
    p->window = NDD_FLOW_DEFAULT_WINDOW;
    p->max_late = NDD_FLOW_DEFAULT_MAX_LATE;
    p->q = NDD_FLOW_DEFAULT_Q;
    p->threshold = NDD_FLOW_DEFAULT_THRESHOLD;
    p->measure = NDD_FLOW_QGRAM;
    p->candidate_min = NDD_FLOW_DEFAULT_CANDIDATE_MIN;
    ndd_tlcs_params_default(&p->tlcs);
    p->formulaic = 1;
    ndd_formula_params_default(&p->fp);
}

int ndd_flow_params_check(const ndd_flow_params_t *p)
{
    if (!p || p->window < 1 || p->max_late < 0 || p->q < 1 || p->q > 64 || !(p->threshold > 0 && p->threshold <= 1) ||
        (p->measure != NDD_FLOW_QGRAM && p->measure != NDD_FLOW_TLCS) ||
        (p->index != NDD_FLOW_INDEX_POSTINGS && p->index != NDD_FLOW_INDEX_BITMAP) ||
        !(p->candidate_min >= 0 && p->candidate_min <= 1) || p->window > (INT64_C(1) << 40) ||
        p->max_late > (INT64_C(1) << 40))
        return NDD_ERR_INVAL;
    return NDD_OK;
}

const char *ndd_flow_kind_name(ndd_flow_kind_t k)
{
    switch (k) {
    case NDD_FLOW_NEW: return "new";
    case NDD_FLOW_DUP: return "near-duplicate";
    case NDD_FLOW_LATE: return "late";
    case NDD_FLOW_UNDATED: return "undated";
    }
    return "?";
}

int ndd_flow_create(ndd_flow_t **out, const ndd_flow_params_t *p)
{
    ndd_method_params_t mp;
    ndd_flow_t *f;
    int rc;
    if (!out || ndd_flow_params_check(p))
        return NDD_ERR_INVAL;
    *out = NULL;
    if (!(f = calloc(1, sizeof *f)))
        return NDD_ERR_NOMEM;
    f->p = *p;
    f->p.keep_text = p->measure == NDD_FLOW_TLCS;
    ndd_method_params_default(&mp);
    mp.q = p->q;
    if ((rc = ndd_method_ctx_create(&f->mctx, &mp, NULL)) ||
        (f->p.keep_text && (rc = ndd_tlcs_ws_create(&f->ws)))) {
        ndd_flow_free(f);
        return rc;
    }
    *out = f;
    return NDD_OK;
}

void ndd_flow_free(ndd_flow_t *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nsegs; i++)
        flow_seg_free(f->segs[i]);
    free(f->segs);
    free(f->cnt);
    free(f->touched);
    ndd_method_ctx_free(f->mctx);
    ndd_tlcs_ws_free(f->ws);
    free(f);
}

int ndd_flow_qgrams(ndd_flow_t *f, const char *text, size_t n, const uint64_t **set, size_t *nset)
{
    if (!f)
        return NDD_ERR_INVAL;
    return ndd_qgram_set(f->mctx, text ? text : "", text ? n : 0, set, nset);
}

void ndd_flow_get_stats(const ndd_flow_t *f, ndd_flow_stats_t *s)
{
    *s = f->st;
}

/* Drops the segments whose every document has t <= C - max_late - window. */
static void flow_evict(ndd_flow_t *f)
{
    int64_t edge = f->st.clock - f->p.max_late - f->p.window;
    size_t k = 0;
    while (k < f->nsegs && (f->segs[k]->hour + 1) * NDD_FLOW_HOUR - 1 <= edge) {
        flow_seg_free(f->segs[k]);
        f->st.segments_dropped++;
        k++;
    }
    if (k) {
        memmove(f->segs, f->segs + k, (f->nsegs - k) * sizeof *f->segs);
        f->nsegs -= k;
    }
    f->st.segments_held = f->nsegs;
}

/* The candidate d of segment s against the document (t, nq, text): updates
 * the best match when d is inside the window and scores higher. */
typedef struct flow_best {
    const flow_doc_t *doc;
    double score;
} flow_best_t;

static int flow_better(const flow_best_t *b, double score, const flow_doc_t *d)
{
    return !b->doc || score > b->score || (score == b->score && d->seq < b->doc->seq);
}

static int flow_in_window(const ndd_flow_t *f, int64_t t, const flow_doc_t *d)
{
    int64_t dt = t > d->t ? t - d->t : d->t - t;
    return dt < f->p.window;
}

static int flow_tlcs(ndd_flow_t *f, const char *text, size_t n, const flow_doc_t *d, flow_best_t *best,
                     ndd_flow_verdict_t *v)
{
    ndd_tlcs_result_t r;
    int rc = ndd_tlcs_compare(f->ws, &f->p.tlcs, text, n, d->text ? d->text : "", d->ntext, &r);
    if (rc)
        return rc;
    v->verified++;
    f->st.tlcs_runs++;
    if (r.duplicate && f->p.formulaic) {
        ndd_formula_result_t fr;
        if ((rc = ndd_formula_check(&f->p.fp, text, n, d->text ? d->text : "", d->ntext, &r, &fr)))
            return rc;
        if (fr.different) {
            r.duplicate = 0;
            f->st.formulaic++;
        }
    }
    if (r.duplicate && flow_better(best, r.resemblance, d)) {
        best->doc = d;
        best->score = r.resemblance;
    }
    return NDD_OK;
}

/* One held segment against the document: counts its shared q-grams per
 * document of s (the segment's inverted index) and scores those in the window. */
static int flow_segment_scan(ndd_flow_t *f, const flow_seg_t *s, int64_t t, const uint64_t *set, size_t nset,
                             const char *text, size_t n, flow_best_t *best, ndd_flow_verdict_t *v)
{
    size_t nt = 0;
    int rc = NDD_OK, all = f->p.measure == NDD_FLOW_TLCS && f->p.candidate_min == 0;
    if (s->ndocs > f->ccap) {
        size_t cap = f->ccap;
        if ((rc = ndd_array_grow((void **)&f->touched, &cap, s->ndocs, sizeof *f->touched)))
            return rc;
        uint32_t *c = realloc(f->cnt, cap * sizeof *c);
        if (!c)
            return NDD_ERR_NOMEM;
        memset(c + f->ccap, 0, (cap - f->ccap) * sizeof *c);
        f->cnt = c;
        f->ccap = cap;
    }
    for (size_t i = 0; i < s->ndocs; i++)
        v->compared += (uint64_t)flow_in_window(f, t, &s->docs[i]);
    f->st.postings_read += flow_seg_count(s, set, nset, f->cnt, f->touched, &nt);
    f->st.lookups += s->tcap ? nset : 0;
    for (size_t k = 0; k < nt; k++) {
        uint32_t i = f->touched[k], c = f->cnt[i];
        const flow_doc_t *d = &s->docs[i];
        f->cnt[i] = 0;
        if (rc || !flow_in_window(f, t, d))
            continue;
        f->st.pairs_sharing++;
        uint32_t mx = d->nq > nset ? d->nq : (uint32_t)nset, mn = d->nq < nset ? d->nq : (uint32_t)nset;
        if (f->p.measure == NDD_FLOW_QGRAM) {
            double score = (double)c / (double)mx;
            if (score >= f->p.threshold && flow_better(best, score, d)) {
                best->doc = d;
                best->score = score;
            }
        } else if (!all && (double)c >= f->p.candidate_min * (double)mn) {
            rc = flow_tlcs(f, text, n, d, best, v);
        }
    }
    for (size_t i = 0; all && !rc && i < s->ndocs; i++)
        if (flow_in_window(f, t, &s->docs[i]))
            rc = flow_tlcs(f, text, n, &s->docs[i], best, v);
    return rc;
}

/* The held segment of hour h, created (in hour order) when absent. */
static int flow_segment_of(ndd_flow_t *f, int64_t h, flow_seg_t **out)
{
    size_t k = f->nsegs;
    int rc;
    while (k > 0 && f->segs[k - 1]->hour > h)
        k--;
    if (k > 0 && f->segs[k - 1]->hour == h) {
        *out = f->segs[k - 1];
        return NDD_OK;
    }
    if ((rc = ndd_array_grow((void **)&f->segs, &f->scap, f->nsegs + 1, sizeof *f->segs)))
        return rc;
    flow_seg_t *s;
    if ((rc = flow_seg_create(&s, h, f->p.index == NDD_FLOW_INDEX_BITMAP)))
        return rc;
    memmove(f->segs + k + 1, f->segs + k, (f->nsegs - k) * sizeof *f->segs);
    f->segs[k] = s;
    f->nsegs++;
    f->st.segments_created++;
    *out = s;
    return NDD_OK;
}

/* Indexes the accepted document in its hour's segment; memory figures. */
static int flow_insert(ndd_flow_t *f, const char *id, int64_t t, const uint64_t *set, size_t nset,
                       const char *text, size_t n, uint64_t seq)
{
    flow_seg_t *s;
    flow_doc_t d = {seq, t, (char *)id, (uint32_t)nset, f->p.keep_text ? (char *)(text ? text : "") : NULL,
                    f->p.keep_text ? n : 0};
    int rc;
    if (nset >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    if ((rc = flow_segment_of(f, ndd_flow_hour(t), &s)) || (rc = flow_seg_add(s, &d, set, nset)))
        return rc;
    size_t b = flow_seg_bytes(s), bm = flow_seg_bitmap_bytes(s), all = 0;
    if (b > f->st.segment_bytes_max)
        f->st.segment_bytes_max = b;
    if (bm > f->st.segment_bitmap_bytes_max)
        f->st.segment_bitmap_bytes_max = bm;
    if (s->ndocs > f->st.segment_docs_max)
        f->st.segment_docs_max = s->ndocs;
    for (size_t k = 0; k < f->nsegs; k++)
        all += flow_seg_bytes(f->segs[k]);
    f->st.bytes_held = all;
    if (all > f->st.bytes_held_max)
        f->st.bytes_held_max = all;
    f->st.segments_held = f->nsegs;
    if (f->nsegs > f->st.segments_held_max)
        f->st.segments_held_max = f->nsegs;
    return NDD_OK;
}

int ndd_flow_add(ndd_flow_t *f, const char *id, int dated, int64_t t, const char *text, size_t n,
                 ndd_flow_verdict_t *v)
{
    const uint64_t *set;
    size_t nset;
    flow_best_t best = {NULL, 0};
    int rc;
    if (!f || !v || (n && !text))
        return NDD_ERR_INVAL;
    memset(v, 0, sizeof *v);
    v->seq = f->seq++;
    f->st.docs++;
    if (!dated || (f->have_clock && t < f->st.clock - f->p.max_late)) {
        v->kind = dated ? NDD_FLOW_LATE : NDD_FLOW_UNDATED;
        ++*(dated ? &f->st.late : &f->st.undated);
        return NDD_OK;
    }
    if (f->have_clock && t < f->st.clock)
        f->st.out_of_order++;
    if (!f->have_clock || t > f->st.clock) {
        f->st.clock = t;
        f->have_clock = 1;
        flow_evict(f);
    }
    if ((rc = ndd_flow_qgrams(f, text, n, &set, &nset)))
        return rc;
    for (size_t k = 0; k < f->nsegs; k++) {
        const flow_seg_t *s = f->segs[k];
        int64_t lo = s->hour * NDD_FLOW_HOUR, hi = lo + NDD_FLOW_HOUR - 1;
        if (hi > t - f->p.window && lo < t + f->p.window &&
            (rc = flow_segment_scan(f, s, t, set, nset, text ? text : "", n, &best, v)))
            return rc;
    }
    f->st.pairs_in_window += v->compared;
    if (best.doc) {
        v->kind = NDD_FLOW_DUP;
        v->of_seq = best.doc->seq;
        v->of_id = best.doc->id;
        v->of_time = best.doc->t;
        v->score = best.score;
        f->st.dups++;
    } else {
        v->kind = NDD_FLOW_NEW;
        f->st.new_docs++;
    }
    return flow_insert(f, id, t, set, nset, text, n, v->seq);
}

/* run_verifier.c - one interface over the TLCS, SigNCD and baseline
 * verifiers for the run pipeline (see ndd_run.h). Local. */
#include "ndd_run.h"
#include "ndd_ncd.h"
#include "ndd_util.h"
#include "ndd_verify.h"

#include <stdlib.h>
#include <string.h>

struct ndd_verifier {
    ndd_verifier_kind_t kind;
    double tau;
    ndd_tlcs_params_t tp;
    ndd_tlcs_ws_t *tws;
    ndd_tlcs_result_t tr;
    ndd_formula_params_t fp;
    ndd_formula_ws_t *fws; /* the formulaic check's workspace (TLCS with --formulaic on) */
    int formula;
    ndd_ncd_ctx_t *ncd;
    ndd_method_t method;
    ndd_method_ctx_t *mctx;
    /* the current set */
    size_t n;
    const char *const *texts;
    const size_t *lens;
    /* SigNCD: each member's signature and its compressed size */
    ndd_buf_t *sigs;
    size_t *csize;
    size_t cap;
    /* TLCS: each member's anchors, made at its first pair in the set and
     * handed to the TLCS (its anchor bound, then its sketches) */
    ndd_anchors_t *anc;
    uint8_t *anc_made;
    size_t anc_cap;
    uint64_t *scratch;
    size_t scratch_cap;
    /* LSI: the current set's fingerprints and SimHashes, paper 001's gates */
    const float *const *fps;
    const uint64_t *sims;
    unsigned lk;
    double th1, th4, gate;
};

/* Anchor arrays kept between sets while their lookup list's room (cap, in
 * bytes) is at most this: 8,192 anchors of 4 bytes, a member of ~40 KB of
 * text; and the scratch up to 2^20 entries; larger ones are freed at the
 * next set. */
#define ANCHORS_KEEP_BYTES (32u << 10)
#define SCRATCH_KEEP (1u << 20)

int ndd_verifier_create(ndd_verifier_t **out, const ndd_run_cfg_t *cfg, ndd_df_t *const *dfs, size_t ndfs)
{
    ndd_verifier_t *v = calloc(1, sizeof *v);
    int rc = NDD_OK;
    if (!v)
        return NDD_ERR_NOMEM;
    v->kind = cfg->verifier;
    v->tau = cfg->tau;
    ndd_tlcs_params_default(&v->tp);
    v->tp.window = cfg->window;
    v->tp.slope = cfg->slope;
    v->tp.min_resemblance = cfg->min_resemblance;
    v->tp.min_containment = cfg->min_containment;
    if (cfg->max_d)
        v->tp.max_d = cfg->max_d;
    if (cfg->max_iter)
        v->tp.max_iter = cfg->max_iter;
    if (!cfg->subst)
        v->tp.subst_share = 0;
    ndd_formula_params_default(&v->fp);
    v->formula = cfg->formula;
    v->method = cfg->vmethod;
    v->th1 = cfg->lsi.th1;
    v->th4 = cfg->lsi.th4;
    v->gate = cfg->lsi.gate;
    if (v->kind == NDD_VERIFIER_LSI)
        rc = NDD_OK;
    else if (v->kind == NDD_VERIFIER_TLCS || v->kind == NDD_VERIFIER_TLCS_LSI) {
        rc = ndd_tlcs_ws_create(&v->tws);
        if (!rc && v->formula)
            rc = ndd_formula_ws_create(&v->fws);
    }
    else if (v->kind == NDD_VERIFIER_SIGNCD)
        rc = ndd_ncd_ctx_create(&v->ncd, 0);
    else {
        rc = ndd_method_ctx_create(&v->mctx, &cfg->mparams, NULL);
        for (size_t i = 0; i < ndfs && !rc; i++)
            rc = ndd_method_ctx_add_df(v->mctx, dfs[i]);
    }
    if (rc) {
        ndd_verifier_free(v);
        return rc;
    }
    *out = v;
    return NDD_OK;
}

void ndd_verifier_free(ndd_verifier_t *v)
{
    if (!v)
        return;
    ndd_tlcs_ws_free(v->tws);
    ndd_formula_ws_free(v->fws);
    for (size_t i = 0; i < v->anc_cap; i++)
        ndd_anchors_free(&v->anc[i]);
    free(v->anc);
    free(v->anc_made);
    free(v->scratch);
    ndd_ncd_ctx_free(v->ncd);
    ndd_method_ctx_free(v->mctx);
    for (size_t i = 0; i < v->cap; i++)
        ndd_buf_free(&v->sigs[i]);
    free(v->sigs);
    free(v->csize);
    free(v);
}

const char *ndd_verifier_name(const ndd_verifier_t *v)
{
    return v->kind == NDD_VERIFIER_TLCS       ? "tlcs"
           : v->kind == NDD_VERIFIER_SIGNCD   ? "signcd"
           : v->kind == NDD_VERIFIER_LSI      ? "lsi"
           : v->kind == NDD_VERIFIER_TLCS_LSI ? "tlcs+lsi"
                                              : ndd_method_name(v->method);
}

int ndd_verifier_set_begin(ndd_verifier_t *v, size_t n, const char *const *texts, const size_t *lens)
{
    v->n = n;
    v->texts = texts;
    v->lens = lens;
    v->fps = NULL;
    v->sims = NULL;
    if (v->kind == NDD_VERIFIER_TLCS || v->kind == NDD_VERIFIER_TLCS_LSI) { /* the members' anchors */
        if (n > v->anc_cap) {
            ndd_anchors_t *a = realloc(v->anc, n * sizeof *a);
            if (!a)
                return NDD_ERR_NOMEM;
            memset(a + v->anc_cap, 0, (n - v->anc_cap) * sizeof *a);
            v->anc = a;
            v->anc_cap = n;
            uint8_t *m = realloc(v->anc_made, n);
            if (!m)
                return NDD_ERR_NOMEM;
            v->anc_made = m;
        }
        memset(v->anc_made, 0, n);
        for (size_t i = 0; i < v->anc_cap; i++)
            if (v->anc[i].cap > ANCHORS_KEEP_BYTES)
                ndd_anchors_free(&v->anc[i]);
        if (v->scratch_cap > SCRATCH_KEEP) {
            free(v->scratch);
            v->scratch = NULL;
            v->scratch_cap = 0;
        }
        return NDD_OK;
    }
    if (v->kind != NDD_VERIFIER_SIGNCD)
        return NDD_OK;
    if (n > v->cap) {
        ndd_buf_t *s = realloc(v->sigs, n * sizeof *s);
        if (!s)
            return NDD_ERR_NOMEM;
        v->sigs = s;
        for (size_t i = v->cap; i < n; i++)
            v->sigs[i] = (ndd_buf_t)NDD_BUF_INIT;
        size_t *c = realloc(v->csize, n * sizeof *c);
        if (!c) {
            v->cap = n; /* sigs grew; keep them freeable */
            return NDD_ERR_NOMEM;
        }
        v->csize = c;
        v->cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = ndd_ncd_signature(texts[i], lens[i], &v->sigs[i]);
        if (!rc)
            rc = ndd_ncd_csize(v->ncd, v->sigs[i].data ? v->sigs[i].data : "", v->sigs[i].len, &v->csize[i]);
        if (rc)
            return rc;
    }
    return NDD_OK;
}

void ndd_verifier_set_lsi(ndd_verifier_t *v, const float *const *fps, const uint64_t *sims, unsigned k)
{
    v->fps = fps;
    v->sims = sims;
    v->lk = k;
}

/* paper 001's conceptual rule: textual similarity (SimHash of 3-shingles,
 * 64 - Hamming) >= th1 and cosine of the fingerprints >= th4. */
static int lsi_pair(const ndd_verifier_t *v, size_t i, size_t j, double *cosine)
{
    const float *a = v->fps ? v->fps[i] : NULL, *b = v->fps ? v->fps[j] : NULL;
    *cosine = a && b ? ndd_lsi_cosine(a, b, v->lk) : 0.0;
    return a && b && ndd_lsi_textsim(v->sims[i], v->sims[j]) >= v->th1 && *cosine >= v->th4;
}

int ndd_verifier_pair(ndd_verifier_t *v, size_t i, size_t j, ndd_vres_t *r)
{
    int rc;
    r->conceptual = 0;
    r->sketched = 0;
    if (v->kind == NDD_VERIFIER_LSI) {
        r->ncd = r->resemblance = r->containment = r->strain_away = 0;
        r->tlcs = 0;
        r->pruned_by_bound = r->hit_cost_limit = r->formulaic = 0;
        r->duplicate = r->conceptual = lsi_pair(v, i, j, &r->score);
        return NDD_OK;
    }
    r->ncd = 0;
    r->score = 0;
    r->tlcs = 0;
    r->resemblance = r->containment = 0;
    r->pruned_by_bound = r->hit_cost_limit = r->formulaic = 0;
    r->strain_away = 0;
    if (v->kind == NDD_VERIFIER_TLCS || v->kind == NDD_VERIFIER_TLCS_LSI) {
        if (!v->tp.exact) { /* each member's anchors, made at its first pair in the set */
            for (int s = 0; s < 2; s++) {
                size_t x = s ? j : i;
                if (!v->anc_made[x]) {
                    if ((rc = ndd_anchors_make(&v->anc[x], v->texts[x], v->lens[x], v->tp.window, &v->scratch,
                                                &v->scratch_cap)))
                        return rc;
                    v->anc_made[x] = 1;
                }
            }
            ndd_tlcs_ws_anchors(v->tws, &v->anc[i], &v->anc[j]);
        }
        rc = ndd_tlcs_compare(v->tws, &v->tp, v->texts[i], v->lens[i], v->texts[j], v->lens[j], &v->tr);
        if (rc)
            return rc;
        r->duplicate = v->tr.duplicate;
        if (r->duplicate && v->formula) {
            ndd_formula_result_t fr;
            if ((rc = ndd_formula_check_ws(v->fws, &v->fp, v->texts[i], v->lens[i], v->texts[j], v->lens[j], &v->tr,
                                           &fr)))
                return rc;
            r->formulaic = fr.different;
            r->duplicate = !fr.different;
        }
        r->score = v->tr.resemblance;
        r->resemblance = v->tr.resemblance;
        r->containment = v->tr.containment;
        r->tlcs = v->tr.tlcs;
        r->pruned_by_bound = v->tr.pruned_by_bound;
        r->sketched = !v->tr.anchor_pruned;
        r->strain_away = v->tr.strain_away;
        r->hit_cost_limit = v->tr.hit_cost_limit;
        if (v->kind == NDD_VERIFIER_TLCS_LSI) { /* LSI adds conceptual duplicates TLCS did not accept
                                                 * (never one the formulaic check rejected); the
                                                 * textual gate is also TLCS's resemblance */
            double cosine;
            int concept = lsi_pair(v, i, j, &cosine) && r->resemblance >= v->gate;
            r->score = cosine;
            if (!r->duplicate && !r->formulaic && concept)
                r->duplicate = r->conceptual = 1;
        }
        return NDD_OK;
    }
    if (v->kind == NDD_VERIFIER_METHOD)
        return ndd_method_compare(v->mctx, v->method, v->texts[i], v->lens[i], v->texts[j], v->lens[j], &r->score,
                                  &r->duplicate);
    double ncd = 1.0;
    rc = ndd_ncd_pair(v->ncd, v->sigs[i].data ? v->sigs[i].data : "", v->sigs[i].len, v->csize[i],
                      v->sigs[j].data ? v->sigs[j].data : "", v->sigs[j].len, v->csize[j], &ncd, NULL);
    if (rc)
        return rc;
    r->ncd = ncd;
    r->score = ncd;
    r->duplicate = ncd <= v->tau;
    return NDD_OK;
}

void ndd_verifier_identical(const ndd_verifier_t *v, size_t len, ndd_vres_t *r)
{
    memset(r, 0, sizeof *r);
    r->duplicate = 1;
    r->resemblance = r->containment = 1.0;
    r->ncd = 0.0;
    r->tlcs = len;
    r->score = v->kind == NDD_VERIFIER_TLCS || NDD_VERIFIER_HAS_LSI(v->kind) ? 1.0
               : v->kind == NDD_VERIFIER_SIGNCD ? 0.0
               : v->method == NDD_METHOD_SIMHASH ? 64.0
                                                 : 1.0;
}

/* base_spotsigs.c - SpotSigs (Theobald et al., paper 004): spot-signature
 * extraction, multiset Jaccard, candidate keys for ndd's shared-key framework
 * (partition-scoped prefix filter) and the paper's exact all-pairs matcher
 * (length partitions + inverted index pruning + early termination). */
#include "base_internal.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

/* ---- extraction ---- */

int base_spot_vec(ndd_method_ctx_t *c, base_slot_t *s, const char *text, size_t n, ndd_buf_t *strings)
{
    const base_tok_t *t = &c->tok;
    size_t nt, nsig = 0;
    unsigned d = c->p.spot_distance, chain = c->p.spot_chain;
    int rc;
    s->n = 0;
    if ((rc = base_tok_run(&c->tok, text, n)))
        return rc;
    nt = t->n;
    if ((rc = base_grow((void **)&c->pos, &c->poscap, nt + 1, sizeof *c->pos)) ||
        (rc = base_grow((void **)&c->tmp, &c->tmpcap, nt + 1, sizeof *c->tmp)))
        return rc;
    for (size_t i = 0; i < nt; i++)
        c->pos[i] = (uint32_t)base_words_kind(&c->words, t->h[i]);
    for (size_t i = 0; i < nt; i++) {
        size_t p = i;
        unsigned got = 0;
        if (!(c->pos[i] & BASE_ANTE))
            continue;
        ndd_buf_clear(&c->sbuf);
        if ((rc = ndd_buf_append(&c->sbuf, t->low + t->off[i], t->len[i])))
            return rc;
        /* chain: every d-th word after the antecedent; a stopword landed on
         * is skipped to the next non-stopword, and counting goes on from
         * there; the chain may be cut by the end of the text once it has one
         * word (paper 004 sec. 3) */
        for (unsigned k = 0; k < chain; k++) {
            p += d;
            while (p < nt && (c->pos[p] & BASE_STOP))
                p++;
            if (p >= nt)
                break;
            if ((rc = ndd_buf_putc(&c->sbuf, ':')) ||
                (rc = ndd_buf_append(&c->sbuf, t->low + t->off[p], t->len[p])))
                return rc;
            got++;
        }
        if (!got)
            continue;
        c->tmp[nsig++] = XXH3_64bits(c->sbuf.data, c->sbuf.len);
        if (strings && ((rc = ndd_buf_append(strings, c->sbuf.data, c->sbuf.len)) ||
                        (rc = ndd_buf_putc(strings, '\n'))))
            return rc;
    }
    base_sort_u64(c->tmp, nsig);
    if ((rc = base_grow((void **)&s->e, &s->ecap, nsig + 1, sizeof *s->e)))
        return rc;
    for (size_t i = 0; i < nsig;) {
        size_t j = i;
        while (j < nsig && c->tmp[j] == c->tmp[i])
            j++;
        s->e[s->n].h = c->tmp[i];
        s->e[s->n].f = (uint32_t)(j - i);
        s->n++;
        i = j;
    }
    return NDD_OK;
}

int ndd_spotsigs_vector(ndd_method_ctx_t *c, const char *text, size_t n, const ndd_spot_entry_t **e, size_t *ne)
{
    int rc;
    if (!c || !e || !ne || (n && !text))
        return NDD_ERR_INVAL;
    if ((rc = base_spot_vec(c, &c->slot[0], text, n, NULL)))
        return rc;
    *e = c->slot[0].e;
    *ne = c->slot[0].n;
    return NDD_OK;
}

int ndd_spotsigs_strings(ndd_method_ctx_t *c, const char *text, size_t n, ndd_buf_t *out)
{
    if (!c || !out || (n && !text))
        return NDD_ERR_INVAL;
    ndd_buf_clear(out);
    return base_spot_vec(c, &c->slot[0], text, n, out);
}

void ndd_spotsigs_jaccard(const ndd_spot_entry_t *a, size_t na, const ndd_spot_entry_t *b, size_t nb,
                          uint64_t *num, uint64_t *den)
{
    size_t i = 0, j = 0;
    uint64_t mn = 0, mx = 0;
    while (i < na && j < nb) {
        if (a[i].h < b[j].h)
            mx += a[i++].f;
        else if (a[i].h > b[j].h)
            mx += b[j++].f;
        else {
            uint32_t x = a[i].f, y = b[j].f;
            mn += x < y ? x : y;
            mx += x < y ? y : x;
            i++;
            j++;
        }
    }
    while (i < na)
        mx += a[i++].f;
    while (j < nb)
        mx += b[j++].f;
    *num = mn;
    *den = mx;
}

/* ---- keys ---- */

int ndd_spotsigs_vec_keys(ndd_method_ctx_t *c, const ndd_spot_entry_t *e, size_t ne,
                          const uint64_t **keys, size_t *nkeys)
{
    size_t len = 0, m = 0;
    int rc;
    if (!c || !keys || !nkeys || (ne && !e))
        return NDD_ERR_INVAL;
    c->nkeys = 0;
    *keys = NULL;
    *nkeys = 0;
    for (size_t i = 0; i < ne; i++)
        len += e[i].f;
    if ((rc = base_grow((void **)&c->rk, &c->rkcap, len + 1, sizeof *c->rk)))
        return rc;
    /* the multiset as a set of (signature, occurrence) elements: multiset
     * Jaccard is the set Jaccard of these; ordered by the signature's df */
    for (size_t i = 0; i < ne; i++) {
        uint64_t r = c->df_spot ? ndd_df_get(c->df_spot, e[i].h) : 0;
        for (uint32_t k = 1; k <= e[i].f; k++) {
            c->rk[m].rank = r;
            c->rk[m].id = base_hash2(e[i].h, k);
            m++;
        }
    }
    if ((rc = base_prefix_keys(&c->parts_spot, c->p.spot_tau, NDD_METHOD_SPOTSIGS, c->rk, m, &c->keys,
                               &c->keycap, &c->nkeys)))
        return rc;
    base_sort_u64(c->keys, c->nkeys);
    c->nkeys = base_unique_u64(c->keys, c->nkeys);
    *keys = c->keys;
    *nkeys = c->nkeys;
    return NDD_OK;
}

/* ---- the exact all-pairs matcher ---- */

typedef struct ap_post {
    uint64_t h;
    uint64_t len;
    uint32_t pc;  /* compact partition index */
    uint32_t doc;
} ap_post_t;

static int cmp_post(const void *x, const void *y)
{
    const ap_post_t *a = x, *b = y;
    if (a->pc != b->pc)
        return a->pc < b->pc ? -1 : 1;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1; /* descending length */
    return (a->doc > b->doc) - (a->doc < b->doc);
}

typedef struct ap_sig {
    uint64_t df;
    uint64_t h;
    uint32_t f;
} ap_sig_t;

static int cmp_sig(const void *x, const void *y)
{
    const ap_sig_t *a = x, *b = y;
    if (a->df != b->df)
        return a->df < b->df ? -1 : 1;
    return (a->h > b->h) - (a->h < b->h);
}

static int cmp_pair(const void *x, const void *y)
{
    const ndd_spotsigs_pair_t *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

typedef struct ap {
    ap_post_t *post;    /* postings sorted by (partition, h, -len, doc) */
    uint64_t *uh;       /* unique h per partition, concatenated */
    size_t *ustart;     /* postings start of uh[i]; ustart[nu] = npost */
    size_t *pu;         /* uh range of compact partition i: [pu[i], pu[i+1]) */
    uint64_t *pid;      /* partition number of compact partition i */
    size_t nu, np;
} ap_t;

/* Inverted list of h in compact partition pc: [*b, *e) into post; 0 if absent. */
static int ap_list(const ap_t *ix, size_t pc, uint64_t h, size_t *b, size_t *e)
{
    size_t lo = ix->pu[pc], hi = ix->pu[pc + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->uh[mid] < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == ix->pu[pc + 1] || ix->uh[lo] != h)
        return 0;
    *b = ix->ustart[lo];
    *e = ix->ustart[lo + 1];
    return 1;
}

/* One run of the all-pairs matcher: its input, working arrays and result.
 * Every array is indexed by document (ndocs + 1 entries) unless said
 * otherwise; ap_run_free releases them all. */
typedef struct ap_run {
    const ndd_spotsigs_vec_t *docs;
    size_t ndocs;
    double tau;
    uint64_t *len;             /* |d| = sum of frequencies (0: no signatures) */
    uint64_t *part;            /* length partition of d (when len[d] > 0) */
    uint32_t *pc;              /* compact partition index of d */
    uint32_t *mark, stamp;     /* mark[x] == stamp: x already met in this probe */
    ap_sig_t *sig;             /* signatures of the probing document (maxsig + 1) */
    size_t sigcap, npost, maxsig;
    base_parts_t parts;
    ap_t ix;
    ndd_spotsigs_pair_t *out;  /* pairs found so far */
    size_t nout, pcap;
    ndd_spotsigs_stats_t s;
} ap_run_t;

static void ap_run_free(ap_run_t *r)
{
    free(r->out);
    free(r->len);
    free(r->part);
    free(r->pc);
    free(r->mark);
    free(r->sig);
    free(r->ix.post);
    free(r->ix.uh);
    free(r->ix.ustart);
    free(r->ix.pu);
    free(r->ix.pid);
    base_parts_free(&r->parts);
}

/* 1. lengths |d| = sum of frequencies, partitions (paper sec. 4.3); counts
 * the documents with signatures, their postings and the longest vector. */
static int ap_lengths(ap_run_t *r)
{
    int rc;
    for (size_t i = 0; i < r->ndocs; i++) {
        const ndd_spotsigs_vec_t *v = &r->docs[i];
        for (size_t j = 0; j < v->n; j++)
            r->len[i] += v->e[j].f;
        if (r->len[i] == 0)
            continue;
        if ((rc = base_parts_index(&r->parts, r->tau, r->len[i], &r->part[i])))
            return rc;
        r->s.docs++;
        r->npost += v->n;
        if (v->n > r->maxsig)
            r->maxsig = v->n;
    }
    r->s.pairs_all = r->s.docs * (r->s.docs ? r->s.docs - 1 : 0) / 2;
    return NDD_OK;
}

/* Index of partition number p in the sorted ix->pid (p is there). */
static uint32_t ap_pid_index(const ap_t *ix, uint64_t p)
{
    size_t lo = 0, hi = ix->np;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->pid[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* 2. compact partition numbers: ix.pid = the distinct partitions in use,
 * ascending; pc[d] = the index of d's partition there. */
static int ap_compact(ap_run_t *r)
{
    uint64_t *ps = malloc((r->s.docs + 1) * sizeof *ps);
    size_t m = 0;
    if (!ps)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < r->ndocs; i++)
        if (r->len[i])
            ps[m++] = r->part[i];
    base_sort_u64(ps, m);
    r->ix.np = base_unique_u64(ps, m);
    r->ix.pid = ps;
    r->ix.pu = calloc(r->ix.np + 1, sizeof *r->ix.pu);
    if (!r->ix.pu)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < r->ndocs; i++)
        if (r->len[i])
            r->pc[i] = ap_pid_index(&r->ix, r->part[i]);
    r->s.partitions = r->ix.np;
    return NDD_OK;
}

/* Stats: the pairs inside one partition or across two adjacent ones. */
static int ap_count_partition_pairs(ap_run_t *r)
{
    const ap_t *ix = &r->ix;
    uint64_t *cnt = calloc(ix->np + 1, sizeof *cnt);
    if (!cnt)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < r->ndocs; i++)
        if (r->len[i])
            cnt[r->pc[i]]++;
    for (size_t k = 0; k < ix->np; k++) {
        r->s.pairs_partition += cnt[k] * (cnt[k] ? cnt[k] - 1 : 0) / 2;
        if (k + 1 < ix->np && ix->pid[k + 1] == ix->pid[k] + 1)
            r->s.pairs_partition += cnt[k] * cnt[k + 1];
    }
    free(cnt);
    return NDD_OK;
}

/* 3. inverted index per partition, lists in descending length */
static int ap_build_index(ap_run_t *r)
{
    ap_t *ix = &r->ix;
    const size_t npost = r->npost;
    size_t m = 0;
    ix->post = malloc((npost + 1) * sizeof *ix->post);
    ix->uh = malloc((npost + 1) * sizeof *ix->uh);
    ix->ustart = malloc((npost + 2) * sizeof *ix->ustart);
    if (!ix->post || !ix->uh || !ix->ustart)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < r->ndocs; i++)
        for (size_t j = 0; r->len[i] && j < r->docs[i].n; j++) {
            ix->post[m].h = r->docs[i].e[j].h;
            ix->post[m].len = r->len[i];
            ix->post[m].pc = r->pc[i];
            ix->post[m].doc = (uint32_t)i;
            m++;
        }
    if (npost > 1)
        qsort(ix->post, npost, sizeof *ix->post, cmp_post);
    ix->nu = 0;
    for (size_t k = 0, i = 0; k < ix->np; k++) {
        ix->pu[k] = ix->nu;
        while (i < npost && ix->post[i].pc == k) {
            size_t j = i;
            while (j < npost && ix->post[j].pc == k && ix->post[j].h == ix->post[i].h)
                j++;
            ix->uh[ix->nu] = ix->post[i].h;
            ix->ustart[ix->nu] = i;
            ix->nu++;
            i = j;
        }
    }
    ix->pu[ix->np] = ix->nu;
    ix->ustart[ix->nu] = npost;
    return NDD_OK;
}

/* Signatures of d into r->sig in ascending df of the document's own
 * partition; the same order is reused for the next partition (paper
 * sec. 4.4). */
static void ap_order_sigs(ap_run_t *r, size_t d)
{
    const ndd_spot_entry_t *v = r->docs[d].e;
    const size_t ns = r->docs[d].n;
    ap_sig_t *sig = r->sig;
    for (size_t j = 0; j < ns; j++) {
        size_t b = 0, e = 0;
        ap_list(&r->ix, r->pc[d], v[j].h, &b, &e);
        sig[j].df = e - b;
        sig[j].h = v[j].h;
        sig[j].f = v[j].f;
    }
    if (ns > 1)
        qsort(sig, ns, sizeof *sig, cmp_sig);
}

/* Appends the pair {d, x} with Jaccard num / den. */
static int ap_emit(ap_run_t *r, size_t d, uint32_t x, uint64_t num, uint64_t den)
{
    if (base_grow((void **)&r->out, &r->pcap, r->nout + 1, sizeof *r->out))
        return NDD_ERR_NOMEM;
    r->out[r->nout].a = (uint32_t)(d < x ? d : x);
    r->out[r->nout].b = (uint32_t)(d < x ? x : d);
    r->out[r->nout].sim = (double)num / (double)den;
    r->nout++;
    return NDD_OK;
}

/* Document d (signatures in r->sig) against the inverted lists of compact
 * partition tp (Algorithm 1); own: tp is d's own partition, where a pair
 * with a smaller document was already found from that document's side.
 * Counters are kept locally and added to r->s on every exit. */
static int ap_probe(ap_run_t *r, size_t d, size_t tp, int own)
{
    const ap_t *ix = &r->ix;
    const ndd_spotsigs_vec_t *docs = r->docs;
    const ap_sig_t *sig = r->sig;
    uint32_t *mark = r->mark;
    const uint64_t L = r->len[d];
    const size_t ns = docs[d].n;
    const double tau = r->tau;
    uint64_t delta1 = 0, reads = 0, calls = 0;
    uint32_t stamp;
    int rc = NDD_OK;

    if (++r->stamp == 0) { /* wrapped: reset the marks */
        memset(mark, 0, (r->ndocs + 1) * sizeof *mark);
        r->stamp = 1;
    }
    stamp = r->stamp;
    for (size_t j = 0; j < ns; j++) {
        size_t b, e;
        if (ap_list(ix, tp, sig[j].h, &b, &e)) {
            for (size_t q = b; q < e; q++) {
                const ap_post_t *x = &ix->post[q];
                uint64_t M = x->len, bnum, bden, num, den;
                reads++;
                /* break (line 18): the rest of the list is no longer
                 * than M <= L; an unseen document there overlaps d
                 * by at most min(M, L - delta1) of >= L */
                if (M <= L && !ndd_baselines_ratio_ge(M < L - delta1 ? M : L - delta1, L, tau))
                    break;
                if (x->doc == d || mark[x->doc] == stamp)
                    continue;
                mark[x->doc] = stamp;
                if (own && x->doc < d)
                    continue; /* found from x's side */
                /* continue (line 16): x holds none of the signatures
                 * done so far: overlap <= min(L - delta1, M), union
                 * >= max(L, delta1 + M) */
                bnum = L - delta1 < M ? L - delta1 : M;
                bden = L > delta1 + M ? L : delta1 + M;
                if (!ndd_baselines_ratio_ge(bnum, bden, tau))
                    continue;
                ndd_spotsigs_jaccard(docs[d].e, ns, docs[x->doc].e, docs[x->doc].n, &num, &den);
                calls++;
                if (!ndd_baselines_ratio_ge(num, den, tau))
                    continue;
                NDD_TRY(ap_emit(r, d, x->doc, num, den));
            }
        }
        delta1 += sig[j].f;
        /* early termination (line 26): any unseen document overlaps
         * d by at most L - delta1 of a union >= L */
        if (j + 1 < ns && !ndd_baselines_ratio_ge(L - delta1, L, tau)) {
            r->s.early_breaks++;
            break;
        }
    }
out:
    r->s.postings_read += reads;
    r->s.jaccard_calls += calls;
    return rc;
}

/* 4. document d (len[d] > 0) against its own and the next partition */
static int ap_match_doc(ap_run_t *r, size_t d)
{
    const size_t own = r->pc[d];
    int rc;
    ap_order_sigs(r, d);
    if ((rc = ap_probe(r, d, own, 1)))
        return rc;
    if (own + 1 >= r->ix.np || r->ix.pid[own + 1] != r->ix.pid[own] + 1)
        return NDD_OK; /* no next partition */
    return ap_probe(r, d, own + 1, 0);
}

int ndd_spotsigs_allpairs(const ndd_spotsigs_vec_t *docs, size_t ndocs, double tau,
                          ndd_spotsigs_pair_t **pairs, size_t *npairs, ndd_spotsigs_stats_t *st)
{
    ap_run_t r = {0};
    int rc = NDD_OK;

    if (!pairs || !npairs || (ndocs && !docs) || !(tau > 0.0 && tau <= 1.0))
        return NDD_ERR_INVAL;
    *pairs = NULL;
    *npairs = 0;
    if (ndocs >= UINT32_MAX)
        return NDD_ERR_LIMIT;
    r.docs = docs;
    r.ndocs = ndocs;
    r.tau = tau;
    r.len = calloc(ndocs + 1, sizeof *r.len);
    r.part = calloc(ndocs + 1, sizeof *r.part);
    r.pc = calloc(ndocs + 1, sizeof *r.pc);
    r.mark = calloc(ndocs + 1, sizeof *r.mark);
    if (!r.len || !r.part || !r.pc || !r.mark) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    NDD_TRY(ap_lengths(&r));
    NDD_TRY(ap_compact(&r));
    NDD_TRY(ap_count_partition_pairs(&r));
    NDD_TRY(ap_build_index(&r));
    if (base_grow((void **)&r.sig, &r.sigcap, r.maxsig + 1, sizeof *r.sig)) {
        rc = NDD_ERR_NOMEM;
        goto out;
    }
    /* 4. every document against its own and the next partition (Algorithm 1) */
    for (size_t d = 0; d < ndocs; d++)
        if (r.len[d])
            NDD_TRY(ap_match_doc(&r, d));
    if (r.nout > 1)
        qsort(r.out, r.nout, sizeof *r.out, cmp_pair);
    *pairs = r.out;
    *npairs = r.nout;
    r.out = NULL;
out:
    if (st)
        *st = r.s;
    ap_run_free(&r);
    return rc;
}

/* bench_verify.c - throughput of the TLCS verifier (scripts/bench-verify.sh).
 *
 * Builds pairs of ~10 KB documents from real Reuters-21578 bodies:
 *   near-duplicate: a document and an edited copy (about 1 % of the letters
 *     replaced, one sentence dropped, one sentence from another document
 *     inserted);
 *   template: two different documents (7 KB of text each) inside the same
 *     1.8 KB of site template (header, menu, sidebar, footer) - not duplicates,
 *     but sharing 30 % of their text;
 * and times ndd_tlcs_compare on them with one reused workspace: CPU time of
 * this thread, best of REPS rounds -> pairs per second per core.
 * With -w DIR N it also writes the first N near-duplicate pairs as files
 * DIR/nd_<i>_a.txt, DIR/nd_<i>_b.txt (for the GNU diff comparison).
 *
 * -s SETS picks the measurements (default all): n near-duplicate, o reordered
 * copies (PAIRS/20 of them: a near-duplicate pair's first document cut into 5
 * pieces at sentence ends, in a random order, one letter in 100 changed: the
 * pairs that take most of ndd run's Myers work), t template,
 * h heavy template (5.3 KB of 10 KB), a the anchor bound alone and ndd run's
 * path (bound, then anchored sketches; all anchors made first, and each
 * pair's made just before it) on the template, heavy template and
 * near-duplicate pairs, b the anchor bound's parts on the template and
 * near-duplicate pairs (not in the default: the least passing length, the
 * bound with A's union alone and with both, the sample's order hint, each
 * repeated 10 times per pair in cache; and each pair's bound once after all
 * pairs' anchors were made again), k the filtered sketches alone: the table's against
 * the ones made from anchors, i basic TLCS (max-iter 1), e exact
 * near-duplicate, x exact template pairs (PAIRS/20 of them: D ~ 10,000),
 * w the paper's window-size evaluation (its Fig. 7): for S = 4 .. 64 the mean
 * strain-away rate of the template pairs (not similar) and the mean reserve
 * rate of the near-duplicate pairs (TLCS of the sketches / TLCS exact).
 *
 * -d BYTES sets the document size (default 10240).
 * -m ISA: the widest instructions Myers' bisection may use (0 plain C, 2 AVX2
 * where the CPU has it, 3 also AVX-512 in the splits from LCS rows: the
 * default), to compare them in one run.
 * -a ISA: the same for the anchors (their runs' minima) and the anchor
 * bound (0 plain C, 1 SSE2, 2 AVX2, 3 AVX-512: the default).
 *
 * usage: bench_verify [-r REPS] [-n PAIRS] [-d BYTES] [-s SETS] [-m ISA] [-a ISA] [-w DIR N] REUTERS_DIR */
#include "ndd_util.h"
#include "ndd_verify.h"
#include "verify_anchor_int.h"
#include "verify_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t DOC_BYTES = 10240; /* -d */

static uint64_t rng_state = 0x5851F42D4C957F2DULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}
static size_t rndn(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reuters bodies, entities decoded, Latin-1 bytes as spaces, whitespace collapsed. */
static char **g_body;
static size_t g_nbody, g_capbody;

static void add_body(const char *s, size_t n)
{
    char *b = malloc(n + 1);
    size_t w = 0;
    int sp = 1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '&') {
            if (!strncmp(s + i, "&lt;", 4)) { c = '<'; i += 3; }
            else if (!strncmp(s + i, "&gt;", 4)) { c = '>'; i += 3; }
            else if (!strncmp(s + i, "&amp;", 5)) { c = '&'; i += 4; }
            else if (s[i + 1] == '#') {
                size_t j = i + 2;
                while (j < n && isdigit((unsigned char)s[j]))
                    j++;
                if (j < n && s[j] == ';') { i = j; continue; }
            }
        }
        if ((unsigned char)c >= 0x80 || isspace((unsigned char)c))
            c = ' ';
        if (c == ' ' && sp)
            continue;
        sp = c == ' ';
        b[w++] = c;
    }
    while (w && b[w - 1] == ' ')
        w--;
    b[w] = 0;
    if (w < 300) {
        free(b);
        return;
    }
    if (g_nbody == g_capbody) {
        g_capbody = g_capbody ? 2 * g_capbody : 1024;
        g_body = realloc(g_body, g_capbody * sizeof *g_body);
    }
    g_body[g_nbody++] = b;
}

static int load_reuters(const char *dir)
{
    for (int f = 0; f < 22; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/reut2-%03d.sgm", dir, f);
        char *data;
        size_t n;
        if (ndd_read_file(path, 0, &data, &n))
            continue;
        const char *p = data;
        while ((p = strstr(p, "<BODY>"))) {
            const char *e = strstr(p, "</BODY>");
            if (!e)
                break;
            add_body(p + 6, (size_t)(e - p - 6));
            p = e;
        }
        free(data);
    }
    return g_nbody >= 100 ? 0 : -1;
}

/* A ~10 KB document: consecutive bodies from `first`, one paragraph each. */
static size_t make_doc(size_t first, size_t limit, char *out)
{
    size_t n = 0;
    for (size_t k = first; n < limit; k++) {
        const char *b = g_body[k % g_nbody];
        size_t l = strlen(b);
        if (n) {
            out[n++] = '\n';
            if (n >= limit)
                break;
        }
        if (n + l > limit)
            l = limit - n;
        memcpy(out + n, b, l);
        n += l;
    }
    return n;
}

/* Near-duplicate copy: ~1 % letters replaced, one sentence dropped, one inserted. */
static size_t make_edit(const char *a, size_t na, const char *other, size_t no, char *out)
{
    size_t n = 0;
    size_t drop_at = na / 3 + rndn(na / 3), ins_at = na / 2 + rndn(na / 3);
    for (size_t i = 0; i < na; i++) {
        if (i == drop_at) { /* skip to after the next ". " */
            const char *dot = strstr(a + i, ". ");
            if (dot && (size_t)(dot - a) < na) {
                i = (size_t)(dot - a) + 1;
                continue;
            }
        }
        if (i == ins_at) { /* a sentence of another document */
            size_t from = rndn(no / 2), len = 80 + rndn(120);
            if (from + len > no)
                len = no - from;
            memcpy(out + n, other + from, len);
            n += len;
            out[n++] = ' ';
        }
        char c = a[i];
        if (isalpha((unsigned char)c) && rndn(100) == 0)
            c = (char)('a' + rndn(26));
        out[n++] = c;
    }
    return n;
}

/* A copy of a[0..na) with its text cut into `blocks` pieces at sentence
 * ends (". "), the pieces in a random order, and about one letter in 100
 * changed: the reordered copies that take most of ndd run's Myers work
 * (several TLCS iterations; D in the thousands for 10 KB). */
static size_t make_reorder(const char *a, size_t na, size_t blocks, char *out)
{
    size_t cut[17], n = 0;
    int perm[16];
    if (blocks > 16)
        blocks = 16;
    cut[0] = 0;
    cut[blocks] = na;
    for (size_t q = 1; q < blocks; q++) { /* the first sentence end after the q-th share (a is not terminated) */
        size_t c = na * q / blocks, i = c;
        while (i + 2 < na && !(a[i] == '.' && a[i + 1] == ' '))
            i++;
        c = i + 2 < na ? i + 2 : c;
        cut[q] = c > cut[q - 1] ? c : cut[q - 1];
    }
    for (size_t q = 0; q < blocks; q++)
        perm[q] = (int)q;
    for (size_t q = blocks - 1; q > 0; q--) {
        size_t r = rndn(q + 1);
        int t = perm[q];
        perm[q] = perm[r];
        perm[r] = t;
    }
    for (size_t q = 0; q < blocks; q++)
        for (size_t i = cut[perm[q]]; i < cut[perm[q] + 1]; i++) {
            char c = a[i];
            if (isalpha((unsigned char)c) && rndn(100) == 0)
                c = (char)('a' + rndn(26));
            out[n++] = c;
        }
    return n;
}

static const char *g_head =
    "The Daily Ledger\nIndependent business news since 1921\nHome World Business Markets Technology "
    "Energy Commodities Politics Opinion Sports Weather Video Podcasts Subscribe Log in Register\n"
    "Most read\nCentral bank signals patience on interest rates as inflation cools\n"
    "Shipping costs climb for a third straight month amid port congestion\n"
    "Five things to watch in the markets this week\nWhy small investors are returning to bond funds\n"
    "Analysts split over outlook for regional lenders\nOil majors face pressure from shareholders over spending\n"
    "Advertisement - Open a high yield savings account today and earn more on every dollar you save. "
    "Member FDIC. Terms and conditions apply.\n";
static const char *g_foot =
    "\nThe Daily Ledger newsletter brings the most important business stories to your inbox every "
    "morning before the markets open. Sign up today, it only takes a minute and you can cancel at any "
    "time.\nRelated coverage\nDollar edges higher against the yen in thin holiday trading\n"
    "Grain futures slip as weather forecasts improve across the plains\nEarnings preview: what to expect "
    "from the big banks\nTreasury yields steady ahead of key jobs report\nCopper demand outlook brightens "
    "on infrastructure spending\nCopyright 2024 The Daily Ledger Media Group. All rights reserved.\n"
    "About us | Contact the newsroom | Careers | Advertise with us | Corrections | Help center | Site map\n"
    "Privacy policy | Terms of use | Cookie settings | Accessibility statement | Do not sell my personal "
    "information\nMarket data provided by third parties and delayed by at least 15 minutes. Quotes are "
    "delayed. Information is provided for informational purposes only and is not intended for trading "
    "purposes or advice. GlobalWire and The Daily Ledger are registered trademarks.";

typedef struct pair {
    char *a, *b;
    size_t na, nb;
} pair_t;

/* A template page of DOC_BYTES: g_head, the article, g_foot; heavy: the
 * head and the foot three times (about 5.3 KB of template). */
static size_t make_template_doc(size_t first, char *out, int heavy)
{
    size_t h = strlen(g_head), f = strlen(g_foot), n = 0;
    int copies = heavy ? 3 : 1;
    for (int k = 0; k < copies; k++) {
        memcpy(out + n, g_head, h);
        n += h;
    }
    size_t art = DOC_BYTES - (size_t)copies * (h + f);
    n += make_doc(first, art, out + n);
    for (int k = 0; k < copies; k++) {
        memcpy(out + n, g_foot, f);
        n += f;
    }
    return n;
}

typedef struct stats {
    double best; /* CPU seconds of the best round */
    size_t dups, sum_d, sum_sketch, sum_len, iters, pruned, limit;
} stats_t;

static void run(ndd_tlcs_ws_t *ws, const ndd_tlcs_params_t *p, const pair_t *pr, size_t n, int reps,
                stats_t *st)
{
    memset(st, 0, sizeof *st);
    st->best = 1e30;
    for (int r = 0; r < reps; r++) {
        size_t dups = 0, sd = 0, ss = 0, sl = 0, it = 0, pruned = 0, lim = 0;
        double t0 = cpu_now();
        for (size_t i = 0; i < n; i++) {
            ndd_tlcs_result_t res;
            if (ndd_tlcs_compare(ws, p, pr[i].a, pr[i].na, pr[i].b, pr[i].nb, &res)) {
                fprintf(stderr, "bench_verify: compare failed\n");
                exit(1);
            }
            dups += res.duplicate != 0;
            sd += res.d;
            ss += res.sketch_a + res.sketch_b;
            sl += res.len_a + res.len_b;
            it += res.iterations;
            pruned += res.pruned_by_bound != 0;
            lim += res.hit_cost_limit != 0;
        }
        double t = cpu_now() - t0;
        if (t < st->best)
            st->best = t;
        st->dups = dups;
        st->sum_d = sd;
        st->sum_sketch = ss;
        st->sum_len = sl;
        st->iters = it;
        st->pruned = pruned;
        st->limit = lim;
    }
}

/* What ndd run does with a pair, each document's anchors made beforehand
 * (as in a set, where a document meets several partners): ndd_tlcs_compare
 * given the anchors tries the anchor bound, then, when it does not stop the
 * pair, makes the sketches from the anchors. Reports pairs/s/core of the
 * bound alone and of the whole path, how many pairs the bound stops, the
 * verdicts (checked equal to the plain TLCS's), and the cost of making a
 * document's anchors. The bound and the whole path are timed twice: all
 * pairs' anchors made first (1,000 documents' anchors and texts, ~60 MB: the
 * lookups read memory), and each pair right after its anchors are made (in
 * cache, as in ndd run, which makes a set member's anchors at its first pair
 * and verifies the set's pairs next). */
/* Does the anchor bound stop pair i (anchors an[2i], an[2i + 1])? */
static int bound_stops(const ndd_tlcs_params_t *p, const pair_t *pr, const ndd_anchors_t *an, size_t i,
                       uint64_t **mark, size_t *mark_cap)
{
    size_t ua, ub;
    double ru, cu;
    if (ndd_anchors_bound(&an[2 * i], &an[2 * i + 1], mark, mark_cap, ndd_tlcs_need(p, pr[i].na, pr[i].nb), &ua, &ub))
        exit(1);
    ndd_tlcs_scores(ua < ub ? ua : ub, pr[i].na, pr[i].nb, &ru, &cu);
    return !ndd_tlcs_verdict(p, ru, cu);
}

/* The anchor bound's parts (-s b): in cache, each repeated 10 times per
 * pair right after the pair's anchors are made; cold, each pair's bound once
 * after all pairs' anchors were made again (as run_anchors' first bound). */
static void run_bound_parts(const ndd_tlcs_params_t *p, const pair_t *pr, size_t n, int reps, const char *what)
{
    ndd_anchors_t *an = calloc(2 * n, sizeof *an);
    uint64_t *mark = NULL, *scratch = NULL;
    size_t mark_cap = 0, scratch_cap = 0, sn = 0, snh = 0, sns = 0;
    double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
    volatile size_t sink = 0;
    if (!an)
        exit(1);
    for (int r = 0; r < reps; r++) {
        double t[5] = {0, 0, 0, 0, 0};
        sn = snh = sns = 0;
        for (size_t i = 0; i < n; i++) {
            ndd_anchors_t *a = &an[2 * i], *b = &an[2 * i + 1];
            size_t ua, ub;
            if (ndd_anchors_make(a, pr[i].a, pr[i].na, p->window, &scratch, &scratch_cap) ||
                ndd_anchors_make(b, pr[i].b, pr[i].nb, p->window, &scratch, &scratch_cap) ||
                ndd_anchors_bound(a, b, &mark, &mark_cap, 0, &ua, &ub))
                exit(1);
            sn += a->n, snh += a->nh, sns += a->ns;
            double u0 = cpu_now();
            for (size_t k = 0; k < 10; k++)
                sink += ndd_tlcs_need(p, pr[i].na + k, pr[i].nb);
            double u1 = cpu_now();
            for (int k = 0; k < 10; k++)
                sink += ndd_anchors_bound(a, b, &mark, &mark_cap, SIZE_MAX, &ua, &ub) + ua;
            double u2 = cpu_now();
            for (int k = 0; k < 10; k++)
                sink += ndd_anchors_bound(a, b, &mark, &mark_cap, 0, &ua, &ub) + ua + ub;
            double u3 = cpu_now();
            for (int k = 0; k < 10; k++)
                sink += (size_t)ndd_anchors_likely_close(a, b);
            double u4 = cpu_now();
            t[0] += u1 - u0, t[1] += u2 - u1, t[2] += u3 - u2, t[3] += u4 - u3;
        }
        for (size_t i = 0; i < 2 * n; i++) /* all made again: the first pairs' anchors leave the cache */
            if (ndd_anchors_make(&an[i], i % 2 ? pr[i / 2].b : pr[i / 2].a, i % 2 ? pr[i / 2].nb : pr[i / 2].na,
                                 p->window, &scratch, &scratch_cap))
                exit(1);
        double u0 = cpu_now();
        for (size_t i = 0; i < n; i++) {
            size_t ua, ub;
            sink += ndd_anchors_bound(&an[2 * i], &an[2 * i + 1], &mark, &mark_cap,
                                      ndd_tlcs_need(p, pr[i].na, pr[i].nb), &ua, &ub) + ua;
        }
        t[4] = cpu_now() - u0;
        for (int k = 0; k < 5; k++)
            best[k] = t[k] < best[k] ? t[k] : best[k];
    }
    double q = 1e6 / (10.0 * (double)n);
    printf("%-44s in cache: least passing length %.3f us, bound with A's union %.3f us, with both %.3f us, "
           "sample %.3f us; cold: bound %.2f us (%.0f pairs/s/core); anchors %.0f, distinct %.0f, sample %.0f\n",
           what, best[0] * q, best[1] * q, best[2] * q, best[3] * q, 1e6 * best[4] / (double)n,
           (double)n / best[4], (double)sn / (double)n, (double)snh / (double)n, (double)sns / (double)n);
    for (size_t i = 0; i < 2 * n; i++)
        ndd_anchors_free(&an[i]);
    free(an);
    free(mark);
    free(scratch);
}

static void run_anchors(ndd_tlcs_ws_t *ws, const ndd_tlcs_params_t *p, const pair_t *pr, size_t n, int reps,
                        const char *what)
{
    ndd_anchors_t *an = calloc(2 * n, sizeof *an);
    uint64_t *mark = NULL, *scratch = NULL;
    size_t mark_cap = 0, scratch_cap = 0, stopped = 0, dups = 0;
    double best_make = 1e30, best_bound = 1e30, best_path = 1e30, best_warm = 1e30, best_wbound = 1e30;
    if (!an)
        exit(1);
    for (int r = 0; r < reps; r++) {
        double t0 = cpu_now();
        for (size_t i = 0; i < n; i++)
            if (ndd_anchors_make(&an[2 * i], pr[i].a, pr[i].na, p->window, &scratch, &scratch_cap) ||
                ndd_anchors_make(&an[2 * i + 1], pr[i].b, pr[i].nb, p->window, &scratch, &scratch_cap))
                exit(1);
        double t1 = cpu_now();
        stopped = 0;
        for (size_t i = 0; i < n; i++)
            stopped += bound_stops(p, pr, an, i, &mark, &mark_cap);
        double t2 = cpu_now();
        dups = 0;
        for (size_t i = 0; i < n; i++) { /* ndd_tlcs_compare with anchors: the bound, then anchored sketches */
            ndd_tlcs_result_t res;
            ndd_tlcs_ws_anchors(ws, &an[2 * i], &an[2 * i + 1]);
            if (ndd_tlcs_compare(ws, p, pr[i].a, pr[i].na, pr[i].b, pr[i].nb, &res))
                exit(1);
            dups += res.duplicate != 0;
        }
        double t3 = cpu_now(), warm = 0, wbound = 0;
        for (size_t i = 0; i < n; i++) { /* as ndd run: a pair's anchors made, then the pair (in cache) */
            ndd_tlcs_result_t res;
            if (ndd_anchors_make(&an[2 * i], pr[i].a, pr[i].na, p->window, &scratch, &scratch_cap) ||
                ndd_anchors_make(&an[2 * i + 1], pr[i].b, pr[i].nb, p->window, &scratch, &scratch_cap))
                exit(1);
            double u0 = cpu_now();
            (void)bound_stops(p, pr, an, i, &mark, &mark_cap); /* the bound alone, in cache */
            double u1 = cpu_now();
            ndd_tlcs_ws_anchors(ws, &an[2 * i], &an[2 * i + 1]);
            if (ndd_tlcs_compare(ws, p, pr[i].a, pr[i].na, pr[i].b, pr[i].nb, &res))
                exit(1);
            wbound += u1 - u0;
            warm += cpu_now() - u1;
        }
        best_make = t1 - t0 < best_make ? t1 - t0 : best_make;
        best_bound = t2 - t1 < best_bound ? t2 - t1 : best_bound;
        best_path = t3 - t2 < best_path ? t3 - t2 : best_path;
        best_warm = warm < best_warm ? warm : best_warm;
        best_wbound = wbound < best_wbound ? wbound : best_wbound;
    }
    for (size_t i = 0; i < n; i++) { /* untimed: the plain TLCS agrees on every pair */
        ndd_tlcs_result_t res, plain;
        ndd_tlcs_ws_anchors(ws, &an[2 * i], &an[2 * i + 1]);
        if (ndd_tlcs_compare(ws, p, pr[i].a, pr[i].na, pr[i].b, pr[i].nb, &res) ||
            ndd_tlcs_compare(ws, p, pr[i].a, pr[i].na, pr[i].b, pr[i].nb, &plain))
            exit(1);
        if (plain.tlcs != res.tlcs || plain.duplicate != res.duplicate ||
            plain.pruned_by_bound != res.pruned_by_bound ||
            (!res.anchor_pruned && (plain.sketch_a != res.sketch_a || plain.sketch_b != res.sketch_b))) {
            fprintf(stderr, "bench_verify: the TLCS with anchors differs from the plain TLCS\n");
            exit(1);
        }
    }
    printf("%-44s %5zu pairs  bound %8.0f pairs/s/core (stops %zu/%zu; %.0f with the pair's anchors just made)"
           "  ndd run's path %8.0f pairs/s/core"
           " (%.1f us/pair, dup %zu/%zu; %.1f us/pair with the pair's anchors just made: %.0f pairs/s/core)"
           "  anchors %.1f us/document\n",
           what, n, (double)n / best_bound, stopped, n, (double)n / best_wbound, (double)n / best_path,
           1e6 * best_path / (double)n, dups, n,
           1e6 * best_warm / (double)n, (double)n / best_warm, 1e6 * best_make / (double)(2 * n));
    for (size_t i = 0; i < 2 * n; i++)
        ndd_anchors_free(&an[i]);
    free(an);
    free(mark);
    free(scratch);
}

/* The filtered sketches alone (no LCS): the table per pair against the
 * sketches made from each document's anchors (made beforehand, as in a
 * set); the two are checked equal. */
static void run_sketches(const ndd_tlcs_params_t *p, const pair_t *pr, size_t n, int reps, const char *what)
{
    ndd_sketch_ws_t *s1, *s2;
    ndd_anchors_t *an = calloc(2 * n, sizeof *an);
    uint64_t *scratch = NULL;
    size_t scratch_cap = 0;
    double best_t = 1e30, best_a = 1e30;
    if (!an || ndd_sketch_ws_create(&s1) || ndd_sketch_ws_create(&s2))
        exit(1);
    for (size_t i = 0; i < n; i++)
        if (ndd_anchors_make(&an[2 * i], pr[i].a, pr[i].na, p->window, &scratch, &scratch_cap) ||
            ndd_anchors_make(&an[2 * i + 1], pr[i].b, pr[i].nb, p->window, &scratch, &scratch_cap))
            exit(1);
    for (int r = 0; r < reps; r++) {
        double t0 = cpu_now();
        for (size_t i = 0; i < n; i++)
            if (ndd_sketch_filter(s1, pr[i].a, pr[i].na, pr[i].b, pr[i].nb, p->window))
                exit(1);
        double t1 = cpu_now();
        for (size_t i = 0; i < n; i++)
            if (ndd_sketch_filter_anchored(s2, pr[i].a, pr[i].na, &an[2 * i], pr[i].b, pr[i].nb, &an[2 * i + 1],
                                           p->window))
                exit(1);
        double t2 = cpu_now();
        best_t = t1 - t0 < best_t ? t1 - t0 : best_t;
        best_a = t2 - t1 < best_a ? t2 - t1 : best_a;
    }
    for (size_t i = 0; i < n; i++) { /* untimed: the same sketches */
        ndd_sketch_view_t u, v;
        if (ndd_sketch_filter(s1, pr[i].a, pr[i].na, pr[i].b, pr[i].nb, p->window) ||
            ndd_sketch_filter_anchored(s2, pr[i].a, pr[i].na, &an[2 * i], pr[i].b, pr[i].nb, &an[2 * i + 1],
                                       p->window))
            exit(1);
        for (int w = 0; w < 2; w++) {
            ndd_sketch_get(s1, w, &u);
            ndd_sketch_get(s2, w, &v);
            if (u.len != v.len || u.nruns != v.nruns || (u.len && memcmp(u.bytes, v.bytes, u.len))) {
                fprintf(stderr, "bench_verify: anchored sketches differ from the table's\n");
                exit(1);
            }
        }
    }
    printf("%-44s %5zu pairs  sketches by the table %6.1f us/pair, from anchors %6.1f us/pair\n", what, n,
           1e6 * best_t / (double)n, 1e6 * best_a / (double)n);
    for (size_t i = 0; i < 2 * n; i++)
        ndd_anchors_free(&an[i]);
    free(an);
    free(scratch);
    ndd_sketch_ws_free(s1);
    ndd_sketch_ws_free(s2);
}

static void report(const char *what, size_t n, const stats_t *st)
{
    printf("%-44s %5zu pairs  %8.0f pairs/s/core  %7.1f us/pair  dup %zu/%zu  pruned %zu  "
           "cost-limit %zu  mean D %.0f  sketch %.2f  Myers runs/pair %.2f\n",
           what, n, (double)n / st->best, 1e6 * st->best / (double)n, st->dups, n, st->pruned, st->limit,
           (double)st->sum_d / (double)n, (double)st->sum_sketch / (double)st->sum_len,
           (double)st->iters / (double)n);
}

int main(int argc, char **argv)
{
    int reps = 5;
    size_t npairs = 500, nwrite = 0;
    const char *wdir = NULL, *dir = NULL, *sets = "nothakiex";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-r") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            npairs = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc)
            DOC_BYTES = (size_t)atol(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            sets = argv[++i];
        else if (!strcmp(argv[i], "-m") && i + 1 < argc)
            ndd_myers_isa((unsigned)atoi(argv[++i]));
        else if (!strcmp(argv[i], "-a") && i + 1 < argc)
            ndd_anchors_isa((unsigned)atoi(argv[++i]));
        else if (!strcmp(argv[i], "-w") && i + 2 < argc) {
            wdir = argv[++i];
            nwrite = (size_t)atol(argv[++i]);
        } else if (argv[i][0] != '-')
            dir = argv[i];
        else {
            fprintf(stderr, "usage: bench_verify [-r REPS] [-n PAIRS] [-d BYTES] [-s SETS] [-m ISA] [-a ISA] [-w DIR N] REUTERS_DIR\n");
            return 2;
        }
    }
    if (!dir || reps < 1 || npairs < 1 || DOC_BYTES < 8192) {
        fprintf(stderr, "usage: bench_verify [-r REPS] [-n PAIRS] [-d BYTES >= 8192] [-s SETS] [-m ISA] [-a ISA] [-w DIR N] REUTERS_DIR\n");
        return 2;
    }
    if (load_reuters(dir)) {
        fprintf(stderr, "bench_verify: too few Reuters bodies in %s\n", dir);
        return 1;
    }
    pair_t *nd = calloc(npairs, sizeof *nd), *tp = calloc(npairs, sizeof *tp), *hp = calloc(npairs, sizeof *hp);
    pair_t *ro = calloc(npairs, sizeof *ro);
    for (size_t i = 0; i < npairs; i++) {
        size_t first = (i * 37) % g_nbody;
        nd[i].a = malloc(DOC_BYTES);
        nd[i].na = make_doc(first, DOC_BYTES, nd[i].a);
        char *other = malloc(DOC_BYTES);
        size_t no = make_doc((first + g_nbody / 2) % g_nbody, DOC_BYTES, other);
        nd[i].b = malloc(2 * DOC_BYTES);
        nd[i].nb = make_edit(nd[i].a, nd[i].na, other, no, nd[i].b);
        free(other);
        tp[i].a = malloc(DOC_BYTES);
        tp[i].b = malloc(DOC_BYTES);
        tp[i].na = make_template_doc(first, tp[i].a, 0);
        tp[i].nb = make_template_doc((first + 11 + g_nbody / 3) % g_nbody, tp[i].b, 0);
        hp[i].a = malloc(DOC_BYTES);
        hp[i].b = malloc(DOC_BYTES);
        hp[i].na = make_template_doc(first, hp[i].a, 1);
        hp[i].nb = make_template_doc((first + 11 + g_nbody / 3) % g_nbody, hp[i].b, 1);
    }
    size_t nro = npairs / 20 ? npairs / 20 : 1; /* 35-65 ms a pair: fewer of them */
    for (size_t i = 0; i < nro; i++) { /* after the others: their pairs stay those of earlier builds */
        ro[i].a = nd[i].a;
        ro[i].na = nd[i].na;
        ro[i].b = malloc(DOC_BYTES);
        ro[i].nb = make_reorder(nd[i].a, nd[i].na, 5, ro[i].b);
    }
    if (wdir) {
        for (size_t i = 0; i < nwrite && i < npairs; i++) {
            for (int s = 0; s < 2; s++) {
                char path[1024];
                snprintf(path, sizeof path, "%s/nd_%03zu_%c.txt", wdir, i, s ? 'b' : 'a');
                FILE *f = fopen(path, "wb");
                if (!f || fwrite(s ? nd[i].b : nd[i].a, 1, s ? nd[i].nb : nd[i].na, f) != (s ? nd[i].nb : nd[i].na) ||
                    fclose(f)) {
                    fprintf(stderr, "bench_verify: cannot write %s\n", path);
                    return 1;
                }
            }
        }
    }
    int ok = 1;
    size_t tot = 0;
    for (size_t i = 0; i < npairs; i++)
        tot += nd[i].na + nd[i].nb;
    if (!*sets)
        goto done;
    printf("bench_verify: %zu Reuters bodies; pairs of %.0f bytes on average; best of %d rounds, CPU time of one thread\n",
           g_nbody, (double)tot / (double)(2 * npairs), reps);

    ndd_tlcs_ws_t *ws;
    if (ndd_tlcs_ws_create(&ws))
        return 1;
    ndd_tlcs_params_t p;
    ndd_tlcs_params_default(&p);
    stats_t st;
    if (strchr(sets, 'n')) {
        run(ws, &p, nd, npairs, reps, &st);
        report("near-duplicate 10 KB pairs (defaults)", npairs, &st);
        ok = ok && st.dups == npairs;
    }
    if (strchr(sets, 'o')) { /* reported only: a copy in 5 pieces may need more regions than max_iter */
        run(ws, &p, ro, nro, reps, &st);
        report("reordered copies (5 blocks moved), 10 KB", nro, &st);
    }
    if (strchr(sets, 't')) {
        run(ws, &p, tp, npairs, reps, &st);
        report("different articles, shared 3 KB template", npairs, &st);
        ok = ok && st.dups == 0;
    }
    if (strchr(sets, 'h')) {
        run(ws, &p, hp, npairs, reps, &st);
        report("different articles, shared 5.3 KB template", npairs, &st);
        ok = ok && st.dups == 0;
    }
    if (strchr(sets, 'a')) {
        run_anchors(ws, &p, tp, npairs, reps, "anchor bound: shared 3 KB template");
        run_anchors(ws, &p, hp, npairs, reps, "anchor bound: shared 5.3 KB template");
        run_anchors(ws, &p, nd, npairs, reps, "anchor bound: near-duplicates");
    }
    if (strchr(sets, 'b')) {
        run_bound_parts(&p, tp, npairs, reps, "bound parts: shared 3 KB template");
        run_bound_parts(&p, nd, npairs, reps, "bound parts: near-duplicates");
    }
    if (strchr(sets, 'k')) {
        run_sketches(&p, nd, npairs, reps, "sketches alone: near-duplicates");
        run_sketches(&p, tp, npairs, reps, "sketches alone: shared 3 KB template");
    }
    ndd_tlcs_params_t p1 = p;
    p1.max_iter = 1;
    if (strchr(sets, 'i')) {
        run(ws, &p1, nd, npairs, reps, &st);
        report("near-duplicate, basic TLCS (max-iter 1)", npairs, &st);
    }
    ndd_tlcs_params_t pe = p;
    pe.exact = 1;
    if (strchr(sets, 'e')) {
        run(ws, &pe, nd, npairs, reps, &st);
        report("near-duplicate, exact (no sketches)", npairs, &st);
    }
    if (strchr(sets, 'x')) {
        size_t nx = npairs / 20 ? npairs / 20 : 1;
        run(ws, &pe, tp, nx, 1, &st);
        report("3 KB template pairs, exact (no sketches)", nx, &st);
    }
    if (strchr(sets, 'w')) {
        printf("window S  strain-away (template pairs)  strain-away (near-dup)  reserve (near-dup)  near-dup pairs/s\n");
        static const size_t ws_[] = {4, 8, 16, 32, 64};
        for (size_t q = 0; q < sizeof ws_ / sizeof ws_[0]; q++) {
            ndd_tlcs_params_t pw = p;
            pw.window = ws_[q];
            double st_t = 0, st_n = 0, res = 0;
            size_t nres = 0;
            for (size_t i = 0; i < npairs; i++) {
                ndd_tlcs_result_t r;
                if (ndd_tlcs_compare(ws, &pw, tp[i].a, tp[i].na, tp[i].b, tp[i].nb, &r))
                    return 1;
                st_t += r.strain_away;
            }
            pw.reserve = 1;
            for (size_t i = 0; i < npairs; i++) {
                ndd_tlcs_result_t r;
                if (ndd_tlcs_compare(ws, &pw, nd[i].a, nd[i].na, nd[i].b, nd[i].nb, &r))
                    return 1;
                st_n += r.strain_away;
                if (r.reserve >= 0) {
                    res += r.reserve;
                    nres++;
                }
            }
            pw.reserve = 0;
            run(ws, &pw, nd, npairs, 1, &st);
            printf("%8zu  %28.3f  %22.3f  %18.3f  %16.0f\n", ws_[q], st_t / (double)npairs, st_n / (double)npairs,
                   nres ? res / (double)nres : -1.0, (double)npairs / st.best);
        }
    }
    if (!ok)
        printf("bench_verify: WARNING: verdicts not as expected (near-duplicates must pass, template pairs fail)\n");

    ndd_tlcs_ws_free(ws);
done:
    for (size_t i = 0; i < npairs; i++) {
        free(nd[i].a);
        free(nd[i].b);
        free(ro[i].b);
        free(tp[i].a);
        free(tp[i].b);
        free(hp[i].a);
        free(hp[i].b);
    }
    free(hp);
    free(ro);
    free(nd);
    free(tp);
    for (size_t i = 0; i < g_nbody; i++)
        free(g_body[i]);
    free(g_body);
    return ok ? 0 : 1;
}

/* cmd_eval.c - 'ndd eval': quality of a finished run against gold clusters
 * (pairwise P/R/F1, ARI, duplicates correctly removed), a threshold sweep
 * from the stored pair scores, and a pair-level mode (AUC, F1) for labelled
 * file pairs. Local (no MPI). */
#include "ndd_cli.h"
#include "ndd_cluster.h"
#include "ndd_eval.h"
#include "ndd_ncd.h"
#include "ndd_sig.h"
#include "ndd_text.h"
#include "ndd_util.h"
#include "ndd_verify.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void eval_help(void)
{
    printf("usage: ndd eval --gold GOLD.tsv [--json] [--sweep SPEC] RUN_DIR\n"
           "       ndd eval --pairs LABELS.tsv [--json] [--verifier tlcs|signcd] [--boilerplate on|off]\n"
           "\n"
           "Cluster mode: GOLD.tsv has one 'doc id<TAB>cluster id' per line (documents\n"
           "absent from it are singletons); RUN_DIR is an 'ndd run' output directory\n"
           "(clusters.tsv, stats.json; scores.tsv for --sweep). Prints pairwise\n"
           "precision, recall and F1 over same-cluster pairs, the adjusted Rand index and\n"
           "the share of duplicate documents correctly removed.\n"
           "\n"
           "  --sweep NAME=LO:HI:STEP  recompute the clusters from scores.tsv for each\n"
           "                           threshold (NAME: resemblance, containment, ncd, or\n"
           "                           score = the verifier's own similarity, e.g. of the\n"
           "                           baselines; the other TLCS threshold stays at its default)\n"
           "                           without\n"
           "                           rerunning the job. Exact when the run used --verify-all;\n"
           "                           otherwise pairs skipped as already joined are missing.\n"
           "\n"
           "Pair mode: LABELS.tsv has 'file A<TAB>file B<TAB>0|1' per line (paths relative\n"
           "to the current directory or to the labels file); prints the ROC AUC of the\n"
           "verifier's score and its F1 at the default threshold and at the best one.\n"
           "\n"
           "  --json                   one JSON object (fields precision, recall, f1, ari, ...)\n"
           "  -h, --help               this text\n"
           "Exit codes: 0 ok, 1 runtime error, 2 bad usage.\n");
}

/* ---- small string -> index table over sorted ids ---- */

typedef struct {
    char *id;
    uint64_t gold, pred;
    int removed, in_gold, in_pred;
} ent_t;

typedef struct {
    ent_t *v;
    size_t n, cap;
} ents_t;

static int cmp_ent(const void *a, const void *b)
{
    return strcmp(((const ent_t *)a)->id, ((const ent_t *)b)->id);
}

/* splits line at tabs in place; returns the number of fields (<= max) */
static size_t split_tabs(char *line, char **f, size_t max)
{
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    char *p = line;
    while (n < max) {
        f[n++] = p;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = '\0';
        p = t + 1;
    }
    return n;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}

static int ents_add(ents_t *e, const char *id, ent_t **out)
{
    if (e->n == e->cap) {
        size_t c = e->cap ? e->cap * 2 : 1024;
        ent_t *v = realloc(e->v, c * sizeof *v);
        if (!v)
            return NDD_ERR_NOMEM;
        e->v = v;
        e->cap = c;
    }
    ent_t *x = &e->v[e->n++];
    memset(x, 0, sizeof *x);
    x->id = strdup(id);
    if (!x->id)
        return NDD_ERR_NOMEM;
    *out = x;
    return NDD_OK;
}

static void ents_free(ents_t *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i].id);
    free(e->v);
}

/* merges entries with the same id (gold and pred rows of one document) */
static int ents_merge(ents_t *e)
{
    ndd_qsort(e->v, e->n, sizeof *e->v, cmp_ent);
    size_t w = 0;
    for (size_t i = 0; i < e->n; i++) {
        if (w && !strcmp(e->v[w - 1].id, e->v[i].id)) {
            ent_t *a = &e->v[w - 1], *b = &e->v[i];
            if (b->in_gold && a->in_gold && a->gold != b->gold)
                return NDD_ERR_FORMAT; /* one document in two gold clusters */
            if (b->in_gold) {
                a->gold = b->gold;
                a->in_gold = 1;
            }
            if (b->in_pred) {
                a->pred = b->pred;
                a->removed = b->removed;
                a->in_pred = 1;
            }
            free(b->id);
            continue;
        }
        e->v[w++] = e->v[i];
    }
    e->n = w;
    return NDD_OK;
}

static ent_t *ents_find(ents_t *e, const char *id)
{
    ent_t key = {(char *)id, 0, 0, 0, 0, 0};
    return bsearch(&key, e->v, e->n, sizeof *e->v, cmp_ent);
}

static int read_gold(const char *path, ents_t *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NDD_ERR_IO;
    char *line = NULL;
    size_t cap = 0;
    int rc = NDD_OK;
    while (getline(&line, &cap, f) > 0) {
        char *fl[3];
        size_t nf = split_tabs(line, fl, 3);
        if (nf < 2 || !fl[0][0] || line[0] == '#')
            continue;
        ent_t *x;
        if ((rc = ents_add(e, fl[0], &x)))
            break;
        x->gold = hash_str(fl[1]);
        x->in_gold = 1;
    }
    free(line);
    fclose(f);
    return rc;
}

static int read_clusters(const char *dir, ents_t *e)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/clusters.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return NDD_ERR_IO;
    char *line = NULL;
    size_t cap = 0;
    int rc = NDD_OK, first = 1;
    while (getline(&line, &cap, f) > 0) {
        if (first) { /* header */
            first = 0;
            continue;
        }
        char *fl[4];
        if (split_tabs(line, fl, 4) < 3)
            continue;
        ent_t *x;
        if ((rc = ents_add(e, fl[0], &x)))
            break;
        x->pred = hash_str(fl[1]) ^ 0x9e3779b97f4a7c15ull;
        x->removed = !strcmp(fl[2], "0");
        x->in_pred = 1;
    }
    free(line);
    fclose(f);
    return rc;
}

static uint64_t read_ndocs(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/stats.json", dir);
    char *s;
    size_t n;
    if (ndd_read_file(path, 1 << 24, &s, &n))
        return 0;
    uint64_t v = 0;
    char *p = strstr(s, "\"docs\":");
    if (p)
        v = strtoull(p + 7, NULL, 10);
    free(s);
    return v;
}

/* give every entry not in gold (or not predicted) its own singleton cluster */
static void fill_singletons(ents_t *e)
{
    for (size_t i = 0; i < e->n; i++) {
        if (!e->v[i].in_gold)
            e->v[i].gold = hash_str(e->v[i].id) ^ 0x5555555555555555ull;
        if (!e->v[i].in_pred) {
            e->v[i].pred = hash_str(e->v[i].id) ^ 0xaaaaaaaaaaaaaaaaull;
            e->v[i].removed = 0;
        }
    }
}

static int evaluate(ents_t *e, uint64_t ndocs, ndd_eval_result_t *r)
{
    ndd_eval_doc_t *d = malloc((e->n ? e->n : 1) * sizeof *d);
    if (!d)
        return NDD_ERR_NOMEM;
    for (size_t i = 0; i < e->n; i++)
        d[i] = (ndd_eval_doc_t){e->v[i].gold, e->v[i].pred, e->v[i].removed};
    int rc = ndd_eval_clusters(d, e->n, ndocs < e->n ? e->n : ndocs, r);
    free(d);
    return rc;
}

static void print_result(const ndd_eval_result_t *r, int json)
{
    if (json) {
        printf("{\"precision\": %.6f, \"recall\": %.6f, \"f1\": %.6f, \"ari\": %.6f, \"docs\": %llu, "
               "\"gold_pairs\": %llu, \"predicted_pairs\": %llu, \"true_pairs\": %llu, "
               "\"duplicates_removable\": %llu, \"removed\": %llu, \"removed_correctly\": %llu, "
               "\"removal_recall\": %.6f, \"removal_precision\": %.6f}\n",
               r->precision, r->recall, r->f1, r->ari, (unsigned long long)r->n_docs,
               (unsigned long long)r->gold_pairs, (unsigned long long)r->pred_pairs, (unsigned long long)r->tp,
               (unsigned long long)r->gold_removable, (unsigned long long)r->removed,
               (unsigned long long)r->removed_correct, r->removal_recall, r->removal_precision);
        return;
    }
    printf("documents          %llu\n", (unsigned long long)r->n_docs);
    printf("pairs              gold %llu, predicted %llu, true %llu\n", (unsigned long long)r->gold_pairs,
           (unsigned long long)r->pred_pairs, (unsigned long long)r->tp);
    printf("pair precision     %.4f\npair recall        %.4f\npair F1            %.4f\n", r->precision, r->recall,
           r->f1);
    printf("adjusted Rand      %.4f\n", r->ari);
    printf("duplicates removed %llu of %llu removable correctly (%.4f); %llu removed in all (precision %.4f)\n",
           (unsigned long long)r->removed_correct, (unsigned long long)r->gold_removable, r->removal_recall,
           (unsigned long long)r->removed, r->removal_precision);
}

/* ---- sweep ---- */

typedef struct {
    char *a, *b;
    double res, cont, ncd, score;
} spair_t;

static int sweep(const char *dir, ents_t *e, uint64_t ndocs, const char *spec, int json)
{
    char name[32];
    double lo, hi, step;
    const char *eq = strchr(spec, '=');
    if (!eq || (size_t)(eq - spec) >= sizeof name || sscanf(eq + 1, "%lf:%lf:%lf", &lo, &hi, &step) != 3 ||
        step <= 0 || hi < lo)
        return NDD_ERR_INVAL;
    memcpy(name, spec, (size_t)(eq - spec));
    name[eq - spec] = '\0';
    int which = !strcmp(name, "resemblance")   ? 0
                : !strcmp(name, "containment") ? 1
                : !strcmp(name, "ncd")         ? 2
                : !strcmp(name, "score")       ? 3
                                               : -1;
    if (which < 0)
        return NDD_ERR_INVAL;
    char path[4096];
    snprintf(path, sizeof path, "%s/scores.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return NDD_ERR_IO;
    spair_t *pv = NULL;
    size_t np = 0, pcap = 0;
    char *line = NULL;
    size_t cap = 0;
    int rc = NDD_OK, first = 1;
    while (getline(&line, &cap, f) > 0) {
        if (first) {
            first = 0;
            continue;
        }
        char *fl[9];
        size_t nf = split_tabs(line, fl, 9);
        if (nf < 7)
            continue;
        if (np == pcap) {
            pcap = pcap ? pcap * 2 : 1024;
            spair_t *q = realloc(pv, pcap * sizeof *q);
            if (!q) {
                rc = NDD_ERR_NOMEM;
                break;
            }
            pv = q;
        }
        pv[np].a = strdup(fl[0]);
        pv[np].b = strdup(fl[1]);
        pv[np].res = strcmp(fl[3], "-") ? atof(fl[3]) : 0;
        pv[np].cont = strcmp(fl[4], "-") ? atof(fl[4]) : 0;
        pv[np].ncd = strcmp(fl[5], "-") ? atof(fl[5]) : 1;
        pv[np].score = nf >= 9 && strcmp(fl[7], "-") ? atof(fl[7]) : 0;
        np++;
    }
    free(line);
    fclose(f);
    /* the documents of the sweep: gold entries plus every scored document */
    for (size_t i = 0; i < np && !rc; i++) {
        ent_t *x;
        if (!(rc = ents_add(e, pv[i].a, &x)))
            rc = ents_add(e, pv[i].b, &x);
    }
    if (!rc)
        rc = ents_merge(e);
    fill_singletons(e);
    ndd_tlcs_params_t tp;
    ndd_tlcs_params_default(&tp);
    uint32_t *ia = malloc((np ? np : 1) * sizeof *ia), *ib = malloc((np ? np : 1) * sizeof *ib);
    ndd_uf_t uf = {0};
    if (!rc && (!ia || !ib))
        rc = NDD_ERR_NOMEM;
    for (size_t i = 0; i < np && !rc; i++) {
        ia[i] = (uint32_t)(ents_find(e, pv[i].a) - e->v);
        ib[i] = (uint32_t)(ents_find(e, pv[i].b) - e->v);
    }
    if (!rc && json)
        printf("{\"sweep\": \"%s\", \"points\": [", name);
    else if (!rc)
        printf("%-12s %9s %9s %9s %9s\n", name, "precision", "recall", "f1", "ari");
    int firstpt = 1;
    for (double t = lo; t <= hi + 1e-9 && !rc; t += step) {
        if ((rc = ndd_uf_init(&uf, e->n)))
            break;
        for (size_t i = 0; i < np; i++) {
            int acc = which == 0   ? (pv[i].res >= t || pv[i].cont >= tp.min_containment)
                      : which == 1 ? (pv[i].res >= tp.min_resemblance || pv[i].cont >= t)
                      : which == 2 ? pv[i].ncd <= t
                                   : pv[i].score >= t;
            if (acc)
                ndd_uf_union(&uf, ia[i], ib[i]);
        }
        for (size_t i = 0; i < e->n; i++) {
            uint32_t root = ndd_uf_find(&uf, (uint32_t)i);
            e->v[i].pred = root;
            e->v[i].removed = 0;
        }
        ndd_uf_free(&uf);
        ndd_eval_result_t r;
        if ((rc = evaluate(e, ndocs, &r)))
            break;
        if (json)
            printf("%s{\"threshold\": %.4f, \"precision\": %.6f, \"recall\": %.6f, \"f1\": %.6f, \"ari\": %.6f}",
                   firstpt ? "" : ", ", t, r.precision, r.recall, r.f1, r.ari);
        else
            printf("%-12.4f %9.4f %9.4f %9.4f %9.4f\n", t, r.precision, r.recall, r.f1, r.ari);
        firstpt = 0;
    }
    if (!rc && json)
        printf("]}\n");
    for (size_t i = 0; i < np; i++) {
        free(pv[i].a);
        free(pv[i].b);
    }
    free(pv);
    free(ia);
    free(ib);
    return rc;
}

/* ---- pair mode ---- */

static int load_text(const char *path, const char *base, const ndd_text_opts_t *o, ndd_buf_t *out)
{
    char full[4096];
    char *data;
    size_t n;
    int rc = ndd_read_file(path, (size_t)1 << 30, &data, &n);
    if (rc == NDD_ERR_IO && base && path[0] != '/') {
        snprintf(full, sizeof full, "%s/%s", base, path);
        rc = ndd_read_file(full, (size_t)1 << 30, &data, &n);
    }
    if (rc)
        return rc;
    size_t skip = strspn(data, " \t\r\n");
    int html = n - skip > 0 && data[skip] == '<';
    const char *dot = strrchr(path, '.');
    if (dot && (!strcmp(dot, ".html") || !strcmp(dot, ".htm")))
        html = 1;
    else if (dot && !strcmp(dot, ".txt"))
        html = 0;
    rc = html ? ndd_text_from_html(data, n, o, out) : ndd_text_from_plain(data, n, o, out);
    free(data);
    return rc;
}

static int pair_mode(const char *labels, int signcd, int boiler, int json)
{
    FILE *f = fopen(labels, "r");
    if (!f)
        return NDD_ERR_IO;
    char base[4096];
    snprintf(base, sizeof base, "%s", labels);
    char *slash = strrchr(base, '/');
    if (slash)
        *slash = '\0';
    else
        strcpy(base, ".");
    ndd_text_opts_t o;
    ndd_text_opts_default(&o);
    o.boilerplate = boiler;
    ndd_tlcs_params_t tp;
    ndd_tlcs_params_default(&tp);
    ndd_tlcs_ws_t *ws = NULL;
    ndd_ncd_ctx_t *nc = NULL;
    ndd_tlcs_result_t tr;
    ndd_buf_t ta = NDD_BUF_INIT, tb = NDD_BUF_INIT, sa = NDD_BUF_INIT, sb = NDD_BUF_INIT;
    double *score = NULL;
    int *label = NULL, *verdict = NULL;
    size_t n = 0, cap = 0;
    char *line = NULL;
    size_t lcap = 0;
    int rc = signcd ? ndd_ncd_ctx_create(&nc, 0) : ndd_tlcs_ws_create(&ws);
    while (!rc && getline(&line, &lcap, f) > 0) {
        char *fl[3];
        if (line[0] == '#' || split_tabs(line, fl, 3) < 3)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 256;
            double *s2 = realloc(score, cap * sizeof *s2);
            int *l2 = realloc(label, cap * sizeof *l2), *v2 = realloc(verdict, cap * sizeof *v2);
            if (s2) score = s2;
            if (l2) label = l2;
            if (v2) verdict = v2;
            if (!s2 || !l2 || !v2) {
                rc = NDD_ERR_NOMEM;
                break;
            }
        }
        if ((rc = load_text(fl[0], base, &o, &ta)) || (rc = load_text(fl[1], base, &o, &tb))) {
            fprintf(stderr, "ndd eval: cannot read %s or %s: %s\n", fl[0], fl[1], ndd_cli_why(rc, errno));
            break;
        }
        label[n] = atoi(fl[2]) != 0;
        if (signcd) {
            size_t ca, cb;
            double ncd;
            if ((rc = ndd_ncd_signature(ta.data ? ta.data : "", ta.len, &sa)) ||
                (rc = ndd_ncd_signature(tb.data ? tb.data : "", tb.len, &sb)) ||
                (rc = ndd_ncd_csize(nc, sa.data ? sa.data : "", sa.len, &ca)) ||
                (rc = ndd_ncd_csize(nc, sb.data ? sb.data : "", sb.len, &cb)) ||
                (rc = ndd_ncd_pair(nc, sa.data ? sa.data : "", sa.len, ca, sb.data ? sb.data : "", sb.len, cb, &ncd,
                                   NULL)))
                break;
            score[n] = -ncd;
            verdict[n] = ncd <= NDD_NCD_DEFAULT_TAU;
        } else {
            if ((rc = ndd_tlcs_compare(ws, &tp, ta.data ? ta.data : "", ta.len, tb.data ? tb.data : "", tb.len, &tr)))
                break;
            /* one scalar: how far the better of the two measures is past its threshold */
            double s1 = tr.resemblance / tp.min_resemblance, s2 = tr.containment / tp.min_containment;
            score[n] = s1 > s2 ? s1 : s2;
            verdict[n] = tr.duplicate;
        }
        n++;
    }
    free(line);
    fclose(f);
    if (!rc) {
        size_t *idx = malloc((n ? n : 1) * sizeof *idx);
        double auc = idx ? ndd_eval_auc(score, label, n, idx) : -1;
        /* F1 at the default verdict and at the best threshold over the scores */
        uint64_t tp0 = 0, fp0 = 0, fn0 = 0, pos = 0;
        for (size_t i = 0; i < n; i++) {
            pos += (uint64_t)label[i];
            tp0 += (uint64_t)(verdict[i] && label[i]);
            fp0 += (uint64_t)(verdict[i] && !label[i]);
            fn0 += (uint64_t)(!verdict[i] && label[i]);
        }
        double f1d = tp0 ? 2.0 * (double)tp0 / (double)(2 * tp0 + fp0 + fn0) : 0.0;
        double best = 0, best_t = 0;
        if (idx) {
            /* idx sorted by score ascending (from the AUC): accept the top k */
            uint64_t tpk = 0, k = 0;
            for (size_t q = n; q-- > 0;) {
                k++;
                tpk += (uint64_t)label[idx[q]];
                if (q > 0 && score[idx[q - 1]] == score[idx[q]])
                    continue;
                double fk = tpk ? 2.0 * (double)tpk / (double)(k + pos) : 0.0;
                if (fk > best) {
                    best = fk;
                    best_t = score[idx[q]];
                }
            }
        }
        free(idx);
        const char *sname = signcd ? "-ncd" : "max(resemblance/0.28, containment/0.7)";
        if (json)
            printf("{\"verifier\": \"%s\", \"pairs\": %zu, \"positives\": %llu, \"auc\": %.6f, \"f1_default\": %.6f, "
                   "\"f1_best\": %.6f, \"best_threshold\": %.6f, \"score\": \"%s\"}\n",
                   signcd ? "signcd" : "tlcs", n, (unsigned long long)pos, auc, f1d, best, best_t, sname);
        else
            printf("verifier %s, %zu pairs (%llu positive)\nAUC %.4f\nF1 at the default threshold %.4f\n"
                   "best F1 %.4f at score >= %.4f (score = %s)\n",
                   signcd ? "signcd" : "tlcs", n, (unsigned long long)pos, auc, f1d, best, best_t, sname);
    }
    ndd_tlcs_ws_free(ws);
    ndd_ncd_ctx_free(nc);
    ndd_buf_free(&ta);
    ndd_buf_free(&tb);
    ndd_buf_free(&sa);
    ndd_buf_free(&sb);
    free(score);
    free(label);
    free(verdict);
    return rc;
}

int ndd_cmd_eval(int argc, char **argv)
{
    static const struct option opts[] = {{"gold", required_argument, 0, 'g'},  {"pairs", required_argument, 0, 'p'},
                                         {"json", no_argument, 0, 'j'},        {"sweep", required_argument, 0, 's'},
                                         {"verifier", required_argument, 0, 'V'}, {"boilerplate", required_argument, 0, 'B'},
                                         {"help", no_argument, 0, 'h'},        {0, 0, 0, 0}};
    const char *gold = NULL, *pairs = NULL, *sw = NULL;
    int json = 0, signcd = 0, boiler = NDD_SIG_DEFAULT_BOILERPLATE, ch;
    optind = 1;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (ch) {
        case 'g': gold = optarg; break;
        case 'p': pairs = optarg; break;
        case 'j': json = 1; break;
        case 's': sw = optarg; break;
        case 'V':
            if (!strcmp(optarg, "signcd")) signcd = 1;
            else if (strcmp(optarg, "tlcs")) return ndd_cli_usage_error("eval", "unknown --verifier '%s'", optarg);
            break;
        case 'B':
            if (!strcmp(optarg, "on")) boiler = 1;
            else if (!strcmp(optarg, "off")) boiler = 0;
            else return ndd_cli_usage_error("eval", "--boilerplate takes on or off");
            break;
        case 'h': eval_help(); return NDD_EXIT_OK;
        default: return ndd_cli_usage_error("eval", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (pairs) {
        if (gold || optind != argc)
            return ndd_cli_usage_error("eval", "--pairs takes no RUN_DIR and no --gold");
        int rc = pair_mode(pairs, signcd, boiler, json);
        if (rc)
            fprintf(stderr, "ndd eval: %s: %s\n", pairs, ndd_strerror(rc));
        return rc ? NDD_EXIT_RUNTIME : NDD_EXIT_OK;
    }
    if (!gold)
        return ndd_cli_usage_error("eval", "--gold GOLD.tsv or --pairs LABELS.tsv is required");
    if (optind + 1 != argc)
        return ndd_cli_usage_error("eval", "give exactly one RUN_DIR");
    const char *dir = argv[optind];
    ents_t e = {0};
    errno = 0;
    int rc = read_gold(gold, &e);
    if (rc) {
        fprintf(stderr, "ndd eval: cannot read %s: %s\n", gold, ndd_cli_why(rc, errno));
        goto out;
    }
    errno = 0;
    if (!sw && (rc = read_clusters(dir, &e))) {
        fprintf(stderr, "ndd eval: cannot read %s/clusters.tsv: %s\n", dir, ndd_cli_why(rc, errno));
        goto out;
    }
    if ((rc = ents_merge(&e))) {
        fprintf(stderr, "ndd eval: %s: a document is listed in two gold clusters\n", gold);
        goto out;
    }
    uint64_t ndocs = read_ndocs(dir);
    if (sw) {
        rc = sweep(dir, &e, ndocs, sw, json);
        if (rc == NDD_ERR_INVAL) {
            ents_free(&e);
            return ndd_cli_usage_error("eval", "--sweep takes NAME=LO:HI:STEP with NAME resemblance, containment, ncd "
                                               "or score");
        }
        if (rc)
            fprintf(stderr, "ndd eval: sweep over %s/scores.tsv failed: %s\n", dir, ndd_strerror(rc));
        goto out;
    }
    fill_singletons(&e);
    ndd_eval_result_t r;
    if (!(rc = evaluate(&e, ndocs, &r)))
        print_result(&r, json);
out:
    ents_free(&e);
    return rc ? NDD_EXIT_RUNTIME : NDD_EXIT_OK;
}

/* run_index.c - ndd run --index DIR (issue 15; docs/index.md): a run whose
 * inputs are one batch added to a persistent index.
 *
 * The index keeps every batch's map shards (the documents as the map stage
 * left them: id, url, text before the template strip, site, URL hash,
 * weight, date, keys) and the pair verdicts computed so far. A batch reads
 * only its own inputs; then every rank loads its contiguous range of all
 * batches' documents, numbered as one run over all batches' inputs in
 * order would number them, and the reduce stages (duplicate ids, templates,
 * exact pass, postings with the frequent-signature and site-template rules,
 * components, verification) run over all of them: the same computation as
 * that one run, hence the same decisions. Only the verifier's work on pairs
 * verified before (the same two documents with the same texts as verified)
 * is taken from the verdict cache, and the signature keys of a document
 * whose text after the template strip did not change since the batch that
 * signed it from the key table. */
#include "run_internal.h"
#include "ndd_ckpt.h"
#include "ndd_index.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define IX_PATH 4200
/* What a new document of an index batch weighs in the split of the
 * documents over the ranks, an old one weighing 1: the template pass signs
 * a new document and hashes its blocks, an old one takes its stored keys
 * and occurrences (about 27 against 5 us a document on bench-index); the
 * later stages cost about the same for both. Measured (docs/BENCHMARKS.md,
 * "stop 40"): bench-index's batch 2 on 4 ranks under one core, the ranks'
 * CPU time up to the end of the template pass spread by 0.050 / 0.083 s at
 * 1 (the last rank, holding every new document, the slowest), by 0.010 /
 * 0.010 s at 2. The sum is balanced, not each phase: the index's load
 * (about 6 us an old document) is heavier on the first ranks, and on 2
 * ranks of a 2-core machine the walls at 1 and 2 are the same ("stop 41"). */
#define IX_NEW_WEIGHT 2

typedef struct ndd_ixrun {
    ndd_index_man_t man;
    uint64_t nold, old_files; /* documents and input files in the index before this batch */
    int cacheable;            /* the verifier is a function of the two texts (TLCS, SigNCD) */
    ndd_vcache_t cache;       /* the verdicts of earlier batches */
    ndd_vcache_t fresh;       /* those computed here */
    ndd_vcache_t own;         /* resumed: those this batch computed before it was stopped (routed, sorted) */
    int own_loaded;           /* (every rank) own was loaded: it is routed with the cache */
    uint64_t own_taken;       /* lookups own answered on this rank */
    ndd_keytab_t keys;        /* the key table: every batch's key files in order (all ranks) */
    ndd_buf_t kout;           /* this rank's keys for this batch's key file */
    uint64_t nkout;           /* documents in kout */
    uint64_t *resigned;       /* the old documents signed again here (stripped text changed), increasing */
    size_t nresigned, resigned_cap;
    ndd_occtab_t occ;         /* the template occurrences of this rank's old documents */
    ndd_buf_t oout;           /* this rank's occurrences for this batch's occurrence file */
    uint64_t noout;           /* documents in oout */
    ndd_buf_t *pins;          /* rank 0: this batch's input pins */
    size_t npins;
    int lock_fd;              /* rank 0: DIR/LOCK, held while the batch runs (else -1) */
} ndd_ixrun_t;

void ndd_index_state_free(run_t *r)
{
    ndd_ixrun_t *ix = r->ix;
    if (!ix)
        return;
    ndd_index_free(&ix->man);
    ndd_vcache_free(&ix->cache);
    ndd_vcache_free(&ix->fresh);
    ndd_vcache_free(&ix->own);
    ndd_keytab_free(&ix->keys);
    free(ix->resigned);
    ndd_buf_free(&ix->kout);
    ndd_occtab_free(&ix->occ);
    ndd_buf_free(&ix->oout);
    for (size_t i = 0; i < ix->npins; i++)
        ndd_buf_free(&ix->pins[i]);
    free(ix->pins);
    if (ix->lock_fd >= 0)
        close(ix->lock_fd); /* releases the lock */
    free(ix);
    r->ix = NULL;
}

/* Rank 0: takes DIR/LOCK (an exclusive flock, without waiting; DIR is made
 * when absent) for the whole batch, so that a second batch added to the
 * same index at the same time is refused instead of racing on INDEX. The
 * lock goes with the process (a killed batch leaves none behind, and its
 * resume takes it again); the file stays. */
static int lock_index(run_t *r, ndd_ixrun_t *ix, const char *dir)
{
    char path[IX_PATH + 8];
    if (mkdir(dir, 0777) && errno != EEXIST) {
        ndd_run_log(r, 0, "--index %s: cannot create the directory (%s)", dir, strerror(errno));
        return NDD_ERR_IO;
    }
    snprintf(path, sizeof path, "%s/LOCK", dir);
    if ((ix->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666)) < 0) {
        ndd_run_log(r, 0, "--index %s: cannot open %s (%s)", dir, path, strerror(errno));
        return NDD_ERR_IO;
    }
    if (flock(ix->lock_fd, LOCK_EX | LOCK_NB) == 0)
        return NDD_OK;
    if (errno == EWOULDBLOCK) {
        ndd_run_log(r, 0, "--index %s: another batch is being added to this index now (%s is locked): batches "
                    "are added one at a time", dir, path);
        return NDD_ERR_INVAL;
    }
    ndd_run_log(r, 0, "--index %s: cannot lock %s (%s)", dir, path, strerror(errno));
    return NDD_ERR_IO;
}

/* 1 when dir holds entries other than batch directories and LOCK (the remains of a
 * batch that did not land). */
static int has_other_entries(const char *dir, char *first, size_t cap)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int other = 0;
    if (!d)
        return 0;
    while (!other && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strncmp(e->d_name, "batch-", 6) &&
            strcmp(e->d_name, "LOCK")) {
            snprintf(first, cap, "%s", e->d_name);
            other = 1;
        }
    closedir(d);
    return other;
}

/* Rank 0: the index manifest (or none: a first batch) and its checks. */
static int open_checks(run_t *r, ndd_ixrun_t *ix, const char *dir, const char *opts)
{
    struct stat st;
    char first[256];
    int rc = ndd_index_read(dir, &ix->man);
    if (rc == NDD_ERR_IO && errno == ENOENT) {
        if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
            ndd_run_log(r, 0, "--index %s: not a directory", dir);
            return NDD_ERR_INVAL;
        }
        if (has_other_entries(dir, first, sizeof first)) {
            ndd_run_log(r, 0, "--index %s: not an ndd index (no %s/INDEX) and not empty (it holds %s): give an "
                        "empty or new directory for a first batch", dir, dir, first);
            return NDD_ERR_INVAL;
        }
        memset(&ix->man, 0, sizeof ix->man);
        return (ix->man.opts = strdup(opts)) ? NDD_OK : NDD_ERR_NOMEM; /* a first batch */
    }
    if (rc == NDD_ERR_VERSION) {
        ndd_run_log(r, 0, "--index %s: the index has format version %d, this ndd reads versions %d to %d only: "
                    "build a new index from the inputs of its batches", dir, ix->man.version, NDD_INDEX_VERSION_MIN,
                    NDD_INDEX_VERSION);
        return rc;
    }
    if (rc) {
        ndd_run_log(r, 0, "--index %s: cannot read %s/INDEX (%s)", dir, dir, ndd_strerror(rc));
        return rc;
    }
    if (strcmp(ix->man.opts, opts)) {
        ndd_run_log(r, 0, "--index %s: the index was built with the options '%s', this batch has '%s': every batch "
                    "of an index must use the same options (they decide the results)", dir, ix->man.opts, opts);
        return NDD_ERR_INVAL;
    }
    return NDD_OK;
}

/* Rank 0: this batch's pins, none of them already in the index. */
static int pin_checks(run_t *r, ndd_ixrun_t *ix, const char *dir, const ndd_input_t *in, size_t nin)
{
    int rc = (ix->pins = calloc(nin ? nin : 1, sizeof *ix->pins)) ? NDD_OK : NDD_ERR_NOMEM;
    for (size_t i = 0; i < nin && !rc; i++, ix->npins++)
        rc = ndd_input_pin(&in[i], &ix->pins[i]);
    for (size_t i = 0; i < nin && !rc; i++)
        for (size_t k = 0; k < ix->man.nb && !rc; k++)
            for (size_t p = 0; p < ix->man.b[k].npins && !rc; p++)
                if (!strcmp(ix->pins[i].data, ix->man.b[k].pins[p]) && !in[i].skip) {
                    ndd_run_log(r, 0, "--index %s: input %s is already in the index (batch %zu; the same name, "
                                "size, time and content): a batch adds new inputs only", dir, in[i].name, k + 1);
                    rc = NDD_ERR_INVAL;
                }
    return rc;
}

int ndd_index_open(run_t *r, const ndd_input_t *in, size_t nin)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    const char *opts = cfg->index_opts ? cfg->index_opts : "";
    ndd_ixrun_t *ix = calloc(1, sizeof *ix);
    int rc = ndd_comm_agree(r->comm, ix ? NDD_OK : NDD_ERR_NOMEM);
    r->ix = ix;
    if (rc)
        return rc;
    ix->lock_fd = -1;
    if (r->me == 0 && !(rc = lock_index(r, ix, cfg->index_dir)) && !(rc = open_checks(r, ix, cfg->index_dir, opts)))
        rc = pin_checks(r, ix, cfg->index_dir, in, nin);
    if ((rc = ndd_comm_agree(r->comm, rc)))
        return rc;
    if (r->me != 0) { /* the manifest rank 0 checked (no batch lands while this one runs) */
        rc = ndd_index_read(cfg->index_dir, &ix->man);
        if (rc == NDD_ERR_IO && errno == ENOENT)
            rc = (ix->man.opts = strdup(opts)) ? NDD_OK : NDD_ERR_NOMEM;
    }
    ix->nold = ndd_index_docs(&ix->man, &ix->old_files);
    ix->cacheable = cfg->verifier == NDD_VERIFIER_TLCS || cfg->verifier == NDD_VERIFIER_SIGNCD;
    rc = ndd_comm_agree(r->comm, rc);
    if (!rc && r->me == 0)
        ndd_run_log(r, 1, "index %s: %zu batch%s, %llu documents; adding batch %zu", cfg->index_dir, ix->man.nb,
                    ix->man.nb == 1 ? "" : "es", (unsigned long long)ix->nold, ix->man.nb + 1);
    return rc;
}

uint64_t ndd_index_first_new(const run_t *r) { return r->ix->nold; }

const uint64_t *ndd_index_keys_raw(const run_t *r, uint64_t g, size_t *n, int *resigned)
{
    const ndd_keytab_t *t = r->ix ? &r->ix->keys : NULL;
    size_t at = r->ix ? ndd_u64_lower_bound(r->ix->resigned, r->ix->nresigned, g) : 0; /* (increasing) */
    *resigned = r->ix && at < r->ix->nresigned && r->ix->resigned[at] == g;
    if (!t || !t->cnt || g >= t->n || t->cnt[g] == UINT32_MAX)
        return NULL;
    *n = t->cnt[g];
    return t->keys ? t->keys + t->off[g] : (const uint64_t *)t;
}

int ndd_shards_load(run_t *r, const char *const *dirs, const int *nshards, size_t nsrc)
{
    size_t tot = 0;
    for (size_t s = 0; s < nsrc; s++)
        tot += (size_t)nshards[s];
    uint64_t *cnt = calloc(tot ? tot : 1, sizeof *cnt), total = 0, lo, hi, slo, shi, at = 0;
    int rc = ndd_comm_agree(r->comm, cnt ? NDD_OK : NDD_ERR_NOMEM);
    for (size_t s = 0, k = 0; s < nsrc && !rc; s++)
        for (int i = 0; i < nshards[s] && !rc; i++, k++) {
            rc = ndd_ckpt_shard_count(dirs[s], i, &cnt[k]);
            total += cnt[k];
        }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    /* an index batch: its new documents, the last ones, weigh IX_NEW_WEIGHT
     * (they are signed and their blocks hashed in the template pass, the old
     * ones take stored keys and occurrences), so that the last ranks do not
     * hold them all at an even count of documents; a resumed run has no new
     * ones (every document weighs 1: even shares) */
    uint64_t heavy = r->ix && r->ix->nold < total ? r->ix->nold : total;
    rc = ndd_part_share_weighted(total, heavy, IX_NEW_WEIGHT, r->P, r->me, &lo, &hi);
    ndd_part_share((uint64_t)tot, r->P, r->me, &slo, &shi);
    for (size_t s = 0, k = 0; s < nsrc && !rc; s++)
        for (int i = 0; i < nshards[s] && !rc; i++, k++) {
            uint64_t a = at, b = at + cnt[k], x = a > lo ? a : lo, y = b < hi ? b : hi;
            int meta = (uint64_t)k >= slo && (uint64_t)k < shi;
            at = b;
            if (x < y || meta)
                rc = ndd_ckpt_shard_load(dirs[s], i, &r->d, &r->rejects, &r->c, x < y ? x - a : 0, x < y ? y - x : 0,
                                         meta);
        }
    rc = ndd_comm_agree(r->comm, rc);
out:
    free(cnt);
    return rc;
}

/* DIR/KIND-P.zst and its marker DIR/KIND-P.done (KIND: "keys/keys",
 * "verify/verdicts", ..., the names of a part's files); path and marker
 * hold IX_PATH + 64 bytes. */
static void part_file(char *path, char *marker, const char *dir, const char *kind, int p)
{
    snprintf(path, IX_PATH + 64, "%s/%s-%06d.zst", dir, kind, p);
    snprintf(marker, IX_PATH + 64, "%s/%s-%06d.done", dir, kind, p);
}

/* Loads the files SUB-R.zst (with their markers) of batches 1..k in
 * order, R below each batch's part count, through load, into a table that
 * keeps the documents from lo on and leaves in *first the first document
 * of the file it loaded last; skip_missing: a batch without them (written
 * by an earlier ndd) is skipped. A batch's part R holds documents of its
 * rank R, all below those of part R + 1 and of the next batches: its parts
 * are read from the last one down, so that each part's bound (the first
 * document of the part above it, or the batch's end) is known before it is
 * opened, and the parts wholly below lo are not read (each rank of a node
 * reads about its own parts, not every part). */
static int load_batch_files(run_t *r, const char *sub, int skip_missing,
                            int (*load)(const char *, const char *, void *), void *table, uint64_t lo,
                            const uint64_t *first)
{
    ndd_ixrun_t *ix = r->ix;
    char dir[IX_PATH], path[IX_PATH + 64], marker[IX_PATH + 64];
    uint64_t end = 0;
    int rc = NDD_OK;
    for (size_t k = 0; k < ix->man.nb && !rc; k++) {
        end += ix->man.b[k].docs;
        rc = ndd_index_batch_dir(dir, sizeof dir, r->cfg->index_dir, k + 1);
        uint64_t bound = end; /* the documents of the parts left are below it */
        for (int p = ix->man.b[k].nverdicts - 1; p >= 0 && bound > lo && !rc; p--) {
            part_file(path, marker, dir, sub, p);
            if (skip_missing && access(marker, F_OK) != 0 && errno == ENOENT && access(path, F_OK) != 0 &&
                errno == ENOENT)
                break; /* a batch of an earlier ndd: none */
            if (!(rc = load(path, marker, table)) && *first < bound)
                bound = *first;
        }
    }
    return rc;
}

static int load_keys(const char *path, const char *marker, void *t) { return ndd_keytab_load(path, marker, t); }
static int load_occ(const char *path, const char *marker, void *t) { return ndd_occtab_load(path, marker, t); }

/* Every rank: the key table, from the key files of batches 1..k in order
 * (each holds the documents the batch signed). Only for sentence
 * signatures made by the template pass: other keys are not cached. The
 * template pass looks up the rank's own documents (from first on), and
 * shuffle 2 carries each document's keys with its text to its set's rank
 * (to ranks on other nodes too in an index batch: shuffle_texts), so the
 * table keeps this rank's documents only, and reads about its own parts of
 * the key files (load_batch_files): O(index / P) per rank. When they
 * travel (r->keys_kept, decided before shuffle 1) the table is freed then
 * (ndd_index_keys_release: nothing else looks it up); when the memory
 * budget keeps the keys from travelling, the candidate selection takes the
 * rank's own members' keys from it and signs the members of other ranks
 * again (the same keys). */
static int keys_load(run_t *r, uint64_t first)
{
    ndd_ixrun_t *ix = r->ix;
    int rc = ndd_keytab_init(&ix->keys, r->cfg->templates && !r->cfg->candidates ? ix->nold : 0);
    if (!rc)
        ndd_keytab_range(&ix->keys, first, first + r->d.n);
    if (!rc)
        rc = ndd_keys_begin(&ix->kout);
    if (!rc && ix->keys.n)
        rc = load_batch_files(r, "keys/keys", 0, load_keys, &ix->keys, ix->keys.lo, &ix->keys.first);
    if (rc && r->me == 0)
        ndd_run_log(r, 0, "--index %s: cannot read its signature keys (%s)", r->cfg->index_dir, ndd_strerror(rc));
    return ndd_comm_agree(r->comm, rc);
}

/* Every rank: the template occurrences of its own old documents (the
 * template pass's range, from first on), from the occurrence files of
 * batches 1..k in order. A batch written before these files existed has
 * none: its documents' occurrences are made again (and noted in this
 * batch's file). */
static int occ_load(run_t *r, uint64_t first)
{
    ndd_ixrun_t *ix = r->ix;
    int rc = ndd_occtab_init(&ix->occ, r->cfg->templates ? ix->nold : 0);
    if (!rc)
        ndd_occtab_range(&ix->occ, first, first + r->d.n);
    if (!rc)
        rc = ndd_occ_begin(&ix->oout);
    if (!rc && ix->occ.n)
        rc = load_batch_files(r, "tmpl/occ", 1, load_occ, &ix->occ, ix->occ.lo, &ix->occ.first);
    if (rc && r->me == 0)
        ndd_run_log(r, 0, "--index %s: cannot read its template occurrences (%s)", r->cfg->index_dir,
                    ndd_strerror(rc));
    return ndd_comm_agree(r->comm, rc);
}

const ndd_tmpl_occ_t *ndd_index_occ(const run_t *r, uint64_t g, size_t *n)
{
    return r->ix ? ndd_occtab_find(&r->ix->occ, g, n) : NULL;
}

int ndd_index_occ_note(run_t *r, uint64_t g, const ndd_tmpl_occ_t *v, size_t n)
{
    r->ix->noout++;
    return ndd_occ_put(&r->ix->oout, g, v, n);
}

/* WD/SUB (made when absent) and this rank's file NAME-R.zst in it with its marker. */
static int part_paths(const run_t *r, const char *wd, const char *sub, const char *name, char *path, char *marker)
{
    char dir[IX_PATH];
    snprintf(dir, sizeof dir, "%s/%s", wd, sub);
    part_file(path, marker, dir, name, r->me);
    return mkdir(dir, 0777) && errno != EEXIST ? NDD_ERR_IO : NDD_OK;
}

int ndd_index_occ_write(run_t *r, const char *wd)
{
    char path[IX_PATH + 64], marker[IX_PATH + 64];
    int rc = part_paths(r, wd, "tmpl", "occ", path, marker);
    if (!rc && !r->ix->oout.len) /* (templates off: an empty file all the same) */
        rc = ndd_occ_begin(&r->ix->oout);
    if (!rc)
        rc = ndd_occ_write(path, marker, &r->ix->oout, r->ix->noout);
    if (rc)
        ndd_run_log(r, 0, "cannot write %s (%s; a full or read-only disk?)", path, ndd_strerror(rc));
    ndd_buf_free(&r->ix->oout);
    r->ix->noout = 0;
    ndd_occtab_free(&r->ix->occ); /* (the template pass is over) */
    return ndd_comm_agree(r->comm, rc);
}

const uint64_t *ndd_index_keys(const run_t *r, uint64_t g, uint64_t hash, size_t *n)
{
    return r->ix ? ndd_keytab_find(&r->ix->keys, g, hash, n) : NULL;
}

size_t ndd_index_keys_expected(const run_t *r, uint64_t g0, size_t n)
{
    const ndd_keytab_t *t = r->ix ? &r->ix->keys : NULL;
    uint64_t sum = 0, known = 0;
    for (size_t i = 0; t && i < n; i++) {
        uint64_t g = g0 + i;
        if (g < t->n && t->cnt[g] != UINT32_MAX) {
            sum += t->cnt[g];
            known++;
        }
    }
    /* the others (new or changed documents) as many as the known ones on average */
    return known ? (size_t)(sum + (sum / known) * (n - known)) : 0;
}

void ndd_index_keys_release(run_t *r)
{
    if (r->ix)
        ndd_keytab_free(&r->ix->keys);
}

int ndd_index_keys_note(run_t *r, uint64_t g, uint64_t hash, const uint64_t *keys, size_t n)
{
    r->ix->nkout++;
    if (g < r->ix->nold) {
        if (r->ix->nresigned && g <= r->ix->resigned[r->ix->nresigned - 1])
            r->ix->nresigned = 0; /* a template pass again (the stages after the map stage redone) */
        int rc = ndd_array_grow((void **)&r->ix->resigned, &r->ix->resigned_cap, r->ix->nresigned + 1, 8);
        if (rc)
            return rc;
        r->ix->resigned[r->ix->nresigned++] = g;
    }
    return ndd_keys_put(&r->ix->kout, g, hash, keys, n);
}

int ndd_index_keys_write(run_t *r, const char *wd)
{
    char path[IX_PATH + 64], marker[IX_PATH + 64];
    int rc = part_paths(r, wd, "keys", "keys", path, marker);
    if (!rc)
        rc = ndd_keys_write(path, marker, &r->ix->kout, r->ix->nkout);
    if (rc)
        ndd_run_log(r, 0, "cannot write %s (%s; a full or read-only disk?)", path, ndd_strerror(rc));
    ndd_buf_free(&r->ix->kout);
    return ndd_comm_agree(r->comm, rc);
}

int ndd_index_load_map(run_t *r, const char *wd, int nshards)
{
    ndd_ixrun_t *ix = r->ix;
    size_t nsrc = ix->man.nb + 1;
    char **dirs = calloc(nsrc, sizeof *dirs);
    int *ns = calloc(nsrc, sizeof *ns), rc = dirs && ns ? NDD_OK : NDD_ERR_NOMEM;
    double t0 = ndd_now();
    for (size_t k = 0; k < nsrc && !rc; k++) {
        if (!(dirs[k] = malloc(IX_PATH)))
            rc = NDD_ERR_NOMEM;
        else if (k < ix->man.nb)
            rc = ndd_index_batch_dir(dirs[k], IX_PATH, r->cfg->index_dir, k + 1);
        else
            snprintf(dirs[k], IX_PATH, "%s", wd);
        if (ns)
            ns[k] = k < ix->man.nb ? ix->man.b[k].nshards : nshards;
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    /* this rank's share of the batch gives way to its share of the index */
    ndd_docs_free(&r->d);
    ndd_buf_clear(&r->rejects);
    memset(&r->c, 0, sizeof r->c);
    rc = ndd_shards_load(r, (const char *const *)dirs, ns, nsrc);
    if (rc && r->me == 0)
        ndd_run_log(r, 0, "--index %s: cannot load the map shards of its batches (%s)", r->cfg->index_dir,
                    ndd_strerror(rc));
    r->ninputs_expanded += ix->old_files;
    uint64_t first = 0, total = 0; /* this rank's first document (r->first is set after the load) */
    int xs = ndd_comm_exscan_u64(r->comm, r->d.n, &first, &total); /* (every rank, whatever rc) */
    rc = ndd_comm_agree(r->comm, rc ? rc : xs);
    if (!rc)
        rc = keys_load(r, first);
    if (!rc)
        rc = occ_load(r, first);
    r->t[NDD_ST_READ] += ndd_now() - t0;
out:
    for (size_t k = 0; dirs && k < nsrc; k++)
        free(dirs[k]);
    free(dirs);
    free(ns);
    return rc;
}

int ndd_index_verdicts_load(run_t *r)
{
    ndd_ixrun_t *ix = r->ix;
    char dir[IX_PATH], path[IX_PATH + 64], marker[IX_PATH + 64];
    int rc = NDD_OK;
    if (r->me == 0) {
        r->c.ix_batch = ix->man.nb + 1;
        r->c.ix_docs_old = ix->nold;
        r->c.ix_docs_new = r->starts[r->P] - ix->nold;
    }
    /* the verdict files dealt out to the ranks (file i to rank i mod P):
     * ndd_index_verdicts_route then sends each verdict to the rank that
     * verifies its pair's set */
    size_t i = 0;
    for (size_t k = 0; k < ix->man.nb && ix->cacheable && !rc; k++) {
        rc = ndd_index_batch_dir(dir, sizeof dir, r->cfg->index_dir, k + 1);
        for (int p = 0; p < ix->man.b[k].nverdicts && !rc; p++, i++) {
            if (i % (size_t)r->P != (size_t)r->me)
                continue;
            part_file(path, marker, dir, "verify/verdicts", p);
            rc = ndd_vcache_load(path, marker, &ix->cache);
        }
    }
    if (rc && r->me == 0)
        ndd_run_log(r, 0, "--index %s: cannot read its verdicts (%s)", r->cfg->index_dir, ndd_strerror(rc));
    return ndd_comm_agree(r->comm, rc);
}

/* One step of the verdicts' route: each verdict of from to the rank
 * dest(x, verdict) returns (-1: dropped), through an exchange; the
 * received ones replace from's. Collective. */
static int route_step(run_t *r, ndd_vcache_t *from, int (*dest)(const run_t *, const void *, const ndd_verdict_t *),
                      const void *x)
{
    ndd_buf_t *send = ndd_bufs_new(r->P), *recv = ndd_bufs_new(r->P);
    size_t *cnt = calloc((size_t)r->P, sizeof *cnt);
    int *to = malloc((from->n ? from->n : 1) * sizeof *to); /* each verdict's destination, found once */
    int rc = !send || !recv || !cnt || !to ? NDD_ERR_NOMEM : NDD_OK;
    for (size_t i = 0; i < from->n && !rc; i++) {
        to[i] = dest(r, x, &from->v[i]);
        if (to[i] >= 0)
            cnt[to[i]]++;
    }
    for (int s = 0; s < r->P && !rc; s++) /* each destination's buffer at its final size */
        rc = ndd_buf_reserve(&send[s], cnt[s] * NDD_VERDICT_BYTES);
    for (size_t i = 0; i < from->n && !rc; i++)
        if (to[i] >= 0)
            rc = ndd_verdict_put(&send[to[i]], &from->v[i]);
    free(cnt);
    free(to);
    ndd_vcache_free(from);
    if (!(rc = ndd_comm_agree(r->comm, rc)))
        rc = ndd_comm_exchange_move(r->comm, send, recv, NULL);
    size_t n = 0;
    for (int s = 0; s < r->P && !rc; s++)
        n += recv[s].len / NDD_VERDICT_BYTES;
    if (!rc)
        rc = ndd_array_grow((void **)&from->v, &from->cap, n, sizeof *from->v);
    for (int s = 0; s < r->P && !rc; s++)
        for (size_t at = 0; at + NDD_VERDICT_BYTES <= recv[s].len && !rc; at += NDD_VERDICT_BYTES)
            if (!(rc = ndd_verdict_get(recv[s].data + at, &from->v[from->n])))
                from->n++;
    ndd_bufs_free(send, r->P);
    ndd_bufs_free(recv, r->P);
    return ndd_comm_agree(r->comm, rc);
}

/* The rank that holds document a (whose set it knows). */
static int home_of(const run_t *r, const void *x, const ndd_verdict_t *v)
{
    (void)x;
    return v->a < r->starts[r->P] ? ndd_part_owner_of(r->starts, r->P, v->a) : -1;
}

/* The rank that verifies the set of document a (a here), or -1 when a is
 * in no set: its pairs are not verified. */
static int set_rank_of(const run_t *r, const void *x, const ndd_verdict_t *v)
{
    const uint32_t *dest_of = x;
    uint64_t i = v->a - r->first;
    return v->a >= r->first && i < r->d.n && r->in_set[i] ? (int)dest_of[i] : -1;
}

int ndd_index_verdicts_route(run_t *r, const uint32_t *dest_of)
{
    ndd_ixrun_t *ix = r->ix;
    int rc = NDD_OK;
    if (!ix || !ix->cacheable)
        return NDD_OK;
    /* a pair is verified at its set's rank, and both its documents are in
     * that set: the rank of a's set is the rank that looks the verdict up */
    if (r->P > 1 && !(rc = route_step(r, &ix->cache, home_of, NULL)))
        rc = route_step(r, &ix->cache, set_rank_of, dest_of);
    if (ix->own_loaded && r->P > 1 && !rc && !(rc = route_step(r, &ix->own, home_of, NULL)))
        rc = route_step(r, &ix->own, set_rank_of, dest_of);
    if (!rc) {
        ndd_vcache_sort(&ix->cache);
        ndd_vcache_sort(&ix->own);
    }
    return rc;
}

int ndd_index_pair(run_t *r, ndd_verifier_t *vf, uint32_t i, uint32_t j, uint64_t ga, uint64_t gb, uint64_t ha,
                   uint64_t hb, ndd_vres_t *v)
{
    ndd_ixrun_t *ix = r->ix;
    if (!ix->cacheable)
        return ndd_verifier_pair(vf, i, j, v);
    ndd_verdict_t x;
    memset(&x, 0, sizeof x);
    x.a = ga;
    x.b = gb;
    x.ha = ha;
    x.hb = hb;
    const ndd_verdict_t *hit = ndd_vcache_find(&ix->cache, x.a, x.b, x.ha, x.hb);
    if (hit) {
        *v = hit->v;
        r->c.ix_verdicts_cached++;
        return NDD_OK;
    }
    /* a resumed batch: its own verdicts from before it was stopped count as
     * computed here (they are), and go into its verdict file again */
    hit = ix->own.n ? ndd_vcache_find(&ix->own, x.a, x.b, x.ha, x.hb) : NULL;
    ix->own_taken += hit != NULL;
    int rc = hit ? (*v = hit->v, NDD_OK) : ndd_verifier_pair(vf, i, j, v);
    if (rc)
        return rc;
    x.v = *v;
    r->c.ix_verdicts_new++;
    return ndd_vcache_add(&ix->fresh, &x);
}

int ndd_index_skips_verify_ckpt(const run_t *r) { return r->ix && r->ix->cacheable; }

int ndd_index_own_load(run_t *r, const char *wd, int nparts)
{
    ndd_ixrun_t *ix = r->ix;
    char path[IX_PATH + 64], marker[IX_PATH + 64];
    int rc = NDD_OK;
    /* dealt out like the cache's files, routed with it (ndd_index_verdicts_route) */
    for (int p = r->me; p < nparts && !rc; p += r->P) {
        part_file(path, marker, wd, "verify/verdicts", p);
        rc = ndd_vcache_load(path, marker, &ix->own);
    }
    rc = ndd_comm_agree(r->comm, rc);
    if (rc == NDD_ERR_NOMEM)
        return rc;
    if (rc) { /* a cache: unreadable, its pairs are verified again */
        if (r->me == 0)
            ndd_run_log(r, 0, "the verdicts in %s/verify are unreadable (%s): verifying again", wd, ndd_strerror(rc));
        ndd_vcache_free(&ix->own);
        return NDD_OK;
    }
    uint64_t n = ix->own.n;
    if ((rc = ndd_comm_allreduce(r->comm, &n, 1, NDD_TY_U64, NDD_RED_SUM)))
        return rc;
    ix->own_loaded = 1;
    if (r->me == 0)
        ndd_run_log(r, 1, "resuming after verification: the %llu verdicts this batch computed are taken, not verified "
                    "again", (unsigned long long)n);
    return NDD_OK;
}

/* ---- the index's links (incremental postings) ---- */

_Static_assert(sizeof(ndd_link_t) == 24 && offsetof(ndd_link_t, v) == 8 && offsetof(ndd_link_t, support) == 16,
               "ndd_link_t is not three u64");

/* Records of `words` u64 each to the ranks dest() names (what = 0: links
 * to the owners of their pairs, 1: keys to their owners, 2: documents to
 * the ranks that hold them); what arrives is appended to *out (*n records,
 * *cap bytes of room). Collective. */
static int route_words(run_t *r, const uint64_t *v, size_t n, size_t words, int what, uint64_t **out, size_t *nout,
                       size_t *cap)
{
    ndd_buf_t *send = ndd_bufs_new(r->P), *recv = ndd_bufs_new(r->P);
    int rc = send && recv ? NDD_OK : NDD_ERR_NOMEM;
    for (size_t e = 0; e < n && !rc; e++) {
        const uint64_t *x = v + e * words;
        int d = what == 0 ? ndd_link_dest(x[0], x[1], r->P)
                : what == 1 ? (int)(x[0] % (uint64_t)r->P)
                            : ndd_part_owner_of(r->starts, r->P, x[0]);
        rc = ndd_put64s(&send[d], x, words);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_exchange_move(r->comm, send, recv, NULL));
    size_t total = *nout;
    for (int s = 0; s < r->P; s++)
        total += recv[s].len / (8 * words);
    rc = ndd_array_grow((void **)out, cap, (total + 1) * words, sizeof **out);
    for (int s = 0; s < r->P && !rc; s++) {
        size_t m = recv[s].len / (8 * words);
        ndd_load64s(*out + *nout * words, recv[s].data, m * words);
        *nout += m;
        ndd_buf_free(&recv[s]);
    }
    rc = ndd_comm_agree(r->comm, rc);
out:
    ndd_bufs_free(send, r->P);
    ndd_bufs_free(recv, r->P);
    return rc;
}

/* Appends v[0..m) (elem bytes each) to the array *a of *n (room *cap). */
static int append_items(void **a, size_t *n, size_t *cap, const void *v, size_t m, size_t elem)
{
    int rc = ndd_array_grow(a, cap, *n + m + 1, elem);
    if (!rc && m)
        memcpy((char *)*a + *n * elem, v, m * elem);
    *n += rc ? 0 : m;
    return rc;
}

int ndd_index_links_load(run_t *r, ndd_linkstate_t *mine, int *have)
{
    ndd_ixrun_t *ix = r->ix;
    char bdir[IX_PATH], path[IX_PATH + 64], marker[IX_PATH + 64], sub[IX_PATH + 8];
    int nparts = ix->man.nb ? ix->man.b[ix->man.nb - 1].nverdicts : 0, rc = NDD_OK;
    uint64_t ok = 1;
    ndd_linkstate_t got = {0}; /* the parts dealt to this rank, together */
    size_t lcap = 0, dcap = 0, fcap = 0;
    struct stat sb;
    memset(mine, 0, sizeof *mine);
    *have = 0;
    if (!nparts)
        return NDD_OK; /* the first batch: nothing to add to */
    rc = ndd_index_batch_dir(bdir, sizeof bdir, r->cfg->index_dir, ix->man.nb);
    snprintf(sub, sizeof sub, "%s/links", bdir);
    if (!rc && stat(sub, &sb)) /* a batch that kept no links (by an earlier ndd, or with a budget's rounds) */
        ok = 0;
    for (int p = r->me; p < nparts && !rc && ok; p += r->P) { /* part p to rank p % P */
        ndd_linkstate_t st;
        part_file(path, marker, bdir, "links/links", p);
        int lr = ndd_linkstate_load(path, marker, &st, 1);
        if (lr == NDD_ERR_NOMEM) {
            rc = lr;
            break;
        }
        if (lr || st.ndocs != ix->nold) {
            ndd_run_log(r, 0, "--index %s: %s is %s: every posting list is built again", r->cfg->index_dir, path,
                        lr ? ndd_strerror(lr) : "of another size of the index");
            ok = 0;
            break;
        }
        ndd_list_counts_plus(&mine->counts, &st.counts);
        rc = append_items((void **)&got.links, &got.nlinks, &lcap, st.links, st.nlinks, sizeof *st.links);
        if (!rc)
            rc = append_items((void **)&got.dropped, &got.ndropped, &dcap, st.dropped, st.ndropped, 8);
        if (!rc)
            rc = append_items((void **)&got.fol, &got.nfol, &fcap, st.fol, st.nfol, 8);
        ndd_linkstate_free(&st);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(ndd_comm_allreduce(r->comm, &ok, 1, NDD_TY_U64, NDD_RED_MIN));
    if (!ok)
        goto out;
    /* each link to the owner of its pair, each dropped key to its owner, each
     * follower to the rank that holds it; sorted there (the parts are disjoint) */
    lcap = dcap = fcap = 0;
    uint64_t *lw = NULL;
    size_t nl = 0;
    rc = route_words(r, (const uint64_t *)(const void *)got.links, got.nlinks, 3, 0, &lw, &nl, &lcap);
    mine->links = (ndd_link_t *)(void *)lw; /* (three u64 a link: its layout) */
    mine->nlinks = nl;
    NDD_TRY(rc);
    NDD_TRY(route_words(r, got.dropped, got.ndropped, 1, 1, &mine->dropped, &mine->ndropped, &dcap));
    NDD_TRY(route_words(r, got.fol, got.nfol, 1, 2, &mine->fol, &mine->nfol, &fcap));
    mine->nlinks = ndd_sets_links_merge(mine->links, mine->nlinks, 0, NULL);
    mine->ndropped = mine->ndropped ? ndd_u64_sort_unique(mine->dropped, mine->ndropped) : 0;
    mine->nfol = mine->nfol ? ndd_u64_sort_unique(mine->fol, mine->nfol) : 0;
    *have = 1;
out:
    ndd_linkstate_free(&got);
    if (!*have)
        ndd_linkstate_free(mine);
    return rc;
}

int ndd_index_links_clear(run_t *r)
{
    char sub[IX_PATH + 8];
    int rc = NDD_OK;
    if (r->me == 0 && r->wd) {
        snprintf(sub, sizeof sub, "%s/links", r->wd);
        struct stat sb;
        if (!stat(sub, &sb))
            rc = ndd_ckpt_remove(sub);
    }
    return ndd_comm_agree(r->comm, rc);
}

int ndd_index_links_write(run_t *r, const ndd_linkstate_t *s)
{
    char path[IX_PATH + 64], marker[IX_PATH + 64];
    int rc = part_paths(r, r->wd, "links", "links", path, marker);
    if (!rc)
        rc = ndd_linkstate_write(path, marker, s);
    if (rc)
        ndd_run_log(r, 0, "cannot write %s (%s; a full or read-only disk?)", path, ndd_strerror(rc));
    return ndd_comm_agree(r->comm, rc);
}

int ndd_index_verdicts_write(run_t *r, const char *wd)
{
    char path[IX_PATH + 64], marker[IX_PATH + 64];
    if (r->ix->own_loaded) { /* a resumed batch: how many of its own verdicts served */
        uint64_t n = r->ix->own_taken;
        int rc = ndd_comm_allreduce(r->comm, &n, 1, NDD_TY_U64, NDD_RED_SUM);
        if (rc)
            return rc;
        if (r->me == 0)
            ndd_run_log(r, 1, "resumed after verification: %llu pairs took the verdict this batch had computed",
                        (unsigned long long)n);
    }
    part_file(path, marker, wd, "verify/verdicts", r->me);
    int rc = ndd_vcache_write(path, marker, r->ix->fresh.v, r->ix->fresh.n);
    if (rc)
        ndd_run_log(r, 0, "cannot write %s (%s; a full or read-only disk?)", path, ndd_strerror(rc));
    return ndd_comm_agree(r->comm, rc);
}

/* Rank 0: the batch's files from the work directory into tmp (a new
 * batch directory): map/shard-I, verify/verdicts-R, keys/keys-R,
 * tmpl/occ-R and, when the postings stage kept them, links/links-R, with
 * their markers. */
static int copy_batch(const char *wd, const char *tmp, int nshards, int nparts)
{
    char a[IX_PATH + 64], b[IX_PATH + 64], sub[IX_PATH + 16];
    static const char *const ext[2] = {"zst", "done"}, *const subs[5] = {"map", "verify", "keys", "tmpl", "links"};
    static const char *const kinds[5] = {"map/shard", "verify/verdicts", "keys/keys", "tmpl/occ", "links/links"};
    struct stat sb;
    int nsub = 5, rc = NDD_OK;
    for (int p = 0; p < nparts && nsub == 5; p++) { /* links: every rank of the run wrote them, or none */
        snprintf(a, sizeof a, "%s/links/links-%06d.done", wd, p);
        nsub = stat(a, &sb) ? 4 : 5;
    }
    if (mkdir(tmp, 0777))
        return NDD_ERR_IO;
    for (int d = 0; d < nsub && !rc; d++) {
        snprintf(sub, sizeof sub, "%s/%s", tmp, subs[d]);
        if (mkdir(sub, 0777))
            rc = NDD_ERR_IO;
    }
    for (int i = 0; i < nshards + (nsub - 1) * nparts && !rc; i++)
        for (int e = 0; e < 2 && !rc; e++) {
            int kind = i < nshards ? 0 : 1 + (i - nshards) / nparts;
            int idx = kind == 0 ? i : (i - nshards) % nparts;
            snprintf(a, sizeof a, "%s/%s-%06d.%s", wd, kinds[kind], idx, ext[e]);
            snprintf(b, sizeof b, "%s/%s-%06d.%s", tmp, kinds[kind], idx, ext[e]);
            rc = ndd_index_copy_file(a, b);
        }
    for (int d = 0; d < nsub && !rc; d++) { /* the new names are durable before the rename */
        snprintf(sub, sizeof sub, "%s/%s", tmp, subs[d]);
        rc = ndd_index_fsync_dir(sub);
    }
    return rc;
}

/* Rank 0: lands the batch: DIR/batch-NNNN (through a temporary name),
 * then DIR/INDEX, each replaced atomically. */
static int land(run_t *r, const char *wd, int nshards, size_t nin)
{
    ndd_ixrun_t *ix = r->ix;
    const char *dir = r->cfg->index_dir;
    char bdir[IX_PATH], tmp[IX_PATH + 8];
    int nparts = 0;
    uint64_t rounds;
    const char **pins = calloc(ix->npins ? ix->npins : 1, sizeof *pins);
    int rc = pins ? NDD_OK : NDD_ERR_NOMEM;
    if (!rc)
        rc = ndd_ckpt_verify_done_read(wd, &nparts, &rounds);
    if (!rc)
        rc = ndd_index_batch_dir(bdir, sizeof bdir, dir, ix->man.nb + 1);
    snprintf(tmp, sizeof tmp, "%s.tmp", bdir);
    if (!rc) { /* the remains of a batch that did not land (DIR itself: made by lock_index) */
        ndd_ckpt_remove(tmp);
        ndd_ckpt_remove(bdir);
        rc = copy_batch(wd, tmp, nshards, nparts);
    }
    if (!rc && (ndd_index_fsync_dir(tmp) || rename(tmp, bdir) || ndd_index_fsync_dir(dir)))
        rc = NDD_ERR_IO;
    for (size_t i = 0; i < ix->npins && !rc; i++)
        pins[i] = ix->pins[i].data;
    if (!rc)
        rc = ndd_index_add(&ix->man, r->starts[r->P] - ix->nold, nin, nshards, nparts, pins, ix->npins);
    if (!rc && !(rc = ndd_index_write(dir, &ix->man)) && ndd_index_fsync_dir(dir))
        rc = NDD_ERR_IO;
    free(pins);
    if (rc)
        ndd_run_log(r, 0, "--index %s: the batch did not land (%s; the index is as before)", dir, ndd_strerror(rc));
    char prev[IX_PATH + 8];
    if (!rc && ix->man.nb >= 2 && !ndd_index_batch_dir(prev, IX_PATH, dir, ix->man.nb - 1)) {
        /* only the last batch's links are read: the one before's go (a
         * removal cut short leaves files no batch reads) */
        strcat(prev, "/links");
        ndd_ckpt_remove(prev);
    }
    return rc;
}

int ndd_index_land(run_t *r, const char *wd, int nshards, size_t nin, ndd_run_summary_t *s)
{
    int rc = r->me == 0 ? land(r, wd, nshards, nin) : NDD_OK;
    rc = ndd_comm_agree(r->comm, rc);
    s->index_batch = r->me == 0 ? r->ix->man.nb : r->ix->man.nb + 1; /* (rank 0 added it) */
    s->index_docs_new = r->starts[r->P] - r->ix->nold;
    if (!rc && r->me == 0)
        ndd_run_log(r, 1, "index %s: batch %llu landed (%llu new documents, %llu in the index)", r->cfg->index_dir,
                    (unsigned long long)s->index_batch, (unsigned long long)s->index_docs_new,
                    (unsigned long long)r->starts[r->P]);
    return rc;
}

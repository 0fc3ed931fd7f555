/* run_main.c - ndd run from start to end: the work directory and its
 * checkpoints, the map stage (or its resumption on any rank count), the
 * reduce stages up to verification (checkpointed as one step), the outputs.
 * One document's path: run_read.c (map) -> run_sets.c (postings, sets) ->
 * run_verify.c (placement, texts, verification) -> run_output.c (files).
 *
 * Global document numbers: ranks read contiguous byte ranges of the input
 * list in order, so an exclusive scan of the per-rank document counts
 * numbers documents in (file_index, offset) order whatever the rank count.
 * Every output is ordered by these numbers. */
#include "run_internal.h"
#include "ndd_ckpt.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

void ndd_run_cfg_default(ndd_run_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    c->format = NDD_FMT_AUTO;
    c->url_exclude = NDD_DEFAULT_URL_EXCLUDE;
    ndd_text_opts_default(&c->text);
    c->text.boilerplate = NDD_SIG_DEFAULT_BOILERPLATE; /* one text for signatures and verification */
    c->templates = 1;
    c->exact = 1;
    ndd_tmpl_params_default(&c->tmpl);
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
    c->formula = 1;
    c->subst = 1;
    c->tau = 0.7;
    c->keep = NDD_KEEP_LONGEST;
    ndd_method_params_default(&c->mparams);
    ndd_lsi_params_default(&c->lsi);
}

void ndd_run_log(const run_t *r, int level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (!r->cfg->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->cfg->log(r->cfg->log_user, r->me, level, msg);
}

void ndd_run_state_free(run_t *r)
{
    ndd_docs_free(&r->d);
    ndd_buf_free(&r->rejects);
    for (int t = 0; t < 3; t++)
        ndd_buf_free(&r->rows[t]);
    free(r->starts);
    free(r->in_set);
    free(r->removed);
    free(r->label);
    free(r->size_of);
    free(r->exact_rep);
    free(r->dropped);
    free(r->links.v);
    free(r->owned);
    for (size_t k = 0; k < r->ndfs; k++)
        ndd_df_free(r->dfs[k]);
    ndd_method_ctx_free(r->mctx);
    ndd_lsi_state_free(r);
    if (r->texts_spilled)
        ndd_spill_close(&r->text_spill);
    ndd_index_state_free(r);
    memset(r, 0, sizeof *r);
}

static void manifest_of(const ndd_run_cfg_t *cfg, int nshards, ndd_manifest_t *m)
{
    memset(m, 0, sizeof *m);
    m->nshards = nshards;
    m->format = (int)cfg->format;
    m->max_doc_bytes = cfg->text.max_bytes;
    m->boilerplate = cfg->text.boilerplate;
    m->soft_wrap = cfg->text.soft_wrap;
    m->keep_title = cfg->text.keep_title;
    m->templates = cfg->templates;
    m->sig_m = cfg->sig.m;
    m->sig_n = cfg->sig.n;
    m->sig_k = cfg->sig.k;
    m->min_sentence = cfg->sig.min_sentence;
    m->candidates = cfg->candidates;
    m->inputs = cfg->inputs;
    m->ninputs = cfg->ninputs;
}

/* The map-stage options kept as "opt KEY VALUE" lines of the manifest. */
typedef struct {
    const char *key;
    size_t off; /* of a const char * in ndd_run_cfg_t */
} run_sopt_t;
static const run_sopt_t run_sopts[] = {
    {"field.id", offsetof(ndd_run_cfg_t, fields.id)},       {"field.text", offsetof(ndd_run_cfg_t, fields.text)},
    {"field.html", offsetof(ndd_run_cfg_t, fields.html)},   {"field.url", offsetof(ndd_run_cfg_t, fields.url)},
    {"field.date", offsetof(ndd_run_cfg_t, fields.date)},
    {"content_types", offsetof(ndd_run_cfg_t, content_types)}, {"url_include", offsetof(ndd_run_cfg_t, url_include)},
    {"url_exclude", offsetof(ndd_run_cfg_t, url_exclude)},  {"command", offsetof(ndd_run_cfg_t, command)},
};
#define RUN_NSOPTS (sizeof run_sopts / sizeof run_sopts[0])

static const char **sopt_at(const ndd_run_cfg_t *cfg, size_t i)
{
    return (const char **)((char *)(uintptr_t)cfg + run_sopts[i].off);
}

/* "KEY VALUE" lines of the options set (lines[] freed by the caller). */
static int opts_lines(const ndd_run_cfg_t *cfg, ndd_buf_t *lines, const char **v, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < RUN_NSOPTS; i++) {
        const char *val = *sopt_at(cfg, i);
        if (!val)
            continue;
        ndd_buf_clear(&lines[*n]);
        ndd_buf_puts(&lines[*n], run_sopts[i].key);
        ndd_buf_putc(&lines[*n], ' ');
        if (ndd_buf_puts(&lines[*n], val))
            return NDD_ERR_NOMEM;
        v[*n] = lines[*n].data;
        (*n)++;
    }
    return NDD_OK;
}

/* The options of the "opt" lines back into cfg (pointers into the manifest). */
static void opts_from_manifest(ndd_run_cfg_t *cfg, const ndd_manifest_t *m)
{
    for (size_t i = 0; i < RUN_NSOPTS; i++)
        *sopt_at(cfg, i) = ndd_ckpt_manifest_opt(m, run_sopts[i].key);
}

/* The options a resumed run takes from the manifest. */
static void cfg_from_manifest(ndd_run_cfg_t *cfg, const ndd_manifest_t *m)
{
    cfg->format = (ndd_format_t)m->format;
    cfg->text.max_bytes = m->max_doc_bytes;
    cfg->text.boilerplate = m->boilerplate;
    cfg->text.soft_wrap = m->soft_wrap;
    cfg->text.keep_title = m->keep_title;
    cfg->templates = m->templates;
    cfg->sig.m = m->sig_m;
    cfg->sig.n = m->sig_n;
    cfg->sig.k = m->sig_k;
    cfg->sig.min_sentence = m->min_sentence;
    cfg->candidates = m->candidates;
    cfg->inputs = m->inputs;
    cfg->ninputs = m->ninputs;
    opts_from_manifest(cfg, m);
}

/* The manifest with one pin line per expanded input (ndd_input_pin). Local. */
static int write_manifest(const ndd_run_cfg_t *cfg, int nshards, const char *wd, const ndd_input_t *in, size_t nin)
{
    ndd_manifest_t m;
    ndd_buf_t *lines = calloc(nin ? nin : 1, sizeof *lines);
    const char **pins = calloc(nin ? nin : 1, sizeof *pins);
    int rc = !lines || !pins ? NDD_ERR_NOMEM : NDD_OK;
    for (size_t i = 0; i < nin && !rc; i++)
        if (!(rc = ndd_input_pin(&in[i], &lines[i])))
            pins[i] = lines[i].data;
    ndd_buf_t olines[RUN_NSOPTS];
    const char *ov[RUN_NSOPTS];
    memset(olines, 0, sizeof olines);
    manifest_of(cfg, nshards, &m);
    m.pins = pins;
    m.npins = nin;
    if (!rc)
        rc = opts_lines(cfg, olines, ov, &m.nopts);
    m.opts = ov;
    if (!rc)
        rc = ndd_ckpt_manifest_write(wd, &m);
    for (size_t i = 0; lines && i < nin; i++)
        ndd_buf_free(&lines[i]);
    for (size_t i = 0; i < RUN_NSOPTS; i++)
        ndd_buf_free(&olines[i]);
    free(lines);
    free(pins);
    return rc;
}

/* --resume: every input as the interrupted run read it (same list, sizes,
 * times, head and tail), else a message naming the first change. Local. */
static int check_pins(run_t *r, const char *wd, const ndd_manifest_t *man, const ndd_input_t *in, size_t nin)
{
    ndd_buf_t line = NDD_BUF_INIT;
    int rc = NDD_OK;
    if (man->npins != nin) {
        ndd_run_log(r, 0, "cannot resume from %s: the inputs now expand to %zu files, the interrupted run read %zu "
                    "(files added or removed); start the run again", wd, nin, man->npins);
        return NDD_ERR_INVAL;
    }
    for (size_t i = 0; i < nin && !rc; i++) {
        if ((rc = ndd_input_pin(&in[i], &line)))
            break;
        if (strcmp(line.data, man->pins[i])) {
            ndd_run_log(r, 0, "cannot resume from %s: input %s changed since the interrupted run (was: %s; now: %s; "
                        "size, modification time, first and last 64 KiB are compared); start the run again",
                        wd, in[i].name, man->pins[i], line.data);
            rc = NDD_ERR_INVAL;
        }
    }
    ndd_buf_free(&line);
    return rc;
}

/* 'ndd run --map-task I --map-tasks N --work-dir W': one map task on one
 * rank: reads exactly what rank I of N would read, writes W/map/shard-I. A
 * task whose shard is already complete does nothing. */
static int run_map_task(run_t *r, ndd_run_summary_t *sum)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    ndd_input_t *in = NULL;
    size_t nin = 0;
    const char *bad = NULL;
    uint64_t n;
    int rc;
    if (ndd_ckpt_shard_check(cfg->work_dir, cfg->map_task, &n) == NDD_OK) {
        sum->map_already_done = 1;
        sum->docs = n;
        return NDD_OK;
    }
    if ((rc = ndd_input_expand(cfg->inputs, cfg->ninputs, cfg->format, &in, &nin, &bad)))
        ndd_run_log(r, 0, "cannot read input %s: %s", bad ? bad : "?", ndd_strerror(rc));
    else if ((rc = write_manifest(cfg, cfg->map_tasks, cfg->work_dir, in, nin)))
        ndd_run_log(r, 0, "cannot write %s/manifest: %s", cfg->work_dir, ndd_strerror(rc));
    else if ((rc = ndd_stage_read(r, in, nin, cfg->map_task, cfg->map_tasks, 0)))
        ndd_run_log(r, 0, "reading failed: %s", ndd_strerror(rc));
    else if ((rc = ndd_ckpt_shard_write(cfg->work_dir, cfg->map_task, &r->d, &r->rejects, &r->c)))
        ndd_run_log(r, 0, "cannot write the map shard in %s/map (%s; a full or read-only disk?)", cfg->work_dir,
                    ndd_strerror(rc));
    sum->docs = r->d.n;
    sum->rejected = r->c.rejected;
    ndd_input_free(in, nin);
    return rc;
}

/* Resume: recompute missing map shards (task i on rank i % P), then load
 * this rank's contiguous range of documents (and, for rejects and read
 * counters, a contiguous range of shards). */
static int resume_map(run_t *r, const ndd_input_t *in, size_t nin, const char *wd, int nshards)
{
    int rc = NDD_OK;
    for (int i = r->me; i < nshards && !rc; i += r->P) {
        uint64_t n;
        if (ndd_ckpt_shard_check(wd, i, &n) == NDD_OK)
            continue;
        run_t T = {.comm = r->comm, .cfg = r->cfg, .P = r->P, .me = r->me};
        ndd_run_log(r, 1, "redoing map shard %d of %d", i, nshards);
        rc = ndd_stage_read(&T, in, nin, i, nshards, 0);
        if (!rc)
            rc = ndd_ckpt_shard_write(wd, i, &T.d, &T.rejects, &T.c);
        ndd_run_state_free(&T);
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    rc = ndd_shards_load(r, &wd, &nshards, 1);
out:
    return rc;
}

typedef struct {
    char wd[4096];
    int default_wd, nshards;
    int auto_resume;         /* resuming the default work directory of the same command */
    ndd_manifest_t manifest; /* of a resumed run */
    ndd_input_t *in;
    size_t nin;
    char **spool;            /* per input argument: the file standard input or a pipe was copied to, or NULL */
    const char **paths;      /* the arguments as read: spooled ones replaced */
} job_t;

/* 1 when input argument a is read as a stream: "-" (standard input),
 * /dev/stdin and other descriptor paths (whatever they are on rank 0: a
 * redirected file too), a pipe or a character device. */
static int is_stream(const char *a)
{
    struct stat st;
    if (!strcmp(a, "-") || !strcmp(a, "/dev/stdin") || !strncmp(a, "/dev/fd/", 8) || !strncmp(a, "/proc/self/fd/", 14))
        return 1; /* this process's descriptors: under mpirun only rank 0 has the user's */
    return stat(a, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
}

/* 1 when work directory wd is outdir/.ndd-work (the same directory). */
static int same_dir_default(const char *wd, const char *outdir)
{
    char a[4200], b[PATH_MAX], c[PATH_MAX];
    snprintf(a, sizeof a, "%s/.ndd-work", outdir);
    return realpath(a, b) && realpath(wd, c) && !strcmp(b, c);
}

/* Copies the stream input a to the file path. Local (rank 0). */
static int spool_copy(run_t *r, const char *a, const char *path)
{
    char buf[1 << 16];
    int in = !strcmp(a, "-") ? 0 : open(a, O_RDONLY | O_CLOEXEC);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int rc = NDD_OK;
    if (in < 0 || out < 0) {
        ndd_run_log(r, 0, "cannot %s %s: %s", in < 0 ? "open input" : "create", in < 0 ? a : path, strerror(errno));
        rc = NDD_ERR_IO;
    }
    while (!rc) {
        ssize_t got = read(in, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            ndd_run_log(r, 0, "cannot read %s: %s", !strcmp(a, "-") ? "standard input" : a, strerror(errno));
            rc = NDD_ERR_IO;
        }
        if (got <= 0)
            break;
        for (ssize_t off = 0; off < got && !rc;) {
            ssize_t w = write(out, buf + off, (size_t)(got - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                ndd_run_log(r, 0, "cannot write %s (a full disk?): %s", path, strerror(errno));
                rc = NDD_ERR_IO;
            }
            off += w > 0 ? w : 0;
        }
    }
    if (in > 0)
        close(in);
    if (out >= 0 && close(out) && !rc) {
        ndd_run_log(r, 0, "cannot write %s (a full disk?): %s", path, strerror(errno));
        rc = NDD_ERR_IO;
    }
    return rc;
}

/* Standard input ("-") and pipes cannot be read twice or by several ranks:
 * rank 0 copies each to WORK/stdin-I (I: the argument's position) and
 * every rank reads that file; a resumed run reads the copy. */
static int spool_inputs(run_t *r, const ndd_run_cfg_t *cfg, job_t *j)
{
    int rc = NDD_OK;
    uint64_t *stream = NULL;
    j->spool = calloc(cfg->ninputs ? cfg->ninputs : 1, sizeof *j->spool);
    j->paths = calloc(cfg->ninputs ? cfg->ninputs : 1, sizeof *j->paths);
    NDD_TRY(ndd_comm_agree(r->comm, j->spool && j->paths ? NDD_OK : NDD_ERR_NOMEM));
    /* rank 0 decides which inputs are streams (on other ranks /dev/stdin may be something else) */
    stream = calloc(cfg->ninputs ? cfg->ninputs : 1, sizeof *stream);
    NDD_TRY(ndd_comm_agree(r->comm, stream ? NDD_OK : NDD_ERR_NOMEM));
    for (size_t i = 0; i < cfg->ninputs && r->me == 0; i++) {
        char path[4200];
        struct stat st;
        snprintf(path, sizeof path, "%s/stdin-%zu", j->wd, i);
        int have = stat(path, &st) == 0;
        stream[i] = cfg->resume ? have || !strcmp(cfg->inputs[i], "-") : is_stream(cfg->inputs[i]);
    }
    rc = cfg->ninputs ? ndd_comm_allreduce(r->comm, stream, cfg->ninputs, NDD_TY_U64, NDD_RED_MAX) : NDD_OK;
    for (size_t i = 0; i < cfg->ninputs && !rc; i++) {
        j->paths[i] = cfg->inputs[i];
        char path[4200];
        snprintf(path, sizeof path, "%s/stdin-%zu", j->wd, i);
        struct stat st;
        int have = stat(path, &st) == 0;
        if (!stream[i])
            continue;
        if (!(j->spool[i] = strdup(path)))
            rc = NDD_ERR_NOMEM;
        else
            j->paths[i] = j->spool[i];
        if (!rc && cfg->resume && !have) {
            if (r->me == 0)
                ndd_run_log(r, 0, "cannot resume: %s read standard input, and its copy %s is gone", j->wd, path);
            rc = NDD_ERR_INVAL;
        } else if (!rc && !cfg->resume && r->me == 0) {
            if (mkdir(j->wd, 0777) && errno != EEXIST) {
                ndd_run_log(r, 0, "cannot create the work directory %s: %s", j->wd, strerror(errno));
                rc = NDD_ERR_IO;
            } else {
                rc = spool_copy(r, cfg->inputs[i], path);
            }
        }
    }
    rc = ndd_comm_agree(r->comm, rc);
out:
    free(stream);
    return rc;
}

static void job_free(job_t *j, size_t ninputs)
{
    for (size_t i = 0; j->spool && i < ninputs; i++)
        free(j->spool[i]);
    free(j->spool);
    free((void *)j->paths);
}

/* The work directory: given, resumed, or a default one removed on success;
 * the output directory; the inputs. */
static int open_job(run_t *r, ndd_run_cfg_t *cfg, job_t *j)
{
    const char *bad = NULL;
    int rc = NDD_OK;
    j->nshards = r->P;
    if (cfg->resume || cfg->work_dir)
        snprintf(j->wd, sizeof j->wd, "%s", cfg->resume ? cfg->resume : cfg->work_dir);
    else {
        snprintf(j->wd, sizeof j->wd, "%s/.ndd-work", cfg->outdir);
        j->default_wd = 1;
    }
    if (cfg->resume && cfg->outdir && same_dir_default(cfg->resume, cfg->outdir))
        j->default_wd = 1; /* --resume OUT/.ndd-work: removed after success like any default work directory */
    if (!cfg->resume && j->default_wd && cfg->command && ndd_ckpt_exists(j->wd)) {
        /* an interrupted run left its work directory: the same command? (all ranks read it) */
        ndd_manifest_t m;
        memset(&m, 0, sizeof m);
        int stream = 0;
        uint64_t yes = 0;
        for (size_t i = 0; i < cfg->ninputs; i++)
            stream |= is_stream(cfg->inputs[i]); /* standard input is new data each time */
        if (r->me == 0 && !stream && ndd_ckpt_manifest_read(j->wd, &m) == NDD_OK) {
            ndd_run_cfg_t old = *cfg;
            opts_from_manifest(&old, &m);
            yes = old.command && !strcmp(old.command, cfg->command);
            ndd_ckpt_manifest_free(&m);
        }
        NDD_TRY(ndd_comm_allreduce(r->comm, &yes, 1, NDD_TY_U64, NDD_RED_MAX)); /* rank 0's decision */
        j->auto_resume = yes != 0;
        if (j->auto_resume) {
            cfg->resume = j->wd;
            if (r->me == 0)
                ndd_run_log(r, 1, "resuming the interrupted run of this command in %s (its finished stages are "
                            "kept; the inputs are checked)", j->wd);
        }
    }
    if (cfg->resume) {
        if ((rc = ndd_ckpt_manifest_read(j->wd, &j->manifest)) == NDD_ERR_VERSION && r->me == 0)
            ndd_run_log(r, 0, "cannot resume from %s: its checkpoints were written by another ndd version "
                        "(this one reads format %d); start the run again", j->wd, NDD_CKPT_VERSION);
        else if (rc && r->me == 0)
            ndd_run_log(r, 0, "cannot resume from %s: no readable manifest (%s)", j->wd, ndd_strerror(rc));
        if (!rc) {
            cfg_from_manifest(cfg, &j->manifest);
            j->nshards = j->manifest.nshards;
        }
    } else if (!j->default_wd && ndd_ckpt_exists(j->wd)) {
        if (r->me == 0)
            ndd_run_log(r, 0, "work directory %s holds an earlier run: resume it with --resume %s, or remove it",
                        j->wd, j->wd);
        rc = NDD_ERR_INVAL;
    }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    if (r->me == 0 && cfg->outdir && mkdir(cfg->outdir, 0777) && errno != EEXIST) {
        ndd_run_log(r, 0, "cannot create output directory %s: %s", cfg->outdir, strerror(errno));
        rc = NDD_ERR_IO;
    }
    if (!rc && r->me == 0 && !cfg->resume && j->default_wd)
        ndd_ckpt_remove(j->wd); /* a stale default work dir of a failed run */
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    NDD_TRY(spool_inputs(r, cfg, j));
    rc = ndd_input_expand(j->paths, cfg->ninputs, cfg->format, &j->in, &j->nin, &bad);
    if (rc && r->me == 0)
        ndd_run_log(r, 0, "cannot read input %s: %s", bad ? bad : "?",
                    rc == NDD_ERR_IO && errno ? strerror(errno) : ndd_strerror(rc));
    for (size_t k = 0; !rc && k < j->nin; k++) /* a spooled input keeps its name ("-") */
        for (size_t i = 0; i < cfg->ninputs; i++)
            if (j->spool[i] && !strcmp(j->in[k].name, j->spool[i])) {
                char *name = strdup(cfg->inputs[i]);
                if (!name) {
                    rc = NDD_ERR_NOMEM;
                    break;
                }
                free(j->in[k].name);
                j->in[k].name = name;
            }
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    if (r->me == 0 && !cfg->resume) {
        if ((rc = write_manifest(cfg, j->nshards, j->wd, j->in, j->nin)))
            ndd_run_log(r, 0, "cannot write the work directory %s: %s", j->wd, ndd_strerror(rc));
    } else if (r->me == 0) {
        rc = check_pins(r, j->wd, &j->manifest, j->in, j->nin);
    }
    rc = ndd_comm_agree(r->comm, rc);
    if (rc == NDD_ERR_INVAL && j->auto_resume) { /* the inputs changed: this run starts again */
        if (r->me == 0) {
            ndd_run_log(r, 1, "the inputs changed since the interrupted run: starting again");
            ndd_ckpt_remove(j->wd);
            if ((rc = write_manifest(cfg, r->P, j->wd, j->in, j->nin)) != NDD_OK)
                ndd_run_log(r, 0, "cannot write the work directory %s: %s", j->wd, ndd_strerror(rc));
        } else {
            rc = NDD_OK;
        }
        cfg->resume = NULL;
        j->auto_resume = 0;
        j->nshards = r->P;
        rc = ndd_comm_agree(r->comm, rc);
    }
out:
    return rc;
}

/* The map stage, checkpointed per shard, and the global document numbers. */
static int map_stage(run_t *r, job_t *j)
{
    int rc;
    double t0 = ndd_now();
    if (r->cfg->resume) {
        NDD_TRY(resume_map(r, j->in, j->nin, j->wd, j->nshards));
        r->t[NDD_ST_READ] = ndd_now() - t0;
    } else {
        if ((rc = ndd_stage_read(r, j->in, j->nin, r->me, r->P, 1)))
            ndd_run_log(r, 0, "reading failed: %s", ndd_strerror(rc));
        double tc = ndd_now();
        if (!rc && (rc = ndd_ckpt_shard_write(j->wd, r->me, &r->d, &r->rejects, &r->c)))
            ndd_run_log(r, 0, "cannot write the map shard in %s/map (%s; a full or read-only disk?)", j->wd,
                        ndd_strerror(rc));
        r->t[NDD_ST_CKPT] += ndd_now() - tc;
        NDD_TRY(ndd_comm_agree(r->comm, rc));
    }
    if (r->ix) /* --index: this rank's range of all batches' documents (run_index.c) */
        NDD_TRY(ndd_index_load_map(r, j->wd, j->nshards));
    ndd_stage_rss(r, NDD_ST_READ); /* reading (or its checkpoints read back) and the shard checkpoint */
    NDD_TRY(ndd_comm_global_ranges(r->comm, r->d.n, &r->first, &r->starts));
    if (r->starts[r->P] == 0 && !r->cfg->allow_empty) {
        uint64_t nrej = r->c.rejected;
        NDD_TRY(ndd_comm_allreduce(r->comm, &nrej, 1, NDD_TY_U64, NDD_RED_SUM));
        if (r->me == 0) { /* rank 0 read the first file: its first reject row (file, record, offset, reason, ...) */
            char first[512] = "";
            const char *f[4] = {NULL, NULL, NULL, NULL}, *p = r->rejects.data;
            int len[4] = {0, 0, 0, 0};
            for (int k = 0; p && k < 4; k++) {
                size_t n = strcspn(p, "\t\n");
                f[k] = p;
                len[k] = n > 200 ? 200 : (int)n;
                p = p[n] == '\t' ? p + n + 1 : NULL;
            }
            if (f[3])
                snprintf(first, sizeof first, " (the first: %.*s, record %.*s at byte %.*s: %.*s)", len[0], f[0], len[1],
                         f[1], len[2], f[2], len[3], f[3]);
            ndd_run_log(r, 0, "no document read from the inputs: %llu record%s rejected%s; --allow-empty accepts an "
                        "empty run and writes rejects.tsv", (unsigned long long)nrej, nrej == 1 ? "" : "s", first);
        }
        rc = NDD_ERR_EMPTY;
        goto out;
    }
    r->removed = calloc(r->d.n ? r->d.n : 1, 1);
    rc = ndd_comm_agree(r->comm, r->removed ? NDD_OK : NDD_ERR_NOMEM);
out:
    return rc;
}

/* The reduce stages up to verification, checkpointed as one step (or
 * reloaded from a finished one). */
static int reduce_stage(run_t *r, job_t *j)
{
    int nparts = 0, rc = NDD_OK;
    int done = r->cfg->resume && ndd_ckpt_verify_done_read(j->wd, &nparts, &r->cc_rounds) == NDD_OK;
    if (done && ndd_index_skips_verify_ckpt(r)) { /* the stages again, every verdict from the batch's own files */
        r->cc_rounds = 0;
        NDD_TRY(ndd_index_own_load(r, j->wd, nparts));
    } else if (done) {
        for (int p = 0; p < nparts && !rc; p++)
            rc = ndd_ckpt_verify_load(j->wd, p, &r->c, &r->top, r->rows, r->first, r->first + r->d.n, r->me == 0);
        if ((rc = ndd_comm_agree(r->comm, rc)) == NDD_OK || rc == NDD_ERR_NOMEM)
            return rc;
        /* a damaged verification checkpoint is redone, like a damaged map shard */
        if (r->me == 0)
            ndd_run_log(r, 0, "the verification checkpoint in %s/verify is unreadable (%s): redoing the stages after "
                        "the map stage", j->wd, ndd_strerror(rc));
        ndd_counters_keep_stage(&r->c, NDD_CST_READ);
        memset(&r->top, 0, sizeof r->top);
        for (int t = 0; t < 3; t++)
            ndd_buf_clear(&r->rows[t]);
        r->cc_rounds = 0;
        rc = NDD_OK;
    }
    double t0 = ndd_now(), tc;
    NDD_TRY(ndd_stage_dup_ids(r));
    NDD_TRY(ndd_stage_templates(r));
    tc = ndd_now();
    if (r->ix) /* --index: the keys this batch signed, the occurrences it made, for the index */
        NDD_TRY(ndd_index_keys_write(r, j->wd));
    if (r->ix)
        NDD_TRY(ndd_index_occ_write(r, j->wd));
    r->t[NDD_ST_CKPT] += ndd_now() - tc;
    ndd_prog_stage_done(r, "templates", t0);
    t0 = ndd_now();
    NDD_TRY(ndd_stage_exact(r));
    ndd_prog_stage_done(r, "exact", t0);
    t0 = ndd_now();
    NDD_TRY(ndd_stage_baselines(r));
    NDD_TRY(ndd_stage_lsi(r));
    NDD_TRY(ndd_stage_postings(r));
    ndd_prog_stage_done(r, "postings", t0);
    t0 = ndd_now();
    NDD_TRY(ndd_stage_components(r));
    NDD_TRY(ndd_stage_exact_attach(r));
    ndd_prog_stage_done(r, "sets", t0);
    if (r->ix) /* --index: the verdicts of earlier batches */
        NDD_TRY(ndd_index_verdicts_load(r));
    NDD_TRY(ndd_stage_verify(r));
    tc = ndd_now();
    if (r->ix)
        NDD_TRY(ndd_index_verdicts_write(r, j->wd));
    /* (with --index the verdict files are the checkpoint: ndd_index_skips_verify_ckpt) */
    rc = ndd_index_skips_verify_ckpt(r) ? NDD_OK : ndd_ckpt_verify_write(j->wd, r->me, &r->c, &r->top, r->rows);
    if (rc)
        ndd_run_log(r, 0, "cannot write the verification checkpoint in %s/verify (%s; a full or read-only disk?)",
                    j->wd, ndd_strerror(rc));
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    if (r->me == 0)
        rc = ndd_ckpt_verify_done_write(j->wd, r->P, r->cc_rounds);
    rc = ndd_comm_agree(r->comm, rc);
    r->t[NDD_ST_CKPT] += ndd_now() - tc;
out:
    return rc;
}

int ndd_run(ndd_comm_t *comm, const ndd_run_cfg_t *cfg_in, ndd_run_summary_t *sum)
{
    ndd_run_cfg_t cfg = *cfg_in;
    run_t R = {.comm = comm, .cfg = &cfg, .P = comm->size, .me = comm->rank};
    run_t *r = &R;
    job_t j;
    ndd_run_summary_t s;
    double t_start = ndd_now();
    int rc, remove_wd = 0;
    memset(&j, 0, sizeof j);
    memset(&s, 0, sizeof s);
    if (cfg.map_tasks) {
        rc = comm->size == 1 ? run_map_task(r, &s) : NDD_ERR_INVAL;
        snprintf(s.work_dir, sizeof s.work_dir, "%s", cfg.work_dir);
        goto out;
    }
    r->t_start = t_start;
    NDD_TRY(open_job(r, &cfg, &j));
    r->wd = j.wd;
    NDD_TRY(ndd_budget_init(r));
    r->ninputs_expanded = j.nin;
    if (cfg.index_dir)
        NDD_TRY(ndd_index_open(r, j.in, j.nin));
    snprintf(s.work_dir, sizeof s.work_dir, "%s", j.wd);
    if (cfg.write_dedup) { /* a WARC corpus is written from WARC records only */
        int warc, comp;
        ndd_dedup_kind(cfg.write_dedup, &warc, &comp);
        for (size_t k = 0; warc && k < j.nin && !rc; k++)
            if (!j.in[k].skip && j.in[k].format != NDD_FMT_WARC) {
                if (r->me == 0)
                    ndd_run_log(r, 0, "--write-dedup %s writes WARC records, but input %s is not a WARC file: "
                                "name the corpus .jsonl[.gz|.zst] to write JSONL", cfg.write_dedup, j.in[k].name);
                rc = NDD_ERR_INVAL;
            }
        NDD_TRY(ndd_comm_agree(comm, rc));
    }
    NDD_TRY(map_stage(r, &j));
    NDD_TRY(reduce_stage(r, &j));
    if (cfg.stop_after_verify) {
        s.stopped_after_verify = 1;
        goto out;
    }
    if (cfg.keep == NDD_KEEP_NEWEST || cfg.keep == NDD_KEEP_OLDEST)
        NDD_TRY(ndd_stage_keep_dates(r));
    double t_out = ndd_now();
    NDD_TRY(ndd_stage_outputs(r));
    ndd_prog_stage_done(r, "outputs", t_out);
    if (cfg.write_dedup) {
        double t0 = ndd_now();
        NDD_TRY(ndd_stage_dedup(r, j.in, j.nin));
        r->t[NDD_ST_DEDUP] = ndd_now() - t0;
        ndd_stage_rss(r, NDD_ST_DEDUP);
        ndd_prog_stage_done(r, "dedup", t0);
    }
    r->wd_removed = j.default_wd;
    if (r->me == 0) /* every checkpoint is written: the work directory's largest size */
        (void)ndd_ckpt_disk_use(j.wd, &r->wd_bytes, &r->wd_files);
    NDD_TRY(ndd_stage_stats(r, ndd_now() - t_start, &s));
    if (r->ix) /* --index: the batch lands in the index */
        NDD_TRY(ndd_index_land(r, j.wd, j.nshards, j.nin, &s));
    /* the default work dir: each rank unlinks its share of the shards and
     * parts (their unlinking took rank 0 alone 20-28 ms of the bench-run
     * corpus' 2-rank run while the other waited), then after the last
     * agreement rank 0 the rest */
    remove_wd = j.default_wd;
    if (remove_wd)
        ndd_ckpt_remove_share(j.wd, r->me, r->P, j.nshards);
out:
    if (!cfg.map_tasks)
        rc = ndd_comm_agree(comm, rc);
    if (!rc && remove_wd && r->me == 0)
        ndd_ckpt_remove(j.wd);
    if (!rc && sum)
        *sum = s;
    ndd_run_state_free(r);
    ndd_input_free(j.in, j.nin);
    job_free(&j, cfg.ninputs);
    ndd_ckpt_manifest_free(&j.manifest); /* (store_ NULL when none was read) */
    return rc;
}

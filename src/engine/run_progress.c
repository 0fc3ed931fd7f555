/* run_progress.c - '--progress SECONDS': rank 0 reports, per stage, items
 * done / total, rate and ETA summed over all ranks, without stalling them.
 * Ranks sum (done, total, finished) with the transport's non-blocking sum:
 * a rank starts a round when its timer fires and only tests it (never
 * waits) while it works; a rank that finished its part keeps joining rounds
 * in ndd_prog_end until every rank has finished. All ranks make the same
 * sequence of round starts, as the loop ends on the same summed value
 * everywhere. The report goes to cfg->progress_fn (the core never prints). */
#include "run_internal.h"

#include <string.h>


/* The stages of a job in their order, as the reports name them. */
static const char *const stages[] = {"read", "templates", "exact", "postings", "sets", "verify", "outputs", "dedup"};
#define NSTAGES ((int)(sizeof stages / sizeof stages[0]))

static int stage_no(const char *stage)
{
    for (int k = 0; k < NSTAGES; k++)
        if (!strcmp(stages[k], stage))
            return k + 1;
    return 0;
}

static void report(ndd_prog_t *p, int final)
{
    const ndd_run_cfg_t *cfg = p->r->cfg;
    if (p->r->me != 0 || !cfg->progress_fn)
        return;
    ndd_progress_report_t rep = {p->stage, p->unit, p->recv[0], p->recv[1], p->recv[2], p->r->P, final,
                                 ndd_now() - p->start, stage_no(p->stage), NSTAGES,
                                 p->r->t_start ? ndd_now() - p->r->t_start : 0};
    cfg->progress_fn(cfg->progress_user, &rep);
}

void ndd_prog_stage_done(run_t *r, const char *stage, double t0)
{
    const ndd_run_cfg_t *cfg = r->cfg;
    if (r->me != 0 || !cfg->progress_fn || cfg->progress <= 0)
        return;
    ndd_progress_report_t rep = {stage, "", 0, 0, (uint64_t)r->P, r->P, 1, ndd_now() - t0, stage_no(stage), NSTAGES,
                                 r->t_start ? ndd_now() - r->t_start : 0};
    cfg->progress_fn(cfg->progress_user, &rep);
}

static int start_round(ndd_prog_t *p, int finished)
{
    uint64_t send[3] = {p->done, p->total, (uint64_t)finished};
    p->last = ndd_now();
    return p->r->comm->ops->iallreduce_start(p->r->comm, send, 3, &p->req);
}

ndd_prog_t *ndd_prog_begin(run_t *r, const char *stage, const char *unit, uint64_t my_total)
{
    const ndd_comm_ops_t *ops = r->comm->ops;
    if (r->cfg->progress <= 0 || !ops->iallreduce_start || !ops->iallreduce_test || !ops->iallreduce_wait)
        return NULL; /* the same decision on every rank */
    ndd_prog_t *p = &r->prog; /* no allocation: every rank must take part in the rounds */
    memset(p, 0, sizeof *p);
    p->r = r;
    p->stage = stage;
    p->unit = unit;
    p->total = my_total;
    p->start = p->last = ndd_now();
    return p;
}

void ndd_prog_update(ndd_prog_t *p, uint64_t my_done)
{
    if (!p)
        return;
    p->done = my_done;
    if (p->req && p->r->comm->ops->iallreduce_test(p->req, p->recv) == 1) {
        p->req = NULL;
        report(p, 0);
    }
    if (!p->req && ndd_now() - p->last >= p->r->cfg->progress)
        start_round(p, 0);
}

void ndd_prog_end(ndd_prog_t *p, uint64_t my_done)
{
    if (!p)
        return;
    p->done = my_done;
    for (;;) {
        if (p->req) {
            if (p->r->comm->ops->iallreduce_wait(p->req, p->recv))
                break; /* the transport failed: the next collective reports it */
            p->req = NULL;
            if (p->recv[2] == (uint64_t)p->r->P)
                break;
        }
        if (start_round(p, 1))
            break;
    }
    report(p, 1);
}

/* run_budget.c - the memory budget per rank (--mem-per-rank, issue 14):
 * its default from the machine, and the stages' decisions to keep under it
 * (docs/architecture.md "Memory budget"): this rank's texts go to a spill
 * file before shuffle 1 when the postings would not fit beside them, shuffle
 * 1 runs in rounds of key ranges, links beyond their share become sorted
 * runs on disk (run_sets.c), received texts are read set by set from a spill
 * file (run_verify.c). A budget only changes where data waits, never a
 * result: the outputs are byte-identical for any budget. */
#include "run_internal.h"
#include "ndd_wire.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define DEFAULT_SHARE 0.75 /* of the node's memory, shared by its ranks */

/* How many ranks run on this rank's node (an allgather of host name hashes). */
static int ranks_on_node(run_t *r, int *nlocal)
{
    char host[256] = "";
    uint64_t h;
    ndd_buf_t all = NDD_BUF_INIT;
    (void)gethostname(host, sizeof host - 1);
    h = XXH3_64bits(host, strlen(host));
    char x[8];
    ndd_le64_store(x, h);
    int rc = ndd_comm_allgather(r->comm, x, 8, &all, NULL);
    *nlocal = 0;
    for (size_t k = 0; !rc && k + 8 <= all.len; k += 8)
        *nlocal += ndd_le64_load(all.data + k) == h;
    if (*nlocal < 1)
        *nlocal = 1;
    ndd_buf_free(&all);
    return rc;
}

int ndd_budget_init(run_t *r)
{
    int nlocal = 1, rc;
    NDD_TRY(ranks_on_node(r, &nlocal));
    const char *src = "MemTotal";
    uint64_t node = ndd_mem_limit(&src);
    if (r->cfg->mem_per_rank) {
        r->budget = r->cfg->mem_per_rank;
        snprintf(r->budget_src, sizeof r->budget_src, "--mem-per-rank");
    } else {
        if (!node) /* no /proc: 4 GiB a node */
            node = (uint64_t)4 << 30;
        r->budget = (uint64_t)((double)node * DEFAULT_SHARE / nlocal);
        snprintf(r->budget_src, sizeof r->budget_src, "%.0f %% of %.1f GiB (%s) over %d rank%s on the node",
                 100 * DEFAULT_SHARE, (double)node / (1 << 30), src, nlocal, nlocal == 1 ? "" : "s");
    }
    /* the ranks of a node may see different figures (cgroups): the smallest */
    NDD_TRY(ndd_comm_allreduce(r->comm, &r->budget, 1, NDD_TY_U64, NDD_RED_MIN));
    if (r->me == 0 && r->budget >= (uint64_t)1 << 30)
        ndd_run_log(r, 1, "memory budget %.2f GiB per rank (%s)", (double)r->budget / (1 << 30), r->budget_src);
    else if (r->me == 0)
        ndd_run_log(r, 1, "memory budget %.1f MiB per rank (%s)", (double)r->budget / (1 << 20), r->budget_src);
out:
    return rc;
}

uint64_t ndd_budget_share(const run_t *r, uint64_t process)
{
    /* the in-process engine's ranks share one process: each its share */
    return strcmp(r->comm->ops->name, "local") ? process : process / (uint64_t)r->P;
}

uint64_t ndd_budget_rss(const run_t *r) { return ndd_budget_share(r, ndd_rss_now_kib() * 1024); }

uint64_t ndd_budget_room(const run_t *r)
{
    uint64_t rss = ndd_budget_rss(r), floor = r->budget / 8, room = r->budget > rss ? r->budget - rss : 0;
    return room > floor ? room : floor;
}

/* This rank's texts to a spill file (their offsets stay: text_off[i] is
 * where text i lies in the file), the memory freed. */
static int spill_texts(run_t *r)
{
    ndd_docs_t *d = &r->d;
    int rc = ndd_spill_open(&r->text_spill, r->wd, "texts", r->me);
    if (!rc && d->texts.len)
        rc = ndd_spill_write(&r->text_spill, d->texts.data, d->texts.len, NULL);
    if (rc) {
        ndd_run_log(r, 0, "cannot write the spill file %s: %s", r->text_spill.path, ndd_spill_error(&r->text_spill));
        ndd_spill_close(&r->text_spill);
        return rc;
    }
    r->c.spill_texts += d->texts.len;
    r->texts_spilled = 1;
    ndd_docs_drop_texts(d);
    ndd_mem_release();
    return NDD_OK;
}

int ndd_budget_postings(run_t *r, unsigned *rounds)
{
    uint64_t nk = r->d.nkeys, x[2] = {nk, 0};
    int rc = ndd_comm_allreduce(r->comm, x, 1, NDD_TY_U64, NDD_RED_SUM);
    if (rc)
        return rc;
    /* a round holds what it sends (8 B a posting, 20 a document's group:
     * ndd_pgroup_begin) and the array it receives (24 B a posting): 48 B a
     * posting covers both unless the documents hold a key or two a rank */
    uint64_t mine = nk > x[0] / (uint64_t)r->P ? nk : x[0] / (uint64_t)r->P, need = 48 * mine;
    if (ndd_budget_rss(r) + need > r->budget && r->d.texts.len)
        rc = spill_texts(r);
    NDD_TRY(ndd_comm_agree(r->comm, rc));
    /* rounds of at least 64 KiB each (a round is two exchanges): at most
     * NDD_MAX_ROUNDS */
    uint64_t room = ndd_budget_room(r), k = (need + room - 1) / room, most = need >> 16;
    k = k > most ? most : k;
    x[1] = k < 1 ? 1 : k > NDD_MAX_ROUNDS ? NDD_MAX_ROUNDS : k;
    NDD_TRY(ndd_comm_allreduce(r->comm, &x[1], 1, NDD_TY_U64, NDD_RED_MAX));
    *rounds = (unsigned)x[1];
    r->s1_rounds = *rounds;
out:
    return rc;
}

int ndd_budget_text(run_t *r, size_t i, ndd_buf_t *scratch, const char **text)
{
    ndd_docs_t *d = &r->d;
    if (!r->texts_spilled) {
        *text = ndd_docs_text(d, i);
        return NDD_OK;
    }
    ndd_buf_clear(scratch);
    int rc = ndd_buf_reserve(scratch, (size_t)d->text_len[i] + 1);
    if (!rc)
        rc = ndd_spill_read(&r->text_spill, d->text_off[i], scratch->data, d->text_len[i]);
    *text = scratch->data;
    return rc;
}

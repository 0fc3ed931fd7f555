/* ndd_progress.h - '--progress SECONDS': rank 0 prints, per stage, items done /
 * total, rate and ETA aggregated over all ranks, without stalling them.
 *
 * Ranks exchange (done, total, finished) with MPI_Iallreduce on a private
 * duplicate of MPI_COMM_WORLD: a rank starts a round when its timer fires
 * and only tests it (never waits) while it works; a rank that finished its
 * part keeps joining rounds in ndd_progress_end until every rank has
 * finished. All ranks make the same sequence of calls, as the loop ends on the
 * same reduced value everywhere. every <= 0 turns everything into no-ops. */
#ifndef NDD_PROGRESS_H
#define NDD_PROGRESS_H

#include <stdint.h>

typedef struct ndd_progress ndd_progress_t;

/* Collective (when every > 0). unit: "bytes" prints MB; else the word. */
ndd_progress_t *ndd_progress_begin(const char *stage, const char *unit, double every, uint64_t my_total);
/* Local and non-blocking. */
void ndd_progress_update(ndd_progress_t *p, uint64_t my_done);
/* Collective: completes the rounds; frees p. */
void ndd_progress_end(ndd_progress_t *p, uint64_t my_done);

#endif

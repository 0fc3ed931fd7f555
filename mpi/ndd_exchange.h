/* ndd_exchange.h - collective data movement for the run pipeline. */
#ifndef NDD_EXCHANGE_H
#define NDD_EXCHANGE_H

#include <stddef.h>
#include <stdint.h>
#include "ndd_util.h"

/* Collective on MPI_COMM_WORLD. All-to-all of byte blocks: send[d] goes to rank d;
 * after return recv[s] holds what rank s sent (recv[] must be P initialised
 * buffers; they are cleared first). Moves at most `chunk` bytes per pair and
 * round (so no MPI count overflows int and the transient buffers stay
 * bounded at P*chunk); rounds continue until every rank is done.
 * *remote_bytes (may be NULL) += bytes this rank sent to other ranks. */
int ndd_exchange(ndd_buf_t *send, ndd_buf_t *recv, size_t chunk, uint64_t *remote_bytes);

/* Default chunk per destination: max(64 KiB, 256 MiB / P). */
size_t ndd_exchange_chunk(void);

/* Collective. Writes each rank's bytes into one file at the offset given by
 * an exclusive scan of the sizes (so the file is the concatenation in rank
 * order), with MPI-IO. The file is truncated first. */
int ndd_write_ordered(const char *path, const char *data, size_t len);

/* Collective. The global numbering of items that ranks hold in rank order:
 * *first = exclusive scan of n; starts[P+1] (allocated, caller frees) has every
 * rank's first item and the total at starts[P]. */
int ndd_global_ranges(uint64_t n, uint64_t *first, uint64_t **starts);
/* Local. Owner rank of global item g given starts[P+1] (binary search; ranks
 * holding nothing are skipped). */
int ndd_owner_of(const uint64_t *starts, int nranks, uint64_t g);

#endif

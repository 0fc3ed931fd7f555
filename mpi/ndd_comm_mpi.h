/* ndd_comm_mpi.h - the MPI backend of the transport interface (comm_mpi.c).
 * Internal to the plugin (mpi/): the command line reaches it through
 * ndd_mpi_plugin.h. */
#ifndef NDD_COMM_MPI_H
#define NDD_COMM_MPI_H

#include <mpi.h>
#include "ndd_comm.h"

/* Collective on parent. *out: a communicator whose ops run on two private
 * duplicates of parent (one for the blocking collectives, one for the
 * non-blocking progress sums, so that a progress round in flight never
 * matches another collective). Messages move in pieces of at most
 * max(64 KiB, 256 MiB / P) bytes per pair of ranks (no MPI count overflows
 * int); $NDD_MPI_CHUNK (bytes, >= 1) sets a smaller piece for tests (the
 * smallest value over the ranks is used). 0 or an NDD_ERR_* agreed by every
 * rank; free with ndd_comm_free(). */
int ndd_comm_mpi_create(MPI_Comm parent, ndd_comm_t **out);

#endif

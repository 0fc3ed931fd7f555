/* ndd_mpi.h - thin MPI glue shared by the distributed subcommands. */
#ifndef NDD_MPI_H
#define NDD_MPI_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

/* Local. Initialises MPI once (idempotent); returns 0 or an NDD_ERR_* code. */
int ndd_mpi_init(int *argc, char ***argv);
/* Local. Finalizes MPI if ndd_mpi_init initialised it. */
void ndd_mpi_finalize(void);
int ndd_mpi_rank(void);
int ndd_mpi_size(void);

/* Collective on MPI_COMM_WORLD. Returns the worst (most negative) rc of all
 * ranks, so that every rank branches the same way after a stage. */
int ndd_mpi_agree(int rc);

/* Seconds since an arbitrary epoch (MPI_Wtime). */
double ndd_mpi_now(void);

/* Logging with time and rank, to stderr. Level 0 = error, 1 = info, 2 = debug. */
extern int ndd_log_level;
void ndd_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define NDD_LOG(level, ...) do { if ((level) <= ndd_log_level) ndd_log((level), __VA_ARGS__); } while (0)

#endif

/* ndd_mpi_plugin.h - the entry points of the MPI engine plugin, libndd_mpi.so
 * (mpi/mpi_plugin.c), as the command line (cli/cli_engine.c) finds them with
 * dlsym. The ndd executable does not link MPI: only the subcommands that run
 * on the MPI engine load the plugin, and with it libmpi. The plugin takes the
 * core's symbols (ndd_buf_*, ...) from the executable, which exports them.
 *
 * This header must not include mpi.h: the command line includes it.
 * Each entry point is declared through its function type, so that the
 * definitions in mpi_plugin.c and the pointers in cli_engine.c cannot drift. */
#ifndef NDD_MPI_PLUGIN_H
#define NDD_MPI_PLUGIN_H

#include "ndd_comm.h"

/* File name of the plugin; the command line looks for it next to the ndd
 * executable (/proc/self/exe), or at the path in $NDD_MPI_PLUGIN. */
#define NDD_MPI_PLUGIN_FILE "libndd_mpi.so"
#define NDD_MPI_PLUGIN_ENV "NDD_MPI_PLUGIN"
/* Bumped whenever an entry point or ndd_comm_ops_t changes. */
#define NDD_MPI_PLUGIN_ABI 3

#define NDD_MPI_PLUGIN_API __attribute__((visibility("default")))

/* Local. The plugin's NDD_MPI_PLUGIN_ABI (checked before anything else). */
typedef int ndd_mpi_plugin_abi_t(void);
/* Local (the process's MPI start-up). MPI_Init unless MPI is initialised
 * already; errors on MPI_COMM_WORLD return instead of aborting. 0 or an
 * NDD_ERR_*. */
typedef int ndd_mpi_plugin_init_t(int *argc, char ***argv);
/* Collective on MPI_COMM_WORLD. *comm: a communicator of the transport
 * interface over (a duplicate of) MPI_COMM_WORLD; free it with
 * ndd_comm_free() before finalize. 0 or an NDD_ERR_* agreed by every rank. */
typedef int ndd_mpi_plugin_world_t(ndd_comm_t **comm);
/* Collective on MPI_COMM_WORLD. MPI_Finalize if init started MPI. */
typedef int ndd_mpi_plugin_finalize_t(void);

#define NDD_MPI_PLUGIN_SYM_ABI "ndd_mpi_plugin_abi"
#define NDD_MPI_PLUGIN_SYM_INIT "ndd_mpi_plugin_init"
#define NDD_MPI_PLUGIN_SYM_WORLD "ndd_mpi_plugin_world"
#define NDD_MPI_PLUGIN_SYM_FINALIZE "ndd_mpi_plugin_finalize"

NDD_MPI_PLUGIN_API ndd_mpi_plugin_abi_t ndd_mpi_plugin_abi;
NDD_MPI_PLUGIN_API ndd_mpi_plugin_init_t ndd_mpi_plugin_init;
NDD_MPI_PLUGIN_API ndd_mpi_plugin_world_t ndd_mpi_plugin_world;
NDD_MPI_PLUGIN_API ndd_mpi_plugin_finalize_t ndd_mpi_plugin_finalize;

#endif

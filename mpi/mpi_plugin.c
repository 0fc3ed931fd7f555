/* mpi_plugin.c - the entry points of libndd_mpi.so (see ndd_mpi_plugin.h):
 * MPI start-up, the transport over MPI_COMM_WORLD, MPI_Finalize. The only
 * symbols the plugin exports (it is built with hidden visibility). */
#include "ndd_mpi_plugin.h"
#include "ndd_comm_mpi.h"
#include "ndd_util.h"

#include <stdlib.h>
#include <string.h>

static int g_inited_here = 0;

#ifdef OPEN_MPI
/* Open MPI picks its point-to-point layer (PML) by opening every candidate;
 * its "cm" layer, for PSM, PSM2 and OFI networks (Omni-Path, libfabric),
 * probes libfabric at every start-up - 0.2 s of each MPI run measured here
 * (docs/BENCHMARKS.md) - and is of no use to a job whose ranks all share one
 * node, where shared memory carries every message. On one node (a
 * singleton; all of mpirun's ranks on this node, OMPI_COMM_WORLD_LOCAL_SIZE
 * = OMPI_COMM_WORLD_SIZE; a launcher's step on one node,
 * SLURM_STEP_NUM_NODES = 1) it is left out, OMPI_MCA_pml=^cm, unless the
 * user chose a PML (OMPI_MCA_pml set, which mpirun --mca pml X does) or
 * set NDD_MPI_KEEP_PML to anything but 0. */
static void one_node_pml(void)
{
    const char *keep = getenv("NDD_MPI_KEEP_PML");
    if (getenv("OMPI_MCA_pml") || (keep && *keep && strcmp(keep, "0")))
        return;
    const char *ws = getenv("OMPI_COMM_WORLD_SIZE"), *ls = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const char *nodes = getenv("SLURM_STEP_NUM_NODES");
    int one;
    if (ws || ls) /* mpirun */
        one = ws && ls && !strcmp(ws, ls);
    else if (getenv("PMIX_RANK") || getenv("PMI_RANK") || getenv("PMI_SIZE")) /* srun or another launcher */
        one = nodes && !strcmp(nodes, "1");
    else /* a singleton: MPI_Init starts the only rank, here */
        one = 1;
    if (one)
        (void)setenv("OMPI_MCA_pml", "^cm", 0);
}
#endif

/* The connections MPI_Init left open to this node (the PMIx client's to its
 * server, mpirun or slurmstepd) with TCP_NODELAY: Open MPI 4.1's PMIx
 * client does not set it, and at MPI_Finalize its few small messages then
 * waited for the server's delayed acknowledgement - 40 ms of every run
 * measured here (docs/BENCHMARKS.md), 3-6 ms without. Unless
 * NDD_MPI_NODELAY=0. */
static void mpi_nodelay(void)
{
    const char *e = getenv("NDD_MPI_NODELAY");
    if (!(e && !strcmp(e, "0")))
        (void)ndd_loopback_nodelay();
}

NDD_MPI_PLUGIN_API int ndd_mpi_plugin_abi(void) { return NDD_MPI_PLUGIN_ABI; }

NDD_MPI_PLUGIN_API int ndd_mpi_plugin_init(int *argc, char ***argv)
{
    int flag = 0;
    if (MPI_Initialized(&flag) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    if (flag)
        return NDD_OK;
#ifdef OPEN_MPI
    one_node_pml();
#endif
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    g_inited_here = 1;
    mpi_nodelay();
    /* errors return instead of aborting: every caller agrees on them */
    if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    return NDD_OK;
}

NDD_MPI_PLUGIN_API int ndd_mpi_plugin_world(ndd_comm_t **comm)
{
    return ndd_comm_mpi_create(MPI_COMM_WORLD, comm);
}

NDD_MPI_PLUGIN_API int ndd_mpi_plugin_finalize(void)
{
    int fin = 0;
    if (!g_inited_here)
        return NDD_OK;
    g_inited_here = 0;
    if (MPI_Finalized(&fin) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    if (!fin && MPI_Finalize() != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    return NDD_OK;
}

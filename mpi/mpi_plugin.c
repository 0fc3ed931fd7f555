/* mpi_plugin.c - the entry points of libndd_mpi.so (see ndd_mpi_plugin.h):
 * MPI start-up, the transport over MPI_COMM_WORLD, MPI_Finalize. The only
 * symbols the plugin exports (it is built with hidden visibility). */
#include "ndd_mpi_plugin.h"
#include "ndd_comm_mpi.h"
#include "ndd_util.h"

static int g_inited_here = 0;

NDD_MPI_PLUGIN_API int ndd_mpi_plugin_abi(void) { return NDD_MPI_PLUGIN_ABI; }

NDD_MPI_PLUGIN_API int ndd_mpi_plugin_init(int *argc, char ***argv)
{
    int flag = 0;
    if (MPI_Initialized(&flag) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    if (flag)
        return NDD_OK;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    g_inited_here = 1;
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

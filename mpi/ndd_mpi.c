/* ndd_mpi.c - see ndd_mpi.h */
#include "ndd_mpi.h"
#include "ndd_util.h"

#include <stdarg.h>
#include <time.h>

int ndd_log_level = 1;
static int g_inited_here = 0;

int ndd_mpi_init(int *argc, char ***argv)
{
    int flag = 0;
    MPI_Initialized(&flag);
    if (flag)
        return NDD_OK;
    if (MPI_Init(argc, argv) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    g_inited_here = 1;
    return NDD_OK;
}

void ndd_mpi_finalize(void)
{
    int fin = 0;
    MPI_Finalized(&fin);
    if (g_inited_here && !fin)
        MPI_Finalize();
    g_inited_here = 0;
}

static int mpi_active(void)
{
    int ini = 0, fin = 0;
    MPI_Initialized(&ini);
    MPI_Finalized(&fin);
    return ini && !fin;
}

int ndd_mpi_rank(void)
{
    int r = 0;
    if (mpi_active())
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int ndd_mpi_size(void)
{
    int s = 1;
    if (mpi_active())
        MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

int ndd_mpi_agree(int rc)
{
    int worst = rc;
    if (!mpi_active())
        return rc;
    if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
        return NDD_ERR_INTERNAL;
    return worst;
}

double ndd_mpi_now(void)
{
    if (mpi_active())
        return MPI_Wtime();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void ndd_log(int level, const char *fmt, ...)
{
    static const char *names[] = {"error", "info", "debug"};
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[32];
    strftime(when, sizeof when, "%H:%M:%S", &tm);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[%s.%03ld ndd r%d %s] %s\n", when, ts.tv_nsec / 1000000L, ndd_mpi_rank(),
            names[level < 0 ? 0 : level > 2 ? 2 : level], msg);
}

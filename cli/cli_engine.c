/* cli_engine.c - '--engine mpi|local[:P]': runs one subcommand's job on MPI
 * (the plugin libndd_mpi.so, loaded only here: the ndd executable does not
 * link MPI, so the subcommands that never get here never load it) or on P
 * threads of this process (ndd_comm_local_run). See ndd_cli.h. */
#include "ndd_cli.h"
#include "ndd_util.h"
#include "../mpi/ndd_mpi_plugin.h" /* function types only; no mpi.h */

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > NDD_LOCAL_MAX_RANKS ? NDD_LOCAL_MAX_RANKS : (int)n;
}

int ndd_cli_engine_parse(const char *s, ndd_cli_engine_t *e)
{
    long p;
    if (!strcmp(s, "mpi")) {
        e->kind = NDD_ENGINE_MPI;
        e->ranks = 0;
    } else if (!strcmp(s, "local")) {
        e->kind = NDD_ENGINE_LOCAL;
        e->ranks = online_cpus();
    } else if (!strncmp(s, "local:", 6) && !ndd_cli_parse_long(s + 6, 1, NDD_LOCAL_MAX_RANKS, &p)) {
        e->kind = NDD_ENGINE_LOCAL;
        e->ranks = (int)p;
    } else {
        return -1;
    }
    e->given = 1;
    return 0;
}

/* How many tasks the launcher started (1 without one). */
static long launch_size(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "SLURM_STEP_NUM_TASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        long n;
        if (v && !ndd_cli_parse_long(v, 1, LONG_MAX, &n))
            return n;
    }
    return 1;
}

int ndd_cli_launch_rank(void)
{
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        long r;
        if (v && !ndd_cli_parse_long(v, 0, INT_MAX, &r))
            return (int)r;
    }
    return 0;
}

int ndd_cli_engine_check(const char *cmd, const ndd_cli_engine_t *e)
{
    long n = launch_size();
    if (e->kind == NDD_ENGINE_LOCAL && n > 1)
        return ndd_cli_usage_error(cmd, "--engine local runs the whole job in one process, but %ld tasks were "
                                        "launched: use --engine mpi under mpirun/srun",
                                   n);
    return 0;
}

/* ---- the MPI plugin ---- */

#ifdef NDD_SANITIZE_BUILD
/* Sanitizer builds only (NDD_SANITIZE): OpenMPI unloads its components with
 * dlclose at MPI_Finalize, after which LeakSanitizer can no longer name the
 * library behind the allocations they keep until exit, and
 * tests/lsan-openmpi.supp could not suppress them by name. Keeping every
 * library mapped lets scripts/test.sh run the MPI tests with leak detection
 * on: ndd's own leaks are still reported. (Exported through
 * cli/ndd_exports.list so that it interposes on libc's.) */
int dlclose(void *handle);
int dlclose(void *handle)
{
    (void)handle;
    return 0;
}
#endif

typedef struct plugin {
    ndd_mpi_plugin_init_t *init;
    ndd_mpi_plugin_world_t *world;
    ndd_mpi_plugin_finalize_t *finalize;
} plugin_t;

/* Local. $NDD_MPI_PLUGIN, else NDD_MPI_PLUGIN_FILE in the directory of the
 * running executable (the build tree), else in ../lib/ndd beside it (an
 * installed ndd). */
static int plugin_path(char *buf, size_t cap)
{
    const char *env = getenv(NDD_MPI_PLUGIN_ENV);
    if (env && *env)
        return (size_t)snprintf(buf, cap, "%s", env) < cap ? NDD_OK : NDD_ERR_LIMIT;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0 || (size_t)n >= sizeof exe - 1)
        return NDD_ERR_IO;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NDD_ERR_IO;
    slash[1] = '\0';
    if ((size_t)snprintf(buf, cap, "%s%s", exe, NDD_MPI_PLUGIN_FILE) >= cap)
        return NDD_ERR_LIMIT;
    if (access(buf, R_OK) == 0)
        return NDD_OK;
    /* installed (cmake --install): PREFIX/bin/ndd and PREFIX/lib/ndd/libndd_mpi.so */
    char alt[PATH_MAX + 64];
    if ((size_t)snprintf(alt, sizeof alt, "%s../lib/ndd/%s", exe, NDD_MPI_PLUGIN_FILE) < sizeof alt &&
        access(alt, R_OK) == 0 && strlen(alt) < cap)
        memcpy(buf, alt, strlen(alt) + 1);
    return NDD_OK;
}

/* Local. Loads the plugin once (never unloaded: MPI does not survive being
 * unloaded). RTLD_GLOBAL: OpenMPI's own components, dlopened by libmpi, need
 * libmpi's symbols in the global scope. Prints why on failure. */
static int plugin_load(const char *cmd, plugin_t *pl)
{
    char path[PATH_MAX + 64];
    if (plugin_path(path, sizeof path)) {
        fprintf(stderr, "ndd %s: cannot locate the MPI engine %s (/proc/self/exe unreadable): set %s, or use "
                        "--engine local\n",
                cmd, NDD_MPI_PLUGIN_FILE, NDD_MPI_PLUGIN_ENV);
        return NDD_ERR_IO;
    }
    if (access(path, R_OK)) {
        fprintf(stderr, "ndd %s: the MPI engine %s is missing: build it with ndd (target ndd_mpi) next to the "
                        "ndd executable, set %s to its path, or use --engine local\n",
                cmd, path, NDD_MPI_PLUGIN_ENV);
        return NDD_ERR_IO;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        const char *why = dlerror();
        fprintf(stderr, "ndd %s: cannot load the MPI engine %s: %s\n", cmd, path, why ? why : "?");
        return NDD_ERR_IO;
    }
    /* dlsym returns void *; POSIX guarantees that it converts to a function pointer */
    ndd_mpi_plugin_abi_t *abi = (ndd_mpi_plugin_abi_t *)dlsym(h, NDD_MPI_PLUGIN_SYM_ABI);
    pl->init = (ndd_mpi_plugin_init_t *)dlsym(h, NDD_MPI_PLUGIN_SYM_INIT);
    pl->world = (ndd_mpi_plugin_world_t *)dlsym(h, NDD_MPI_PLUGIN_SYM_WORLD);
    pl->finalize = (ndd_mpi_plugin_finalize_t *)dlsym(h, NDD_MPI_PLUGIN_SYM_FINALIZE);
    if (!abi || !pl->init || !pl->world || !pl->finalize || abi() != NDD_MPI_PLUGIN_ABI) {
        fprintf(stderr, "ndd %s: %s is not the MPI engine of this ndd (interface %d expected)\n", cmd, path,
                NDD_MPI_PLUGIN_ABI);
        return NDD_ERR_VERSION;
    }
    return NDD_OK;
}

static int run_mpi(const char *cmd, int *argc, char ***argv, ndd_cli_job_fn job, void *arg)
{
    plugin_t pl;
    ndd_comm_t *comm = NULL;
    int rc = plugin_load(cmd, &pl);
    if (rc)
        return rc;
    if ((rc = pl.init(argc, argv))) {
        fprintf(stderr, "ndd %s: MPI initialisation failed\n", cmd);
        return rc;
    }
    if ((rc = pl.world(&comm))) {
        fprintf(stderr, "ndd %s: cannot set up the MPI communicator: %s\n", cmd, ndd_strerror(rc));
    } else {
        rc = job(comm, arg);
        ndd_comm_free(comm);
    }
    int frc = pl.finalize();
    return rc ? rc : frc;
}

int ndd_cli_engine_run(const ndd_cli_engine_t *e, const char *cmd, int *argc, char ***argv, ndd_cli_job_fn job,
                       void *arg)
{
    if (e->kind == NDD_ENGINE_MPI)
        return run_mpi(cmd, argc, argv, job, arg);
    enum { NOT_RUN = 1 }; /* a job returns 0 or a negative code */
    int P = e->ranks >= 1 && e->ranks <= NDD_LOCAL_MAX_RANKS ? e->ranks : 1;
    int *rcs = malloc((size_t)P * sizeof *rcs);
    if (!rcs) {
        fprintf(stderr, "ndd %s: out of memory\n", cmd);
        return NDD_ERR_NOMEM;
    }
    for (int r = 0; r < P; r++)
        rcs[r] = NOT_RUN;
    int rc = ndd_comm_local_run(P, job, arg, rcs);
    if (rc && rcs[0] == NOT_RUN) /* the job did not run, so it printed nothing */
        fprintf(stderr, "ndd %s: cannot start %d local rank%s: %s\n", cmd, P, P > 1 ? "s" : "", ndd_strerror(rc));
    free(rcs);
    return rc;
}

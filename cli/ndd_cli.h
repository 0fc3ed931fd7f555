/* ndd_cli.h - subcommands of the ndd executable and the helpers they share.
 * Exit codes: 0 ok, 1 runtime error (on any rank), 2 bad usage. */
#ifndef NDD_CLI_H
#define NDD_CLI_H

#include <stdio.h>
#include "ndd_comm.h"
#include "ndd_run.h"

enum { NDD_EXIT_OK = 0, NDD_EXIT_RUNTIME = 1, NDD_EXIT_USAGE = 2 };

/* Each subcommand: argv[0] is the subcommand name; returns an exit code. */
int ndd_cmd_sig(int argc, char **argv);
int ndd_cmd_compare(int argc, char **argv);
int ndd_cmd_signcd(int argc, char **argv);
int ndd_cmd_run(int argc, char **argv);
int ndd_cmd_eval(int argc, char **argv);
int ndd_cmd_stats(int argc, char **argv);
int ndd_cmd_flow(int argc, char **argv);

/* 'ndd compare --verifier signcd': compares two already-prepared texts with
 * SigNCD and prints the human report (json=0) or one JSON object (json=1) to
 * out; *duplicate receives the verdict. Implemented in compare_signcd.c
 * (issue 4); options are the argv tail that cmd_compare did not consume. */
int ndd_compare_signcd(const char *a, size_t na, const char *b, size_t nb, int json,
                       double tau, int no_signature, FILE *out, int *duplicate);

/* Prints "ndd <cmd>: <message>" to stderr and returns NDD_EXIT_USAGE. */
int ndd_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct option;
/* The name of the option getopt_long just returned, as the user may write
 * it: "--NAME" (longidx >= 0, as getopt_long set it) or "-c". (argv[optind - 1]
 * is the option's value when it was given as a separate argument.) A static
 * buffer, valid until the next call. */
const char *ndd_cli_optname(const struct option *opts, int longidx, int ch);
/* Why rc happened, for a message: strerror(err) for NDD_ERR_IO when the
 * caller kept errno (err > 0: "No such file or directory", "Permission
 * denied"), else ndd_strerror(rc). */
const char *ndd_cli_why(int rc, int err);
/* Parses option values strictly; return 0 ok, -1 bad value. */
int ndd_cli_parse_double(const char *s, double *out);
int ndd_cli_parse_size(const char *s, size_t *out); /* accepts K/M/G suffixes (powers of 1024) */
int ndd_cli_parse_long(const char *s, long lo, long hi, long *out);
/* Local. The rank the launcher (mpirun, srun) gave this process, read from
 * its environment before MPI starts; 0 when there is none. For messages that
 * should appear once per job. */
int ndd_cli_launch_rank(void);

/* ---- engines (cli_engine.c): where a collective subcommand runs ----
 * '--engine mpi' (default): the MPI plugin (libndd_mpi.so next to the ndd
 * executable, or $NDD_MPI_PLUGIN) is loaded, MPI started, and the job runs on
 * MPI_COMM_WORLD: the ranks are those of mpirun/srun, or one without them.
 * '--engine local[:P]': P ranks as threads of this process, no MPI (P
 * defaults to the number of online CPUs). */
typedef enum { NDD_ENGINE_MPI = 0, NDD_ENGINE_LOCAL } ndd_engine_kind_t;
typedef struct ndd_cli_engine {
    ndd_engine_kind_t kind;
    int ranks;  /* local: 1..NDD_LOCAL_MAX_RANKS */
    int given;  /* set by --engine */
} ndd_cli_engine_t;
/* The --help lines of --engine, in the layout of run and sig (signcd has its own). */
#define NDD_CLI_ENGINE_HELP                                                                          \
    "      --engine E           mpi (default): the ranks of mpirun/srun, or one rank without them;\n" \
    "                           local[:P]: P ranks as threads of this process, no MPI (P: 1..256,\n"  \
    "                           default the number of CPUs)\n"
/* Local. Parses "mpi", "local" or "local:P"; 0 ok, -1 bad value. */
int ndd_cli_engine_parse(const char *s, ndd_cli_engine_t *e);
/* Local. A usage error (returns NDD_EXIT_USAGE after the message) when a
 * local engine was asked for inside a job of several launched tasks, where
 * every task would run the whole job on its own; else 0. */
int ndd_cli_engine_check(const char *cmd, const ndd_cli_engine_t *e);
/* One rank's share of a subcommand: returns 0 or an NDD_ERR_* (agreed by
 * every rank). arg is shared by the ranks of the local engine: read only. */
typedef int (*ndd_cli_job_fn)(ndd_comm_t *comm, void *arg);
/* Runs job on the engine; returns its rc, or an NDD_ERR_* after printing
 * "ndd <cmd>: ..." when the engine cannot start (plugin missing, MPI
 * initialisation). argc/argv go to MPI_Init. */
int ndd_cli_engine_run(const ndd_cli_engine_t *e, const char *cmd, int *argc, char ***argv, ndd_cli_job_fn job,
                       void *arg);

/* ---- logging (cli_log.c): the core's sinks, and the subcommands' own ---- */
typedef struct ndd_cli_log {
    int level; /* highest level printed: 0 error, 1 info (default), 2 debug (-v) */
} ndd_cli_log_t;
/* An ndd_log_fn (user: const ndd_cli_log_t *, NULL = level 1): prints
 * "[HH:MM:SS.mmm ndd rRANK LEVEL] msg" to stderr, one write per line. */
void ndd_cli_log(void *user, int rank, int level, const char *msg);
/* The same, printf-style, for the subcommands' own messages. */
void ndd_cli_logf(const ndd_cli_log_t *lg, int rank, int level, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An ndd_progress_fn: "[progress] STAGE done / total UNIT (%), rate, ETA
 * (or 'took'), ranks done, the job's share done and ETA" to stderr. user:
 * NULL, or a const int that is 1 when the job writes a dedup corpus (its
 * last stage; the overall estimate leaves it out otherwise). */
void ndd_cli_progress(void *user, const ndd_progress_report_t *rep);

/* ---- archive controls, shared by ndd run and ndd flow: --content-types,
 * --url-include, --url-exclude (src/reader/ndd_admit.c applies them) ---- */
typedef struct ndd_cli_archive {
    const char *types; /* NULL: NDD_DEFAULT_CONTENT_TYPES */
    ndd_buf_t inc, exc; /* the patterns, '\x1f' between them */
    int exc_given;
} ndd_cli_archive_t;
enum { NDD_CLI_CTYPES = 0, NDD_CLI_URL_INCLUDE = 1, NDD_CLI_URL_EXCLUDE = 2 };
/* One such option (kind, as named on the command line): 0 or the usage error's exit code. */
int ndd_cli_archive_opt(const char *cmd, const char *name, int kind, const char *arg, ndd_cli_archive_t *a);
/* What ndd_reader_admit takes: the types, the include patterns (NULL: none),
 * the exclude patterns (the default when no --url-exclude was given; NULL:
 * none). */
const char *ndd_cli_archive_types(const ndd_cli_archive_t *a);
const char *ndd_cli_archive_include(const ndd_cli_archive_t *a);
const char *ndd_cli_archive_exclude(const ndd_cli_archive_t *a);
void ndd_cli_archive_free(ndd_cli_archive_t *a);
#define NDD_CLI_ARCHIVE_HELP                                                                            \
    "      --content-types LIST media types a document that has one (WARC) may have, separated by\n"     \
    "                           commas, * for any (default " NDD_DEFAULT_CONTENT_TYPES ");\n"               \
    "                           other records are rejects (images, CSS and scripts always are)\n"        \
    "      --url-include GLOB   read only documents whose URL matches one such pattern (fnmatch,\n"     \
    "                           * also matches /; repeatable; documents without a URL are read)\n"      \
    "      --url-exclude GLOB   do not read documents whose URL matches (repeatable; giving it\n"       \
    "                           replaces the default " NDD_DEFAULT_URL_EXCLUDE "; none: exclude nothing)\n"

#endif

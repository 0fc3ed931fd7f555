/* main.c - the ndd command line: dispatches to subcommands. */
#include "ndd_cli.h"
#include "ndd_util.h"

#include <string.h>

#ifndef NDD_VERSION
#define NDD_VERSION "dev"
#endif

typedef struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} ndd_command_t;

static const ndd_command_t commands[] = {
    {"run", ndd_cmd_run, "the near-duplicate job (under mpirun/srun, or --engine local)"},
    {"sig", ndd_cmd_sig, "read documents and print their paper-002 signatures"},
    {"compare", ndd_cmd_compare, "verify one pair of documents (TLCS or SigNCD) and explain"},
    {"signcd", ndd_cmd_signcd, "all-pairs SigNCD with exact P1/P2 pruning"},
    {"eval", ndd_cmd_eval, "quality of a run against gold clusters; pair-level AUC/F1"},
    {"stats", ndd_cmd_stats, "partition statistics of a finished run; --json, --plot OUT.html"},
    {"flow", ndd_cmd_flow, "a timestamped stream, decided on arrival in a time window (paper 003)"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ndd <command> [options] ...\n"
            "\n"
            "ndd finds near-duplicate documents in web crawls (paper 002: sentence\n"
            "signatures -> perhaps-similar sets -> trustable-LCS verification).\n"
            "\n"
            "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\n"
            "run, sig and signcd run on ranks: MPI ranks (--engine mpi, the default; the\n"
            "MPI library is loaded only then) or threads of one process (--engine local:P).\n"
            "Run 'ndd <command> --help' for the options of one command.\n"
            "  -h, --help    this text\n"
            "      --version print the version (also after a command: ndd run --version)\n"
            "Environment:\n"
            "  NDD_HUGE_PAGES=0  do not ask for transparent huge pages for blocks of 4 MiB\n"
            "                    or more (asked by default: a page fault per 2 MiB, not 4 KiB)\n"
            "  NDD_MPI_NODELAY=0 leave MPI's connections to this node's PMIx server as MPI\n"
            "                    made them (TCP_NODELAY is set by default: MPI_Finalize\n"
            "                    waited 40 ms on a delayed acknowledgement without it)\n"
            "Exit codes: 0 ok, 1 runtime error, 2 bad usage.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return NDD_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return NDD_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("ndd %s\n", NDD_VERSION);
        return NDD_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            for (int k = 2; k < argc && strcmp(argv[k], "--"); k++)
                if (!strcmp(argv[k], "--version")) { /* no option of any command takes "--version" as its value */
                    printf("ndd %s\n", NDD_VERSION);
                    return NDD_EXIT_OK;
                }
            return commands[i].fn(argc - 1, argv + 1);
        }
    fprintf(stderr, "ndd: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return NDD_EXIT_USAGE;
}

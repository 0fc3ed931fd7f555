/* ndd_cli.h - subcommands of the ndd executable and the helpers they share.
 * Exit codes: 0 ok, 1 runtime error (on any rank), 2 bad usage. */
#ifndef NDD_CLI_H
#define NDD_CLI_H

#include <stdio.h>

enum { NDD_EXIT_OK = 0, NDD_EXIT_RUNTIME = 1, NDD_EXIT_USAGE = 2 };

/* Each subcommand: argv[0] is the subcommand name; returns an exit code. */
int ndd_cmd_sig(int argc, char **argv);
int ndd_cmd_compare(int argc, char **argv);
int ndd_cmd_signcd(int argc, char **argv);
int ndd_cmd_run(int argc, char **argv);
int ndd_cmd_eval(int argc, char **argv);
int ndd_cmd_stats(int argc, char **argv);

/* 'ndd compare --verifier signcd': compares two already-prepared texts with
 * SigNCD and prints the human report (json=0) or one JSON object (json=1) to
 * out; *duplicate receives the verdict. Implemented in compare_signcd.c
 * (issue 4); options are the argv tail that cmd_compare did not consume. */
int ndd_compare_signcd(const char *a, size_t na, const char *b, size_t nb, int json,
                       double tau, int no_signature, FILE *out, int *duplicate);

/* Prints "ndd <cmd>: <message>" to stderr and returns NDD_EXIT_USAGE. */
int ndd_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parses option values strictly; return 0 ok, -1 bad value. */
int ndd_cli_parse_double(const char *s, double *out);
int ndd_cli_parse_size(const char *s, size_t *out); /* accepts K/M/G suffixes (powers of 1024) */
int ndd_cli_parse_long(const char *s, long lo, long hi, long *out);

#endif

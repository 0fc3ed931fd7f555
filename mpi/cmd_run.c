/* cmd_run.c - 'ndd run' (placeholder until its issue lands: exits 1 with a message). */
#include "ndd_cli.h"
#include <string.h>

int ndd_cmd_run(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: ndd run ...\n(not available in this build yet)\n");
        return NDD_EXIT_OK;
    }
    fprintf(stderr, "ndd run: not available in this build yet\n");
    return NDD_EXIT_RUNTIME;
}

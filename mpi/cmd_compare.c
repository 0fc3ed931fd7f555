/* cmd_compare.c - 'ndd compare' (placeholder until its issue lands: exits 1 with a message). */
#include "ndd_cli.h"
#include <string.h>

int ndd_cmd_compare(int argc, char **argv)
{
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: ndd compare ...\n(not available in this build yet)\n");
        return NDD_EXIT_OK;
    }
    fprintf(stderr, "ndd compare: not available in this build yet\n");
    return NDD_EXIT_RUNTIME;
}

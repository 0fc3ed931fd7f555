/* compare_signcd.c - placeholder until the SigNCD verifier lands (issue 4). */
#include "ndd_cli.h"
#include "ndd_util.h"

int ndd_compare_signcd(const char *a, size_t na, const char *b, size_t nb, int json,
                       double tau, int no_signature, FILE *out, int *duplicate)
{
    (void)a; (void)na; (void)b; (void)nb; (void)json; (void)tau; (void)no_signature; (void)out;
    *duplicate = 0;
    return NDD_ERR_UNSUPPORTED;
}

/* lsi_lsh.c - conceptual fingerprints, their cosine, and the cosine LSH
 * (random hyperplanes, Charikar 2002) whose band keys make candidate pairs.
 * Local. */
#include "ndd_lsi.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

void ndd_lsi_fingerprints(const double *u, const double *sigma, size_t n, unsigned k, float *fp)
{
    for (size_t i = 0; i < n; i++) {
        double norm = 0;
        for (unsigned j = 0; j < k; j++) {
            double v = u[i * k + j] * sigma[j];
            norm += v * v;
        }
        norm = sqrt(norm);
        for (unsigned j = 0; j < k; j++)
            fp[i * k + j] = norm > 0 ? (float)(u[i * k + j] * sigma[j] / norm) : 0.0f;
    }
}

double ndd_lsi_cosine(const float *a, const float *b, unsigned k)
{
    double ab = 0, aa = 0, bb = 0;
    for (unsigned j = 0; j < k; j++) {
        ab += (double)a[j] * b[j];
        aa += (double)a[j] * a[j];
        bb += (double)b[j] * b[j];
    }
    return aa > 0 && bb > 0 ? ab / sqrt(aa * bb) : 0.0;
}

struct ndd_lsi_lsh {
    unsigned k, bands, bits;
    double *planes; /* (bands * bits) x k */
};

static uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

int ndd_lsi_lsh_create(ndd_lsi_lsh_t **out, const ndd_lsi_params_t *p, unsigned k)
{
    if (ndd_lsi_params_check(p) || !k)
        return NDD_ERR_INVAL;
    ndd_lsi_lsh_t *l = calloc(1, sizeof *l);
    size_t np = (size_t)p->lsh_bands * p->lsh_bits * k;
    if (!l || !(l->planes = malloc((np + 1) * sizeof *l->planes))) {
        free(l);
        return NDD_ERR_NOMEM;
    }
    l->k = k;
    l->bands = p->lsh_bands;
    l->bits = p->lsh_bits;
    /* standard normal entries (Box-Muller on two hashed uniforms): the
     * hyperplanes' normals are uniform on the sphere */
    uint64_t st = mix64(p->seed ^ 0x4C53494C5348ull);
    for (size_t i = 0; i < np; i++) {
        st = mix64(st);
        double u1 = ((double)(st >> 11) + 0.5) / 9007199254740992.0;
        st = mix64(st);
        double u2 = (double)(st >> 11) / 9007199254740992.0;
        l->planes[i] = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
    *out = l;
    return NDD_OK;
}

void ndd_lsi_lsh_free(ndd_lsi_lsh_t *l)
{
    if (!l)
        return;
    free(l->planes);
    free(l);
}

void ndd_lsi_lsh_keys(const ndd_lsi_lsh_t *l, const float *fp, uint64_t *keys, size_t *nkeys)
{
    int zero = 1;
    for (unsigned j = 0; j < l->k && zero; j++)
        zero = fp[j] == 0.0f;
    *nkeys = 0;
    if (zero)
        return;
    for (unsigned b = 0; b < l->bands; b++) {
        uint64_t bits = 0;
        for (unsigned h = 0; h < l->bits; h++) {
            const double *pl = l->planes + ((size_t)b * l->bits + h) * l->k;
            double d = 0;
            for (unsigned j = 0; j < l->k; j++)
                d += pl[j] * fp[j];
            bits |= (uint64_t)(d >= 0) << h;
        }
        uint64_t x[3] = {0x4C5349ull, b, bits};
        keys[(*nkeys)++] = XXH3_64bits(x, sizeof x);
    }
}

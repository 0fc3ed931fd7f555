/* ndd_test.h - shared helpers for the cmocka unit tests. */
#ifndef NDD_TEST_H
#define NDD_TEST_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Path of a real corpus under ../shared/datasets, or NULL when absent
 * (tests then call skip() with a message: a user outside this setup has none). */
static inline const char *ndd_test_dataset(const char *sub, char *buf, size_t cap)
{
    struct stat st;
    snprintf(buf, cap, "%s/%s", NDD_DATASETS, sub);
    if (stat(buf, &st) != 0) {
        fprintf(stderr, "[  SKIP    ] real dataset %s absent\n", buf);
        return NULL;
    }
    return buf;
}

/* Marsaglia's xorshift64 (13, 7, 17) on *state: the tests' reproducible
 * random numbers (each test file keeps its own state and seed). */
static inline uint64_t ndd_test_xorshift(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif

/* fuzz_common.h - shared by the libFuzzer harnesses (fuzz/fuzz_*.c). Each
 * harness defines LLVMFuzzerTestOneInput and checks cheap invariants with
 * FUZZ_CHECK (abort: libFuzzer records the input as a crash). The same
 * files build without libFuzzer against fuzz/replay_main.c, which runs the
 * committed seeds and regression inputs in the normal test suite. */
#ifndef NDD_FUZZ_COMMON_H
#define NDD_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define FUZZ_CHECK(cond)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                      \
        }                                                                                 \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif

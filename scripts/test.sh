#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds with warnings as errors,
# runs every ctest test (unit, engine, e2e, mpi, slurm), then all but the
# Slurm ones again under AddressSanitizer + UndefinedBehaviorSanitizer with
# leak detection on, then every libFuzzer harness for 30 s (scripts/fuzz.sh).
# Exits non-zero on any failure.
#   NDD_TEST_SANITIZE=0   skip the sanitizer pass
#   NDD_TEST_FUZZ=0       skip the short fuzzing pass (NDD_TEST_FUZZ_SECONDS per harness, default 30)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

bash scripts/setup.sh

echo "== build (Release with -Werror) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DNDD_WERROR=ON
cmake --build build -j "$(nproc)"

echo "== ctest =="
ctest --test-dir build --output-on-failure -j 2

if [ "${NDD_TEST_SANITIZE:-1}" != "0" ]; then
  echo "== build (ASan + UBSan) =="
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DNDD_WERROR=ON -DNDD_SANITIZE=ON
  cmake --build build-asan -j "$(nproc)"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # Leak detection on for every test: unit, engine (the whole pipeline on
  # in-process ranks), e2e and mpi. The only allocations not reported are those
  # made inside the MPI stack, which OpenMPI keeps until exit
  # (tests/lsan-openmpi.supp, by library name).
  echo "== ctest under ASan + UBSan, leak detection on: unit, engine, e2e, mpi =="
  # fast_unwind_on_malloc=0: full stacks, so that an allocation made through libc
  # (asprintf) inside OpenMPI is attributed to OpenMPI (no measurable slowdown here).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=$root/tests/lsan-openmpi.supp \
    ctest --test-dir build-asan --output-on-failure -j 2 -L 'unit|engine|e2e|mpi'
fi
if [ "${NDD_TEST_FUZZ:-1}" != "0" ]; then
  # A short run of every libFuzzer harness (fuzz/), so that a regression a
  # harness finds at once shows here; longer campaigns: scripts/fuzz.sh SECONDS.
  echo "== fuzz: every harness for ${NDD_TEST_FUZZ_SECONDS:-30} s (scripts/fuzz.sh) =="
  NDD_FUZZ_WORK=$(mktemp -d) bash scripts/fuzz.sh -j 2 "${NDD_TEST_FUZZ_SECONDS:-30}"
fi
echo "scripts/test.sh: all tests passed"

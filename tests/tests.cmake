# Unit tests: every tests/unit/test_<module>.c is one cmocka executable registered with ctest.
pkg_check_modules(CMOCKA REQUIRED IMPORTED_TARGET cmocka)
set(NDD_SHARED_DATASETS "${CMAKE_SOURCE_DIR}/../shared/datasets" CACHE PATH "Real corpora (tests skip when absent)")
file(GLOB NDD_UNIT_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/unit/test_*.c)
foreach(t ${NDD_UNIT_TESTS})
  get_filename_component(name ${t} NAME_WE)
  add_executable(${name} ${t})
  target_link_libraries(${name} PRIVATE ndd_core PkgConfig::CMOCKA)
  if(name STREQUAL "test_lsi") # LAPACKE_dgesvd as the dense oracle
    target_link_libraries(${name} PRIVATE ${LAPACKE_LIBRARY})
  endif()
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/unit)
  target_compile_definitions(${name} PRIVATE
    NDD_DATASETS="${NDD_SHARED_DATASETS}"
    NDD_SOURCE_DIR="${CMAKE_SOURCE_DIR}"
    NDD_BINARY_DIR="${CMAKE_BINARY_DIR}")
  add_test(NAME unit.${name} COMMAND ${name})
  set_tests_properties(unit.${name} PROPERTIES LABELS unit SKIP_RETURN_CODE 77 TIMEOUT 900)
endforeach()

# Every shell test gets its own OpenMPI session directory base: two mpiruns of
# tests running at once (ctest -j) both creating /tmp/ompi.HOST.UID raced, and
# the loser failed in orte_init ("mkdir ... File exists").
set(NDD_OMPI_TMP ${CMAKE_BINARY_DIR}/ompi-tmp)

# Shell-driven tests (CLI, MPI rank equivalence, the pipeline on the in-process
# engine, real-data end to end): every tests/e2e/*.sh, tests/mpi/*.sh and
# tests/engine/*.sh is a ctest test (label = its folder) run with the build dir.
file(GLOB NDD_SHELL_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/e2e/*.sh ${CMAKE_SOURCE_DIR}/tests/mpi/*.sh
  ${CMAKE_SOURCE_DIR}/tests/engine/*.sh)
foreach(t ${NDD_SHELL_TESTS})
  get_filename_component(name ${t} NAME_WE)
  get_filename_component(dir ${t} DIRECTORY)
  get_filename_component(label ${dir} NAME)
  add_test(NAME ${label}.${name} COMMAND bash ${t})
  file(MAKE_DIRECTORY ${NDD_OMPI_TMP}/${label}.${name})
  set_tests_properties(${label}.${name} PROPERTIES LABELS ${label} SKIP_RETURN_CODE 77 TIMEOUT 1800
    ENVIRONMENT "NDD_BIN=$<TARGET_FILE:ndd>;NDD_SOURCE_DIR=${CMAKE_SOURCE_DIR};NDD_BINARY_DIR=${CMAKE_BINARY_DIR};NDD_DATASETS=${NDD_SHARED_DATASETS};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_orte_tmpdir_base=${NDD_OMPI_TMP}/${label}.${name}")
endforeach()

# ---- text module (helper "text"): gumbo reference for the HTML -> visible text
# extractor. A test tool only, never part of ndd_core; skipped without gumbo.
pkg_check_modules(GUMBO QUIET IMPORTED_TARGET gumbo)
if(GUMBO_FOUND)
  add_executable(ndd_gumbo_text ${CMAKE_SOURCE_DIR}/tests/tools/ndd_gumbo_text.c)
  target_link_libraries(ndd_gumbo_text PRIVATE ndd_core PkgConfig::GUMBO)
  add_test(NAME e2e.text_gumbo COMMAND bash ${CMAKE_SOURCE_DIR}/tests/tools/text_gumbo.sh)
  set_tests_properties(e2e.text_gumbo PROPERTIES LABELS e2e SKIP_RETURN_CODE 77 TIMEOUT 600
    ENVIRONMENT "NDD_GUMBO_TEXT=$<TARGET_FILE:ndd_gumbo_text>;NDD_SOURCE_DIR=${CMAKE_SOURCE_DIR};NDD_DATASETS=${NDD_SHARED_DATASETS}")
endif()

# ---- sig module (helper "sig"): signature-stage benchmark binary for
# scripts/bench-sig.sh. Built, never registered as a test.
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/bench/bench_sig.c)
  add_executable(bench_sig ${CMAKE_SOURCE_DIR}/tests/bench/bench_sig.c)
  target_link_libraries(bench_sig PRIVATE ndd_core)
endif()

# ---- verify module (helper "verify"): verifier benchmark binary for
# scripts/bench-verify.sh. Built, never registered as a test.
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/bench/bench_verify.c)
  add_executable(bench_verify ${CMAKE_SOURCE_DIR}/tests/bench/bench_verify.c)
  target_link_libraries(bench_verify PRIVATE ndd_core)
endif()

# ---- ckpt: what loading a map shard costs P ranks, frames and seek table
# against one frame (docs/BENCHMARKS.md "Seekable map shards"). Built, never
# registered as a test.
if(EXISTS ${CMAKE_SOURCE_DIR}/tests/bench/bench_shard_load.c)
  add_executable(bench_shard_load ${CMAKE_SOURCE_DIR}/tests/bench/bench_shard_load.c)
  target_link_libraries(bench_shard_load PRIVATE ndd_core)
endif()

# ---- slurm (helper "slurm"): slurm/ndd.sbatch and slurm/ndd-stages.sh on a real
# local Slurm brought up by scripts/slurm-local.sh (1 and 2 nodes). Each test skips
# (77) where that cannot run: not root, slurm/munge packages or namespaces missing.
file(GLOB NDD_SLURM_TESTS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/slurm/*.sh)
foreach(t ${NDD_SLURM_TESTS})
  get_filename_component(name ${t} NAME_WE)
  add_test(NAME slurm.${name} COMMAND bash ${t})
  file(MAKE_DIRECTORY ${NDD_OMPI_TMP}/slurm.${name})
  set_tests_properties(slurm.${name} PROPERTIES LABELS slurm SKIP_RETURN_CODE 77 TIMEOUT 900
    ENVIRONMENT "NDD_BIN=$<TARGET_FILE:ndd>;NDD_SOURCE_DIR=${CMAKE_SOURCE_DIR};NDD_BINARY_DIR=${CMAKE_BINARY_DIR};NDD_DATASETS=${NDD_SHARED_DATASETS};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_orte_tmpdir_base=${NDD_OMPI_TMP}/slurm.${name}")
endforeach()

# ---- fuzz harnesses without libFuzzer (fuzz/replay_main.c): every committed
# seed and regression input of fuzz/seeds/<harness> and fuzz/regress/<harness>
# runs through the harness in the normal build and under ASan + UBSan. ----
if(NOT NDD_FUZZ)
  foreach(h ${NDD_FUZZ_HARNESSES})
    get_filename_component(name ${h} NAME_WE)
    add_executable(${name}_replay ${h} ${CMAKE_SOURCE_DIR}/fuzz/replay_main.c)
    target_include_directories(${name}_replay PRIVATE ${CMAKE_SOURCE_DIR}/fuzz)
    target_link_libraries(${name}_replay PRIVATE ndd_core)
    set(dirs)
    foreach(sub seeds regress)
      if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/fuzz/${sub}/${name})
        list(APPEND dirs ${CMAKE_SOURCE_DIR}/fuzz/${sub}/${name})
      endif()
    endforeach()
    add_test(NAME unit.${name}_replay COMMAND ${name}_replay ${dirs})
    set_tests_properties(unit.${name}_replay PROPERTIES LABELS unit TIMEOUT 600)
  endforeach()
endif()

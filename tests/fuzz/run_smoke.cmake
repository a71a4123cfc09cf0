# Runs one libFuzzer target for a bounded time; used by the fuzz_smoke_* tests.
#
#   cmake -DFUZZER=<binary> -DSEEDS=<committed corpus> -DWORK=<scratch corpus>
#         -DARTIFACTS=<dir> -DSECONDS=<n> -P run_smoke.cmake
#
# libFuzzer writes the inputs it finds into its first corpus directory, so
# that is a scratch directory emptied on every run; the committed seeds come
# second and are only read. A crashing input is written to ARTIFACTS.
foreach(var IN ITEMS FUZZER SEEDS WORK ARTIFACTS SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_smoke.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT IS_DIRECTORY "${SEEDS}")
  message(FATAL_ERROR "run_smoke.cmake: seed corpus ${SEEDS} does not exist")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}" "${ARTIFACTS}")

execute_process(
  COMMAND "${FUZZER}" "${WORK}" "${SEEDS}"
    -max_total_time=${SECONDS}
    -max_len=8192
    -rss_limit_mb=1024
    -timeout=10
    -print_final_stats=1
    "-artifact_prefix=${ARTIFACTS}/"
  RESULT_VARIABLE status)

if(NOT status STREQUAL "0")
  message(FATAL_ERROR "${FUZZER} failed (exit status ${status}); "
                      "the crashing input, if any, is in ${ARTIFACTS}/")
endif()

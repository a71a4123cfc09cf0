# Runs a fuzz target built on a kernel with a planted decoder defect and
# passes only if the fuzzer finds that defect; used by the
# fuzz_finds_planted_* tests.
#
#   cmake -DFUZZER=<planted binary> -DCLEAN_FUZZER=<same target, no defect>
#         -DSEEDS=<committed corpus> -DWORK=<scratch corpus> -DARTIFACTS=<dir>
#         -DSEED=<libFuzzer -seed> -DSECONDS=<upper bound>
#         -DFUNCTION=<qualified function> -DSOURCE=<kernel/...cpp>
#         -P run_planted.cmake
#
# Passes when all of these hold, and says which one failed otherwise:
#   - the fuzzer stops with a crash report (an ASan report, a UBSan runtime
#     error, or libFuzzer's out-of-memory on one allocation);
#   - the report comes after libFuzzer's INITED line, so no committed seed
#     triggers it and the fuzzer had to find it;
#   - the report's first stack trace has a frame in FUNCTION at SOURCE, the
#     place the planted defect acts (a crash anywhere else is a different bug,
#     or the harness's own check, and fails the test);
#   - the input it wrote crashes the planted binary again and runs clean on
#     the unplanted one: the defect, not the harness, is what it found.
# It prints how long the search took, in seconds and executions.
foreach(var IN ITEMS FUZZER CLEAN_FUZZER SEEDS WORK ARTIFACTS SEED SECONDS FUNCTION SOURCE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_planted.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT IS_DIRECTORY "${SEEDS}")
  message(FATAL_ERROR "run_planted.cmake: seed corpus ${SEEDS} does not exist")
endif()

file(REMOVE_RECURSE "${WORK}" "${ARTIFACTS}")
file(MAKE_DIRECTORY "${WORK}" "${ARTIFACTS}")

# The same limits as the smoke runs, but one: the planted frame defect's first
# symptom is a reservation of at least 16 MiB, and nothing else in these
# targets asks for more than a few KiB at once (inputs are at most 8 KiB), so
# an 8 MiB ceiling on one allocation reports it at the reservation itself
# rather than when the 1 GiB RSS limit is reached, if ever.
# A UBSan report needs this to carry the stack this script checks.
set(ENV{UBSAN_OPTIONS} "print_stacktrace=1")

set(flags -max_len=8192 -rss_limit_mb=1024 -malloc_limit_mb=8 -timeout=10)

string(TIMESTAMP started "%s" UTC)
execute_process(
  COMMAND "${FUZZER}" "${WORK}" "${SEEDS}" ${flags}
    -seed=${SEED}
    -max_total_time=${SECONDS}
    -print_final_stats=1
    "-artifact_prefix=${ARTIFACTS}/"
  RESULT_VARIABLE status
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output)
string(TIMESTAMP finished "%s" UTC)
math(EXPR elapsed "${finished} - ${started}")

set(log "${ARTIFACTS}/fuzzer.log")
file(WRITE "${log}" "${output}")

function(fail)
  string(JOIN "" why ${ARGV})
  message(FATAL_ERROR "${why}\n(full fuzzer output in ${log})")
endfunction()

if(status STREQUAL "0")
  fail("${FUZZER} ran ${elapsed} s with -seed=${SEED} and found nothing: "
       "the planted defect in ${FUNCTION} was not found")
endif()

# The report's headline and where it starts.
set(report_start -1)
foreach(headline IN ITEMS "ERROR: AddressSanitizer" "runtime error:" "ERROR: libFuzzer: out-of-memory (malloc(")
  string(FIND "${output}" "${headline}" at)
  if(at GREATER -1 AND (report_start EQUAL -1 OR at LESS report_start))
    set(report_start ${at})
  endif()
endforeach()
if(report_start EQUAL -1)
  fail("${FUZZER} exited with status ${status} without a sanitizer or out-of-memory report "
       "(an invariant check of the harness, a timeout, or a crash elsewhere)")
endif()

string(FIND "${output}" "INITED" inited)
if(inited EQUAL -1 OR inited GREATER report_start)
  fail("the report came while libFuzzer was still running the committed seeds: a seed "
       "triggers the planted defect, so this test does not show the fuzzer finding it")
endif()

# The first stack trace of the report: from its frame #0 to the next blank line.
string(SUBSTRING "${output}" ${report_start} -1 report)
string(REGEX MATCH "^[^\n]*" headline "${report}")
string(FIND "${report}" "#0 " stack_start)
if(stack_start EQUAL -1)
  fail("the report has no stack trace:\n${report}")
endif()
string(SUBSTRING "${report}" ${stack_start} -1 stack)
string(FIND "${stack}" "\n\n" stack_end)
if(stack_end GREATER -1)
  string(SUBSTRING "${stack}" 0 ${stack_end} stack)
endif()
string(REPLACE ";" "," stack "${stack}")
string(REPLACE "\n" ";" stack_lines "${stack}")
set(located "")
foreach(line IN LISTS stack_lines)
  string(FIND "${line}" " in ${FUNCTION}(" in_function)
  string(FIND "${line}" "${SOURCE}:" in_source)
  if(in_function GREATER -1 AND in_source GREATER -1)
    set(located "${line}")
    break()
  endif()
endforeach()
if(located STREQUAL "")
  fail("the report's first stack has no frame in ${FUNCTION} (${SOURCE}), so this is not "
       "the planted defect:\n${stack}")
endif()

file(GLOB found LIST_DIRECTORIES false "${ARTIFACTS}/crash-*" "${ARTIFACTS}/oom-*")
list(LENGTH found found_count)
if(NOT found_count EQUAL 1)
  fail("expected one crash input in ${ARTIFACTS}, found ${found_count}")
endif()

execute_process(COMMAND "${FUZZER}" ${flags} "${found}"
  RESULT_VARIABLE replay_status OUTPUT_VARIABLE replay ERROR_VARIABLE replay)
if(replay_status STREQUAL "0")
  fail("the input found, ${found}, does not crash ${FUZZER} when replayed")
endif()
execute_process(COMMAND "${CLEAN_FUZZER}" ${flags} "${found}"
  RESULT_VARIABLE clean_status OUTPUT_VARIABLE clean ERROR_VARIABLE clean)
if(NOT clean_status STREQUAL "0")
  fail("the input found, ${found}, also fails the unplanted ${CLEAN_FUZZER}:\n${clean}")
endif()

string(REGEX MATCH "stat::number_of_executed_units: [0-9]+" executed "${output}")
string(REGEX REPLACE ".* " "" executed "${executed}")
string(STRIP "${located}" located)
message(STATUS "found the planted defect with -seed=${SEED} in ${elapsed} s "
               "(${executed} executions): ${headline}\n  at ${located}\n"
               "  input: ${found} (replays; clean on the unplanted target)")

# Runs a weft-sim command and fails unless it exits with EXPECT. Used to show
# that a planted defect (--mutation) is caught (exit 10 for a safety failure,
# 1 for a sweep with any failing seed) and that the same scenario passes
# without it. The output is judged on its verdict lines only, never on text
# anywhere (a scenario echo or a final view can hold any words):
#   FIRST_FAILURE  the run's first failure line (the first line under
#                  "verdicts:" that names a property, "  F4: ...", an
#                  application's "  REBALANCE: ...") must begin
#                  with this text, so the test fails if another checker is the
#                  one that caught the defect, or if nothing failed;
#   VERDICT        a whole line of the output must be exactly this text
#                  ("mutations: every one caught by its own property").
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${SIM} ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "weft-sim ${ARGS} exited ${rc}, expected ${EXPECT}\n${out}\n${err}")
endif()
string(REPLACE ";" "\\;" out_escaped "${out}")
string(REPLACE "\n" ";" lines "${out_escaped}")
set(first_failure "")
set(in_verdicts OFF)
foreach(line IN LISTS lines)
  if(line STREQUAL "verdicts:")
    set(in_verdicts ON)
  elseif(in_verdicts AND line STREQUAL "")
    break()
  elseif(in_verdicts AND line MATCHES "^  [A-Z][A-Z0-9]*: ")
    string(SUBSTRING "${line}" 2 -1 first_failure)
    break()
  endif()
endforeach()
if(DEFINED FIRST_FAILURE AND NOT FIRST_FAILURE STREQUAL "")
  string(LENGTH "${FIRST_FAILURE}" want)
  string(SUBSTRING "${first_failure}" 0 ${want} head)
  if(NOT head STREQUAL FIRST_FAILURE)
    message(FATAL_ERROR "weft-sim ${ARGS} exited ${rc} as expected, but its first failure line is not "
                        "\"${FIRST_FAILURE}...\":\n  ${first_failure}\n${out}")
  endif()
endif()
if(DEFINED VERDICT AND NOT VERDICT STREQUAL "")
  list(FIND lines "${VERDICT}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "weft-sim ${ARGS} exited ${rc} as expected, but no line of its output is \"${VERDICT}\"\n${out}")
  endif()
endif()
message(STATUS "exit ${rc} as expected; first failure: ${first_failure}")

# Runs a command and fails unless it exits with EXPECT. Used to show that a
# planted defect (--mutation) is caught (exit 10 for a safety failure, 1 for
# a sweep with any failing seed) and that the same scenario passes without it.
# MATCH, when given, is text the output must contain (e.g. "): F5: " for a
# sweep's FAIL line), so the test fails if a different checker is the one
# that caught the defect.
separate_arguments(args UNIX_COMMAND "${ARGS}")
execute_process(COMMAND ${SIM} ${args} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL EXPECT)
  message(FATAL_ERROR "weft-sim ${ARGS} exited ${rc}, expected ${EXPECT}\n${out}\n${err}")
endif()
if(DEFINED MATCH AND NOT MATCH STREQUAL "")
  string(FIND "${out}" "${MATCH}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "weft-sim ${ARGS} exited ${rc} as expected, but its output lacks \"${MATCH}\"\n${out}")
  endif()
endif()
string(REGEX MATCH "(F[0-9]|M[0-9]|S[0-9])[^\n]*" first_failure "${out}")
message(STATUS "exit ${rc} as expected; ${first_failure}")

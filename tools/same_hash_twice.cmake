# Runs `weft-sim run --seed 42` twice and fails unless both print the same
# trace hash (property D1).
foreach(run 1 2)
  execute_process(COMMAND ${SIM} run --seed 42 --quiet OUTPUT_VARIABLE out_${run} RESULT_VARIABLE rc_${run})
  string(REGEX MATCH "trace hash: [0-9a-f]+" hash_${run} "${out_${run}}")
endforeach()
if(NOT hash_1 OR NOT "${hash_1}" STREQUAL "${hash_2}" OR NOT rc_1 EQUAL rc_2)
  message(FATAL_ERROR "weft-sim run --seed 42 is not deterministic: '${hash_1}' vs '${hash_2}'")
endif()
message(STATUS "both runs: ${hash_1}")

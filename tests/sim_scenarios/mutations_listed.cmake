# Fails unless LISTED (the mutations CMakeLists.txt gives a sweep CTest
# each) and SCENARIO_ONLY (a sim_catches_ CTest each) are together exactly
# the set weft-sim knows, so a new mutation cannot go untested, and unless
# weft-sim refuses to sweep each of SCENARIO_ONLY (no generated seed plays
# its attack: sim::MutationTarget::scenario_only).
include(${CMAKE_CURRENT_LIST_DIR}/help_names.cmake)
names_in_help(${SIM} "plant a defect in every kernel" known)
set(listed ${LISTED} ${SCENARIO_ONLY})
list(SORT listed)
if(NOT known STREQUAL listed)
  message(FATAL_ERROR "weft-sim knows mutations ${known}\nbut tests/sim_scenarios/CMakeLists.txt lists ${listed}")
endif()
foreach(mutation IN LISTS SCENARIO_ONLY)
  execute_process(COMMAND ${SIM} mutations --seeds 1..1 --mutation ${mutation} OUTPUT_QUIET ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 2 OR NOT err MATCHES "no generated seed plays the attack ${mutation} opens")
    message(FATAL_ERROR "${mutation} is listed scenario-only, but weft-sim would sweep it (exit ${rc}):\n${err}")
  endif()
endforeach()
list(LENGTH known n)
message(STATUS "all ${n} mutations have a CTest")

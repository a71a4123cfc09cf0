# Fails unless every defect an application plants (SIM mutations --help,
# "plant this defect in the application (...)") has a CTest that must
# catch it, as mutations_listed.cmake keeps the kernel's mutations:
#   - one the binary sweeps over generated seeds: a CTest plants it
#     (LISTED holds its name, or a defect=scenario pair);
#   - one the binary says a scenario file catches (PlantedDefect::
#     scenario_only, printed by `mutations` as "not swept ...
#     tests/sim_scenarios/<file> does"): a CTest plays that file with it
#     (LISTED holds defect=<file>), and the file exists;
#   - one the binary says a unit test catches (unit_test_only): that file
#     exists and names the defect.
# And LISTED plants no defect the binary does not know.
cmake_policy(SET CMP0057 NEW)  # IN_LIST, in script mode
include(${CMAKE_CURRENT_LIST_DIR}/help_names.cmake)
names_in_help(${SIM} "plant this defect in the application" known)
# Where the binary says each unswept defect is caught (one seed of the
# rest runs too; its verdicts are not this check's).
execute_process(COMMAND ${SIM} mutations --seeds 1..1 --jobs 1 OUTPUT_VARIABLE listing ERROR_VARIABLE ignored
                RESULT_VARIABLE ignored_rc)
string(REPLACE ";" "|" listing "${listing}")  # a list splits at ';'
string(REPLACE "\n" ";" lines "${listing}")
set(untested)
foreach(defect IN LISTS known)
  set(where "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^${defect} +[A-Z0-9]+ +not swept: [^|]*\\| (tests/[^ ]+) ")
      set(where ${CMAKE_MATCH_1})
    endif()
  endforeach()
  if(where MATCHES "^tests/sim_scenarios/(.+)$")
    set(file ${CMAKE_MATCH_1})
    if(NOT EXISTS ${SOURCE_DIR}/${where})
      message(FATAL_ERROR "${defect}: its scenario ${where} does not exist")
    endif()
    if(NOT "${defect}=${file}" IN_LIST LISTED)
      list(APPEND untested "${defect} (no CTest plays ${file} with it)")
    endif()
  elseif(NOT where STREQUAL "")
    if(NOT EXISTS ${SOURCE_DIR}/${where})
      message(FATAL_ERROR "${defect}: its unit test ${where} does not exist")
    endif()
    file(READ ${SOURCE_DIR}/${where} text)
    string(FIND "${text}" "${defect}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${defect}: its unit test ${where} does not name it")
    endif()
  else()
    set(planted FALSE)
    foreach(entry IN LISTS LISTED)
      if(entry STREQUAL defect OR entry MATCHES "^${defect}=")
        set(planted TRUE)
      endif()
    endforeach()
    if(NOT planted)
      list(APPEND untested "${defect}")
    endif()
  endif()
endforeach()
set(unknown)
foreach(entry IN LISTS LISTED)
  string(REGEX REPLACE "=.*$" "" defect "${entry}")
  if(NOT defect IN_LIST known)
    list(APPEND unknown ${defect})
  endif()
endforeach()
if(untested OR unknown)
  message(FATAL_ERROR "untested: ${untested}\nunknown: ${unknown}\n"
                      "(untested: planted by ${SIM}, caught by no CTest; unknown: planted by a CTest, "
                      "not known to it)")
endif()
list(LENGTH known n)
message(STATUS "all ${n} planted defects have a CTest")

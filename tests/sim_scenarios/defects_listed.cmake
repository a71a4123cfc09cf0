# Fails unless every defect an application plants (SIM mutations --help,
# "plant this defect in the application (...)") has a CTest that must
# catch it: LISTED (defects a generated-seed or scenario CTest plants) and
# UNIT_TESTED ("defect=path" pairs: a unit test drives the code by hand
# where no simulated run is known to reach it) together exactly that set,
# and each unit test's file exists and names its defect. So a new planted
# defect cannot go untested, as mutations_listed.cmake keeps the kernel's.
execute_process(COMMAND ${SIM} mutations --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
string(REGEX REPLACE "\n +" " " help "${help}")
string(REGEX MATCH "plant this defect in the application \\(([a-z_, ]+)\\)" found "${help}")
if(NOT rc EQUAL 0 OR found STREQUAL "")
  message(FATAL_ERROR "${SIM} mutations --help names no defects (exit ${rc}):\n${help}")
endif()
string(REPLACE ", " ";" known "${CMAKE_MATCH_1}")
list(SORT known)
set(tested ${LISTED})
foreach(pair IN LISTS UNIT_TESTED)
  string(REGEX MATCH "^([a-z_]+)=(.+)$" ok "${pair}")
  if(ok STREQUAL "")
    message(FATAL_ERROR "UNIT_TESTED entry '${pair}' is not defect=path")
  endif()
  set(defect ${CMAKE_MATCH_1})
  set(file ${SOURCE_DIR}/${CMAKE_MATCH_2})
  if(NOT EXISTS ${file})
    message(FATAL_ERROR "${defect}: its unit test ${file} does not exist")
  endif()
  file(READ ${file} text)
  string(FIND "${text}" "${defect}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${defect}: its unit test ${file} does not name it")
  endif()
  list(APPEND tested ${defect})
endforeach()
list(REMOVE_DUPLICATES tested)
list(SORT tested)
if(NOT known STREQUAL tested)
  set(untested ${known})
  list(REMOVE_ITEM untested ${tested})
  set(unknown ${tested})
  list(REMOVE_ITEM unknown ${known})
  message(FATAL_ERROR "untested: ${untested}\nunknown: ${unknown}\n"
                      "(untested: planted by ${SIM}, caught by no CTest; unknown: planted by a CTest, "
                      "not known to it)")
endif()
list(LENGTH known n)
message(STATUS "all ${n} planted defects have a CTest")

# Builds and runs tests/consumer the two ways a user's project takes weft:
#   MODE=installed  `cmake --install` of the weft build in BUILD_DIR into a
#                   fresh prefix, then find_package(weft CONFIG) from it
#                   (WITH_IO=ON: also a program on weft::io)
#   MODE=vendored   add_subdirectory(SOURCE_DIR) with nothing installed
# WITH_DAEMON=ON (the weft build has the daemon): also weft_consumer_daemon,
# a node of the consumer's own on weft::daemon (vendored: weft configured
# with WEFT_BUILD_DAEMON=ON), which run_daemon.py starts, asks, reads the
# metrics of and stops (PYTHON: the interpreter; python3 on the PATH if unset).
# Every step's failure stops the test with its output. Usage (from CTest):
#   cmake -DMODE=... -DSOURCE_DIR=... -DBUILD_DIR=... -DWORK_DIR=...
#         -DGENERATOR=... -DCXX=... -DBUILD_TYPE=... [-DWITH_IO=ON] [-DWITH_DAEMON=ON] [-DPYTHON=...]
#         [-DJOBS=N] -P check_consumer.cmake
# CMAKE_BUILD_PARALLEL_LEVEL in the environment overrides JOBS.
cmake_minimum_required(VERSION 3.25)

foreach(var MODE SOURCE_DIR WORK_DIR GENERATOR CXX BUILD_TYPE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_consumer: -D${var}=... is required")
  endif()
endforeach()
if(DEFINED ENV{CMAKE_BUILD_PARALLEL_LEVEL})
  set(JOBS $ENV{CMAKE_BUILD_PARALLEL_LEVEL})
elseif(NOT DEFINED JOBS)
  set(JOBS 2)
endif()
if(WITH_DAEMON AND NOT PYTHON)
  find_program(PYTHON python3 REQUIRED)
endif()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "consumer (${MODE}): ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  set(step_output "${out}${err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)
set(configure_args -S ${SOURCE_DIR}/tests/consumer -B ${build} -G ${GENERATOR}
                   -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=${BUILD_TYPE})
if(MAKE_PROGRAM)
  list(APPEND configure_args -DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM})
endif()

if(MODE STREQUAL "installed")
  if(NOT DEFINED BUILD_DIR)
    message(FATAL_ERROR "check_consumer: installed mode needs -DBUILD_DIR=...")
  endif()
  step("cmake --install ${BUILD_DIR}" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

  # What a consumer must get, and what must stay in weft's build.
  set(headers kernel/kernel.hpp kernel/drain.hpp sim/simulator.hpp auth/hmac_sha256.hpp)
  if(WITH_DAEMON)
    list(APPEND headers daemon/daemon_main.hpp app/application.hpp)
  endif()
  foreach(header IN LISTS headers)
    if(NOT EXISTS ${prefix}/include/weft/${header})
      message(FATAL_ERROR "consumer (installed): include/weft/${header} was not installed")
    endif()
  endforeach()
  file(GLOB_RECURSE installed LIST_DIRECTORIES true RELATIVE ${prefix} ${prefix}/*)
  set(build_only ${installed})
  # The load generator (weft_daemon_bench, weftd-bench) is never installed.
  list(FILTER build_only INCLUDE REGEX "build_guard|kernel_internal\\.hpp|bench")
  if(build_only)
    message(FATAL_ERROR "consumer (installed): build-only files were installed: ${build_only}")
  endif()
  file(GLOB export_files ${prefix}/lib*/cmake/weft/weftTargets*.cmake)
  if(NOT export_files)
    message(FATAL_ERROR "consumer (installed): no lib/cmake/weft/weftTargets*.cmake under ${prefix}")
  endif()
  foreach(file IN LISTS export_files)
    file(READ ${file} text)
    # PkgConfig:: targets are this build's own and cannot be found again by a consumer.
    foreach(leak weft_warnings build_guard "${SOURCE_DIR}" PkgConfig::)
      string(FIND "${text}" "${leak}" at)
      if(NOT at EQUAL -1)
        message(FATAL_ERROR "consumer (installed): ${file} mentions ${leak}: the export leaks the build tree")
      endif()
    endforeach()
  endforeach()

  list(APPEND configure_args -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
  if(WITH_IO)
    list(APPEND configure_args -DWEFT_CONSUMER_IO=ON)
  endif()
  if(WITH_DAEMON)
    list(APPEND configure_args -DWEFT_CONSUMER_DAEMON=ON)
  endif()
  step("configuring the consumer against ${prefix}" ${CMAKE_COMMAND} ${configure_args})
  # The weft it found must be the one just installed, not another on the system.
  string(FIND "${step_output}" "from ${prefix}/" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "consumer (installed): find_package found another weft:\n${step_output}")
  endif()

  # A component the install lacks fails find_package, naming it and why.
  if(WITH_DAEMON)
    set(missing no_such_component)
    set(missing_why "no component no_such_component \\(not one of weft's: [a-z_ ]+\\)")
  else()
    set(missing daemon)
    set(missing_why "no component daemon \\(weft was built with WEFT_BUILD_DAEMON=OFF\\)")
  endif()
  file(WRITE ${WORK_DIR}/missing/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.25)\nproject(missing LANGUAGES CXX)\n"
       "find_package(weft CONFIG REQUIRED COMPONENTS sim ${missing})\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK_DIR}/missing -B ${WORK_DIR}/missing/build -G ${GENERATOR}
                          -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " said "${err}")  # CMake wraps the reason over lines
  if(rc EQUAL 0 OR NOT said MATCHES "${missing_why}")
    message(FATAL_ERROR "consumer (installed): COMPONENTS ${missing} did not fail naming it (exit ${rc}):\n${out}${err}")
  endif()
  message(STATUS "consumer (installed): COMPONENTS ${missing} refused: ${CMAKE_MATCH_0}")
elseif(MODE STREQUAL "vendored")
  # Warnings as errors for weft's sources here, with the build type's own
  # flags but for the optimisation level: -O1 where the build type optimises
  # (CMake's Release: -O3), NDEBUG kept. This build proves the package's
  # shape (add_subdirectory, the options' defaults, the programs it links and
  # runs); weft's libraries, io/ and the daemon compiled again at -O3 took
  # 190 CPU s against 126 at -O1. The release stage compiles them all at -O2
  # with warnings as errors, and the gcc-o3 build weft-sim's at -O3.
  # With the daemon asked for, weft's io/ follows it by default.
  string(TOUPPER "${BUILD_TYPE}" config)
  if(config MATCHES "^(RELEASE|MINSIZEREL|RELWITHDEBINFO)$")
    list(APPEND configure_args "-DCMAKE_CXX_FLAGS_${config}=-O1 -DNDEBUG")
  endif()
  set(asked_on)
  if(WITH_DAEMON)
    list(APPEND configure_args -DWEFT_CONSUMER_DAEMON=ON -DWEFT_BUILD_DAEMON=ON)
    set(asked_on BUILD_DAEMON BUILD_IO)
  endif()
  step("configuring the consumer with add_subdirectory(${SOURCE_DIR})"
       ${CMAKE_COMMAND} ${configure_args} -DWEFT_SOURCE_DIR=${SOURCE_DIR} -DWEFT_WERROR=ON)
  # As a subproject weft builds its libraries only.
  file(STRINGS ${build}/CMakeCache.txt cache
       REGEX "^WEFT_(BUILD_TESTS|BUILD_BENCH|BUILD_TOOLS|BUILD_DAEMON|BUILD_IO|INSTALL):")
  foreach(line IN LISTS cache)
    string(REGEX REPLACE "^WEFT_([A-Z_]+):.*" "\\1" option "${line}")
    if(option IN_LIST asked_on)
      if(NOT line MATCHES ":BOOL=ON$")
        message(FATAL_ERROR "consumer (vendored): WEFT_${option} was asked for: ${line}")
      endif()
    elseif(NOT line MATCHES ":BOOL=OFF$")
      message(FATAL_ERROR "consumer (vendored): as a subproject weft should default to OFF: ${line}")
    endif()
  endforeach()
  list(LENGTH cache options_seen)
  if(NOT options_seen EQUAL 6)
    message(FATAL_ERROR "consumer (vendored): expected 6 WEFT_ options in the cache, found: ${cache}")
  endif()
else()
  message(FATAL_ERROR "check_consumer: MODE must be installed or vendored, not ${MODE}")
endif()

# The consumer's programs and the weft libraries they link, no more: a
# vendored weft with the daemon would also build its tools (weftd,
# weftd-bench, weftctl, weft-counterd), which no consumer program needs.
set(programs weft_consumer weft_consumer_sim)
if(WITH_IO AND MODE STREQUAL "installed")
  list(APPEND programs weft_consumer_io)
endif()
if(WITH_DAEMON)
  list(APPEND programs weft_consumer_daemon)
endif()
step("building the consumer" ${CMAKE_COMMAND} --build ${build} --parallel ${JOBS} --target ${programs})
step("running the consumer" ${build}/weft_consumer)
if(NOT step_output MATCHES "consumer: seed [0-9]+ \\([1-9][0-9]* faults\\) passed")
  message(FATAL_ERROR "consumer (${MODE}): unexpected output:\n${step_output}")
endif()
message(STATUS "${step_output}")

# Its own simulator binary: a sweep of its workload passes; with its planted
# defect a sweep fails, and the replay command it printed fails again with
# the same first line.
step("sweeping the consumer's workload" ${build}/weft_consumer_sim sweep --seeds 1..4 --nodes 3 --chaos 10 --jobs 2)
if(NOT step_output MATCHES "sweep: 4 passed, 0 failed")
  message(FATAL_ERROR "consumer (${MODE}): its sweep did not pass:\n${step_output}")
endif()
execute_process(COMMAND ${build}/weft_consumer_sim sweep --seeds 1..4 --nodes 3 --chaos 10 --defect garble
                RESULT_VARIABLE rc OUTPUT_VARIABLE planted ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT planted MATCHES "FAIL seed [0-9]+ \\(exit ([0-9]+)\\): (ECHO: [^\n]*)\n  replay: weft_consumer_sim ([^\n]*)")
  message(FATAL_ERROR "consumer (${MODE}): the planted garble was not caught as ECHO (exit ${rc}):\n${planted}${err}")
endif()
set(expected_exit ${CMAKE_MATCH_1})
set(expected_line "${CMAKE_MATCH_2}")
separate_arguments(replay_args UNIX_COMMAND "${CMAKE_MATCH_3}")
execute_process(COMMAND ${build}/weft_consumer_sim ${replay_args} RESULT_VARIABLE rc OUTPUT_VARIABLE replayed)
string(FIND "${replayed}" "${expected_line}" at)
if(NOT rc EQUAL expected_exit OR at EQUAL -1)
  message(FATAL_ERROR "consumer (${MODE}): weft_consumer_sim ${CMAKE_MATCH_3} exited ${rc} (the sweep: ${expected_exit}) "
                      "without \"${expected_line}\":\n${replayed}")
endif()
message(STATUS "consumer (${MODE}): planted garble caught, and replayed by: weft_consumer_sim ${CMAKE_MATCH_3}")
if(WITH_IO AND MODE STREQUAL "installed")
  step("running the io consumer" ${build}/weft_consumer_io)
  message(STATUS "${step_output}")
endif()
if(WITH_DAEMON)
  step("running the consumer's daemon" ${PYTHON} ${SOURCE_DIR}/tests/consumer/run_daemon.py
       ${build}/weft_consumer_daemon ${WORK_DIR})
  message(STATUS "${step_output}")
endif()
message(STATUS "consumer (${MODE}): built and ran")

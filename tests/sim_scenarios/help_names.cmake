# names_in_help(SIM PHRASE OUT): the names a simulator's `mutations --help`
# lists in parentheses after PHRASE ("plant a defect in every kernel",
# "plant this defect in the application"), sorted, into OUT; fails if it
# lists none. For the scripts that hold the CTests to those lists.
function(names_in_help sim phrase out)
  execute_process(COMMAND ${sim} mutations --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
  string(REGEX REPLACE "\n +" " " help "${help}")
  string(REGEX MATCH "${phrase} \\(([a-z_, ]+)\\)" found "${help}")
  if(NOT rc EQUAL 0 OR found STREQUAL "")
    message(FATAL_ERROR "${sim} mutations --help lists nothing after '${phrase}' (exit ${rc}):\n${help}")
  endif()
  string(REPLACE ", " ";" names "${CMAKE_MATCH_1}")
  list(SORT names)
  set(${out} ${names} PARENT_SCOPE)
endfunction()

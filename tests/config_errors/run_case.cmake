# One config_errors case: run podsim on bad input and check that it is refused properly.
#
#   cmake -DPODSIM=<exe> -DWORK_DIR=<scratch dir> -DCASE_FILE=<bad.yaml> -P run_case.cmake
#   cmake -DPODSIM=<exe> -DWORK_DIR=<scratch dir> -DARGS=<a|b|c> -DEXPECT=<text>
#         [-DWHERE=<file name>] [-DOUTPUT=<path>] -P run_case.cmake
#
# A file case reads its expectations from the file's leading comments:
#   # expect: <substring of the error message>            (first line, required)
#   # where: <file name>   the file the message must locate with ":<line>"; default: the case
#                          file itself (used when the error is in an included file). It may
#                          end in ":<line>" to pin the line (the message then has <file>:<line>:<col>)
#   # command: run         optional: the case is a scenario, run only as
#                            podsim run FILE -o WORK_DIR/out.h5
#   # command: sweep       optional: the case is a sweep (sweep_*.yaml), run only as
#                            podsim sweep FILE -q -o WORK_DIR/out.h5
# Without `# command:` the case is a topology and is run twice:
#   podsim collective --topology FILE --sizes 1KiB -o WORK_DIR/out.h5
#   podsim topo FILE      (the same message; the root key is "document" instead of "topology")
# A command-line case runs `podsim ARGS -o OUTPUT` (ARGS separated by '|', the subcommand first);
# WHERE, if given, is a file that the message must locate with ":<line>".
#
# Every run must: exit with code 2; print "podsim: error: " and the expected text on stderr;
# name WHERE followed by ":<line>"; leave neither OUTPUT nor any "*.tmp.*" file behind.

cmake_minimum_required(VERSION 3.20)

foreach(var PODSIM WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_case.cmake: -D${var}=... is required")
  endif()
endforeach()

set(failures "")

# Escapes `text` for use as a literal inside a CMake regular expression.
function(regex_escape text out)
  string(REGEX REPLACE "([][.*+?^$()|\\\\])" "\\\\\\1" escaped "${text}")
  set(${out} "${escaped}" PARENT_SCOPE)
endfunction()

# Runs podsim with `arguments` and checks the outcome against `expect` and `where`.
function(check_run label arguments expect where output)
  execute_process(
    COMMAND "${PODSIM}" ${arguments}
    WORKING_DIRECTORY "${RUN_DIR}"
    RESULT_VARIABLE code
    OUTPUT_VARIABLE out
    ERROR_VARIABLE err
    TIMEOUT 30)
  string(REPLACE ";" " " shown "${arguments}")
  set(problems "")
  if(NOT code STREQUAL "2")
    string(APPEND problems "  - exit code is '${code}', expected 2\n")
  endif()
  if(NOT err MATCHES "^podsim: error: ")
    string(APPEND problems "  - stderr does not start with 'podsim: error: '\n")
  endif()
  string(FIND "${err}" "${expect}" at)
  if(at EQUAL -1)
    string(APPEND problems "  - stderr does not contain: ${expect}\n")
  endif()
  if(NOT where STREQUAL "")
    regex_escape("${where}" where_re)
    if(NOT err MATCHES "(^|[ /])${where_re}:[0-9]+")
      string(APPEND problems "  - stderr does not locate the error as ${where}:<line>\n")
    endif()
  endif()
  if(NOT output STREQUAL "" AND EXISTS "${output}")
    string(APPEND problems "  - the output file ${output} exists after the failed run\n")
  endif()
  if(NOT output STREQUAL "")
    get_filename_component(output_dir "${output}" DIRECTORY)
    file(GLOB leftovers "${output_dir}/*.tmp.*")
    if(leftovers)
      string(APPEND problems "  - temporary files left behind: ${leftovers}\n")
    endif()
  endif()
  if(problems STREQUAL "")
    message(STATUS "ok   ${label}: podsim ${shown}\n     ${err}")
  else()
    set(failures "${failures}${label}: podsim ${shown}\n  exit code: ${code}\n  stderr: ${err}  stdout: ${out}\n${problems}"
        PARENT_SCOPE)
  endif()
endfunction()

# A fresh scratch directory, so an output file or temporary file can only come from this run.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
if(NOT DEFINED OUTPUT)
  set(OUTPUT "${WORK_DIR}/out.h5")
endif()

if(DEFINED CASE_FILE)
  if(NOT EXISTS "${CASE_FILE}")
    message(FATAL_ERROR "case file ${CASE_FILE} does not exist")
  endif()
  file(STRINGS "${CASE_FILE}" header LIMIT_COUNT 5 ENCODING UTF-8)
  list(GET header 0 first)
  if(NOT first MATCHES "^# expect: (.+)$")
    message(FATAL_ERROR "${CASE_FILE}: the first line must be '# expect: <text>'")
  endif()
  set(EXPECT "${CMAKE_MATCH_1}")
  get_filename_component(WHERE "${CASE_FILE}" NAME)
  set(CASE_COMMAND "")
  foreach(line IN LISTS header)
    if(line MATCHES "^# where: (.+)$")
      set(WHERE "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^# command: (.+)$")
      set(CASE_COMMAND "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  # Run from the case's directory with a relative path, as a user would type it.
  get_filename_component(RUN_DIR "${CASE_FILE}" DIRECTORY)
  get_filename_component(name "${CASE_FILE}" NAME)
  if(CASE_COMMAND STREQUAL "run")
    check_run("run" "run;${name};-o;${OUTPUT}" "${EXPECT}" "${WHERE}" "${OUTPUT}")
  elseif(CASE_COMMAND STREQUAL "sweep")
    check_run("sweep" "sweep;${name};-q;-o;${OUTPUT}" "${EXPECT}" "${WHERE}" "${OUTPUT}")
  elseif(NOT CASE_COMMAND STREQUAL "")
    message(FATAL_ERROR "${CASE_FILE}: unknown '# command: ${CASE_COMMAND}'; it is 'run' or 'sweep'")
  else()
    check_run("collective" "collective;--topology;${name};--sizes;1KiB;-o;${OUTPUT}" "${EXPECT}" "${WHERE}" "${OUTPUT}")
    # `podsim topo` reads the file without the request around it: the root is the document.
    set(topo_expect "${EXPECT}")
    if(topo_expect MATCHES "^topology\\.(.*)$")
      set(topo_expect "${CMAKE_MATCH_1}")
    elseif(topo_expect MATCHES "^topology: (.*)$")
      set(topo_expect "document: ${CMAKE_MATCH_1}")
    endif()
    check_run("topo" "topo;${name}" "${topo_expect}" "${WHERE}" "")
  endif()
elseif(DEFINED ARGS)
  if(NOT DEFINED EXPECT)
    message(FATAL_ERROR "run_case.cmake: a command-line case needs -DEXPECT=...")
  endif()
  if(NOT DEFINED WHERE)
    set(WHERE "")
  endif()
  set(RUN_DIR "${WORK_DIR}")
  string(REPLACE "|" ";" arguments "${ARGS}")
  check_run("command line" "${arguments};-o;${OUTPUT}" "${EXPECT}" "${WHERE}" "${OUTPUT}")
else()
  message(FATAL_ERROR "run_case.cmake: give -DCASE_FILE=... or -DARGS=...")
endif()

if(NOT failures STREQUAL "")
  message(FATAL_ERROR "podsim did not refuse the bad input as expected:\n${failures}")
endif()

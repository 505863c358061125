#!/bin/sh
# CI stage: the unit tests (ctest -L unit) under valgrind memcheck.  Any
# memory error or definite leak fails the stage (--error-exitcode).  Check
# runs each test in-process (CK_FORK=no) so valgrind sees all of it.
# Usage: scripts/ci-memcheck.sh [BUILD_DIR]   (default build-memcheck; a
# plain build: valgrind and ASan do not mix)
set -eu
. "$(dirname "$0")/ci-lib.sh"
build=${1:-$top/build-memcheck}
command -v valgrind >/dev/null || { echo "ci-memcheck: valgrind is not installed (scripts/install-deps.sh)" >&2; exit 1; }
cmake -S "$top" -B "$build" -DFSLAB_WERROR=ON -DFSLAB_TESTS=ON -DFSLAB_SANITIZE=OFF
cmake --build "$build" -j"$jobs"
script=$(mktemp "${TMPDIR:-/tmp}/fslab-memcheck.XXXXXX.cmake")
trap 'rm -f "$script"' EXIT
cat >"$script" <<EOS
set(CTEST_SOURCE_DIRECTORY "$top")
set(CTEST_BINARY_DIRECTORY "$build")
set(CTEST_SITE ci)
set(CTEST_BUILD_NAME memcheck)
set(CTEST_MEMORYCHECK_COMMAND "$(command -v valgrind)")
set(CTEST_MEMORYCHECK_COMMAND_OPTIONS "--error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --track-origins=yes --num-callers=30")
ctest_start(Experimental)
ctest_memcheck(INCLUDE_LABEL "^unit\$" RETURN_VALUE rv DEFECT_COUNT defects PARALLEL_LEVEL $jobs)
message("memcheck: ctest returned \${rv}, \${defects} defect(s)")
if(NOT rv EQUAL 0 OR NOT defects EQUAL 0)
  file(GLOB logs "$build/Testing/Temporary/MemoryChecker.*.log")
  foreach(l \${logs})
    file(READ "\${l}" text)
    if(text MATCHES "ERROR SUMMARY: [1-9]|definitely lost: [1-9]")
      message("---- \${l}\n\${text}")
    endif()
  endforeach()
  message(FATAL_ERROR "memcheck found errors")
endif()
EOS
CK_FORK=no ctest -S "$script" -V

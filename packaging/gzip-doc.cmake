# cmake -DIN=FILE -DOUT=FILE.gz [-DVERSION=X.Y.Z] -P gzip-doc.cmake
#
# Writes IN compressed as OUT the way Debian wants documentation compressed
# (gzip -9n: best compression, no file name or time stamp, so the same
# source gives the same bytes).  With VERSION, the version in a man page's
# .TH line ("fslab X.Y.Z") and @FSLAB_DEB_VERSION@ in a changelog are
# replaced, so the installed files carry the version CMake's project() sets.
if(NOT IN OR NOT OUT)
  message(FATAL_ERROR "gzip-doc.cmake: pass -DIN=FILE -DOUT=FILE.gz")
endif()
file(READ "${IN}" text)
if(VERSION)
  string(REGEX REPLACE "(\n?\\.TH [^\n]*\"fslab )[0-9][0-9.]*\"" "\\1${VERSION}\"" text "${text}")
  string(REPLACE "@FSLAB_DEB_VERSION@" "${VERSION}" text "${text}")
endif()
string(REGEX REPLACE "\\.gz$" "" plain "${OUT}")
file(WRITE "${plain}" "${text}")
execute_process(COMMAND gzip -9nf "${plain}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip -9nf ${plain} failed (${rc}); gzip is in Debian's essential set: is it on PATH?")
endif()

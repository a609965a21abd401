# SPDX-License-Identifier: BSD-2-Clause-Patent
# Script mode (cmake -P): install the live page's npm packages from the
# lockfile (web/package-lock.json) into DIR with `npm ci`. A failure (no npm,
# no network) is not an error: the page is built without its charts.
#   -DSRC=web -DDIR=build/web/npm -DSTAMP=file
file(MAKE_DIRECTORY "${DIR}")
configure_file("${SRC}/package.json" "${DIR}/package.json" COPYONLY)
configure_file("${SRC}/package-lock.json" "${DIR}/package-lock.json" COPYONLY)
find_program(_npm npm)
if(_npm)
  execute_process(COMMAND "${_npm}" ci --no-audit --no-fund --ignore-scripts
                  WORKING_DIRECTORY "${DIR}" RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(WARNING "npm ci failed: the live page has no charts\n${_err}")
  endif()
else()
  message(WARNING "npm not found: the live page has no charts")
endif()
file(TOUCH "${STAMP}")

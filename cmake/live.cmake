# SPDX-License-Identifier: BSD-2-Clause-Patent
# `fovea live`: the web view of the delta stream (docs/live.md). The server side
# needs libwebsockets (FOVEA_LIVE); the page's decoder is fovea's stream decoder
# compiled to WebAssembly with emscripten (FOVEA_LIVE_WASM), with zstd's C sources
# fetched from Debian's source package at build time (checked by SHA-256, not
# committed) and xxHash from its header (Debian's libxxhash-dev is header-inline
# capable). Without emscripten the page is served but says it has no decoder;
# without node_modules (npm ci) the page has no charts. Everything the page needs
# is embedded in the fovea executable (cmake/embed.cmake): nothing to install.
set(FOVEA_LIVE "AUTO" CACHE STRING
    "Build `fovea live` (needs libwebsockets and the delta streamer): AUTO, ON, OFF")
set_property(CACHE FOVEA_LIVE PROPERTY STRINGS AUTO ON OFF)
set(FOVEA_LIVE_WASM "AUTO" CACHE STRING
    "Build the live page's WebAssembly decoder (needs emcc and zstd's sources): AUTO, ON, OFF")
set_property(CACHE FOVEA_LIVE_WASM PROPERTY STRINGS AUTO ON OFF)
set(FOVEA_ZSTD_SOURCE_URL
    "http://deb.debian.org/debian/pool/main/libz/libzstd/libzstd_1.5.4+dfsg2.orig.tar.xz"
    CACHE STRING "zstd's sources for the WebAssembly decoder (Debian's orig tarball)")
set(FOVEA_ZSTD_SOURCE_SHA256 "8cf4bbb65e77ec348d052c8d6230eba66d435bddf64c8b5be2fcb16880c19953"
    CACHE STRING "SHA-256 of FOVEA_ZSTD_SOURCE_URL")
set(FOVEA_ZSTD_SOURCE_TARBALL "" CACHE FILEPATH
    "A local copy of zstd's source tarball (offline builds): used instead of the URL")

set(FOVEA_HAVE_LIVE OFF)
if(NOT FOVEA_LIVE STREQUAL "OFF")
  pkg_check_modules(LWS IMPORTED_TARGET libwebsockets)
  if(LWS_FOUND AND FOVEA_HAVE_STREAM)
    set(FOVEA_HAVE_LIVE ON)
  elseif(FOVEA_LIVE STREQUAL "ON")
    message(FATAL_ERROR "FOVEA_LIVE=ON needs libwebsockets (Debian: libwebsockets-dev) and the "
                        "delta streamer (libzstd-dev libxxhash-dev)")
  endif()
endif()
message(STATUS "fovea: live web view ${FOVEA_HAVE_LIVE}")
# a camera source's controls on the page: the kernel's V4L2 header (Linux)
set(FOVEA_HAVE_V4L2 OFF)
if(FOVEA_HAVE_LIVE)
  include(CheckIncludeFile)
  # struct timespec in it: POSIX, as the CLI is compiled
  check_include_file(linux/videodev2.h FOVEA_HAVE_VIDEODEV2_H "-D_POSIX_C_SOURCE=200809L")
  if(FOVEA_HAVE_VIDEODEV2_H)
    set(FOVEA_HAVE_V4L2 ON)
  endif()
  message(STATUS "fovea: live camera controls (V4L2) ${FOVEA_HAVE_V4L2}")
endif()

set(FOVEA_HAVE_LIVE_WASM OFF)
if(FOVEA_HAVE_LIVE AND NOT FOVEA_LIVE_WASM STREQUAL "OFF")
  find_program(FOVEA_EMCC emcc)
  find_path(FOVEA_XXHASH_H xxhash.h)
  set(_zstd_tar "${FOVEA_ZSTD_SOURCE_TARBALL}")
  if(FOVEA_EMCC AND FOVEA_XXHASH_H AND NOT _zstd_tar)
    set(_zstd_tar "${PROJECT_BINARY_DIR}/web/zstd-src.tar.xz")
    if(NOT EXISTS "${_zstd_tar}")
      message(STATUS "fovea: fetching zstd's sources for the WebAssembly decoder")
      file(DOWNLOAD "${FOVEA_ZSTD_SOURCE_URL}" "${_zstd_tar}.part" STATUS _st TIMEOUT 120
           EXPECTED_HASH SHA256=${FOVEA_ZSTD_SOURCE_SHA256})
      list(GET _st 0 _code)
      if(_code EQUAL 0)
        file(RENAME "${_zstd_tar}.part" "${_zstd_tar}")
      else()
        file(REMOVE "${_zstd_tar}.part")
        message(STATUS "fovea: cannot fetch zstd's sources (${_st})")
        set(_zstd_tar "")
      endif()
    endif()
  endif()
  if(FOVEA_EMCC AND FOVEA_XXHASH_H AND _zstd_tar)
    set(_zstd_dir "${PROJECT_BINARY_DIR}/web/zstd-src")
    if(NOT EXISTS "${_zstd_dir}/lib/zstd.h")
      file(ARCHIVE_EXTRACT INPUT "${_zstd_tar}" DESTINATION "${_zstd_dir}.tmp")
      file(GLOB _top "${_zstd_dir}.tmp/*")
      file(REMOVE_RECURSE "${_zstd_dir}")
      file(RENAME "${_top}" "${_zstd_dir}")
      file(REMOVE_RECURSE "${_zstd_dir}.tmp")
    endif()
    if(EXISTS "${_zstd_dir}/lib/zstd.h")
      set(FOVEA_HAVE_LIVE_WASM ON)
      set(FOVEA_ZSTD_DIR "${_zstd_dir}")
    endif()
  elseif(FOVEA_LIVE_WASM STREQUAL "ON")
    message(FATAL_ERROR "FOVEA_LIVE_WASM=ON needs emcc (Debian: emscripten), xxhash.h and zstd's "
                        "sources (FOVEA_ZSTD_SOURCE_URL or FOVEA_ZSTD_SOURCE_TARBALL)")
  endif()
endif()
if(FOVEA_HAVE_LIVE)
  message(STATUS "fovea: live page's WebAssembly decoder ${FOVEA_HAVE_LIVE_WASM}")
endif()

#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# The installed tree as a user gets it from `make install`: the shared library
# (with its SONAME, exporting only the public API) and the static one, each
# linked to a small program through `pkg-config fovea` exactly as README says,
# and a program written for KLT 1.3.4 through `pkg-config fovea-klt`.
set -u
: "${FOVEA_BUILD_DIR:?}" "${FOVEA_SOURCE_DIR:?}"
for tool in cc pkg-config readelf; do
    command -v "$tool" >/dev/null 2>&1 || { echo "test_install: $tool not found: skipped"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fovea_install.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; [ -s "$tmp/log" ] && head -n 40 "$tmp/log" >&2; exit 1; }

prefix="$tmp/prefix"
cmake --install "$FOVEA_BUILD_DIR" --prefix "$prefix" >"$tmp/log" 2>&1 || fail "cmake --install"
libdir=$(find "$prefix" -name fovea.pc -path '*pkgconfig*' | head -n 1 | xargs dirname | xargs dirname)
[ -n "$libdir" ] || fail "fovea.pc not installed"
# prepended: the dependencies' .pc files may live on the caller's path
export PKG_CONFIG_PATH="$libdir/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
run_path="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -f "$libdir/libfovea.a" ] || fail "libfovea.a not installed"
[ -f "$prefix/bin/fovea" ] || fail "the fovea CLI not installed"
so=$(readlink -f "$libdir/libfovea.so") || fail "libfovea.so not installed"
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libfovea.so.0" ] || fail "SONAME is '$soname', expected libfovea.so.0"
[ -e "$libdir/$soname" ] || fail "$soname link missing in $libdir"

# exports: every dynamic symbol the library defines is public API (fovea_*,
# KLT 1.3.4's KLT*/_KLT*/pgm*/ppm* names); nothing internal leaks
readelf --dyn-syms -W "$so" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $4 == "FUNC" { print $8 }' |
    sed 's/@.*//' | sort -u >"$tmp/exports"
[ -s "$tmp/exports" ] || fail "the shared library exports no function"
grep -v -E '^(fovea_|_?KLT|pgm|ppm|_init$|_fini$)' "$tmp/exports" >"$tmp/leaks" &&
    { sed 's/^/  /' "$tmp/leaks" | head -n 20 >&2; fail "internal functions exported (above)"; }

# ... and every function the installed headers declare is exported
sed -e '/^ *\*/d' -e '/^ *\/\*/d' -e '/^ *typedef/d' -e '/^ *#/d' "$prefix"/include/fovea/*.h \
    "$prefix"/include/fovea/compat/*.h |
    grep -oE '\b(fovea_[a-z0-9_]+|_?KLT[A-Z][a-z][A-Za-z0-9_]*|pgm[A-Z][A-Za-z]*|ppm[A-Z][A-Za-z]*) *\(' | sed 's/ *($//' |
    sort -u >"$tmp/declared"
[ -s "$tmp/declared" ] || fail "no function declarations found in the installed headers"
comm -23 "$tmp/declared" "$tmp/exports" >"$tmp/missing"
[ -s "$tmp/missing" ] && { sed 's/^/  /' "$tmp/missing" | head -n 20 >&2; fail "declared but not exported (above)"; }

# KLT 1.3.4's compatibility headers are in include/fovea/compat, not at the top
# of the include directory, where they would shadow other libraries' headers
for h in klt.h pnmio.h; do
    [ -f "$prefix/include/fovea/compat/$h" ] || fail "include/fovea/compat/$h not installed"
    [ -e "$prefix/include/$h" ] && fail "$h installed at the top of the include directory"
done
[ -f "$libdir/pkgconfig/fovea-klt.pc" ] || fail "fovea-klt.pc not installed"

# shared: cc prog.c $(pkg-config --cflags --libs fovea)
# shellcheck disable=SC2046
cc -o "$tmp/consumer_shared" "$FOVEA_SOURCE_DIR/tests/install/consumer.c" \
    $(pkg-config --cflags --libs fovea) >"$tmp/log" 2>&1 || fail "linking against the shared library"
LD_LIBRARY_PATH="$run_path" "$tmp/consumer_shared" >"$tmp/out" 2>"$tmp/log" || fail "the shared consumer failed"
grep -q "^fovea " "$tmp/out" || fail "the shared consumer printed: $(cat "$tmp/out")"
LD_LIBRARY_PATH="$run_path" ldd "$tmp/consumer_shared" 2>/dev/null | grep -q "libfovea.so.0 => $libdir" ||
    fail "the shared consumer does not load $libdir/libfovea.so.0"

# a program written for KLT 1.3.4 (#include "klt.h", "pnmio.h"):
# cc prog.c $(pkg-config --cflags --libs fovea-klt)
# shellcheck disable=SC2046
cc -o "$tmp/consumer_klt" "$FOVEA_SOURCE_DIR/tests/install/consumer_klt.c" \
    $(pkg-config --cflags --libs fovea-klt) >"$tmp/log" 2>&1 || fail "building a KLT program with fovea-klt.pc"
LD_LIBRARY_PATH="$run_path" "$tmp/consumer_klt" "$tmp/consumer_klt.pgm" >"$tmp/out" 2>"$tmp/log" ||
    fail "the KLT program failed: $(cat "$tmp/out")"
grep -q "^klt [1-9][0-9]* features" "$tmp/out" || fail "the KLT program printed: $(cat "$tmp/out")"

# static: the archive and its private dependencies from pkg-config --static
# (-Wl,-Bstatic makes the linker take libfovea.a over libfovea.so)
# shellcheck disable=SC2046
cc -o "$tmp/consumer_static" "$FOVEA_SOURCE_DIR/tests/install/consumer.c" \
    $(pkg-config --cflags fovea) -L"$libdir" -Wl,-Bstatic -lfovea -Wl,-Bdynamic \
    $(pkg-config --static --libs fovea | sed 's/-lfovea\b//') >"$tmp/log" 2>&1 ||
    fail "linking against the static library"
ldd "$tmp/consumer_static" 2>/dev/null | grep -q libfovea && fail "the static consumer loads libfovea.so"
"$tmp/consumer_static" >"$tmp/out" 2>"$tmp/log" || fail "the static consumer failed"
grep -q "^fovea " "$tmp/out" || fail "the static consumer printed: $(cat "$tmp/out")"
# the GStreamer plugin, where it is built: in lib/gstreamer-1.0, finding the
# installed libfovea.so.0 by itself (RPATH $ORIGIN/..), listed by gst-inspect-1.0
gst=""
if [ "${FOVEA_HAVE_GST:-OFF}" = ON ]; then
    plugin="$libdir/gstreamer-1.0/libgstfovea.so"
    [ -f "$plugin" ] || fail "the GStreamer plugin is not installed in $libdir/gstreamer-1.0"
    loaded=$(env -u LD_LIBRARY_PATH ldd "$plugin" 2>/dev/null | sed -n 's/.*libfovea\.so\.0 => \([^ ]*\).*/\1/p')
    [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$(readlink -f "$libdir/libfovea.so.0")" ] ||
        fail "the installed plugin does not load $libdir/libfovea.so.0 (ldd: ${loaded:-not found})"
    if command -v gst-inspect-1.0 >/dev/null 2>&1; then
        GST_PLUGIN_PATH="$libdir/gstreamer-1.0" GST_REGISTRY="$tmp/registry.bin" \
            gst-inspect-1.0 fovea >"$tmp/out" 2>"$tmp/log" || fail "gst-inspect-1.0 fovea"
        for e in foveastitch foveavmaf foveadiff foveatrack; do
            grep -q "$e" "$tmp/out" || fail "gst-inspect-1.0 fovea does not list $e"
        done
        gst=", the GStreamer plugin loads"
    fi
fi
echo "test_install: shared ($soname, $(wc -l <"$tmp/exports") exported functions), KLT 1.3.4 program (fovea-klt.pc) and static links work$gst"

# SPDX-License-Identifier: BSD-2-Clause-Patent
# shellcheck shell=bash
# Source this file (bash) to make GStreamer usable on a machine without it (the
# lent GPU machine: Ubuntu 24.04, no GStreamer, no internet): setup_gst unpacks
# the Debian 12 packages that scripts/gst-carry.sh put in .gst/*.deb into the
# prefix .gst-root/ (dpkg -x, nothing goes into /; outside .gst/ so that the
# carried folder stays the .deb files alone) and exports PKG_CONFIG_PATH,
# CPATH, LIBRARY_PATH, LD_LIBRARY_PATH, PATH (gst-launch-1.0, gst-inspect-1.0),
# GST_PLUGIN_SYSTEM_PATH_1_0 (the prefix's plugins only) and
# GST_PLUGIN_SCANNER_1_0. ROOT must name the repository root. Nothing is done
# when pkg-config already finds gstreamer-1.0 and gstreamer-check-1.0.
#   ROOT=$PWD; . scripts/gst-env.sh; setup_gst
# As in cjson-env.sh, the .pc files are copied with their /usr paths pointing
# into the prefix (PKG_CONFIG_SYSROOT_DIR would move every package's paths).
# A carried library the machine has itself (ldconfig -p: zlib, glib, libmount,
# ...) is replaced by a link to the machine's copy, so that no program of the
# machine gets an older Debian build through LD_LIBRARY_PATH; GStreamer's own
# libraries (libgst*) always come from the prefix, to match its plugins and
# tools. Plugins whose libraries are missing (most of plugins-good, whose
# dependencies are not carried) are moved out of the plugin path, so that the
# registry scan neither fails nor warns.
setup_gst() {
    if pkg-config --exists gstreamer-1.0 gstreamer-check-1.0 2>/dev/null &&
        command -v gst-launch-1.0 >/dev/null 2>&1; then
        echo "GStreamer: found by pkg-config ($(pkg-config --modversion gstreamer-1.0))"
        return 0
    fi
    local debs=("$ROOT"/.gst/*.deb)
    if [ ! -e "${debs[0]}" ]; then
        echo "GStreamer: pkg-config cannot find gstreamer-1.0 and there are no .gst/*.deb to unpack"
        echo "           (on a Debian 12 machine: scripts/gst-carry.sh)"
        return 1
    fi
    local root="$ROOT/.gst-root"
    local arch=x86_64-linux-gnu
    local lib="$root/usr/lib/$arch"
    local stamp
    stamp=$(stat -c '%n %s %Y' "${debs[@]}" | cksum)
    if [ "$(cat "$root/.stamp" 2>/dev/null)" != "$stamp" ]; then
        rm -rf "$root"
        mkdir -p "$root/pkgconfig" "$root/plugins-off"
        local d
        for d in "${debs[@]}"; do
            dpkg -x "$d" "$root" || { echo "GStreamer: dpkg -x $(basename "$d") failed"; return 1; }
        done
        echo "GStreamer: unpacked ${#debs[@]} packages into $root"
        rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/locale" \
            "$root/usr/share/gtk-doc" "$root/usr/share/lintian"
        # Debian 12 still ships some libraries in /lib: one directory for all
        if [ -d "$root/lib/$arch" ]; then
            mkdir -p "$lib"
            cp -a "$root/lib/$arch/." "$lib/" && rm -rf "${root:?}/lib/$arch"
        fi
        # absolute links (a -dev package's libfoo.so -> /lib/...): into the prefix
        local l t
        while IFS= read -r l; do
            t=$(readlink "$l")
            case "$t" in /lib/"$arch"/*) t="/usr$t" ;; esac
            ln -sfn "$root$t" "$l"
        done < <(find "$root/usr" -type l -lname '/*')
        local pc
        while IFS= read -r pc; do
            sed -e "s|=/usr|=$root/usr|g" -e "s|-I/usr/|-I$root/usr/|g" -e "s|-L/usr/|-L$root/usr/|g" \
                "$pc" >"$root/pkgconfig/$(basename "$pc")" || return 1
        done < <(find "$root/usr" -name '*.pc')
        # the machine's own copy of a library wins, except GStreamer's
        local f name host n=0
        while read -r name host; do
            f="$lib/$name"
            [ -e "$f" ] || [ -L "$f" ] || continue
            case "$name" in libgst*) continue ;; esac
            ln -sf "$host" "$f" && n=$((n + 1))
        done < <("$(command -v ldconfig || echo /sbin/ldconfig)" -p 2>/dev/null | awk '/\(libc6,x86-64/ && $NF ~ /^\// { print $1, $NF }')
        echo "GStreamer: $n carried libraries taken from this machine instead"
        # plugins that cannot load here
        local miss=() out
        for f in "$lib"/gstreamer-1.0/*.so; do
            if ! out=$(LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$f" 2>&1) ||
                grep -q 'not found' <<<"$out"; then
                mv "$f" "$root/plugins-off/" && miss+=("$(basename "$f" .so)")
            fi
        done
        echo "GStreamer: ${#miss[@]} plugins set aside (libraries not carried): ${miss[*]#libgst}"
        echo "$stamp" >"$root/.stamp"
    fi
    export PKG_CONFIG_PATH="$root/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export CPATH="$root/usr/include${CPATH:+:$CPATH}"
    export LIBRARY_PATH="$lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export PATH="$root/usr/bin${PATH:+:$PATH}"
    export GST_PLUGIN_SYSTEM_PATH_1_0="$lib/gstreamer-1.0"
    export GST_PLUGIN_SCANNER_1_0="$lib/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner"
    export GST_PLUGIN_SCANNER="$GST_PLUGIN_SCANNER_1_0"
    local m
    for m in gstreamer-1.0 gstreamer-base-1.0 gstreamer-video-1.0 gstreamer-app-1.0 gstreamer-check-1.0 gstreamer-cuda-1.0; do
        pkg-config --exists "$m" || { echo "GStreamer: unpacked, but pkg-config cannot use $m:"; pkg-config --print-errors --exists "$m"; return 1; }
    done
    [ "$(command -v gst-launch-1.0)" = "$root/usr/bin/gst-launch-1.0" ] ||
        { echo "GStreamer: gst-launch-1.0 is not the prefix's"; return 1; }
    echo "GStreamer: using $root ($(pkg-config --modversion gstreamer-1.0), $(gst-launch-1.0 --version | sed -n 2p))"
}

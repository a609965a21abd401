# SPDX-License-Identifier: BSD-2-Clause-Patent
# shellcheck shell=bash
# Source this file (bash) to make FFmpeg's libraries usable on a machine
# without them (the lent GPU machine: Ubuntu 24.04, no FFmpeg, no network):
# setup_ffmpeg unpacks the Debian 12 packages that scripts/ffmpeg-carry.sh put
# in .ffmpeg/*.deb into the prefix .ffmpeg-root/ (dpkg -x, nothing goes into
# /), adds the stub libraries of .ffmpeg/stubs for the libraries FFmpeg links
# but the tests never use, and exports PKG_CONFIG_PATH, LIBRARY_PATH and
# LD_LIBRARY_PATH. ROOT must name the repository root. Nothing is done when
# pkg-config already finds libavformat, libavcodec, libavutil, libswscale and
# libavdevice.
#   ROOT=$PWD; . scripts/ffmpeg-env.sh; setup_ffmpeg
#   cmake -S . -B build-gpu -DFOVEA_FFMPEG=ON ...
# A stubbed library the machine has itself (ldconfig -p: X11, libdrm, ...) is
# replaced by a link to the machine's copy; FFmpeg's own libraries and libx264
# always come from the prefix. The test media (H.264/HEVC, 8/10-bit) stays in
# .ffmpeg/media (test_gpu_media finds it there).
setup_ffmpeg() {
    local mods="libavformat libavcodec libavutil libswscale libavdevice"
    # shellcheck disable=SC2086
    if pkg-config --exists $mods 2>/dev/null; then
        echo "FFmpeg: found by pkg-config (libavcodec $(pkg-config --modversion libavcodec))"
        return 0
    fi
    local debs=("$ROOT"/.ffmpeg/*.deb)
    if [ ! -e "${debs[0]}" ]; then
        echo "FFmpeg: pkg-config cannot find libavformat and there are no .ffmpeg/*.deb to unpack"
        echo "        (on a Debian 12 machine: scripts/ffmpeg-carry.sh)"
        return 1
    fi
    local root="$ROOT/.ffmpeg-root"
    local arch=x86_64-linux-gnu
    local lib="$root/usr/lib/$arch"
    local stamp
    stamp=$(stat -c '%n %s %Y' "${debs[@]}" "$ROOT"/.ffmpeg/stubs/* | cksum)
    if [ "$(cat "$root/.stamp" 2>/dev/null)" != "$stamp" ]; then
        rm -rf "$root"
        mkdir -p "$root/pkgconfig"
        local d
        for d in "${debs[@]}"; do
            dpkg -x "$d" "$root" || { echo "FFmpeg: dpkg -x $(basename "$d") failed"; return 1; }
        done
        rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/lintian"
        # static archives: never linked (the .pc files are used without --static)
        find "$lib" -maxdepth 1 -name '*.a' -delete
        echo "FFmpeg: unpacked ${#debs[@]} packages into $root"
        local pc
        while IFS= read -r pc; do
            sed -e "s|=/usr|=$root/usr|g" -e "s|-I/usr/|-I$root/usr/|g" -e "s|-L/usr/|-L$root/usr/|g" \
                "$pc" >"$root/pkgconfig/$(basename "$pc")" || return 1
        done < <(find "$root/usr" -name '*.pc')
        # the stubs, unless the machine has the library itself
        local s name host have=0 stub=0
        declare -A mach=()
        while read -r name host; do
            mach[$name]=$host
        done < <("$(command -v ldconfig || echo /sbin/ldconfig)" -p 2>/dev/null | awk '/\(libc6,x86-64/ && $NF ~ /^\// { print $1, $NF }')
        for s in "$ROOT"/.ffmpeg/stubs/*; do
            name=$(basename "$s")
            if [ -n "${mach[$name]:-}" ]; then
                ln -sf "${mach[$name]}" "$lib/$name" && have=$((have + 1))
            else
                cp "$s" "$lib/$name" && stub=$((stub + 1))
            fi
        done
        echo "FFmpeg: $stub stub libraries, $have libraries of this machine"
        local f out
        for f in "$lib"/libav*.so.[0-9]* "$lib"/libsw*.so.[0-9]*; do
            [ -L "$f" ] && continue
            out=$(LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$f" 2>&1)
            if grep -q 'not found' <<<"$out"; then
                echo "FFmpeg: $(basename "$f") lacks: $(grep 'not found' <<<"$out" | awk '{ printf "%s ", $1 }')"
                return 1
            fi
        done
        echo "$stamp" >"$root/.stamp"
    fi
    export PKG_CONFIG_PATH="$root/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export LIBRARY_PATH="$lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    local m
    for m in $mods; do
        pkg-config --exists "$m" || { echo "FFmpeg: unpacked, but pkg-config cannot use $m:"; pkg-config --print-errors --exists "$m"; return 1; }
    done
    echo "FFmpeg: using $root (libavcodec $(pkg-config --modversion libavcodec))"
}

# SPDX-License-Identifier: BSD-2-Clause-Patent
# Source this file (bash) to make cJSON usable on the lent GPU machine, which has
# no cJSON package: setup_cjson unpacks the Debian packages carried in .deps/*.deb
# (apt-get download libcjson1 libcjson-dev) into .deps/root and exports
# PKG_CONFIG_PATH, CPATH, LIBRARY_PATH and LD_LIBRARY_PATH for them. ROOT must
# name the repository root. Used by gpu-check.sh; for a prebuilt binary:
#   ROOT=$PWD; . scripts/cjson-env.sh; setup_cjson && ./bench_stitch
# Debian's libcjson .pc hard-codes /usr. PKG_CONFIG_SYSROOT_DIR would rewrite the
# paths of every package (libpng too), so the .pc files are copied with their /usr
# paths pointing into the extraction instead.
setup_cjson() {
    if pkg-config --exists libcjson; then
        echo "cJSON: found by pkg-config ($(pkg-config --modversion libcjson))"
        return 0
    fi
    local debs=("$ROOT"/.deps/*.deb)
    if [ ! -e "${debs[0]}" ]; then
        echo "cJSON: pkg-config cannot find libcjson and there are no .deps/*.deb to unpack"
        echo "       (on a Debian machine: mkdir -p .deps && cd .deps && apt-get download libcjson1 libcjson-dev)"
        return 1
    fi
    local root="$ROOT/.deps/root"
    rm -rf "$root"
    mkdir -p "$root/pkgconfig"
    local d
    for d in "${debs[@]}"; do
        echo "cJSON: unpacking $(basename "$d")"
        dpkg -x "$d" "$root" || return 1
    done
    local pc
    while IFS= read -r pc; do
        sed -e "s|=/usr|=$root/usr|g" "$pc" >"$root/pkgconfig/$(basename "$pc")" || return 1
    done < <(find "$root/usr" -name '*.pc')
    local libdir
    libdir=$(dirname "$(find "$root/usr" -name 'libcjson.so*' | head -n 1)")
    export PKG_CONFIG_PATH="$root/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export CPATH="$root/usr/include${CPATH:+:$CPATH}"
    export LIBRARY_PATH="$libdir${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    if ! pkg-config --exists libcjson; then
        echo "cJSON: unpacked, but pkg-config still cannot find libcjson"
        return 1
    fi
    echo "cJSON: using $root ($(pkg-config --cflags --libs libcjson))"
}


#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Run on a Debian 12 machine (here) before a GPU run: downloads into .gst/
# (git-ignored) the Debian packages that build gst-fovea and run its tests on a
# machine without GStreamer (the lent GPU machine: Ubuntu 24.04, no internet).
# scripts/gst-env.sh unpacks them there into a prefix (dpkg -x, never into /).
#
# The closure is computed here, one package at a time (apt-cache depends, no
# recommends), following Depends from the packages below; it stops at packages
# any Linux machine that builds C has (libc, libgcc, libstdc++, pkg-config),
# at tools and data the build and tests do not use (python3, perl, systemd,
# gobject-introspection, opencv that libgstreamer-plugins-bad1.0-dev drags in,
# wayland-scanner with libxml2 and ICU)
# and at Mesa's drivers (the NVIDIA driver brings its own GL). Libraries a
# machine surely has (zlib, pcre2, libmount, libffi...) are carried all the
# same: gst-env.sh uses the machine's own copy wherever it has one. The plugin
# packages are taken without their own dependencies: gst-env.sh drops the
# plugins whose libraries are missing; those the tests use (coreelements,
# app, videotestsrc, videoconvertscale, rawparse, playback, y4menc, jpeg) need
# nothing more than what is listed here.
#
#   usage: scripts/gst-carry.sh        (then: du -sh .gst)
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.." || exit 1
DIR=.gst

# what the build (pkg-config: gstreamer-1.0 -base -video -app -check -cuda)
# and the tests (gst-launch-1.0, gst-inspect-1.0, gst-plugin-scanner) need
TOP=(
    libgstreamer1.0-0 libgstreamer1.0-dev gstreamer1.0-tools
    libgstreamer-plugins-base1.0-0 libgstreamer-plugins-base1.0-dev libgstreamer-gl1.0-0
    libgstreamer-plugins-bad1.0-0 libgstreamer-plugins-bad1.0-dev
    liborc-0.4-0 liborc-0.4-dev libjpeg62-turbo
)
# plugin packages: downloaded, their dependencies not followed
PLUGINS=(gstreamer1.0-plugins-base gstreamer1.0-plugins-good)
# never downloaded, never followed (regular expressions, whole names)
STOP='libc6|libc6-dev|libc-dev-bin|linux-libc-dev|libcrypt1|libcrypt-dev|libnsl-dev|libnsl2|libtirpc.*|libgcc-s1|gcc-[0-9]+-base|libstdc\+\+6|libatomic1|pkg-config|pkgconf.*|libpkgconf3|debconf|dpkg|tar|adduser|passwd|mount|init-system-helpers|usrmerge|usr-is-merged|lsb-base|perl.*|libperl.*|python3.*|libpython3.*|systemd.*|libsystemd.*|dbus.*|libdbus.*|libglib2\.0-bin|libglib2\.0-dev-bin|libglib2\.0-data|gir1\.2-.*|libgirepository.*|libgstreamer-opencv1\.0-0|libopencv.*|iso-codes|tzdata|shared-mime-info|x11-common|xkb-data|libgl1-mesa-dri|libglx-mesa0|libegl-mesa0|libglapi-mesa|libllvm.*|libgnutls.*|libnettle8|libhogweed6|libgmp10|libp11-kit0|libtasn1-6|libidn2-0|libunistring2|libssl3|libnice10|libgupnp.*|libgssdp.*|libsoup.*|libunwind-1[0-9]+(-dev)?|libcap2|libgpg-error0|libgcrypt20|libxml2|libicu[0-9]+|libwayland-bin|libcap2-bin'

mkdir -p "$DIR"
declare -A seen=()
queue=("${TOP[@]}")
want=()
while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    p=${p%%:*}
    [ -n "${seen[$p]:-}" ] && continue
    seen[$p]=1
    [[ "$p" =~ ^($STOP)$ ]] && continue
    want+=("$p")
    # the first alternative of each dependency ("|Depends:" marks that the next
    # line is another choice for the same dependency); a virtual <name> is
    # skipped (its first provider is the alternative listed before it, or the
    # provider line that apt-cache indents under it, also skipped: follow up by hand)
    while IFS= read -r dep; do
        queue+=("$dep")
    done < <(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
        --no-replaces --no-enhances "$p" 2>/dev/null | awk '
        /^ [ |](Pre)?Depends: / {
            alt = ($1 ~ /^\|/); name = $2
            if (!prev_alt && name !~ /^</) print name
            prev_alt = alt; next }
        { next }')
done
want+=("${PLUGINS[@]}")
printf '%s\n' "${want[@]}" | sort -u >"$DIR/packages.txt"
echo "gst-carry: $(wc -l <"$DIR/packages.txt") packages (list in $DIR/packages.txt)"
rm -f "$DIR"/*.deb
# apt-get download as root warns that _apt cannot write here: harmless
(cd "$DIR" && xargs apt-get download -q <packages.txt) 2>&1 |
    { grep -v '^W: Download is performed unsandboxed' || :; }
n=$(find "$DIR" -maxdepth 1 -name '*.deb' | wc -l)
[ "$n" -eq "$(wc -l <"$DIR/packages.txt")" ] || {
    echo "gst-carry: downloaded $n of $(wc -l <"$DIR/packages.txt") packages" >&2
    exit 1
}
echo "gst-carry: $n .deb files in $DIR, $(du -sh "$DIR" | cut -f1) (carry \"$DIR\" to the GPU machine)"

#!/usr/bin/env bash
# Run the delta stream encoder's CUDA kernels (src/stream/stream.cu) on the CPU
# through an emulation (scripts/stream_cuda_emu/) against the C backend: the
# same tile maps, carried lists, offsets, coded bytes and reconstruction. For
# machines without a GPU; the real check is tests/gpu/test_gpu_stream.
#
#   usage: scripts/stream-cuda-emu.sh BUILD_DIR [EMU_ONE|EMU_BIG]
#     BUILD_DIR  a CPU build without sanitizers (its libfovea.a), e.g.
#                cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release -DFOVEA_CUDA=OFF
#                ninja -C build-rel fovea
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: $0 BUILD_DIR [EMU_ONE|EMU_BIG]}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
here=$root/scripts/stream_cuda_emu
# stream.cu as C++: the emulated built-ins, launches as emu_launch calls
python3 - "$root/src/stream/stream.cu" "$work/stream_emu.cpp" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = s.replace('#include <cuda_runtime.h>\n', '#include "emu.h"\n')
pat = re.compile(r'(\w+(?:<[^<>]*>)?)<<<(.*?)>>>\((.*?)\);', re.S)
def launch(m):
    p = [x.strip() for x in m.group(2).split(',')]
    return 'emu_launch(dim3(%s), dim3(%s), [&] { %s(%s); });' % (p[0], p[1], m.group(1), m.group(3))
open(sys.argv[2], 'w').write(pat.sub(launch, s))
PY
inc="-I$here -I$root/src -I$root/include"
g++ -std=c++20 -O2 $inc -c "$here/emu.cpp" -o "$work/emu.o"
g++ -std=c++20 -O2 $inc -c "$work/stream_emu.cpp" -o "$work/stream_emu.o"
gcc -std=c11 -O2 -D_POSIX_C_SOURCE=200809L $inc -c "$here/emu_main.c" -o "$work/emu_main.o"
g++ "$work/emu_main.o" "$work/stream_emu.o" "$work/emu.o" "$build/libfovea.a" \
    -lzstd -lxxhash -lpng -lz -lcjson -lpthread -lm -o "$work/emu"
if [ $# -ge 2 ]; then env "$2=1" "$work/emu"; else "$work/emu"; fi

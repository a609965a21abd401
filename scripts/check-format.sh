#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause-Patent
# The format check of `make check`: every tracked C, header and CUDA file is as
# clang-format (.clang-format, clang-format 14 as Debian 12 ships it) leaves it,
# and every tracked source file names its license in an SPDX line within its
# first three lines. Names each offending file; exit 1 when any is found.
#   usage: scripts/check-format.sh [--fix]   (--fix: reformat in place instead)
set -u
cd "$(dirname "$0")/.." || exit 1
fix=0
[ "${1:-}" = "--fix" ] && fix=1
bad=0

if ! git rev-parse --git-dir >/dev/null 2>&1; then
    echo "check-format: not a git checkout (the files to check are git's tracked files)" >&2
    exit 1
fi
if ! command -v clang-format >/dev/null 2>&1; then
    echo "check-format: clang-format not found (Debian: apt-get install clang-format)" >&2
    exit 1
fi
major=$(clang-format --version | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p')
if [ "$major" != 14 ]; then
    # other versions format some constructs differently: the style is pinned
    echo "check-format: clang-format $major here, the style is pinned to clang-format 14: format not checked"
else
    files=$(git ls-files '*.c' '*.h' '*.cu' '*.cuh')
    if [ $fix -eq 1 ]; then
        # shellcheck disable=SC2086
        clang-format -i $files
    else
        for f in $files; do
            if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
                echo "check-format: $f: not formatted (scripts/check-format.sh --fix)"
                bad=1
            fi
        done
    fi
fi

for f in $(git ls-files '*.c' '*.h' '*.cu' '*.cuh' '*.sh' '*.py' '*.cmake' '*.in' \
    'CMakeLists.txt' '*/CMakeLists.txt' 'Makefile' '.ci/run'); do
    if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: BSD-2-Clause-Patent'; then
        echo "check-format: $f: no 'SPDX-License-Identifier: BSD-2-Clause-Patent' line in its first 3 lines"
        bad=1
    fi
done
[ $bad -eq 0 ] && echo "check-format: ok"
exit $bad

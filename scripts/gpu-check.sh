#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause-Patent
# Build, test and benchmark fovea on a machine with a CUDA GPU (made for the lent
# Ubuntu 24.04 + CUDA 13 machine: no internet, no cJSON; carry .deps/*.deb for it).
# Steps: cJSON, configure, build, ctest (GPU tests must really run), compute-sanitizer
# memcheck over the GPU tests, benchmarks; then a summary table. Logs go to
# build-gpu/gpu-check-logs, and the transcript + benchmark JSON to $OUT when set.
# Golden-data tests need ../shared/testdata; on the GPU machine carry a copy instead:
#   mkdir -p .carry/testdata && cp ../shared/testdata/*.tar.xz .carry/testdata/
#   (then carry [".deps", ".carry"])
#
#   usage: scripts/gpu-check.sh [--quick] [--no-bench] [--tests-only REGEX] [--build-dir DIR]
#     --quick             benchmarks with --quick
#     --no-bench          skip the benchmarks
#     --tests-only REGEX  only the tests matching REGEX (ctest -R), no benchmarks
#     --build-dir DIR     build directory (default build-gpu)
set -uo pipefail
export LC_ALL=C

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }

QUICK=0
BENCH=1
TESTS_REGEX=""
BUILD=build-gpu
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) QUICK=1 ;;
    --no-bench) BENCH=0 ;;
    --tests-only)
        [ $# -ge 2 ] || { echo "gpu-check: --tests-only needs a REGEX" >&2; exit 2; }
        TESTS_REGEX=$2
        BENCH=0
        shift
        ;;
    --build-dir)
        [ $# -ge 2 ] || { echo "gpu-check: --build-dir needs a DIR" >&2; exit 2; }
        BUILD=$2
        shift
        ;;
    -h | --help) usage; exit 0 ;;
    *) echo "gpu-check: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
LOGS="$BUILD/gpu-check-logs"
mkdir -p "$LOGS" || exit 1
JOBS=$(nproc 2>/dev/null || echo 4)
export PATH="/usr/local/cuda/bin:$PATH:/usr/local/cuda/compute-sanitizer"

# The whole transcript also goes to $OUT (only a few files come back from there).
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    exec > >(tee "$OUT/gpu-check.log") 2>&1
fi

now() { if [ -n "${EPOCHREALTIME:-}" ]; then echo "$EPOCHREALTIME"; else date +%s.%N; fi; }
STEP_NAMES=()
STEP_RESULTS=()
STEP_SECS=()
FAILED=0
record() { # name result start
    STEP_NAMES+=("$1")
    STEP_RESULTS+=("$2")
    STEP_SECS+=("$(awk -v a="$3" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')")
    case "$2" in ok* | skipped*) ;; *) FAILED=1 ;; esac
}
banner() { printf '\n======== %s\n' "$*"; }

# Run "$@" with its output on the console and in $LOGS/<log>.log; returns its status.
logged() {
    local log=$1
    shift
    "$@" 2>&1 | tee "$LOGS/$log.log"
    return "${PIPESTATUS[0]}"
}

# ---------------------------------------------------------------- (a) cJSON
# setup_cjson (scripts/cjson-env.sh) unpacks .deps/*.deb when pkg-config lacks it
. "$ROOT/scripts/cjson-env.sh"

banner "cJSON"
t0=$(now)
# not a pipeline: the exports must stay in this shell
if setup_cjson > >(tee "$LOGS/cjson.log") 2>&1; then
    record "cjson" "ok" "$t0"
else
    record "cjson" "FAILED" "$t0"
fi

# FFmpeg (media, NVDEC): .ffmpeg/*.deb from scripts/ffmpeg-carry.sh where the
# machine lacks it (scripts/ffmpeg-env.sh); without either, media is left out
FFMPEG_ARGS=()
if [ -d "$ROOT/.ffmpeg" ] || pkg-config --exists libavformat 2>/dev/null; then
    . "$ROOT/scripts/ffmpeg-env.sh"
    banner "FFmpeg"
    t0=$(now)
    if setup_ffmpeg > >(tee "$LOGS/ffmpeg.log") 2>&1; then
        record "ffmpeg" "ok" "$t0"
        FFMPEG_ARGS=(-DFOVEA_FFMPEG=ON)
    else
        record "ffmpeg" "FAILED" "$t0"
    fi
fi

# ---------------------------------------------------------------- (b) configure + build
ARCHS=""
if command -v nvidia-smi >/dev/null 2>&1; then
    ARCHS=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null |
        tr -d ' .\r' | grep -E '^[0-9]+$' | sort -u | paste -sd ';' -)
    nvidia-smi --query-gpu=index,name,compute_cap,memory.total,driver_version --format=csv 2>&1
fi
[ -n "$ARCHS" ] || { ARCHS=90; echo "gpu-check: compute capability unknown, using 90"; }

# Golden data: ../shared/testdata where the checkout has it, else a copy carried in
# .carry/testdata (git-ignored; carry it to the GPU machine with the run).
TESTDATA_ARGS=()
if [ ! -d "$ROOT/../shared/testdata" ] && [ -d "$ROOT/.carry/testdata" ]; then
    TESTDATA_ARGS=("-DFOVEA_TESTDATA_DIR=$ROOT/.carry/testdata")
fi

CONFIGURED=0
BUILT=0
if [ $FAILED -eq 0 ]; then
    banner "configure ($BUILD, FOVEA_CUDA_ARCHS=$ARCHS)"
    t0=$(now)
    GEN=()
    if [ ! -f "$BUILD/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
        GEN=(-G Ninja)
    fi
    if logged configure cmake -S "$ROOT" -B "$BUILD" "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release \
        -DFOVEA_CUDA=ON "-DFOVEA_CUDA_ARCHS=$ARCHS" -DFOVEA_BUILD_TESTS=ON \
        -DFOVEA_BUILD_BENCH=ON "${TESTDATA_ARGS[@]}" "${FFMPEG_ARGS[@]}"; then
        record "configure" "ok" "$t0"
        CONFIGURED=1
    else
        record "configure" "FAILED" "$t0"
    fi
else
    record "configure" "skipped (cJSON)" "$(now)"
fi

if [ $CONFIGURED -eq 1 ]; then
    banner "build (-j $JOBS)"
    t0=$(now)
    if logged build cmake --build "$BUILD" -j "$JOBS"; then
        record "build" "ok" "$t0"
        BUILT=1
    else
        record "build" "FAILED" "$t0"
    fi
else
    record "build" "skipped" "$(now)"
fi

# ---------------------------------------------------------------- (c) ctest
REGEX_ARGS=()
[ -n "$TESTS_REGEX" ] && REGEX_ARGS=(-R "$TESTS_REGEX")
GPU_TESTS=()
if [ $BUILT -eq 1 ]; then
    while IFS= read -r t; do
        [ -n "$t" ] && GPU_TESTS+=("$t")
    done < <(ctest --test-dir "$BUILD" -N -L gpu "${REGEX_ARGS[@]}" 2>/dev/null |
        sed -n 's/^ *Test *#[0-9]*: *\([^ ]*\).*$/\1/p')

    banner "ctest (${#GPU_TESTS[@]} GPU tests: ${GPU_TESTS[*]:-none})"
    t0=$(now)
    logged ctest ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" \
        --output-junit "$LOGS/ctest-junit.xml" "${REGEX_ARGS[@]}"
    rc=$?
    # ctest lists skipped tests as "  8 - test_gpu_core (Skipped)"
    skipped_gpu=()
    while IFS= read -r t; do
        for g in "${GPU_TESTS[@]}"; do
            [ "$t" = "$g" ] && skipped_gpu+=("$t")
        done
    done < <(sed -n 's/^[[:space:]]*[0-9][0-9]* - \([^ ]*\) (Skipped)[[:space:]]*$/\1/p' \
        "$LOGS/ctest.log")
    # and failed ones as "  7 - test_x (Failed)", "(Timeout)", "(Not Run)", ...
    failed_tests=$(sed -n 's/^[[:space:]]*[0-9][0-9]* - \([^ ]*\) (\(.*\))[[:space:]]*$/\1 \2/p' \
        "$LOGS/ctest.log" | awk '$2 != "Skipped" { print $1 }' | sort -u | paste -sd ' ' -)
    msg=""
    [ $rc -ne 0 ] && msg="failed: ${failed_tests:-exit $rc}"
    if [ ${#skipped_gpu[@]} -gt 0 ]; then
        echo "gpu-check: GPU tests skipped on a GPU machine: ${skipped_gpu[*]}"
        msg="${msg:+$msg; }GPU tests skipped: ${skipped_gpu[*]}"
    fi
    if [ -n "$msg" ]; then
        record "ctest" "FAILED ($msg)" "$t0"
    elif [ ${#GPU_TESTS[@]} -eq 0 ]; then
        record "ctest" "ok (no GPU tests)" "$t0"
    else
        record "ctest" "ok" "$t0"
    fi
else
    record "ctest" "skipped" "$(now)"
fi

# ---------------------------------------------------------------- (d) compute-sanitizer
if [ $BUILT -eq 1 ] && [ ${#GPU_TESTS[@]} -gt 0 ]; then
    banner "compute-sanitizer memcheck"
    t0=$(now)
    if ! command -v compute-sanitizer >/dev/null 2>&1; then
        echo "gpu-check: compute-sanitizer not found"
        record "memcheck" "FAILED (no compute-sanitizer)" "$t0"
    else
        testdata=$(sed -n 's/^FOVEA_TESTDATA_DIR:[A-Z]*=//p' "$BUILD/CMakeCache.txt")
        bad=()
        for t in "${GPU_TESTS[@]}"; do
            exe="$BUILD/tests/$t"
            # GPU tests that are shell scripts (CLI runs on the device) are not
            # programs compute-sanitizer can start
            if [ ! -f "$exe" ] || [ "$(head -c 4 "$exe" | tr -d '\177')" != "ELF" ]; then
                echo "--- $t: a script, not a program: memcheck skipped"
                continue
            fi
            echo "--- $t"
            # the environment ctest gives the tests, plus FOVEA_TEST_SANITIZER so they
            # leave out checks that make CUDA API calls fail on purpose, and a few
            # libvmaf golden sets (every set runs in the ctest pass)
            (cd "$BUILD/tests" &&
                env FOVEA_TESTDATA_DIR="$testdata" FOVEA_SOURCE_DIR="$ROOT" \
                    FOVEA_TESTDATA_EXTRACTED="$BUILD/testdata" \
                    FOVEA_LIBVMAF_SETS="vmaf_v0.6.1_10b adm_v1_3d0h motion_v1_hfr models_two" \
                    FOVEA_BUILD_DIR="$BUILD" FOVEA_CLI="$BUILD/fovea" FOVEA_TEST_SANITIZER=1 \
                    compute-sanitizer --tool memcheck --error-exitcode 1 "$exe") 2>&1 | tee "$LOGS/memcheck-$t.log"
            rc=${PIPESTATUS[0]}
            if [ "$rc" -ne 0 ]; then
                echo "--- $t: FAILED under memcheck (exit $rc)"
                bad+=("$t")
            fi
        done
        if [ ${#bad[@]} -eq 0 ]; then
            record "memcheck" "ok (${#GPU_TESTS[@]} tests)" "$t0"
        else
            record "memcheck" "FAILED (${bad[*]})" "$t0"
        fi
    fi
else
    record "memcheck" "skipped" "$(now)"
fi

# ---------------------------------------------------------------- (e) benchmarks
if [ $BENCH -eq 1 ] && [ $BUILT -eq 1 ]; then
    banner "benchmarks"
    t0=$(now)
    BARGS=()
    [ $QUICK -eq 1 ] && BARGS=(--quick)
    if logged bench sh "$ROOT/scripts/bench.sh" "$BUILD" "${BARGS[@]}"; then
        record "bench" "ok" "$t0"
    else
        record "bench" "FAILED" "$t0"
    fi
    if [ -n "${OUT:-}" ]; then
        for j in "$BUILD"/bench-results/*.json; do
            [ -f "$j" ] && cp "$j" "$OUT/"
        done
    fi
else
    record "bench" "skipped" "$(now)"
fi

# ---------------------------------------------------------------- (f) summary
banner "summary (logs in $LOGS${OUT:+, transcript in $OUT/gpu-check.log})"
printf '%-10s | %-50s | %8s\n' "step" "result" "seconds"
printf '%s\n' "-----------+----------------------------------------------------+---------"
for i in "${!STEP_NAMES[@]}"; do
    printf '%-10s | %-50s | %8s\n' "${STEP_NAMES[$i]}" "${STEP_RESULTS[$i]}" "${STEP_SECS[$i]}"
done
if [ $FAILED -ne 0 ]; then
    echo "gpu-check: FAILED"
    exit 1
fi
echo "gpu-check: all steps passed"
exit 0

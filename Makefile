# SPDX-License-Identifier: BSD-2-Clause-Patent
# fovea: the commands a user types. Everything real happens in CMake.
#   make            release build in build/ (CUDA backend when nvcc is found, for every
#                   default GPU architecture)
#   make check      deps, the format check (clang-format, SPDX lines), a CPU-only
#                   ASan/UBSan build with all tests, then the build a user gets from
#                   `make` (build/) with all its tests (GPU tests skip without a GPU;
#                   the installed library linked both ways) and `make demo` at 1/8
#                   scale, then the fuzz targets built with clang (as `make fuzz`) and
#                   run 3 s each; logs in build-check-logs/, one summary at the end
#   make format     reformat the C and CUDA sources with clang-format 14
#   make bench      build and run every benchmark (GPU rows need a GPU)
#   make fuzz       build the libFuzzer targets with clang and run each for FUZZ_SECONDS
#   make install    install libraries, headers, fovea.pc, fovea-klt.pc and the CLI under PREFIX
#   make demo       stitching demo on built-in data (see README)

PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
FOVEA_CUDA_ARCHS ?=
CUDA_ARCH_ARG := $(if $(FOVEA_CUDA_ARCHS),-DFOVEA_CUDA_ARCHS="$(FOVEA_CUDA_ARCHS)",)
CTEST := ctest --output-on-failure -j $(JOBS)

.PHONY: all build check check-asan check-default check-fuzz check-format format deps bench fuzz fuzz-build install demo clean

all: build

deps:
	@sh scripts/deps.sh

build: deps
	cmake -S . -B build $(GENERATOR) -DCMAKE_BUILD_TYPE=Release $(CUDA_ARCH_ARG)
	cmake --build build -j $(JOBS)

# CPU-only build under AddressSanitizer + UndefinedBehaviorSanitizer: every C test.
check-asan: deps
	cmake -S . -B build-asan $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	      -DFOVEA_CUDA=OFF -DFOVEA_SANITIZE=ON -DFOVEA_BUILD_BENCH=ON
	cmake --build build-asan -j $(JOBS)
	cd build-asan && $(CTEST)

# The build a user gets from plain `make` (build/: every default GPU architecture
# when nvcc is present, CPU-only otherwise) with all its tests, then README's
# other command, `make demo`, at a small scale. GPU tests exit 77 (skipped)
# where no device is present.
check-default: build
	cd build && $(CTEST)
	$(MAKE) --no-print-directory demo DEMO_ARGS="--scale 8" DEMO_OUT=build/demo-check

# The libFuzzer targets built with clang as `make fuzz` builds them, each run
# for a few seconds from its corpus: `make fuzz` itself stays buildable.
check-fuzz:
	@FOVEA_DEPS_FUZZ=1 sh scripts/deps.sh
	$(MAKE) --no-print-directory fuzz-build
	@sh scripts/fuzz.sh build-fuzz 3

# Every stage below with its output in build-check-logs/ and one summary line each
# (scripts/check.sh); the stages stay targets of their own.
check:
	@sh scripts/check.sh $(MAKE)

check-format:
	@sh scripts/check-format.sh

format:
	@sh scripts/check-format.sh --fix

bench: build
	@sh scripts/bench.sh build

fuzz:
	@FOVEA_DEPS_FUZZ=1 sh scripts/deps.sh
	$(MAKE) --no-print-directory fuzz-build
	@sh scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

fuzz-build:
	CC=clang cmake -S . -B build-fuzz $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	      -DFOVEA_CUDA=OFF -DFOVEA_FUZZ=ON -DFOVEA_BUILD_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS)

install: build
	cmake --install build --prefix $(PREFIX)

# The stitching demo: render the built-in outdoor scene (a football pitch under
# mountains) through a broadcast rig of two 3840x2160 cameras (a pinhole with
# barrel distortion and a fisheye), stitch them back into a 5700x1900 panorama
# with automatic color balance, write PNGs to demo-out/ and print PSNR and color
# mismatch. DEMO_ARGS="--scale 2" for a quicker run; the CUDA backend is used
# when a GPU is present.
DEMO_ARGS ?=
DEMO_OUT ?= demo-out
demo: build
	./build/fovea demo -o $(DEMO_OUT) $(DEMO_ARGS)

clean:
	rm -rf build build-asan build-fuzz build-check-logs

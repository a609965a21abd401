# fovea: the commands a user types. Everything real happens in CMake.
#   make            release build in build/ (CUDA backend when nvcc is found)
#   make check      deps + CPU-only ASan/UBSan build with all tests, then the CUDA build
#                   compiled, linked and tested (GPU tests skip without a GPU)
#   make bench      build and run every benchmark (GPU rows need a GPU)
#   make fuzz       build the libFuzzer targets with clang and run each for FUZZ_SECONDS
#   make install    install library, headers, fovea.pc and the CLI under PREFIX
#   make demo       stitching demo on built-in data (see README)

PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
FUZZ_SECONDS ?= 60
GENERATOR := $(shell command -v ninja >/dev/null 2>&1 && echo "-G Ninja")
FOVEA_CUDA_ARCHS ?=
CUDA_ARCH_ARG := $(if $(FOVEA_CUDA_ARCHS),-DFOVEA_CUDA_ARCHS="$(FOVEA_CUDA_ARCHS)",)
CTEST := ctest --output-on-failure -j $(JOBS)

.PHONY: all build check check-asan check-cuda deps bench fuzz install demo clean

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

# CUDA-enabled build (sm_90 only unless FOVEA_CUDA_ARCHS is given): compiled, linked,
# and its tests run; GPU tests exit 77 (skipped) where no device is present.
check-cuda: deps
	@if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then \
	  cmake -S . -B build-cuda $(GENERATOR) -DCMAKE_BUILD_TYPE=Release -DFOVEA_CUDA=ON \
	        -DFOVEA_CUDA_ARCHS="$(if $(FOVEA_CUDA_ARCHS),$(FOVEA_CUDA_ARCHS),90)" && \
	  cmake --build build-cuda -j $(JOBS) && \
	  cd build-cuda && $(CTEST); \
	else \
	  echo "check-cuda: no nvcc found: the CUDA configuration is not built on this machine"; \
	fi

check: check-asan check-cuda

bench: build
	@sh scripts/bench.sh build

fuzz:
	@FOVEA_DEPS_FUZZ=1 sh scripts/deps.sh
	CC=clang cmake -S . -B build-fuzz $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	      -DFOVEA_CUDA=OFF -DFOVEA_FUZZ=ON -DFOVEA_BUILD_BENCH=OFF
	cmake --build build-fuzz -j $(JOBS)
	@sh scripts/fuzz.sh build-fuzz $(FUZZ_SECONDS)

install: build
	cmake --install build --prefix $(PREFIX)

# The stitching demo: render the built-in outdoor scene through the issue's
# two-camera rig, stitch it back with automatic color balance, write PNGs to
# demo-out/ and print PSNR and color mismatch. DEMO_ARGS="--scale 2" for a
# quicker run; the CUDA backend is used when a GPU is present.
DEMO_ARGS ?=
demo: build
	./build/fovea demo -o demo-out $(DEMO_ARGS)

clean:
	rm -rf build build-asan build-cuda build-fuzz

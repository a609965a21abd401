/* SPDX-License-Identifier: BSD-2-Clause-Patent */
// The users' baseline kernel (stitch_baseline.cu) built with --use_fast_math
// (bench/CMakeLists.txt), as CUDA code of this kind often is: the powf calls
// become __powf and the divisions approximate ones, leaving the six float
// tables' traffic as its cost.
#define BASELINE_ENTRY bench_baseline_stitch_fast
#include "stitch_baseline.cu"

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CUDA_REQUIRE(call): a GPU test's CUDA runtime call that must succeed; on
 * failure the call, its place and the runtime's message go to stderr and the
 * test exits 1. For C and CUDA test sources. */
#ifndef FOVEA_TESTS_GPU_REQUIRE_H
#define FOVEA_TESTS_GPU_REQUIRE_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define CUDA_REQUIRE(call)                                                                         \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif

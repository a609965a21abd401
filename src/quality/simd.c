/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* FOVEA_SIMD and the CPU's AVX2, read once per process. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "quality/simd.h"

static int detect(void)
{
    const char *e = getenv("FOVEA_SIMD");
    if (e && strcmp(e, "0") == 0)
        return 0;
#if FV_HAVE_AVX2
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2"))
        return 0;
    if (e && strcmp(e, "avx2") == 0)
        return 1;
    /* With AVX-512 the plain C runs as GCC's x86-64-v4 clone (vector
     * leading-zero counts, 16 lanes): the AVX2 path has not been measured
     * against it, so it stays unless asked for. */
    const int v4 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                   __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                   __builtin_cpu_supports("avx512vl");
    return !v4;
#else
    return 0;
#endif
}

int fv_simd_avx2(void)
{
    /* -1: not read yet. Threads racing on the first call compute the same
     * value, so the cache needs no lock. */
    static atomic_int cached = -1;
    int v = atomic_load_explicit(&cached, memory_order_relaxed);
    if (v < 0) {
        v = detect();
        atomic_store_explicit(&cached, v, memory_order_relaxed);
    }
    return v;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The libvmaf golden sets (tests/golden/libvmaf, libvmaf_sets.h) on the CUDA
 * backend: the same doubles as libvmaf's plain C, hence as fovea's C
 * backend. Optional argument: one set's name. Inputs: test_golden_dir("vif")
 * (libvmaf_sets.h). */
#include "libvmaf_sets.h"

int main(int argc, char **argv)
{
    if (!test_have_gpu()) {
        printf("test_gpu_libvmaf: no usable CUDA device: skipped\n");
        return TEST_SKIP;
    }
    const int compared = libvmaf_run_sets(FOVEA_BACKEND_CUDA, argc > 1 ? argv[1] : NULL);
    const int rc = test_finish("test_gpu_libvmaf");
    return rc == 0 && compared == 0 ? TEST_SKIP : rc;
}

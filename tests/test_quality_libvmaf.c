/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea's quality doubles against libvmaf 3.2.0's plain C, bit for bit: every
 * golden set of tests/golden/libvmaf (libvmaf_sets.h) on the C backend.
 * Optional argument: one set's name. Inputs: test_golden_dir("vif")
 * (libvmaf_sets.h). */
#include "libvmaf_sets.h"

int main(int argc, char **argv)
{
    const int compared = libvmaf_run_sets(FOVEA_BACKEND_CPU, argc > 1 ? argv[1] : NULL);
    const int rc = test_finish("test_quality_libvmaf");
    return rc == 0 && compared == 0 ? TEST_SKIP : rc;
}

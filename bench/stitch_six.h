/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* bench_stitch's six-camera rows (stitch_six.c). */
#ifndef FOVEA_BENCH_STITCH_SIX_H
#define FOVEA_BENCH_STITCH_SIX_H

#include <stdio.h>

#include "bench_common.h"

/* Rows (h): a ring of six 3840x2160 cameras into a 7680x3840 equirectangular
 * panorama on CUDA device opts->device, feathering and multiband, device
 * resident, and end to end from y4m files through the CLI (ee). copy_bw: the
 * device's copy bandwidth (GB/s, read + write) for the floor lines written to
 * text. @return 0, or 1 on failure */
int bench_stitch_six(bench_table *table, const bench_opts *opts, const bench_e2e *ee,
                     double copy_bw, FILE *text);

#endif

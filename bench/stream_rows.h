/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Rows of bench_stream in units of their own: the end-to-end rows
 * (stream_e2e.c: a 1080p y4m read on a reader thread, encoded and written to
 * /dev/null on a C or CUDA context; the device-resident encode row) and the
 * latency rows (stream_latency.c). */
#ifndef FOVEA_BENCH_STREAM_ROWS_H
#define FOVEA_BENCH_STREAM_ROWS_H

#include <stddef.h>

#include "bench_common.h"
#include "fovea/io.h"

/* Distinct host frames of one clip, cycled through. */
typedef struct stream_frames {
    const char *name; /* the clip's, in row names */
    const fovea_frame *frames;
    int n;
    fovea_video_info info;
    size_t raw; /* packed bytes of one frame */
} stream_frames;

/* The row "1080p e2e y4m -> messages" of backend: y4m read on a reader thread,
 * encoded on ctx (zstd_level 0: the encoder's default), written to /dev/null. */
void stream_e2e_row(bench_table *table, fovea_context *ctx, const char *backend, const char *y4m,
                    int zstd_level);

/* The row "1080p device-resident encode": c's frames already on gpu's device,
 * encode only, frames encodes. */
void stream_device_row(bench_table *table, fovea_context *gpu, const stream_frames *c, int frames,
                       int zstd_level);

/* The row "<name> T=<T> latency" of backend: frames frames (back and forth
 * through c's) paced at c's rate from a sender thread to a receiver thread over
 * TCP loopback, on C contexts of their own. *med_ms and *p99_ms: its median and
 * 99th percentile. @return 0, or -1 (a message on stderr) when no row was made */
int stream_latency_row(bench_table *table, const char *backend, const stream_frames *c, int T,
                       int frames, int zstd_level, double *med_ms, double *p99_ms);

#endif

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Checks shared by the fuzz targets that end in a stitch map (fuzz_tables,
 * fuzz_rigmap): the blend weights of every pixel, the map file round trip,
 * and a C-backend stitch of every camera (RGBA, and NV12 -> I420 when all
 * sizes are even) with automatic color balance. Each aborts on a violation,
 * so that libFuzzer reports it. */
#ifndef FOVEA_FUZZ_STITCH_CHECKS_H
#define FOVEA_FUZZ_STITCH_CHECKS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/stitch.h"
#include "stitch/map.h"
#include "stitch/map_file.h"

static fovea_context *fuzz_ctx_;

static void fuzz_close_context(void)
{
    fovea_close(&fuzz_ctx_);
}

/* The process's C-backend context (one thread), opened on first use and
 * closed at exit. */
static fovea_context *fuzz_cpu_context(void)
{
    if (!fuzz_ctx_) {
        fovea_settings s;
        fovea_default_settings(&s);
        s.backend = FOVEA_BACKEND_CPU;
        s.threads = 1;
        if (fovea_open(&fuzz_ctx_, &s) != FOVEA_OK)
            abort();
        atexit(fuzz_close_context);
    }
    return fuzz_ctx_;
}

/* Weights of every pixel; returns how many pixels some camera weights, and
 * sets has[i + j * W] to whether any does. Aborts on a bad weight. */
static int fuzz_check_weights(const fovea_stitch_map *m, uint8_t *has)
{
    int covered = 0;
    for (int j = 0; j < m->pano_height; j++) {
        for (int i = 0; i < m->pano_width; i++) {
            float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS],
                v[FOVEA_STITCH_MAX_CAMERAS];
            int n = fv_map_weights(m, i, j, w, u, v);
            int count = 0;
            double sum = 0.0;
            for (int c = 0; c < m->num_cameras; c++) {
                if (!(w[c] >= 0.0f && w[c] <= 1.0f))
                    abort(); /* NaN, infinite, negative or above 1 */
                count += w[c] > 0.0f;
                sum += w[c];
            }
            if (count != n || (n > 0 && (sum < 1.0 - 1e-5 || sum > 1.0 + 1e-5)))
                abort();
            has[j * m->pano_width + i] = n > 0;
            covered += n > 0;
        }
    }
    return covered;
}

static void fuzz_check_file_round_trip(const fovea_stitch_map *m)
{
    char err[256];
    uint8_t *buf = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    fovea_stitch_map back;
    if (fv_map_encode(m, &buf, &len, err, sizeof(err)) != FOVEA_OK) {
        fprintf(stderr, "fuzz: map encode: %s\n", err);
        abort();
    }
    if (fv_map_decode(buf, len, &back, err, sizeof(err)) != FOVEA_OK) {
        fprintf(stderr, "fuzz: map decode: %s\n", err);
        abort();
    }
    if (fv_map_encode(&back, &again, &len2, err, sizeof(err)) != FOVEA_OK)
        abort();
    if (len2 != len || memcmp(buf, again, len) != 0)
        abort();
    fv_stitch_map_free(&back);
    free(buf);
    free(again);
}

/* Stitch two frames (the second with corrections measured on the first); has
 * from fuzz_check_weights, camera pixels from data (size > 0). */
static void fuzz_stitch(fovea_context *ctx, const fovea_stitch_map *m, fovea_pixfmt fmt,
                        const uint8_t *has, const uint8_t *data, size_t size)
{
    const int W = m->pano_width, H = m->pano_height;
    const int yuv = fmt != FOVEA_PIX_RGBA;
    const int n = m->num_cameras;
    fovea_frame cams[FOVEA_STITCH_MAX_CAMERAS], out;
    const fovea_frame *in[FOVEA_STITCH_MAX_CAMERAS];
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.deterministic = 1;
    ss.auto_interval = 1;
    ss.min_overlap_samples = 1;
    fovea_stitcher *st = NULL;
    if (fovea_stitcher_open(&st, ctx, m, &ss) != FOVEA_OK)
        abort();
    for (int c = 0; c < n; c++) {
        if (fovea_frame_alloc(ctx, &cams[c], m->cam[c].cam_width, m->cam[c].cam_height, fmt,
                              FOVEA_MEM_HOST) != FOVEA_OK)
            abort();
        in[c] = &cams[c];
    }
    if (fovea_frame_alloc(ctx, &out, W, H, yuv ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA, FOVEA_MEM_HOST) !=
        FOVEA_OK)
        abort();
    size_t k = 0;
    for (int frame = 0; frame < 2; frame++) {
        /* camera pixels: the input's bytes over and over, changed per frame */
        for (int c = 0; c < n; c++) {
            for (int p = 0; p < (yuv ? 2 : 1); p++) {
                int rows = p ? (cams[c].height + 1) / 2 : cams[c].height;
                for (int y = 0; y < rows; y++)
                    for (int x = 0; x < cams[c].stride[p]; x++, k++)
                        cams[c].data[p][(size_t)y * (size_t)cams[c].stride[p] + (size_t)x] =
                            (uint8_t)(data[k % size] + 37 * frame + 11 * c);
            }
        }
        for (int p = 0; p < (yuv ? 3 : 1); p++)
            memset(out.data[p], 0x5a, (size_t)out.stride[p] * (size_t)(p ? (H + 1) / 2 : H));
        if (fovea_stitcher_process(st, in, n, &out) != FOVEA_OK)
            abort();
        for (int j = 0; j < H; j++) {
            for (int i = 0; i < W; i++) {
                if (yuv) {
                    /* uncovered luma is black (limited range: 16) */
                    const uint8_t y = out.data[0][(size_t)j * (size_t)out.stride[0] + i];
                    if (!has[j * W + i] && y != 16)
                        abort();
                } else {
                    const uint8_t *px = out.data[0] + (size_t)j * (size_t)out.stride[0] + 4 * i;
                    if (px[3] != (has[j * W + i] ? 255 : 0))
                        abort();
                    if (!has[j * W + i] && (px[0] | px[1] | px[2]))
                        abort();
                }
            }
        }
    }
    fovea_frame_free(ctx, &out);
    for (int c = 0; c < n; c++)
        fovea_frame_free(ctx, &cams[c]);
    fovea_stitcher_close(&st);
}

/* Every camera's size even, and the panorama's: NV12 inputs and I420 output. */
static int fuzz_map_even(const fovea_stitch_map *m)
{
    int even = m->pano_width % 2 == 0 && m->pano_height % 2 == 0;
    for (int c = 0; c < m->num_cameras; c++)
        even = even && m->cam[c].cam_width % 2 == 0 && m->cam[c].cam_height % 2 == 0;
    return even;
}

#endif

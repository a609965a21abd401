/* Fuzz target: the import of six float lookup tables (src/stitch/map_import.c,
 * docs/map-format.md) and what the map then does with whatever values they
 * hold (NaN, infinities, denormals, huge weights, coordinates on the image's
 * borders).
 *
 * Input: 4 bytes of sizes (panorama 1..8 x 1..8, camera 1..8 x 1..8), then the
 * six tables' bytes one after the other (lut_left_x, lut_left_y, lut_right_x,
 * lut_right_y, weight_left, weight_right; pano_w * pano_h little-endian float32
 * each). Fewer bytes than that make the last tables short (the importer must
 * reject them). A map that imports must:
 *   - give every pixel weights that are finite, within [0, 1] and sum to 1
 *     (or none at all), exactly as many of them > 0 as it reports;
 *   - save and load to the same bytes (map file round trip);
 *   - stitch RGBA (and NV12 -> I420 when the sizes are even) on the C backend
 *     with automatic colour balance without a sanitizer report, opaque exactly
 *     where some camera has weight and black elsewhere. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fovea/fovea.h"
#include "fovea/stitch.h"
#include "stitch/map_file.h"
#include "stitch/map_import.h"
#include "stitch/map.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const table_names[6] = {"lut_left_x.bin",  "lut_left_y.bin",
                                           "lut_right_x.bin", "lut_right_y.bin",
                                           "weight_left.bin", "weight_right.bin"};

static char dir[64];
static fovea_context *ctx;

static void cleanup(void)
{
    char path[128];
    for (int t = 0; t < 6; t++) {
        snprintf(path, sizeof(path), "%s/%s", dir, table_names[t]);
        unlink(path);
    }
    rmdir(dir);
    fovea_close(&ctx);
}

static void setup(void)
{
    if (dir[0])
        return;
    snprintf(dir, sizeof(dir), "/tmp/fovea-fuzz-tables.XXXXXX");
    if (!mkdtemp(dir))
        abort();
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 1;
    if (fovea_open(&ctx, &s) != FOVEA_OK)
        abort();
    atexit(cleanup);
}

static void write_file(const char *name, const uint8_t *p, size_t n)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || (n && fwrite(p, 1, n, fp) != n) || fclose(fp) != 0)
        abort();
}

/* Weights of every pixel; returns how many pixels some camera weights, and
 * sets has[i + j * W] to whether any does. Aborts on a bad weight. */
static int check_weights(const fovea_stitch_map *m, uint8_t *has)
{
    int covered = 0;
    for (int j = 0; j < m->pano_height; j++) {
        for (int i = 0; i < m->pano_width; i++) {
            float w[FOVEA_STITCH_MAX_CAMERAS], u[FOVEA_STITCH_MAX_CAMERAS],
                v[FOVEA_STITCH_MAX_CAMERAS];
            int n = fovea_map_weights(m, i, j, w, u, v);
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

static void check_file_round_trip(const fovea_stitch_map *m)
{
    char err[256];
    uint8_t *buf = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    fovea_stitch_map back;
    if (fovea_map_encode(m, &buf, &len, err, sizeof(err)) != FOVEA_OK)
        abort();
    if (fovea_map_decode(buf, len, &back, err, sizeof(err)) != FOVEA_OK)
        abort();
    if (fovea_map_encode(&back, &again, &len2, err, sizeof(err)) != FOVEA_OK)
        abort();
    if (len2 != len || memcmp(buf, again, len) != 0)
        abort();
    fovea_stitch_map_free(&back);
    free(buf);
    free(again);
}

/* Stitch two frames (the second with corrections measured on the first). */
static void stitch(const fovea_stitch_map *m, fovea_pixfmt fmt, const uint8_t *has,
                   const uint8_t *data, size_t size)
{
    const int W = m->pano_width, H = m->pano_height;
    const int yuv = fmt != FOVEA_PIX_RGBA;
    fovea_frame cams[2], out;
    const fovea_frame *in[2] = {&cams[0], &cams[1]};
    fovea_stitch_settings ss;
    fovea_stitch_default_settings(&ss);
    ss.deterministic = 1;
    ss.auto_interval = 1;
    ss.min_overlap_samples = 1;
    fovea_stitcher *st = NULL;
    if (fovea_stitcher_create(ctx, &st, m, &ss) != FOVEA_OK)
        abort();
    for (int c = 0; c < 2; c++)
        if (fovea_frame_alloc(ctx, &cams[c], m->cam[c].cam_width, m->cam[c].cam_height, fmt,
                              FOVEA_MEM_HOST) != FOVEA_OK)
            abort();
    if (fovea_frame_alloc(ctx, &out, W, H, yuv ? FOVEA_PIX_I420 : FOVEA_PIX_RGBA,
                          FOVEA_MEM_HOST) != FOVEA_OK)
        abort();
    size_t k = 0;
    for (int frame = 0; frame < 2; frame++) {
        /* camera pixels: the input's bytes over and over, changed per frame */
        for (int c = 0; c < 2; c++) {
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
        if (fovea_stitcher_process(st, in, 2, &out) != FOVEA_OK)
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
    fovea_frame_free(ctx, &cams[0]);
    fovea_frame_free(ctx, &cams[1]);
    fovea_stitcher_destroy(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    setup();
    const int pw = 1 + data[0] % 8, ph = 1 + data[1] % 8;
    const int cw = 1 + data[2] % 8, ch = 1 + data[3] % 8;
    const size_t table = (size_t)pw * (size_t)ph * 4;
    const uint8_t *p = data + 4;
    size_t left = size - 4;
    for (int t = 0; t < 6; t++) {
        size_t n = left < table ? left : table;
        write_file(table_names[t], p, n);
        p += n;
        left -= n;
    }
    fovea_stitch_map m;
    char err[512];
    int rc = fovea_map_import_tables(dir, pw, ph, cw, ch, 8.0f, &m, err, sizeof(err));
    if (size - 4 < 6 * table) {
        if (rc == FOVEA_OK)
            abort(); /* a short table must be rejected */
        return 0;
    }
    if (rc != FOVEA_OK) {
        if (rc != FOVEA_ERR_CORRUPT || !strstr(err, "weight"))
            abort(); /* full tables fail only on a weight */
        return 0;
    }
    uint8_t has[64];
    check_weights(&m, has);
    check_file_round_trip(&m);
    stitch(&m, FOVEA_PIX_RGBA, has, data, size);
    if (pw % 2 == 0 && ph % 2 == 0 && cw % 2 == 0 && ch % 2 == 0)
        stitch(&m, FOVEA_PIX_NV12, has, data, size);
    fovea_stitch_map_free(&m);
    return 0;
}

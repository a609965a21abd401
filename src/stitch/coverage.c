/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Coverage statistics and the coverage picture of a stitch map. */
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "stitch/coverage.h"

static int map_ok(const fovea_stitch_map *m)
{
    if (!m || m->pano_width < 1 || m->pano_height < 1 || m->num_cameras < 1 ||
        m->num_cameras > FOVEA_STITCH_MAX_CAMERAS)
        return 0;
    for (int c = 0; c < m->num_cameras; c++)
        if (!m->cam[c].uv)
            return 0;
    return 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int fovea_stitch_map_coverage(const fovea_stitch_map *m, fovea_stitch_coverage *out)
{
    if (!map_ok(m) || !out)
        return FOVEA_ERR_INVALID_ARG;
    memset(out, 0, sizeof(*out));
    int n = m->num_cameras, W = m->pano_width, H = m->pano_height;
    int npairs = n * (n - 1) / 2;
    int pair_index[FOVEA_STITCH_MAX_CAMERAS][FOVEA_STITCH_MAX_CAMERAS];
    for (int a = 0, p = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            pair_index[a][b] = p++;

    /* per pair: pixels both see in each row (for the median) */
    int *row_counts = NULL;
    if (npairs > 0) {
        row_counts = calloc((size_t)npairs * (size_t)H, sizeof(int));
        if (!row_counts)
            return FOVEA_ERR_NOMEM;
    }
    int64_t by_count[3] = {0, 0, 0};
    int64_t per_cam[FOVEA_STITCH_MAX_CAMERAS] = {0};
    int64_t per_pair[FOVEA_STITCH_MAX_CAMERAS * (FOVEA_STITCH_MAX_CAMERAS - 1) / 2] = {0};
    for (int j = 0; j < H; j++) {
        for (int i = 0; i < W; i++) {
            int list[FOVEA_STITCH_MAX_CAMERAS], k = 0;
            for (int c = 0; c < n; c++) {
                float u, v;
                if (fv_map_lookup(m, c, i, j, &u, &v)) {
                    list[k++] = c;
                    per_cam[c]++;
                }
            }
            by_count[k < 2 ? k : 2]++;
            for (int x = 0; x < k; x++)
                for (int y = x + 1; y < k; y++) {
                    int p = pair_index[list[x]][list[y]];
                    per_pair[p]++;
                    row_counts[(size_t)p * H + j]++;
                }
        }
    }

    double total = (double)W * (double)H;
    out->num_cameras = n;
    out->total = (int64_t)W * H;
    out->pct_none = 100.0 * (double)by_count[0] / total;
    out->pct_one = 100.0 * (double)by_count[1] / total;
    out->pct_multi = 100.0 * (double)by_count[2] / total;
    for (int c = 0; c < n; c++)
        out->pct_camera[c] = 100.0 * (double)per_cam[c] / total;
    for (int a = 0; a < n; a++) {
        for (int b = a + 1; b < n; b++) {
            int p = pair_index[a][b];
            int *rc = row_counts + (size_t)p * H;
            /* keep only rows with overlap, then the median of those */
            int rows = 0;
            for (int j = 0; j < H; j++)
                if (rc[j] > 0)
                    rc[rows++] = rc[j];
            double width = 0.0;
            if (rows > 0) {
                qsort(rc, (size_t)rows, sizeof(int), cmp_int);
                width = rows % 2 ? rc[rows / 2] : 0.5 * (rc[rows / 2 - 1] + rc[rows / 2]);
            }
            out->overlap_pct[a][b] = out->overlap_pct[b][a] = 100.0 * (double)per_pair[p] / total;
            out->overlap_rows[a][b] = out->overlap_rows[b][a] = rows;
            out->overlap_width[a][b] = out->overlap_width[b][a] = width;
        }
    }
    free(row_counts);
    return FOVEA_OK;
}

void fv_coverage_color(int c, uint8_t rgb[3])
{
    /* saturated hues first, then darker/lighter variants */
    static const uint8_t palette[FOVEA_STITCH_MAX_CAMERAS][3] = {
        {230, 60, 60},   {60, 120, 240},  {60, 200, 80},   {240, 200, 40},
        {200, 70, 220},  {40, 210, 220},  {250, 140, 40},  {150, 90, 40},
        {160, 230, 120}, {120, 80, 200},  {240, 120, 170}, {40, 130, 120},
        {200, 200, 140}, {110, 160, 250}, {180, 40, 90},   {130, 130, 60}};
    int k = ((c % FOVEA_STITCH_MAX_CAMERAS) + FOVEA_STITCH_MAX_CAMERAS) % FOVEA_STITCH_MAX_CAMERAS;
    memcpy(rgb, palette[k], 3);
}

int fv_map_coverage_image(const fovea_stitch_map *m, uint8_t *rgb, ptrdiff_t stride)
{
    if (!map_ok(m) || !rgb || stride < (ptrdiff_t)m->pano_width * 3)
        return FOVEA_ERR_INVALID_ARG;
    int n = m->num_cameras, W = m->pano_width, H = m->pano_height;
    size_t npix = (size_t)W * (size_t)H;
    uint8_t *dom = malloc(npix); /* camera of largest weight, 255 = uncovered */
    if (!dom)
        return FOVEA_ERR_NOMEM;
    uint8_t col[FOVEA_STITCH_MAX_CAMERAS][3];
    for (int c = 0; c < n; c++)
        fv_coverage_color(c, col[c]);
    for (int j = 0; j < H; j++) {
        uint8_t *row = rgb + (ptrdiff_t)j * stride;
        for (int i = 0; i < W; i++) {
            float w[FOVEA_STITCH_MAX_CAMERAS];
            int cnt = fv_map_weights(m, i, j, w, NULL, NULL);
            uint8_t *px = row + (size_t)i * 3;
            if (cnt == 0) {
                px[0] = px[1] = px[2] = 0;
                dom[(size_t)j * W + i] = 255;
                continue;
            }
            int seen = 0, best = 0;
            float r = 0.0f, g = 0.0f, b = 0.0f;
            for (int c = 0; c < n; c++) {
                float uc, vc;
                seen += fv_map_lookup(m, c, i, j, &uc, &vc);
                r += w[c] * col[c][0];
                g += w[c] * col[c][1];
                b += w[c] * col[c][2];
                if (w[c] > w[best])
                    best = c;
            }
            float k = seen >= 2 ? 1.0f : 0.6f;
            px[0] = (uint8_t)(r * k + 0.5f);
            px[1] = (uint8_t)(g * k + 0.5f);
            px[2] = (uint8_t)(b * k + 0.5f);
            dom[(size_t)j * W + i] = (uint8_t)best;
        }
    }
    for (int j = 0; j < H; j++) {
        uint8_t *row = rgb + (ptrdiff_t)j * stride;
        for (int i = 0; i < W; i++) {
            uint8_t d = dom[(size_t)j * W + i];
            if (d == 255)
                continue;
            uint8_t right = i + 1 < W ? dom[(size_t)j * W + i + 1] : 255;
            uint8_t below = j + 1 < H ? dom[(size_t)(j + 1) * W + i] : 255;
            if ((right != 255 && right != d) || (below != 255 && below != d)) {
                row[(size_t)i * 3] = row[(size_t)i * 3 + 1] = row[(size_t)i * 3 + 2] = 255;
            }
        }
    }
    free(dom);
    return FOVEA_OK;
}

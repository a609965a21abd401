/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Import of users' full-resolution float tables (left/right lookup and weight
 * tables) into a step-1 stitch map with explicit weights. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/core.h"
#include "stitch/map_import.h"

/* Where a camera does not see a pixel its node gets this finite position outside
 * the image, not NaN: the lookup's bilinear arithmetic turns a NaN node into a NaN
 * result even with a zero factor, so a NaN here would also hide the seen pixels to
 * its left and above (whose cells include this node). With finite nodes and
 * step 1 the zero factors drop out exactly and every seen pixel keeps its value. */
#define UNSEEN (-1.0f)

enum { T_LX, T_LY, T_RX, T_RY, T_WL, T_WR, T_COUNT };

static const char *const table_names[T_COUNT] = {
    "lut_left_x.bin",  "lut_left_y.bin",  "lut_right_x.bin",
    "lut_right_y.bin", "weight_left.bin", "weight_right.bin",
};


static int host_is_le(void)
{
    uint32_t one = 1;
    uint8_t b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* Read count little-endian floats. Returns 0, or a status with err set. */
static int read_floats(FILE *fp, const char *path, float *dst, size_t count, char *err,
                       size_t errsz)
{
    if (fread(dst, sizeof(float), count, fp) != count) {
        if (ferror(fp))
            return fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: read error: %s", path, strerror(errno));
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "%s: file shrank while reading", path);
    }
    if (!host_is_le()) {
        for (size_t i = 0; i < count; i++) {
            uint8_t b[4];
            memcpy(b, &dst[i], 4);
            uint32_t u =
                (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
            memcpy(&dst[i], &u, 4);
        }
    }
    return FOVEA_OK;
}

/* Fill camera c's grid from its x/y tables and its weight table. */
static int import_camera(fv_camera_map *cam, int pano_w, int pano_h, int cam_w, int cam_h, FILE *fx,
                         FILE *fy, FILE *fw, const char *px, const char *py, const char *pw,
                         float *rowx, float *rowy, char *err, size_t errsz)
{
    int rc = fv_camera_map_alloc(cam, pano_w, pano_h, 1);
    if (rc != FOVEA_OK)
        return fv_errbuf(err, errsz, rc, "cannot allocate a %dx%d map grid", pano_w, pano_h);
    cam->cam_width = cam_w;
    cam->cam_height = cam_h;
    cam->px_scale = 1.0f;
    if (cam->grid_w != pano_w + 1 || cam->grid_h != pano_h + 1)
        return fv_errbuf(err, errsz, FOVEA_ERR_INTERNAL, "unexpected step-1 grid size");
    size_t npix = (size_t)pano_w * (size_t)pano_h;
    cam->weight = malloc(npix * sizeof(float));
    if (!cam->weight)
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "cannot allocate %dx%d weights", pano_w,
                         pano_h);
    const float umax = (float)(cam_w - 1), vmax = (float)(cam_h - 1);
    const size_t gw = (size_t)cam->grid_w;
    for (int j = 0; j < pano_h; j++) {
        rc = read_floats(fx, px, rowx, (size_t)pano_w, err, errsz);
        if (rc == FOVEA_OK)
            rc = read_floats(fy, py, rowy, (size_t)pano_w, err, errsz);
        if (rc != FOVEA_OK)
            return rc;
        float *node = cam->uv + (size_t)j * gw * 2;
        for (int i = 0; i < pano_w; i++) {
            float u = rowx[i], v = rowy[i];
            int seen =
                isfinite(u) && isfinite(v) && u >= 0.0f && v >= 0.0f && u <= umax && v <= vmax;
            node[2 * i] = seen ? u : UNSEEN;
            node[2 * i + 1] = seen ? v : UNSEEN;
        }
        /* Extra node column: a copy of the last pixel, so the last pixel stays exact. */
        node[2 * (size_t)pano_w] = node[2 * (size_t)pano_w - 2];
        node[2 * (size_t)pano_w + 1] = node[2 * (size_t)pano_w - 1];
    }
    memcpy(cam->uv + (size_t)pano_h * gw * 2, cam->uv + (size_t)(pano_h - 1) * gw * 2,
           gw * 2 * sizeof(float));

    rc = read_floats(fw, pw, cam->weight, npix, err, errsz);
    if (rc != FOVEA_OK)
        return rc;
    for (int j = 0; j < pano_h; j++) {
        for (int i = 0; i < pano_w; i++) {
            size_t k = (size_t)j * (size_t)pano_w + (size_t)i;
            float w = cam->weight[k];
            if (!isfinite(w) || w < 0.0f)
                return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT,
                                 "%s: weight %g at pixel (%d,%d) is negative or not finite", pw,
                                 (double)w, i, j);
            /* A weight where the camera does not see must not take part in blending. */
            if (cam->uv[((size_t)j * gw + (size_t)i) * 2] == UNSEEN)
                cam->weight[k] = 0.0f;
        }
    }
    return FOVEA_OK;
}

int fv_map_import_tables(const char *dir, int pano_w, int pano_h, int cam_w, int cam_h,
                         float feather, fovea_stitch_map *m, char *err, size_t errsz)
{
    if (!m || !dir)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "import: NULL argument");
    memset(m, 0, sizeof(*m));
    if (pano_w < 1 || pano_w > 16384 || pano_h < 1 || pano_h > 16384)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "import: panorama size %dx%d out of range (1..16384)", pano_w, pano_h);
    if (cam_w < 1 || cam_w > 16384 || cam_h < 1 || cam_h > 16384)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "import: camera size %dx%d out of range (1..16384)", cam_w, cam_h);
    if (!isfinite(feather) || feather < 0.0f)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "import: feather %g is not a finite value >= 0", (double)feather);

    const size_t npix = (size_t)pano_w * (size_t)pano_h;
    const size_t expect = npix * sizeof(float);
    char *paths[T_COUNT] = {0};
    FILE *fp[T_COUNT] = {0};
    float *rowx = NULL, *rowy = NULL;
    int rc = FOVEA_OK;
    size_t dlen = strlen(dir);
    for (int t = 0; t < T_COUNT; t++) {
        size_t len = dlen + 1 + strlen(table_names[t]) + 1;
        paths[t] = malloc(len);
        if (!paths[t]) {
            rc = fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "import: out of memory");
            goto done;
        }
        snprintf(paths[t], len, "%s/%s", dir, table_names[t]);
        fp[t] = fopen(paths[t], "rb");
        if (!fp[t]) {
            rc = fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: cannot open: %s", paths[t],
                           strerror(errno));
            goto done;
        }
        struct stat st;
        if (fstat(fileno(fp[t]), &st) != 0 || !S_ISREG(st.st_mode)) {
            rc = fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: not a regular file", paths[t]);
            goto done;
        }
        if ((uint64_t)st.st_size != (uint64_t)expect) {
            rc = fv_errbuf(err, errsz, FOVEA_ERR_MISMATCH,
                           "%s: expected %zu bytes (%dx%d float32), file has %llu bytes", paths[t],
                           expect, pano_w, pano_h, (unsigned long long)st.st_size);
            goto done;
        }
    }
    rowx = malloc((size_t)pano_w * sizeof(float));
    rowy = malloc((size_t)pano_w * sizeof(float));
    if (!rowx || !rowy) {
        rc = fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "import: out of memory");
        goto done;
    }
    m->pano_width = pano_w;
    m->pano_height = pano_h;
    m->num_cameras = 2;
    m->feather = feather;
    for (int c = 0; c < 2; c++) {
        int tx = c == 0 ? T_LX : T_RX, ty = c == 0 ? T_LY : T_RY, tw = c == 0 ? T_WL : T_WR;
        rc = import_camera(&m->cam[c], pano_w, pano_h, cam_w, cam_h, fp[tx], fp[ty], fp[tw],
                           paths[tx], paths[ty], paths[tw], rowx, rowy, err, errsz);
        if (rc != FOVEA_OK)
            goto done;
    }
done:
    if (rc != FOVEA_OK) {
        fv_stitch_map_free(m);
        memset(m, 0, sizeof(*m));
    }
    free(rowx);
    free(rowy);
    for (int t = 0; t < T_COUNT; t++) {
        if (fp[t])
            fclose(fp[t]);
        free(paths[t]);
    }
    return rc;
}

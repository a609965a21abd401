/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The photometric tables of a stitch (photo.h), from the map's per-camera
 * parameters, with the conventions of Hugin's renderer nona for 8-bit images
 * (docs/stitch.md "Hugin projects"): the sample rounded to a code, the inverse
 * camera response through a 256-point EMoR table (monotonic), exposure and white
 * balance, and the output response through the 1024-point EMoR table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "stitch/photo.h"

void fv_photo_emor_curve(const double p[5], double lut[1024])
{
    for (int i = 0; i < 1024; i++) {
        double t = fv_emor_f0[i];
        for (int k = 0; k < 5; k++)
            t += (double)(float)p[k] * fv_emor_h[k][i];
        lut[i] = t;
    }
}

/* The 1024-point curve resampled to 256 points by linear interpolation, then made
 * non-decreasing and capped by its last value (nona's table for 8-bit inputs). */
static void table_256(const double p[5], double t[256])
{
    double c[1024];
    fv_photo_emor_curve(p, c);
    for (int o = 0; o < 256; o++) {
        double x = o / 255.0 * 1023.0;
        int i = (int)x;
        double d = x - i;
        t[o] = d == 0.0 ? c[i] : (1.0 - d) * c[i] + d * c[i + 1];
    }
    for (int j = 0; j < 255; j++) {
        if (t[j + 1] > t[255])
            t[j + 1] = t[255];
        else if (t[j + 1] < t[j])
            t[j + 1] = t[j];
    }
}

/* The inverse of the increasing table t (n points over [0, 1]) at y: linear
 * between the points around it, 0 below the first, the last value above it. */
static double inverse(const double *t, int n, double y)
{
    if (y >= t[n - 1])
        return t[n - 1];
    if (y < t[0])
        return 0.0;
    int lo = 0, hi = n - 1; /* first index with t >= y */
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (t[mid] < y)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (y == 1.0)
        return 1.0;
    if (lo == 0)
        return 0.0;
    if (y == t[lo])
        return lo / (n - 1.0);
    return (lo - 1 + (y - t[lo - 1]) / (t[lo] - t[lo - 1])) / (n - 1.0);
}

/* The output curve c (1024 points) at x: linear interpolation; 0 below 0, the
 * last value above 1. */
static double forward(const double *c, double x)
{
    if (x > 1.0)
        return c[1023];
    if (x < 0.0)
        return 0.0;
    double s = x * 1023.0;
    int i = (int)s;
    s -= i;
    return i + 1 < 1024 ? (1.0 - s) * c[i] + s * c[i + 1] : c[i];
}

static void build_camera(const fv_camera_map *cm, const fovea_rig_photometric *p,
                         double out_exposure, stitch_photo_cam *pc)
{
    double t[256];
    if (!p->linear_response)
        table_256(p->emor, t);
    /* nona: value x dest exposure / (vignetting x source exposure), exposures
     * 2^-EV; R and B then over their white balance factors */
    const double gain = exp2(p->exposure - out_exposure);
    const double wb[3] = {p->wb_red, 1.0, p->wb_blue};
    double code_lin[256];
    for (int c = 0; c < 256; c++)
        code_lin[c] = p->linear_response ? c / 255.0 : inverse(t, 256, c / 255.0);
    for (int q = 0; q < FOVEA_LUT_SIZE; q++) {
        /* nona interpolates in the image's own type, an 8-bit value rounded, and
         * transforms that code. A quarter code n + 1/2 (q = 4n + 2) stands for
         * values either side of the rounding point: the mean of both codes' */
        const int n = q >> 2;
        const double lin =
            (q & 3) == 2 ? 0.5 * (code_lin[n] + code_lin[n + 1]) : code_lin[(q + 2) >> 2];
        for (int k = 0; k < 3; k++)
            pc->lin[k][q] = (float)(lin * gain / wb[k]);
    }
    const double w = cm->cam_width, h = cm->cam_height;
    pc->vig[0] = (float)((w - 1.0) / 2.0 + p->vignetting_center[0]);
    pc->vig[1] = (float)((h - 1.0) / 2.0 + p->vignetting_center[1]);
    pc->vig[2] = (float)(1.0 / sqrt(w / 2.0 * (w / 2.0) + h / 2.0 * (h / 2.0)));
    for (int i = 0; i < 4; i++)
        pc->vig[3 + i] = (float)p->vignetting[i];
    pc->vig[7] = 0.0f;
}

int fv_photo_build(const fovea_stitch_map *m, stitch_photo_store **out)
{
    *out = NULL;
    int any = 0;
    for (int c = 0; c < m->num_cameras; c++)
        any |= m->photo[c].enabled;
    if (!any)
        return 0;
    stitch_photo_store *s = calloc(1, sizeof(*s));
    if (!s)
        return FOVEA_ERR_NOMEM;
    double curve[1024];
    fv_photo_emor_curve(m->photo_emor, curve);
    for (int j = 0; j < STITCH_PHOTO_OUT_SIZE; j++) {
        const double x = (double)j / STITCH_PHOTO_OUT_SCALE;
        double y = 1020.0 * (m->photo_linear_response ? x : forward(curve, x));
        y = y > 0.0 ? (y < 1020.0 ? y : 1020.0) : 0.0;
        s->out[j] = (uint16_t)floor(y + 0.5);
    }
    s->view.out = s->out;
    for (int c = 0; c < m->num_cameras; c++) {
        if (!m->photo[c].enabled)
            continue;
        build_camera(&m->cam[c], &m->photo[c], m->photo_exposure, &s->cam[c]);
        s->view.cam[c] = &s->cam[c];
    }
    *out = s;
    return 1;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Hugin's photometric parameters (exposure, white balance, vignetting, EMoR
 * response) applied by fovea against Hugin's renderer nona, per pixel, for two
 * lens types: a smooth 8-bit image goes through nona (8-bit output, which nona
 * dithers where a value is not within 1/4 of a code) and through fovea's C
 * stitcher (color correction off). Skips (77) without nona. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/rig.h"
#include "fovea/stitch.h"

/* nona dithers 8-bit outputs (a value v with a fraction in (1/4, 3/4] becomes
 * floor or ceil at random): 1 code where the two renderers sample the same code.
 * A bilinear sample that rounds to the other input code (the renderers' positions
 * differ by ~0.005 px) moves the output by the transform's slope: rare, bounded here */
#define TOL_MAX 2
#define TOL_MEAN 0.3
#define TOL_OVER1 0.002 /* fraction of samples more than 1 code apart */
#define EDGE_PX 1.0

typedef struct {
    const char *name;
    int lens, w, h;
    double v;
    const char *geo;   /* y p r a b c d e g t */
    const char *photo; /* Eev Er Eb Ra.. V.. of the image */
    double pano_e;     /* the p line's E */
} photo_case;

static const photo_case cases[] = {
    {"rectilinear", 0, 200, 150, 80, "y10 p5 r2 a0.01 b-0.02 c0.005 d2 e-1 g0 t0",
     "Eev0.6 Er1.15 Eb0.85 Ra1.2 Rb-0.4 Rc0.3 Rd0.2 Re-0.1 Va1 Vb-0.35 Vc0.12 Vd-0.06 Vx6 Vy-4 "
     "Vm5",
     0.2},
    {"equisolid", 21, 180, 180, 150, "y-20 p-8 r5 a0.002 b-0.004 c0.001 d1 e1 g0 t0",
     "Eev-0.4 Er0.9 Eb1.2 Ra-0.8 Rb0.5 Rc-0.2 Rd0.1 Re0.05 Va1.05 Vb-0.5 Vc0.2 Vd-0.1 Vx-5 "
     "Vy3 Vm5",
     -0.3},
    {"fisheye-linear", 3, 160, 120, 150, "y30 p-10 r-3 a0 b0 c0 d0 e0 g0 t0",
     "Eev1 Er1 Eb1 Rt1 Ra0 Rb0 Rc0 Rd0 Re0 Va1 Vb-0.2 Vc0 Vd0 Vx0 Vy0 Vm5", 0.5},
};

static int put16(FILE *f, unsigned v)
{
    return fputc((int)(v & 255), f) != EOF && fputc((int)(v >> 8), f) != EOF;
}
static int put32(FILE *f, uint32_t v)
{
    return put16(f, v & 0xffff) && put16(f, v >> 16);
}

/* A smooth, real-looking 8-bit RGB test image (slow waves and a diagonal ramp). */
static void make_image(uint8_t *px, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double t = (double)x / w, s = (double)y / h;
            double r = 0.5 + 0.45 * sin(6.0 * t + 2.0 * s);
            double g = 0.15 + 0.8 * (0.6 * t + 0.4 * s);
            double b = 0.5 + 0.4 * cos(5.0 * s - 3.0 * t) * sin(3.0 * t + 1.0);
            uint8_t *p = px + ((size_t)y * w + x) * 4;
            p[0] = (uint8_t)lround(255.0 * r);
            p[1] = (uint8_t)lround(255.0 * g);
            p[2] = (uint8_t)lround(255.0 * b);
            p[3] = 255;
        }
}

/* Little-endian, uncompressed, one strip, 8-bit RGB. */
static int write_tiff8(const char *path, const uint8_t *rgba, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    const int ntags = 10;
    uint32_t ifd = 8, extra = ifd + 2 + 12 * ntags + 4, data = extra + 8;
    uint32_t bytes = (uint32_t)w * (uint32_t)h * 3;
    const uint16_t tag[10] = {256, 257, 258, 259, 262, 273, 277, 278, 279, 284};
    const uint16_t type[10] = {3, 3, 3, 3, 3, 4, 3, 3, 4, 3};
    const uint32_t count[10] = {1, 1, 3, 1, 1, 1, 1, 1, 1, 1};
    const uint32_t val[10] = {(uint32_t)w, (uint32_t)h, extra,       1,     2,
                              data,        3,           (uint32_t)h, bytes, 1};
    int ok = fputs("II*", f) >= 0 && fputc(0, f) != EOF && put32(f, ifd) && put16(f, ntags);
    for (int i = 0; ok && i < ntags; i++) {
        ok = put16(f, tag[i]) && put16(f, type[i]) && put32(f, count[i]);
        ok = ok &&
             (type[i] == 3 && count[i] == 1 ? put16(f, val[i]) && put16(f, 0) : put32(f, val[i]));
    }
    ok = ok && put32(f, 0) && put16(f, 8) && put16(f, 8) && put16(f, 8) && put16(f, 0);
    for (size_t i = 0; ok && i < (size_t)w * h; i++)
        ok = fwrite(rgba + 4 * i, 3, 1, f) == 1;
    return fclose(f) == 0 && ok;
}

static uint32_t rd(const uint8_t *p, int n)
{
    return n == 2
               ? (uint32_t)(p[0] | p[1] << 8)
               : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* nona's 8-bit RGBA output (little-endian, uncompressed, chunky strips). */
static uint8_t *read_tiff8(const char *path, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = n > 8 ? malloc((size_t)n) : NULL;
    int ok = d && fread(d, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok || memcmp(d, "II*", 3) != 0)
        return free(d), NULL;
    uint32_t ifd = rd(d + 4, 4), nt = rd(d + ifd, 2);
    uint32_t spp = 0, comp = 0, bits = 0, nstrips = 0, offs_at = 0, offs_type = 4, rps = 0;
    *w = *h = 0;
    for (uint32_t i = 0; i < nt; i++) {
        const uint8_t *e = d + ifd + 2 + 12 * i;
        uint32_t t = rd(e, 2), ty = rd(e + 2, 2), c = rd(e + 4, 4);
        uint32_t v = ty == 3 ? rd(e + 8, 2) : rd(e + 8, 4);
        if (t == 256)
            *w = (int)v;
        else if (t == 257)
            *h = (int)v;
        else if (t == 258)
            bits = c == 1 ? v : rd(d + rd(e + 8, 4), 2);
        else if (t == 259)
            comp = v;
        else if (t == 277)
            spp = v;
        else if (t == 278)
            rps = v;
        else if (t == 273) {
            nstrips = c;
            offs_type = ty;
            offs_at = c == 1 ? (uint32_t)(e + 8 - d) : rd(e + 8, 4);
        }
    }
    if (spp != 4 || comp != 1 || bits != 8 || *w <= 0 || *h <= 0 || !rps)
        return free(d), NULL;
    size_t row = (size_t)*w * 4;
    uint8_t *px = malloc(row * (size_t)*h);
    for (uint32_t s = 0; px && s < nstrips; s++) {
        uint32_t off = offs_type == 3 ? rd(d + offs_at + 2 * s, 2) : rd(d + offs_at + 4 * s, 4);
        uint32_t y0 = s * rps, rows = y0 + rps > (uint32_t)*h ? (uint32_t)*h - y0 : rps;
        if ((size_t)off + row * rows > (size_t)n) {
            free(px);
            px = NULL;
            break;
        }
        memcpy(px + row * y0, d + off, row * rows);
    }
    free(d);
    return px;
}

typedef struct {
    long n, over1;
    int max;
    double mean;
} diff_stats;

/* fovea's panorama of the project against nona's, over pixels both render whose
 * source point lies EDGE_PX inside the image. ignore = 1 stitches without the
 * photometric part (the test's own check that it matters). */
static int compare(const char *pto, const uint8_t *img, int w, int h, const uint8_t *nona, int nw,
                   int nh, int ignore, diff_stats *ds)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = 2;
    fovea_context *ctx = NULL;
    fovea_rig *rig = NULL;
    fovea_stitch_map *map = NULL;
    fovea_stitcher *st = NULL;
    fovea_frame in, out;
    memset(&in, 0, sizeof(in));
    memset(&out, 0, sizeof(out));
    int ok = fovea_open(&ctx, &cs) == FOVEA_OK && fovea_rig_open_pto(&rig, ctx, pto) == FOVEA_OK &&
             fovea_stitch_map_open_rig(&map, ctx, rig, NULL, NULL) == FOVEA_OK;
    fovea_rig_panorama pano;
    ok = ok && fovea_rig_get_panorama(rig, &pano) == FOVEA_OK && pano.width == nw &&
         pano.height == nh;
    fovea_stitcher_settings ss;
    fovea_stitcher_default_settings(&ss);
    ss.color = FOVEA_COLOR_OFF;
    ss.ignore_photometric = ignore;
    ok = ok && fovea_stitcher_open(&st, ctx, map, &ss) == FOVEA_OK;
    ok = ok && fovea_frame_alloc(ctx, &in, w, h, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK &&
         fovea_frame_alloc(ctx, &out, nw, nh, FOVEA_PIX_RGBA, FOVEA_MEM_HOST) == FOVEA_OK;
    if (ok) {
        for (int y = 0; y < h; y++)
            memcpy(in.data[0] + (size_t)y * in.stride[0], img + (size_t)y * w * 4, (size_t)w * 4);
        const fovea_frame *ins[1] = {&in};
        ok = fovea_stitcher_process(st, ins, 1, &out) == FOVEA_OK;
    }
    if (!ok)
        fprintf(stderr, "fovea: %s\n", fovea_last_error(ctx));
    memset(ds, 0, sizeof(*ds));
    double sum = 0.0;
    for (int j = 0; ok && j < nh; j++)
        for (int i = 0; i < nw; i++) {
            const uint8_t *a = out.data[0] + (size_t)j * out.stride[0] + 4 * (size_t)i;
            const uint8_t *b = nona + ((size_t)j * nw + i) * 4;
            double d[3], u, v;
            fovea_rig_panorama_to_dir(rig, i, j, d);
            if (!fovea_rig_dir_to_camera(rig, 0, d, &u, &v) || u < EDGE_PX || u > w - 1 - EDGE_PX ||
                v < EDGE_PX || v > h - 1 - EDGE_PX || !a[3] || !b[3])
                continue;
            for (int k = 0; k < 3; k++) {
                int e = abs((int)a[k] - (int)b[k]);
                ds->max = e > ds->max ? e : ds->max;
                ds->over1 += e > 1;
                sum += e;
                ds->n++;
            }
        }
    ds->mean = ds->n ? sum / ds->n : 0.0;
    fovea_frame_free(ctx, &in);
    fovea_frame_free(ctx, &out);
    fovea_stitcher_close(&st);
    fovea_stitch_map_close(&map);
    fovea_rig_close(&rig);
    fovea_close(&ctx);
    return ok && ds->n > 3000;
}

static int run_case(const char *dir, const photo_case *c)
{
    char img[512], pto[512], out[512], tif[600], cmd[2048];
    snprintf(img, sizeof(img), "%s/%s.tif", dir, c->name);
    snprintf(pto, sizeof(pto), "%s/%s.pto", dir, c->name);
    snprintf(out, sizeof(out), "%s/%s_out", dir, c->name);
    uint8_t *px = malloc((size_t)c->w * c->h * 4);
    if (!px)
        return 0;
    make_image(px, c->w, c->h);
    FILE *f = fopen(pto, "w");
    int ok = write_tiff8(img, px, c->w, c->h) && f;
    if (f) {
        fprintf(f, "# hugin project file\np f2 w720 h360 v360 E%g R0 n\"TIFF_m c:NONE r:UNCROP\"\n",
                c->pano_e);
        fprintf(f, "m i5\n");
        fprintf(f, "i w%d h%d f%d v%g %s %s TrX0 TrY0 TrZ0 Tpy0 Tpp0 j0 n\"%s.tif\"\n", c->w, c->h,
                c->lens, c->v, c->geo, c->photo, c->name);
        fprintf(f, "v\n");
        ok = fclose(f) == 0 && ok;
    }
    snprintf(cmd, sizeof(cmd), "cd '%s' && nona -p UINT8 -z NONE -o '%s' '%s' >/dev/null", dir, out,
             pto);
    if (ok && system(cmd) != 0) {
        fprintf(stderr, "%s: nona failed: %s\n", c->name, cmd);
        ok = 0;
    }
    snprintf(tif, sizeof(tif), "%s0000.tif", out);
    int nw = 0, nh = 0;
    uint8_t *nona = ok ? read_tiff8(tif, &nw, &nh) : NULL;
    diff_stats on, off;
    ok = nona && compare(pto, px, c->w, c->h, nona, nw, nh, 0, &on) &&
         compare(pto, px, c->w, c->h, nona, nw, nh, 1, &off);
    int pass = ok && on.max <= TOL_MAX && on.mean <= TOL_MEAN &&
               on.over1 <= (long)(TOL_OVER1 * on.n) && off.mean > 4.0;
    printf("%-16s %8ld %8d %10.4f %10.5f %12.3f%s\n", c->name, on.n, on.max, on.mean,
           on.n ? (double)on.over1 / on.n : 0.0, off.mean, pass ? "" : "  FAIL");
    free(nona);
    free(px);
    return pass;
}

int main(void)
{
    if (system("command -v nona >/dev/null 2>&1") != 0) {
        printf("nona (hugin-tools) not installed: skipped\n");
        return 77;
    }
    char dir[] = "/tmp/fovea_pto_photo_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    int fails = 0;
    printf("%-16s %8s %8s %10s %10s %12s\n", "case", "samples", "max", "mean", ">1 code",
           "mean if off");
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
        fails += !run_case(dir, &cases[k]);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return fails ? 1 : 0;
}

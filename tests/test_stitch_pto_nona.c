/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea's remap of Hugin projects against Hugin's own renderer, nona, per lens
 * type: a float TIFF whose R, G encode each source pixel's x, y goes through nona,
 * and the decoded source position of every panorama pixel is compared with where
 * fovea's stitch map (and its exact projection) samples it. Skips (77) without nona. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fovea/fovea.h"
#include "fovea/rig.h"
#include "fovea/stitch.h"

#define TOL_PX 0.1
/* nona's bilinear interpolator renormalizes its weights where the kernel leaves
 * the image: compare only source points at least this far inside */
#define EDGE_PX 1.0

typedef struct {
    const char *name;
    int pano_f, pano_w, pano_h;
    double pano_v;
    const char *pano_crop; /* NULL or "l,r,t,b" */
    int crop_l, crop_t;    /* panorama pixel of nona's (0, 0) (its output is the crop) */
    int lens, w, h;
    double v;
    const char *params; /* y p r a b c d e g t */
} nona_case;

static const nona_case cases[] = {
    {"rectilinear", 2, 720, 360, 360, NULL, 0, 0, 0, 160, 120, 70,
     "y20 p10 r5 a0.01 b-0.02 c0.005 d3 e-2 g1 t-1"},
    {"panoramic", 2, 720, 360, 360, NULL, 0, 0, 1, 200, 100, 100,
     "y-30 p-8 r3 a0.002 b-0.01 c0.004 d-2 e1.5 g0.5 t0.3"},
    {"circular-fisheye", 2, 720, 360, 360, NULL, 0, 0, 2, 160, 160, 180,
     "y45 p20 r-10 a0.003 b-0.006 c0.002 d1.5 e-1 g0.4 t-0.2"},
    {"fullframe-fisheye", 2, 720, 360, 360, NULL, 0, 0, 3, 160, 120, 150,
     "y-60 p-15 r8 a-0.004 b0.01 c-0.003 d-1 e2 g-0.3 t0.5"},
    {"equirectangular", 2, 720, 360, 360, NULL, 0, 0, 4, 200, 100, 120,
     "y10 p5 r2 a0.001 b-0.002 c0.001 d2 e-1 g0.2 t0.1"},
    {"orthographic", 2, 720, 360, 360, NULL, 0, 0, 8, 160, 160, 160,
     "y100 p-25 r4 a0.002 b-0.004 c0.001 d1 e1 g0.3 t-0.3"},
    {"stereographic", 2, 720, 360, 360, NULL, 0, 0, 10, 160, 120, 200,
     "y-120 p30 r-6 a0.003 b-0.005 c0.002 d-2 e-1.5 g-0.2 t0.4"},
    {"equisolid", 2, 720, 360, 360, NULL, 0, 0, 21, 160, 160, 180,
     "y170 p-5 r12 a-0.002 b0.004 c-0.001 d0.5 e-0.5 g0.1 t0.2"},
    {"cylindrical-pano", 1, 600, 300, 300, NULL, 0, 0, 0, 160, 120, 70,
     "y-15 p8 r-4 a0.01 b-0.02 c0.005 d-3 e2 g-1 t1"},
    {"cropped-pano", 2, 720, 360, 360, "100,500,40,320", 0, 0, 0, 160, 120, 70,
     "y-40 p-10 r3 a0.01 b-0.02 c0.005 d3 e-2 g1 t-1"},
};

static int put16(FILE *f, unsigned v)
{
    return fputc((int)(v & 255), f) != EOF && fputc((int)(v >> 8), f) != EOF;
}
static int put32(FILE *f, uint32_t v)
{
    return put16(f, v & 0xffff) && put16(f, v >> 16);
}

/* Little-endian, uncompressed, one strip: R = x / w, G = y / h, B = 0.5 (nona
 * clamps float images to [0, 1]; B measures any scale it applies). */
static int write_coord_tiff(const char *path, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    const int ntags = 11;
    uint32_t ifd = 8, extra = ifd + 2 + 12 * ntags + 4, data = extra + 12;
    uint32_t bytes = (uint32_t)w * (uint32_t)h * 12;
    const uint16_t tag[11] = {256, 257, 258, 259, 262, 273, 277, 278, 279, 284, 339};
    const uint16_t type[11] = {3, 3, 3, 3, 3, 4, 3, 3, 4, 3, 3};
    const uint32_t count[11] = {1, 1, 3, 1, 1, 1, 1, 1, 1, 1, 3};
    const uint32_t val[11] = {(uint32_t)w, (uint32_t)h, extra, 1, 2,        data,
                              3,           (uint32_t)h, bytes, 1, extra + 6};
    int ok = fputs("II*", f) >= 0 && fputc(0, f) != EOF && put32(f, ifd) && put16(f, ntags);
    for (int i = 0; ok && i < ntags; i++) {
        ok = put16(f, tag[i]) && put16(f, type[i]) && put32(f, count[i]);
        ok = ok &&
             (type[i] == 3 && count[i] == 1 ? put16(f, val[i]) && put16(f, 0) : put32(f, val[i]));
    }
    ok = ok && put32(f, 0);
    for (int i = 0; ok && i < 3; i++)
        ok = put16(f, 32);
    for (int i = 0; ok && i < 3; i++)
        ok = put16(f, 3);
    for (int y = 0; ok && y < h; y++)
        for (int x = 0; ok && x < w; x++) {
            float px[3] = {(float)x / (float)w, (float)y / (float)h, 0.5f};
            ok = fwrite(px, sizeof(px), 1, f) == 1;
        }
    return fclose(f) == 0 && ok;
}

/* nona's float RGBA output (little-endian, uncompressed, chunky strips). */
typedef struct {
    int w, h;
    float *px; /* w * h * 4 */
} rgba_image;

static uint32_t rd(const uint8_t *p, int n)
{
    return n == 2
               ? (uint32_t)(p[0] | p[1] << 8)
               : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int read_rgba_tiff(const char *path, rgba_image *im)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *d = n > 8 ? malloc((size_t)n) : NULL;
    int ok = d && fread(d, 1, (size_t)n, f) == (size_t)n;
    fclose(f);
    if (!ok || memcmp(d, "II*", 3) != 0) {
        free(d);
        return 0;
    }
    uint32_t ifd = rd(d + 4, 4), nt = rd(d + ifd, 2);
    uint32_t spp = 0, comp = 0, bits = 0, nstrips = 0, offs_at = 0, offs_type = 4, rps = 0;
    im->w = im->h = 0;
    for (uint32_t i = 0; i < nt; i++) {
        const uint8_t *e = d + ifd + 2 + 12 * i;
        uint32_t t = rd(e, 2), ty = rd(e + 2, 2), c = rd(e + 4, 4);
        uint32_t v = ty == 3 ? rd(e + 8, 2) : rd(e + 8, 4);
        if (t == 256)
            im->w = (int)v;
        else if (t == 257)
            im->h = (int)v;
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
    if (spp != 4 || comp != 1 || bits != 32 || im->w <= 0 || im->h <= 0 || !rps) {
        free(d);
        return 0;
    }
    size_t row = (size_t)im->w * 16;
    im->px = malloc(row * (size_t)im->h);
    for (uint32_t s = 0; im->px && s < nstrips; s++) {
        uint32_t off = offs_type == 3 ? rd(d + offs_at + 2 * s, 2) : rd(d + offs_at + 4 * s, 4);
        uint32_t y0 = s * rps, rows = y0 + rps > (uint32_t)im->h ? (uint32_t)im->h - y0 : rps;
        if ((size_t)off + row * rows > (size_t)n)
            return free(d), 0;
        memcpy((uint8_t *)im->px + row * y0, d + off, row * rows);
    }
    free(d);
    return im->px != NULL;
}

/* One case: max error against the map and the exact projection; 0 on failure. */
static int run_case(const char *dir, const nona_case *c, double *err_map, double *err_exact,
                    long *compared)
{
    char img[512], pto[512], out[512], tif[600], cmd[2048];
    snprintf(img, sizeof(img), "%s/%s.tif", dir, c->name);
    snprintf(pto, sizeof(pto), "%s/%s.pto", dir, c->name);
    snprintf(out, sizeof(out), "%s/%s_out", dir, c->name);
    if (!write_coord_tiff(img, c->w, c->h))
        return fprintf(stderr, "%s: cannot write %s\n", c->name, img), 0;
    FILE *f = fopen(pto, "w");
    if (!f)
        return 0;
    fprintf(f, "# hugin project file\np f%d w%d h%d v%g E0 R0 %s%s n\"TIFF_m c:NONE r:UNCROP\"\n",
            c->pano_f, c->pano_w, c->pano_h, c->pano_v, c->pano_crop ? "S" : "",
            c->pano_crop ? c->pano_crop : "");
    fprintf(f, "m i5\n");
    fprintf(f,
            "i w%d h%d f%d v%g Ra0 Rb0 Rc0 Rd0 Re0 Eev0 Er1 Eb1 %s TrX0 TrY0 TrZ0 Tpy0 "
            "Tpp0 j0 Va1 Vb0 Vc0 Vd0 Vx0 Vy0 Vm5 n\"%s.tif\"\n",
            c->w, c->h, c->lens, c->v, c->params, c->name);
    fprintf(f, "v\nc n0 N0 x1 y1 X1 Y1 t0\n");
    fclose(f);
    snprintf(cmd, sizeof(cmd), "cd '%s' && nona -p FLOAT -z NONE --ignore-exposure -o '%s' '%s'",
             dir, out, pto);
    if (system(cmd) != 0)
        return fprintf(stderr, "%s: nona failed: %s\n", c->name, cmd), 0;
    snprintf(tif, sizeof(tif), "%s0000.tif", out);
    rgba_image im;
    if (!read_rgba_tiff(tif, &im))
        return fprintf(stderr, "%s: cannot read nona's %s\n", c->name, tif), 0;

    fovea_rig *rig = NULL;
    fovea_stitch_map *map = NULL;
    if (fovea_rig_open_pto(&rig, NULL, pto) != FOVEA_OK ||
        fovea_stitch_map_open_rig(&map, NULL, rig, NULL, NULL) != FOVEA_OK) {
        fprintf(stderr, "%s: fovea: %s\n", c->name, fovea_last_error(NULL));
        free(im.px);
        fovea_rig_close(&rig);
        return 0;
    }
    fovea_rig_panorama pano;
    fovea_rig_get_panorama(rig, &pano);
    int ok = 1;
    long n = 0, miss = 0, map_gaps = 0;
    *err_map = *err_exact = 0.0;
    for (int j = 0; j < pano.height; j++)
        for (int i = 0; i < pano.width; i++) {
            int ni = i + c->crop_l, nj = j + c->crop_t;
            if (ni >= im.w || nj >= im.h) {
                ok = 0;
                continue;
            }
            const float *p = im.px + ((size_t)nj * (size_t)im.w + (size_t)ni) * 4;
            double d[3], eu, ev;
            fovea_rig_panorama_to_dir(rig, i, j, d);
            int exact = fovea_rig_dir_to_camera(rig, 0, d, &eu, &ev);
            int inner = exact && eu >= EDGE_PX && eu <= c->w - 1 - EDGE_PX && ev >= EDGE_PX &&
                        ev <= c->h - 1 - EDGE_PX;
            double nu = p[0] / p[2] * 0.5 * c->w, nv = p[1] / p[2] * 0.5 * c->h;
            int nona_inner = p[3] > 0.0f && nu >= EDGE_PX + TOL_PX &&
                             nu <= c->w - 1 - EDGE_PX - TOL_PX && nv >= EDGE_PX + TOL_PX &&
                             nv <= c->h - 1 - EDGE_PX - TOL_PX;
            float mu = NAN, mv = NAN;
            int seen = inner && p[3] > 0.0f;
            if (seen && !fovea_stitch_map_lookup(map, 0, i, j, &mu, &mv)) {
                /* the exact projection agrees with nona; the map's bilinear grid has
                 * a node past the orthographic horizon (NaN) in this pixel's cell */
                map_gaps++;
                continue;
            }
            if (!seen) {
                /* nona sees it well inside while fovea does not, or the reverse */
                if (inner || nona_inner) {
                    if (miss < 5)
                        fprintf(stderr,
                                "%s: pixel %d,%d: nona %s (%.3f, %.3f), fovea exact %s "
                                "(%.3f, %.3f), map (%.3f, %.3f)\n",
                                c->name, i, j, p[3] > 0.0f ? "sees" : "does not see", nu, nv,
                                exact ? "defined" : "undefined", eu, ev, mu, mv);
                    miss++;
                }
                continue;
            }
            double e1 = fmax(fabs(mu - nu), fabs(mv - nv));
            double e2 = fmax(fabs(eu - nu), fabs(ev - nv));
            if (e1 > *err_map)
                *err_map = e1;
            if (e2 > *err_exact)
                *err_exact = e2;
            n++;
        }
    *compared = n;
    if (map_gaps)
        fprintf(stderr, "%s: %ld pixels where the map leaves a gap the exact projection fills\n",
                c->name, map_gaps);
    if (map_gaps > (c->lens == 8 ? 400 : 0))
        ok = 0;
    if (miss) {
        fprintf(stderr, "%s: %ld pixels seen by one renderer only\n", c->name, miss);
        ok = 0;
    }
    fovea_stitch_map_close(&map);
    fovea_rig_close(&rig);
    free(im.px);
    return ok && n > 1000;
}

int main(void)
{
    if (system("command -v nona >/dev/null 2>&1") != 0) {
        printf("nona (hugin-tools) not installed: skipped\n");
        return 77;
    }
    char dir[] = "/tmp/fovea_pto_nona_XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    int fails = 0;
    printf("%-18s %10s %12s %12s\n", "lens", "pixels", "map max px", "exact max px");
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        double em = 0, ee = 0;
        long n = 0;
        int ok = run_case(dir, &cases[k], &em, &ee, &n);
        printf("%-18s %10ld %12.5f %12.5f%s\n", cases[k].name, n, em, ee,
               ok && em <= TOL_PX && ee <= TOL_PX ? "" : "  FAIL");
        fails += !(ok && em <= TOL_PX && ee <= TOL_PX);
    }
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", dir);
    return fails ? 1 : 0;
}

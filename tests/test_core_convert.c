/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Pixel format conversion: exact round trips, resampling rules at odd sizes, known
 * color values, bit-depth rules, threading determinism and argument errors. */
#include <stdlib.h>
#include <string.h>

#include "fovea/convert.h"
#include "testutil.h"

/* Frames with tight strides and one allocation per plane, so ASan sees any access
 * past the last sample of a row group. */
static void alloc_tight(fovea_frame *f, int w, int h, fovea_pixfmt fmt)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    REQUIRE(d != NULL);
    memset(f, 0, sizeof(*f));
    f->width = w;
    f->height = h;
    f->fmt = fmt;
    f->mem = FOVEA_MEM_HOST;
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(fmt, w, p);
        f->stride[p] = (ptrdiff_t)row;
        f->data[p] = malloc(row * (size_t)fovea_plane_height(fmt, h, p));
        REQUIRE(f->data[p] != NULL);
    }
}

static void free_tight(fovea_frame *f)
{
    for (int p = 0; p < 4; p++)
        free(f->data[p]);
    memset(f, 0, sizeof(*f));
}

static void make(fovea_frame *f, int w, int h, fovea_pixfmt fmt)
{
    REQUIRE(fovea_frame_alloc(NULL, f, w, h, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
}

static void make_random(fovea_frame *f, int w, int h, fovea_pixfmt fmt, test_rng *r)
{
    make(f, w, h, fmt);
    test_fill_random(f, r);
}

/* Sample (x, y) of plane p, component c (packed RGB) or 0. */
static unsigned get(const fovea_frame *f, int p, int x, int y)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (d->bytes_per_sample == 1)
        return row[x];
    return (unsigned)(row[2 * x] | (row[2 * x + 1] << 8));
}

static void set(fovea_frame *f, int p, int x, int y, unsigned v)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (d->bytes_per_sample == 1) {
        row[x] = (uint8_t)v;
    } else {
        row[2 * x] = (uint8_t)(v & 0xff);
        row[2 * x + 1] = (uint8_t)(v >> 8);
    }
}

static int convert(fovea_context *ctx, fovea_frame *dst, const fovea_frame *src,
                   fovea_colorspace cs, fovea_range range)
{
    fovea_convert_options o;
    fovea_convert_options_init(&o);
    o.colorspace = cs;
    o.range = range;
    return fovea_frame_convert(ctx, dst, src, &o);
}

static void test_identity(void)
{
    test_rng r;
    test_rng_seed(&r, 1);
    for (int f = 1; f < FOVEA_PIX_COUNT; f++) {
        fovea_frame a, b;
        make_random(&a, 37, 21, (fovea_pixfmt)f, &r);
        make(&b, 37, 21, (fovea_pixfmt)f);
        CHECK_EQ_INT(fovea_frame_convert(NULL, &b, &a, NULL), FOVEA_OK);
        CHECK(fovea_frame_equal(&a, &b));
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }
}

/* a -> mid format -> a must give back a exactly. */
static void check_round_trip(fovea_pixfmt fa, fovea_pixfmt fmid, int w, int h, fovea_range range,
                             uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    fovea_frame a, m, b;
    make_random(&a, w, h, fa, &r);
    make(&m, w, h, fmid);
    make(&b, w, h, fa);
    CHECK_EQ_INT(convert(NULL, &m, &a, FOVEA_CS_BT601, range), FOVEA_OK);
    CHECK_EQ_INT(convert(NULL, &b, &m, FOVEA_CS_BT601, range), FOVEA_OK);
    if (!fovea_frame_equal(&a, &b)) {
        fprintf(stderr, "round trip %s -> %s -> %s (%dx%d) not exact\n", fovea_pixfmt_name(fa),
                fovea_pixfmt_name(fmid), fovea_pixfmt_name(fa), w, h);
        test_failures++;
    }
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &m);
    fovea_frame_free(NULL, &b);
}

static void test_exact_round_trips(void)
{
    static const int sizes[][2] = {{64, 32}, {31, 17}, {1, 1}, {2, 3}};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        int w = sizes[i][0], h = sizes[i][1];
        for (int range = 0; range < 2; range++) {
            check_round_trip(FOVEA_PIX_I420, FOVEA_PIX_I420P10, w, h, range, 2);
            check_round_trip(FOVEA_PIX_I420, FOVEA_PIX_I420P16, w, h, range, 3);
            check_round_trip(FOVEA_PIX_I422P10, FOVEA_PIX_I422P12, w, h, range, 4);
            check_round_trip(FOVEA_PIX_I420, FOVEA_PIX_NV12, w, h, range, 5);
            check_round_trip(FOVEA_PIX_NV12, FOVEA_PIX_I420, w, h, range, 6);
            check_round_trip(FOVEA_PIX_I420, FOVEA_PIX_I444, w, h, range, 7);
            check_round_trip(FOVEA_PIX_I422, FOVEA_PIX_I444P10, w, h, range, 8);
            check_round_trip(FOVEA_PIX_GRAY8, FOVEA_PIX_I420, w, h, range, 9);
            check_round_trip(FOVEA_PIX_GRAY10, FOVEA_PIX_I444P16, w, h, range, 10);
            check_round_trip(FOVEA_PIX_RGB24, FOVEA_PIX_RGBA, w, h, range, 11);
        }
    }
}

/* Gray to YUV gives neutral chroma at the destination depth. */
static void test_gray_neutral(void)
{
    test_rng r;
    test_rng_seed(&r, 12);
    fovea_frame g, y;
    make_random(&g, 33, 9, FOVEA_PIX_GRAY8, &r);
    make(&y, 33, 9, FOVEA_PIX_I420P10);
    CHECK_EQ_INT(fovea_frame_convert(NULL, &y, &g, NULL), FOVEA_OK);
    int bad = 0;
    for (int p = 1; p < 3; p++)
        for (int yy = 0; yy < 5; yy++)
            for (int x = 0; x < 17; x++)
                bad += get(&y, p, x, yy) != 512;
    CHECK_EQ_INT(bad, 0);
    fovea_frame_free(NULL, &g);
    fovea_frame_free(NULL, &y);
}

/* i444 -> i422 -> i444 -> i422: the second i422 equals the first (nearest up-sampling
 * followed by averaging is the identity on the sub-sampled frame). Same for 4:2:0. */
static void test_chroma_resample_stable(void)
{
    static const fovea_pixfmt sub[] = {FOVEA_PIX_I422, FOVEA_PIX_I420, FOVEA_PIX_I420P12};
    static const int sizes[][2] = {{64, 32}, {31, 17}, {1, 1}};
    test_rng r;
    test_rng_seed(&r, 13);
    for (size_t s = 0; s < sizeof(sub) / sizeof(sub[0]); s++) {
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            int w = sizes[i][0], h = sizes[i][1];
            const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(sub[s]);
            fovea_pixfmt f444 = fovea_pixfmt_yuv(444, d->bit_depth);
            fovea_frame a, b, c, e;
            make_random(&a, w, h, f444, &r);
            make(&b, w, h, sub[s]);
            make(&c, w, h, f444);
            make(&e, w, h, sub[s]);
            CHECK_EQ_INT(fovea_frame_convert(NULL, &b, &a, NULL), FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_convert(NULL, &c, &b, NULL), FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_convert(NULL, &e, &c, NULL), FOVEA_OK);
            CHECK(fovea_frame_equal(&b, &e));
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &b);
            fovea_frame_free(NULL, &c);
            fovea_frame_free(NULL, &e);
        }
    }
}

/* Chroma resampling rules checked sample by sample at odd sizes, for every layout:
 * 4:4:4 -> sub-sampled averages the covered samples (rounded half up, over the count
 * present at the edges); sub-sampled -> 4:4:4 takes the nearest (covering) sample. */
static void test_resample_rules_odd(void)
{
    static const fovea_pixfmt sub[] = {FOVEA_PIX_I420, FOVEA_PIX_I422, FOVEA_PIX_NV12,
                                       FOVEA_PIX_I420P10, FOVEA_PIX_I422P16};
    static const int sizes[][2] = {{31, 17}, {1, 1}, {1, 5}, {6, 1}};
    test_rng r;
    test_rng_seed(&r, 14);
    for (size_t s = 0; s < sizeof(sub) / sizeof(sub[0]); s++) {
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(sub[s]);
        fovea_pixfmt f444 = fovea_pixfmt_yuv(444, d->bit_depth);
        int sw = d->log2_chroma_w, sh = d->log2_chroma_h;
        for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
            int w = sizes[i][0], h = sizes[i][1];
            int cw = (w + 1) >> sw, ch = (h + 1) >> sh;
            if (!sh)
                ch = h;
            fovea_frame a, b, c;
            alloc_tight(&a, w, h, f444);
            test_fill_random(&a, &r);
            alloc_tight(&b, w, h, sub[s]);
            alloc_tight(&c, w, h, f444);
            CHECK_EQ_INT(fovea_frame_convert(NULL, &b, &a, NULL), FOVEA_OK);
            CHECK_EQ_INT(fovea_frame_convert(NULL, &c, &b, NULL), FOVEA_OK);
            int bad = 0;
            for (int ci = 0; ci < 2; ci++) {
                for (int y = 0; y < ch; y++) {
                    for (int x = 0; x < cw; x++) {
                        unsigned sum = 0, n = 0;
                        for (int dy = 0; dy <= sh; dy++)
                            for (int dx = 0; dx <= sw; dx++) {
                                int xx = (x << sw) + dx, yy = (y << sh) + dy;
                                if (xx < w && yy < h) {
                                    sum += get(&a, 1 + ci, xx, yy);
                                    n++;
                                }
                            }
                        unsigned want = (sum + n / 2) / n;
                        unsigned got = sub[s] == FOVEA_PIX_NV12 ? get(&b, 1, 2 * x + ci, y)
                                                                : get(&b, 1 + ci, x, y);
                        bad += got != want;
                    }
                }
                for (int y = 0; y < h; y++)
                    for (int x = 0; x < w; x++) {
                        unsigned want = sub[s] == FOVEA_PIX_NV12
                                            ? get(&b, 1, 2 * (x >> sw) + ci, y >> sh)
                                            : get(&b, 1 + ci, x >> sw, y >> sh);
                        bad += get(&c, 1 + ci, x, y) != want;
                    }
            }
            if (bad)
                fprintf(stderr, "resample %s %dx%d: %d wrong samples\n", fovea_pixfmt_name(sub[s]),
                        w, h, bad);
            CHECK_EQ_INT(bad, 0);
            free_tight(&a);
            free_tight(&b);
            free_tight(&c);
        }
    }
}

/* Every value at every depth survives a trip up and back down, both ranges; and the
 * documented levels: limited scales by 2^k, full-range luma maps max to max. */
static void test_depth_rules(void)
{
    static const int depths[] = {8, 10, 12, 16};
    for (int range = 0; range < 2; range++) {
        for (int i = 0; i < 4; i++) {
            for (int k = i + 1; k < 4; k++) {
                int ds = depths[i], dt = depths[k];
                int n = 1 << ds, w = 256, h = n / 256;
                fovea_pixfmt fs = fovea_pixfmt_yuv(400, ds), ft = fovea_pixfmt_yuv(400, dt);
                fovea_frame a, m, b;
                alloc_tight(&a, w, h, fs);
                alloc_tight(&m, w, h, ft);
                alloc_tight(&b, w, h, fs);
                for (int v = 0; v < n; v++)
                    set(&a, 0, v % w, v / w, (unsigned)v);
                CHECK_EQ_INT(convert(NULL, &m, &a, FOVEA_CS_BT601, range), FOVEA_OK);
                CHECK_EQ_INT(convert(NULL, &b, &m, FOVEA_CS_BT601, range), FOVEA_OK);
                if (!fovea_frame_equal(&a, &b)) {
                    fprintf(stderr, "depth %d -> %d -> %d (range %d) not exact\n", ds, dt, ds,
                            range);
                    test_failures++;
                }
                /* limited: every code value scales by 2^k (16/128/235 -> 64/512/940 at
                 * 10 bits); full: max maps to max */
                unsigned top = (unsigned)n - 1, ttop = (1u << dt) - 1;
                if (range == FOVEA_RANGE_FULL) {
                    CHECK_EQ_INT(get(&m, 0, (int)(top % 256), (int)(top / 256)), ttop);
                } else {
                    int bad = 0;
                    for (int v = 0; v < n; v++)
                        bad += get(&m, 0, v % w, v / w) != (unsigned)v << (dt - ds);
                    CHECK_EQ_INT(bad, 0);
                }
                free_tight(&a);
                free_tight(&m);
                free_tight(&b);
            }
        }
    }
}

static int absdiff(unsigned a, unsigned b)
{
    return a > b ? (int)(a - b) : (int)(b - a);
}

/* RGB -> YUV 4:4:4 (8-bit) -> RGB stays within +-2 per channel (full range); limited
 * range has fewer levels and stays within +-3. Grays keep neutral chroma exactly. */
static void test_rgb_yuv_rgb(void)
{
    test_rng r;
    test_rng_seed(&r, 15);
    for (int cs = 0; cs < 2; cs++) {
        for (int range = 0; range < 2; range++) {
            fovea_frame a, m, b;
            make_random(&a, 67, 19, FOVEA_PIX_RGB24, &r);
            for (int x = 0; x < 67; x++) /* a row of grays */
                for (int c = 0; c < 3; c++)
                    set(&a, 0, 3 * x + c, 0, (unsigned)(x * 255 / 66));
            make(&m, 67, 19, FOVEA_PIX_I444);
            make(&b, 67, 19, FOVEA_PIX_RGB24);
            CHECK_EQ_INT(convert(NULL, &m, &a, cs, range), FOVEA_OK);
            CHECK_EQ_INT(convert(NULL, &b, &m, cs, range), FOVEA_OK);
            int worst = 0, bad_gray = 0;
            for (int y = 0; y < 19; y++)
                for (int x = 0; x < 67 * 3; x++) {
                    int dd = absdiff(get(&a, 0, x, y), get(&b, 0, x, y));
                    worst = dd > worst ? dd : worst;
                }
            for (int x = 0; x < 67; x++)
                bad_gray += get(&m, 1, x, 0) != 128 || get(&m, 2, x, 0) != 128;
            CHECK(worst <= (range == FOVEA_RANGE_FULL ? 2 : 3));
            CHECK_EQ_INT(bad_gray, 0);
            /* black and white hit the range ends exactly */
            CHECK_EQ_INT(get(&m, 0, 0, 0), range == FOVEA_RANGE_FULL ? 0 : 16);
            CHECK_EQ_INT(get(&m, 0, 66, 0), range == FOVEA_RANGE_FULL ? 255 : 235);
            if (worst > 2)
                fprintf(stderr, "rgb->yuv->rgb cs %d range %d: worst %d\n", cs, range, worst);
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &m);
            fovea_frame_free(NULL, &b);
        }
    }
}

/* One YUV 4:4:4 pixel at depth d to RGB24. */
static void yuv_pixel_to_rgb(int depth, unsigned y, unsigned u, unsigned v, fovea_colorspace cs,
                             fovea_range range, unsigned rgb[3])
{
    fovea_frame a, b;
    make(&a, 1, 1, fovea_pixfmt_yuv(444, depth));
    make(&b, 1, 1, FOVEA_PIX_RGB24);
    set(&a, 0, 0, 0, y);
    set(&a, 1, 0, 0, u);
    set(&a, 2, 0, 0, v);
    CHECK_EQ_INT(convert(NULL, &b, &a, cs, range), FOVEA_OK);
    for (int c = 0; c < 3; c++)
        rgb[c] = get(&b, 0, c, 0);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
}

static void rgb_pixel_to_yuv(unsigned r, unsigned g, unsigned b, fovea_colorspace cs,
                             fovea_range range, unsigned yuv[3])
{
    fovea_frame a, m;
    make(&a, 1, 1, FOVEA_PIX_RGB24);
    make(&m, 1, 1, FOVEA_PIX_I444);
    set(&a, 0, 0, 0, r);
    set(&a, 0, 1, 0, g);
    set(&a, 0, 2, 0, b);
    CHECK_EQ_INT(convert(NULL, &m, &a, cs, range), FOVEA_OK);
    for (int c = 0; c < 3; c++)
        yuv[c] = get(&m, c, 0, 0);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &m);
}

static void test_known_values(void)
{
    unsigned c[3];
    for (int cs = 0; cs < 2; cs++) {
        for (int depth = 8; depth <= 16; depth += depth == 12 ? 4 : 2) {
            int k = depth - 8;
            yuv_pixel_to_rgb(depth, 16u << k, 128u << k, 128u << k, cs, FOVEA_RANGE_LIMITED, c);
            CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0);
            yuv_pixel_to_rgb(depth, 235u << k, 128u << k, 128u << k, cs, FOVEA_RANGE_LIMITED, c);
            CHECK(c[0] == 255 && c[1] == 255 && c[2] == 255);
            yuv_pixel_to_rgb(depth, (1u << depth) - 1, 128u << k, 128u << k, cs, FOVEA_RANGE_FULL,
                             c);
            CHECK(c[0] == 255 && c[1] == 255 && c[2] == 255);
            yuv_pixel_to_rgb(depth, 0, 128u << k, 128u << k, cs, FOVEA_RANGE_FULL, c);
            CHECK(c[0] == 0 && c[1] == 0 && c[2] == 0);
        }
    }
    /* pure red, limited range */
    rgb_pixel_to_yuv(255, 0, 0, FOVEA_CS_BT601, FOVEA_RANGE_LIMITED, c);
    CHECK(absdiff(c[0], 81) <= 1 && absdiff(c[1], 90) <= 1 && absdiff(c[2], 240) <= 1);
    rgb_pixel_to_yuv(255, 0, 0, FOVEA_CS_BT709, FOVEA_RANGE_LIMITED, c);
    CHECK(absdiff(c[0], 63) <= 1 && absdiff(c[1], 102) <= 1 && absdiff(c[2], 240) <= 1);
    /* and back */
    yuv_pixel_to_rgb(8, 81, 90, 240, FOVEA_CS_BT601, FOVEA_RANGE_LIMITED, c);
    CHECK(absdiff(c[0], 255) <= 2 && c[1] <= 2 && c[2] <= 2);
    /* full-range BT.601 (JPEG): red is Y 76, Cb 85, Cr 255 */
    rgb_pixel_to_yuv(255, 0, 0, FOVEA_CS_BT601, FOVEA_RANGE_FULL, c);
    CHECK(absdiff(c[0], 76) <= 1 && absdiff(c[1], 85) <= 1 && absdiff(c[2], 255) <= 1);

    /* gray is luma: limited 16 -> black, 235 -> white; RGB -> gray is the luma */
    fovea_frame g, rgb, g2, y444;
    make(&g, 3, 1, FOVEA_PIX_GRAY8);
    make(&rgb, 3, 1, FOVEA_PIX_RGBA);
    set(&g, 0, 0, 0, 16);
    set(&g, 0, 1, 0, 235);
    set(&g, 0, 2, 0, 126);
    CHECK_EQ_INT(fovea_frame_convert(NULL, &rgb, &g, NULL), FOVEA_OK);
    for (int ch = 0; ch < 3; ch++) {
        CHECK_EQ_INT(get(&rgb, 0, ch, 0), 0);
        CHECK_EQ_INT(get(&rgb, 0, 4 + ch, 0), 255);
        CHECK_EQ_INT(get(&rgb, 0, 8 + ch, 0), get(&rgb, 0, 8, 0));
    }
    CHECK_EQ_INT(get(&rgb, 0, 3, 0), 255);
    fovea_frame_free(NULL, &g);
    fovea_frame_free(NULL, &rgb);

    test_rng r;
    test_rng_seed(&r, 16);
    make_random(&rgb, 45, 7, FOVEA_PIX_RGBA, &r);
    make(&g2, 45, 7, FOVEA_PIX_GRAY12);
    make(&y444, 45, 7, FOVEA_PIX_I444P12);
    CHECK_EQ_INT(fovea_frame_convert(NULL, &g2, &rgb, NULL), FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_convert(NULL, &y444, &rgb, NULL), FOVEA_OK);
    int bad = 0;
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 45; x++)
            bad += get(&g2, 0, x, y) != get(&y444, 0, x, y);
    CHECK_EQ_INT(bad, 0);
    fovea_frame_free(NULL, &rgb);
    fovea_frame_free(NULL, &g2);
    fovea_frame_free(NULL, &y444);
}

/* Alpha: written from the options when the source has none; dropped otherwise. */
static void test_alpha(void)
{
    test_rng r;
    test_rng_seed(&r, 17);
    fovea_convert_options o;
    fovea_convert_options_init(&o);
    CHECK_EQ_INT(o.alpha, 255);
    o.alpha = 77;
    static const fovea_pixfmt srcs[] = {FOVEA_PIX_I420, FOVEA_PIX_RGB24, FOVEA_PIX_GRAY16};
    for (int i = 0; i < 3; i++) {
        fovea_frame a, b;
        make_random(&a, 9, 5, srcs[i], &r);
        make(&b, 9, 5, FOVEA_PIX_RGBA);
        CHECK_EQ_INT(fovea_frame_convert(NULL, &b, &a, &o), FOVEA_OK);
        int bad = 0;
        for (int y = 0; y < 5; y++)
            for (int x = 0; x < 9; x++)
                bad += get(&b, 0, 4 * x + 3, y) != 77;
        CHECK_EQ_INT(bad, 0);
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &b);
    }
}

/* YUV -> RGB does not depend on the depth the YUV is carried at (limited range scales
 * by 2^k exactly; full range within one level). */
static void test_depth_consistency(void)
{
    test_rng r;
    test_rng_seed(&r, 18);
    for (int range = 0; range < 2; range++) {
        fovea_frame a, hi, ra, rb;
        make_random(&a, 40, 12, FOVEA_PIX_I420, &r);
        make(&ra, 40, 12, FOVEA_PIX_RGB24);
        make(&rb, 40, 12, FOVEA_PIX_RGB24);
        CHECK_EQ_INT(convert(NULL, &ra, &a, FOVEA_CS_BT709, range), FOVEA_OK);
        for (int depth = 10; depth <= 16; depth += depth == 12 ? 4 : 2) {
            make(&hi, 40, 12, fovea_pixfmt_yuv(420, depth));
            CHECK_EQ_INT(convert(NULL, &hi, &a, FOVEA_CS_BT709, range), FOVEA_OK);
            CHECK_EQ_INT(convert(NULL, &rb, &hi, FOVEA_CS_BT709, range), FOVEA_OK);
            int worst = 0;
            for (int y = 0; y < 12; y++)
                for (int x = 0; x < 120; x++) {
                    int dd = absdiff(get(&ra, 0, x, y), get(&rb, 0, x, y));
                    worst = dd > worst ? dd : worst;
                }
            CHECK(worst <= 1);
            fovea_frame_free(NULL, &hi);
        }
        fovea_frame_free(NULL, &a);
        fovea_frame_free(NULL, &ra);
        fovea_frame_free(NULL, &rb);
    }
}

/* 8-bit <-> 16-bit RGB: up is v * 257 exactly, so 8 -> 16 -> 8 gives every value
 * back; alpha is carried between rgba and rgba64 and made from opt->alpha otherwise. */
static void test_rgb16_exact(void)
{
    test_rng r;
    test_rng_seed(&r, 21);
    static const fovea_pixfmt pairs[][2] = {{FOVEA_PIX_RGB24, FOVEA_PIX_RGB48},
                                            {FOVEA_PIX_RGBA, FOVEA_PIX_RGBA64},
                                            {FOVEA_PIX_RGB24, FOVEA_PIX_RGBA64},
                                            {FOVEA_PIX_RGBA, FOVEA_PIX_RGB48}};
    fovea_convert_options o;
    fovea_convert_options_init(&o);
    o.alpha = 200;
    for (int i = 0; i < 4; i++) {
        const int w = 37, h = 21;
        const int cs = fovea_pixfmt_get_desc(pairs[i][0])->components;
        const int ct = fovea_pixfmt_get_desc(pairs[i][1])->components;
        fovea_frame a, m, b;
        alloc_tight(&a, w, h, pairs[i][0]);
        test_fill_random(&a, &r);
        alloc_tight(&m, w, h, pairs[i][1]);
        alloc_tight(&b, w, h, pairs[i][0]);
        CHECK_EQ_INT(fovea_frame_convert(NULL, &m, &a, &o), FOVEA_OK);
        CHECK_EQ_INT(fovea_frame_convert(NULL, &b, &m, &o), FOVEA_OK);
        int bad_up = 0, bad_back = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                for (int c = 0; c < 3; c++) {
                    bad_up += get(&m, 0, ct * x + c, y) != get(&a, 0, cs * x + c, y) * 257;
                    bad_back += get(&b, 0, cs * x + c, y) != get(&a, 0, cs * x + c, y);
                }
                if (ct == 4)
                    bad_up += get(&m, 0, 4 * x + 3, y) !=
                              (cs == 4 ? get(&a, 0, 4 * x + 3, y) : 200u) * 257;
                if (cs == 4)
                    bad_back +=
                        get(&b, 0, 4 * x + 3, y) != (ct == 4 ? get(&a, 0, 4 * x + 3, y) : 200u);
            }
        CHECK_EQ_INT(bad_up, 0);
        CHECK_EQ_INT(bad_back, 0);
        free_tight(&a);
        free_tight(&m);
        free_tight(&b);
    }
}

/* 16 -> 8 bits is round(v / 257) for every 16-bit value (ties cannot occur). */
static void test_rgb48_rounding(void)
{
    const int w = 256, h = 86; /* 66048 samples: every 16-bit value */
    fovea_frame a, b;
    alloc_tight(&a, w, h, FOVEA_PIX_RGB48);
    alloc_tight(&b, w, h, FOVEA_PIX_RGB24);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < 3 * w; x++)
            set(&a, 0, x, y, (unsigned)((y * 3 * w + x) & 0xffff));
    CHECK_EQ_INT(fovea_frame_convert(NULL, &b, &a, NULL), FOVEA_OK);
    int bad = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < 3 * w; x++) {
            unsigned v = get(&a, 0, x, y);
            unsigned want = (unsigned)((double)v / 257.0 + 0.5);
            bad += get(&b, 0, x, y) != want;
        }
    CHECK_EQ_INT(bad, 0);
    /* the boundaries around 0.5: 128 / 257 < 0.5 < 129 / 257 */
    CHECK_EQ_INT(get(&b, 0, 128, 0), 0);
    CHECK_EQ_INT(get(&b, 0, 129, 0), 1);
    CHECK_EQ_INT(get(&b, 0, 65535 % (3 * w), 65535 / (3 * w)), 255);
    free_tight(&a);
    free_tight(&b);
}

/* YUV above 8 bits keeps its precision through rgb48: 4:4:4 YUV made from RGB (so in
 * gamut) -> rgb48 -> YUV comes back exactly at 10, 12 and 16 bits (16-bit RGB steps
 * are 64x finer than 10-bit YUV ones), where 8-bit RGB loses the low bits. Known
 * values: black and white hit 0 and 65535. */
static void test_yuv_rgb48_yuv(void)
{
    test_rng r;
    test_rng_seed(&r, 22);
    const int w = 41, h = 18;
    for (int depth = 10; depth <= 16; depth += depth == 12 ? 4 : 2) {
        for (int opt = 0; opt < 4; opt++) {
            const fovea_colorspace cs = opt & 1 ? FOVEA_CS_BT709 : FOVEA_CS_BT601;
            const fovea_range range = opt & 2 ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED;
            const fovea_pixfmt yf = fovea_pixfmt_yuv(444, depth);
            fovea_frame src, a, m, b, m8, b8;
            make_random(&src, w, h, FOVEA_PIX_RGB48, &r);
            make(&a, w, h, yf);
            make(&m, w, h, FOVEA_PIX_RGB48);
            make(&b, w, h, yf);
            make(&m8, w, h, FOVEA_PIX_RGB24);
            make(&b8, w, h, yf);
            CHECK_EQ_INT(convert(NULL, &a, &src, cs, range), FOVEA_OK);
            CHECK_EQ_INT(convert(NULL, &m, &a, cs, range), FOVEA_OK);
            CHECK_EQ_INT(convert(NULL, &b, &m, cs, range), FOVEA_OK);
            CHECK_EQ_INT(convert(NULL, &m8, &a, cs, range), FOVEA_OK);
            CHECK_EQ_INT(convert(NULL, &b8, &m8, cs, range), FOVEA_OK);
            int worst = 0, worst8 = 0, off = 0, n = 0;
            for (int p = 0; p < 3; p++)
                for (int y = 0; y < fovea_plane_height(yf, h, p); y++)
                    for (int x = 0; x < fovea_plane_width(yf, w, p); x++) {
                        int dd = absdiff(get(&a, p, x, y), get(&b, p, x, y));
                        int d8 = absdiff(get(&a, p, x, y), get(&b8, p, x, y));
                        worst = dd > worst ? dd : worst;
                        worst8 = d8 > worst8 ? d8 : worst8;
                        off += dd != 0;
                        n++;
                    }
            CHECK_EQ_INT(worst, 0);
            CHECK(worst8 >= 1 << (depth - 10)); /* what 8-bit RGB loses (2, 6, 104 codes) */
            if (worst > 0)
                fprintf(stderr, "yuv%d -> rgb48 -> yuv (opt %d): worst %d, %d of %d off\n", depth,
                        opt, worst, off, n);
            fovea_frame_free(NULL, &src);
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &m);
            fovea_frame_free(NULL, &b);
            fovea_frame_free(NULL, &m8);
            fovea_frame_free(NULL, &b8);
        }
        /* limited black / white, full-range white -> 0 / 65535 */
        const int k = depth - 8;
        const unsigned ys[3] = {16u << k, 235u << k, (1u << depth) - 1};
        const unsigned want[3] = {0, 65535, 65535};
        for (int i = 0; i < 3; i++) {
            fovea_frame a, m;
            make(&a, 1, 1, fovea_pixfmt_yuv(444, depth));
            make(&m, 1, 1, FOVEA_PIX_RGBA64);
            set(&a, 0, 0, 0, ys[i]);
            set(&a, 1, 0, 0, 128u << k);
            set(&a, 2, 0, 0, 128u << k);
            CHECK_EQ_INT(convert(NULL, &m, &a, FOVEA_CS_BT709,
                                 i == 2 ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED),
                         FOVEA_OK);
            for (int c = 0; c < 3; c++)
                CHECK_EQ_INT(get(&m, 0, c, 0), want[i]);
            CHECK_EQ_INT(get(&m, 0, 3, 0), 65535); /* default alpha 255 * 257 */
            fovea_frame_free(NULL, &a);
            fovea_frame_free(NULL, &m);
        }
    }
    /* 16-bit gray keeps its depth through rgb48 (full range: exact) */
    fovea_frame g, m, g2;
    make_random(&g, 29, 7, FOVEA_PIX_GRAY16, &r);
    make(&m, 29, 7, FOVEA_PIX_RGB48);
    make(&g2, 29, 7, FOVEA_PIX_GRAY16);
    CHECK_EQ_INT(convert(NULL, &m, &g, FOVEA_CS_BT601, FOVEA_RANGE_FULL), FOVEA_OK);
    CHECK_EQ_INT(convert(NULL, &g2, &m, FOVEA_CS_BT601, FOVEA_RANGE_FULL), FOVEA_OK);
    CHECK(fovea_frame_equal(&g, &g2));
    int bad = 0;
    for (int y = 0; y < 7; y++)
        for (int x = 0; x < 29; x++)
            bad += get(&m, 0, 3 * x, y) != get(&g, 0, x, y) ||
                   get(&m, 0, 3 * x + 2, y) != get(&g, 0, x, y);
    CHECK_EQ_INT(bad, 0);
    fovea_frame_free(NULL, &g);
    fovea_frame_free(NULL, &m);
    fovea_frame_free(NULL, &g2);
}

/* Every pair of formats at an odd size spanning several bands: tight buffers (ASan
 * catches any overrun) and 4 threads give the same bytes as one thread. */
static void test_all_pairs_threaded(void)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 4;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    REQUIRE(fovea_context_threads(ctx) == 4);
    const int w = 97, h = 75;
    test_rng r;
    test_rng_seed(&r, 19);
    for (int fs = 1; fs < FOVEA_PIX_COUNT; fs++) {
        fovea_frame a;
        alloc_tight(&a, w, h, (fovea_pixfmt)fs);
        test_fill_random(&a, &r);
        for (int ft = 1; ft < FOVEA_PIX_COUNT; ft++) {
            for (int opt = 0; opt < 2; opt++) {
                fovea_frame b1, b4;
                alloc_tight(&b1, w, h, (fovea_pixfmt)ft);
                alloc_tight(&b4, w, h, (fovea_pixfmt)ft);
                fovea_colorspace cs = opt ? FOVEA_CS_BT709 : FOVEA_CS_BT601;
                fovea_range range = opt ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED;
                CHECK_EQ_INT(convert(NULL, &b1, &a, cs, range), FOVEA_OK);
                CHECK_EQ_INT(convert(ctx, &b4, &a, cs, range), FOVEA_OK);
                if (!fovea_frame_equal(&b1, &b4)) {
                    fprintf(stderr, "%s -> %s: threaded output differs\n",
                            fovea_pixfmt_name((fovea_pixfmt)fs),
                            fovea_pixfmt_name((fovea_pixfmt)ft));
                    test_failures++;
                }
                free_tight(&b1);
                free_tight(&b4);
            }
        }
        free_tight(&a);
    }
    fovea_close(&ctx);
}

static void test_errors(void)
{
    fovea_context *ctx = NULL;
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 1;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    test_rng r;
    test_rng_seed(&r, 20);
    fovea_frame a, b;
    make_random(&a, 16, 8, FOVEA_PIX_I420, &r);
    make(&b, 16, 10, FOVEA_PIX_RGBA);
    CHECK_EQ_INT(fovea_frame_convert(ctx, &b, &a, NULL), FOVEA_ERR_MISMATCH);
    CHECK(fovea_last_error(ctx)[0] != '\0');
    CHECK_EQ_INT(fovea_frame_convert(NULL, &b, &a, NULL), FOVEA_ERR_MISMATCH);
    fovea_frame_free(NULL, &b);
    make(&b, 17, 8, FOVEA_PIX_I420);
    CHECK_EQ_INT(fovea_frame_convert(ctx, &b, &a, NULL), FOVEA_ERR_MISMATCH);
    fovea_frame_free(NULL, &b);
    make(&b, 16, 8, FOVEA_PIX_RGBA);
    CHECK_EQ_INT(fovea_frame_convert(ctx, NULL, &a, NULL), FOVEA_ERR_INVALID_ARG);
    CHECK_EQ_INT(fovea_frame_convert(ctx, &b, NULL, NULL), FOVEA_ERR_INVALID_ARG);
    fovea_convert_options o;
    fovea_convert_options_init(&o);
    o.range = (fovea_range)7;
    CHECK_EQ_INT(fovea_frame_convert(ctx, &b, &a, &o), FOVEA_ERR_INVALID_ARG);
    fovea_frame dev = a;
    dev.mem = FOVEA_MEM_DEVICE;
    CHECK_EQ_INT(fovea_frame_convert(ctx, &b, &dev, NULL), FOVEA_ERR_INVALID_ARG);
    fovea_frame noplane = a;
    noplane.data[2] = NULL;
    CHECK_EQ_INT(fovea_frame_convert(ctx, &b, &noplane, NULL), FOVEA_ERR_INVALID_ARG);
    fovea_frame_free(NULL, &a);
    fovea_frame_free(NULL, &b);
    fovea_close(&ctx);
}

int main(void)
{
    test_identity();
    test_exact_round_trips();
    test_gray_neutral();
    test_chroma_resample_stable();
    test_resample_rules_odd();
    test_depth_rules();
    test_rgb_yuv_rgb();
    test_known_values();
    test_alpha();
    test_depth_consistency();
    test_rgb16_exact();
    test_rgb48_rounding();
    test_yuv_rgb48_yuv();
    test_all_pairs_threaded();
    test_errors();
    return test_finish("test_core_convert");
}

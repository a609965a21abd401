/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fast paths of the C reference for 8-bit RGB24, RGBA and I420 pairs: the
 * bytes of diff_ref.c's generic path (tests/test_diff_fast.c compares them),
 * made from per-row loops the compiler vectorizes and tables indexed by the
 * difference instead of a division per pixel. */
#include <string.h>

#include "diff/diff_internal.h"

/* x86-64: the row loops are also compiled for x86-64-v4 (AVX-512) and AVX2
 * and picked at run time (GCC/clang function multiversioning, as the quality
 * system's); their byte shuffles vectorize the 3-byte stride of RGB24, which
 * the baseline's SSE2 cannot. Integer arithmetic only. FOVEA_DIFF_NO_CLONES
 * builds one version (for testing the baseline on a CPU that has AVX2).
 * Not with clang before 16 (the fuzz build): it names the dispatcher of an
 * extern clone "f.ifunc", so the callers in other files do not link. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                              \
    !defined(FOVEA_DIFF_NO_CLONES) && !(defined(__clang__) && __clang_major__ < 16)
#define FAST_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define FAST_CLONES
#endif

int diff_fast_format(fovea_pixfmt fmt)
{
    return fmt == FOVEA_PIX_RGB24 || fmt == FOVEA_PIX_RGBA || fmt == FOVEA_PIX_I420;
}

size_t diff_fast_scratch_bytes(int w)
{
    /* RGBA: 4 w bytes; I420: w + 2 ceil(w / 2) <= 2 w + 2 */
    return (size_t)w * 4 + 64;
}

/* Color of a table entry as one word, R | G << 8 | B << 16. */
static uint32_t word_of(const uint8_t c[3])
{
    return (uint32_t)c[0] | (uint32_t)c[1] << 8 | (uint32_t)c[2] << 16;
}

/* The same color with 11 bits a component, so that four of them add up
 * without carries (4 x 255 < 2048). */
static uint32_t wide_of(uint32_t c)
{
    return (c & 255u) | (c >> 8 & 255u) << 11 | (c >> 16 & 255u) << 22;
}

static void finish_lut(diff_fast_lut *t)
{
    for (int v = 0; v < DIFF_FAST_VALUES; v++) {
        const uint32_t c = t->rgb[v];
        uint8_t u, vv;
        diff_rgb_to_yuv((int)(c & 255u), (int)(c >> 8 & 255u), (int)(c >> 16 & 255u), &t->y[v], &u,
                        &vv);
        t->wide[v] = wide_of(c);
    }
}

void diff_fast_heat_lut(const uint8_t heat[DIFF_HEAT_ENTRIES][3], int top, diff_fast_lut *t)
{
    for (int v = 0; v < DIFF_FAST_VALUES; v++)
        t->rgb[v] = word_of(heat[diff_heat_index(v, top)]);
    finish_lut(t);
}

void diff_fast_noise_lut(int threshold, diff_fast_lut *t)
{
    for (int v = 0; v < DIFF_FAST_VALUES; v++)
        t->rgb[v] = diff_beyond(v, threshold) ? 255u : 0u;
    finish_lut(t);
}

/* |a - b| of n bytes: one vector instruction for 16 or more of them. */
static void absdiff_bytes(const uint8_t *restrict a, const uint8_t *restrict b, size_t n,
                          uint8_t *restrict d)
{
    for (size_t i = 0; i < n; i++)
        d[i] = (uint8_t)(a[i] > b[i] ? a[i] - b[i] : b[i] - a[i]);
}

static inline int max3(int a, int b, int c)
{
    const int m = a > b ? a : b;
    return m > c ? m : c;
}

/* Packed RGB of C bytes a pixel (alpha, the fourth, is not compared). */
static inline void packed_sum(const uint8_t *restrict d, int w, int c, uint16_t *restrict v)
{
    for (int x = 0; x < w; x++)
        v[x] = (uint16_t)(d[c * x] + d[c * x + 1] + d[c * x + 2]);
}

static inline void packed_max(const uint8_t *restrict d, int w, int c, uint16_t *restrict v)
{
    for (int x = 0; x < w; x++)
        v[x] = (uint16_t)max3(d[c * x], d[c * x + 1], d[c * x + 2]);
}

/* I420: Y of the pixel, U and V of the chroma sample covering it. */
static inline void yuv_sum(const uint8_t *restrict dy, const uint8_t *restrict du,
                           const uint8_t *restrict dv, int w, uint16_t *restrict v)
{
    for (int cx = 0; cx < w / 2; cx++) {
        const int c = du[cx] + dv[cx];
        v[2 * cx] = (uint16_t)(dy[2 * cx] + c);
        v[2 * cx + 1] = (uint16_t)(dy[2 * cx + 1] + c);
    }
    if (w & 1)
        v[w - 1] = (uint16_t)(dy[w - 1] + du[w / 2] + dv[w / 2]);
}

static inline void yuv_max(const uint8_t *restrict dy, const uint8_t *restrict du,
                           const uint8_t *restrict dv, int w, uint16_t *restrict v)
{
    for (int cx = 0; cx < w / 2; cx++) {
        const int c = du[cx] > dv[cx] ? du[cx] : dv[cx];
        v[2 * cx] = (uint16_t)(dy[2 * cx] > c ? dy[2 * cx] : c);
        v[2 * cx + 1] = (uint16_t)(dy[2 * cx + 1] > c ? dy[2 * cx + 1] : c);
    }
    if (w & 1)
        v[w - 1] = (uint16_t)max3(dy[w - 1], du[w / 2], dv[w / 2]);
}

FAST_CLONES void diff_fast_row(const fovea_frame *a, const fovea_frame *b, int y, uint8_t *scratch,
                               uint16_t *sum, uint16_t *mx)
{
    const int w = a->width;
    const uint8_t *a0 = a->data[0] + (ptrdiff_t)y * a->stride[0];
    const uint8_t *b0 = b->data[0] + (ptrdiff_t)y * b->stride[0];
    if (a->fmt == FOVEA_PIX_I420) {
        const int cw = (w + 1) / 2, cy = y >> 1;
        uint8_t *dy = scratch, *du = scratch + w, *dv = du + cw;
        absdiff_bytes(a0, b0, (size_t)w, dy);
        absdiff_bytes(a->data[1] + (ptrdiff_t)cy * a->stride[1],
                      b->data[1] + (ptrdiff_t)cy * b->stride[1], (size_t)cw, du);
        absdiff_bytes(a->data[2] + (ptrdiff_t)cy * a->stride[2],
                      b->data[2] + (ptrdiff_t)cy * b->stride[2], (size_t)cw, dv);
        if (sum)
            yuv_sum(dy, du, dv, w, sum);
        if (mx)
            yuv_max(dy, du, dv, w, mx);
        return;
    }
    const int c = a->fmt == FOVEA_PIX_RGBA ? 4 : 3;
    absdiff_bytes(a0, b0, (size_t)w * (size_t)c, scratch);
    /* constant strides, so each loop is compiled for its own */
    if (c == 3) {
        if (sum)
            packed_sum(scratch, w, 3, sum);
        if (mx)
            packed_max(scratch, w, 3, mx);
    } else {
        if (sum)
            packed_sum(scratch, w, 4, sum);
        if (mx)
            packed_max(scratch, w, 4, mx);
    }
}

static void color_rgb24(const uint16_t *restrict v, int w, const uint32_t *restrict lut,
                        uint8_t *restrict o)
{
    /* 4-byte stores, each overlapped by the next pixel's; the last one 3 bytes */
    for (int x = 0; x + 1 < w; x++) {
        const uint32_t c = lut[v[x]];
        memcpy(o + 3 * x, &c, 4);
    }
    const uint32_t c = lut[v[w - 1]];
    o[3 * w - 3] = (uint8_t)c;
    o[3 * w - 2] = (uint8_t)(c >> 8);
    o[3 * w - 1] = (uint8_t)(c >> 16);
}

static void color_rgba(const uint16_t *restrict v, int w, const uint32_t *restrict lut,
                       uint8_t *restrict o)
{
    for (int x = 0; x < w; x++) {
        const uint32_t c = lut[v[x]] | 0xff000000u;
        memcpy(o + 4 * x, &c, 4);
    }
}

static void color_y(const uint16_t *restrict v, int w, const uint8_t *restrict lut,
                    uint8_t *restrict o)
{
    for (int x = 0; x < w; x++)
        o[x] = lut[v[x]];
}

void diff_fast_color_rows(fovea_frame *out, int y0, int rows, const uint16_t *const v[2],
                          const diff_fast_lut *t)
{
    const int w = out->width;
    for (int r = 0; r < rows; r++) {
        uint8_t *o = out->data[0] + (ptrdiff_t)(y0 + r) * out->stride[0];
        if (out->fmt == FOVEA_PIX_RGB24)
            color_rgb24(v[r], w, t->rgb, o);
        else if (out->fmt == FOVEA_PIX_RGBA)
            color_rgba(v[r], w, t->rgb, o);
        else
            color_y(v[r], w, t->y, o);
    }
    if (out->fmt != FOVEA_PIX_I420)
        return;
    /* chroma: U, V of the rounded mean color of the pixels a sample covers */
    uint8_t *ou = out->data[1] + (ptrdiff_t)(y0 / 2) * out->stride[1];
    uint8_t *ov = out->data[2] + (ptrdiff_t)(y0 / 2) * out->stride[2];
    const int full = rows == 2 ? w / 2 : 0; /* samples covering 4 pixels */
    uint8_t yy;
    for (int cx = 0; cx < full; cx++) {
        const uint32_t s = t->wide[v[0][2 * cx]] + t->wide[v[0][2 * cx + 1]] +
                           t->wide[v[1][2 * cx]] + t->wide[v[1][2 * cx + 1]];
        diff_rgb_to_yuv((int)((s & 2047u) + 2) >> 2, (int)((s >> 11 & 2047u) + 2) >> 2,
                        (int)((s >> 22) + 2) >> 2, &yy, &ou[cx], &ov[cx]);
    }
    for (int cx = full; cx < (w + 1) / 2; cx++) {
        uint32_t s = 0;
        int n = 0;
        for (int r = 0; r < rows; r++)
            for (int x = 2 * cx; x < 2 * cx + 2 && x < w; x++, n++)
                s += t->wide[v[r][x]];
        diff_rgb_to_yuv(((int)(s & 2047u) + n / 2) / n, ((int)(s >> 11 & 2047u) + n / 2) / n,
                        ((int)(s >> 22) + n / 2) / n, &yy, &ou[cx], &ov[cx]);
    }
}

void diff_fast_overlay_rows(fovea_frame *out, int y0, int rows, const uint16_t *const mx[2],
                            int threshold)
{
    const int w = out->width;
    uint8_t ry, ru, rv;
    diff_rgb_to_yuv(255, 0, 0, &ry, &ru, &rv);
    const int px = out->fmt == FOVEA_PIX_RGBA ? 4 : 3;
    for (int r = 0; r < rows; r++) {
        uint8_t *o = out->data[0] + (ptrdiff_t)(y0 + r) * out->stride[0];
        const uint16_t *m = mx[r];
        for (int x = 0; x < w; x++) {
            if (!diff_beyond(m[x], threshold))
                continue;
            if (out->fmt == FOVEA_PIX_I420) {
                o[x] = ry;
            } else {
                o[px * x] = 255;
                o[px * x + 1] = 0;
                o[px * x + 2] = 0;
            }
        }
    }
    if (out->fmt != FOVEA_PIX_I420)
        return;
    uint8_t *ou = out->data[1] + (ptrdiff_t)(y0 / 2) * out->stride[1];
    uint8_t *ov = out->data[2] + (ptrdiff_t)(y0 / 2) * out->stride[2];
    for (int x = 0; x < w; x++)
        if (diff_beyond(mx[0][x], threshold) || (rows == 2 && diff_beyond(mx[1][x], threshold))) {
            ou[x / 2] = ru;
            ov[x / 2] = rv;
        }
}

FAST_CLONES void diff_fast_mask_row(const uint16_t *restrict sum, const uint16_t *restrict mx,
                                    int w, int tile, int threshold, uint8_t *restrict flags,
                                    int64_t *pixels, int64_t *total, int *largest)
{
    uint32_t s = 0; /* <= 765 x 16384 */
    int m = *largest;
    for (int x = 0; x < w; x++) {
        s += sum[x];
        m = sum[x] > m ? sum[x] : m;
    }
    int64_t changed = 0;
    for (int x0 = 0, tx = 0; x0 < w; x0 += tile, tx++) {
        const int x1 = x0 + tile < w ? x0 + tile : w;
        int n = 0;
        for (int x = x0; x < x1; x++)
            n += diff_beyond(mx[x], threshold);
        if (n)
            flags[tx] = 1;
        changed += n;
    }
    *pixels += changed;
    *total += s;
    *largest = m;
}

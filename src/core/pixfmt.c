/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Pixel format table and plane geometry. */
#include <limits.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"
#include "fovea/frame.h"

static const fovea_pixfmt_desc descs[FOVEA_PIX_COUNT] = {
    [FOVEA_PIX_GRAY8] = {"gray8", 1, 8, 1, 0, 0, 1, 1, 0},
    [FOVEA_PIX_GRAY10] = {"gray10", 1, 10, 2, 0, 0, 1, 1, 0},
    [FOVEA_PIX_GRAY12] = {"gray12", 1, 12, 2, 0, 0, 1, 1, 0},
    [FOVEA_PIX_GRAY16] = {"gray16", 1, 16, 2, 0, 0, 1, 1, 0},
    [FOVEA_PIX_I420] = {"i420", 3, 8, 1, 1, 1, 1, 1, 0},
    [FOVEA_PIX_I420P10] = {"i420p10", 3, 10, 2, 1, 1, 1, 1, 0},
    [FOVEA_PIX_I420P12] = {"i420p12", 3, 12, 2, 1, 1, 1, 1, 0},
    [FOVEA_PIX_I420P16] = {"i420p16", 3, 16, 2, 1, 1, 1, 1, 0},
    [FOVEA_PIX_I422] = {"i422", 3, 8, 1, 1, 0, 1, 1, 0},
    [FOVEA_PIX_I422P10] = {"i422p10", 3, 10, 2, 1, 0, 1, 1, 0},
    [FOVEA_PIX_I422P12] = {"i422p12", 3, 12, 2, 1, 0, 1, 1, 0},
    [FOVEA_PIX_I422P16] = {"i422p16", 3, 16, 2, 1, 0, 1, 1, 0},
    [FOVEA_PIX_I444] = {"i444", 3, 8, 1, 0, 0, 1, 1, 0},
    [FOVEA_PIX_I444P10] = {"i444p10", 3, 10, 2, 0, 0, 1, 1, 0},
    [FOVEA_PIX_I444P12] = {"i444p12", 3, 12, 2, 0, 0, 1, 1, 0},
    [FOVEA_PIX_I444P16] = {"i444p16", 3, 16, 2, 0, 0, 1, 1, 0},
    [FOVEA_PIX_NV12] = {"nv12", 2, 8, 1, 1, 1, 1, 1, 0},
    [FOVEA_PIX_RGB24] = {"rgb24", 1, 8, 1, 0, 0, 3, 0, 1},
    [FOVEA_PIX_RGBA] = {"rgba", 1, 8, 1, 0, 0, 4, 0, 1},
    [FOVEA_PIX_RGB48] = {"rgb48", 1, 16, 2, 0, 0, 3, 0, 1},
    [FOVEA_PIX_RGBA64] = {"rgba64", 1, 16, 2, 0, 0, 4, 0, 1},
};

const fovea_pixfmt_desc *fovea_pixfmt_get_desc(fovea_pixfmt fmt)
{
    if (fmt <= FOVEA_PIX_NONE || fmt >= FOVEA_PIX_COUNT)
        return NULL;
    return &descs[fmt];
}

const char *fovea_pixfmt_name(fovea_pixfmt fmt)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    return d ? d->name : "?";
}

fovea_pixfmt fovea_pixfmt_yuv(int chroma, int bit_depth)
{
    int di;
    switch (bit_depth) {
    case 8: di = 0; break;
    case 10: di = 1; break;
    case 12: di = 2; break;
    case 16: di = 3; break;
    default: return FOVEA_PIX_NONE;
    }
    switch (chroma) {
    case 400: return (fovea_pixfmt)(FOVEA_PIX_GRAY8 + di);
    case 420: return (fovea_pixfmt)(FOVEA_PIX_I420 + di);
    case 422: return (fovea_pixfmt)(FOVEA_PIX_I422 + di);
    case 444: return (fovea_pixfmt)(FOVEA_PIX_I444 + di);
    default: return FOVEA_PIX_NONE;
    }
}

fovea_pixfmt fovea_pixfmt_from_name(const char *name)
{
    static const struct {
        const char *alias;
        fovea_pixfmt fmt;
    } aliases[] = {
        {"gray", FOVEA_PIX_GRAY8},          {"y8", FOVEA_PIX_GRAY8},
        {"gray10le", FOVEA_PIX_GRAY10},     {"gray12le", FOVEA_PIX_GRAY12},
        {"gray16le", FOVEA_PIX_GRAY16},     {"yuv420p", FOVEA_PIX_I420},
        {"yuv422p", FOVEA_PIX_I422},        {"yuv444p", FOVEA_PIX_I444},
        {"yuv420p10le", FOVEA_PIX_I420P10}, {"yuv420p12le", FOVEA_PIX_I420P12},
        {"yuv420p16le", FOVEA_PIX_I420P16}, {"yuv422p10le", FOVEA_PIX_I422P10},
        {"yuv422p12le", FOVEA_PIX_I422P12}, {"yuv422p16le", FOVEA_PIX_I422P16},
        {"yuv444p10le", FOVEA_PIX_I444P10}, {"yuv444p12le", FOVEA_PIX_I444P12},
        {"yuv444p16le", FOVEA_PIX_I444P16}, {"rgb", FOVEA_PIX_RGB24},
        {"rgb48le", FOVEA_PIX_RGB48},       {"rgba64le", FOVEA_PIX_RGBA64},
    };
    if (!name)
        return FOVEA_PIX_NONE;
    for (int f = 1; f < FOVEA_PIX_COUNT; f++)
        if (strcasecmp(name, descs[f].name) == 0)
            return (fovea_pixfmt)f;
    for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (strcasecmp(name, aliases[i].alias) == 0)
            return aliases[i].fmt;
    return FOVEA_PIX_NONE;
}

int fovea_plane_width(fovea_pixfmt fmt, int w, int p)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d || p < 0 || p >= d->planes || w < 0)
        return 0;
    if (p == 0)
        return w;
    /* rounding up without w + 1 (which overflows at INT_MAX) */
    int cw = (w >> d->log2_chroma_w) + ((w & ((1 << d->log2_chroma_w) - 1)) != 0);
    if (fmt == FOVEA_PIX_NV12) /* NV12 plane 1 holds U,V pairs */
        return cw > INT_MAX / 2 ? 0 : 2 * cw;
    return cw;
}

int fovea_plane_height(fovea_pixfmt fmt, int h, int p)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d || p < 0 || p >= d->planes || h < 0)
        return 0;
    if (p == 0)
        return h;
    return (h >> d->log2_chroma_h) + ((h & ((1 << d->log2_chroma_h) - 1)) != 0);
}

size_t fovea_plane_row_bytes(fovea_pixfmt fmt, int w, int p)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d)
        return 0;
    size_t comps = p == 0 ? (size_t)d->components : 1;
    return (size_t)fovea_plane_width(fmt, w, p) * comps * (size_t)d->bytes_per_sample;
}

size_t fovea_frame_packed_size(fovea_pixfmt fmt, int w, int h)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d || w <= 0 || h <= 0)
        return 0;
    size_t total = 0;
    for (int p = 0; p < d->planes; p++) {
        size_t plane;
        if (!fv_mul_size(fovea_plane_row_bytes(fmt, w, p), (size_t)fovea_plane_height(fmt, h, p),
                         &plane) ||
            !fv_add_size(total, plane, &total))
            return 0;
    }
    return total;
}

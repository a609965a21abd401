/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Tiles of the delta stream: the geometry of a tile on every plane, and the
 * coding of one plane block in each mode (RAW, TEMPORAL, SPATIAL,
 * TEMPORAL_MED) with the encoder's choice of the cheapest
 * (docs/stream-format.md, Modes). The code here is the reference; 8-bit
 * blocks take the fast paths of tiles_fast.c, which write the same bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stream/stream_internal.h"

/* ---------------------------------------------------------------- geometry */

int stream_geom_init(stream_geom *g, int width, int height, fovea_pixfmt fmt, int tile, char *err,
                     size_t errsz)
{
    memset(g, 0, sizeof(*g));
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d || stream_fmt_code(fmt) == 0)
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED, "pixel format %d is not streamed",
                         (int)fmt);
    if (width < 1 || height < 1 || width > FOVEA_MAX_DIM || height > FOVEA_MAX_DIM)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "frame size %dx%d", width, height);
    if (tile != 8 && tile != 16 && tile != 32 && tile != 64)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "tile %d is not 8, 16, 32 or 64", tile);
    g->width = width;
    g->height = height;
    g->fmt = fmt;
    g->tile = tile;
    g->tiles_x = (width + tile - 1) / tile;
    g->tiles_y = (height + tile - 1) / tile;
    g->tiles = (int64_t)g->tiles_x * g->tiles_y;
    g->planes = d->planes;
    g->alpha = d->is_rgb && d->components == 4;
    g->map_bytes = (size_t)((g->tiles + 7) / 8);
    g->packed = fovea_frame_packed_size(fmt, width, height);
    for (int p = 0; p < g->planes; p++) {
        stream_plane *pl = &g->pl[p];
        pl->sx = p > 0 ? d->log2_chroma_w : 0;
        pl->sy = p > 0 ? d->log2_chroma_h : 0;
        pl->pw = (width + (1 << pl->sx) - 1) >> pl->sx;
        pl->ph = (height + (1 << pl->sy) - 1) >> pl->sy;
        pl->cpp = p == 0 ? d->components : (fmt == FOVEA_PIX_NV12 ? 2 : 1);
        pl->bps = d->bytes_per_sample;
        if ((size_t)pl->pw * (size_t)pl->cpp * (size_t)pl->bps !=
            fovea_plane_row_bytes(fmt, width, p))
            return fv_errbuf(err, errsz, FOVEA_ERR_INTERNAL, "plane %d of %s: row size mismatch", p,
                             d->name);
        const size_t bw = (size_t)(tile >> pl->sx), bh = (size_t)(tile >> pl->sy);
        const size_t block = bw * bh * (size_t)pl->cpp * (size_t)pl->bps;
        if (block > g->max_block)
            g->max_block = block;
    }
    return FOVEA_OK;
}

void stream_block(const stream_geom *g, int p, int64_t t, int *x0, int *y0, int *w, int *h)
{
    const stream_plane *pl = &g->pl[p];
    const int tx = (int)(t % g->tiles_x), ty = (int)(t / g->tiles_x);
    const int ax = (tx * g->tile) >> pl->sx, ay = (ty * g->tile) >> pl->sy;
    int bx = ((tx + 1) * g->tile) >> pl->sx, by = ((ty + 1) * g->tile) >> pl->sy;
    if (bx > pl->pw)
        bx = pl->pw;
    if (by > pl->ph)
        by = pl->ph;
    *x0 = ax;
    *y0 = ay;
    *w = bx - ax;
    *h = by - ay;
}

size_t stream_tile_bytes(const stream_geom *g, int64_t t)
{
    size_t n = 0;
    for (int p = 0; p < g->planes; p++) {
        int x0, y0, w, h;
        stream_block(g, p, t, &x0, &y0, &w, &h);
        n += 1 + (size_t)w * (size_t)h * (size_t)g->pl[p].cpp * (size_t)g->pl[p].bps;
    }
    return n;
}

void stream_view_of(const stream_geom *g, const fovea_frame *f, int p, int64_t t, stream_view *v)
{
    int x0, y0;
    const stream_plane *pl = &g->pl[p];
    stream_block(g, p, t, &x0, &y0, &v->w, &v->h);
    v->cpp = pl->cpp;
    v->bps = pl->bps;
    v->stride = f->stride[p];
    v->p = f->data[p] + (ptrdiff_t)y0 * f->stride[p] + (ptrdiff_t)x0 * pl->cpp * pl->bps;
}

/* ---------------------------------------------------------------- samples */

/* The block's samples, row after row, in a contiguous array (n = w h cpp). */
static void gather(const stream_view *v, uint16_t *a)
{
    const size_t len = (size_t)v->w * (size_t)v->cpp;
    for (int y = 0; y < v->h; y++, a += len) {
        const uint8_t *row = v->p + (ptrdiff_t)y * v->stride;
        if (v->bps == 1)
            for (size_t i = 0; i < len; i++)
                a[i] = row[i];
        else
            for (size_t i = 0; i < len; i++)
                a[i] = (uint16_t)(row[2 * i] | (row[2 * i + 1] << 8));
    }
}

static void scatter(const uint16_t *a, const stream_view *v)
{
    const size_t len = (size_t)v->w * (size_t)v->cpp;
    for (int y = 0; y < v->h; y++, a += len) {
        uint8_t *row = v->p + (ptrdiff_t)y * v->stride;
        if (v->bps == 1) {
            for (size_t i = 0; i < len; i++)
                row[i] = (uint8_t)a[i];
        } else {
            for (size_t i = 0; i < len; i++) {
                row[2 * i] = (uint8_t)a[i];
                row[2 * i + 1] = (uint8_t)(a[i] >> 8);
            }
        }
    }
}

/* zigzag of a difference modulo 2^bits: read as signed, then 2s or -2s - 1 */
static inline uint32_t zigzag(uint32_t d, int bits)
{
    const int32_t s = (int32_t)(d << (32 - bits)) >> (32 - bits);
    return ((uint32_t)s << 1 ^ (uint32_t)(s >> 31)) & ((1u << bits) - 1);
}

static inline uint32_t unzigzag(uint32_t z, int bits)
{
    return ((z >> 1) ^ (0u - (z & 1))) & ((1u << bits) - 1);
}

/* The median edge predictor of sample j of row `row` (len samples a row,
 * cpp components a pixel) from samples of the same block before it: 0 for
 * the first pixel, left on the first row, above in the first column. */
static inline uint32_t med(const uint16_t *row, size_t j, size_t len, int cpp, int first_row)
{
    const size_t c = (size_t)cpp;
    if (first_row)
        return j < c ? 0 : row[j - c];
    const uint16_t *up = row - len; /* the row above, in the same block */
    if (j < c)
        return up[j];
    const uint32_t l = row[j - c], u = up[j], d = up[j - c];
    const uint32_t mn = l < u ? l : u, mx = l < u ? u : l;
    return d >= mx ? mn : d <= mn ? mx : l + u - d;
}

/* The residual of sample j, (s - r) mod 2^bits, read as signed. */
static inline int32_t res_at(const uint16_t *s, const uint16_t *r, size_t j, int bits)
{
    const uint32_t d = ((uint32_t)s[j] - r[j]) << (32 - bits);
    return (int32_t)d >> (32 - bits);
}

/* TEMPORAL_MED: the median edge predictor of the residual s - r at sample j
 * from the residuals left, above and above-left in the same block (s and r
 * point at the current row; the rows above are len samples back); the
 * result modulo 2^bits. */
static inline uint32_t med_res(const uint16_t *s, const uint16_t *r, size_t j, size_t len, int cpp,
                               int first_row, int bits)
{
    const size_t c = (size_t)cpp;
    int32_t p;
    if (first_row) {
        p = j < c ? 0 : res_at(s, r, j - c, bits);
    } else if (j < c) {
        p = res_at(s - len, r - len, j, bits);
    } else {
        const int32_t l = res_at(s, r, j - c, bits), u = res_at(s - len, r - len, j, bits),
                      d = res_at(s - len, r - len, j - c, bits);
        const int32_t mn = l < u ? l : u, mx = l < u ? u : l;
        p = d >= mx ? mn : d <= mn ? mx : l + u - d;
    }
    return (uint32_t)p & ((1u << bits) - 1);
}

void stream_cost_table(uint16_t d[256])
{
    /* zigzag values of a residual are about two-sided geometric: a value v
     * costs about 1 + 2 log2(v + 1) bits in an adaptive code; capped at what
     * zstd's literal coding spends at worst on a byte that is nearly random */
    for (int v = 0; v < 256; v++) {
        const float c = 1.0f + 2.0f * log2f((float)v + 1.0f);
        d[v] = (uint16_t)lrintf((c < STREAM_COST_CAP ? c : STREAM_COST_CAP) * STREAM_COST_UNIT);
    }
}

size_t stream_code_block_ref(const stream_view *src, const stream_view *ref, uint8_t *out,
                             uint16_t *scratch, const uint16_t *cost)
{
    const size_t len = (size_t)src->w * (size_t)src->cpp, n = len * (size_t)src->h;
    const int bits = 8 * src->bps, cpp = src->cpp;
    uint16_t *s = scratch, *r = scratch + n;
    gather(src, s);
    if (ref)
        gather(ref, r);
    /* each mode's estimated bits: the sum of cost[] over its coded bytes */
    enum { NM = 4 };
    uint32_t F[NM] = {0, 0, 0, 0};
    const int nm = ref ? 4 : 2; /* RAW, SPATIAL, TEMPORAL, TEMPORAL_MED */
    for (int y = 0; y < src->h; y++) {
        const uint16_t *row = s + (size_t)y * len, *rr = r + (size_t)y * len;
        for (size_t j = 0; j < len; j++) {
            uint32_t v[NM];
            v[0] = row[j];
            v[1] = zigzag((uint32_t)row[j] - med(row, j, len, cpp, y == 0), bits);
            if (ref) {
                v[2] = zigzag((uint32_t)row[j] - rr[j], bits);
                v[3] = zigzag(
                    (uint32_t)row[j] - rr[j] - med_res(row, rr, j, len, cpp, y == 0, bits), bits);
            }
            for (int m = 0; m < nm; m++)
                F[m] += cost[v[m] & 0xff] + (bits == 16 ? cost[v[m] >> 8] : 0u);
        }
    }
    static const int mode_of[NM] = {STREAM_MODE_RAW, STREAM_MODE_SPATIAL, STREAM_MODE_TEMPORAL,
                                    STREAM_MODE_TEMPORAL_MED};
    int best = 0;
    for (int m = 1; m < nm; m++)
        if (F[m] < F[best])
            best = m;
    const int mode = mode_of[best];
    out[0] = (uint8_t)mode;
    uint8_t *lo = out + 1, *hi = lo + n;
    for (int y = 0; y < src->h; y++) {
        const uint16_t *row = s + (size_t)y * len, *rr = r + (size_t)y * len;
        uint8_t *lr = lo + (size_t)y * len, *hr = hi + (size_t)y * len;
        for (size_t j = 0; j < len; j++) {
            uint32_t v = row[j];
            if (mode == STREAM_MODE_SPATIAL)
                v = zigzag(v - med(row, j, len, cpp, y == 0), bits);
            else if (mode == STREAM_MODE_TEMPORAL)
                v = zigzag(v - rr[j], bits);
            else if (mode == STREAM_MODE_TEMPORAL_MED)
                v = zigzag(v - rr[j] - med_res(row, rr, j, len, cpp, y == 0, bits), bits);
            lr[j] = (uint8_t)v;
            if (bits == 16)
                hr[j] = (uint8_t)(v >> 8);
        }
    }
    return 1 + n * (size_t)src->bps;
}

int stream_mode_ok(int mode, int keyframe)
{
    return mode == STREAM_MODE_RAW || mode == STREAM_MODE_SPATIAL ||
           ((mode == STREAM_MODE_TEMPORAL || mode == STREAM_MODE_TEMPORAL_MED) && !keyframe);
}

void stream_decode_block_ref(const uint8_t *in, const stream_view *dst, uint16_t *scratch,
                             int *check)
{
    const int mode = in[0];
    const size_t len = (size_t)dst->w * (size_t)dst->cpp, n = len * (size_t)dst->h;
    const int bits = 8 * dst->bps, cpp = dst->cpp;
    const uint32_t mask = (1u << bits) - 1;
    const uint8_t *lo = in + 1, *hi = lo + n;
    uint16_t *s = scratch, *old = scratch + n;
    if (mode == STREAM_MODE_TEMPORAL || mode == STREAM_MODE_TEMPORAL_MED || check)
        gather(dst, old);
    for (int y = 0; y < dst->h; y++) {
        const size_t o = (size_t)y * len;
        uint16_t *row = s + o;
        for (size_t j = 0; j < len; j++) {
            const uint32_t v =
                bits == 8 ? lo[o + j] : (uint32_t)lo[o + j] | ((uint32_t)hi[o + j] << 8);
            if (mode == STREAM_MODE_RAW)
                row[j] = (uint16_t)v;
            else if (mode == STREAM_MODE_TEMPORAL)
                row[j] = (uint16_t)((old[o + j] + unzigzag(v, bits)) & mask);
            else if (mode == STREAM_MODE_TEMPORAL_MED) /* residuals already decoded */
                row[j] = (uint16_t)((old[o + j] + med_res(row, old + o, j, len, cpp, y == 0, bits) +
                                     unzigzag(v, bits)) &
                                    mask);
            else /* the predictor reads samples already decoded (left, above) */
                row[j] = (uint16_t)((med(row, j, len, cpp, y == 0) + unzigzag(v, bits)) & mask);
        }
    }
    if (check) {
        int worst = 0;
        for (size_t i = 0; i < n; i++) {
            const int e = abs((int)s[i] - (int)old[i]);
            if (e > worst)
                worst = e;
        }
        *check = worst;
    }
    scatter(s, dst);
}

size_t stream_code_block(const stream_view *src, const stream_view *ref, uint8_t *out,
                         uint16_t *scratch, const uint16_t *cost)
{
    if (src->bps == 1)
        return stream_code_block_fast8(src, ref, out, scratch, cost);
    return stream_code_block_ref(src, ref, out, scratch, cost);
}

void stream_decode_block(const uint8_t *in, const stream_view *dst, uint16_t *scratch, int *check)
{
    if (dst->bps == 1)
        stream_decode_block_fast8(in, dst, scratch, check);
    else
        stream_decode_block_ref(in, dst, scratch, check);
}

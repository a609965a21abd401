/* Tiles of the delta stream: the geometry of a tile on every plane, and the
 * coding of one plane block in each mode (RAW, TEMPORAL, SPATIAL) with the
 * encoder's choice of the cheapest (docs/stream-format.md, Modes). */
#include <string.h>

#include "stream/stream_internal.h"

/* ---------------------------------------------------------------- geometry */

int stream_geom_init(stream_geom *g, int width, int height, fovea_pixfmt fmt, int tile,
                     char *err, size_t errsz)
{
    memset(g, 0, sizeof(*g));
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d || stream_fmt_code(fmt) == 0)
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED, "pixel format %d is not streamed",
                         (int)fmt);
    if (width < 1 || height < 1 || width > FOVEA_MAX_DIM || height > FOVEA_MAX_DIM)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "frame size %dx%d", width, height);
    if (tile != 8 && tile != 16 && tile != 32 && tile != 64)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "tile %d is not 8, 16, 32 or 64",
                         tile);
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
        if ((size_t)pl->pw * (size_t)pl->cpp * (size_t)pl->bps != fovea_plane_row_bytes(fmt, width, p))
            return fv_errbuf(err, errsz, FOVEA_ERR_INTERNAL, "plane %d of %s: row size mismatch",
                             p, d->name);
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

static inline uint32_t sample(const stream_view *v, int x, int y, int c)
{
    const uint8_t *row = v->p + (ptrdiff_t)y * v->stride;
    const size_t i = (size_t)x * (size_t)v->cpp + (size_t)c;
    if (v->bps == 1)
        return row[i];
    return (uint32_t)row[2 * i] | ((uint32_t)row[2 * i + 1] << 8);
}

static inline void set_sample(const stream_view *v, int x, int y, int c, uint32_t s)
{
    uint8_t *row = v->p + (ptrdiff_t)y * v->stride;
    const size_t i = (size_t)x * (size_t)v->cpp + (size_t)c;
    if (v->bps == 1) {
        row[i] = (uint8_t)s;
    } else {
        row[2 * i] = (uint8_t)s;
        row[2 * i + 1] = (uint8_t)(s >> 8);
    }
}

/* zigzag of a difference modulo 2^bits: read as signed, then 2s or -2s - 1 */
static inline uint32_t zigzag(uint32_t d, int bits)
{
    const uint32_t mask = bits == 8 ? 0xffu : 0xffffu;
    d &= mask;
    const uint32_t half = (mask >> 1) + 1;
    return d < half ? 2 * d : 2 * (mask + 1 - d) - 1;
}

static inline uint32_t unzigzag(uint32_t z, int bits)
{
    const uint32_t mask = bits == 8 ? 0xffu : 0xffffu;
    /* z even: s = z / 2; z odd: s = -(z + 1) / 2 */
    return (z & 1 ? 0u - ((z + 1) >> 1) : z >> 1) & mask;
}

/* the median edge predictor of (x, y) from the block's own samples */
static inline uint32_t med_pred(const stream_view *v, int x, int y, int c)
{
    if (x == 0 && y == 0)
        return 0;
    if (y == 0)
        return sample(v, x - 1, y, c);
    if (x == 0)
        return sample(v, x, y - 1, c);
    const uint32_t a = sample(v, x - 1, y, c), b = sample(v, x, y - 1, c),
                   d = sample(v, x - 1, y - 1, c);
    const uint32_t mn = a < b ? a : b, mx = a < b ? b : a;
    if (d >= mx)
        return mn;
    if (d <= mn)
        return mx;
    return a + b - d;
}

/* Store value k of the n values of a block: byte planes for 2-byte samples. */
static inline void put_value(uint8_t *out, size_t n, size_t k, uint32_t v, int bps)
{
    if (bps == 1) {
        out[k] = (uint8_t)v;
    } else {
        out[k] = (uint8_t)v;
        out[n + k] = (uint8_t)(v >> 8);
    }
}

static inline uint32_t get_value(const uint8_t *in, size_t n, size_t k, int bps)
{
    return bps == 1 ? in[k] : (uint32_t)in[k] | ((uint32_t)in[n + k] << 8);
}

/* Code src in mode into out (n values). */
static void code_mode(int mode, const stream_view *src, const stream_view *ref, uint8_t *out)
{
    const int bits = 8 * src->bps;
    const size_t n = (size_t)src->w * (size_t)src->h * (size_t)src->cpp;
    size_t k = 0;
    for (int y = 0; y < src->h; y++)
        for (int x = 0; x < src->w; x++)
            for (int c = 0; c < src->cpp; c++, k++) {
                const uint32_t s = sample(src, x, y, c);
                uint32_t v;
                if (mode == STREAM_MODE_RAW)
                    v = s;
                else if (mode == STREAM_MODE_TEMPORAL)
                    v = zigzag(s - sample(ref, x, y, c), bits);
                else
                    v = zigzag(s - med_pred(src, x, y, c), bits);
                put_value(out, n, k, v, src->bps);
            }
}

/* Order-0 entropy of bytes, in bits (an estimate of what zstd's literal coding
 * makes of them): N log2 N - sum c log2 c. */
static float entropy(const uint8_t *b, size_t nbytes, const float *nlogn)
{
    uint32_t hist[256];
    memset(hist, 0, sizeof(hist));
    for (size_t i = 0; i < nbytes; i++)
        hist[b[i]]++;
    float e = nlogn[nbytes];
    for (int i = 0; i < 256; i++)
        e -= nlogn[hist[i]];
    return e;
}

size_t stream_code_block(const stream_view *src, const stream_view *ref, uint8_t *out,
                         uint8_t *scratch, const float *nlogn)
{
    const size_t n = (size_t)src->w * (size_t)src->h * (size_t)src->cpp;
    const size_t nbytes = n * (size_t)src->bps;
    /* candidates are coded into out + 1 (the best so far) and scratch */
    int best = STREAM_MODE_RAW;
    code_mode(STREAM_MODE_RAW, src, ref, out + 1);
    float best_e = entropy(out + 1, nbytes, nlogn);
    const int modes[2] = {STREAM_MODE_SPATIAL, STREAM_MODE_TEMPORAL};
    for (int i = 0; i < 2; i++) {
        if (modes[i] == STREAM_MODE_TEMPORAL && !ref)
            continue;
        code_mode(modes[i], src, ref, scratch);
        const float e = entropy(scratch, nbytes, nlogn);
        if (e < best_e) {
            best_e = e;
            best = modes[i];
            memcpy(out + 1, scratch, nbytes);
        }
    }
    out[0] = (uint8_t)best;
    return 1 + nbytes;
}

int stream_mode_ok(int mode, int keyframe)
{
    return mode == STREAM_MODE_RAW || mode == STREAM_MODE_SPATIAL ||
           (mode == STREAM_MODE_TEMPORAL && !keyframe);
}

void stream_decode_block(const uint8_t *in, const stream_view *dst, int *check)
{
    const int mode = in[0];
    const uint8_t *vals = in + 1;
    const int bits = 8 * dst->bps;
    const size_t n = (size_t)dst->w * (size_t)dst->h * (size_t)dst->cpp;
    size_t k = 0;
    int worst = 0;
    for (int y = 0; y < dst->h; y++)
        for (int x = 0; x < dst->w; x++)
            for (int c = 0; c < dst->cpp; c++, k++) {
                const uint32_t v = get_value(vals, n, k, dst->bps);
                const uint32_t old = sample(dst, x, y, c);
                uint32_t s;
                if (mode == STREAM_MODE_RAW)
                    s = v;
                else if (mode == STREAM_MODE_TEMPORAL)
                    s = (old + unzigzag(v, bits)) & (bits == 8 ? 0xffu : 0xffffu);
                else /* the predictor reads samples already written (left, above) */
                    s = (med_pred(dst, x, y, c) + unzigzag(v, bits)) & (bits == 8 ? 0xffu : 0xffffu);
                if (check) {
                    const int e = s > old ? (int)(s - old) : (int)(old - s);
                    if (e > worst)
                        worst = e;
                }
                set_sample(dst, x, y, c, s);
            }
    if (check)
        *check = worst;
}

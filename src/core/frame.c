/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Frame allocation (host, pinned, device), copies between memory kinds, fill,
 * comparison and the frame pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "core/device.h"
#include "fovea/frame.h"

static size_t align_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

int fovea_frame_alloc(fovea_context *ctx, fovea_frame *f, int width, int height, fovea_pixfmt fmt,
                      fovea_memtype mem)
{
    if (!f)
        return FOVEA_ERR_INVALID_ARG;
    memset(f, 0, sizeof(*f));
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(fmt);
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "invalid pixel format %d", (int)fmt);
    if (width <= 0 || height <= 0 || width > FOVEA_MAX_DIM || height > FOVEA_MAX_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "frame size %dx%d out of range (1..%d per side)", width, height,
                            FOVEA_MAX_DIM);
    if (mem != FOVEA_MEM_HOST && mem != FOVEA_MEM_PINNED && mem != FOVEA_MEM_DEVICE)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "invalid memory type %d", (int)mem);

    /* device planes start on 512 bytes (what texture objects need) with 256-byte
     * row pitches */
    const size_t align = mem == FOVEA_MEM_DEVICE ? 256 : 64;
    const size_t plane_align = mem == FOVEA_MEM_DEVICE ? 512 : 64;
    size_t offsets[4] = {0}, total = 0;
    for (int p = 0; p < d->planes; p++) {
        size_t stride = align_up(fovea_plane_row_bytes(fmt, width, p), align), plane;
        if (!fv_mul_size(stride, (size_t)fovea_plane_height(fmt, height, p), &plane))
            return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "frame size overflow");
        f->stride[p] = (ptrdiff_t)stride;
        offsets[p] = total;
        total += align_up(plane, plane_align);
    }
    void *buf = NULL;
    int st = FOVEA_OK;
    switch (mem) {
    case FOVEA_MEM_HOST:
        buf = aligned_alloc(align, align_up(total, align));
        if (!buf)
            st = fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "cannot allocate %zu bytes", total);
        break;
    case FOVEA_MEM_PINNED: st = fv_pinned_malloc(ctx, total, &buf); break;
    case FOVEA_MEM_DEVICE: st = fv_device_malloc(ctx, total, &buf); break;
    }
    if (st < 0) {
        memset(f, 0, sizeof(*f));
        return st;
    }
    f->width = width;
    f->height = height;
    f->fmt = fmt;
    f->mem = mem;
    f->buf = buf;
    f->buf_size = total;
    f->device = mem == FOVEA_MEM_DEVICE ? fovea_context_device(ctx) : -1;
    for (int p = 0; p < d->planes; p++)
        f->data[p] = (uint8_t *)buf + offsets[p];
    return FOVEA_OK;
}

void fovea_frame_free(fovea_context *ctx, fovea_frame *f)
{
    if (!f)
        return;
    if (f->buf) {
        switch (f->mem) {
        case FOVEA_MEM_HOST: free(f->buf); break;
        case FOVEA_MEM_PINNED: fv_pinned_free(ctx, f->buf); break;
        case FOVEA_MEM_DEVICE: fv_device_free(ctx, f->buf); break;
        }
    }
    memset(f, 0, sizeof(*f));
}

int fv_frame_ensure(fovea_context *ctx, fovea_frame *g, const fovea_frame *f, fovea_memtype mem)
{
    if (g->buf && g->mem == mem && g->width == f->width && g->height == f->height &&
        g->fmt == f->fmt)
        return FOVEA_OK;
    fovea_frame_free(ctx, g);
    return fovea_frame_alloc(ctx, g, f->width, f->height, f->fmt, mem);
}

int fv_frame_check_buf(const fovea_frame *f, const char *what, char *msg, size_t n)
{
    const fovea_pixfmt_desc *d = f ? fovea_pixfmt_get_desc(f->fmt) : NULL;
    if (!f || !f->data[0])
        snprintf(msg, n, "%s: NULL or without pixels", what);
    else if (!d)
        snprintf(msg, n, "%s: invalid pixel format %d", what, (int)f->fmt);
    else if (f->mem != FOVEA_MEM_HOST && f->mem != FOVEA_MEM_PINNED && f->mem != FOVEA_MEM_DEVICE)
        snprintf(msg, n, "%s: invalid memory type %d", what, (int)f->mem);
    else if (f->width <= 0 || f->height <= 0 || f->width > FOVEA_MAX_DIM ||
             f->height > FOVEA_MAX_DIM)
        snprintf(msg, n, "%s: size %dx%d out of range (1..%d per side)", what, f->width, f->height,
                 FOVEA_MAX_DIM);
    else {
        for (int p = 0; p < d->planes; p++) {
            const size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
            if (!f->data[p]) {
                snprintf(msg, n, "%s: plane %d has no pixels", what, p);
                return FOVEA_ERR_INVALID_ARG;
            }
            if (f->stride[p] < (ptrdiff_t)row) {
                snprintf(msg, n, "%s: plane %d's stride %td is smaller than its row (%zu bytes)",
                         what, p, f->stride[p], row);
                return FOVEA_ERR_INVALID_ARG;
            }
        }
        return FOVEA_OK;
    }
    return FOVEA_ERR_INVALID_ARG;
}

int fv_frame_check(fovea_context *ctx, const fovea_frame *f, const char *what)
{
    char msg[256];
    const int st = fv_frame_check_buf(f, what, msg, sizeof(msg));
    return st < 0 ? fv_ctx_error(ctx, st, "%s", msg) : st;
}

static int check_pair(fovea_context *ctx, const fovea_frame *a, const fovea_frame *b)
{
    FOVEA_TRY(fv_frame_check(ctx, a, "destination frame"));
    FOVEA_TRY(fv_frame_check(ctx, b, "source frame"));
    if (a->width != b->width || a->height != b->height || a->fmt != b->fmt)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH, "frames differ: %dx%d %s vs %dx%d %s",
                            a->width, a->height, fovea_pixfmt_name(a->fmt), b->width, b->height,
                            fovea_pixfmt_name(b->fmt));
    return FOVEA_OK;
}

/* fv_frame_copy_host: rows [begin, end) of the frame's rows, counted over
 * every plane in turn */
typedef struct host_copy_job {
    fovea_frame *dst;
    const fovea_frame *src;
    int planes;
    int rows[4];
    size_t row_bytes[4];
} host_copy_job;

static void host_copy_rows(void *arg, int begin, int end, int thread)
{
    (void)thread;
    const host_copy_job *j = arg;
    int p = 0, base = 0;
    for (int i = begin; i < end; i++) {
        while (i >= base + j->rows[p])
            base += j->rows[p++];
        const int y = i - base;
        memcpy(j->dst->data[p] + (ptrdiff_t)y * j->dst->stride[p],
               j->src->data[p] + (ptrdiff_t)y * j->src->stride[p], j->row_bytes[p]);
    }
}

int fv_frame_copy_host(fovea_context *ctx, fovea_frame *dst, const fovea_frame *src)
{
    FOVEA_TRY(check_pair(ctx, dst, src));
    if (dst->mem == FOVEA_MEM_DEVICE || src->mem == FOVEA_MEM_DEVICE)
        return fv_ctx_error(ctx, FOVEA_ERR_INTERNAL, "host copy of a device frame");
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(src->fmt);
    host_copy_job j = {dst, src, d->planes, {0}, {0}};
    int total = 0;
    size_t bytes = 0;
    for (int p = 0; p < d->planes; p++) {
        j.rows[p] = fovea_plane_height(src->fmt, src->height, p);
        j.row_bytes[p] = fovea_plane_row_bytes(src->fmt, src->width, p);
        total += j.rows[p];
        bytes += j.row_bytes[p] * (size_t)j.rows[p];
    }
    /* chunks of at least 256 KiB: below that the threads' wake-up costs more */
    const size_t per_row = bytes / (size_t)(total > 0 ? total : 1) + 1;
    int grain = (int)(((size_t)256 << 10) / per_row);
    if (grain < 1)
        grain = 1;
    fv_parallel_for(ctx, total, grain, host_copy_rows, &j);
    dst->index = src->index;
    return FOVEA_OK;
}

int fovea_frame_copy(fovea_context *ctx, fovea_frame *dst, const fovea_frame *src)
{
    int st = check_pair(ctx, dst, src);
    if (st < 0)
        return st;
    if (dst->mem != FOVEA_MEM_DEVICE && src->mem != FOVEA_MEM_DEVICE)
        return fv_frame_copy_host(ctx, dst, src); /* on the context's threads */
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(src->fmt);
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(src->fmt, src->width, p);
        int rows = fovea_plane_height(src->fmt, src->height, p);
        st = fv_memcpy2d(ctx, dst->data[p], (size_t)dst->stride[p], src->data[p],
                         (size_t)src->stride[p], row, (size_t)rows);
        if (st < 0)
            return st;
    }
    dst->index = src->index;
    return FOVEA_OK;
}

int fovea_frame_fill(fovea_context *ctx, fovea_frame *f, uint8_t value)
{
    FOVEA_TRY(fv_frame_check(ctx, f, "frame"));
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        int rows = fovea_plane_height(f->fmt, f->height, p);
        if (f->mem == FOVEA_MEM_DEVICE) {
            int st =
                fv_memset2d_device(ctx, f->data[p], (size_t)f->stride[p], value, row, (size_t)rows);
            if (st < 0)
                return st;
        } else {
            for (int y = 0; y < rows; y++)
                memset(f->data[p] + (ptrdiff_t)y * f->stride[p], value, row);
        }
    }
    return FOVEA_OK;
}

int fovea_frame_equal(const fovea_frame *a, const fovea_frame *b)
{
    if (fv_frame_check(NULL, a, "first frame") < 0 || fv_frame_check(NULL, b, "second frame") < 0 ||
        a->width != b->width || a->height != b->height || a->fmt != b->fmt ||
        a->mem == FOVEA_MEM_DEVICE || b->mem == FOVEA_MEM_DEVICE)
        return 0;
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(a->fmt);
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(a->fmt, a->width, p);
        int rows = fovea_plane_height(a->fmt, a->height, p);
        for (int y = 0; y < rows; y++)
            if (memcmp(a->data[p] + (ptrdiff_t)y * a->stride[p],
                       b->data[p] + (ptrdiff_t)y * b->stride[p], row) != 0)
                return 0;
    }
    return 1;
}

/* ---------------------------------------------------------------- pool */

struct fovea_frame_pool {
    fovea_context *ctx;
    int count;
    fovea_frame *frames;
    unsigned char *in_use;
};

int fovea_frame_pool_open(fovea_frame_pool **out, fovea_context *ctx, int count, int width,
                          int height, fovea_pixfmt fmt, fovea_memtype mem)
{
    if (!out || count < 1 || count > 4096)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "pool size %d out of range", count);
    *out = NULL;
    fovea_frame_pool *p = calloc(1, sizeof(*p));
    if (!p)
        return FOVEA_ERR_NOMEM;
    p->ctx = ctx;
    p->frames = calloc((size_t)count, sizeof(*p->frames));
    p->in_use = calloc((size_t)count, 1);
    if (!p->frames || !p->in_use) {
        fovea_frame_pool_close(&p);
        return FOVEA_ERR_NOMEM;
    }
    for (int i = 0; i < count; i++) {
        int st = fovea_frame_alloc(ctx, &p->frames[i], width, height, fmt, mem);
        if (st < 0) {
            p->count = i;
            fovea_frame_pool_close(&p);
            return st;
        }
    }
    p->count = count;
    *out = p;
    return FOVEA_OK;
}

int fovea_frame_pool_get(fovea_frame_pool *p, fovea_frame **f)
{
    if (!p || !f)
        return FOVEA_ERR_INVALID_ARG;
    for (int i = 0; i < p->count; i++) {
        if (!p->in_use[i]) {
            p->in_use[i] = 1;
            *f = &p->frames[i];
            return FOVEA_OK;
        }
    }
    *f = NULL;
    return fv_ctx_error(p->ctx, FOVEA_ERR_NOMEM, "all %d pool frames are in use", p->count);
}

int fovea_frame_pool_put(fovea_frame_pool *p, fovea_frame *f)
{
    if (!p || !f || f < p->frames || f >= p->frames + p->count)
        return FOVEA_ERR_INVALID_ARG;
    size_t i = (size_t)(f - p->frames);
    if (!p->in_use[i])
        return FOVEA_ERR_INVALID_ARG;
    p->in_use[i] = 0;
    return FOVEA_OK;
}

int fovea_frame_pool_available(const fovea_frame_pool *p)
{
    int n = 0;
    for (int i = 0; p && i < p->count; i++)
        n += !p->in_use[i];
    return n;
}

void fovea_frame_pool_close(fovea_frame_pool **pp)
{
    if (!pp || !*pp)
        return;
    fovea_frame_pool *p = *pp;
    for (int i = 0; p->frames && i < p->count; i++)
        fovea_frame_free(p->ctx, &p->frames[i]);
    free(p->frames);
    free(p->in_use);
    free(p);
    *pp = NULL;
}

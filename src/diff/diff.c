/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Public differencing API: settings, frame checks and backend dispatch. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_internal.h"

struct fovea_diff {
    fovea_context *ctx;
    fovea_diff_settings settings;
    const diff_backend *backend;
    void *priv;
    /* the temporal filter's state (kept by the backend) exists for frames of
     * this size and format; tvalid = 0 at open, after a reset or a failed step */
    int tvalid, tw, th;
    fovea_pixfmt tfmt;
    int64_t *hist, *ahist; /* difference and absolute-deviation histograms */
    size_t hist_len;
    int mask_pending;               /* a submitted mask waits for receive */
    fovea_diff_mask_result pending; /* its result (filled by collect) */
};

/* Every call but receive, reset and close is refused while a mask is pending. */
static int not_pending(fovea_diff *d)
{
    if (!d->mask_pending)
        return FOVEA_OK;
    return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG,
                        "diff: a submitted mask is pending (fovea_diff_mask_receive first)");
}

void fovea_diff_default_settings(fovea_diff_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->measure = FOVEA_DIFF_SUM;
    s->normalize_max = FOVEA_DIFF_NORMALIZE_QUARTER;
    s->threshold = 10;
    s->tile = 16;
    s->noise_mode = FOVEA_DIFF_NOISE_BLACK;
    s->denoise = FOVEA_DIFF_DENOISE_NONE;
    s->auto_k = 3.0;
    s->temporal_strength = 192;
}

static int open_diff(fovea_diff **out, fovea_context *ctx, const fovea_diff_settings *s,
                     int generic)
{
    if (!out)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL output pointer");
    *out = NULL;
    if (!ctx)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL context");
    fovea_diff_settings set;
    if (s)
        set = *s;
    else
        fovea_diff_default_settings(&set);
    if (set.measure != FOVEA_DIFF_SUM && set.measure != FOVEA_DIFF_MAX)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: unknown measure %d",
                            (int)set.measure);
    if (set.noise_mode != FOVEA_DIFF_NOISE_BLACK && set.noise_mode != FOVEA_DIFF_NOISE_OVERLAY)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: unknown noise mode %d",
                            (int)set.noise_mode);
    if (set.denoise != FOVEA_DIFF_DENOISE_NONE && set.denoise != FOVEA_DIFF_DENOISE_MEDIAN3 &&
        set.denoise != FOVEA_DIFF_DENOISE_GAUSS5 && set.denoise != FOVEA_DIFF_DENOISE_TEMPORAL)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: unknown denoise mode %d",
                            (int)set.denoise);
    if (set.tile != 8 && set.tile != 16 && set.tile != 32 && set.tile != 64)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: tile %d is not 8, 16, 32 or 64",
                            set.tile);
    /* 3 x 65535 is the largest difference of any format */
    if ((set.normalize_max < 0 && set.normalize_max != FOVEA_DIFF_NORMALIZE_QUARTER) ||
        set.normalize_max > 3 * 65535)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: normalize_max %d outside 0..196605 (or quarter)",
                            set.normalize_max);
    if ((set.threshold < 0 && set.threshold != FOVEA_DIFF_THRESHOLD_AUTO) || set.threshold > 65535)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: threshold %d outside 0..65535 (or auto)", set.threshold);
    if (!(set.auto_k > 0.0 && set.auto_k <= 1000.0))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: auto_k %g outside (0, 1000]",
                            set.auto_k);
    if (set.temporal_strength < 0 || set.temporal_strength > 255)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: temporal_strength %d outside 0..255",
                            set.temporal_strength);

    const backend_info *b = NULL;
    char msg[FOVEA_ERRLEN];
    int st = backend_pick(ctx, diff_backends, diff_backend_count, fovea_context_backend(ctx), &b,
                          msg, sizeof msg);
    if (st < 0)
        return fv_ctx_error(ctx, st, "diff: %s", msg);

    fovea_diff *d = calloc(1, sizeof(*d));
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: out of memory");
    d->ctx = ctx;
    d->settings = set;
    d->backend = (const diff_backend *)b; /* b is its info, the first member */
    diff_params p;
    memset(&p, 0, sizeof(p));
    p.settings = set;
    p.generic = generic;
    st = d->backend->info.init(&d->priv, ctx, &p);
    if (st < 0) {
        free(d);
        return st;
    }
    *out = d;
    return FOVEA_OK;
}

int fovea_diff_open(fovea_diff **out, fovea_context *ctx, const fovea_diff_settings *s)
{
    return open_diff(out, ctx, s, 0);
}

int diff_open_generic(fovea_diff **out, fovea_context *ctx, const fovea_diff_settings *s)
{
    return open_diff(out, ctx, s, 1);
}

void fovea_diff_close(fovea_diff **pd)
{
    if (!pd || !*pd)
        return;
    fovea_diff *d = *pd;
    d->backend->info.close(&d->priv);
    free(d->hist);
    free(d->ahist);
    free(d);
    *pd = NULL;
}

fovea_backend fovea_diff_backend(const fovea_diff *d)
{
    return d ? d->backend->info.kind : FOVEA_BACKEND_CPU;
}

static int input_ok(fovea_context *ctx, const diff_backend *b, const fovea_frame *f,
                    const char *what)
{
    if (!f || !f->data[0])
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: %s frame is NULL or empty", what);
    const fovea_pixfmt_desc *desc = fovea_pixfmt_get_desc(f->fmt);
    if (!desc)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: %s frame has no valid format", what);
    if (f->mem == FOVEA_MEM_DEVICE && !(b->info.provides & BACKEND_READS_DEVICE))
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "diff: %s frame is in device memory; the %s backend reads host "
                            "frames only (open the fovea context with the CUDA backend)",
                            what, b->info.name);
    if (f->mem == FOVEA_MEM_DEVICE && f->device != fovea_context_device(ctx))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: %s frame is on CUDA device %d, the context on %d", what,
                            f->device, fovea_context_device(ctx));
    if (f->width < 1 || f->height < 1 || f->width > FOVEA_MAX_DIM || f->height > FOVEA_MAX_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: %s frame is %dx%d", what, f->width,
                            f->height);
    for (int p = 0; p < desc->planes; p++) {
        if (!f->data[p])
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: %s frame has no plane %d", what,
                                p);
        if (f->stride[p] < (ptrdiff_t)fovea_plane_row_bytes(f->fmt, f->width, p))
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                                "diff: %s frame plane %d stride %td too small", what, p,
                                f->stride[p]);
    }
    return FOVEA_OK;
}

/* Check the input pair and fill the call's frame fields. */
static int make_call(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                     const char *prev_name, diff_call *c)
{
    fovea_context *ctx = d->ctx;
    FOVEA_TRY(input_ok(ctx, d->backend, prev, prev_name));
    FOVEA_TRY(input_ok(ctx, d->backend, cur, "current"));
    if (prev->width != cur->width || prev->height != cur->height)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH, "diff: %s frame is %dx%d but current is %dx%d",
                            prev_name, prev->width, prev->height, cur->width, cur->height);
    if (prev->fmt != cur->fmt)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH, "diff: %s frame is %s but current is %s",
                            prev_name, fovea_pixfmt_name(prev->fmt), fovea_pixfmt_name(cur->fmt));
    const fovea_diff_settings *s = &d->settings;
    memset(c, 0, sizeof(*c));
    c->prev = prev;
    c->cur = cur;
    c->desc = fovea_pixfmt_get_desc(cur->fmt);
    c->channels = (c->desc->is_yuv && c->desc->planes == 1) ? 1 : 3;
    c->maxval = (1 << c->desc->bit_depth) - 1;
    const int full = s->measure == FOVEA_DIFF_SUM ? c->channels * c->maxval : c->maxval;
    c->top = s->normalize_max > 0                               ? s->normalize_max
             : s->normalize_max == FOVEA_DIFF_NORMALIZE_QUARTER ? (full + 3) / 4
                                                                : full;
    c->denoise = s->denoise;
    c->strength = s->temporal_strength;
    c->threshold = s->threshold;
    return FOVEA_OK;
}

/* Lower median (value of rank (n - 1) / 2 ascending) of a histogram whose
 * entry i counts the value i + offset. */
static int64_t hist_median(const int64_t *h, size_t len, int64_t n, int64_t offset)
{
    const int64_t rank = (n - 1) / 2;
    int64_t seen = 0;
    for (size_t i = 0; i < len; i++) {
        seen += h[i];
        if (seen > rank)
            return (int64_t)i + offset;
    }
    return offset;
}

/* The histogram buffers for 2 maxval + 1 values. */
static int ensure_hist(fovea_diff *d, size_t len)
{
    if (d->hist_len >= len)
        return FOVEA_OK;
    free(d->hist);
    free(d->ahist);
    d->hist = malloc(len * sizeof(int64_t));
    d->ahist = malloc(len * sizeof(int64_t));
    d->hist_len = d->hist && d->ahist ? len : 0;
    if (!d->hist_len)
        return fv_ctx_error(d->ctx, FOVEA_ERR_NOMEM, "diff: cannot allocate histograms");
    return FOVEA_OK;
}

/* sigma = 1.4826 x median(|v - median(v)|) of the histogram begin filled;
 * when more than half the values are exactly 0 (median and MAD both 0, as in
 * compressed video, where skipped blocks copy the reference), 1.4826 x the
 * median of the small changes, 0 < |v| <= (maxval + 1) / 16 (docs/diff.md). */
static double hist_sigma(fovea_diff *d, const diff_call *c)
{
    const size_t len = 2 * (size_t)c->maxval + 1;
    const int64_t n = (int64_t)c->cur->width * c->cur->height;
    const int64_t med = hist_median(d->hist, len, n, -(int64_t)c->maxval);
    /* |v - med| <= 2 maxval; len entries cover it */
    memset(d->ahist, 0, len * sizeof(int64_t));
    for (size_t i = 0; i < len; i++) {
        const int64_t dev = (int64_t)i - c->maxval - med;
        d->ahist[dev < 0 ? -dev : dev] += d->hist[i];
    }
    const int64_t mad = hist_median(d->ahist, len, n, 0);
    if (mad > 0 || med != 0)
        return 1.4826 * (double)mad;
    /* ahist counts |v| here (med = 0); entries 1..small are the small changes */
    const size_t small = ((size_t)c->maxval + 1) / 16;
    int64_t count = 0;
    for (size_t i = 1; i <= small; i++)
        count += d->ahist[i];
    return count ? 1.4826 * (double)hist_median(d->ahist + 1, small, count, 1) : 0.0;
}

/* Make the compared pair of c (one temporal step where the filter is
 * temporal) and, with want_hist, its sigma. */
static int begin_call(fovea_diff *d, diff_call *c, double *sigma)
{
    if (c->want_hist)
        FOVEA_TRY(ensure_hist(d, 2 * (size_t)c->maxval + 1));
    if (c->denoise == FOVEA_DIFF_DENOISE_TEMPORAL)
        c->restart = !d->tvalid || d->tw != c->cur->width || d->th != c->cur->height ||
                     d->tfmt != c->cur->fmt;
    const int st = d->backend->begin(d->priv, d->ctx, c, c->want_hist ? d->hist : NULL);
    if (c->denoise == FOVEA_DIFF_DENOISE_TEMPORAL) {
        /* a failed step may be half done: the next call starts again */
        d->tvalid = st == FOVEA_OK;
        d->tw = c->cur->width;
        d->th = c->cur->height;
        d->tfmt = c->cur->fmt;
    }
    FOVEA_TRY(st);
    if (c->want_hist)
        *sigma = hist_sigma(d, c);
    return FOVEA_OK;
}

static int shares_plane(const fovea_frame *a, const fovea_frame *b)
{
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (a->data[i] && a->data[i] == b->data[j])
                return 1;
    return 0;
}

/* out is f itself: the same planes at the same strides. */
static int same_frame(const fovea_frame *a, const fovea_frame *b)
{
    for (int i = 0; i < 4; i++)
        if (a->data[i] != b->data[i] || (a->data[i] && a->stride[i] != b->stride[i]))
            return 0;
    return 1;
}

/* Check a map output for the checked pair: size, format, and no plane shared
 * with an input, except the overlay noise map that may be cur itself. */
static int output_ok(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                     fovea_frame *out, int overlay)
{
    fovea_context *ctx = d->ctx;
    FOVEA_TRY(input_ok(ctx, d->backend, out, "output"));
    if (out->width != cur->width || out->height != cur->height)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH, "diff: output is %dx%d but input is %dx%d",
                            out->width, out->height, cur->width, cur->height);
    if (out->fmt != FOVEA_PIX_RGB24 && out->fmt != FOVEA_PIX_RGBA && out->fmt != FOVEA_PIX_I420)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "diff: output format %s; maps are written as rgb24, rgba or i420",
                            fovea_pixfmt_name(out->fmt));
    if (overlay && out->fmt != cur->fmt)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                            "diff: overlay output is %s but the current frame is %s",
                            fovea_pixfmt_name(out->fmt), fovea_pixfmt_name(cur->fmt));
    if (shares_plane(out, prev) || (shares_plane(out, cur) && !(overlay && same_frame(out, cur))))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: output shares a plane with an input (only the overlay noise "
                            "map may be the current frame itself)");
    return FOVEA_OK;
}

/* Every wanted output of the pair from one denoising step (the public calls). */
static int compute(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                   const char *prev_name, const fovea_diff_outputs *out, int async)
{
    FOVEA_TRY(not_pending(d));
    diff_call c;
    FOVEA_TRY(make_call(d, prev, cur, prev_name, &c));
    const int overlay = d->settings.noise_mode == FOVEA_DIFF_NOISE_OVERLAY;
    if (out->heatmap)
        FOVEA_TRY(output_ok(d, prev, cur, out->heatmap, 0));
    if (out->noise)
        FOVEA_TRY(output_ok(d, prev, cur, out->noise, overlay));
    if (out->heatmap && out->noise && shares_plane(out->heatmap, out->noise))
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: heat map and noise map share a plane");
    c.heat = out->heatmap;
    c.noise = out->noise;
    c.mask = out->mask;
    c.async = async;
    const int autot = d->settings.threshold == FOVEA_DIFF_THRESHOLD_AUTO;
    c.want_hist = out->sigma || autot;
    /* every check is done: the temporal filter advances only on a valid call */
    double sigma = 0.0;
    FOVEA_TRY(begin_call(d, &c, &sigma));
    if (autot) {
        const double t = ceil(d->settings.auto_k * sigma);
        c.threshold = t > c.maxval ? c.maxval : (int)t;
    }
    if (out->sigma)
        *out->sigma = sigma;
    if (!c.heat && !c.noise && !c.mask)
        return FOVEA_OK;
    FOVEA_TRY(d->backend->maps(d->priv, d->ctx, &c));
    d->mask_pending = async;
    return FOVEA_OK;
}

int fovea_diff_heatmap(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                       fovea_frame *out)
{
    fovea_diff_outputs o = {0};
    o.heatmap = out;
    if (d && !out)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL output frame");
    return fovea_diff_compute(d, prev, cur, &o);
}

int fovea_diff_noise(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                     fovea_frame *out)
{
    fovea_diff_outputs o = {0};
    o.noise = out;
    if (d && !out)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL output frame");
    return fovea_diff_compute(d, prev, cur, &o);
}

int fovea_diff_mask(fovea_diff *d, const fovea_frame *ref, const fovea_frame *cur,
                    fovea_diff_mask_result *out)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (!out)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL mask result");
    fovea_diff_outputs o = {0};
    o.mask = out;
    return compute(d, ref, cur, "reference", &o, 0);
}

int fovea_diff_mask_submit(fovea_diff *d, const fovea_frame *ref, const fovea_frame *cur)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (d->mask_pending)
        return FOVEA_AGAIN; /* one mask in flight: receive it first */
    fovea_diff_outputs o = {0};
    o.mask = &d->pending;
    return compute(d, ref, cur, "reference", &o, 1);
}

int fovea_diff_mask_receive(fovea_diff *d, fovea_diff_mask_result *out)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (!out)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL mask result");
    if (!d->mask_pending)
        return FOVEA_AGAIN; /* nothing submitted */
    d->mask_pending = 0;    /* a failed collect leaves nothing to wait for */
    FOVEA_TRY(d->backend->collect(d->priv, d->ctx));
    *out = d->pending;
    return FOVEA_OK;
}

int fovea_diff_compute(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                       const fovea_diff_outputs *out)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (!out)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL outputs");
    return compute(d, prev, cur, "previous", out, 0);
}

void fovea_diff_reset(fovea_diff *d)
{
    if (d)
        d->tvalid = 0;
}

int fovea_diff_denoise(fovea_diff *d, const fovea_frame *in, fovea_frame *out)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    fovea_context *ctx = d->ctx;
    FOVEA_TRY(not_pending(d));
    FOVEA_TRY(input_ok(ctx, d->backend, in, "input"));
    FOVEA_TRY(input_ok(ctx, d->backend, out, "output"));
    if (out->width != in->width || out->height != in->height || out->fmt != in->fmt)
        return fv_ctx_error(ctx, FOVEA_ERR_MISMATCH,
                            "diff: denoise output is %dx%d %s but input is %dx%d %s", out->width,
                            out->height, fovea_pixfmt_name(out->fmt), in->width, in->height,
                            fovea_pixfmt_name(in->fmt));
    if (shares_plane(in, out))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: denoise output shares a plane with its input");
    if (d->settings.denoise == FOVEA_DIFF_DENOISE_NONE) {
        FOVEA_TRY(fovea_frame_copy(ctx, out, in));
        return out->mem == FOVEA_MEM_DEVICE ? FOVEA_OK : fovea_sync(ctx);
    }
    diff_filter_job fj;
    memset(&fj, 0, sizeof(fj));
    fj.mode = d->settings.denoise;
    fj.in = in;
    fj.out = out;
    fj.desc = fovea_pixfmt_get_desc(in->fmt);
    fj.strength = d->settings.temporal_strength;
    const int temporal = fj.mode == FOVEA_DIFF_DENOISE_TEMPORAL;
    if (temporal)
        fj.restart = !d->tvalid || d->tw != in->width || d->th != in->height || d->tfmt != in->fmt;
    const int st = d->backend->denoise(d->priv, ctx, &fj);
    if (temporal) {
        d->tvalid = st == FOVEA_OK;
        d->tw = in->width;
        d->th = in->height;
        d->tfmt = in->fmt;
    }
    return st;
}

int fovea_diff_noise_sigma(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                           double *sigma)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (!sigma)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL sigma");
    FOVEA_TRY(not_pending(d));
    diff_call c;
    FOVEA_TRY(make_call(d, prev, cur, "previous", &c));
    c.denoise = FOVEA_DIFF_DENOISE_NONE; /* the frames as given; the state stays */
    c.want_hist = 1;
    return begin_call(d, &c, sigma);
}

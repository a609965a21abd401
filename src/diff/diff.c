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
    fovea_frame filt[2]; /* the denoised pair of the last call (host scratch) */
    /* temporal filter: the state before and after the last step are tstate[tcur ^ 1]
     * and tstate[tcur]; tvalid = 0 until the first step (or after a reset) */
    fovea_frame tstate[2];
    int tcur, tvalid;
    int64_t *hist, *ahist; /* difference and absolute-deviation histograms */
    size_t hist_len;
};

void fovea_diff_default_settings(fovea_diff_settings *s)
{
    if (!s)
        return;
    memset(s, 0, sizeof(*s));
    s->measure = FOVEA_DIFF_SUM;
    s->normalize_max = 0;
    s->threshold = 10;
    s->tile = 16;
    s->noise_mode = FOVEA_DIFF_NOISE_BLACK;
    s->denoise = FOVEA_DIFF_DENOISE_NONE;
    s->auto_k = 3.0;
    s->temporal_strength = 192;
}

static int has_kind(fovea_backend kind)
{
    for (size_t i = 0; i < diff_backend_count; i++)
        if (diff_backends[i]->kind == kind)
            return 1;
    return 0;
}

int fovea_diff_open(fovea_diff **out, fovea_context *ctx, const fovea_diff_settings *s)
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
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: tile %d is not 8, 16, 32 or 64", set.tile);
    /* 3 x 65535 is the largest difference of any format */
    if (set.normalize_max < 0 || set.normalize_max > 3 * 65535)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: normalize_max %d outside 0..196605", set.normalize_max);
    if ((set.threshold < 0 && set.threshold != FOVEA_DIFF_THRESHOLD_AUTO) ||
        set.threshold > 65535)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: threshold %d outside 0..65535 (or auto)", set.threshold);
    if (!(set.auto_k > 0.0 && set.auto_k <= 1000.0))
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: auto_k %g outside (0, 1000]",
                            set.auto_k);
    if (set.temporal_strength < 0 || set.temporal_strength > 255)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: temporal_strength %d outside 0..255", set.temporal_strength);

    /* a CUDA context runs the CUDA table once one exists; until then the C
     * reference serves host frames on every context */
    fovea_backend want = fovea_context_backend(ctx);
    if (want == FOVEA_BACKEND_CUDA && !has_kind(FOVEA_BACKEND_CUDA))
        want = FOVEA_BACKEND_CPU;
    const backend_info *b = NULL;
    char msg[FOVEA_ERRLEN];
    int st = backend_pick(ctx, diff_backends, diff_backend_count, want, &b, msg, sizeof msg);
    if (st < 0)
        return fv_ctx_error(ctx, st, "diff: %s", msg);

    fovea_diff *d = calloc(1, sizeof(*d));
    if (!d)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "diff: out of memory");
    d->ctx = ctx;
    d->settings = set;
    d->backend = (const diff_backend *)b; /* b is its info, the first member */
    diff_params p;
    p.settings = set;
    st = d->backend->info.init(&d->priv, ctx, &p);
    if (st < 0) {
        free(d);
        return st;
    }
    *out = d;
    return FOVEA_OK;
}

void fovea_diff_close(fovea_diff **pd)
{
    if (!pd || !*pd)
        return;
    fovea_diff *d = *pd;
    d->backend->info.close(&d->priv);
    fovea_frame_free(d->ctx, &d->filt[0]);
    fovea_frame_free(d->ctx, &d->filt[1]);
    fovea_frame_free(d->ctx, &d->tstate[0]);
    fovea_frame_free(d->ctx, &d->tstate[1]);
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
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: %s frame has no valid format",
                            what);
    if (f->mem == FOVEA_MEM_DEVICE && !(b->info.provides & BACKEND_READS_DEVICE))
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "diff: %s frame is in device memory; the %s backend reads host "
                            "frames only (no CUDA differencing backend yet)",
                            what, b->info.name);
    if (f->width < 1 || f->height < 1 || f->width > FOVEA_MAX_DIM || f->height > FOVEA_MAX_DIM)
        return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: %s frame is %dx%d", what,
                            f->width, f->height);
    for (int p = 0; p < desc->planes; p++) {
        if (!f->data[p])
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG, "diff: %s frame has no plane %d",
                                what, p);
        if (f->stride[p] < (ptrdiff_t)fovea_plane_row_bytes(f->fmt, f->width, p))
            return fv_ctx_error(ctx, FOVEA_ERR_INVALID_ARG,
                                "diff: %s frame plane %d stride %td too small", what, p,
                                f->stride[p]);
    }
    return FOVEA_OK;
}

/* Check the input pair and fill job. */
static int make_job(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                    const char *prev_name, diff_job *job)
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
    memset(job, 0, sizeof(*job));
    job->prev = prev;
    job->cur = cur;
    job->desc = fovea_pixfmt_get_desc(cur->fmt);
    job->channels = (job->desc->is_yuv && job->desc->planes == 1) ? 1 : 3;
    job->maxval = (1 << job->desc->bit_depth) - 1;
    job->threshold = d->settings.threshold;
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

/* sigma = 1.4826 x median(|v - median(v)|) of the job's plane-0 differences. */
static int job_sigma(fovea_diff *d, const diff_job *job, double *sigma)
{
    const size_t len = 2 * (size_t)job->maxval + 1;
    if (d->hist_len < len) {
        free(d->hist);
        free(d->ahist);
        d->hist = malloc(len * sizeof(int64_t));
        d->ahist = malloc(len * sizeof(int64_t));
        d->hist_len = d->hist && d->ahist ? len : 0;
        if (!d->hist_len)
            return fv_ctx_error(d->ctx, FOVEA_ERR_NOMEM, "diff: cannot allocate histograms");
    }
    FOVEA_TRY(d->backend->diff_hist(d->priv, d->ctx, job, d->hist));
    const int64_t n = (int64_t)job->cur->width * job->cur->height;
    const int64_t med = hist_median(d->hist, len, n, -(int64_t)job->maxval);
    /* |v - med| <= 2 maxval; len entries cover it */
    memset(d->ahist, 0, len * sizeof(int64_t));
    for (size_t i = 0; i < len; i++) {
        const int64_t dev = (int64_t)i - job->maxval - med;
        d->ahist[dev < 0 ? -dev : dev] += d->hist[i];
    }
    *sigma = 1.4826 * (double)hist_median(d->ahist, len, n, 0);
    return FOVEA_OK;
}

static int same_shape(const fovea_frame *a, const fovea_frame *b)
{
    return a->data[0] && a->width == b->width && a->height == b->height && a->fmt == b->fmt;
}

/* Scratch frame s shaped like f (kept while size and format stay). */
static int ensure_frame(fovea_diff *d, fovea_frame *s, const fovea_frame *f)
{
    if (same_shape(s, f))
        return FOVEA_OK;
    fovea_frame_free(d->ctx, s);
    return fovea_frame_alloc(d->ctx, s, f->width, f->height, f->fmt, FOVEA_MEM_HOST);
}

static int run_filter(fovea_diff *d, const fovea_frame *in, fovea_frame *out)
{
    diff_filter_job fj;
    memset(&fj, 0, sizeof(fj));
    fj.mode = d->settings.denoise;
    fj.in = in;
    fj.out = out;
    fj.desc = fovea_pixfmt_get_desc(in->fmt);
    return d->backend->denoise(d->priv, d->ctx, &fj);
}

/* One step of the temporal filter with the frame x: the state starts from
 * first when there is none (first call, reset, new size or format). *before
 * and *after receive the state before and after the step. */
static int temporal_step(fovea_diff *d, const fovea_frame *x, const fovea_frame *first,
                         const fovea_frame **before, const fovea_frame **after)
{
    if (!d->tvalid || !same_shape(&d->tstate[0], x)) {
        d->tvalid = 0;
        d->tcur = 0;
        for (int i = 0; i < 2; i++)
            FOVEA_TRY(ensure_frame(d, &d->tstate[i], x));
        FOVEA_TRY(fovea_frame_copy(d->ctx, &d->tstate[0], first));
        d->tvalid = 1;
    }
    diff_filter_job fj;
    memset(&fj, 0, sizeof(fj));
    fj.mode = FOVEA_DIFF_DENOISE_TEMPORAL;
    fj.in = x;
    fj.state = &d->tstate[d->tcur];
    fj.out = &d->tstate[d->tcur ^ 1];
    fj.desc = fovea_pixfmt_get_desc(x->fmt);
    fj.strength = d->settings.temporal_strength;
    const int st = d->backend->denoise(d->priv, d->ctx, &fj);
    if (st < 0) {
        d->tvalid = 0; /* the step may be half done */
        return st;
    }
    *before = fj.state;
    *after = fj.out;
    d->tcur ^= 1;
    return FOVEA_OK;
}

/* Denoise the checked pair into the scratch frames (or step the temporal
 * filter) and point the job at the frames to compare. */
static int denoise_job(fovea_diff *d, diff_job *job)
{
    if (d->settings.denoise == FOVEA_DIFF_DENOISE_NONE)
        return FOVEA_OK;
    if (d->settings.denoise == FOVEA_DIFF_DENOISE_TEMPORAL)
        return temporal_step(d, job->cur, job->prev, &job->prev, &job->cur);
    for (int i = 0; i < 2; i++) {
        const fovea_frame *in = i == 0 ? job->prev : job->cur;
        FOVEA_TRY(ensure_frame(d, &d->filt[i], in));
        FOVEA_TRY(run_filter(d, in, &d->filt[i]));
    }
    job->prev = &d->filt[0];
    job->cur = &d->filt[1];
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

/* The overlay noise map starts from the current frame as given (not its
 * denoised copy): copied into out unless out is cur. */
static int overlay_base(fovea_diff *d, const fovea_frame *cur, fovea_frame *out)
{
    if (d->settings.noise_mode != FOVEA_DIFF_NOISE_OVERLAY || same_frame(out, cur))
        return FOVEA_OK;
    return fovea_frame_copy(d->ctx, out, cur);
}

/* Every wanted output of the pair from one denoising step (the public calls). */
static int compute(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                   const char *prev_name, const fovea_diff_outputs *out)
{
    diff_job job;
    FOVEA_TRY(make_job(d, prev, cur, prev_name, &job));
    const int overlay = d->settings.noise_mode == FOVEA_DIFF_NOISE_OVERLAY;
    if (out->heatmap)
        FOVEA_TRY(output_ok(d, prev, cur, out->heatmap, 0));
    if (out->noise)
        FOVEA_TRY(output_ok(d, prev, cur, out->noise, overlay));
    if (out->heatmap && out->noise && shares_plane(out->heatmap, out->noise))
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG,
                            "diff: heat map and noise map share a plane");
    /* every check is done: the temporal filter advances only on a valid call */
    FOVEA_TRY(denoise_job(d, &job));
    if (out->sigma || d->settings.threshold == FOVEA_DIFF_THRESHOLD_AUTO) {
        double sigma;
        FOVEA_TRY(job_sigma(d, &job, &sigma));
        if (d->settings.threshold == FOVEA_DIFF_THRESHOLD_AUTO) {
            const double t = ceil(d->settings.auto_k * sigma);
            job.threshold = t > job.maxval ? job.maxval : (int)t;
        }
        if (out->sigma)
            *out->sigma = sigma;
    }
    if (out->heatmap) {
        job.out = out->heatmap;
        FOVEA_TRY(d->backend->heatmap(d->priv, d->ctx, &job));
    }
    if (out->mask) {
        job.out = NULL;
        FOVEA_TRY(d->backend->mask(d->priv, d->ctx, &job, out->mask));
    }
    /* last: an overlay map written into cur itself changes what the others read */
    if (out->noise) {
        FOVEA_TRY(overlay_base(d, cur, out->noise));
        job.out = out->noise;
        FOVEA_TRY(d->backend->noise(d->priv, d->ctx, &job));
    }
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
    return compute(d, ref, cur, "reference", &o);
}

int fovea_diff_compute(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                       const fovea_diff_outputs *out)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (!out)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL outputs");
    return compute(d, prev, cur, "previous", out);
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
    if (d->settings.denoise == FOVEA_DIFF_DENOISE_NONE)
        return fovea_frame_copy(ctx, out, in);
    if (d->settings.denoise == FOVEA_DIFF_DENOISE_TEMPORAL) {
        const fovea_frame *before, *after;
        FOVEA_TRY(temporal_step(d, in, in, &before, &after));
        return fovea_frame_copy(ctx, out, after);
    }
    return run_filter(d, in, out);
}

int fovea_diff_noise_sigma(fovea_diff *d, const fovea_frame *prev, const fovea_frame *cur,
                           double *sigma)
{
    if (!d)
        return FOVEA_ERR_INVALID_ARG;
    if (!sigma)
        return fv_ctx_error(d->ctx, FOVEA_ERR_INVALID_ARG, "diff: NULL sigma");
    diff_job job;
    FOVEA_TRY(make_job(d, prev, cur, "previous", &job));
    return job_sigma(d, &job, sigma);
}

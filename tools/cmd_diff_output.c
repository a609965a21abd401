/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea diff`: the outputs: each requested map's writer on a thread of its
 * own, and the reports (JSON, the PNG chart, the summary line). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "cmd_diff.h"

/* A host frame for the maps: pinned on CUDA contexts (the copies back need no
 * staging), pageable where pinning fails. */
static int alloc_frame(diff_run *s, fovea_frame *f, int w, int h, fovea_pixfmt fmt)
{
    if (s->mem == FOVEA_MEM_PINNED &&
        fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_PINNED) == FOVEA_OK)
        return FOVEA_OK;
    return fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_HOST);
}

/* Formats, frames, pipe and writer of output k. @return CLI_EXIT_OK or the exit code */
int diff_open_output(diff_run *s, int k)
{
    const diff_args *a = &s->a;
    diff_output *o = &s->out[k];
    o->path = a->out[k];
    o->container = diff_out_container(o->path);
    const int image = o->container == FOVEA_CONTAINER_PNG || o->container == FOVEA_CONTAINER_PNM;
    o->width = s->info.width;
    o->height = s->info.height;
    if (k == OUT_MASK) {
        o->width = s->tiles_x;
        o->height = s->tiles_y;
        o->map_fmt = o->write_fmt = FOVEA_PIX_GRAY8;
    } else if (k == OUT_NOISE && a->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY) {
        o->map_fmt = s->info.fmt;
        o->write_fmt = cli_default_output_pixfmt(o->container, o->map_fmt);
    } else {
        o->map_fmt = o->write_fmt = image ? FOVEA_PIX_RGB24 : FOVEA_PIX_I420;
    }
    if (image && !cli_is_pattern(o->path, o->container) && s->info.frame_count != 2 &&
        a->opt.frames != 1)
        return cli_usage_error(diff_spec.name,
                               "%s: %s holds one image and the input may make more "
                               "maps: use a pattern such as out%%04d.%s, or --frames 1",
                               o->path, fovea_container_name(o->container),
                               o->container == FOVEA_CONTAINER_PNG ? "png" : "ppm");
    int st = alloc_frame(s, &o->buf[0], o->width, o->height, o->map_fmt);
    if (st == FOVEA_OK && o->write_fmt != o->map_fmt)
        st = alloc_frame(s, &o->buf[1], o->width, o->height, o->write_fmt);
    if (st == FOVEA_OK)
        st = cli_pipe_init(&o->pipe, PIPE_SLOTS);
    for (int i = 0; i < PIPE_SLOTS && st == FOVEA_OK; i++) {
        st = alloc_frame(s, &o->pipe.slot[i].f[0], o->width, o->height, o->map_fmt);
        if (st == FOVEA_OK && o->write_fmt != o->map_fmt)
            st = alloc_frame(s, &o->pipe.slot[i].f[1], o->width, o->height, o->write_fmt);
    }
    if (st < 0) {
        cli_error(NULL, "cannot allocate %dx%d %s frames: %s", o->width, o->height,
                  fovea_pixfmt_name(o->map_fmt), fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = o->width;
    info.height = o->height;
    info.fmt = o->write_fmt;
    info.fps_num = s->info.fps_num;
    info.fps_den = s->info.fps_den;
    cli_output_rate(&a->in, a->input, o->container, a->opt.quiet, &s->rate_said, &info);
    info.interlace = s->info.interlace;
    if (k != OUT_MASK) {
        info.sar_num = s->info.sar_num;
        info.sar_den = s->info.sar_den;
    }
    const fovea_pixfmt_desc *wd = fovea_pixfmt_get_desc(o->write_fmt);
    if (wd->is_yuv && wd->planes > 1)
        /* the maps' i420 is limited range; an overlay keeps the input's tag */
        info.color_range = k == OUT_NOISE && o->map_fmt == s->info.fmt && s->info.color_range
                               ? s->info.color_range
                               : FOVEA_COLOR_RANGE_LIMITED;
    st = fovea_writer_open(&o->w, NULL, o->path, o->container, &info);
    if (st == FOVEA_OK)
        cli_media_writer(o->w, &a->in);
    if (st == FOVEA_OK && strcmp(a->input, "-") != 0)
        st = fovea_writer_protect(o->w, a->input);
    if (st < 0)
        return cli_report(o->path, 1, fovea_last_error(NULL), st);
    if (cli_pipe_start(&o->pipe, o->w, NULL, 0) != 0)
        return CLI_EXIT_RUNTIME;
    return CLI_EXIT_OK;
}

int diff_write_failure(diff_output *o, int st)
{
    return cli_report(o->path, 1, cli_pipe_error(&o->pipe), st);
}

/* Every writer writes what was queued; @return rc, or the first write failure */
int diff_finish_outputs(diff_run *s, int rc)
{
    for (int k = 0; k < N_OUT; k++) {
        diff_output *o = &s->out[k];
        if (!o->pipe.ready)
            continue;
        const int st = cli_pipe_finish(&o->pipe);
        if (rc == CLI_EXIT_OK && st < 0)
            rc = diff_write_failure(o, st);
    }
    for (int k = 0; k < N_OUT && rc == CLI_EXIT_OK; k++) {
        diff_output *o = &s->out[k];
        if (!o->w)
            continue;
        const int st = fovea_writer_finish(o->w);
        if (st < 0)
            rc = cli_report(o->path, 1, fovea_last_error(NULL), st);
    }
    return rc;
}

/* ------------------------------------------------------------------ reports */

static cJSON *json_number(double x)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", x);
    return cJSON_CreateRaw(buf);
}

static const char *denoise_name(fovea_diff_denoise_mode m)
{
    switch (m) {
    case FOVEA_DIFF_DENOISE_MEDIAN3: return "median3";
    case FOVEA_DIFF_DENOISE_GAUSS5: return "gauss5";
    case FOVEA_DIFF_DENOISE_TEMPORAL: return "temporal";
    default: return "none";
    }
}

/* Totals over the maps. */
typedef struct diff_totals {
    int64_t changed_pixels, changed_tiles, diff_sum;
    int diff_max, tmin, tmax;
    double sigma_sum;
    int64_t sigmas;
} diff_totals;

static void totals_of(const diff_run *s, diff_totals *t)
{
    memset(t, 0, sizeof(*t));
    for (int64_t i = 0; i < s->n; i++) {
        const diff_stat *d = &s->stats[i];
        t->changed_pixels += d->changed_pixels;
        t->changed_tiles += d->changed_tiles;
        t->diff_sum += d->diff_sum;
        t->diff_max = d->diff_max > t->diff_max ? d->diff_max : t->diff_max;
        t->tmin = i == 0 || d->threshold < t->tmin ? d->threshold : t->tmin;
        t->tmax = i == 0 || d->threshold > t->tmax ? d->threshold : t->tmax;
        if (isfinite(d->sigma)) {
            t->sigma_sum += d->sigma;
            t->sigmas++;
        }
    }
}

static int write_json(const diff_run *s, double secs)
{
    const diff_args *a = &s->a;
    const double pixels = (double)s->info.width * s->info.height, tiles = (double)s->tiles;
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    cJSON_AddStringToObject(root, "version", fovea_version());
    cJSON_AddStringToObject(root, "input", a->input);
    cJSON_AddNumberToObject(root, "width", s->info.width);
    cJSON_AddNumberToObject(root, "height", s->info.height);
    cJSON_AddStringToObject(root, "pixfmt", fovea_pixfmt_name(s->info.fmt));
    cJSON_AddNumberToObject(root, "tiles_x", s->tiles_x);
    cJSON_AddNumberToObject(root, "tiles_y", s->tiles_y);
    cJSON_AddStringToObject(root, "backend", fovea_backend_name(fovea_diff_backend(s->d)));
    cJSON_AddNumberToObject(root, "threads", fovea_context_threads(s->ctx));
    cJSON_AddNumberToObject(root, "seconds", secs);
    cJSON_AddNumberToObject(root, "fps", secs > 0 ? (double)s->n / secs : 0.0);
    cJSON *set = cJSON_AddObjectToObject(root, "settings");
    cJSON_AddStringToObject(set, "measure", a->set.measure == FOVEA_DIFF_MAX ? "max" : "sum");
    if (a->set.threshold == FOVEA_DIFF_THRESHOLD_AUTO)
        cJSON_AddStringToObject(set, "threshold", "auto");
    else
        cJSON_AddNumberToObject(set, "threshold", a->set.threshold);
    cJSON_AddItemToObject(set, "auto_k", json_number(a->set.auto_k));
    cJSON_AddNumberToObject(set, "tile", a->set.tile);
    cJSON_AddStringToObject(set, "denoise", denoise_name(a->set.denoise));
    if (a->set.denoise == FOVEA_DIFF_DENOISE_TEMPORAL)
        cJSON_AddNumberToObject(set, "temporal_strength", a->set.temporal_strength);
    if (a->set.normalize_max == FOVEA_DIFF_NORMALIZE_QUARTER)
        cJSON_AddStringToObject(set, "normalize", "quarter");
    else
        cJSON_AddNumberToObject(set, "normalize", a->set.normalize_max);
    cJSON_AddStringToObject(set, "noise_mode",
                            a->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY ? "overlay" : "black");
    cJSON *outs = cJSON_AddObjectToObject(root, "outputs");
    static const char *const keys[N_OUT] = {"heatmap", "noise", "mask"};
    for (int k = 0; k < N_OUT; k++)
        if (a->out[k])
            cJSON_AddStringToObject(outs, keys[k], a->out[k]);
    cJSON *frames = cJSON_AddArrayToObject(root, "maps");
    for (int64_t i = 0; frames && i < s->n; i++) {
        const diff_stat *d = &s->stats[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(frames, o);
        cJSON_AddNumberToObject(o, "map", (double)i);
        cJSON_AddNumberToObject(o, "prev_frame", (double)i);
        cJSON_AddNumberToObject(o, "frame", (double)(i + 1));
        cJSON_AddNumberToObject(o, "changed_pixels", (double)d->changed_pixels);
        cJSON_AddItemToObject(o, "changed_pixel_fraction",
                              json_number((double)d->changed_pixels / pixels));
        cJSON_AddNumberToObject(o, "changed_tiles", (double)d->changed_tiles);
        cJSON_AddItemToObject(o, "changed_tile_fraction",
                              json_number((double)d->changed_tiles / tiles));
        cJSON_AddItemToObject(o, "mean_diff", json_number((double)d->diff_sum / pixels));
        cJSON_AddNumberToObject(o, "max_diff", d->diff_max);
        cJSON_AddItemToObject(o, "noise_sigma", json_number(d->sigma));
        cJSON_AddNumberToObject(o, "threshold", d->threshold);
    }
    diff_totals t;
    totals_of(s, &t);
    cJSON *tot = cJSON_AddObjectToObject(root, "totals");
    const double n = (double)s->n;
    cJSON_AddNumberToObject(tot, "maps", n);
    cJSON_AddNumberToObject(tot, "frames", s->n + 1.0);
    cJSON_AddNumberToObject(tot, "changed_pixels", (double)t.changed_pixels);
    cJSON_AddItemToObject(tot, "changed_pixel_fraction",
                          json_number((double)t.changed_pixels / (n * pixels)));
    cJSON_AddNumberToObject(tot, "changed_tiles", (double)t.changed_tiles);
    cJSON_AddItemToObject(tot, "changed_tile_fraction",
                          json_number((double)t.changed_tiles / (n * tiles)));
    cJSON_AddItemToObject(tot, "mean_diff", json_number((double)t.diff_sum / (n * pixels)));
    cJSON_AddNumberToObject(tot, "max_diff", t.diff_max);
    cJSON_AddItemToObject(tot, "mean_noise_sigma",
                          json_number(t.sigmas ? t.sigma_sum / (double)t.sigmas : NAN));
    cJSON_AddNumberToObject(tot, "threshold_min", t.tmin);
    cJSON_AddNumberToObject(tot, "threshold_max", t.tmax);
    const int rc = cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
    return rc;
}

/* Changed pixels and tiles in percent and the noise sigma in sample units,
 * per map, on one axis (both usually span 0 to tens). */
static int write_plot(const diff_run *s)
{
    const diff_args *a = &s->a;
    const int64_t n = s->n;
    double *y = malloc((size_t)(n > 0 ? n : 1) * 3 * sizeof(double));
    if (!y) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    const double pixels = (double)s->info.width * s->info.height, tiles = (double)s->tiles;
    for (int64_t i = 0; i < n; i++) {
        y[i] = 100.0 * (double)s->stats[i].changed_pixels / pixels;
        y[n + i] = 100.0 * (double)s->stats[i].changed_tiles / tiles;
        y[2 * n + i] = s->stats[i].sigma;
    }
    diff_totals t;
    totals_of(s, &t);
    char names[3][96];
    snprintf(names[0], sizeof(names[0]), "changed pixels, %% (mean %.3f)",
             100.0 * (double)t.changed_pixels / ((double)n * pixels));
    snprintf(names[1], sizeof(names[1]), "changed %dx%d tiles, %% (mean %.3f)", a->set.tile,
             a->set.tile, 100.0 * (double)t.changed_tiles / ((double)n * tiles));
    snprintf(names[2], sizeof(names[2]), "noise sigma, sample units (mean %.3f)",
             t.sigmas ? t.sigma_sum / (double)t.sigmas : 0.0);
    chart c;
    chart_init(&c);
    chart_add_series(&c, names[0], 0xd62728, y, (size_t)n);
    chart_add_series(&c, names[1], 0xff7f0e, y + n, (size_t)n);
    chart_add_series(&c, names[2], 0x1f77b4, y + 2 * n, (size_t)n);
    c.y_min = 0;
    char title[1024], subtitle[256], thr[32], dn[32];
    const char *in = cli_display_path(a->input, 0);
    const char *base = strrchr(in, '/') ? strrchr(in, '/') + 1 : in;
    snprintf(title, sizeof(title), "Frame differences: %s", strlen(in) > 80 ? base : in);
    if (a->set.threshold == FOVEA_DIFF_THRESHOLD_AUTO)
        snprintf(thr, sizeof(thr), "auto (%g sigma)", a->set.auto_k);
    else
        snprintf(thr, sizeof(thr), "%d", a->set.threshold);
    if (a->set.denoise == FOVEA_DIFF_DENOISE_TEMPORAL)
        snprintf(dn, sizeof(dn), "temporal:%d", a->set.temporal_strength);
    else
        snprintf(dn, sizeof(dn), "%s", denoise_name(a->set.denoise));
    snprintf(subtitle, sizeof(subtitle), "%dx%d %s, %lld map%s; threshold %s, denoise %s; fovea %s",
             s->info.width, s->info.height, fovea_pixfmt_name(s->info.fmt), (long long)n,
             n == 1 ? "" : "s", thr, dn, fovea_version());
    c.title = title;
    c.subtitle = subtitle;
    c.xlabel = "map i (input frames i and i + 1)";
    c.ylabel = "changed, % / noise sigma";

    char err[512] = "";
    fovea_outfile *of = NULL;
    if (fovea_outfile_open(&of, NULL, a->plot) < 0) {
        free(y);
        cli_error(NULL, "%s", fovea_last_error(NULL));
        return CLI_EXIT_RUNTIME;
    }
    const int bad = chart_write_png(&c, fovea_outfile_file(of), err, sizeof(err));
    free(y);
    if (bad) {
        fovea_outfile_close(&of);
        cli_error(a->plot, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    if (fovea_outfile_commit(&of, NULL) < 0) {
        cli_error(NULL, "%s", fovea_last_error(NULL));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

int diff_write_reports(diff_run *s, double secs)
{
    const diff_args *a = &s->a;
    int rc = CLI_EXIT_OK;
    if (a->opt.json)
        rc = write_json(s, secs);
    if (rc == CLI_EXIT_OK && a->plot)
        rc = write_plot(s);
    if (rc != CLI_EXIT_OK)
        return rc;
    diff_totals t;
    totals_of(s, &t);
    const double pixels = (double)s->info.width * s->info.height;
    int busy = a->opt.json && strcmp(a->opt.json, "-") == 0;
    for (int k = 0; k < N_OUT; k++)
        busy |= a->out[k] && strcmp(a->out[k], "-") == 0;
    char thr[48];
    if (t.tmin == t.tmax)
        snprintf(thr, sizeof(thr), "%d", t.tmin);
    else
        snprintf(thr, sizeof(thr), "%d..%d", t.tmin, t.tmax);
    const int threads = fovea_context_threads(s->ctx);
    cli_summary(a->opt.quiet, busy,
                "diff: %lld map%s of %dx%d %s: %.3f%% of pixels and %.3f%% of %dx%d tiles "
                "changed (threshold %s), mean difference %.3f, max %d  (%s, %d thread%s, "
                "%.2f s, %.1f fps)",
                (long long)s->n, s->n == 1 ? "" : "s", s->info.width, s->info.height,
                fovea_pixfmt_name(s->info.fmt),
                100.0 * (double)t.changed_pixels / ((double)s->n * pixels),
                100.0 * (double)t.changed_tiles / ((double)s->n * (double)s->tiles), a->set.tile,
                a->set.tile, thr, (double)t.diff_sum / ((double)s->n * pixels), t.diff_max,
                fovea_backend_name(fovea_diff_backend(s->d)), threads, threads == 1 ? "" : "s",
                secs, secs > 0 ? (double)s->n / secs : 0.0);
    return CLI_EXIT_OK;
}

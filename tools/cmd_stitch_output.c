/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea stitch`: the output: the panorama's writer (in line for stills, on
 * the pipeline's writer thread for video) and the reports (colors, JSON). */
#include <stdlib.h>
#include <string.h>

#include "cmd_stitch.h"

/* ------------------------------------------------------------------ output */

static fovea_pixfmt writer_format(fovea_container c)
{
    switch (c) {
    case FOVEA_CONTAINER_PNG: return FOVEA_PIX_RGBA;
    case FOVEA_CONTAINER_PNM: return FOVEA_PIX_RGB24;
    default: return FOVEA_PIX_I420;
    }
}

int stitch_open_output(stitch_run *s)
{
    const stitch_args *a = &s->a;
    s->out_container = a->out_container;
    s->out_fmt = (s->stitch_fmt == FOVEA_PIX_I420 || s->stitch_fmt == FOVEA_PIX_NV12)
                     ? FOVEA_PIX_I420
                     : FOVEA_PIX_RGBA;
    s->write_fmt = writer_format(s->out_container);
    int single = s->out_container == FOVEA_CONTAINER_PNG || s->out_container == FOVEA_CONTAINER_PNM;
    if (single && s->total > 1 && !strchr(a->out, '%')) {
        cli_error(a->out,
                  "%lld frames to write but %s holds one image: use a pattern such as "
                  "pano%%04d.%s, or --frames 1",
                  (long long)s->total, fovea_container_name(s->out_container),
                  s->out_container == FOVEA_CONTAINER_PNG ? "png" : "ppm");
        return CLI_EXIT_RUNTIME;
    }
    int st = stitch_alloc_frame(s, &s->out, s->pano_w, s->pano_h, s->out_fmt, 1);
    if (st == FOVEA_OK && s->write_fmt != s->out_fmt)
        st = stitch_alloc_frame(s, &s->wout, s->pano_w, s->pano_h, s->write_fmt, 0);
    if (st == FOVEA_OK && s->pipelined)
        st = cli_pipe_init(&s->pipe, PIPE_SLOTS);
    for (int k = 0; k < PIPE_SLOTS && s->pipelined && st == FOVEA_OK; k++) {
        /* the writer's slots: f[0] the panorama, f[1] converted for the writer */
        cli_pipe_slot *ws = &s->pipe.slot[k];
        st = stitch_alloc_frame(s, &ws->f[0], s->pano_w, s->pano_h, s->out_fmt, 1);
        if (st == FOVEA_OK && s->write_fmt != s->out_fmt)
            st = stitch_alloc_frame(s, &ws->f[1], s->pano_w, s->pano_h, s->write_fmt, 0);
    }
    if (st < 0) {
        cli_error(NULL, "cannot allocate a %dx%d panorama: %s", s->pano_w, s->pano_h,
                  fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }

    fovea_video_info info;
    fovea_video_info_init(&info);
    const fovea_video_info *i0 = &s->cam[0].info;
    info.width = s->pano_w;
    info.height = s->pano_h;
    info.fmt = s->write_fmt;
    if (!s->still) {
        info.fps_num = i0->fps_num;
        info.fps_den = i0->fps_den;
        info.sar_num = i0->sar_num;
        info.sar_den = i0->sar_den;
        info.interlace = i0->interlace;
        const fovea_pixfmt_desc *wd = fovea_pixfmt_get_desc(s->write_fmt);
        if (wd && wd->is_yuv)
            info.color_range = s->full_range ? FOVEA_COLOR_RANGE_FULL : FOVEA_COLOR_RANGE_LIMITED;
    }
    st = fovea_writer_open(&s->w, NULL, a->out, s->out_container, &info);
    if (st < 0)
        return cli_report(a->out, 1, fovea_last_error(NULL), st);
    cli_media_writer(s->w, &a->in);
    return CLI_EXIT_OK;
}

/* ---- writing: in line (stills), or through the pipeline's writer thread */

static int write_failure(stitch_run *s, int st)
{
    return cli_report(s->a.out, 1, cli_pipe_error(&s->pipe), st);
}

int stitch_write_frame(stitch_run *s, int64_t step)
{
    const stitch_args *a = &s->a;
    const fovea_frame *f = &s->out;
    s->out.index = step;
    if (s->write_fmt != s->out_fmt) {
        int st = fovea_frame_convert(s->ctx, &s->wout, &s->out, &s->out_copt);
        if (st < 0) {
            const char *detail = fovea_last_error(s->ctx);
            cli_error(cli_display_path(a->out, 1), "frame %lld: cannot convert %s to %s: %s",
                      (long long)step, fovea_pixfmt_name(s->out_fmt),
                      fovea_pixfmt_name(s->write_fmt), *detail ? detail : fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
        s->wout.index = step;
        f = &s->wout;
    }
    if (s->pipelined) {
        /* to the writer thread: the panorama's buffers trade places with a
         * written slot's (no copy) */
        fovea_frame *bufs[2] = {&s->out, &s->wout};
        const int st = cli_pipe_put(&s->pipe, bufs, f == &s->wout);
        return st < 0 ? write_failure(s, st) : CLI_EXIT_OK;
    }
    int st = fovea_writer_write(s->w, f);
    if (st < 0)
        return write_failure(s, st);
    return CLI_EXIT_OK;
}

/* Start the reader threads and the writer thread. @return 0, or -1 reported */
int stitch_pipeline_start(stitch_run *s)
{
    for (int c = 0; c < s->a.n; c++)
        s->rings[c] = &s->cam[c].ring;
    return cli_pipe_start(&s->pipe, s->w, s->rings, s->a.n);
}

/* The writer writes what was queued, the readers stop; all threads joined.
 * @return rc, or the writer's failure when rc was OK */
int stitch_pipeline_finish(stitch_run *s, int rc)
{
    if (!s->pipe.ready)
        return rc;
    const int st = cli_pipe_finish(&s->pipe);
    s->done = s->pipe.written;
    if (rc == CLI_EXIT_OK && st < 0)
        rc = write_failure(s, st);
    return rc;
}

/* ------------------------------------------------------------------ reports */

static const char *color_mode_name(int m)
{
    return m == COLOR_ARG_OFF ? "off" : m == COLOR_ARG_FIXED ? "fixed" : "auto";
}

void stitch_print_colors(const stitch_run *s, const fovea_color_correction *cc)
{
    FILE *fp = strcmp(s->a.out, "-") == 0 ? stderr : stdout;
    for (int c = 0; c < s->a.n; c++)
        fprintf(fp, "camera %d (%s): gain %.4f %.4f %.4f  gamma %.4f\n", c,
                cli_display_path(s->cam[c].path, 0), (double)cc[c].gain[0], (double)cc[c].gain[1],
                (double)cc[c].gain[2], (double)cc[c].gamma);
}

int stitch_write_summary(const stitch_run *s, const fovea_color_correction *cc,
                         double setup_seconds, double seconds)
{
    const stitch_args *a = &s->a;
    cJSON *root = cJSON_CreateObject();
    if (!root) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    cJSON_AddStringToObject(root,
                            a->rig   ? "rig"
                            : a->pto ? "pto"
                                     : "map",
                            a->rig   ? a->rig
                            : a->pto ? a->pto
                                     : a->map);
    cJSON_AddStringToObject(root, "output", a->out);
    cJSON_AddStringToObject(root, "output_pixfmt", fovea_pixfmt_name(s->write_fmt));
    cJSON_AddNumberToObject(root, "width", s->pano_w);
    cJSON_AddNumberToObject(root, "height", s->pano_h);
    cJSON_AddNumberToObject(root, "frames", (double)s->done);
    cJSON_AddNumberToObject(root, "setup_seconds", setup_seconds); /* map, inputs, stitcher */
    cJSON_AddNumberToObject(root, "seconds", seconds);             /* the frames */
    cJSON_AddNumberToObject(root, "fps", seconds > 0 ? (double)s->done / seconds : 0.0);
    cJSON_AddStringToObject(root, "backend", fovea_backend_name(fovea_context_backend(s->ctx)));
    cJSON_AddNumberToObject(root, "threads", fovea_context_threads(s->ctx));
    cJSON_AddStringToObject(root, "stitch_pixfmt", fovea_pixfmt_name(s->stitch_fmt));
    if (!s->still) {
        cJSON *yuv = cJSON_AddObjectToObject(root, "yuv");
        cJSON_AddStringToObject(yuv, "colorspace", cli_colorspace_name(a->colorspace));
        cJSON_AddStringToObject(yuv, "range", s->full_range ? "full" : "limited");
        cJSON_AddStringToObject(yuv, "range_from", s->range_from);
    }
    cJSON *col = cJSON_AddObjectToObject(root, "color");
    cJSON_AddStringToObject(col, "mode", color_mode_name(a->color));
    if (a->color == COLOR_ARG_FIXED)
        cJSON_AddStringToObject(col, "file", a->color_file);
    cJSON_AddNumberToObject(col, "interval", a->interval);
    cJSON_AddNumberToObject(col, "smoothing", a->smoothing);
    cJSON_AddBoolToObject(col, "deterministic", a->deterministic);
    cJSON *cams = cJSON_AddArrayToObject(root, "cameras");
    for (int c = 0; c < a->n; c++) {
        const cam_input *ci = &s->cam[c];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "index", c);
        cJSON_AddStringToObject(o, "input", ci->path);
        cJSON_AddNumberToObject(o, "width", ci->info.width);
        cJSON_AddNumberToObject(o, "height", ci->info.height);
        cJSON_AddStringToObject(o, "pixfmt", fovea_pixfmt_name(ci->info.fmt));
        cJSON_AddBoolToObject(o, "converted", ci->convert);
        cJSON_AddNumberToObject(o, "frames_read", (double)ci->frames_read);
        cJSON_AddNumberToObject(o, "frames_repeated", (double)ci->frames_repeated);
        cJSON *g = cJSON_AddArrayToObject(o, "gain");
        for (int k = 0; k < 3; k++)
            cJSON_AddItemToArray(g, cJSON_CreateNumber((double)cc[c].gain[k]));
        cJSON_AddNumberToObject(o, "gamma", (double)cc[c].gamma);
        cJSON_AddItemToArray(cams, o);
    }
    int rc = cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
    return rc;
}

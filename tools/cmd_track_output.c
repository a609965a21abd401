/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea track`: the outputs: the overlay (trails drawn over the frame, written
 * in line or on the pipeline's writer thread), the feature table, the JSON and
 * the summary line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_track.h"

/* ------------------------------------------------------------------ overlay */

static void put_px(fovea_frame *f, int x, int y, const uint8_t c[3])
{
    if (x < 0 || y < 0 || x >= f->width || y >= f->height)
        return;
    uint8_t *p = f->data[0] + (ptrdiff_t)y * f->stride[0] + 3 * (size_t)x;
    p[0] = c[0];
    p[1] = c[1];
    p[2] = c[2];
}

static void draw_line(fovea_frame *f, float x0, float y0, float x1, float y1, const uint8_t c[3])
{
    float dx = x1 - x0, dy = y1 - y0;
    float adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
    int n = (int)(adx > ady ? adx : ady) + 1;
    if (n > 4096)
        n = 4096;
    for (int i = 0; i <= n; i++) {
        float t = (float)i / (float)n;
        put_px(f, (int)(x0 + t * dx + 0.5f), (int)(y0 + t * dy + 0.5f), c);
    }
}

static void draw_box(fovea_frame *f, float x, float y, const uint8_t c[3])
{
    int cx = (int)(x + 0.5f), cy = (int)(y + 0.5f);
    for (int j = -1; j <= 1; j++)
        for (int i = -1; i <= 1; i++)
            put_px(f, cx + i, cy + j, c);
}

/* Update the trails from the list, then draw them over the frame's colors
 * (color, rgb24), or over the luma where color is NULL (a gray input). */
static void overlay_draw(fovea_frame *rgb, const unsigned char *luma, const fovea_frame *color,
                         trail *tr, KLT_FeatureList fl, int trail_len)
{
    static const uint8_t green[3] = {0, 255, 0}, yellow[3] = {255, 230, 0}, red[3] = {255, 0, 0},
                         dim[3] = {0, 150, 0};
    for (int y = 0; y < rgb->height; y++) {
        uint8_t *p = rgb->data[0] + (ptrdiff_t)y * rgb->stride[0];
        if (color) {
            memcpy(p, color->data[0] + (ptrdiff_t)y * color->stride[0], 3 * (size_t)rgb->width);
            continue;
        }
        const unsigned char *l = luma + (size_t)y * rgb->width;
        for (int x = 0; x < rgb->width; x++)
            p[3 * x] = p[3 * x + 1] = p[3 * x + 2] = l[x];
    }
    for (int k = 0; k < fl->nFeatures; k++) {
        KLT_Feature f = fl->feature[k];
        trail *t = &tr[k];
        t->lost_now = 0;
        if (f->val < 0) {
            t->lost_now = t->n > 0;
            if (t->lost_now)
                draw_box(rgb, t->x[t->n - 1], t->y[t->n - 1], red);
            t->n = 0;
            continue;
        }
        if (f->val > 0)
            t->n = 0; /* a new feature in this slot */
        if (t->n == trail_len) {
            memmove(t->x, t->x + 1, (size_t)(trail_len - 1) * sizeof(float));
            memmove(t->y, t->y + 1, (size_t)(trail_len - 1) * sizeof(float));
            t->n--;
        }
        t->x[t->n] = f->x;
        t->y[t->n] = f->y;
        t->n++;
        for (int i = 1; i < t->n; i++)
            draw_line(rgb, t->x[i - 1], t->y[i - 1], t->x[i], t->y[i], dim);
        draw_box(rgb, f->x, f->y, f->val > 0 ? yellow : green);
    }
}

/* ------------------------------------------------------------------ output */

int track_history_add(history *h, KLT_FeatureList fl)
{
    if (h->frames == h->cap) {
        int cap = h->cap ? 2 * h->cap : 64;
        KLT_FeatureRec *r = realloc(h->rec, (size_t)cap * h->nfeat * sizeof(KLT_FeatureRec));
        if (!r)
            return 0;
        h->rec = r;
        h->cap = cap;
    }
    KLT_FeatureRec *dst = h->rec + (size_t)h->frames * h->nfeat;
    for (int k = 0; k < h->nfeat; k++) {
        memset(&dst[k], 0, sizeof(dst[k]));
        dst[k].x = fl->feature[k]->x;
        dst[k].y = fl->feature[k]->y;
        dst[k].val = fl->feature[k]->val;
    }
    h->frames++;
    return 1;
}

static int write_table(const track_args *a, const history *h)
{
    KLT_FeatureTable ft = KLTCreateFeatureTable(h->frames, h->nfeat);
    if (!ft) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    for (int i = 0; i < h->frames; i++)
        for (int k = 0; k < h->nfeat; k++) {
            const KLT_FeatureRec *r = &h->rec[(size_t)i * h->nfeat + k];
            ft->feature[k][i]->x = r->x;
            ft->feature[k][i]->y = r->y;
            ft->feature[k][i]->val = r->val;
        }
    fovea_outfile *of;
    int rc = CLI_EXIT_OK;
    if (fovea_outfile_open(&of, NULL, a->output) < 0) {
        rc = cli_report(a->output, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    } else {
        int st = fovea_klt_write_feature_table_stream(ft, fovea_outfile_file(of), a->format);
        if (st < 0) {
            /* the reason of a failed write is in errno now, before anything else runs */
            int e = errno;
            fovea_outfile_close(&of);
            cli_error(cli_display_path(a->output, 1), "%s",
                      st == FOVEA_ERR_IO && e ? strerror(e) : fovea_strerror(st));
            rc = CLI_EXIT_RUNTIME;
        } else if (fovea_outfile_commit(&of, NULL) < 0) {
            rc = cli_report(a->output, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
        }
    }
    KLTFreeFeatureTable(ft);
    return rc;
}

static int write_json(const track_args *a, const history *h, int w, int hgt, double seconds)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "width", w);
    cJSON_AddNumberToObject(root, "height", hgt);
    cJSON_AddNumberToObject(root, "nFeatures", h->nfeat);
    cJSON_AddNumberToObject(root, "nFrames", h->frames);
    cJSON_AddBoolToObject(root, "replace", a->replace);
    cJSON_AddNumberToObject(root, "seconds", seconds);
    cJSON *cols = cJSON_AddArrayToObject(root, "columns");
    cJSON_AddItemToArray(cols, cJSON_CreateString("x"));
    cJSON_AddItemToArray(cols, cJSON_CreateString("y"));
    cJSON_AddItemToArray(cols, cJSON_CreateString("val"));
    cJSON *frames = cJSON_AddArrayToObject(root, "frames");
    for (int i = 0; i < h->frames; i++) {
        cJSON *fr = cJSON_CreateObject();
        cJSON_AddNumberToObject(fr, "frame", i);
        cJSON *feats = cJSON_AddArrayToObject(fr, "features");
        for (int k = 0; k < h->nfeat; k++) {
            const KLT_FeatureRec *r = &h->rec[(size_t)i * h->nfeat + k];
            cJSON *t = cJSON_CreateArray();
            cJSON_AddItemToArray(t, cJSON_CreateNumber(r->x));
            cJSON_AddItemToArray(t, cJSON_CreateNumber(r->y));
            cJSON_AddItemToArray(t, cJSON_CreateNumber(r->val));
            cJSON_AddItemToArray(feats, t);
        }
        cJSON_AddItemToArray(frames, fr);
    }
    int rc = cli_write_json(a->opt.json, root);
    cJSON_Delete(root);
    return rc;
}

/* The overlay's writer and frames: rgb drawn, conv converted for the writer
 * when it takes another format; as many for each slot of a pipeline. */
int track_open_overlay(track_run *t)
{
    const track_args *a = &t->a;
    const int w = t->src.width, h = t->src.height;
    fovea_container oc = cli_container_for(a->overlay, FOVEA_CONTAINER_AUTO);
    if (oc == FOVEA_CONTAINER_AUTO)
        return cli_usage_error(track_spec.name, "--overlay %s: name it .y4m, .png or .ppm",
                               a->overlay);
    fovea_video_info info;
    fovea_video_info_init(&info);
    info.width = w;
    info.height = h;
    info.fmt = cli_default_output_pixfmt(oc, FOVEA_PIX_RGB24);
    if (t->src.video && t->src.r) {
        info.fps_num = fovea_reader_info(t->src.r)->fps_num;
        info.fps_den = fovea_reader_info(t->src.r)->fps_den;
    }
    int said = 0;
    cli_output_rate(&a->in, a->inputs[0], oc, a->opt.quiet, &said, &info);
    int st = fovea_writer_open(&t->ow, NULL, a->overlay, oc, &info);
    if (st < 0)
        return cli_report(a->overlay, 1, fovea_last_error(NULL), st);
    cli_media_writer(t->ow, &a->in);
    const int nslots = t->pipelined ? PIPE_SLOTS : 0;
    for (int k = -1; k < nslots && st == FOVEA_OK; k++) {
        fovea_frame *f = k < 0 ? &t->rgb : &t->pipe.slot[k].f[0];
        fovea_frame *g = k < 0 ? &t->conv : &t->pipe.slot[k].f[1];
        st = fovea_frame_alloc(t->ctx, f, w, h, FOVEA_PIX_RGB24, FOVEA_MEM_HOST);
        if (st == FOVEA_OK && info.fmt != FOVEA_PIX_RGB24)
            st = fovea_frame_alloc(t->ctx, g, w, h, info.fmt, FOVEA_MEM_HOST);
    }
    if (st == FOVEA_OK)
        st = fovea_frame_alloc(t->ctx, &t->color, w, h, FOVEA_PIX_RGB24, FOVEA_MEM_HOST);
    if (st < 0) {
        cli_error(NULL, "cannot allocate overlay frames: %s", fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    t->src.color = &t->color;
    return CLI_EXIT_OK;
}

static int overlay_failure(const track_run *t, int st)
{
    return cli_report(t->a.overlay, 1, cli_pipe_error(&t->pipe), st);
}

/* Before a failure of a frame is reported: the overlay frames before it are
 * written, as in the sequential loop, where a failed write among them came
 * first. Stops the pipeline. @return CLI_EXIT_OK, or the exit status of the
 * failed write (reported) */
int track_writes_before(track_run *t)
{
    const int st = cli_pipe_finish(&t->pipe);
    if (t->ow && t->pipelined)
        t->prog.done = t->pipe.written;
    return st < 0 ? overlay_failure(t, st) : CLI_EXIT_OK;
}

/* Frame i's overlay drawn over its luma (cur), to the writer: through the
 * pipeline, whose written buffers trade places with rgb and conv, or in line. */
int track_write_overlay(track_run *t, int i)
{
    overlay_draw(&t->rgb, t->cur, t->src.colored ? &t->color : NULL, t->trails, t->fl, t->a.trail);
    const fovea_frame *out = &t->rgb;
    int st, rc;
    if (t->conv.data[0]) {
        fovea_convert_options co;
        fovea_convert_options_init(&co);
        if ((st = fovea_frame_convert(t->ctx, &t->conv, &t->rgb, &co)) < 0) {
            if ((rc = track_writes_before(t)) != CLI_EXIT_OK)
                return rc;
            cli_error(NULL, "overlay frame %d: %s", i, fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
        out = &t->conv;
    }
    if (t->pipelined) {
        fovea_frame *bufs[2] = {&t->rgb, &t->conv};
        if ((st = cli_pipe_put(&t->pipe, bufs, out == &t->conv)) < 0)
            return track_writes_before(t); /* the write that failed */
        return CLI_EXIT_OK;
    }
    if ((st = fovea_writer_write(t->ow, out)) < 0)
        return overlay_failure(t, st);
    return CLI_EXIT_OK;
}

static void print_summary(const track_run *t, double secs)
{
    const track_args *a = &t->a;
    const KLT_FeatureList fl = t->fl;
    int tracked = 0;
    for (int k = 0; k < fl->nFeatures; k++)
        tracked += fl->feature[k]->val >= 0;
    char outs[1024] = "", timing[96];
    size_t len = 0;
    const char *names[3] = {a->output, a->opt.json, a->overlay};
    for (int k = 0; k < 3; k++) {
        if (!names[k])
            continue;
        int m = snprintf(outs + len, sizeof(outs) - len, "%s%s", len ? ", " : "",
                         cli_display_path(names[k], 1));
        if (m > 0 && (size_t)m < sizeof(outs) - len)
            len += (size_t)m;
    }
    cli_format_timing(timing, sizeof(timing), t->frames, secs);
    const int busy = (a->output && strcmp(a->output, "-") == 0) ||
                     (a->opt.json && strcmp(a->opt.json, "-") == 0) ||
                     (a->overlay && strcmp(a->overlay, "-") == 0);
    cli_summary(a->opt.quiet, busy, "track: %d %s %dx%d, %d/%d features in the last frame -> %s %s",
                t->frames, cli_frames_word(t->frames), t->src.width, t->src.height, tracked,
                fl->nFeatures, outs, timing);
}

/* The overlay committed, the table and the JSON written, the summary line. */
int track_finish_outputs(track_run *t, double t0)
{
    const track_args *a = &t->a;
    int st, rc = CLI_EXIT_OK;
    if (t->ow && (st = fovea_writer_finish(t->ow)) < 0)
        return overlay_failure(t, st);
    fovea_writer_close(&t->ow);
    if (a->output && (rc = write_table(a, &t->hist)) != CLI_EXIT_OK)
        return rc;
    const double secs = cli_now() - t0;
    if (a->opt.json)
        rc = write_json(a, &t->hist, t->src.width, t->src.height, secs);
    if (rc == CLI_EXIT_OK)
        print_summary(t, secs);
    return rc;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea stitch`: the inputs: the fixed color corrections, the cameras opened
 * and checked against the map, and each step's frames read (or repeated). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_stitch.h"

/* ------------------------------------------------------------------ fixed colors */

static char *read_small_file(const char *path, size_t limit, size_t *len, char *err, size_t errsz)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(err, errsz, "%s", strerror(errno));
        return NULL;
    }
    char *buf = malloc(limit + 1);
    if (!buf) {
        fclose(fp);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    size_t n = fread(buf, 1, limit + 1, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad || n > limit) {
        snprintf(err, errsz, bad ? "read error" : "larger than %zu bytes", limit);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

int stitch_load_color_file(const char *path, int n, fovea_color_correction *cc)
{
    char err[512] = "";
    size_t len = 0;
    char *text = read_small_file(path, 1 << 20, &len, err, sizeof(err));
    int rc = text ? fovea_color_corrections_from_json(NULL, text, len, n, cc) : -1;
    if (rc < 0 && text)
        snprintf(err, sizeof(err), "%s", fovea_last_error(NULL));
    free(text);
    if (rc < 0) {
        cli_error(path, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* Frames the stitcher touches are pinned on CUDA contexts (faster uploads). */
int stitch_alloc_frame(stitch_run *s, fovea_frame *f, int w, int h, fovea_pixfmt fmt,
                       int pinned_if_cuda)
{
    if (pinned_if_cuda && fovea_context_backend(s->ctx) == FOVEA_BACKEND_CUDA &&
        fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_PINNED) == FOVEA_OK)
        return FOVEA_OK;
    return fovea_frame_alloc(s->ctx, f, w, h, fmt, FOVEA_MEM_HOST);
}

static int stitchable(fovea_pixfmt f)
{
    return f == FOVEA_PIX_I420 || f == FOVEA_PIX_NV12 || f == FOVEA_PIX_RGB24 ||
           f == FOVEA_PIX_RGBA;
}

/* Stitch format: the inputs' common one when the stitcher takes it; otherwise
 * rgba/rgb24 for stills and i420 for video. */
static fovea_pixfmt choose_stitch_format(const stitch_run *s)
{
    const int n = s->a.n;
    int same = 1, any_alpha = 0;
    for (int c = 0; c < n; c++) {
        same &= s->cam[c].info.fmt == s->cam[0].info.fmt;
        any_alpha |= s->cam[c].info.fmt == FOVEA_PIX_RGBA || s->cam[c].info.fmt == FOVEA_PIX_RGBA64;
    }
    if (same && stitchable(s->cam[0].info.fmt))
        return s->cam[0].info.fmt;
    if (s->still)
        return any_alpha ? FOVEA_PIX_RGBA : FOVEA_PIX_RGB24;
    return FOVEA_PIX_I420;
}

/* The YUV range: --range, else the inputs' XCOLORRANGE tags, else limited. */
static int choose_range(stitch_run *s)
{
    const stitch_args *a = &s->a;
    int tagged = -1;
    for (int c = 0; c < a->n && !s->still; c++) {
        const int r = s->cam[c].info.color_range;
        if (r == FOVEA_COLOR_RANGE_UNKNOWN || a->range != FOVEA_COLOR_RANGE_UNKNOWN)
            continue;
        if (tagged >= 0 && r != s->cam[tagged].info.color_range) {
            cli_error(cli_display_path(s->cam[c].path, 0),
                      "its y4m header says XCOLORRANGE=%s but camera %d's says %s: give --range",
                      r == FOVEA_COLOR_RANGE_FULL ? "FULL" : "LIMITED", tagged,
                      r == FOVEA_COLOR_RANGE_FULL ? "LIMITED" : "FULL");
            return CLI_EXIT_RUNTIME;
        }
        tagged = tagged < 0 ? c : tagged;
    }
    if (a->range != FOVEA_COLOR_RANGE_UNKNOWN) {
        s->full_range = a->range == FOVEA_COLOR_RANGE_FULL;
        s->range_from = "option";
    } else if (tagged >= 0) {
        s->full_range = s->cam[tagged].info.color_range == FOVEA_COLOR_RANGE_FULL;
        s->range_from = "XCOLORRANGE";
    } else {
        s->full_range = 0;
        s->range_from = "default";
    }
    return CLI_EXIT_OK;
}

int stitch_open_inputs(stitch_run *s)
{
    stitch_args *a = &s->a;
    int nmap = 0;
    fovea_stitch_map_geometry(s->map, &s->pano_w, &s->pano_h, &nmap);
    if (nmap != a->n) {
        cli_error(a->rig   ? a->rig
                  : a->pto ? a->pto
                           : a->map,
                  "the map has %d camera%s, got %d input%s", nmap, nmap == 1 ? "" : "s", a->n,
                  a->n == 1 ? "" : "s");
        return CLI_EXIT_RUNTIME;
    }
    s->total = -1;
    int all_known = 1;
    a->in.ctx = s->ctx; /* NVDEC decodes on the stitcher's CUDA context */
    for (int c = 0; c < a->n; c++) {
        cam_input *ci = &s->cam[c];
        ci->path = a->inputs[c];
        int rc = cli_open_reader(stitch_spec.name, ci->path, &a->in, &ci->r);
        if (rc != CLI_EXIT_OK)
            return rc;
        ci->info = *fovea_reader_info(ci->r);
        int mw, mh;
        fovea_stitch_map_camera_size(s->map, c, &mw, &mh);
        if (ci->info.width != mw || ci->info.height != mh) {
            cli_error(cli_display_path(ci->path, 0), "camera %d is %dx%d, the map expects %dx%d", c,
                      ci->info.width, ci->info.height, mw, mh);
            return CLI_EXIT_RUNTIME;
        }
        if (c > 0) {
            char err[1024];
            rc = cli_media_pair_check(&a->in, s->cam[0].path, &s->cam[0].info, ci->path, &ci->info,
                                      err, sizeof(err));
            if (rc != CLI_EXIT_OK) {
                cli_error(NULL, "%s", err);
                return rc;
            }
        }
        if (ci->info.frame_count < 0)
            all_known = 0;
        else if (s->total < 0 || ci->info.frame_count < s->total)
            s->total = ci->info.frame_count;
        if (ci->info.frame_count == 0) {
            cli_error(cli_display_path(ci->path, 0), "no frames in the input: nothing to stitch");
            return CLI_EXIT_RUNTIME;
        }
    }
    /* stills or video by the readers (an input without a known extension is
     * known by its first bytes only now) */
    int stills = 0;
    for (int c = 0; c < a->n; c++) {
        const fovea_container ic = fovea_reader_container(s->cam[c].r);
        stills += ic == FOVEA_CONTAINER_PNG || ic == FOVEA_CONTAINER_PNM;
    }
    if (stills && stills != a->n)
        return cli_usage_error(stitch_spec.name, "stitch: inputs must be all videos (y4m, yuv) "
                                                 "or all stills (png, pnm)");
    s->still = stills > 0;
    s->pipelined = !s->still;
    if (!all_known)
        s->total = -1;
    if (a->opt.frames >= 0 && (s->total < 0 || a->opt.frames < s->total))
        s->total = a->opt.frames;

    /* frame rates: inputs are paired frame by frame */
    const fovea_video_info *i0 = &s->cam[0].info;
    for (int c = 1; c < a->n && !s->still; c++) {
        const fovea_video_info *ic = &s->cam[c].info;
        if (i0->fps_num > 0 && ic->fps_num > 0 &&
            (int64_t)i0->fps_num * ic->fps_den != (int64_t)ic->fps_num * i0->fps_den)
            cli_error(cli_display_path(s->cam[c].path, 0),
                      "warning: frame rate %d/%d differs from camera 0's %d/%d; frames are "
                      "paired one to one",
                      ic->fps_num, ic->fps_den, i0->fps_num, i0->fps_den);
    }

    s->stitch_fmt = choose_stitch_format(s);
    const int rc = choose_range(s);
    if (rc != CLI_EXIT_OK)
        return rc;
    fovea_convert_options_init(&s->out_copt);
    s->out_copt.colorspace = a->colorspace;
    s->out_copt.range = s->full_range ? FOVEA_RANGE_FULL : FOVEA_RANGE_LIMITED;
    for (int c = 0; c < a->n; c++) {
        cam_input *ci = &s->cam[c];
        ci->convert = ci->info.fmt != s->stitch_fmt;
        ci->copt = s->out_copt;
        const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(ci->info.fmt);
        /* a gray still holds full-range values */
        if (s->still && d && d->is_yuv && d->planes == 1)
            ci->copt.range = FOVEA_RANGE_FULL;
        if (ci->convert && !s->still)
            cli_error(cli_display_path(ci->path, 0),
                      "warning: %s input converted to %s for "
                      "stitching",
                      fovea_pixfmt_name(ci->info.fmt), fovea_pixfmt_name(s->stitch_fmt));
        int st;
        int dev = 0; /* the reads are NVDEC's device frames */
        if (!s->pipelined) {
            st = stitch_alloc_frame(s, &ci->raw, ci->info.width, ci->info.height, ci->info.fmt,
                                    !ci->convert);
        } else {
            /* pinned on CUDA contexts unless converted first, as alloc_frame;
             * NVDEC's frames stay on the device (the stitcher reads them
             * there) unless converted first (then downloaded once) */
            const int pin = !ci->convert && fovea_context_backend(s->ctx) == FOVEA_BACKEND_CUDA;
            dev = pin && fovea_reader_hwdec(ci->r) == FOVEA_HWDEC_CUDA;
            st = cli_ring_open(&ci->ring, s->ctx, ci->r, PIPE_SLOTS, a->opt.frames,
                               dev   ? FOVEA_MEM_DEVICE
                               : pin ? FOVEA_MEM_PINNED
                                     : FOVEA_MEM_HOST,
                               1);
            if (st < 0 && pin) {
                st = cli_ring_open(&ci->ring, s->ctx, ci->r, PIPE_SLOTS, a->opt.frames,
                                   FOVEA_MEM_HOST, 1);
            }
        }
        /* (cur trades places with the ring's reads: the same memory) */
        if (st == FOVEA_OK && dev)
            st = fovea_frame_alloc(s->ctx, &ci->cur, ci->info.width, ci->info.height, s->stitch_fmt,
                                   FOVEA_MEM_DEVICE);
        else if (st == FOVEA_OK)
            st = stitch_alloc_frame(s, &ci->cur, ci->info.width, ci->info.height, s->stitch_fmt, 1);
        if (st < 0) {
            cli_error(cli_display_path(ci->path, 0), "cannot allocate %dx%d frames: %s",
                      ci->info.width, ci->info.height, fovea_strerror(st));
            return CLI_EXIT_RUNTIME;
        }
        s->in[c] = &ci->cur;
    }
    return CLI_EXIT_OK;
}

/* The reader's message without the "<path>: frame N: " that the caller adds back. */
static void set_reason(cam_input *ci, const char *msg)
{
    const char *shown = cli_display_path(ci->path, 0);
    size_t n = strlen(shown);
    if (strncmp(msg, shown, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ')
        msg += n + 2;
    if (strncmp(msg, "frame ", 6) == 0) {
        const char *p = msg + 6;
        while (*p >= '0' && *p <= '9')
            p++;
        if (p > msg + 6 && p[0] == ':' && p[1] == ' ')
            msg = p + 2;
    }
    snprintf(ci->reason, sizeof(ci->reason), "%s", *msg ? msg : "read error");
}

/* Camera ci's next read: its status, the frame (*f) and the reader's message. */
static int take_read(stitch_run *s, cam_input *ci, fovea_frame **f, const char **msg)
{
    if (!s->pipelined) {
        int st = fovea_reader_read(ci->r, &ci->raw);
        *f = &ci->raw;
        *msg = cli_last_error(s->ctx);
        return st;
    }
    return fovea_read_ring_take(ci->ring, f, msg);
}

/* The read taken last may be overwritten now. */
static void give_back_read(stitch_run *s, cam_input *ci)
{
    if (s->pipelined)
        fovea_read_ring_release(ci->ring);
}

/* Read one frame of camera ci. @return 1 fresh frame, 0 missing (reason set),
 * -1 fatal (reported). */
static int read_camera(stitch_run *s, cam_input *ci)
{
    if (ci->ended) {
        snprintf(ci->reason, sizeof(ci->reason), "end of input after %lld frame%s",
                 (long long)ci->frames_read, ci->frames_read == 1 ? "" : "s");
        return 0;
    }
    fovea_frame *raw;
    const char *msg;
    int st = take_read(s, ci, &raw, &msg);
    if (st == FOVEA_EOF) {
        give_back_read(s, ci);
        ci->ended = 1;
        snprintf(ci->reason, sizeof(ci->reason), "end of input after %lld frame%s",
                 (long long)ci->frames_read, ci->frames_read == 1 ? "" : "s");
        return 0;
    }
    if (st < 0) {
        set_reason(ci, msg);
        give_back_read(s, ci);
        return 0;
    }
    if (ci->convert) {
        st = fovea_frame_convert(s->ctx, &ci->cur, raw, &ci->copt);
        if (st < 0) {
            const char *detail = fovea_last_error(s->ctx);
            cli_error(cli_display_path(ci->path, 0), "frame %lld: cannot convert %s to %s: %s",
                      (long long)raw->index, fovea_pixfmt_name(raw->fmt),
                      fovea_pixfmt_name(ci->cur.fmt), *detail ? detail : fovea_strerror(st));
            give_back_read(s, ci);
            return -1;
        }
        ci->cur.index = raw->index;
    } else {
        /* the fresh frame becomes the current one; the reader gets the old buffer */
        fovea_frame t = ci->cur;
        ci->cur = *raw;
        *raw = t;
    }
    give_back_read(s, ci);
    ci->have = 1;
    ci->repeats = 0;
    ci->frames_read++;
    return 1;
}

/* One step: a frame from every camera, or a repeat of its last frame.
 * @return 1 ready to stitch, 0 normal end, or an exit status > 1 coded as -(status). */
int stitch_gather(stitch_run *s, int64_t step, int *exit_status)
{
    const stitch_args *a = &s->a;
    int got[FOVEA_STITCH_MAX_CAMERAS];
    int fresh = 0, failed = -1;
    for (int c = 0; c < a->n; c++) {
        got[c] = read_camera(s, &s->cam[c]);
        if (got[c] < 0) {
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        fresh += got[c];
        if (!got[c] && !s->cam[c].ended && failed < 0)
            failed = c;
    }
    if (fresh == 0) {
        /* nothing left anywhere: the end, unless a camera failed to read */
        if (failed < 0)
            return 0;
        cam_input *ci = &s->cam[failed];
        if (a->max_repeat == 0) {
            cli_error(cli_display_path(ci->path, 0), "frame %lld: %s", (long long)step, ci->reason);
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        cli_error(cli_display_path(ci->path, 0),
                  "warning: frame %lld missing (%s) and no other camera has one: ending",
                  (long long)step, ci->reason);
        return 0;
    }
    for (int c = 0; c < a->n; c++) {
        cam_input *ci = &s->cam[c];
        if (got[c])
            continue;
        const char *shown = cli_display_path(ci->path, 0);
        if (a->max_repeat == 0) {
            cli_error(shown, "frame %lld: %s%s", (long long)step, ci->reason,
                      ci->ended ? " while other cameras go on (see --missing)" : "");
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        if (!ci->have) {
            cli_error(shown, "frame %lld: %s (no earlier frame to repeat)", (long long)step,
                      ci->reason);
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        if (ci->repeats >= a->max_repeat) {
            cli_error(shown,
                      "frame %lld: %s, and frame %lld was already repeated %d time%s "
                      "(--missing repeat:%d)",
                      (long long)step, ci->reason, (long long)ci->cur.index, ci->repeats,
                      ci->repeats == 1 ? "" : "s", a->max_repeat);
            *exit_status = CLI_EXIT_RUNTIME;
            return -1;
        }
        ci->repeats++;
        ci->frames_repeated++;
        cli_error(shown, "frame %lld missing, repeating frame %lld (%d/%d): %s", (long long)step,
                  (long long)ci->cur.index, ci->repeats, a->max_repeat, ci->reason);
    }
    return 1;
}

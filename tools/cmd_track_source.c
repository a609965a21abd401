/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea track`: the frames' 8-bit luma, from a video read on a thread of its
 * own or from a list of images read in line, after --start. */
#include <stdlib.h>
#include <string.h>

#include "cmd_track.h"

/* ------------------------------------------------------------------ frames */

/* 8-bit luma of a host frame into a packed w x h buffer. */
static void frame_luma(const fovea_frame *f, unsigned char *out)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    for (int y = 0; y < f->height; y++) {
        const uint8_t *row = f->data[0] + (ptrdiff_t)y * f->stride[0];
        unsigned char *o = out + (size_t)y * f->width;
        if (d->is_rgb) {
            /* 16-bit RGB: the high byte of each little-endian sample, as v >> 8 below */
            const int bps = d->bytes_per_sample;
            for (int x = 0; x < f->width; x++) {
                const uint8_t *p = row + (size_t)x * d->components * bps + (bps - 1);
                o[x] = (unsigned char)((77 * p[0] + 150 * p[bps] + 29 * p[2 * bps] + 128) >> 8);
            }
        } else if (d->bytes_per_sample == 2) {
            for (int x = 0; x < f->width; x++) {
                int v = row[2 * x] | row[2 * x + 1] << 8;
                o[x] = (unsigned char)(v >> (d->bit_depth - 8));
            }
        } else {
            memcpy(o, row, (size_t)f->width);
        }
    }
}

/* A video after --start: the reads from here on, on a thread once started. */
static int source_open_video(source *s)
{
    const track_args *a = s->a;
    const fovea_video_info *info = fovea_reader_info(s->r);
    if (a->opt.start > 0) {
        int st = fovea_reader_skip(s->r, a->opt.start);
        if (st == FOVEA_EOF) {
            cli_error(cli_display_path(a->inputs[0], 0), "--start %lld: the input has fewer frames",
                      a->opt.start);
            return CLI_EXIT_RUNTIME;
        }
        if (st < 0)
            return cli_report(a->inputs[0], 0, fovea_last_error(cli_reader_context(&s->io)), st);
    }
    s->total = info->frame_count < 0              ? -1
               : info->frame_count > a->opt.start ? info->frame_count - a->opt.start
                                                  : 0;
    /* the tracker takes 8-bit host lumas (made on the host, as the overlay's
     * colors): NVDEC's frames are downloaded once, into pinned frames */
    const int nv = fovea_reader_hwdec(s->r) == FOVEA_HWDEC_CUDA;
    int st = cli_ring_open(&s->ring, nv ? s->hw_ctx : NULL, s->r, PIPE_SLOTS, a->opt.frames,
                           nv ? FOVEA_MEM_PINNED : FOVEA_MEM_HOST, 0);
    if (st < 0) {
        cli_error(cli_display_path(a->inputs[0], 0), "cannot allocate %dx%d frames: %s",
                  info->width, info->height, fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

/* The context a media input decodes on with NVDEC: one of --backend (the
 * tracker's context is a CPU one), opened only for an input FFmpeg may read
 * and a mode that may take NVDEC; on a CPU context auto decodes on the CPU
 * and cuda is refused by the reader, naming the reason. */
static int open_hw_context(source *s, const char *path)
{
    const fovea_container c = cli_container_for(path, s->a->in.container);
    if (s->a->in.hwdec == FOVEA_HWDEC_NONE || !fovea_cuda_compiled() ||
        (c != FOVEA_CONTAINER_MEDIA && c != FOVEA_CONTAINER_AUTO))
        return CLI_EXIT_OK;
    if (s->a->in.hwdec == FOVEA_HWDEC_AUTO && s->a->opt.backend == FOVEA_BACKEND_CPU)
        return CLI_EXIT_OK;
    const int rc = cli_open_context(&s->hw_ctx, &s->a->opt, CLI_CONTEXT_MSG_PLAIN);
    if (rc != CLI_EXIT_OK)
        return rc;
    s->io.ctx = s->hw_ctx;
    return CLI_EXIT_OK;
}

/* Open the first input to track (after --start) and learn the frame size. */
int track_source_open(source *s, const track_args *a)
{
    memset(s, 0, sizeof(*s));
    s->a = a;
    int first = 0;
    if (a->ninputs > 1 && a->opt.start > 0) {
        if (a->opt.start >= a->ninputs) {
            cli_error(NULL, "--start %lld: the list has %d image%s: no frames left", a->opt.start,
                      a->ninputs, a->ninputs == 1 ? "" : "s");
            return CLI_EXIT_RUNTIME;
        }
        first = (int)a->opt.start;
    }
    s->io = a->in;
    int rc = open_hw_context(s, a->inputs[first]);
    if (rc != CLI_EXIT_OK)
        return rc;
    rc = cli_open_reader(track_spec.name, a->inputs[first], &s->io, &s->r);
    if (rc != CLI_EXIT_OK)
        return rc;
    /* the reader's container: an input without extension is known by its
     * content; an image sequence (a frame-number pattern) is read as a video */
    fovea_container c = fovea_reader_container(s->r);
    s->sequence = a->ninputs == 1 && !a->have_glob && cli_is_pattern(a->inputs[first], c);
    s->video = c == FOVEA_CONTAINER_Y4M || c == FOVEA_CONTAINER_YUV || c == FOVEA_CONTAINER_MEDIA ||
               s->sequence;
    if (s->video && a->ninputs > 1)
        return cli_usage_error(track_spec.name, "%s: a video input must be the only INPUT",
                               a->inputs[first]);
    const fovea_video_info *info = fovea_reader_info(s->r);
    s->width = info->width;
    s->height = info->height;
    s->next = first + 1;
    if (s->video) {
        if ((rc = source_open_video(s)) != CLI_EXIT_OK)
            return rc;
    } else {
        s->total = a->ninputs - first;
    }
    if (a->opt.frames >= 0 && (s->total < 0 || a->opt.frames < s->total))
        s->total = a->opt.frames;
    return CLI_EXIT_OK;
}

/* Read the next frame's luma. @return CLI_EXIT_OK, -1 at the end,
 * SOURCE_FAILED, or an exit status (reported). */
int track_source_next(source *s, unsigned char *luma)
{
    if (!s->r) {
        if (s->video || s->next >= s->a->ninputs)
            return -1;
        int rc = cli_open_reader(track_spec.name, s->a->inputs[s->next], &s->io, &s->r);
        if (rc != CLI_EXIT_OK)
            return rc;
        s->next++;
        fovea_frame_free(NULL, &s->frame);
    }
    const char *path = s->video ? s->a->inputs[0] : s->a->inputs[s->next - 1];
    const fovea_frame *f = &s->frame;
    const char *msg;
    int st;
    if (s->video) {
        fovea_frame *rf;
        st = fovea_read_ring_take(s->ring, &rf, &msg);
        f = rf;
    } else {
        st = fovea_reader_read(s->r, &s->frame);
        msg = fovea_last_error(cli_reader_context(&s->io));
    }
    if (st == FOVEA_EOF) {
        if (s->video)
            return -1; /* (the ring's reader stays open) */
        fovea_reader_close(&s->r);
        cli_error(path, "no image in the file");
        return CLI_EXIT_RUNTIME;
    }
    if (st < 0 && s->video) {
        s->status = st;
        snprintf(s->why, sizeof(s->why), "%s", msg);
        return SOURCE_FAILED;
    }
    if (st < 0)
        return cli_report(path, 0, msg, st);
    if (f->width != s->width || f->height != s->height) {
        cli_error(path, "frame is %dx%d, the first frame %dx%d", f->width, f->height, s->width,
                  s->height);
        return CLI_EXIT_RUNTIME;
    }
    frame_luma(f, luma);
    /* the overlay is drawn over the frame's colors; gray stays its 8-bit luma */
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    s->colored = s->color && (d->is_rgb || d->planes > 1);
    int cst = FOVEA_OK;
    if (s->colored) {
        fovea_convert_options co;
        fovea_convert_options_init(&co);
        cst = fovea_frame_convert(NULL, s->color, f, &co);
    }
    if (s->video)
        fovea_read_ring_release(s->ring);
    else
        fovea_reader_close(&s->r);
    if (cst < 0) {
        cli_error(path, "cannot convert the frame for the overlay: %s", fovea_strerror(cst));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

void track_source_close(source *s)
{
    fovea_read_ring_close(&s->ring); /* (closed already after a run) before its reader goes */
    fovea_reader_close(&s->r);
    fovea_frame_free(NULL, &s->frame);
    fovea_close(&s->hw_ctx);
}

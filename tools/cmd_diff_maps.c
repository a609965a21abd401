/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea diff`: the maps of each pair of consecutive frames, made from one
 * fovea_diff_compute and handed to the outputs' writers. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_diff.h"

/* ------------------------------------------------------------------ the maps */

/* The mask result as an image, one pixel per tile. */
static void mask_image(const fovea_diff_mask_result *m, fovea_frame *f)
{
    for (int y = 0; y < m->tiles_y; y++) {
        uint8_t *row = f->data[0] + (ptrdiff_t)y * f->stride[0];
        const uint8_t *c = m->changed + (size_t)y * (size_t)m->tiles_x;
        for (int x = 0; x < m->tiles_x; x++)
            row[x] = c[x] ? 255 : 0;
    }
}

/* Map `i` of prev -> cur: every wanted output from one fovea_diff_compute,
 * then to the writers. @return CLI_EXIT_OK or the exit code, the error printed */
static int make_map(diff_run *s, int64_t i, const fovea_frame *prev, const fovea_frame *cur)
{
    if (s->n == s->cap) {
        const int64_t ncap = s->cap ? 2 * s->cap : 256;
        diff_stat *p = realloc(s->stats, (size_t)ncap * sizeof(*p));
        if (!p) {
            cli_error(NULL, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
        s->stats = p;
        s->cap = ncap;
    }
    fovea_diff_mask_result m;
    double sigma = NAN;
    fovea_diff_outputs outs;
    memset(&outs, 0, sizeof(outs));
    outs.mask = &m;
    if (s->want_sigma)
        outs.sigma = &sigma;
    if (s->out[OUT_HEAT].path)
        outs.heatmap = &s->out[OUT_HEAT].buf[0];
    if (s->out[OUT_NOISE].path)
        outs.noise = &s->out[OUT_NOISE].buf[0];
    int st = fovea_diff_compute(s->d, prev, cur, &outs);
    if (st < 0) {
        cli_error(cli_display_path(s->a.input, 0), "frames %lld and %lld: %s", (long long)i,
                  (long long)i + 1, fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    diff_stat *ds = &s->stats[s->n++];
    ds->changed_pixels = m.changed_pixels;
    ds->changed_tiles = m.changed_tiles;
    ds->diff_sum = m.diff_sum;
    ds->diff_max = m.diff_max;
    ds->threshold = m.threshold;
    ds->sigma = sigma;
    if (s->out[OUT_MASK].path)
        mask_image(&m, &s->out[OUT_MASK].buf[0]);
    for (int k = 0; k < N_OUT; k++) {
        diff_output *o = &s->out[k];
        if (!o->path)
            continue;
        int which = 0;
        o->buf[0].index = i;
        if (o->write_fmt != o->map_fmt) {
            st = fovea_frame_convert(s->ctx, &o->buf[1], &o->buf[0], &s->co);
            if (st < 0) {
                cli_error(cli_display_path(o->path, 1), "map %lld: cannot convert %s to %s: %s",
                          (long long)i, fovea_pixfmt_name(o->map_fmt),
                          fovea_pixfmt_name(o->write_fmt), fovea_last_error(s->ctx));
                return CLI_EXIT_RUNTIME;
            }
            o->buf[1].index = i;
            which = 1;
        }
        fovea_frame *bufs[2] = {&o->buf[0], &o->buf[1]};
        st = cli_pipe_put(&o->pipe, bufs, which);
        if (st < 0)
            return diff_write_failure(o, st);
    }
    return CLI_EXIT_OK;
}

/* On the device path, queue frame k's copy into dev[k % 2] (on the context's
 * stream: the map calls that read it come after it, and the copy of frame
 * k + 2 into the same buffer after them). @return CLI_EXIT_OK or the exit code */
static int to_device(diff_run *s, int64_t k, fovea_frame **f)
{
    if (!s->on_device)
        return CLI_EXIT_OK;
    fovea_frame *d = &s->dev[k & 1];
    const int st = fovea_frame_copy(s->ctx, d, *f);
    if (st < 0) {
        cli_error(cli_display_path(s->a.input, 0), "frame %lld: cannot copy it to the device: %s",
                  (long long)k, fovea_last_error(s->ctx));
        return CLI_EXIT_RUNTIME;
    }
    *f = d;
    return CLI_EXIT_OK;
}

/* Read the frames in order and make a map of each consecutive pair; the
 * previous frame's slot is handed back once the next map is made (the map
 * calls wait for their host outputs, so a copy to the device from that slot
 * is done by then too). */
int diff_run_maps(diff_run *s)
{
    const char *in = s->a.input;
    fovea_frame *prev = NULL, *cur = NULL;
    const char *msg = "";
    int st = fovea_read_ring_take(s->ring, &prev, &msg);
    if (st == FOVEA_EOF) {
        cli_error(cli_display_path(in, 0), "no frames in the input: nothing to difference");
        return CLI_EXIT_RUNTIME;
    }
    if (st < 0)
        return cli_report(in, 0, msg, st);
    if (to_device(s, 0, &prev) != CLI_EXIT_OK)
        return CLI_EXIT_RUNTIME;
    for (int64_t i = 0;; i++) {
        st = fovea_read_ring_take(s->ring, &cur, &msg);
        if (st == FOVEA_EOF) {
            if (i == 0) {
                cli_progress_finish(&s->prog);
                cli_error(cli_display_path(in, 0), "one frame: diff needs at least 2 frames");
                return CLI_EXIT_RUNTIME;
            }
            return CLI_EXIT_OK;
        }
        if (st < 0) {
            cli_progress_finish(&s->prog);
            return cli_report(in, 0, msg, st);
        }
        int rc = to_device(s, i + 1, &cur);
        if (rc == CLI_EXIT_OK)
            rc = make_map(s, i, prev, cur);
        if (rc != CLI_EXIT_OK) {
            cli_progress_finish(&s->prog);
            return rc;
        }
        fovea_read_ring_release(s->ring); /* prev */
        prev = cur;
        cli_progress_update(&s->prog, s->n);
    }
}

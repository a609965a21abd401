/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea diff`: the input: opened and checked before any output is (among
 * the checks, no output may write over a file of an image-sequence input),
 * then read on a thread of its own. */
#include <stdlib.h>
#include <string.h>

#include "cmd_diff.h"

/* The container an output is written as: by its extension, y4m otherwise. */
fovea_container diff_out_container(const char *path)
{
    const fovea_container c = fovea_container_from_path(path);
    return c == FOVEA_CONTAINER_AUTO ? FOVEA_CONTAINER_Y4M : c;
}

/* Refuse (exit 2) an output that would write over a file of an image-sequence
 * input: every name an output can take (a single name, or a pattern's names
 * for maps 0..nmaps-1) against every file of the input. The library refuses
 * a single input per pattern output (fovea_writer_protect); a sequence is
 * checked here, before anything is opened for writing. */
static int refuse_sequence_outputs(const diff_args *a, int64_t nfiles, int64_t nmaps)
{
    const char *names[N_OUT + 2] = {a->out[0], a->out[1], a->out[2], a->opt.json, a->plot};
    int pat[N_OUT + 2] = {0};
    for (int k = 0; k < N_OUT; k++)
        pat[k] = names[k] && cli_is_pattern(names[k], diff_out_container(names[k]));
    return cli_refuse_sequence_outputs(a->input, nfiles, names, pat, N_OUT + 2, nmaps);
}

/* Open the input and refuse what cannot be differenced before any output is
 * opened. @return CLI_EXIT_OK or the exit code, the error printed */
int diff_open_input(diff_run *s)
{
    const diff_args *a = &s->a;
    int rc = cli_open_reader(diff_spec.name, a->input, &a->in, &s->r);
    if (rc != CLI_EXIT_OK)
        return rc;
    s->info = *fovea_reader_info(s->r);
    const fovea_video_info *in = &s->info;
    const char *shown = cli_display_path(a->input, 0);
    if (in->frame_count == 0) {
        cli_error(shown, "no frames in the input: nothing to difference");
        return CLI_EXIT_RUNTIME;
    }
    if (in->frame_count == 1) {
        cli_error(shown, "one frame: diff needs at least 2 frames");
        return CLI_EXIT_RUNTIME;
    }
    if (a->out[OUT_NOISE] && a->set.noise_mode == FOVEA_DIFF_NOISE_OVERLAY &&
        in->fmt != FOVEA_PIX_RGB24 && in->fmt != FOVEA_PIX_RGBA && in->fmt != FOVEA_PIX_I420) {
        cli_error(shown,
                  "%s: --noise-mode overlay paints over the input frames, which must be "
                  "rgb24, rgba or i420",
                  fovea_pixfmt_name(in->fmt));
        return CLI_EXIT_RUNTIME;
    }
    s->tiles_x = (in->width + a->set.tile - 1) / a->set.tile;
    s->tiles_y = (in->height + a->set.tile - 1) / a->set.tile;
    s->tiles = (int64_t)s->tiles_x * s->tiles_y;
    const fovea_container ic = fovea_reader_container(s->r);
    if (strcmp(a->input, "-") != 0 && cli_is_pattern(a->input, ic)) {
        int64_t maps = in->frame_count - 1;
        if (a->opt.frames >= 0 && a->opt.frames < maps)
            maps = a->opt.frames;
        return refuse_sequence_outputs(a, in->frame_count, maps);
    }
    return CLI_EXIT_OK;
}

int diff_start_reader(diff_run *s)
{
    const int64_t limit = s->a.opt.frames >= 0 ? s->a.opt.frames + 1 : -1;
    int st = cli_ring_open(&s->ring, s->ctx, s->r, READ_SLOTS, limit, s->in_mem, 0);
    if (st < 0 && s->in_mem != FOVEA_MEM_HOST)
        st = cli_ring_open(&s->ring, s->ctx, s->r, READ_SLOTS, limit, FOVEA_MEM_HOST, 0);
    if (st < 0) {
        cli_error(NULL, "cannot allocate %d input frames: %s", READ_SLOTS, fovea_strerror(st));
        return CLI_EXIT_RUNTIME;
    }
    if (fovea_read_ring_start(s->ring) != FOVEA_OK) {
        cli_error(NULL, "cannot start a reader thread");
        return CLI_EXIT_RUNTIME;
    }
    s->ring_started = 1;
    return CLI_EXIT_OK;
}

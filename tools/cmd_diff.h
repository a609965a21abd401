/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea diff`'s run, shared by its units: cmd_diff.c (options, the
 * differencer and the run), cmd_diff_input.c (the input, checked, and its
 * reader thread), cmd_diff_maps.c (the maps of each pair of frames) and
 * cmd_diff_output.c (each output's writer, the JSON, the chart, the summary). */
#ifndef FOVEA_TOOLS_CMD_DIFF_H
#define FOVEA_TOOLS_CMD_DIFF_H

#include "cli.h"
#include "fovea/convert.h"
#include "fovea/diff.h"

extern const cli_spec diff_spec;

enum { OUT_HEAT, OUT_NOISE, OUT_MASK, N_OUT };

typedef struct diff_args {
    cli_common_opts opt; /* frames: maps */
    cli_input_opts in;
    const char *input;
    const char *out[N_OUT];
    fovea_diff_settings set;
    const char *plot;
} diff_args;

#define PIPE_SLOTS 4
#define READ_SLOTS 6

/* One requested output: its writer on a thread of its own (a cli_pipe without
 * readers) and the frames the maps are made in. */
typedef struct diff_output {
    const char *path;
    fovea_container container;
    int width, height;
    fovea_pixfmt map_fmt;   /* what fovea_diff_compute writes (the mask: gray8) */
    fovea_pixfmt write_fmt; /* what the writer takes */
    fovea_writer *w;
    cli_pipe pipe;
    fovea_frame buf[2]; /* [0] the map, [1] converted for the writer */
} diff_output;

/* The numbers of one map. */
typedef struct diff_stat {
    int64_t changed_pixels, changed_tiles, diff_sum;
    int diff_max, threshold;
    double sigma;
} diff_stat;

typedef struct diff_run {
    diff_args a;
    fovea_reader *r;
    fovea_video_info info;
    int64_t tiles; /* per map */
    int tiles_x, tiles_y;
    fovea_context *ctx;
    fovea_diff *d;
    fovea_memtype mem;    /* of the frames the differencer reads and writes */
    fovea_memtype in_mem; /* of the reads: mem, or DEVICE for NVDEC's frames */
    fovea_convert_options co;
    diff_output out[N_OUT];
    fovea_read_ring *ring;
    int ring_started;
    /* CUDA backend: each frame goes to the device once (frame k into dev[k % 2])
       and the maps are made from there, instead of both frames of every pair
       crossing the bus */
    fovea_frame dev[2];
    int on_device;
    diff_stat *stats;
    int64_t n, cap; /* maps made */
    int want_sigma;
    int rate_said; /* the assumed frame rate of y4m outputs was said */
    cli_progress prog;
} diff_run;

/* ---- cmd_diff_input.c */

fovea_container diff_out_container(const char *path);
int diff_open_input(diff_run *s);
int diff_start_reader(diff_run *s);

/* ---- cmd_diff_maps.c */

int diff_run_maps(diff_run *s);

/* ---- cmd_diff_output.c */

int diff_open_output(diff_run *s, int k);
int diff_write_failure(diff_output *o, int st);
int diff_finish_outputs(diff_run *s, int rc);
int diff_write_reports(diff_run *s, double secs);

#endif

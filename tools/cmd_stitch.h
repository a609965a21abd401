/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea stitch`'s run, shared by its units: cmd_stitch.c (options, setup and
 * the loop), cmd_stitch_input.c (the inputs, one frame per camera and step) and
 * cmd_stitch_output.c (the panorama's writer and the reports). */
#ifndef FOVEA_TOOLS_CMD_STITCH_H
#define FOVEA_TOOLS_CMD_STITCH_H

#include "cli.h"
#include "fovea/convert.h"
#include "fovea/stitch.h"

extern const cli_spec stitch_spec;

enum { COLOR_ARG_AUTO, COLOR_ARG_OFF, COLOR_ARG_FIXED };

typedef struct stitch_args {
    cli_common_opts opt;
    const char *rig, *map, *out;
    const char *pto;               /* --pto: a Hugin project instead of a rig */
    fovea_container out_container; /* --out-format, else from the name */
    int color;                     /* COLOR_ARG_* */
    const char *color_file;
    int interval;
    double smoothing;
    int blend, blend_levels, seam, seam_interval; /* fovea_stitcher_settings' */
    int ignore_photometric;                       /* --photometric off */
    int deterministic;
    int print_color;
    int max_repeat;              /* --missing repeat:N; 0 = error */
    fovea_colorspace colorspace; /* --colorspace */
    int range;                   /* --range: FOVEA_COLOR_RANGE_* (UNKNOWN = auto) */
    cli_input_opts in;
    char **inputs;
    int n;
} stitch_args;

/* Video runs read every camera on a thread of its own (fovea_read_ring) and write
 * the panorama on another, so that reading, stitching and writing overlap (in
 * a row, with two 3840x2160 cameras on the GPU machine: reading 4-6 ms,
 * stitching with its copies 1.2-1.5 ms, writing 9-10 ms per frame; 49-51
 * frames/s). The main thread takes each camera's reads in order, one per
 * step, as the sequential loop did (same errors, same repeats), and releases
 * each at once: a good frame's buffer is first swapped with the camera's
 * current one (no copy), whose buffer the stitcher has finished with
 * (fovea_stitcher_process waits for its frames). */
#define PIPE_SLOTS 3

typedef struct cam_input {
    const char *path;
    fovea_reader *r;
    fovea_video_info info;
    int convert; /* the reader's format is not the stitch format */
    fovea_convert_options copt;
    fovea_frame raw; /* read target (stills; video reads into ring) */
    fovea_frame cur; /* what the stitcher gets: the last good frame */
    int have;        /* cur holds a good frame */
    int ended;       /* the reader reached its end */
    int repeats;     /* consecutive repeated frames */
    int64_t frames_read, frames_repeated;
    char reason[1024];     /* why this step's frame is missing */
    fovea_read_ring *ring; /* video: the reader thread and its frames */
} cam_input;

typedef struct stitch_run {
    stitch_args a;
    fovea_context *ctx;
    fovea_stitch_map *map;
    fovea_stitcher *st;
    fovea_writer *w;
    cam_input cam[FOVEA_STITCH_MAX_CAMERAS];
    const fovea_frame *in[FOVEA_STITCH_MAX_CAMERAS];
    fovea_frame out;  /* stitcher output */
    fovea_frame wout; /* converted for the writer when its format differs */
    fovea_pixfmt stitch_fmt, out_fmt, write_fmt;
    fovea_container out_container;
    int full_range;                 /* YUV video: full range (--range, or the inputs' tag) */
    const char *range_from;         /* "option", "XCOLORRANGE" or "default" */
    fovea_convert_options out_copt; /* the panorama's conversion for the writer */
    int still;                      /* every input is a still image */
    int pano_w, pano_h;
    int64_t total; /* frames expected, -1 unknown */
    int64_t done;
    /* pipeline (video; see PIPE_SLOTS): the cameras' readers and the writer thread */
    int pipelined;
    cli_pipe pipe;
    fovea_read_ring **rings[FOVEA_STITCH_MAX_CAMERAS]; /* &cam[c].ring */
} stitch_run;

/* ---- cmd_stitch_input.c */

int stitch_alloc_frame(stitch_run *s, fovea_frame *f, int w, int h, fovea_pixfmt fmt,
                       int pinned_if_cuda);
/* The --color fixed:FILE corrections of n cameras. @return CLI_EXIT_OK or the exit code */
int stitch_load_color_file(const char *path, int n, fovea_color_correction *cc);
/* Open every camera's input and check it against the map.
 * @return CLI_EXIT_OK or the exit code */
int stitch_open_inputs(stitch_run *s);
int stitch_gather(stitch_run *s, int64_t step, int *exit_status);

/* ---- cmd_stitch_output.c */

int stitch_open_output(stitch_run *s);
int stitch_write_frame(stitch_run *s, int64_t step);
int stitch_pipeline_start(stitch_run *s);
int stitch_pipeline_finish(stitch_run *s, int rc);
void stitch_print_colors(const stitch_run *s, const fovea_color_correction *cc);
int stitch_write_summary(const stitch_run *s, const fovea_color_correction *cc,
                         double setup_seconds, double seconds);

#endif

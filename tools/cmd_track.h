/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea track`'s run, shared by its units: cmd_track.c (options, the
 * tracker and the loop), cmd_track_source.c (the frames' luma from a video or
 * a list of images) and cmd_track_output.c (the overlay, the feature table,
 * the JSON and the summary). */
#ifndef FOVEA_TOOLS_CMD_TRACK_H
#define FOVEA_TOOLS_CMD_TRACK_H

#include <glob.h>

#include "cli.h"
#include "fovea/convert.h"
#include "fovea/klt.h"

extern const cli_spec track_spec;

#define MAX_TRAIL 64

typedef struct track_args {
    cli_common_opts opt; /* backend: the tracker's (the context is CPU-only) */
    cli_input_opts in;
    int nfeatures, replace, window, mindist, levels, subsampling, sequential, affine;
    const char *output, *format, *overlay;
    int trail;
    char **inputs;
    int ninputs;
    glob_t g;
    int have_glob;
} track_args;

/* A video is read on a thread of its own (fovea_read_ring) and its overlay written
 * on another (cli_pipe), so that reading, tracking and writing overlap; a
 * list of images is read and its overlay written in line, as stitch does
 * with stills. */
#define PIPE_SLOTS 3

/* track_source_next's return when a video read failed: not yet reported (the
 * overlay frames before it are written first, see track_writes_before). */
#define SOURCE_FAILED (-2)

typedef struct source {
    const track_args *a;
    cli_input_opts io;     /* a->in, with the context NVDEC decodes on */
    fovea_context *hw_ctx; /* that context: a media input on a CUDA machine, else NULL */
    fovea_reader *r;       /* the open reader (the video, or the current image) */
    int next;              /* next image index */
    int video;
    int sequence;          /* the video is an image sequence (a frame-number pattern) */
    fovea_frame frame;     /* an image's */
    fovea_read_ring *ring; /* a video's reads */
    int status;            /* SOURCE_FAILED: the read's status and message */
    char why[1024];
    int width, height;
    int64_t total;
    fovea_frame *color; /* where the overlay wants the frame's colors (rgb24), or NULL */
    int colored;        /* color holds the last frame's colors (it has color) */
} source;

typedef struct trail {
    float x[MAX_TRAIL], y[MAX_TRAIL];
    int n;        /* points held (newest last) */
    int lost_now; /* lost in the current frame: draw its last point in red */
} trail;

typedef struct history {
    KLT_FeatureRec *rec; /* frames x nfeatures (x, y, val only) */
    int frames, cap, nfeat;
} history;

typedef struct track_run {
    track_args a;
    source src;
    fovea_context *ctx;
    KLT_TrackingContext tc;
    KLT_FeatureList fl;
    unsigned char *prev, *cur; /* the lumas of the last frame and of this one */
    trail *trails;
    history hist;
    fovea_writer *ow;      /* the overlay */
    fovea_frame rgb, conv; /* the overlay drawn; converted for the writer */
    fovea_frame color;     /* the input frame's colors under the overlay */
    int pipelined;         /* a video: its reads and the overlay on threads */
    cli_pipe pipe;
    fovea_read_ring **rings[1]; /* &src.ring */
    cli_progress prog;
    int frames; /* frames tracked */
} track_run;

/* ---- cmd_track_source.c */

int track_source_open(source *s, const track_args *a);
int track_source_next(source *s, unsigned char *luma);
void track_source_close(source *s);

/* ---- cmd_track_output.c */

int track_history_add(history *h, KLT_FeatureList fl);
int track_open_overlay(track_run *t);
int track_writes_before(track_run *t);
int track_write_overlay(track_run *t, int i);
int track_finish_outputs(track_run *t, double t0);

#endif

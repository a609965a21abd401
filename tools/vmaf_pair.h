/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The units of `fovea vmaf` (and of `fovea vif`, the feature list "vif"
 * through the same pipeline): the command's arguments, the models, one pair
 * scored on a context (vmaf_pair.c, shared by the single-pair run and every
 * batch worker, so both give the same numbers), and the manifest mode
 * (vmaf_batch.c). */
#ifndef FOVEA_TOOLS_VMAF_PAIR_H
#define FOVEA_TOOLS_VMAF_PAIR_H

#include "fovea/quality.h"
#include "score.h"
#include "vmaf_sched.h"

typedef struct vmaf_args {
    cli_common_opts opt; /* --backend, --threads, --frames, --start, --quiet, --json */
    cli_input_opts in;
    int subsample;                   /* --subsample N; 0 = every frame */
    const char *ref_flag, *dis_flag; /* -r/--reference, -d/--distorted */
    const char *model;               /* the first --model; NULL: --feature-only features alone */
    int model_given;
    const char *more_models[7]; /* the other --model (one pair only) */
    int n_more_models;
    char features[1024]; /* the --feature list as settings.features; "" = none */
    const char *csv, *plot;
    int feature_only;
    const char *manifest, *json_lines;
    int64_t shard_index, shard_count;
    int shard_given;
    int devices[SCHED_MAX_DEVICES], ndevices;
    int jobs;
    const char *ref_path, *dis_path;
    score_outputs *outs; /* a single pair's, opened before the scoring */
} vmaf_args;

/* The name a model is shown by: the version, or the file as given. */
const char *vmaf_model_label(const char *spec_);

/* Load "FILE", a built-in name, or libvmaf's model parameters
 * ("version=NAME|path=FILE[:name=N][:enable_transform][:disable_clip]
 * [:feature.option=value]..."). @return a fovea status, the message in err */
int vmaf_load_model(const char *spec_, fovea_vmaf_model **m, char *err, size_t errsz);

#define NAME_LEN 96

/* One pair scored on a context: what it needs, and what it gives back. The
 * single-pair command and every batch worker run it, so both give the same
 * numbers. */
typedef struct pair_job {
    const char *ref, *dis;
    const cli_input_opts *io;
    int64_t start;  /* pairs skipped first (--start) */
    int64_t frames; /* pairs read at most after them, -1 = all */
    int subsample;  /* score every Nth pair read (--subsample); 0 or 1 = all */
    const fovea_vmaf_model *model;
    const fovea_vmaf_model *const *more_models; /* settings.models */
    int n_more_models;
    int feature_only;     /* the model's features, not its score */
    const char *features; /* a feature list (settings.features), or NULL */
    int flags;            /* more FOVEA_VMAF_* flags */
    const char *metric;   /* what the input messages name; NULL: "VMAF" */
    fovea_context *ctx;
    size_t ring_bytes;
    int keep_frames;    /* keep the per-frame values (in vm) */
    cli_progress *prog; /* NULL: no progress */
    int quiet;
    void (*warn)(struct pair_job *j, const char *msg);

    fovea_video_info info;
    int bit_depth;
    int nmetrics;
    char names[FOVEA_VMAF_MAX_METRICS][NAME_LEN];
    const char *name_ptr[FOVEA_VMAF_MAX_METRICS];
    fovea_vmaf *vm; /* with keep_frames: the scorer, its frames kept */
    int64_t n;      /* pairs scored */
    int64_t read;   /* pairs read (n of them scored, with subsample) */
    score_pool pool[FOVEA_VMAF_MAX_METRICS];
    double secs;
    const char *backend;
    int threads;
    int rc; /* CLI_EXIT_* */
    char err[2048];
    char warnings[1024]; /* batch: the warnings, "; " between */
} pair_job;

/* Score the pair of j on j->ctx: j->rc and j->err say how it went; with
 * keep_frames, j->vm is the scorer with every frame kept (closed by the
 * caller). */
void vmaf_pair_score(pair_job *j);

/* The metric that is the score: "vmaf" or, for a model named otherwise, the
 * last one; -1 with --feature-only or a feature list. */
int vmaf_pair_score_index(const pair_job *j);

/* ------------------------------------------------------------------ single pair */

/* The options vmaf and vif share beside the common ones: libvmaf's -r/-d
 * spellings of REF and DIS, and --subsample. */
enum { VMAF_OPT_REFERENCE = 0x3000, VMAF_OPT_DISTORTED, VMAF_OPT_SUBSAMPLE };

#define VMAF_PAIR_OPTIONS                                                                          \
    {"reference", 'r',                                                                             \
     "FILE",      "the reference, instead of the REF argument (libvmaf's spelling)",               \
     "none",      VMAF_OPT_REFERENCE},                                                             \
        {"distorted", 'd',                                                                         \
         "FILE",      "the distorted video, instead of the DIS argument (libvmaf's spelling)",     \
         "none",      VMAF_OPT_DISTORTED},                                                         \
        CLI_OPTION_START("skip the first N frame pairs of both inputs (frame numbers start "       \
                         "at 0 after them; motion starts at 0)"),                                  \
    {                                                                                              \
        "subsample", 0, "N",                                                                       \
            "score every Nth frame pair read: frames 0, N, 2N, ..., as libvmaf's --subsample "     \
            "(motion still compares consecutive frames)",                                          \
            "1 (every frame)", VMAF_OPT_SUBSAMPLE                                                  \
    }

/* One of VMAF_PAIR_OPTIONS into *subsample, *ref or *dis. @return 1 when
 * handled, 0 when id is not one of them, -1 after a usage error (printed) */
int vmaf_pair_option(const char *cmd, int id, const char *v, int *subsample, const char **ref,
                     const char **dis);

/* The files of a single-pair command: REF and DIS as arguments, or as
 * ref_flag and dis_flag (-r/-d, NULL when not given: not with arguments)
 * (alt: what the usage error offers instead of them, "" for nothing), not
 * both stdin, the model
 * (its --model value, NULL for none: a built-in one reads no file), and the
 * outputs (json, csv, plot; NULL when not given): not stdout twice, no two
 * the same file, none an input (cli_files), checked before anything is
 * opened for writing. in: the input options (a sequence's files).
 * @return CLI_EXIT_OK (*ref, *dis set) or CLI_EXIT_USAGE (printed) */
int vmaf_pair_args(const char *cmd, const char *alt, char **rest, int nrest, const char *ref_flag,
                   const char *dis_flag, const cli_input_opts *in, const char *model,
                   const char *json, const char *csv, const char *plot, const char **ref,
                   const char **dis);

/* The file a --model value reads (FILE or path=FILE), or NULL (version=NAME). */
const char *vmaf_model_file(const char *spec_);

/* What a single-pair command does once its arguments are parsed: j (the
 * caller's, zeroed, with ref, dis and what is scored set: model or features)
 * scored on a context of o's --backend and --threads (library warnings on
 * stderr) with progress and every frame kept; a failure printed (a usage
 * error naming cmd), else results(args, j) writes the outputs and the
 * summary. j's scorer is closed, j itself is the caller's to free.
 * @return the exit status */
int vmaf_pair_run(const char *cmd, const cli_common_opts *o, const cli_input_opts *in, pair_job *j,
                  int (*results)(const void *args, const pair_job *j), const void *args);

/* `fovea vmaf --manifest`: every pair of the manifest (or of its shard). */
int vmaf_run_batch(const vmaf_args *a);

#endif

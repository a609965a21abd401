/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The state of a fovea_vmaf, shared by the units of the compositor: vmaf.c
 * (models, plan, lifecycle), vmaf_stream.c (submit/receive, derivation,
 * pooling) and vmaf_write.c (libvmaf's output formats). */
#ifndef FOVEA_QUALITY_VMAF_CONTEXT_H
#define FOVEA_QUALITY_VMAF_CONTEXT_H

#include "quality/model.h"
#include "quality/vmaf_internal.h"

struct fovea_vmaf_model {
    vmaf_model *m;
};

/* Longest metric name: the motion SAD's with every option suffix. */
#define VMAF_NAME_LEN 160

/* Most models one context scores, and most scores (SVRs) in all. */
#define VMAF_MAX_MODELS 8
#define VMAF_MAX_SCORERS 96

/* One SVR scored per frame: a model, or a sub-model of a collection. */
typedef struct vmaf_scorer {
    const vmaf_model *m;
    int metric;                               /* its score's metric */
    int feat_ex[VMAF_MODEL_MAX_FEATURES];     /* model feature -> instance */
    int feat_metric[VMAF_MODEL_MAX_FEATURES]; /* model feature -> metric */
    int boot;                                 /* its collection in boot[], or -1 */
} vmaf_scorer;

/* A bootstrap collection's statistics (vmaf_model_bootstrap). */
typedef struct vmaf_boot {
    const vmaf_model *m;
    int first, n; /* its sub-models' scorers */
    int metric;   /* <name>_bagging; _stddev, _ci_p95_lo, _ci_p95_hi follow */
} vmaf_boot;

/* One submitted pair until its scores are received. */
typedef struct vmaf_entry {
    int64_t frame;          /* number of the pair since open or reset */
    int64_t index;          /* its index in its stream */
    int width, height, bpc; /* its size (the derivations use it) */
    int chroma;             /* its chroma format: 400, 420, 422 or 444 */
    int last;               /* the stream was flushed after it */
    int have_raw;           /* raw filled (otherwise still inside the driver) */
    vmaf_raw raw;
} vmaf_entry;

struct fovea_vmaf {
    fovea_context *ctx;
    fovea_vmaf_settings set;     /* features points to the copy below */
    char *features;              /* settings.features, copied */
    fovea_vmaf_model *own_model; /* the built-in model when settings has none */
    int n_models;                /* 0: a feature list alone */
    const vmaf_model *models[VMAF_MAX_MODELS];
    int predict; /* the models' scores are metrics */
    int n_scorers;
    vmaf_scorer scorer[VMAF_MAX_SCORERS];
    int n_boot;
    vmaf_boot boot[VMAF_MAX_MODELS];
    int has_motion; /* a feature reads the previous frame or the next one */
    int lookahead;  /* later frames a feature's values need (the most of any) */
    int ex_lookahead[VMAF_MAX_EXTRACTORS]; /* each instance's */
    int history;               /* previous references a feature reads (the most of any) */
    int chroma;                /* a feature reads the chroma planes */
    const char *chroma_metric; /* one that does */
    int min_dim;               /* smallest width and height */
    const char *min_metric;    /* the feature that needs min_dim */

    int n_ex;
    vmaf_instance ex[VMAF_MAX_EXTRACTORS];
    double state[VMAF_MAX_EXTRACTORS][FEATURE_STATE]; /* each derive's state */
    int n_metrics;
    int metric_ex[FOVEA_VMAF_MAX_METRICS];  /* instance of metric i (-1: the score) */
    int metric_out[FOVEA_VMAF_MAX_METRICS]; /* its output of the instance's feature */
    int out_metric[VMAF_MAX_EXTRACTORS][FEATURE_MAX_OUTPUTS]; /* the reverse */
    char names[FOVEA_VMAF_MAX_METRICS][VMAF_NAME_LEN];

    const vmaf_backend *backend;
    const char *cpu_for; /* the feature CUDA lacks, when AUTO fell back to the C backend */
    void *priv;
    vmaf_params params; /* of priv; width 0 = none */

    /* pending pairs, oldest first: the first (count - queued) have raw values,
     * the last queued ones are inside the driver */
    vmaf_entry *q;
    int q_cap, q_head, q_count, queued;

    /* submitted host frames stay unchanged until their pair is received
     * (fovea_vmaf_score_readers' rings): the driver may read them in place */
    int held_frames;

    /* the stream being submitted */
    int stream_open;
    int64_t stream_next; /* index of the next pair in the stream */
    int s_width, s_height, s_bpc, s_chroma;
    int64_t submitted; /* frame number of the next pair */

    /* pooling, in frame order */
    int64_t frames;
    double sum[FOVEA_VMAF_MAX_METRICS], inv_sum[FOVEA_VMAF_MAX_METRICS];
    double min[FOVEA_VMAF_MAX_METRICS], max[FOVEA_VMAF_MAX_METRICS];
    feature_raw acc[VMAF_MAX_EXTRACTORS]; /* each instance's aggregate sums */

    /* received frames' values (settings.keep_frames): n_kept x n_metrics */
    double *kept;
    int64_t n_kept, kept_cap;
};

#endif

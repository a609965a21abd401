/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The registry of quality features, as libvmaf's feature extractors: each
 * feature (vif, adm, motion, ...) is one unit with its options, the values
 * it outputs, the derivation of those doubles from raw values, and one
 * extractor table per backend (C, CUDA) that computes the raw values. Every
 * table is listed once in feature_list.h. vmaf.c composes them; the drivers
 * quality_ref.c and quality_cuda.c run the tables of their backend.
 *
 * Backends produce RAW values only (float sums per scale, integer SADs);
 * every double a user sees comes from the feature's derive, shared by every
 * backend: that is how C and CUDA give identical doubles. */
#ifndef FOVEA_QUALITY_FEATURE_H
#define FOVEA_QUALITY_FEATURE_H

#include <stddef.h>
#include <stdint.h>

#include "fovea/fovea.h"

#define FEATURE_MAX_OPTIONS 24
#define FEATURE_MAX_OUTPUTS 32
/* Bytes of one instance's raw values for one frame (checked by each feature
 * with a static assertion). */
#define FEATURE_RAW_BYTES 256
/* Doubles of derivation state an instance carries from frame to frame
 * (motion3's moving average). */
#define FEATURE_STATE 8
/* Previous references an extractor may read (the pair before, and the one
 * before it), and later pairs' raw values a derivation may need. */
#define FEATURE_MAX_HISTORY 2
#define FEATURE_MAX_LOOKAHEAD 2

typedef enum feature_opt_type {
    FEATURE_OPT_DOUBLE = 0,
    FEATURE_OPT_INT,
    FEATURE_OPT_BOOL,
    FEATURE_OPT_ENUM,   /* one of choices[]; the value is its index */
    FEATURE_OPT_REFUSED /* an option of libvmaf fovea refuses (cambi's heatmaps_path);
                           choices[0] says why */
} feature_opt_type;

/* One option of a feature (libvmaf's VmafOption). Tables list them in the
 * alphabetical order of their names: libvmaf's name suffixes follow it. */
typedef struct feature_option {
    const char *name;  /* "vif_enhn_gain_limit" */
    const char *alias; /* "egl": the name suffix _egl_<value>; a bool's is _<alias> */
    feature_opt_type type;
    double def, min, max;       /* default and range (bool: 0, 0, 1) */
    int param;                  /* 1: a feature parameter (libvmaf's VMAF_OPT_FLAG_FEATURE_PARAM):
                              a value other than the default suffixes the output names */
    const char *const *choices; /* FEATURE_OPT_ENUM: the names, NULL-terminated (the suffix
                                   is _<alias>_<name>) */
} feature_option;

/* The option values of one instance, indexed as the feature's option table
 * (ints, bools and enum indexes as exact doubles). */
typedef struct feature_opts {
    double v[FEATURE_MAX_OPTIONS];
} feature_opts;

/* One value a feature outputs per frame. */
typedef struct feature_output {
    const char *name;       /* libvmaf's output name, "integer_adm2" */
    const char *model_name; /* the name a model uses, "VMAF_integer_feature_adm2_score"; NULL
                               when models cannot use it */
    int late;               /* written at the end of the stream by libvmaf: listed after every
                               instance's other outputs (motion2, motion3); may carry
                               FEATURE_BARE */
} feature_output;

/* feature_output.late | FEATURE_BARE: libvmaf names the output without the
 * option suffix (cambi_source) */
#define FEATURE_BARE 2

/* What the derivation knows of a frame. */
typedef struct feature_frame {
    int width, height, bpc;
    int64_t index; /* in its stream (0: the first frame of a stream) */
    int chroma;    /* 400 (gray or luma only), 420, 422 or 444 */
} feature_frame;

/* One instance's raw values for one frame pair. */
typedef union feature_raw {
    uint64_t align; /* 8-byte alignment of b */
    unsigned char b[FEATURE_RAW_BYTES];
} feature_raw;

enum {
    FEATURE_PREV = 1 << 0,      /* the extractor reads the previous pair's reference */
    FEATURE_LOOKAHEAD = 1 << 1, /* frame n's values need frame n + 1's raw values */
    FEATURE_CHROMA = 1 << 2,    /* the extractor reads the chroma planes (planar YUV input) */
};

/* What a feature is, shared by its extractor tables. */
typedef struct feature_def {
    const char *name;        /* "vif" */
    const char *label;       /* "VIF": in messages */
    unsigned flags;          /* FEATURE_* */
    int min_dim;             /* smallest width and height */
    int cpu_bytes_per_pixel; /* the C extractor's state per pixel (slots' memory budget) */
    int n_options;
    const feature_option *options;
    int n_outputs;
    const feature_output *outputs;
    /* Optional. The number of outputs this instance reports (a prefix of
     * outputs[]; NULL: all). */
    int (*count)(const feature_opts *o);
    /* Optional. Refuse options the arithmetic cannot honor: a status and a
     * message in err. */
    int (*check)(const feature_opts *o, char *err, size_t errsz);
    /* The outputs of frame f from its raw values; next[k] is frame
     * f + 1 + k's raw values for k below the instance's lookahead (NULL past
     * the end of the stream, and for k at or past the lookahead); state is
     * the instance's FEATURE_STATE doubles, zero at open. */
    void (*derive)(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                   const feature_raw *const *next, double *state, double *out);
    /* Optional. The previous references the extractor of this instance
     * reads (0..FEATURE_MAX_HISTORY) and the later frames its derivation
     * needs (0..FEATURE_MAX_LOOKAHEAD). NULL: 1 with FEATURE_PREV (else 0)
     * and 1 with FEATURE_LOOKAHEAD (else 0). */
    void (*window)(const feature_opts *o, int *history, int *lookahead);
    /* Optional. 1 when this instance reports output k (of the count first;
     * NULL: every one): psnr's mse_y sits between psnr_y and psnr_cb. */
    int (*has_output)(const feature_opts *o, int k);
    /* Optional: libvmaf's aggregate metrics (one value per stream of frames,
     * its "aggregate_metrics", not pooled from the per-frame values).
     * accumulate folds each received frame's raw values into acc (zero at open
     * and reset) in frame order; aggregate writes the values of the names it
     * reports (a prefix of aggregates[], the number returned; 0: none). */
    int n_aggregates;
    const char *const *aggregates;
    void (*accumulate)(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                       feature_raw *acc);
    int (*aggregate)(const feature_opts *o, const feature_raw *acc, double *out);
} feature_def;

/* The window of an instance (feature_def.window, or its flags). */
void feature_window(const feature_def *def, const feature_opts *o, int *history, int *lookahead);

/* What an extractor's init receives. */
typedef struct feature_setup {
    int width, height, bpc; /* bpc 8, 10, 12 or 16 */
    /* the chroma planes the extractor receives (FEATURE_CHROMA): chroma 420,
     * 422 or 444 with planes of chroma_width x chroma_height; chroma 400 (gray
     * input, or a feature without FEATURE_CHROMA): none, sizes 0 */
    int chroma, chroma_width, chroma_height;
    feature_opts opts;
    int threads; /* C: threads one pair may be split over (0: never split) */
    int batch;   /* CUDA: pairs per launch */
} feature_setup;

/* One pair for a C extractor: luma planes in host memory (8-bit samples or
 * 16-bit little-endian containers), strides in bytes. prev is the previous
 * pair's reference in the stream (history >= 1), NULL for the first pair of
 * a stream; prev2 the one before it (history 2), NULL for the first two.
 * ref_c/dis_c are the U and V planes (FEATURE_CHROMA with chroma input; NULL
 * otherwise). */
typedef struct feature_pair {
    const uint8_t *ref, *dis, *prev, *prev2;
    ptrdiff_t ref_stride, dis_stride, prev_stride, prev2_stride;
    const uint8_t *ref_c[2], *dis_c[2];
    ptrdiff_t ref_c_stride[2], dis_c_stride[2];
} feature_pair;

/* A batch for a CUDA extractor: device planes, as feature_pair per pair. */
#define FEATURE_MAX_BATCH 32
typedef struct feature_batch {
    int n;
    const uint8_t *ref[FEATURE_MAX_BATCH], *dis[FEATURE_MAX_BATCH], *prev[FEATURE_MAX_BATCH],
        *prev2[FEATURE_MAX_BATCH];
    ptrdiff_t ref_stride[FEATURE_MAX_BATCH], dis_stride[FEATURE_MAX_BATCH],
        prev_stride[FEATURE_MAX_BATCH], prev2_stride[FEATURE_MAX_BATCH];
    const uint8_t *ref_c[2][FEATURE_MAX_BATCH], *dis_c[2][FEATURE_MAX_BATCH];
    ptrdiff_t ref_c_stride[2][FEATURE_MAX_BATCH], dis_c_stride[2][FEATURE_MAX_BATCH];
} feature_batch;

/* Plane p (0 luma, 1 and 2 chroma) of pair z of a batch: the reference's and
 * the distorted picture's first rows and strides (the CUDA extractors' plane
 * tables). */
static inline void feature_batch_plane(const feature_batch *b, int z, int p, const uint8_t **ref,
                                       ptrdiff_t *ref_stride, const uint8_t **dis,
                                       ptrdiff_t *dis_stride)
{
    *ref = p ? b->ref_c[p - 1][z] : b->ref[z];
    *ref_stride = p ? b->ref_c_stride[p - 1][z] : b->ref_stride[z];
    *dis = p ? b->dis_c[p - 1][z] : b->dis[z];
    *dis_stride = p ? b->dis_c_stride[p - 1][z] : b->dis_stride[z];
}

/* One extractor: a feature on one backend. init makes the state for one
 * size and depth (the driver closes and inits again for another); statuses
 * are fovea statuses with the message through fv_ctx_error. */
typedef struct feature_extractor {
    const feature_def *def;
    fovea_backend kind;
    int (*init)(void **priv, fovea_context *ctx, const feature_setup *s);
    void (*close)(void **priv);
    /* C: the raw values of one pair, on the calling thread (ctx NULL) or
     * split over ctx's threads (at most setup.threads of them). */
    int (*extract)(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw);
    /* CUDA: counters per pair in a batch's sums, and the most pairs a launch
     * takes. */
    size_t frame_sums;
    int max_batch;
    /* CUDA: queue the kernels of a batch on stream; they add into (or write)
     * sums[z * frame_sums ..] of pair z, zeroed before. */
    int (*launch)(void *priv, fovea_context *ctx, const feature_batch *b, unsigned long long *sums,
                  void *stream);
    /* CUDA: pair z's raw values from its counters (read back to the host);
     * first: the first pair of a stream. */
    void (*raw)(void *priv, const unsigned long long *sums, int first, feature_raw *raw);
} feature_extractor;

/* The registry (feature_list.c, from feature_list.h): every extractor table
 * of this build. */
extern const feature_extractor *const feature_extractors[];
extern const size_t feature_extractor_count;

/* The feature named name ("vif"), or NULL. */
const feature_def *feature_find(const char *name);

/* The extractor of feature def on backend kind, or NULL. */
const feature_extractor *feature_extractor_for(const feature_def *def, fovea_backend kind);

/* The feature and output a model's feature name designates
 * ("VMAF_integer_feature_adm2_score"), or NULL. */
const feature_def *feature_find_model_name(const char *model_name, int *output);

/* Default values of def's options. */
void feature_default_opts(const feature_def *def, feature_opts *o);

/* Set option name of def from text ("1.5", "true", an enum's name): FOVEA_OK,
 * FOVEA_ERR_INVALID_ARG (unknown option, malformed or out of range value),
 * the message in err. */
int feature_set_opt(const feature_def *def, feature_opts *o, const char *name, const char *text,
                    char *err, size_t errsz);

/* 1 when a and b give the same instance (every option equal). */
int feature_same_opts(const feature_def *def, const feature_opts *a, const feature_opts *b);

/* libvmaf's option suffix of an instance: every param option that differs
 * from its default, in table order, as _<alias>_<value> (%g for doubles, %d
 * for ints, the name for enums) or _<alias> for a true bool. */
void feature_suffix(const feature_def *def, const feature_opts *o, char *buf, size_t n);

#endif

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Internal interface of the VMAF model: libvmaf's JSON model format (the
 * `model_dict` of vmaf_v0.6.1.json and its relatives) and the score it
 * predicts from one frame's features. The C reference of libvmaf 3.2.0's
 * model.c / read_json_model.c / predict.c / svm.cpp, written anew;
 * docs/quality.md ("VMAF model") describes the format and the arithmetic. */
#ifndef FOVEA_QUALITY_MODEL_H
#define FOVEA_QUALITY_MODEL_H

#include <stddef.h>

#include "quality/feature.h"

/* Limits of what the loader accepts (libvmaf has 64 features; the others keep
 * a hostile file from sizing buffers). */
#define VMAF_MODEL_MAX_FEATURES 64
#define VMAF_MODEL_MAX_SV 100000
#define VMAF_MODEL_MAX_KNOTS 10
#define VMAF_MODEL_FILE_LIMIT (16 << 20)

/* One feature of a model: an output of a registered feature (feature.h)
 * that names it, under libvmaf's name VMAF_integer_feature_<name>_score, and
 * the options the model sets for it. */
typedef struct vmaf_model_feature {
    const feature_def *def;  /* the feature computing it */
    int output;              /* its index in def->outputs */
    double slope, intercept; /* linear_rescale: x' = slope * x + intercept */
    feature_opts opts;       /* defaults, then the model's feature_opts_dicts */
} vmaf_model_feature;

/* One support-vector component (libsvm's svm_node; index -1 ends a vector). */
typedef struct vmaf_svm_node {
    int index;
    double value;
} vmaf_svm_node;

typedef enum vmaf_norm_type { VMAF_NORM_NONE = 0, VMAF_NORM_LINEAR_RESCALE } vmaf_norm_type;

/* Longest model name (libvmaf's name=, or "vmaf"; a collection's sub-models
 * add "_0001"). */
#define VMAF_MODEL_NAME_LEN 64
/* Most sub-models of a collection (vmaf_b_v0.6.3 has 20). */
#define VMAF_MODEL_MAX_SUB 64

typedef struct vmaf_model vmaf_model;

struct vmaf_model {
    /* the name its score is reported under: the model spec's name=, default
     * "vmaf" (libvmaf's); a collection's sub-model i is <name>_%04d */
    char name[VMAF_MODEL_NAME_LEN];
    int flags; /* VMAF_PREDICT_* of the model spec (enable_transform, disable_clip) */

    /* A bootstrap collection (libvmaf's vmaf_b_v0.6.3: a JSON object of
     * models "0", "1", ...): this is model "0", sub[] the others. Its
     * outputs: this model's score, each sub-model's, then <name>_bagging,
     * _stddev, _ci_p95_lo, _ci_p95_hi (vmaf_model_bootstrap). */
    int n_sub;
    vmaf_model *sub[VMAF_MODEL_MAX_SUB];

    /* chroma_correction_parameter (libvmaf's chroma_from_luma): when the
     * speed_chroma feature is 0, it is replaced by c - c * adm3 */
    int cfl_enabled;
    double cfl;

    int n_features;
    vmaf_model_feature feature[VMAF_MODEL_MAX_FEATURES];
    vmaf_norm_type norm_type;
    double slope, intercept; /* the score's: y = (y' - intercept) / slope */

    int clip_enabled; /* score_clip present */
    double clip_min, clip_max;

    struct {
        int present; /* model_dict has a score_transform */
        int enabled; /* its "enabled": true (off by default, as libvmaf) */
        int p_enabled[3];
        double p[3]; /* p0 + p1 * y + p2 * y * y */
        int n_knots; /* 0: no piecewise-linear mapping */
        double knot_x[VMAF_MODEL_MAX_KNOTS], knot_y[VMAF_MODEL_MAX_KNOTS];
        int out_lte_in, out_gte_in;
    } transform;

    /* libsvm nu-SVR (or epsilon-SVR) with the RBF kernel */
    double gamma;
    double rho;
    int n_sv;
    double *sv_coef;         /* n_sv */
    vmaf_svm_node **sv;      /* n_sv vectors, each ended by index -1 */
    vmaf_svm_node *sv_nodes; /* storage of all vectors */
};

/* libvmaf's name of a model feature (VMAF_integer_feature_adm2_score, ...). */
const char *vmaf_feature_name(const vmaf_model_feature *f);

/* Parse a JSON model of len bytes. Every malformed, truncated or oversized
 * model is refused with a message naming the field.
 * @return FOVEA_OK, FOVEA_ERR_CORRUPT (bad JSON or values), FOVEA_ERR_UNSUPPORTED
 *         (a valid libvmaf model fovea cannot evaluate: unknown feature, other
 *         model or kernel types), FOVEA_ERR_INVALID_ARG (NULL), FOVEA_ERR_NOMEM */
int vmaf_model_parse(vmaf_model **m, const char *json, size_t len, char *err, size_t errsz);

/* Read and parse a model file (at most VMAF_MODEL_FILE_LIMIT bytes).
 * @return as vmaf_model_parse, or FOVEA_ERR_IO */
int vmaf_model_load(vmaf_model **m, const char *path, char *err, size_t errsz);

/* A built-in model by libvmaf's version name ("vmaf_v0.6.1").
 * @return as vmaf_model_parse; FOVEA_ERR_INVALID_ARG for an unknown name */
int vmaf_model_load_version(vmaf_model **m, const char *version, char *err, size_t errsz);

/* A model from libvmaf's --model parameter string (tools/cli_parse.c):
 * colon-separated "version=NAME" or "path=FILE" (one of them), "name=NAME"
 * (default "vmaf"), "enable_transform[=true]", "disable_clip[=true]" and
 * feature option overrides "FEATURE.OPTION=VALUE" (FEATURE the feature's
 * name, "cambi", "adm", ...: every model feature computed by it takes the
 * option, in the sub-models of a collection too). A spec without '=' is a
 * version name.
 * @return as vmaf_model_load; FOVEA_ERR_INVALID_ARG for a malformed spec,
 *         an unknown key, feature or option */
int vmaf_model_open_spec(vmaf_model **m, const char *spec, char *err, size_t errsz);

void vmaf_model_free(vmaf_model **m);

/* Read libsvm's model text (the "model" string of a JSON model) into m's
 * support vectors (model_svm.c). @return FOVEA_OK or a negative status with a
 * message in err */
int vmaf_model_parse_svm(vmaf_model *m, const char *text, size_t len, char *err, size_t errsz);

/* The built-in models (generated by src/CMakeLists.txt from models/). */
typedef struct vmaf_builtin_model {
    const char *version;
    const unsigned char *json;
    size_t size;
} vmaf_builtin_model;
extern const vmaf_builtin_model vmaf_builtin_models[];
extern const int vmaf_builtin_model_count;
extern const unsigned char vmaf_model_builtin_v0_6_1[];
extern const size_t vmaf_model_builtin_v0_6_1_size;

/* Prediction flags (libvmaf's VmafModelFlags). */
#define VMAF_PREDICT_ENABLE_TRANSFORM 1 /* apply score_transform even when not enabled */
#define VMAF_PREDICT_DISABLE_CLIP 2
#define VMAF_PREDICT_RAW 4 /* neither transform nor clip (a bootstrap's statistics) */

/* The score of one frame from its raw feature values, features[i] being the
 * model's feature i: normalize, SVR, denormalize, transform, clip; in
 * libvmaf's order of double operations. */
double vmaf_model_predict(const vmaf_model *m, const double *features, int flags);

/* The score_transform and score_clip of m applied to y (flags as predict). */
double vmaf_model_finish(const vmaf_model *m, double y, int flags);

/* A bootstrap's statistics from its sub-models' raw scores (VMAF_PREDICT_RAW;
 * raw is reordered): out[0] bagging (their mean), out[1] stddev, out[2] and
 * out[3] the 2.5 and 97.5 percentiles, each transformed and clipped by the
 * first sub-model as libvmaf's predict.c does. */
void vmaf_model_bootstrap(const vmaf_model *m, double *raw, int flags, double out[4]);

#endif

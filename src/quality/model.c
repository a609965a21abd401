/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The VMAF model: loading libvmaf's JSON model format, built-in models by
 * name and libvmaf's model strings (model_svm.c reads the support vectors,
 * model_predict.c predicts a frame's score). Written from libvmaf 3.2.0's public
 * source (read_json_model.c, predict.c, svm.cpp) without copying it;
 * docs/quality.md ("VMAF model") is the specification. */
#include "quality/model.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "core/core.h"
#include "fovea/fovea.h"

const char *vmaf_feature_name(const vmaf_model_feature *f)
{
    return f->def->outputs[f->output].model_name;
}

void vmaf_model_free(vmaf_model **m)
{
    if (!m || !*m)
        return;
    for (int i = 0; i < (*m)->n_sub; i++)
        vmaf_model_free(&(*m)->sub[i]);
    free((*m)->sv_coef);
    free((*m)->sv);
    free((*m)->sv_nodes);
    free(*m);
    *m = NULL;
}

/* ------------------------------------------------------------------ JSON */

/* Two members of obj with the same name: libvmaf would take the last one, cJSON
 * the first; refuse the ambiguity. */
static const char *duplicate_key(const cJSON *obj)
{
    for (const cJSON *a = obj->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (a->string && b->string && !strcmp(a->string, b->string))
                return a->string;
    return NULL;
}

static int finite_number(const cJSON *v)
{
    return cJSON_IsNumber(v) && isfinite(v->valuedouble);
}

/* A numeric array of exactly n finite numbers. */
static int number_array(const cJSON *a, int n)
{
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
        return 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!finite_number(v))
            return 0;
    }
    return 1;
}

/* libvmaf's dictionary keeps a numeric option value as the %g of its float
 * (VMAF_DICT_NORMALIZE_NUMERICAL_VALUES): "0.06" stays "0.06", a value with
 * more digits is rounded; the option is then parsed from that text. Other
 * text is copied. */
static void dict_text(const char *in, char *out, size_t n)
{
    char *end = NULL;
    const float f = strtof(in, &end);
    if (end != in && *end == '\0')
        snprintf(out, n, "%g", (double)f);
    else
        snprintf(out, n, "%s", in);
}

/* Option k of model feature f set from text as libvmaf's dictionary would. */
static int set_opt_text(vmaf_model_feature *f, const char *k, const char *text, const char *where,
                        char *err, size_t errsz)
{
    char norm[64], msg[256];
    dict_text(text, norm, sizeof norm);
    const int st = feature_set_opt(f->def, &f->opts, k, norm, msg, sizeof msg);
    if (st < 0)
        return fv_errbuf(err, errsz, st, "model: %s: %s", where, msg);
    return FOVEA_OK;
}

/* The options of feature f (feature_opts_dicts[i]): numbers, booleans
 * ("true"/"false") and strings, as libvmaf's read_json_model.c reads them. */
static int parse_opts(vmaf_model_feature *f, const cJSON *obj, int i, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    if (!cJSON_IsObject(obj))
        return fv_errbuf(err, errsz, bad, "model: feature_opts_dicts[%d]: not an object", i);
    const char *dup = duplicate_key(obj);
    if (dup)
        return fv_errbuf(err, errsz, bad, "model: feature_opts_dicts[%d]: \"%.40s\" twice", i, dup);
    const cJSON *v;
    cJSON_ArrayForEach(v, obj)
    {
        char text[64], where[96];
        snprintf(where, sizeof where, "feature_opts_dicts[%d] (%s)", i, vmaf_feature_name(f));
        if (cJSON_IsBool(v))
            snprintf(text, sizeof text, "%s", cJSON_IsTrue(v) ? "true" : "false");
        else if (finite_number(v))
            snprintf(text, sizeof text, "%.17g", v->valuedouble);
        else if (cJSON_IsString(v) && strlen(v->valuestring) < sizeof text)
            snprintf(text, sizeof text, "%s", v->valuestring);
        else
            return fv_errbuf(err, errsz, bad,
                             "model: %s.%.40s: must be a number, true, false or a short string",
                             where, v->string);
        int known = 0;
        for (int o = 0; o < f->def->n_options; o++)
            known |= !strcmp(f->def->options[o].name, v->string);
        if (!known)
            return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                             "model: %s: option \"%.40s\" of %s is not computed by this fovea",
                             where, v->string, f->def->name);
        const int st = set_opt_text(f, v->string, text, where, err, errsz);
        if (st < 0)
            return st == FOVEA_ERR_INVALID_ARG ? FOVEA_ERR_CORRUPT : st;
    }
    return FOVEA_OK;
}

static int parse_transform(vmaf_model *m, const cJSON *st, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    if (!cJSON_IsObject(st))
        return fv_errbuf(err, errsz, bad, "model: score_transform: not an object");
    const char *dup = duplicate_key(st);
    if (dup)
        return fv_errbuf(err, errsz, bad, "model: score_transform: \"%.40s\" twice", dup);
    m->transform.present = 1;
    static const char *const pname[3] = {"p0", "p1", "p2"};
    const cJSON *v;
    cJSON_ArrayForEach(v, st)
    {
        const char *k = v->string;
        int pi = -1;
        for (int j = 0; j < 3; j++)
            if (!strcmp(k, pname[j]))
                pi = j;
        if (pi >= 0) {
            if (cJSON_IsNull(v))
                continue;
            if (!finite_number(v))
                return fv_errbuf(err, errsz, bad,
                                 "model: score_transform.%s: must be a number or null", k);
            m->transform.p_enabled[pi] = 1;
            m->transform.p[pi] = v->valuedouble;
        } else if (!strcmp(k, "enabled")) {
            if (!cJSON_IsBool(v))
                return fv_errbuf(err, errsz, bad,
                                 "model: score_transform.enabled: must be true or false");
            m->transform.enabled = cJSON_IsTrue(v);
        } else if (!strcmp(k, "out_lte_in") || !strcmp(k, "out_gte_in")) {
            if (!cJSON_IsString(v))
                return fv_errbuf(err, errsz, bad,
                                 "model: score_transform.%s: must be the string \"true\" or "
                                 "\"false\"",
                                 k);
            int on = !strcmp(v->valuestring, "true");
            if (k[4] == 'l')
                m->transform.out_lte_in = on;
            else
                m->transform.out_gte_in = on;
        } else if (!strcmp(k, "knots")) {
            if (cJSON_IsNull(v))
                continue;
            const int n = cJSON_GetArraySize(v);
            if (!cJSON_IsArray(v) || n < 2 || n > VMAF_MODEL_MAX_KNOTS)
                return fv_errbuf(err, errsz, bad,
                                 "model: score_transform.knots: must be null or 2 to %d [x, y] "
                                 "pairs",
                                 VMAF_MODEL_MAX_KNOTS);
            int j = 0;
            const cJSON *kn;
            cJSON_ArrayForEach(kn, v)
            {
                if (!number_array(kn, 2))
                    return fv_errbuf(err, errsz, bad,
                                     "model: score_transform.knots[%d]: must be [x, y]", j);
                m->transform.knot_x[j] = cJSON_GetArrayItem(kn, 0)->valuedouble;
                m->transform.knot_y[j] = cJSON_GetArrayItem(kn, 1)->valuedouble;
                /* libvmaf's mapping gives up (and scores 0) otherwise */
                if (j > 0 && !(m->transform.knot_x[j - 1] < m->transform.knot_x[j] &&
                               m->transform.knot_y[j - 1] <= m->transform.knot_y[j]))
                    return fv_errbuf(err, errsz, bad,
                                     "model: score_transform.knots: x must increase and y must "
                                     "not decrease");
                j++;
            }
            m->transform.n_knots = n;
        }
        /* other members are ignored, as libvmaf does */
    }
    return FOVEA_OK;
}

/* model_dict.feature_names: m->n_features and each feature's definition with
 * its default options. */
static int parse_feature_names(vmaf_model *m, const cJSON *md, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(md, "feature_names");
    const int nf = cJSON_GetArraySize(v);
    if (!cJSON_IsArray(v) || nf < 1 || nf > VMAF_MODEL_MAX_FEATURES)
        return fv_errbuf(err, errsz, bad,
                         "model: model_dict.feature_names: must be an array of 1 to %d names",
                         VMAF_MODEL_MAX_FEATURES);
    m->n_features = nf;
    int i = 0;
    const cJSON *name;
    cJSON_ArrayForEach(name, v)
    {
        if (!cJSON_IsString(name))
            return fv_errbuf(err, errsz, bad, "model: feature_names[%d]: not a string", i);
        vmaf_model_feature *f = &m->feature[i];
        f->def = feature_find_model_name(name->valuestring, &f->output);
        if (!f->def)
            return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                             "model: feature \"%.60s\" (feature_names[%d]) is not computed by "
                             "this fovea",
                             name->valuestring, i);
        feature_default_opts(f->def, &f->opts);
        i++;
    }
    return FOVEA_OK;
}

/* model_dict.norm_type, and its slopes and intercepts (the score's and one
 * per feature of the nf) when linear_rescale. */
static int parse_norm(vmaf_model *m, const cJSON *md, int nf, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(md, "norm_type");
    if (!cJSON_IsString(v))
        return fv_errbuf(err, errsz, bad, "model: model_dict.norm_type: missing");
    if (!strcmp(v->valuestring, "linear_rescale"))
        m->norm_type = VMAF_NORM_LINEAR_RESCALE;
    else if (!strcmp(v->valuestring, "none"))
        m->norm_type = VMAF_NORM_NONE;
    else
        return fv_errbuf(err, errsz, bad,
                         "model: norm_type \"%.40s\": must be linear_rescale or none",
                         v->valuestring);
    if (m->norm_type == VMAF_NORM_LINEAR_RESCALE) {
        const cJSON *sl = cJSON_GetObjectItemCaseSensitive(md, "slopes");
        const cJSON *ic = cJSON_GetObjectItemCaseSensitive(md, "intercepts");
        if (!number_array(sl, nf + 1) || !number_array(ic, nf + 1))
            return fv_errbuf(err, errsz, bad,
                             "model: slopes and intercepts: must be arrays of %d finite numbers "
                             "(the score's, then one per feature)",
                             nf + 1);
        m->slope = cJSON_GetArrayItem(sl, 0)->valuedouble;
        m->intercept = cJSON_GetArrayItem(ic, 0)->valuedouble;
        if (m->slope == 0.0)
            return fv_errbuf(err, errsz, bad, "model: slopes[0]: must not be 0");
        for (int j = 0; j < nf; j++) {
            m->feature[j].slope = cJSON_GetArrayItem(sl, j + 1)->valuedouble;
            m->feature[j].intercept = cJSON_GetArrayItem(ic, j + 1)->valuedouble;
        }
    }
    return FOVEA_OK;
}

static int parse_model_dict(vmaf_model *m, const cJSON *md, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    if (!cJSON_IsObject(md))
        return fv_errbuf(err, errsz, bad, "model: model_dict: missing or not an object");
    const char *dup = duplicate_key(md);
    if (dup)
        return fv_errbuf(err, errsz, bad, "model: model_dict: \"%.40s\" twice", dup);

    const cJSON *v = cJSON_GetObjectItemCaseSensitive(md, "model_type");
    if (!cJSON_IsString(v))
        return fv_errbuf(err, errsz, bad, "model: model_dict.model_type: missing");
    if (strcmp(v->valuestring, "LIBSVMNUSVR") && strcmp(v->valuestring, "BOOTSTRAP_LIBSVMNUSVR") &&
        strcmp(v->valuestring, "RESIDUEBOOTSTRAP_LIBSVMNUSVR"))
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                         "model: model_type \"%.40s\": only LIBSVMNUSVR and its bootstrap types "
                         "are supported",
                         v->valuestring);

    v = cJSON_GetObjectItemCaseSensitive(md, "chroma_correction_parameter");
    if (v) {
        /* libvmaf scores nothing with a parameter of 0 */
        if (!finite_number(v) || v->valuedouble == 0.0)
            return fv_errbuf(err, errsz, bad,
                             "model: chroma_correction_parameter: must be a non-zero number");
        m->cfl_enabled = 1;
        m->cfl = v->valuedouble;
    }

    int rc = parse_feature_names(m, md, err, errsz);
    if (rc < 0)
        return rc;
    const int nf = m->n_features;
    rc = parse_norm(m, md, nf, err, errsz);
    if (rc < 0)
        return rc;

    v = cJSON_GetObjectItemCaseSensitive(md, "feature_opts_dicts");
    if (v) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > nf)
            return fv_errbuf(err, errsz, bad,
                             "model: feature_opts_dicts: must be an array of at most %d objects",
                             nf);
        int i = 0;
        const cJSON *o;
        cJSON_ArrayForEach(o, v)
        {
            rc = parse_opts(&m->feature[i], o, i, err, errsz);
            if (rc < 0)
                return rc;
            i++;
        }
    }

    v = cJSON_GetObjectItemCaseSensitive(md, "score_clip");
    if (v) {
        if (!number_array(v, 2) ||
            !(cJSON_GetArrayItem(v, 0)->valuedouble <= cJSON_GetArrayItem(v, 1)->valuedouble))
            return fv_errbuf(err, errsz, bad, "model: score_clip: must be [min, max], min <= max");
        m->clip_enabled = 1;
        m->clip_min = cJSON_GetArrayItem(v, 0)->valuedouble;
        m->clip_max = cJSON_GetArrayItem(v, 1)->valuedouble;
    }

    v = cJSON_GetObjectItemCaseSensitive(md, "score_transform");
    if (v) {
        rc = parse_transform(m, v, err, errsz);
        if (rc < 0)
            return rc;
    }

    v = cJSON_GetObjectItemCaseSensitive(md, "model");
    if (!cJSON_IsString(v))
        return fv_errbuf(err, errsz, bad, "model: model_dict.model: missing libsvm text");
    rc = vmaf_model_parse_svm(m, v->valuestring, strlen(v->valuestring), err, errsz);
    if (rc < 0)
        return rc;
    for (int s = 0; s < m->n_sv; s++)
        for (const vmaf_svm_node *n = m->sv[s]; n->index != -1; n++)
            if (n->index > nf)
                return fv_errbuf(err, errsz, bad,
                                 "model: support vector %d: index %d beyond the %d features", s + 1,
                                 n->index, nf);
    if (m->cfl_enabled) {
        /* libvmaf's chroma_from_luma needs exactly one of each */
        int n_adm3 = 0, n_chroma = 0;
        for (int i = 0; i < nf; i++) {
            n_adm3 += strstr(vmaf_feature_name(&m->feature[i]), "adm3") != NULL;
            n_chroma += strstr(vmaf_feature_name(&m->feature[i]), "speed_chroma") != NULL;
        }
        if (n_adm3 != 1 || n_chroma != 1)
            return fv_errbuf(err, errsz, bad,
                             "model: chroma_correction_parameter needs one adm3 and one "
                             "speed_chroma feature");
    }
    return FOVEA_OK;
}

/* A collection (libvmaf's read_json_model.c, model_collection_parse): the
 * members "0", "1", ... in that order, each a model; "0" is m itself, the
 * others its sub-models (at least one). */
static int parse_collection(vmaf_model *m, const cJSON *root, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    const char *dup = duplicate_key(root);
    if (dup)
        return fv_errbuf(err, errsz, bad, "model: \"%.40s\" twice", dup);
    for (int i = 0;; i++) {
        char key[16];
        snprintf(key, sizeof key, "%d", i);
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, key);
        if (!o)
            break;
        if (i > VMAF_MODEL_MAX_SUB)
            return fv_errbuf(err, errsz, bad, "model: more than %d bootstrap models",
                             VMAF_MODEL_MAX_SUB);
        vmaf_model *sm = m;
        if (i > 0) {
            sm = calloc(1, sizeof(*sm));
            if (!sm)
                return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "model: out of memory");
            m->sub[m->n_sub++] = sm;
        }
        char msg[FOVEA_ERRLEN];
        const int rc = cJSON_IsObject(o)
                           ? parse_model_dict(sm, cJSON_GetObjectItemCaseSensitive(o, "model_dict"),
                                              msg, sizeof msg)
                           : fv_errbuf(msg, sizeof msg, bad, "not an object");
        if (rc < 0)
            return fv_errbuf(err, errsz, rc, "model \"%s\": %s", key, msg);
    }
    if (m->n_sub == 0)
        return fv_errbuf(err, errsz, bad, "model: a collection needs models \"0\" and \"1\"");
    for (int i = 0; i < m->n_sub; i++)
        snprintf(m->sub[i]->name, sizeof m->sub[i]->name, "vmaf_%04d", i + 1);
    return FOVEA_OK;
}

int vmaf_model_parse(vmaf_model **out, const char *json, size_t len, char *err, size_t errsz)
{
    if (err && errsz)
        err[0] = '\0';
    if (!out)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "model: NULL argument");
    *out = NULL;
    if (!json)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "model: NULL argument");
    if (len > VMAF_MODEL_FILE_LIMIT)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "model: larger than %d bytes",
                         VMAF_MODEL_FILE_LIMIT);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (!root)
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "model: invalid JSON%s",
                         len ? " (truncated or malformed)" : ": empty input");
    size_t pos = end ? (size_t)(end - json) : len;
    while (pos < len &&
           (json[pos] == ' ' || json[pos] == '\t' || json[pos] == '\n' || json[pos] == '\r'))
        pos++;
    if (pos < len && json[pos] != '\0') {
        cJSON_Delete(root);
        return fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "model: text after the JSON value");
    }
    vmaf_model *m = calloc(1, sizeof(*m));
    if (!m) {
        cJSON_Delete(root);
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "model: out of memory");
    }
    int rc;
    snprintf(m->name, sizeof m->name, "vmaf");
    if (!cJSON_IsObject(root))
        rc = fv_errbuf(err, errsz, FOVEA_ERR_CORRUPT, "model: not a JSON object");
    else if (!cJSON_GetObjectItemCaseSensitive(root, "model_dict") &&
             cJSON_GetObjectItemCaseSensitive(root, "0"))
        rc = parse_collection(m, root, err, errsz);
    else
        rc = parse_model_dict(m, cJSON_GetObjectItemCaseSensitive(root, "model_dict"), err, errsz);
    cJSON_Delete(root);
    if (rc < 0) {
        vmaf_model_free(&m);
        return rc;
    }
    *out = m;
    return FOVEA_OK;
}

int vmaf_model_load(vmaf_model **out, const char *path, char *err, size_t errsz)
{
    if (out)
        *out = NULL;
    if (!out || !path)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "model: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f)
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *buf = malloc((size_t)VMAF_MODEL_FILE_LIMIT + 1);
    if (!buf) {
        fclose(f);
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "%s: out of memory", path);
    }
    errno = 0;
    size_t n = fread(buf, 1, (size_t)VMAF_MODEL_FILE_LIMIT + 1, f);
    int rd_err = ferror(f) ? (errno ? errno : EIO) : 0; /* a directory: EISDIR */
    fclose(f);
    if (rd_err) {
        free(buf);
        return fv_errbuf(err, errsz, FOVEA_ERR_IO, "%s: read error: %s", path, strerror(rd_err));
    }
    char msg[512];
    int rc = vmaf_model_parse(out, buf, n, msg, sizeof(msg));
    free(buf);
    if (rc < 0)
        return fv_errbuf(err, errsz, rc, "%s: %s", path, msg);
    return rc;
}

int vmaf_model_load_version(vmaf_model **out, const char *version, char *err, size_t errsz)
{
    if (out)
        *out = NULL;
    if (!out || !version)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "model: NULL argument");
    for (int i = 0; i < vmaf_builtin_model_count; i++) {
        const vmaf_builtin_model *b = &vmaf_builtin_models[i];
        if (strcmp(version, b->version))
            continue;
        char msg[FOVEA_ERRLEN];
        const int rc = vmaf_model_parse(out, (const char *)b->json, b->size, msg, sizeof msg);
        if (rc < 0)
            return fv_errbuf(err, errsz, rc, "%s: %s", version, msg);
        return rc;
    }
    char list[512];
    size_t k = 0;
    list[0] = '\0';
    for (int i = 0; i < vmaf_builtin_model_count && k < sizeof list; i++)
        k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "",
                              vmaf_builtin_models[i].version);
    return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                     "model: no built-in model \"%.60s\" (built in: %s)", version, list);
}

/* The names of m and its sub-models from base ("vmaf": vmaf, vmaf_0001, ...). */
static int set_names(vmaf_model *m, const char *base, char *err, size_t errsz)
{
    if (!*base || strlen(base) + 6 > VMAF_MODEL_NAME_LEN)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                         "model: name \"%.40s\": must be 1 to %d characters", base,
                         VMAF_MODEL_NAME_LEN - 7);
    snprintf(m->name, sizeof m->name, "%s", base);
    for (int i = 0; i < m->n_sub; i++)
        snprintf(m->sub[i]->name, sizeof m->sub[i]->name, "%s_%04d", base, i + 1);
    return FOVEA_OK;
}

/* feature.option=value on every feature of m (and its sub-models) that the
 * feature named feat computes. @return how many took it, or a status */
static int override_opt(vmaf_model *m, const char *feat, const char *opt, const char *val,
                        char *err, size_t errsz)
{
    int n = 0;
    for (int i = 0; i < m->n_features; i++) {
        vmaf_model_feature *f = &m->feature[i];
        if (strcmp(f->def->name, feat))
            continue;
        char where[96];
        snprintf(where, sizeof where, "%s.%s", feat, opt);
        const int st = set_opt_text(f, opt, val, where, err, errsz);
        if (st < 0)
            return st;
        n++;
    }
    for (int s = 0; s < m->n_sub; s++) {
        const int st = override_opt(m->sub[s], feat, opt, val, err, errsz);
        if (st < 0)
            return st;
        n += st;
    }
    return n;
}

int vmaf_model_open_spec(vmaf_model **out, const char *spec, char *err, size_t errsz)
{
    if (out)
        *out = NULL;
    if (!out || !spec)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "model: NULL argument");
    if (!strchr(spec, '='))
        return vmaf_model_load_version(out, spec, err, errsz);
    const int bad = FOVEA_ERR_INVALID_ARG;
    char buf[1024];
    if (strlen(spec) >= sizeof buf)
        return fv_errbuf(err, errsz, bad, "model: parameters longer than %zu bytes",
                         sizeof buf - 1);
    snprintf(buf, sizeof buf, "%s", spec);
    /* first pass: the keys, the model to load */
    const char *version = NULL, *path = NULL, *name = "vmaf";
    int flags = 0, n = 0;
    char *kv[64];
    for (char *p = buf, *tok; p != NULL;) {
        tok = p;
        p = strchr(p, ':');
        if (p)
            *p++ = '\0';
        if (n == 64)
            return fv_errbuf(err, errsz, bad, "model: more than 64 parameters");
        char *val = strchr(tok, '=');
        if (val)
            *val++ = '\0';
        else if (!strcmp(tok, "disable_clip") || !strcmp(tok, "enable_transform"))
            val = "true";
        else
            return fv_errbuf(err, errsz, bad,
                             "model: bad parameter \"%.40s\" (want key=value: version=, path=, "
                             "name=, enable_transform, disable_clip, feature.option=)",
                             tok);
        if (!strcmp(tok, "version"))
            version = val;
        else if (!strcmp(tok, "path"))
            path = val;
        else if (!strcmp(tok, "name"))
            name = val;
        else if (!strcmp(tok, "disable_clip"))
            flags |= !strcmp(val, "true") ? VMAF_PREDICT_DISABLE_CLIP : 0;
        else if (!strcmp(tok, "enable_transform"))
            flags |= !strcmp(val, "true") ? VMAF_PREDICT_ENABLE_TRANSFORM : 0;
        else if (!strchr(tok, '.'))
            return fv_errbuf(err, errsz, bad,
                             "model: unknown parameter \"%.40s\" (want version=, path=, name=, "
                             "enable_transform, disable_clip or feature.option=value)",
                             tok);
        else {
            val[-1] = '=';
            kv[n++] = tok;
        }
    }
    if (!version == !path)
        return fv_errbuf(err, errsz, bad, "model: \"%.60s\": give version=NAME or path=FILE", spec);
    int st = version ? vmaf_model_load_version(out, version, err, errsz)
                     : vmaf_model_load(out, path, err, errsz);
    if (st < 0)
        return st;
    vmaf_model *m = *out;
    m->flags = flags;
    for (int s = 0; s < m->n_sub; s++)
        m->sub[s]->flags = flags;
    st = set_names(m, name, err, errsz);
    for (int i = 0; i < n && st >= 0; i++) {
        char *eq = strchr(kv[i], '=');
        *eq = '\0';
        char *dot = strchr(kv[i], '.');
        *dot = '\0';
        const char *feat = kv[i], *opt = dot + 1;
        if (strchr(opt, '.'))
            *strchr(dot + 1, '.') = '\0'; /* libvmaf reads FEATURE.OPTION up to a second dot */
        if (!feature_find(feat)) {
            st = fv_errbuf(err, errsz, bad, "model: %s.%s: unknown feature \"%.40s\"", feat, opt,
                           feat);
            break;
        }
        st = override_opt(m, feat, opt, eq + 1, err, errsz);
        if (st == 0)
            st = fv_errbuf(err, errsz, bad, "model: %s.%s: the model has no %s feature", feat, opt,
                           feat);
    }
    if (st < 0) {
        vmaf_model_free(out);
        return st;
    }
    return FOVEA_OK;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The registry of quality features (feature.h): the extractor tables named by
 * feature_list.h, and the look-ups and option handling every feature shares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/feature.h"

#define FEATURE_CPU(n) extern const feature_extractor feature_##n##_cpu;
#ifdef FOVEA_HAVE_CUDA
#define FEATURE(n)                                                                                 \
    extern const feature_extractor feature_##n##_cpu;                                              \
    extern const feature_extractor feature_##n##_cuda;
#else
#define FEATURE(n) FEATURE_CPU(n)
#endif
#include "quality/feature_list.h"
#undef FEATURE
#undef FEATURE_CPU

#define FEATURE_CPU(n) &feature_##n##_cpu,
#ifdef FOVEA_HAVE_CUDA
#define FEATURE(n) &feature_##n##_cpu, &feature_##n##_cuda,
#else
#define FEATURE(n) FEATURE_CPU(n)
#endif
const feature_extractor *const feature_extractors[] = {
#include "quality/feature_list.h"
};
#undef FEATURE
#undef FEATURE_CPU
const size_t feature_extractor_count = sizeof feature_extractors / sizeof feature_extractors[0];

const feature_def *feature_find(const char *name)
{
    for (size_t i = 0; name && i < feature_extractor_count; i++)
        if (!strcmp(feature_extractors[i]->def->name, name))
            return feature_extractors[i]->def;
    return NULL;
}

const feature_extractor *feature_extractor_for(const feature_def *def, fovea_backend kind)
{
    for (size_t i = 0; i < feature_extractor_count; i++)
        if (feature_extractors[i]->def == def && feature_extractors[i]->kind == kind)
            return feature_extractors[i];
    return NULL;
}

const feature_def *feature_find_model_name(const char *model_name, int *output)
{
    for (size_t i = 0; model_name && i < feature_extractor_count; i++) {
        const feature_def *d = feature_extractors[i]->def;
        for (int k = 0; k < d->n_outputs; k++) {
            if (d->outputs[k].model_name && !strcmp(d->outputs[k].model_name, model_name)) {
                *output = k;
                return d;
            }
        }
    }
    return NULL;
}

void feature_default_opts(const feature_def *def, feature_opts *o)
{
    memset(o, 0, sizeof(*o));
    for (int i = 0; i < def->n_options; i++)
        o->v[i] = def->options[i].def;
}

int feature_set_opt(const feature_def *def, feature_opts *o, const char *name, const char *text,
                    char *err, size_t errsz)
{
    const feature_option *opt = NULL;
    int i = 0;
    for (; i < def->n_options; i++) {
        if (!strcmp(def->options[i].name, name)) {
            opt = &def->options[i];
            break;
        }
    }
    if (!opt)
        return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "%s: unknown option \"%.40s\"",
                         def->name, name);
    double x;
    if (opt->type == FEATURE_OPT_REFUSED)
        return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED, "%s: option %s is not supported: %s",
                         def->name, name, opt->choices[0]);
    if (opt->type == FEATURE_OPT_ENUM) {
        int k = 0;
        while (opt->choices[k] && strcmp(opt->choices[k], text))
            k++;
        if (!opt->choices[k]) {
            char names[160];
            size_t len = 0;
            names[0] = '\0';
            for (int j = 0; opt->choices[j] && len < sizeof(names); j++)
                len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", j ? ", " : "",
                                        opt->choices[j]);
            return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                             "%s: option %s must be one of %s (not \"%.40s\")", def->name, name,
                             names, text);
        }
        x = (double)k;
    } else if (opt->type == FEATURE_OPT_BOOL) {
        if (!strcmp(text, "true") || !strcmp(text, "1"))
            x = 1.0;
        else if (!strcmp(text, "false") || !strcmp(text, "0"))
            x = 0.0;
        else
            return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG,
                             "%s: option %s must be true or false", def->name, name);
    } else {
        char *end = NULL;
        x = strtod(text, &end);
        /* written so that NaN fails too */
        if (!*text || *end || !(x >= opt->min && x <= opt->max) ||
            (opt->type == FEATURE_OPT_INT && x != (double)(long long)x))
            return fv_errbuf(err, errsz, FOVEA_ERR_INVALID_ARG, "%s: %s %s outside [%g, %g]",
                             def->name, name, text, opt->min, opt->max);
    }
    o->v[i] = x;
    return FOVEA_OK;
}

int feature_same_opts(const feature_def *def, const feature_opts *a, const feature_opts *b)
{
    for (int i = 0; i < def->n_options; i++)
        if (a->v[i] != b->v[i])
            return 0;
    return 1;
}

void feature_suffix(const feature_def *def, const feature_opts *o, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < def->n_options; i++) {
        const feature_option *opt = &def->options[i];
        const double x = o->v[i];
        if (!opt->param || x == opt->def)
            continue;
        char *p = len < n ? buf + len : NULL;
        const size_t room = len < n ? n - len : 0;
        if (opt->type == FEATURE_OPT_BOOL)
            len += x != 0.0 ? (size_t)snprintf(p, room, "_%s", opt->alias) : 0;
        else if (opt->type == FEATURE_OPT_INT)
            len += (size_t)snprintf(p, room, "_%s_%d", opt->alias, (int)x);
        else if (opt->type == FEATURE_OPT_ENUM)
            len += (size_t)snprintf(p, room, "_%s_%s", opt->alias, opt->choices[(int)x]);
        else
            len += (size_t)snprintf(p, room, "_%s_%g", opt->alias, x);
    }
}

void feature_window(const feature_def *def, const feature_opts *o, int *history, int *lookahead)
{
    *history = (def->flags & FEATURE_PREV) ? 1 : 0;
    *lookahead = (def->flags & FEATURE_LOOKAHEAD) ? 1 : 0;
    if (def->window)
        def->window(o, history, lookahead);
    if (*history > FEATURE_MAX_HISTORY)
        *history = FEATURE_MAX_HISTORY;
    if (*lookahead > FEATURE_MAX_LOOKAHEAD)
        *lookahead = FEATURE_MAX_LOOKAHEAD;
}

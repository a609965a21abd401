/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The golden KLT cases of ../shared/testdata/klt for the tests: loading a case
 * (params.json, frames, expected.txt), the setup ops, listing the cases. Shared
 * by test_klt_golden (C backend, exact) and gpu/test_gpu_klt (CUDA vs C).
 * Header-only: each test is one source file. */
#ifndef FOVEA_TEST_KLT_CASES_H
#define FOVEA_TEST_KLT_CASES_H

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fovea/io.h"
#include "fovea/klt.h"
#include "fovea/compat/pnmio.h"
#include "testutil.h"

#if defined(__GNUC__)
#define KLT_CASES_FN static __attribute__((unused))
#else
#define KLT_CASES_FN static
#endif

/* ---------------------------------------------------------------- helpers */

KLT_CASES_FN char *read_all(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf) {
        buf[n] = '\0';
        if (size)
            *size = (size_t)n;
    }
    return buf;
}

KLT_CASES_FN double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "tc->field = value;" (fovea_klt_set_field), "KLTChangeTCPyramid(tc, N);",
 * "KLTUpdateTCBorder(tc);". @return 0 on an unknown op or a refused value */
KLT_CASES_FN int apply_setup_op(KLT_TrackingContext tc, const char *op)
{
    char name[64];
    double v;
    int n;
    if (sscanf(op, "tc->%63[A-Za-z_] = %lf", name, &v) == 2) {
        return fovea_klt_set_field(tc, name, v) == FOVEA_OK;
    }
    if (sscanf(op, "KLTChangeTCPyramid(tc, %d)", &n) == 1) {
        KLTChangeTCPyramid(tc, n);
        return 1;
    }
    if (strncmp(op, "KLTUpdateTCBorder(tc)", 21) == 0) {
        KLTUpdateTCBorder(tc);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------- case data */

typedef struct expected_row {
    float x, y;
    int val;
} expected_row;

typedef struct record {
    int frame;
    char stage[16];
    expected_row *rows; /* nFeatures */
} record;

typedef struct golden_case {
    char name[128];
    char dir[4096];
    cJSON *params;
    int nfeat, nframes, replace;
    int ncols, nrows;
    unsigned char **frames;
    record *recs;
    int nrecs;
} golden_case;

KLT_CASES_FN void case_free(golden_case *c)
{
    cJSON_Delete(c->params);
    for (int i = 0; c->frames && i < c->nframes; i++)
        free(c->frames[i]);
    free(c->frames);
    for (int i = 0; i < c->nrecs; i++)
        free(c->recs[i].rows);
    free(c->recs);
    memset(c, 0, sizeof *c);
}

KLT_CASES_FN unsigned char *load_pgm(const char *path, int *w, int *h)
{
    /* KLT's own reader (include/fovea/compat/pnmio.h), as the programs this mirrors use */
    unsigned char *img = pgmReadFile(path, NULL, w, h);
    if (!img)
        fprintf(stderr, "%s: not an 8-bit PGM\n", path);
    return img;
}

KLT_CASES_FN int load_expected(golden_case *c)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/expected.txt", c->dir);
    char *txt = read_all(path, NULL);
    if (!txt)
        return 0;
    int cap = 64;
    c->recs = calloc((size_t)cap, sizeof(record));
    char *save = NULL;
    int ok = 1;
    for (char *line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '#')
            continue;
        int frame, idx, val;
        char stage[16], xs[64], ys[64];
        if (sscanf(line, "%d %15s %d %63s %63s %d", &frame, stage, &idx, xs, ys, &val) != 6) {
            ok = 0;
            break;
        }
        if (idx == 0) {
            if (c->nrecs == cap) {
                cap *= 2;
                c->recs = realloc(c->recs, (size_t)cap * sizeof(record));
            }
            record *r = &c->recs[c->nrecs++];
            r->frame = frame;
            snprintf(r->stage, sizeof r->stage, "%s", stage);
            r->rows = calloc((size_t)c->nfeat, sizeof(expected_row));
        }
        record *r = &c->recs[c->nrecs - 1];
        if (idx < 0 || idx >= c->nfeat || r->frame != frame || strcmp(r->stage, stage) != 0) {
            ok = 0;
            break;
        }
        r->rows[idx].x = strtof(xs, NULL);
        r->rows[idx].y = strtof(ys, NULL);
        r->rows[idx].val = val;
    }
    free(txt);
    return ok;
}

KLT_CASES_FN int case_load(golden_case *c, const char *root, const char *name)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    snprintf(c->dir, sizeof c->dir, "%s/%s", root, name);
    char path[4200];
    snprintf(path, sizeof path, "%s/params.json", c->dir);
    char *js = read_all(path, NULL);
    if (!js)
        return 0;
    c->params = cJSON_Parse(js);
    free(js);
    if (!c->params)
        return 0;
    c->nfeat = cJSON_GetObjectItem(c->params, "nFeatures")->valueint;
    c->nframes = cJSON_GetObjectItem(c->params, "nFrames")->valueint;
    c->replace = cJSON_IsTrue(cJSON_GetObjectItem(c->params, "replace_lost_features"));
    cJSON *frames = cJSON_GetObjectItem(c->params, "frames");
    if (!cJSON_IsArray(frames) || cJSON_GetArraySize(frames) != c->nframes)
        return 0;
    c->frames = calloc((size_t)c->nframes, sizeof(*c->frames));
    for (int i = 0; i < c->nframes; i++) {
        int w = 0, h = 0;
        snprintf(path, sizeof path, "%s/%s", c->dir, cJSON_GetArrayItem(frames, i)->valuestring);
        c->frames[i] = load_pgm(path, &w, &h);
        if (!c->frames[i])
            return 0;
        if (i == 0) {
            c->ncols = w;
            c->nrows = h;
        } else if (w != c->ncols || h != c->nrows) {
            return 0;
        }
    }
    return load_expected(c);
}

static int klt_cases_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names (malloc'd, sorted) of the sub-directories of root holding a
 * params.json, at most max. @return the count */
KLT_CASES_FN int klt_case_names(const char *root, char **names, int max)
{
    int n = 0;
    DIR *d = opendir(root);
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        char path[4200];
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/params.json", root, de->d_name);
        FILE *fp = fopen(path, "rb");
        if (fp) {
            fclose(fp);
            names[n++] = strdup(de->d_name);
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof(char *), klt_cases_cmp_str);
    return n;
}

/* A tracking context set up as the case says: setup ops, then every field of
 * params.json "tracking_context" (each checked against what the ops gave;
 * mismatches count as test failures). @return NULL on an unknown or refused op */
KLT_CASES_FN KLT_TrackingContext klt_case_context(const golden_case *c, fovea_context *ctx,
                                                  fovea_backend backend)
{
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    if (!tc)
        return NULL;
    tc->ctx = ctx;
    tc->backend = backend;
    cJSON *ops = cJSON_GetObjectItem(c->params, "setup_ops");
    cJSON *op;
    cJSON_ArrayForEach(op, ops)
    {
        if (!apply_setup_op(tc, op->valuestring)) {
            fprintf(stderr, "%s: setup op '%s' unknown or refused\n", c->name, op->valuestring);
            KLTFreeTrackingContext(tc);
            return NULL;
        }
    }
    cJSON *tcj = cJSON_GetObjectItem(c->params, "tracking_context");
    const char *name;
    for (int i = 0; (name = fovea_klt_field_name(i)) != NULL; i++) {
        cJSON *v = cJSON_GetObjectItem(tcj, name);
        if (!cJSON_IsNumber(v)) {
            fprintf(stderr, "%s: params.json lacks %s\n", c->name, name);
            test_failures++;
            continue;
        }
        /* what the setup left, then params.json's value as the field holds it */
        double held = 0.0, want = 0.0;
        if (fovea_klt_get_field(tc, name, &held) != FOVEA_OK ||
            fovea_klt_set_field(tc, name, v->valuedouble) != FOVEA_OK ||
            fovea_klt_get_field(tc, name, &want) != FOVEA_OK) {
            fprintf(stderr, "%s: %s = %.9g: %s\n", c->name, name, v->valuedouble,
                    fovea_last_error(tc->ctx));
            test_failures++;
            continue;
        }
        if (held != want) {
            fprintf(stderr, "%s: after setup %s = %.9g, params.json says %.9g\n", c->name, name,
                    held, want);
            test_failures++;
        }
    }
    return tc;
}

/* The KLT call that produces record rec of case c on (tc, fl). */
KLT_CASES_FN void klt_case_call(const golden_case *c, const record *rec, KLT_TrackingContext tc,
                                KLT_FeatureList fl)
{
    int i = rec->frame;
    if (strcmp(rec->stage, "select") == 0)
        KLTSelectGoodFeatures(tc, c->frames[i], c->ncols, c->nrows, fl);
    else if (strcmp(rec->stage, "track") == 0)
        KLTTrackFeatures(tc, c->frames[i - 1], c->frames[i], c->ncols, c->nrows, fl);
    else
        KLTReplaceLostFeatures(tc, c->frames[i], c->ncols, c->nrows, fl);
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The libvmaf golden sets of tests/golden/libvmaf/<set>/: what libvmaf 3.2.0's
 * plain-C build (vmaf-c-17g, %.17g) printed for the public cases of
 * ../shared/testdata/vif.tar.xz (scripts/make-libvmaf-golden.sh), and the
 * comparison of fovea's doubles with them, bit for bit: every per-frame
 * value of every metric libvmaf printed, and every pooled value. Shared by
 * the C test (test_quality_libvmaf.c) and the GPU test (same sets on CUDA).
 *
 * A set's set.txt holds lines "key: value":
 *   libvmaf:  the arguments vmaf-c-17g ran with (the script's business)
 *   model:    the built-in model fovea opens (none: a feature list alone)
 *   models:   several models, each a fovea_vmaf_model_open spec (a version
 *             name or libvmaf's --model parameters), separated by spaces
 *   features: fovea_vmaf_settings.features
 *   flags:    no_prediction
 *   bits:     the depth the 8-bit inputs are shifted up to (8: as they are)
 *   cases:    the cases, or all */
#ifndef FOVEA_TEST_LIBVMAF_SETS_H
#define FOVEA_TEST_LIBVMAF_SETS_H

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fovea/fovea.h"
#include "fovea/io.h"
#include "fovea/quality.h"
#include "testutil.h"

typedef struct libvmaf_set {
    char model[128];
    char models[1024];
    char features[512];
    int flags;
    int bits;
} libvmaf_set;

/* The value of "key:" in text into out (empty when absent). */
static inline void libvmaf_set_value(const char *text, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    const size_t klen = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, key, klen) != 0 || l[klen] != ':')
            continue;
        const char *v = l + klen + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        size_t len = strcspn(v, "\n");
        while (len > 0 && (v[len - 1] == ' ' || v[len - 1] == '\r'))
            len--;
        if (len >= n)
            len = n - 1;
        memcpy(out, v, len);
        out[len] = '\0';
        return;
    }
}

/* Parse set dir's set.txt. @return 0, or -1 when unreadable */
static inline int libvmaf_set_read(const char *dir, libvmaf_set *s)
{
    char path[4096], v[64];
    snprintf(path, sizeof path, "%s/set.txt", dir);
    char *text = test_read_text(path);
    if (!text)
        return -1;
    memset(s, 0, sizeof(*s));
    libvmaf_set_value(text, "model", s->model, sizeof s->model);
    libvmaf_set_value(text, "models", s->models, sizeof s->models);
    libvmaf_set_value(text, "features", s->features, sizeof s->features);
    libvmaf_set_value(text, "flags", v, sizeof v);
    if (strstr(v, "no_prediction"))
        s->flags |= FOVEA_VMAF_NO_PREDICTION;
    libvmaf_set_value(text, "bits", v, sizeof v);
    s->bits = v[0] ? atoi(v) : 8;
    free(text);
    return 0;
}

/* f shifted up to bits (8-bit samples x << (bits - 8)) into out (allocated). */
static inline int libvmaf_shift(const fovea_frame *f, int bits, fovea_frame *out)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    const int chroma = d->planes == 1     ? 400
                       : d->log2_chroma_w ? (d->log2_chroma_h ? 420 : 422)
                                          : 444;
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(chroma, bits);
    memset(out, 0, sizeof(*out));
    int rc = fovea_frame_alloc(NULL, out, f->width, f->height, fmt, FOVEA_MEM_HOST);
    if (rc < 0)
        return rc;
    for (int p = 0; p < d->planes; p++) {
        const int w = fovea_plane_width(f->fmt, f->width, p);
        const int h = fovea_plane_height(f->fmt, f->height, p);
        for (int y = 0; y < h; y++) {
            const uint8_t *s = f->data[p] + (ptrdiff_t)y * f->stride[p];
            uint16_t *o = (uint16_t *)(void *)(out->data[p] + (ptrdiff_t)y * out->stride[p]);
            for (int x = 0; x < w; x++)
                o[x] = (uint16_t)(s[x] << (bits - 8));
        }
    }
    return FOVEA_OK;
}

/* Counts of one comparison. */
typedef struct libvmaf_tally {
    long values, exact;
    int shown;
} libvmaf_tally;

static inline void libvmaf_check(libvmaf_tally *t, const char *where, const char *name, double got,
                                 double want)
{
    t->values++;
    /* both NaN counts as equal (libvmaf prints nan for some degenerate cases) */
    if (got == want || (got != got && want != want)) {
        t->exact++;
        return;
    }
    if (t->shown++ < 6)
        fprintf(stderr, "    %s %s: fovea %.17g, libvmaf %.17g\n", where, name, got, want);
}

/* libvmaf prints a value that is not finite (inf, NaN) as null: fovea's must
 * then not be finite either. */
static inline void libvmaf_check_json(libvmaf_tally *t, const char *where, const char *name,
                                      double got, const cJSON *want)
{
    if (cJSON_IsNull(want))
        libvmaf_check(t, where, name, isfinite(got) ? got : NAN, NAN);
    else
        libvmaf_check(t, where, name, got, want->valuedouble);
}

/* Score case dir/case on backend b with set s and compare with the golden
 * JSON at golden. @return 1 when compared, 0 when the inputs are missing */
static inline int libvmaf_run_case(const libvmaf_set *s, fovea_backend b, const char *inputs,
                                   const char *cs, const char *golden, libvmaf_tally *t)
{
    char rp[4096], dp[4096];
    snprintf(rp, sizeof rp, "%s/%s/ref.y4m", inputs, cs);
    snprintf(dp, sizeof dp, "%s/%s/dis.y4m", inputs, cs);
    cJSON *root = NULL;
    {
        char *text = test_read_text(golden);
        REQUIRE(text);
        root = cJSON_Parse(text);
        free(text);
        REQUIRE(root);
    }
    fovea_settings cs_set;
    fovea_default_settings(&cs_set);
    cs_set.backend = b;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs_set) == FOVEA_OK);
    fovea_reader *r = NULL, *d = NULL;
    if (fovea_reader_open(&r, ctx, rp, NULL) < 0 || fovea_reader_open(&d, ctx, dp, NULL) < 0) {
        fovea_reader_close(&r);
        fovea_close(&ctx);
        cJSON_Delete(root);
        return 0;
    }
    fovea_vmaf_model *model = NULL;
    fovea_vmaf_settings vs;
    fovea_vmaf_default_settings(&vs);
    if (s->model[0] && strcmp(s->model, "none") != 0) {
        const int rc = fovea_vmaf_model_open(&model, ctx, s->model);
        if (rc < 0)
            fprintf(stderr, "    model %s: %s\n", s->model, fovea_last_error(ctx));
        REQUIRE(rc == FOVEA_OK);
        vs.model = model;
    }
    fovea_vmaf_model *more[8] = {NULL};
    int n_more = 0;
    {
        char list[sizeof s->models];
        memcpy(list, s->models, sizeof list);
        char *save = NULL;
        for (char *spec = strtok_r(list, " ", &save); spec; spec = strtok_r(NULL, " ", &save)) {
            REQUIRE(n_more < 8);
            const int rc = fovea_vmaf_model_open(&more[n_more], ctx, spec);
            if (rc < 0)
                fprintf(stderr, "    model %s: %s\n", spec, fovea_last_error(ctx));
            REQUIRE(rc == FOVEA_OK);
            n_more++;
        }
    }
    if (n_more) {
        vs.models = (const fovea_vmaf_model *const *)more;
        vs.n_models = n_more;
    }
    vs.features = s->features[0] ? s->features : NULL;
    vs.flags = s->flags;
    fovea_vmaf *v = NULL;
    {
        const int rc = fovea_vmaf_open(&v, ctx, &vs);
        if (rc == FOVEA_ERR_UNSUPPORTED && b == FOVEA_BACKEND_CUDA) {
            /* a feature without a CUDA extractor yet: the C test covers it */
            printf("    %s: not on CUDA: %s\n", cs, fovea_last_error(ctx));
            CHECK(strstr(fovea_last_error(ctx), "feature speed_chroma ") == NULL);
            fovea_reader_close(&r);
            fovea_reader_close(&d);
            fovea_vmaf_model_close(&model);
            for (int k = 0; k < n_more; k++)
                fovea_vmaf_model_close(&more[k]);
            fovea_close(&ctx);
            cJSON_Delete(root);
            return 0;
        }
        if (rc < 0)
            fprintf(stderr, "    %s: %s\n", cs, fovea_last_error(ctx));
        REQUIRE(rc == FOVEA_OK);
    }
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(root, "frames");
    fovea_frame fr, fd, sr, sd;
    memset(&fr, 0, sizeof fr);
    memset(&fd, 0, sizeof fd);
    int n = 0, got = 0;
    char where[256];
    for (;;) {
        const int a = fovea_reader_read(r, &fr), c = fovea_reader_read(d, &fd);
        if (a == FOVEA_EOF || c == FOVEA_EOF)
            break;
        REQUIRE(a == FOVEA_OK && c == FOVEA_OK);
        const fovea_frame *pr = &fr, *pd = &fd;
        /* 8-bit cases are shifted up to the set's depth; deeper ones are read
         * as they are (as scripts/y4m-shift.py does for libvmaf) */
        const int shift = s->bits > 8 && fovea_pixfmt_get_desc(fr.fmt)->bit_depth == 8;
        if (shift) {
            REQUIRE(libvmaf_shift(&fr, s->bits, &sr) == FOVEA_OK);
            REQUIRE(libvmaf_shift(&fd, s->bits, &sd) == FOVEA_OK);
            pr = &sr;
            pd = &sd;
        }
        int rc = fovea_vmaf_submit(v, pr, pd);
        if (rc < 0)
            fprintf(stderr, "    %s: %s\n", cs, fovea_last_error(ctx));
        REQUIRE(rc == FOVEA_OK);
        if (shift) {
            fovea_frame_free(NULL, &sr);
            fovea_frame_free(NULL, &sd);
        }
        n++;
        for (;;) {
            fovea_vmaf_scores sc;
            if (got == n)
                break;
            if (fovea_vmaf_receive(v, &sc) != FOVEA_OK)
                break;
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetArrayItem(frames, (int)sc.frame), "metrics");
            const cJSON *x;
            snprintf(where, sizeof where, "%s frame %d", cs, (int)sc.frame);
            CHECK(m != NULL);
            cJSON_ArrayForEach(x, m)
            {
                const int i = fovea_vmaf_metric_index(v, x->string);
                libvmaf_check_json(t, where, x->string, i < 0 ? -1e300 : sc.value[i], x);
            }
            /* fovea reports nothing libvmaf did not */
            CHECK_EQ_INT(cJSON_GetArraySize(m), sc.count);
            got++;
        }
    }
    fovea_vmaf_flush(v);
    fovea_vmaf_scores sc;
    while (fovea_vmaf_receive(v, &sc) == FOVEA_OK) {
        const cJSON *m =
            cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(frames, (int)sc.frame), "metrics");
        const cJSON *x;
        snprintf(where, sizeof where, "%s frame %d", cs, (int)sc.frame);
        CHECK(m != NULL);
        cJSON_ArrayForEach(x, m)
        {
            const int i = fovea_vmaf_metric_index(v, x->string);
            libvmaf_check_json(t, where, x->string, i < 0 ? -1e300 : sc.value[i], x);
        }
        CHECK_EQ_INT(cJSON_GetArraySize(m), sc.count);
        got++;
    }
    CHECK_EQ_INT(got, cJSON_GetArraySize(frames));
    CHECK(n > 0);
    fovea_vmaf_pooled_scores ps;
    REQUIRE(fovea_vmaf_pooled(v, &ps) == FOVEA_OK);
    const cJSON *pm;
    snprintf(where, sizeof where, "%s pooled", cs);
    cJSON_ArrayForEach(pm, cJSON_GetObjectItemCaseSensitive(root, "pooled_metrics"))
    {
        const int i = fovea_vmaf_metric_index(v, pm->string);
        static const char *const what[4] = {"min", "max", "mean", "harmonic_mean"};
        for (int k = 0; k < 4; k++) {
            const cJSON *w = cJSON_GetObjectItemCaseSensitive(pm, what[k]);
            if (!w)
                continue;
            double g = -1e300;
            if (i >= 0)
                g = k == 0   ? ps.metric[i].min
                    : k == 1 ? ps.metric[i].max
                    : k == 2 ? ps.metric[i].mean
                             : ps.metric[i].harmonic_mean;
            char name[256];
            snprintf(name, sizeof name, "%s.%s", pm->string, what[k]);
            libvmaf_check_json(t, where, name, g, w);
        }
    }
    /* aggregate_metrics: libvmaf prints a value that is not finite as null */
    fovea_vmaf_aggregates ag;
    REQUIRE(fovea_vmaf_aggregate(v, &ag) == FOVEA_OK);
    const cJSON *am = cJSON_GetObjectItemCaseSensitive(root, "aggregate_metrics");
    snprintf(where, sizeof where, "%s aggregate", cs);
    CHECK_EQ_INT(cJSON_GetArraySize(am), ag.count);
    cJSON_ArrayForEach(pm, am)
    {
        int i = 0;
        while (i < ag.count && strcmp(ag.name[i], pm->string) != 0)
            i++;
        libvmaf_check_json(t, where, pm->string, i < ag.count ? ag.value[i] : -1e300, pm);
    }
    fovea_frame_free(ctx, &fr);
    fovea_frame_free(ctx, &fd);
    fovea_reader_close(&r);
    fovea_reader_close(&d);
    fovea_vmaf_close(&v);
    fovea_vmaf_model_close(&model);
    for (int k = 0; k < n_more; k++)
        fovea_vmaf_model_close(&more[k]);
    fovea_close(&ctx);
    cJSON_Delete(root);
    return 1;
}

static int libvmaf_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when set is in the environment's FOVEA_LIBVMAF_SETS (space-separated
 * names; unset or empty: every set). gpu-check.sh's memcheck run uses it to
 * keep the run short. */
static inline int libvmaf_listed(const char *set)
{
    const char *list = getenv("FOVEA_LIBVMAF_SETS");
    if (!list || !*list)
        return 1;
    const size_t n = strlen(set);
    for (const char *p = list; (p = strstr(p, set)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
            return 1;
    return 0;
}

/* Run every set (or the one named only) on backend b. @return the number of
 * cases compared (0: the inputs are absent) */
static inline int libvmaf_run_sets(fovea_backend b, const char *only)
{
    const char *inputs = test_golden_dir("vif");
    if (!inputs) {
        printf("golden inputs not found (../shared/testdata/vif.tar.xz absent at configure "
               "time): skipping the libvmaf golden sets\n");
        return 0;
    }
    char root[4096];
    snprintf(root, sizeof root, "%s/tests/golden/libvmaf", test_source_dir());
    DIR *top = opendir(root);
    REQUIRE(top);
    char *sets[256];
    int nsets = 0;
    struct dirent *de;
    while ((de = readdir(top)) && nsets < 256)
        if (de->d_name[0] != '.')
            sets[nsets++] = strdup(de->d_name);
    closedir(top);
    qsort(sets, (size_t)nsets, sizeof sets[0], libvmaf_name_cmp);
    int compared = 0;
    for (int si = 0; si < nsets; si++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", root, sets[si]);
        libvmaf_set s;
        if ((only && strcmp(only, sets[si]) != 0) || !libvmaf_listed(sets[si]) ||
            libvmaf_set_read(dir, &s) < 0) {
            free(sets[si]);
            continue;
        }
        DIR *sd = opendir(dir);
        REQUIRE(sd);
        char *cases[64];
        int ncases = 0;
        while ((de = readdir(sd)) && ncases < 64) {
            const size_t len = strlen(de->d_name);
            if (len > 5 && !strcmp(de->d_name + len - 5, ".json"))
                cases[ncases++] = strndup(de->d_name, len - 5);
        }
        closedir(sd);
        qsort(cases, (size_t)ncases, sizeof cases[0], libvmaf_name_cmp);
        for (int ci = 0; ci < ncases; ci++) {
            char golden[4200];
            snprintf(golden, sizeof golden, "%s/%s.json", dir, cases[ci]);
            libvmaf_tally t = {0, 0, 0};
            if (libvmaf_run_case(&s, b, inputs, cases[ci], golden, &t)) {
                printf("  %-22s %-36s %6ld of %6ld values exact\n", sets[si], cases[ci], t.exact,
                       t.values);
                CHECK(t.values > 0);
                CHECK(t.exact == t.values);
                compared++;
            }
            free(cases[ci]);
        }
        CHECK(ncases > 0);
        free(sets[si]);
    }
    return compared;
}

#endif

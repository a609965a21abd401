/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The golden cases the repository carries (tests/data/vmaf_carried, README
 * there): every per-frame value and every pooled value of libvmaf 3.2.0's
 * vmaf_v0.6.1 run and of its VIF debug run, compared with == through the
 * public API and through `fovea vmaf --json` / `fovea vif --debug --json`.
 * Never skipped: CMake extracts the cases in every build. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cjson/cJSON.h>

#include "fovea/io.h"
#include "fovea/quality.h"
#include "testutil.h"

#define MAX_CASES 64
#define MAX_FRAMES 64

static const char *const pool_names[4] = {"min", "max", "mean", "harmonic_mean"};

typedef struct pairs {
    int n;
    fovea_frame ref[MAX_FRAMES], dis[MAX_FRAMES];
} pairs;

/* Values compared and values equal, per case. */
typedef struct tally {
    int total, exact;
} tally;

static void tally_add(tally *t, const char *cs, const char *what, int same, double got, double want)
{
    t->total++;
    if (same) {
        t->exact++;
    } else if (t->total - t->exact <= 8) {
        fprintf(stderr, "  %s %s: got %.17g, libvmaf %.17g\n", cs, what, got, want);
    }
}

static void read_pairs(const char *dir, const char *cs, const cJSON *exp, pairs *p)
{
    char path[4096];
    fovea_reader *r[2] = {NULL, NULL};
    const char *names[2] = {"ref", "dis"};
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s/%s.y4m", dir, cs, names[k]);
        REQUIRE(fovea_reader_open(&r[k], NULL, path, NULL) == FOVEA_OK);
    }
    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(exp, "pix_fmt");
    REQUIRE(cJSON_IsString(fmt));
    const fovea_pixfmt want = fovea_pixfmt_from_name(fmt->valuestring);
    CHECK(want != FOVEA_PIX_NONE);
    const int w = cJSON_GetObjectItemCaseSensitive(exp, "width")->valueint;
    const int h = cJSON_GetObjectItemCaseSensitive(exp, "height")->valueint;
    memset(p, 0, sizeof *p);
    for (;;) {
        REQUIRE(p->n < MAX_FRAMES);
        int a = fovea_reader_read(r[0], &p->ref[p->n]);
        int b = fovea_reader_read(r[1], &p->dis[p->n]);
        CHECK_EQ_INT(a, b);
        if (a != FOVEA_OK || b != FOVEA_OK) {
            CHECK(a == FOVEA_EOF);
            fovea_frame_free(NULL, &p->ref[p->n]);
            fovea_frame_free(NULL, &p->dis[p->n]);
            break;
        }
        for (int k = 0; k < 2; k++) {
            const fovea_frame *f = k ? &p->dis[p->n] : &p->ref[p->n];
            CHECK(f->width == w && f->height == h && f->fmt == want);
        }
        p->n++;
    }
    fovea_reader_close(&r[0]);
    fovea_reader_close(&r[1]);
}

static void free_pairs(pairs *p)
{
    for (int i = 0; i < p->n; i++) {
        fovea_frame_free(NULL, &p->ref[i]);
        fovea_frame_free(NULL, &p->dis[i]);
    }
    p->n = 0;
}

/* ---------------------------------------------------------------- the API */

/* Score every pair (receiving as scores become ready) and compare each frame,
 * the metric names and their order, and the pooling with the recorded set
 * ({"frames": [{"frameNum", "metrics"}], "pooled_metrics"}). */
static void check_api(fovea_context *ctx, const fovea_vmaf_settings *s, const pairs *p,
                      const char *cs, const cJSON *set, tally *t)
{
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(set, "frames");
    CHECK_EQ_INT(cJSON_GetArraySize(frames), p->n);
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, ctx, s) == FOVEA_OK);
    const int count = fovea_vmaf_metric_count(v);
    int n = 0;
    fovea_vmaf_scores sc;
    for (int i = 0; i <= p->n; i++) {
        if (i < p->n)
            REQUIRE(fovea_vmaf_submit(v, &p->ref[i], &p->dis[i]) == FOVEA_OK);
        else
            REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
        int st;
        while ((st = fovea_vmaf_receive(v, &sc)) == FOVEA_OK) {
            const cJSON *f = cJSON_GetArrayItem(frames, n);
            const cJSON *num = cJSON_GetObjectItemCaseSensitive(f, "frameNum");
            CHECK(cJSON_IsNumber(num) && num->valuedouble == (double)sc.frame);
            const cJSON *metrics = cJSON_GetObjectItemCaseSensitive(f, "metrics");
            CHECK_EQ_INT(cJSON_GetArraySize(metrics), count);
            int m = 0;
            const cJSON *want;
            cJSON_ArrayForEach(want, metrics)
            {
                if (m >= count)
                    break;
                char what[160];
                snprintf(what, sizeof what, "API %s frame %d", want->string, n);
                const int same_name = strcmp(fovea_vmaf_metric_name(v, m), want->string) == 0;
                if (!same_name)
                    fprintf(stderr, "  %s metric %d: %s, libvmaf prints %s\n", cs, m,
                            fovea_vmaf_metric_name(v, m), want->string);
                CHECK(same_name);
                tally_add(t, cs, what, cJSON_IsNumber(want) && sc.value[m] == want->valuedouble,
                          sc.value[m], want->valuedouble);
                m++;
            }
            n++;
        }
        CHECK_EQ_INT(st, FOVEA_AGAIN);
    }
    CHECK_EQ_INT(n, p->n);
    fovea_vmaf_pooled_scores ps;
    REQUIRE(fovea_vmaf_pooled(v, &ps) == FOVEA_OK);
    CHECK_EQ_INT(ps.frames, p->n);
    const cJSON *pooled = cJSON_GetObjectItemCaseSensitive(set, "pooled_metrics");
    CHECK_EQ_INT(cJSON_GetArraySize(pooled), count);
    for (int m = 0; m < count && m < ps.count; m++) {
        const char *name = fovea_vmaf_metric_name(v, m);
        const cJSON *pm = cJSON_GetObjectItemCaseSensitive(pooled, name);
        const double have[4] = {ps.metric[m].min, ps.metric[m].max, ps.metric[m].mean,
                                ps.metric[m].harmonic_mean};
        for (int k = 0; k < 4; k++) {
            const cJSON *want = cJSON_GetObjectItemCaseSensitive(pm, pool_names[k]);
            char what[160];
            snprintf(what, sizeof what, "API pooled %s.%s", name, pool_names[k]);
            tally_add(t, cs, what, cJSON_IsNumber(want) && have[k] == want->valuedouble, have[k],
                      cJSON_IsNumber(want) ? want->valuedouble : NAN);
        }
    }
    fovea_vmaf_close(&v);
}

/* ---------------------------------------------------------------- the CLI */

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A member's value and name must be those of want, in want's order. */
static void same_members(const char *cs, const char *what, const cJSON *got, const cJSON *want,
                         tally *t, int pooled)
{
    CHECK_EQ_INT(cJSON_GetArraySize(got), cJSON_GetArraySize(want));
    const cJSON *g = got ? got->child : NULL, *w;
    cJSON_ArrayForEach(w, want)
    {
        char label[200];
        snprintf(label, sizeof label, "%s %s", what, w->string);
        const int same_name = g && g->string && strcmp(g->string, w->string) == 0;
        if (!same_name)
            fprintf(stderr, "  %s %s: fovea writes %s\n", cs, label, g ? g->string : "nothing");
        CHECK(same_name);
        if (pooled) {
            same_members(cs, label, g, w, t, 0);
        } else {
            const double gv = cJSON_IsNumber(g) ? g->valuedouble : NAN;
            tally_add(t, cs, label, cJSON_IsNumber(g) && cJSON_IsNumber(w) && gv == w->valuedouble,
                      gv, w->valuedouble);
        }
        g = g ? g->next : NULL;
    }
}

/* `fovea <args> --json OUT REF DIS` and its JSON against the recorded set. */
static void check_cli(const char *cli, const char *args, const char *dir, const char *cs,
                      const cJSON *set, tally *t)
{
    char *out = test_tmp_path(".json");
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "'%s' %s --json '%s' '%s/%s/ref.y4m' '%s/%s/dis.y4m'", cli, args, out,
             dir, cs, dir, cs);
    CHECK_EQ_INT(run(cmd), 0);
    char *text = test_read_text(out);
    cJSON *got = text ? cJSON_Parse(text) : NULL;
    free(text);
    free(out);
    CHECK(got != NULL);
    const cJSON *gf = cJSON_GetObjectItemCaseSensitive(got, "frames");
    const cJSON *wf = cJSON_GetObjectItemCaseSensitive(set, "frames");
    CHECK_EQ_INT(cJSON_GetArraySize(gf), cJSON_GetArraySize(wf));
    for (int i = 0; i < cJSON_GetArraySize(wf); i++) {
        const cJSON *g = cJSON_GetArrayItem(gf, i), *w = cJSON_GetArrayItem(wf, i);
        const cJSON *gn = cJSON_GetObjectItemCaseSensitive(g, "frameNum");
        const cJSON *wn = cJSON_GetObjectItemCaseSensitive(w, "frameNum");
        CHECK(cJSON_IsNumber(gn) && cJSON_IsNumber(wn) && gn->valuedouble == wn->valuedouble);
        char what[64];
        snprintf(what, sizeof what, "CLI frame %d", i);
        same_members(cs, what, cJSON_GetObjectItemCaseSensitive(g, "metrics"),
                     cJSON_GetObjectItemCaseSensitive(w, "metrics"), t, 0);
    }
    same_members(cs, "CLI pooled", cJSON_GetObjectItemCaseSensitive(got, "pooled_metrics"),
                 cJSON_GetObjectItemCaseSensitive(set, "pooled_metrics"), t, 1);
    cJSON_Delete(got);
}

/* ---------------------------------------------------------------- cases */

/* The cases CMake extracted (FOVEA_CARRIED_CASES, comma-separated); every
 * <case>.json of the data folder must be one of them. */
static int list_cases(const char *data, char **cases)
{
    const char *env = getenv("FOVEA_CARRIED_CASES");
    REQUIRE(env && *env);
    int n = 0;
    char *copy = strdup(env), *save = NULL;
    REQUIRE(copy);
    for (char *c = strtok_r(copy, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        REQUIRE(n < MAX_CASES);
        cases[n] = strdup(c);
        REQUIRE(cases[n]);
        n++;
    }
    free(copy);
    DIR *d = opendir(data);
    REQUIRE(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0)
            continue;
        int listed = 0;
        for (int i = 0; i < n; i++)
            listed |= strlen(cases[i]) == len - 5 && strncmp(cases[i], e->d_name, len - 5) == 0;
        if (!listed)
            fprintf(stderr, "%s/%s: not in tests/CMakeLists.txt's FOVEA_CARRIED_CASES\n", data,
                    e->d_name);
        CHECK(listed);
    }
    closedir(d);
    return n;
}

int main(void)
{
    const char *dir = test_golden_dir("vmaf_carried");
    REQUIRE(dir); /* extracted by CMake at configure time */
    char data[4096];
    snprintf(data, sizeof data, "%s/tests/data/vmaf_carried", test_source_dir());
    char *cases[MAX_CASES];
    const int ncases = list_cases(data, cases);
    CHECK(ncases >= 6);
    const char *cli = getenv("FOVEA_CLI");
    REQUIRE(cli && *cli);

    fovea_settings settings;
    fovea_default_settings(&settings);
    settings.backend = FOVEA_BACKEND_CPU;
    settings.threads = 3;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &settings) == FOVEA_OK);

    static pairs p;
    for (int c = 0; c < ncases; c++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.json", data, cases[c]);
        char *text = test_read_text(path);
        cJSON *exp = text ? cJSON_Parse(text) : NULL;
        free(text);
        REQUIRE(exp);
        read_pairs(dir, cases[c], exp, &p);
        CHECK(p.n >= 6);
        const cJSON *vmaf = cJSON_GetObjectItemCaseSensitive(exp, "vmaf_v0.6.1");
        const cJSON *vif = cJSON_GetObjectItemCaseSensitive(exp, "vif_debug");
        REQUIRE(vmaf && vif);
        tally api = {0, 0}, cli_t = {0, 0};

        /* vmaf_v0.6.1 (the default settings), then VIF with its debug outputs
         * (libvmaf's --feature vif=debug=true --no_prediction) */
        fovea_vmaf_settings s;
        fovea_vmaf_default_settings(&s);
        check_api(ctx, &s, &p, cases[c], vmaf, &api);
        s.features = "vif:debug=true";
        s.flags = FOVEA_VMAF_NO_PREDICTION;
        check_api(ctx, &s, &p, cases[c], vif, &api);

        check_cli(cli, "vmaf -q --threads 2", dir, cases[c], vmaf, &cli_t);
        check_cli(cli, "vif -q --debug --threads 2", dir, cases[c], vif, &cli_t);

        printf("  %-34s %2d frames: API %d/%d values exact, CLI %d/%d\n", cases[c], p.n, api.exact,
               api.total, cli_t.exact, cli_t.total);
        CHECK(api.total > 0 && api.exact == api.total);
        CHECK(cli_t.total > 0 && cli_t.exact == cli_t.total);
        free_pairs(&p);
        cJSON_Delete(exp);
        free(cases[c]);
    }
    fovea_close(&ctx);
    return test_finish("test_quality_carried");
}

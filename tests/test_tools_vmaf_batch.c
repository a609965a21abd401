/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The batch mode of `fovea vmaf --manifest` without video: the worker plan
 * for machines with 0, 1 and 2 GPUs (what a two-GPU machine runs, checked on
 * the CPU), the scheduler's threads (every task once, spread over the
 * workers, a worker that cannot start leaving its share to the others), the
 * shard arithmetic and the manifest parser (CSV and JSON lines, every
 * malformed line reported with file:line). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"
#include "vmaf_manifest.h"
#include "vmaf_sched.h"

/* ------------------------------------------------------------------ plan */

static void test_plan(void)
{
    sched_worker w[SCHED_MAX_WORKERS];
    char err[256];
    sched_request rq;

    /* two GPUs, defaults: 2 workers per device, interleaved */
    memset(&rq, 0, sizeof(rq));
    rq.visible_devices = 2;
    rq.cpu_count = 16;
    int n = sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err));
    CHECK_EQ_INT(n, 2 * SCHED_DEFAULT_GPU_JOBS);
    for (int k = 0; k < n; k++) {
        CHECK(w[k].backend == FOVEA_BACKEND_CUDA);
        CHECK_EQ_INT(w[k].device, k % 2);
        CHECK_EQ_INT(w[k].threads, 16 / n);
    }
    CHECK(strcmp(w[0].label, "cuda:0") == 0 && strcmp(w[1].label, "cuda:1") == 0);

    /* --devices 1 --jobs 3 of four visible */
    const int one[] = {1};
    rq.visible_devices = 4;
    rq.devices = one;
    rq.ndevices = 1;
    rq.jobs = 3;
    n = sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err));
    CHECK_EQ_INT(n, 3);
    for (int k = 0; k < n; k++)
        CHECK(w[k].device == 1 && strcmp(w[k].label, "cuda:1") == 0);

    /* a device that is not there; --devices with --backend cpu */
    const int bad[] = {0, 5};
    rq.devices = bad;
    rq.ndevices = 2;
    CHECK_EQ_INT(sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err)), -1);
    CHECK(strstr(err, "no CUDA device 5") != NULL);
    rq.backend = FOVEA_BACKEND_CPU;
    rq.devices = one;
    rq.ndevices = 1;
    CHECK_EQ_INT(sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err)), -1);

    /* no GPU: CPU workers (one per 4 CPUs by default), threads shared */
    memset(&rq, 0, sizeof(rq));
    rq.cpu_count = 16;
    n = sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err));
    CHECK_EQ_INT(n, 4);
    CHECK(w[0].backend == FOVEA_BACKEND_CPU && w[0].device == -1 && w[0].threads == 4);
    rq.cpu_count = 2;
    n = sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err));
    CHECK(n == 1 && w[0].threads == 2);
    rq.jobs = 3;
    rq.threads = 5;
    n = sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err));
    CHECK(n == 3 && w[2].threads == 5 && strcmp(w[2].label, "cpu") == 0);
    /* GPUs present but --backend cpu; --backend cuda without a GPU */
    rq.visible_devices = 2;
    rq.backend = FOVEA_BACKEND_CPU;
    CHECK(sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err)) == 3 &&
          w[0].backend == FOVEA_BACKEND_CPU);
    rq.visible_devices = 0;
    rq.backend = FOVEA_BACKEND_CUDA;
    CHECK_EQ_INT(sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err)), -1);
    CHECK(strstr(err, "no CUDA device") != NULL);
    /* too many workers */
    memset(&rq, 0, sizeof(rq));
    rq.visible_devices = 2;
    rq.jobs = SCHED_MAX_WORKERS;
    rq.cpu_count = 1;
    CHECK_EQ_INT(sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err)), -1);
}

/* ------------------------------------------------------------------ threads */

#define NTASKS 200
#define NWORKERS 6

typedef struct fake {
    sched_worker *w;
    int fail_device; /* workers of this device cannot start; -1 none */
    pthread_mutex_t mu;
    int runs[NTASKS]; /* times each task ran */
    int unrun[NTASKS];
    int by_worker[NWORKERS];
    int by_device[4];
    int inits, finis;
    int init_calls; /* inits returned, successful or not */
    int run_before_all_inits;
    int in_flight, max_in_flight;
} fake;

static int fake_init(void *opaque, int w, void **state, char *err, size_t errsz)
{
    fake *f = opaque;
    /* a slow start (a CUDA context): no task may run before every init returned */
    const struct timespec ts = {0, 2000000L * (w % 3)};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&f->mu);
    f->init_calls++;
    pthread_mutex_unlock(&f->mu);
    if (f->w[w].device == f->fail_device) {
        snprintf(err, errsz, "%s: no such device", f->w[w].label);
        return -1;
    }
    pthread_mutex_lock(&f->mu);
    f->inits++;
    pthread_mutex_unlock(&f->mu);
    *state = &f->w[w];
    return 0;
}

static void fake_run(void *opaque, int w, void *state, int64_t t)
{
    fake *f = opaque;
    CHECK(state == &f->w[w]);
    pthread_mutex_lock(&f->mu);
    if (f->init_calls != NWORKERS)
        f->run_before_all_inits++;
    f->runs[t]++;
    f->by_worker[w]++;
    f->by_device[f->w[w].device]++;
    if (++f->in_flight > f->max_in_flight)
        f->max_in_flight = f->in_flight;
    pthread_mutex_unlock(&f->mu);
    /* long enough for every worker to take tasks */
    const struct timespec ts = {0, 200000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&f->mu);
    f->in_flight--;
    pthread_mutex_unlock(&f->mu);
}

static void fake_fini(void *opaque, int w, void *state)
{
    fake *f = opaque;
    CHECK(state == &f->w[w]);
    pthread_mutex_lock(&f->mu);
    f->finis++;
    pthread_mutex_unlock(&f->mu);
}

static void fake_unrun(void *opaque, int64_t t, const char *msg)
{
    fake *f = opaque;
    CHECK(strstr(msg, "no such device") != NULL);
    f->unrun[t]++;
}

static void test_threads(void)
{
    /* the plan of a 3-GPU machine, 2 per device: what the CLI makes */
    sched_worker w[SCHED_MAX_WORKERS];
    char err[256];
    sched_request rq;
    memset(&rq, 0, sizeof(rq));
    rq.visible_devices = 3;
    rq.cpu_count = 8;
    REQUIRE(sched_plan(&rq, w, SCHED_MAX_WORKERS, err, sizeof(err)) == NWORKERS);
    const sched_ops ops = {fake_init, fake_run, fake_fini, fake_unrun};

    for (int round = 0; round < 3; round++) {
        fake *f = calloc(1, sizeof(*f));
        REQUIRE(f);
        f->w = w;
        f->fail_device = round == 0 ? -1 : round == 1 ? 1 : 99;
        pthread_mutex_init(&f->mu, NULL);
        if (round == 2) {
            /* every worker fails: every task is reported unrun */
            for (int k = 0; k < NWORKERS; k++)
                w[k].device = 2;
            f->fail_device = 2;
        }
        const int64_t ran = sched_run(&ops, f, NWORKERS, NTASKS);
        int once = 1, never = 1;
        for (int t = 0; t < NTASKS; t++) {
            once &= f->runs[t] + f->unrun[t] == 1;
            never &= f->unrun[t] == 0;
        }
        CHECK(once);
        CHECK_EQ_INT(f->inits, f->finis);
        CHECK_EQ_INT(f->init_calls, NWORKERS);
        CHECK_EQ_INT(f->run_before_all_inits, 0);
        if (round == 0) {
            /* every worker and every device took a share, in parallel */
            CHECK_EQ_INT(ran, NTASKS);
            CHECK(never);
            for (int k = 0; k < NWORKERS; k++)
                CHECK(f->by_worker[k] > 0);
            for (int d = 0; d < 3; d++)
                CHECK(f->by_device[d] > 0);
            CHECK(f->max_in_flight > 1);
        } else if (round == 1) {
            /* device 1 cannot start: devices 0 and 2 score everything */
            CHECK_EQ_INT(ran, NTASKS);
            CHECK(never);
            CHECK_EQ_INT(f->by_device[1], 0);
            CHECK_EQ_INT(f->by_device[0] + f->by_device[2], NTASKS);
            CHECK_EQ_INT(f->inits, NWORKERS - 2);
        } else {
            CHECK_EQ_INT(ran, 0);
            CHECK_EQ_INT(f->inits, 0);
        }
        pthread_mutex_destroy(&f->mu);
        free(f);
    }
}

/* ------------------------------------------------------------------ shards, lists */

static void test_shards(void)
{
    int64_t i = -1, n = -1;
    CHECK(sched_parse_shard("0/1", &i, &n) == 0 && i == 0 && n == 1);
    CHECK(sched_parse_shard("3/4", &i, &n) == 0 && i == 3 && n == 4);
    const char *bad[] = {"",    "1",     "4/4",  "5/4",  "-1/4", "0/0", "1/-2",
                         "a/b", "1/2/3", "1 /2", "1/2x", "/2",   "1/",  "99999999999999999999/1"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
        CHECK(sched_parse_shard(bad[k], &i, &n) == -1);
    /* shards 0..N-1 of N take every pair exactly once, each every N-th */
    for (int64_t count = 1; count <= 7; count++) {
        for (int64_t k = 0; k < 50; k++) {
            int owners = 0;
            for (int64_t s = 0; s < count; s++)
                owners += sched_in_shard(k, s, count);
            CHECK_EQ_INT(owners, 1);
            CHECK(sched_in_shard(k, k % count, count));
        }
    }
    int d[SCHED_MAX_DEVICES];
    CHECK(sched_parse_devices("0,1", d, SCHED_MAX_DEVICES) == 2 && d[0] == 0 && d[1] == 1);
    CHECK(sched_parse_devices("3", d, SCHED_MAX_DEVICES) == 1 && d[0] == 3);
    const char *bad_dev[] = {"", "0,", ",0", "0,0", "a", "-1", "1 ,2", "64", "0;1"};
    for (size_t k = 0; k < sizeof(bad_dev) / sizeof(bad_dev[0]); k++)
        CHECK(sched_parse_devices(bad_dev[k], d, SCHED_MAX_DEVICES) == -1);
}

/* ------------------------------------------------------------------ manifest */

static manifest parse_n(const char *text, size_t len)
{
    manifest m;
    REQUIRE(manifest_parse(&m, "m.csv", text, len) == 0);
    return m;
}

static manifest parse(const char *text)
{
    return parse_n(text, strlen(text));
}

/* The manifest text[0..len) has exactly one error, on line `line`, whose text
 * has `what`. */
static void check_error_n(const char *text, size_t len, int line, const char *what)
{
    manifest m = parse_n(text, len);
    char want[64];
    snprintf(want, sizeof(want), "m.csv:%d: ", line);
    if (m.nerrors != 1 || !m.errors || strncmp(m.errors, want, strlen(want)) != 0 ||
        !strstr(m.errors, what)) {
        fprintf(stderr, "manifest %s\n  expected one error '%s...%s', got %d: %s\n", text, want,
                what, m.nerrors, m.errors ? m.errors : "(none)");
        test_failures++;
    }
    manifest_free(&m);
}

static void check_error(const char *text, int line, const char *what)
{
    check_error_n(text, strlen(text), line, what);
}

static void test_manifest(void)
{
    /* CSV: comments, blank lines, CRLF, quotes, columns in any order */
    manifest m = parse("# pairs\r\n"
                       "\n"
                       "ID, Dis ,ref,frames,model\r\n"
                       "a,d0.y4m,r0.y4m,,\n"
                       "   # an indented comment\n"
                       "\"b,c\",\"my \"\"dis\"\".y4m\", r1.y4m ,5,version=vmaf_v0.6.1\n"
                       ",d2.y4m,r2.y4m,0,m.json");
    CHECK_EQ_INT(m.nerrors, 0);
    CHECK(!m.json);
    REQUIRE(m.n == 3);
    CHECK(strcmp(m.pair[0].id, "a") == 0 && strcmp(m.pair[0].ref, "r0.y4m") == 0);
    CHECK(strcmp(m.pair[0].dis, "d0.y4m") == 0 && m.pair[0].model == NULL);
    CHECK(m.pair[0].frames == -1 && m.pair[0].line == 4);
    CHECK(strcmp(m.pair[1].id, "b,c") == 0 && strcmp(m.pair[1].dis, "my \"dis\".y4m") == 0);
    CHECK(strcmp(m.pair[1].ref, "r1.y4m") == 0 && m.pair[1].frames == 5);
    CHECK(strcmp(m.pair[1].model, "version=vmaf_v0.6.1") == 0 && m.pair[1].line == 6);
    CHECK(m.pair[2].id == NULL && m.pair[2].frames == 0 && strcmp(m.pair[2].model, "m.json") == 0);
    manifest_free(&m);

    /* JSON lines */
    m = parse("{\"ref\": \"r.y4m\", \"dis\": \"d.y4m\"}\n"
              "# a comment\n"
              "\n"
              "  {\"dis\": \"d2.y4m\", \"ref\": \"r2.y4m\", \"id\": 17, \"frames\": 3, "
              "\"model\": \"x.json\"}  \r\n"
              "{\"ref\": \"r3.y4m\", \"dis\": \"d3.y4m\", \"id\": \"s\"}");
    CHECK_EQ_INT(m.nerrors, 0);
    CHECK(m.json);
    REQUIRE(m.n == 3);
    CHECK(m.pair[0].id == NULL && m.pair[0].frames == -1);
    CHECK(strcmp(m.pair[1].id, "17") == 0 && m.pair[1].id_is_number && m.pair[1].frames == 3);
    CHECK(strcmp(m.pair[1].model, "x.json") == 0 && m.pair[1].line == 4);
    CHECK(strcmp(m.pair[2].id, "s") == 0 && !m.pair[2].id_is_number);
    manifest_free(&m);

    /* malformed CSV lines, each with its line and reason */
    check_error("ref,dis\na.y4m\n", 2, "1 field, the header has 2");
    check_error("ref,dis\na,b,c\n", 2, "3 fields");
    check_error("ref,dis\n\"a,b\n", 2, "no closing quote");
    check_error("ref,dis\n\"a\"x,b\n", 2, "text after the closing quote");
    check_error("ref,dis\n,b\n", 2, "no ref");
    check_error("ref,dis\na, \n", 2, "no dis");
    check_error("ref,dis\n-,b.y4m\n", 2, "stdin");
    check_error("ref,dis,frames\na,b,x\n", 2, "frames: expected a non-negative integer");
    check_error("ref,dis,frames\na,b,-1\n", 2, "frames");
    check_error("# c\nref,dist\na,b\n", 2, "unknown column 'dist'");
    check_error("ref,ref,dis\n", 1, "column 'ref' twice");
    check_error("ref,id\na,b\n", 1, "needs the columns ref and dis");
    check_error("a.y4m,b.y4m\n", 1, "unknown column");
    check_error_n("ref,dis\na,b\0c\nd,e\n", 18, 2, "NUL");
    /* several bad lines: each counted */
    m = parse("ref,dis\na\nb,c\nd\n,\n");
    CHECK_EQ_INT(m.nerrors, 3);
    CHECK(m.errors && strstr(m.errors, "m.csv:2: ") && strstr(m.errors, "m.csv:4: ") &&
          strstr(m.errors, "m.csv:5: "));
    manifest_free(&m);
    /* more than MANIFEST_MAX_REPORTED: the rest counted */
    {
        char text[4096] = "ref,dis\n";
        for (int k = 0; k < MANIFEST_MAX_REPORTED + 5; k++)
            strcat(text, "x\n");
        m = parse(text);
        CHECK_EQ_INT(m.nerrors, MANIFEST_MAX_REPORTED + 5);
        CHECK(m.errors && strstr(m.errors, "... and 5 more"));
        manifest_free(&m);
    }

    /* malformed JSON lines */
    check_error("{\"ref\": \"a\", \"dis\": \"b\"}\n{\"ref\": \"a\"\n", 2, "invalid JSON");
    check_error("{\"ref\": \"a\", \"dis\": \"b\"}\n[1]\n", 2, "expected a JSON object");
    check_error("{\"ref\": \"a\", \"dis\": \"b\", \"dist\": 1}\n", 1, "unknown key 'dist'");
    check_error("{\"ref\": \"a\", \"dis\": \"b\", \"ref\": \"c\"}\n", 1, "key 'ref' twice");
    check_error("{\"ref\": \"a\"}\n", 1, "no dis");
    check_error("{\"ref\": 3, \"dis\": \"b\"}\n", 1, "ref: expected a string");
    check_error("{\"ref\": \"a\", \"dis\": \"b\", \"frames\": 1.5}\n", 1, "frames");
    check_error("{\"ref\": \"a\", \"dis\": \"b\", \"frames\": -2}\n", 1, "frames");
    check_error("{\"ref\": \"a\", \"dis\": \"b\", \"id\": [1]}\n", 1,
                "id: expected a string or "
                "a number");
    check_error("{\"ref\": \"a\", \"dis\": \"b\"} x\n", 1, "text after the JSON object");
    check_error("{\"ref\": \"a\", \"dis\": \"b\"}\nref,dis\n", 2, "invalid JSON");
    /* a \u0000 escape would cut a path at the NUL cJSON makes of it: refused
     * (an escaped backslash before "u0000" is an ordinary path) */
    check_error("{\"ref\": \"a\\u0000.y4m\", \"dis\": \"b\"}\n", 1, "\\u0000 (NUL)");
    m = parse("{\"ref\": \"a\\\\u0000.y4m\", \"dis\": \"b\"}\n");
    CHECK(m.n == 1 && m.nerrors == 0 && strcmp(m.pair[0].ref, "a\\u0000.y4m") == 0);
    manifest_free(&m);

    /* nothing but comments: no pairs, no errors */
    m = parse("# nothing\n\n");
    CHECK(m.n == 0 && m.nerrors == 0);
    manifest_free(&m);
    m = parse("");
    CHECK(m.n == 0 && m.nerrors == 0);
    manifest_free(&m);
}

int main(void)
{
    test_plan();
    test_threads();
    test_shards();
    test_manifest();
    return test_finish("test_tools_vmaf_batch");
}

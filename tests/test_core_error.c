/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The error convention (fovea.h): the last error is kept per thread and per
 * context; calls without a context record into a per-thread slot read with
 * fovea_last_error(NULL); a successful call leaves the message alone. */
#include <pthread.h>
#include <string.h>

#include "fovea/advanced.h"
#include "fovea/fovea.h"
#include "fovea/io.h"
#include "testutil.h"

/* A call that fails with a message naming path. */
static int fail_on(fovea_context *ctx, const char *path)
{
    fovea_outfile *of = NULL;
    int st = fovea_outfile_open(&of, ctx, path);
    CHECK(of == NULL);
    return st;
}

static int has(const char *msg, const char *word)
{
    return msg && strstr(msg, word) != NULL;
}

typedef struct thread_arg {
    fovea_context *ctx;
    int ok;
} thread_arg;

static void *other_thread(void *p)
{
    thread_arg *a = p;
    /* nothing of the main thread's messages shows here */
    a->ok = fovea_last_error(a->ctx)[0] == '\0' && fovea_last_error(NULL)[0] == '\0';
    a->ok = a->ok && fail_on(a->ctx, "/nonexistent-fovea/thread") == FOVEA_ERR_IO &&
            has(fovea_last_error(a->ctx), "/nonexistent-fovea/thread") &&
            fovea_last_error(NULL)[0] == '\0';
    return NULL;
}

int main(void)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 1;
    fovea_context *a = NULL, *b = NULL;
    if (fovea_open(&a, &s) < 0 || fovea_open(&b, &s) < 0) {
        fprintf(stderr, "cannot open contexts\n");
        return 1;
    }
    CHECK(fovea_last_error(a)[0] == '\0');
    CHECK(fovea_last_error(NULL)[0] == '\0');

    /* per context */
    CHECK_EQ_INT(fail_on(a, "/nonexistent-fovea/a"), FOVEA_ERR_IO);
    CHECK(has(fovea_last_error(a), "/nonexistent-fovea/a"));
    CHECK(fovea_last_error(b)[0] == '\0');
    CHECK(fovea_last_error(NULL)[0] == '\0');

    /* no context: the thread's own slot */
    CHECK_EQ_INT(fail_on(NULL, "/nonexistent-fovea/none"), FOVEA_ERR_IO);
    CHECK(has(fovea_last_error(NULL), "/nonexistent-fovea/none"));
    CHECK(has(fovea_last_error(a), "/nonexistent-fovea/a"));

    /* a success leaves the message */
    char *path = test_write_tmp(".txt", "x", 1);
    fovea_outfile *of = NULL;
    CHECK_EQ_INT(fovea_outfile_open(&of, a, path), FOVEA_OK);
    CHECK_EQ_INT(fovea_outfile_commit(&of, a), FOVEA_OK);
    CHECK(has(fovea_last_error(a), "/nonexistent-fovea/a"));
    remove(path);
    free(path);

    /* per thread: the same context used from another thread */
    thread_arg ta = {a, 0};
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, other_thread, &ta), 0);
    pthread_join(th, NULL);
    CHECK(ta.ok);
    CHECK(has(fovea_last_error(a), "/nonexistent-fovea/a"));

    /* a new context starts clean, even at a freed one's address */
    fovea_close(&b);
    CHECK_EQ_INT(fail_on(a, "/nonexistent-fovea/a2"), FOVEA_ERR_IO);
    fovea_context *c = NULL;
    CHECK_EQ_INT(fovea_open(&c, &s), FOVEA_OK);
    CHECK(fovea_last_error(c)[0] == '\0');

    /* many contexts failing on one thread: the most recent keep their messages */
    fovea_context *many[12] = {0};
    char name[64];
    for (int k = 0; k < 12; k++) {
        CHECK_EQ_INT(fovea_open(&many[k], &s), FOVEA_OK);
        snprintf(name, sizeof(name), "/nonexistent-fovea/many%d", k);
        CHECK_EQ_INT(fail_on(many[k], name), FOVEA_ERR_IO);
    }
    for (int k = 12 - 6; k < 12; k++) {
        snprintf(name, sizeof(name), "/nonexistent-fovea/many%d", k);
        CHECK(has(fovea_last_error(many[k]), name));
    }
    for (int k = 0; k < 12; k++)
        fovea_close(&many[k]);

    fovea_close(&c);
    fovea_close(&a);
    return test_finish("test_core_error");
}

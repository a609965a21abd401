/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Small test helpers: checks that report file:line, a seeded RNG, random frames,
 * temporary files, and access to ../shared/testdata. */
#ifndef FOVEA_TEST_UTIL_H
#define FOVEA_TEST_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fovea/fovea.h"
#include "fovea/io.h"

#define TEST_SKIP 77

extern int test_failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", __FILE__, __LINE__,  \
                    #a, #b, a_, b_);                                                               \
            test_failures++;                                                                       \
        }                                                                                          \
    } while (0)

/* Abort the test on failure (for preconditions whose failure makes the rest moot). */
#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);             \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* Print a summary line "N passed, M failed" style and return the exit code. */
int test_finish(const char *name);

/* Deterministic xorshift64* generator. */
typedef struct {
    uint64_t s;
} test_rng;
void test_rng_seed(test_rng *r, uint64_t seed);
uint32_t test_rng_u32(test_rng *r);
/* Uniform in [0, n). */
uint32_t test_rng_below(test_rng *r, uint32_t n);
double test_rng_double(test_rng *r);

/* Fill every plane of a host frame with random samples valid for its bit depth. */
void test_fill_random(fovea_frame *f, test_rng *r);

/* Path of a new temporary file name with the given suffix (caller frees; file
 * removed by test_cleanup_tmp at exit). */
char *test_tmp_path(const char *suffix);

/* Read a whole file into a malloc'd buffer (aborts the test on failure). */
uint8_t *test_read_file(const char *path, size_t *size); /* NUL-terminated too */
/* The whole file as a NUL-terminated string (free it), or NULL when it cannot be read. */
char *test_read_text(const char *path);

/* Write bytes to a temp file with suffix; returns its path (caller frees). */
char *test_write_tmp(const char *suffix, const void *data, size_t size);

/* Directory of the shared test data, or NULL (tests then skip). */
const char *test_testdata_dir(void);
/* Extracted golden data set ("vif", "klt") in the build tree, or NULL when
 * ../shared/testdata was absent at configure time (tests then skip). */
const char *test_golden_dir(const char *set);

/* Project source dir (for tests/fuzz/corpus, tests/data). */
const char *test_source_dir(void);

/* 1 when a CUDA device is usable (for GPU tests: exit TEST_SKIP otherwise). */
int test_have_gpu(void);

/* A context of backend b (threads: 0 for the default; log may be NULL, then
 * nothing is logged); the test ends (exit 1) with the library's message when
 * it cannot be opened. */
fovea_context *test_open_ctx(fovea_backend b, int threads, fovea_log_fn log);

/* The reference and distorted frames of a test, n of each (malloc'd arrays). */
typedef struct test_pair_frames {
    int n;
    fovea_frame *ref, *dis;
} test_pair_frames;
/* Frees every frame (on ctx) and the arrays, and zeroes *f. */
void test_pair_frames_free(fovea_context *ctx, test_pair_frames *f);

/* Sample (x, y) of plane p of a host frame whose samples are one byte (bpc 8)
 * or two (bpc 9-16); no range check. */
void test_sample_set(fovea_frame *f, int p, int bpc, int x, int y, int v);
int test_sample_get(const fovea_frame *f, int p, int bpc, int x, int y);

#endif

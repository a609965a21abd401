/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Test helpers (see testutil.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

int test_failures = 0;

int test_finish(const char *name)
{
    if (test_failures) {
        printf("%s: FAILED (%d check%s)\n", name, test_failures, test_failures == 1 ? "" : "s");
        return 1;
    }
    printf("%s: ok\n", name);
    return 0;
}

void test_rng_seed(test_rng *r, uint64_t seed)
{
    r->s = seed ? seed * 0x9E3779B97F4A7C15ull : 0x853c49e6748fea9bull;
}

uint32_t test_rng_u32(test_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

uint32_t test_rng_below(test_rng *r, uint32_t n)
{
    return n ? (uint32_t)(((uint64_t)test_rng_u32(r) * n) >> 32) : 0;
}

double test_rng_double(test_rng *r)
{
    return test_rng_u32(r) / 4294967296.0;
}

void test_fill_random(fovea_frame *f, test_rng *r)
{
    const fovea_pixfmt_desc *d = fovea_pixfmt_get_desc(f->fmt);
    uint32_t maxv = (1u << d->bit_depth);
    for (int p = 0; p < d->planes; p++) {
        size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
        int rows = fovea_plane_height(f->fmt, f->height, p);
        for (int y = 0; y < rows; y++) {
            uint8_t *line = f->data[p] + (ptrdiff_t)y * f->stride[p];
            if (d->bytes_per_sample == 1) {
                for (size_t x = 0; x < row; x++)
                    line[x] = (uint8_t)test_rng_u32(r);
            } else {
                for (size_t x = 0; x + 1 < row; x += 2) {
                    uint32_t v = test_rng_below(r, maxv);
                    line[x] = (uint8_t)(v & 0xff);
                    line[x + 1] = (uint8_t)(v >> 8);
                }
            }
        }
    }
}

#define MAX_TMP 256
static char *tmp_files[MAX_TMP];
static int tmp_count;

static void cleanup_tmp(void)
{
    for (int i = 0; i < tmp_count; i++) {
        unlink(tmp_files[i]);
        free(tmp_files[i]);
    }
    tmp_count = 0;
}

char *test_tmp_path(const char *suffix)
{
    static int registered, counter;
    if (!registered) {
        atexit(cleanup_tmp);
        registered = 1;
    }
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    size_t n = strlen(dir) + strlen(suffix) + 64;
    char *path = malloc(n);
    REQUIRE(path != NULL);
    snprintf(path, n, "%s/fv_test_%ld_%d%s", dir, (long)getpid(), counter++, suffix);
    if (tmp_count < MAX_TMP)
        tmp_files[tmp_count++] = strdup(path);
    return path;
}

uint8_t *test_read_file(const char *path, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    REQUIRE(fp != NULL);
    REQUIRE(fseek(fp, 0, SEEK_END) == 0);
    long n = ftell(fp);
    REQUIRE(n >= 0);
    rewind(fp);
    uint8_t *buf = malloc((size_t)n + 1);
    REQUIRE(buf != NULL);
    REQUIRE(fread(buf, 1, (size_t)n, fp) == (size_t)n);
    fclose(fp);
    buf[n] = 0;
    *size = (size_t)n;
    return buf;
}

char *test_read_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    char *buf = NULL;
    long n = -1;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 && fseek(fp, 0, SEEK_SET) == 0)
        buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, fp) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    if (buf)
        buf[n] = '\0';
    return buf;
}

char *test_write_tmp(const char *suffix, const void *data, size_t size)
{
    char *path = test_tmp_path(suffix);
    FILE *fp = fopen(path, "wb");
    REQUIRE(fp != NULL);
    REQUIRE(fwrite(data, 1, size, fp) == size);
    fclose(fp);
    return path;
}

const char *test_testdata_dir(void)
{
    const char *d = getenv("FOVEA_TESTDATA_DIR");
    if (d && *d && access(d, R_OK) == 0)
        return d;
    return NULL;
}

const char *test_golden_dir(const char *set)
{
    static char path[4096];
    const char *d = getenv("FOVEA_TESTDATA_EXTRACTED");
    if (!d || !*d)
        return NULL;
    snprintf(path, sizeof(path), "%s/%s", d, set);
    return access(path, R_OK) == 0 ? path : NULL;
}

const char *test_source_dir(void)
{
    const char *d = getenv("FOVEA_SOURCE_DIR");
    return d && *d ? d : ".";
}

int test_have_gpu(void)
{
    int n = 0;
    fovea_device_count(&n);
    return n > 0;
}

fovea_context *test_open_ctx(fovea_backend b, int threads, fovea_log_fn log)
{
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = b;
    if (threads > 0)
        s.threads = threads;
    if (log) {
        s.log = log;
        s.log_level = FOVEA_LOG_DEBUG;
    }
    fovea_context *ctx = NULL;
    const int st = fovea_open(&ctx, &s);
    if (st != FOVEA_OK)
        fprintf(stderr, "fovea_open(%s): %s\n", fovea_backend_name(b), fovea_strerror(st));
    REQUIRE(st == FOVEA_OK && ctx != NULL);
    return ctx;
}

void test_pair_frames_free(fovea_context *ctx, test_pair_frames *f)
{
    for (int i = 0; i < f->n; i++) {
        fovea_frame_free(ctx, &f->ref[i]);
        fovea_frame_free(ctx, &f->dis[i]);
    }
    free(f->ref);
    free(f->dis);
    memset(f, 0, sizeof(*f));
}

void test_sample_set(fovea_frame *f, int p, int bpc, int x, int y, int v)
{
    uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    if (bpc == 8)
        row[x] = (uint8_t)v;
    else
        ((uint16_t *)(void *)row)[x] = (uint16_t)v;
}

int test_sample_get(const fovea_frame *f, int p, int bpc, int x, int y)
{
    const uint8_t *row = f->data[p] + (ptrdiff_t)y * f->stride[p];
    return bpc == 8 ? row[x] : ((const uint16_t *)(const void *)row)[x];
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea_vmaf_score_readers (the CLI's and the Python files path's pipeline):
 * the same values as the pairs submitted one at a time, over runs longer than
 * its rings, with a limit, subsample, a shorter distorted file, a failed read,
 * pairs already pending and the progress callback; the model (previous
 * references) and features reading chroma, both read in place from the rings
 * by the C driver. */
#include <stdlib.h>
#include <string.h>

#include "fovea/quality.h"
#include "testutil.h"

#define W 64
#define H 48
#define N 40
#define CW (W / 2)
#define CH (H / 2)

static uint8_t luma[2][N][W * H];
static uint8_t chroma[2][N][2 * CW * CH]; /* U then V */

/* The features of the runs without a model (chroma read). */
static const char *const chroma_features = "psnr,float_ssim,ciede";

/* Deterministic frames: a moving gradient with texture, the distorted with
 * noise. */
static void make_frames(void)
{
    test_rng r;
    test_rng_seed(&r, 11);
    for (int i = 0; i < N; i++)
        for (int p = 0; p < W * H; p++) {
            const int x = p % W, y = p / W;
            const int v = (3 * x + 2 * y + 5 * i) % 160 + (int)test_rng_below(&r, 64);
            luma[0][i][p] = (uint8_t)v;
            const int d = v + (int)test_rng_below(&r, 13) - 6;
            luma[1][i][p] = (uint8_t)(d < 0 ? 0 : d > 255 ? 255 : d);
        }
    for (int i = 0; i < N; i++)
        for (int p = 0; p < 2 * CW * CH; p++) {
            const int v = 64 + (p % CW + 3 * i) % 96 + (int)test_rng_below(&r, 32);
            chroma[0][i][p] = (uint8_t)v;
            chroma[1][i][p] = (uint8_t)(v + (int)test_rng_below(&r, 9) - 4);
        }
}

/* A 4:2:0 y4m of the first n frames of input k (cut bytes off the end). */
static char *write_y4m(int k, int n, size_t cut)
{
    const size_t frame = 6 + W * H + 2 * CW * CH;
    const char head[] = "YUV4MPEG2 W64 H48 F25:1 Ip A1:1 C420jpeg\n";
    const size_t size = sizeof(head) - 1 + (size_t)n * frame;
    uint8_t *buf = malloc(size);
    REQUIRE(buf);
    memcpy(buf, head, sizeof(head) - 1);
    uint8_t *o = buf + sizeof(head) - 1;
    for (int i = 0; i < n; i++) {
        memcpy(o, "FRAME\n", 6);
        memcpy(o + 6, luma[k][i], W * H);
        memcpy(o + 6 + W * H, chroma[k][i], 2 * CW * CH);
        o += frame;
    }
    char *path = test_write_tmp(".y4m", buf, size - cut);
    free(buf);
    return path;
}

/* features NULL: the default model; else those features alone */
static fovea_vmaf *open_vmaf(fovea_context *ctx, int subsample, const char *features)
{
    fovea_vmaf_settings s;
    fovea_vmaf_default_settings(&s);
    s.keep_frames = 1;
    s.subsample = subsample;
    if (features) {
        s.features = features;
        s.flags = FOVEA_VMAF_NO_PREDICTION;
    }
    fovea_vmaf *v = NULL;
    REQUIRE(fovea_vmaf_open(&v, ctx, &s) == FOVEA_OK);
    return v;
}

/* The values of the first n pairs submitted one at a time (frames made here,
 * not read; swap: the distorted frames as the reference). */
static double *reference_values(fovea_context *ctx, int n, int subsample, int swap,
                                const char *features, int64_t *kept)
{
    fovea_vmaf *v = open_vmaf(ctx, subsample, features);
    for (int i = 0; i < n; i++) {
        fovea_frame f[2];
        for (int k = 0; k < 2; k++) {
            memset(&f[k], 0, sizeof(f[k]));
            f[k].width = W;
            f[k].height = H;
            f[k].fmt = FOVEA_PIX_I420;
            f[k].mem = FOVEA_MEM_HOST;
            f[k].data[0] = luma[k ^ swap][i];
            f[k].stride[0] = W;
            for (int c = 0; c < 2; c++) {
                f[k].data[1 + c] = chroma[k ^ swap][i] + c * CW * CH;
                f[k].stride[1 + c] = CW;
            }
        }
        REQUIRE(fovea_vmaf_submit(v, &f[0], &f[1]) == FOVEA_OK);
        while (fovea_vmaf_receive(v, NULL) == FOVEA_OK)
            ;
    }
    REQUIRE(fovea_vmaf_flush(v) == FOVEA_OK);
    while (fovea_vmaf_receive(v, NULL) == FOVEA_OK)
        ;
    const int m = fovea_vmaf_metric_count(v);
    *kept = fovea_vmaf_kept_frames(v);
    double *out = malloc((size_t)(*kept ? *kept : 1) * (size_t)m * sizeof(double));
    REQUIRE(out);
    for (int64_t i = 0; i < *kept; i++)
        memcpy(out + i * m, fovea_vmaf_kept_values(v, i), (size_t)m * sizeof(double));
    fovea_vmaf_close(&v);
    return out;
}

static int64_t last_progress;

static void on_progress(void *opaque, int64_t pairs)
{
    CHECK(opaque == &last_progress);
    CHECK(pairs > last_progress);
    last_progress = pairs;
}

/* Score the files through the pipeline and compare with the pairs pushed one
 * at a time. @return the result */
static fovea_vmaf_readers_result run_features(fovea_context *ctx, const char *rp, const char *dp,
                                              int swap, int64_t limit, int subsample,
                                              int want_pairs, int want_st, const char *features)
{
    fovea_reader *r = NULL, *d = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, rp, NULL) == FOVEA_OK);
    REQUIRE(fovea_reader_open(&d, NULL, dp, NULL) == FOVEA_OK);
    fovea_vmaf *v = open_vmaf(ctx, subsample, features);
    fovea_vmaf_readers_settings s;
    fovea_vmaf_readers_default_settings(&s);
    CHECK(s.frames == -1 && s.ring_bytes > 0 && !s.progress);
    s.frames = limit;
    s.progress = on_progress;
    s.opaque = &last_progress;
    /* rings of a few slots: the run goes round them several times */
    s.ring_bytes = (size_t)6 * 2 * (W * H * 3 / 2);
    last_progress = 0;
    fovea_vmaf_readers_result res;
    const int st = fovea_vmaf_score_readers(v, r, d, &s, &res);
    CHECK_EQ_INT(st, want_st);
    if (st == FOVEA_OK) {
        CHECK_EQ_INT(res.pairs, want_pairs);
        CHECK_EQ_INT(res.done, want_pairs);
        CHECK_EQ_INT(last_progress, want_pairs - (want_pairs - 1) % subsample);
        CHECK_EQ_INT(fovea_vmaf_pending(v), 0);
        int64_t n = 0;
        double *want = reference_values(ctx, want_pairs, subsample, swap, features, &n);
        const int m = fovea_vmaf_metric_count(v);
        CHECK_EQ_INT(fovea_vmaf_kept_frames(v), n);
        for (int64_t i = 0; i < n && i < fovea_vmaf_kept_frames(v); i++)
            CHECK(memcmp(fovea_vmaf_kept_values(v, i), want + i * m, (size_t)m * sizeof(double)) ==
                  0);
        free(want);
    }
    fovea_vmaf_close(&v);
    fovea_reader_close(&r);
    fovea_reader_close(&d);
    return res;
}

/* The default model's run. */
static fovea_vmaf_readers_result run(fovea_context *ctx, const char *rp, const char *dp, int swap,
                                     int64_t limit, int subsample, int want_pairs, int want_st)
{
    return run_features(ctx, rp, dp, swap, limit, subsample, want_pairs, want_st, NULL);
}

int main(void)
{
    make_frames();
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = 2;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
    char *ref = write_y4m(0, N, 0), *dis = write_y4m(1, N, 0);
    char *dis_short = write_y4m(1, 27, 0), *dis_cut = write_y4m(1, 30, 100);

    fovea_vmaf_readers_result res = run(ctx, ref, dis, 0, -1, 1, N, FOVEA_OK);
    CHECK(res.failed == -1 && res.ended == 0);
    res = run(ctx, ref, dis, 0, 17, 1, 17, FOVEA_OK);
    CHECK(res.failed == -1 && res.ended == -1);
    res = run(ctx, ref, dis, 0, 31, 4, 31, FOVEA_OK);
    res = run(ctx, ref, dis_short, 0, -1, 1, 27, FOVEA_OK);
    CHECK(res.failed == -1 && res.ended == 1);
    res = run(ctx, dis_short, ref, 1, -1, 1, 27, FOVEA_OK);
    CHECK(res.ended == 0);
    res = run_features(ctx, ref, dis, 0, -1, 1, N, FOVEA_OK, chroma_features);
    CHECK(res.failed == -1 && res.ended == 0);
    res = run_features(ctx, dis_short, ref, 1, -1, 3, 27, FOVEA_OK, chroma_features);

    /* a truncated last frame: the read's status and message, nothing pending */
    res = run(ctx, ref, dis_cut, 0, -1, 1, 0, FOVEA_ERR_CORRUPT);
    CHECK(res.failed == 1);
    CHECK_EQ_INT(res.frame, 29);
    CHECK(fovea_last_error(ctx)[0] != '\0');

    /* pairs pending on the scorer: refused */
    fovea_reader *r = NULL, *d = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, ref, NULL) == FOVEA_OK);
    REQUIRE(fovea_reader_open(&d, NULL, dis, NULL) == FOVEA_OK);
    fovea_vmaf *v = open_vmaf(ctx, 1, NULL);
    fovea_frame f[2];
    memset(f, 0, sizeof(f));
    REQUIRE(fovea_reader_read(r, &f[0]) == FOVEA_OK && fovea_reader_read(d, &f[1]) == FOVEA_OK);
    REQUIRE(fovea_vmaf_submit(v, &f[0], &f[1]) == FOVEA_OK);
    CHECK(fovea_vmaf_score_readers(v, r, d, NULL, NULL) == FOVEA_ERR_INVALID_ARG);
    CHECK(strstr(fovea_last_error(ctx), "pending") != NULL);
    CHECK(fovea_vmaf_score_readers(NULL, r, d, NULL, NULL) == FOVEA_ERR_INVALID_ARG);
    fovea_frame_free(NULL, &f[0]);
    fovea_frame_free(NULL, &f[1]);
    fovea_vmaf_close(&v);
    fovea_reader_close(&r);
    fovea_reader_close(&d);

    free(ref);
    free(dis);
    free(dis_short);
    free(dis_cut);
    fovea_close(&ctx);
    return test_finish("test_quality_vmaf_readers");
}

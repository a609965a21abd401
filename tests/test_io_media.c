/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The media reader and writer through the public API (builds with FFmpeg):
 * lossless FFV1 round trips at 8, 10 and 16 bits, gray, 4:4:4 and RGB (the
 * writer converts for the encoder, the reader back), color tags and rate
 * carried, encoder settings and their errors, the lavfi device through
 * input_format and input_options, stream selection, missing files,
 * --hwdec without a GPU, and the decoder's thread count. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define W 48
#define H 32
#define NFRAMES 4

/* Random frames whose samples stay within the format's bit depth. */
static void make_frames(fovea_frame *frames, fovea_pixfmt fmt, uint64_t seed)
{
    test_rng rng;
    test_rng_seed(&rng, seed);
    for (int i = 0; i < NFRAMES; i++) {
        memset(&frames[i], 0, sizeof(frames[i]));
        REQUIRE(fovea_frame_alloc(NULL, &frames[i], W, H, fmt, FOVEA_MEM_HOST) == FOVEA_OK);
        test_fill_random(&frames[i], &rng);
    }
}

static void free_frames(fovea_frame *frames)
{
    for (int i = 0; i < NFRAMES; i++)
        fovea_frame_free(NULL, &frames[i]);
}

static void info_for(fovea_video_info *info, fovea_pixfmt fmt)
{
    fovea_video_info_init(info);
    info->width = W;
    info->height = H;
    info->fmt = fmt;
    info->fps_num = 30000;
    info->fps_den = 1001;
}

static int write_all(const char *path, const fovea_video_info *info, const fovea_frame *frames,
                     const fovea_encoder_settings *es)
{
    fovea_writer *w = NULL;
    int st = fovea_writer_open(&w, NULL, path, FOVEA_CONTAINER_AUTO, info);
    if (st < 0)
        return st;
    if (es)
        st = fovea_writer_set_encoder(w, es);
    for (int i = 0; i < NFRAMES && st == FOVEA_OK; i++)
        st = fovea_writer_write(w, &frames[i]);
    if (st == FOVEA_OK)
        st = fovea_writer_finish(w);
    fovea_writer_close(&w);
    return st;
}

/* Write fmt's frames to .mkv (FFV1) and read them back unchanged. */
static void test_lossless(fovea_pixfmt fmt)
{
    fovea_frame frames[NFRAMES];
    make_frames(frames, fmt, 11 + (uint64_t)fmt);
    fovea_video_info info;
    info_for(&info, fmt);
    char *path = test_tmp_path(".mkv");
    REQUIRE(write_all(path, &info, frames, NULL) == FOVEA_OK);
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_container(r), FOVEA_CONTAINER_MEDIA);
    const fovea_video_info *ri = fovea_reader_info(r);
    CHECK_EQ_INT(ri->width, W);
    CHECK_EQ_INT(ri->height, H);
    CHECK_EQ_INT(ri->fmt, fmt);
    CHECK_EQ_INT(ri->fps_num, 30000);
    CHECK_EQ_INT(ri->fps_den, 1001);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    for (int i = 0; i < NFRAMES; i++) {
        REQUIRE(fovea_reader_read(r, &f) == FOVEA_OK);
        CHECK_EQ_INT(f.index, i);
        if (!fovea_frame_equal(&f, &frames[i]))
            fprintf(stderr, "%s: frame %d differs after the FFV1 round trip\n",
                    fovea_pixfmt_name(fmt), i);
        CHECK(fovea_frame_equal(&f, &frames[i]));
    }
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);
    CHECK(r == NULL);
    free(path);
    free_frames(frames);
}

/* Threads of this process (Linux: /proc/self/task), -1 where unknown. */
static int thread_count(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* fovea_reader_settings.threads reaches FFmpeg's decoder: 4 frame threads
 * start (at least 3 more threads than with 1; FFmpeg's own count for this
 * small frame would be 2 whatever threads says), and the frames are the same
 * at any count. */
static void test_decoder_threads(void)
{
    fovea_frame frames[NFRAMES];
    make_frames(frames, FOVEA_PIX_I420, 23);
    fovea_video_info info;
    info_for(&info, FOVEA_PIX_I420);
    char *path = test_tmp_path(".mkv");
    REQUIRE(write_all(path, &info, frames, NULL) == FOVEA_OK);
    fovea_reader_settings s;
    fovea_reader_default_settings(&s);
    CHECK_EQ_INT(s.threads, 0);
    int tasks[2] = {0, 0};
    const int counts[2] = {1, 4};
    for (int k = 0; k < 2; k++) {
        s.threads = counts[k];
        fovea_reader *r = NULL;
        REQUIRE(fovea_reader_open(&r, NULL, path, &s) == FOVEA_OK);
        tasks[k] = thread_count();
        fovea_frame f;
        memset(&f, 0, sizeof(f));
        for (int i = 0; i < NFRAMES; i++) {
            REQUIRE(fovea_reader_read(r, &f) == FOVEA_OK);
            CHECK(fovea_frame_equal(&f, &frames[i]));
        }
        CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_EOF);
        fovea_frame_free(NULL, &f);
        fovea_reader_close(&r);
    }
    if (tasks[0] > 0) {
        if (tasks[1] < tasks[0] + 3)
            fprintf(stderr, "threads 1: %d threads, threads 4: %d\n", tasks[0], tasks[1]);
        CHECK(tasks[1] >= tasks[0] + 3);
    }
    free(path);
    free_frames(frames);
}

static void test_colors_and_encoder(void)
{
    fovea_frame frames[NFRAMES];
    make_frames(frames, FOVEA_PIX_I420, 5);
    fovea_video_info info;
    info_for(&info, FOVEA_PIX_I420);
    info.color_range = FOVEA_COLOR_RANGE_FULL;
    info.color_primaries = 9; /* BT.2020 */
    info.color_transfer = 16; /* PQ */
    info.color_matrix = 9;    /* BT.2020 NCL */
    char *path = test_tmp_path(".mkv");
    REQUIRE(write_all(path, &info, frames, NULL) == FOVEA_OK);
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, path, NULL) == FOVEA_OK);
    const fovea_video_info *ri = fovea_reader_info(r);
    CHECK_EQ_INT(ri->color_range, FOVEA_COLOR_RANGE_FULL);
    CHECK_EQ_INT(ri->color_primaries, 9);
    CHECK_EQ_INT(ri->color_transfer, 16);
    CHECK_EQ_INT(ri->color_matrix, 9);
    CHECK(ri->start_time_us == 0);
    CHECK(ri->converted_from[0] == '\0');
    fovea_reader_close(&r);

    /* an encoder FFmpeg does not have, an option the encoder does not take:
     * errors naming the file, and no file left behind */
    char *bad = test_tmp_path(".mkv");
    fovea_encoder_settings es;
    fovea_encoder_default_settings(&es);
    CHECK_EQ_INT(es.crf, -1);
    es.codec = "no-such-encoder";
    CHECK(write_all(bad, &info, frames, &es) < 0);
    CHECK(strstr(fovea_last_error(NULL), bad) != NULL);
    CHECK(strstr(fovea_last_error(NULL), "no-such-encoder") != NULL);
    FILE *fp = fopen(bad, "rb");
    CHECK(fp == NULL);
    if (fp)
        fclose(fp);
    const char *opts[] = {"no_such_option=1", NULL};
    fovea_encoder_default_settings(&es);
    es.options = opts;
    CHECK(write_all(bad, &info, frames, &es) < 0);
    CHECK(strstr(fovea_last_error(NULL), "no_such_option") != NULL);
    /* the encoder is set before the first frame */
    fovea_writer *w = NULL;
    REQUIRE(fovea_writer_open(&w, NULL, bad, FOVEA_CONTAINER_AUTO, &info) == FOVEA_OK);
    REQUIRE(fovea_writer_write(w, &frames[0]) == FOVEA_OK);
    fovea_encoder_default_settings(&es);
    CHECK_EQ_INT(fovea_writer_set_encoder(w, &es), FOVEA_ERR_INVALID_ARG);
    fovea_writer_close(&w);
    /* no writer for an extension FFmpeg would mux but fovea does not write */
    char *avi = test_tmp_path(".avi");
    CHECK_EQ_INT(write_all(avi, &info, frames, NULL), FOVEA_ERR_UNSUPPORTED);
    free(avi);
    free(bad);
    free(path);
    free_frames(frames);
}

static void test_devices_and_streams(void)
{
    fovea_reader_settings s;
    fovea_reader_default_settings(&s);
    CHECK_EQ_INT(s.stream, -1);
    const char *opts[] = {"graph=testsrc2=size=40x24:rate=12", NULL};
    s.input_format = "lavfi";
    s.input_options = opts;
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, NULL, "ignored", &s) == FOVEA_OK);
    const fovea_video_info *ri = fovea_reader_info(r);
    CHECK_EQ_INT(ri->width, 40);
    CHECK_EQ_INT(ri->height, 24);
    CHECK_EQ_INT(ri->fps_num, 12);
    CHECK_EQ_INT(ri->frame_count, -1);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);

    /* the prefix form, a wrong option, a stream that is not there */
    CHECK_EQ_INT(fovea_container_from_path("lavfi:testsrc2"), FOVEA_CONTAINER_MEDIA);
    fovea_reader_default_settings(&s);
    REQUIRE(fovea_reader_open(&r, NULL, "lavfi:testsrc2=size=16x16", &s) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_info(r)->width, 16);
    fovea_reader_close(&r);
    const char *bad[] = {"no_such_key=1", NULL};
    s.input_options = bad;
    CHECK(fovea_reader_open(&r, NULL, "lavfi:testsrc2", &s) < 0);
    CHECK(r == NULL);
    CHECK(strstr(fovea_last_error(NULL), "no_such_key") != NULL);
    fovea_reader_default_settings(&s);
    s.stream = 3;
    CHECK(fovea_reader_open(&r, NULL, "lavfi:testsrc2", &s) < 0);
    CHECK(strstr(fovea_last_error(NULL), "no stream 3") != NULL);
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, "/nonexistent/x.mp4", NULL), FOVEA_ERR_IO);
    CHECK(strstr(fovea_last_error(NULL), "/nonexistent/x.mp4: cannot open: No such file") != NULL);
}

/* --hwdec without a GPU: auto decodes on the CPU and says nothing; cuda is
 * refused with the reason (no CUDA context, or no CUDA in the build);
 * fovea_hwdec_caps has nothing to ask */
static void test_hwdec_without_gpu(void)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = 1;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &cs) == FOVEA_OK);
    fovea_reader_settings s;
    fovea_reader_default_settings(&s);
    CHECK_EQ_INT(s.hwdec, FOVEA_HWDEC_AUTO);
    fovea_reader *r = NULL;
    REQUIRE(fovea_reader_open(&r, ctx, "lavfi:testsrc2=size=32x16", &s) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_hwdec(r), FOVEA_HWDEC_NONE);
    CHECK(fovea_reader_hwdec_reason(r) == NULL);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    CHECK_EQ_INT(fovea_reader_read(r, &f), FOVEA_OK);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);

    s.hwdec = FOVEA_HWDEC_CUDA;
    CHECK_EQ_INT(fovea_reader_open(&r, ctx, "lavfi:testsrc2=size=32x16", &s), FOVEA_ERR_NO_DEVICE);
    CHECK(r == NULL);
    const char *want = fovea_cuda_compiled()
                           ? "--hwdec cuda: NVDEC needs a CUDA context (this one is cpu"
                           : "--hwdec cuda: NVDEC needs a build with CUDA";
    if (!strstr(fovea_last_error(ctx), want))
        fprintf(stderr, "got: %s\n", fovea_last_error(ctx));
    CHECK(strstr(fovea_last_error(ctx), want) != NULL);
    CHECK_EQ_INT(fovea_reader_open(&r, NULL, "lavfi:testsrc2=size=32x16", &s), FOVEA_ERR_NO_DEVICE);
    CHECK(strstr(fovea_last_error(NULL), "--hwdec cuda: NVDEC needs") != NULL);
    s.hwdec = FOVEA_HWDEC_NONE;
    REQUIRE(fovea_reader_open(&r, ctx, "lavfi:testsrc2=size=32x16", &s) == FOVEA_OK);
    CHECK_EQ_INT(fovea_reader_hwdec(r), FOVEA_HWDEC_NONE);
    CHECK(fovea_reader_hwdec_reason(r) == NULL);
    fovea_reader_close(&r);
    CHECK(fovea_reader_hwdec(NULL) == FOVEA_HWDEC_NONE);

    fovea_hwdec_cap caps[4];
    CHECK_EQ_INT(fovea_hwdec_caps(ctx, caps, 4), FOVEA_ERR_NO_DEVICE);
    fovea_close(&ctx);
}

int main(void)
{
    if (!fovea_media_version()) {
        printf("test_io_media: built without FFmpeg: skipped\n");
        return TEST_SKIP;
    }
    const fovea_pixfmt fmts[] = {FOVEA_PIX_I420,    FOVEA_PIX_I420P10, FOVEA_PIX_I422P12,
                                 FOVEA_PIX_I444P16, FOVEA_PIX_GRAY8,   FOVEA_PIX_GRAY10,
                                 FOVEA_PIX_I444,    FOVEA_PIX_RGB24,   FOVEA_PIX_RGB48};
    for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
        test_lossless(fmts[i]);
    test_decoder_threads();
    test_colors_and_encoder();
    test_devices_and_streams();
    test_hwdec_without_gpu();
    return test_finish("test_io_media");
}

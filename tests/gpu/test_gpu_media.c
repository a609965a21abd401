/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* NVDEC (--hwdec cuda) against FFmpeg's CPU decoders on the same files: H.264
 * 8-bit, HEVC 8-bit and 10-bit (one at an odd size) decode into identical
 * frames (both decoders are exact per the codec standards), read into device
 * frames poisoned before every read and into host frames (the download);
 * 10-bit H.264, which NVDEC cannot decode, falls back to the CPU under auto
 * with a reason and is refused under cuda; cuda on a CPU context is refused;
 * `fovea vmaf` gives the same JSON (but its timing) with --hwdec cuda/auto
 * and --hwdec none; fovea_hwdec_caps lists H.264 and HEVC. The files come
 * from scripts/ffmpeg-carry.sh (.ffmpeg/media, or FOVEA_NVDEC_MEDIA). Exits 77
 * (skipped) without a CUDA device, FFmpeg, the driver's NVDEC or the files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/io.h"
#include "testutil.h"

static fovea_context *gctx, *cctx;
static char media_dir[1024];
static long long frames_compared;

static void media_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", media_dir, name);
}

static int open_reader(fovea_reader **r, fovea_context *ctx, const char *name, fovea_hwdec hw)
{
    char path[1200];
    media_path(path, sizeof(path), name);
    fovea_reader_settings s;
    fovea_reader_default_settings(&s);
    s.hwdec = hw;
    return fovea_reader_open(r, ctx, path, &s);
}

/* every frame of name: NVDEC into poisoned device frames (and, for every
 * third frame, a second NVDEC reader into poisoned host frames) equals the
 * CPU decoder's */
static void compare_file(const char *name, fovea_pixfmt want_fmt, int want_w, int want_h)
{
    fovea_reader *rc = NULL, *rg = NULL, *rh = NULL;
    REQUIRE(open_reader(&rc, NULL, name, FOVEA_HWDEC_NONE) == FOVEA_OK);
    int st = open_reader(&rg, gctx, name, FOVEA_HWDEC_CUDA);
    if (st != FOVEA_OK)
        fprintf(stderr, "%s: %s\n", name, fovea_last_error(gctx));
    REQUIRE(st == FOVEA_OK);
    REQUIRE(open_reader(&rh, gctx, name, FOVEA_HWDEC_AUTO) == FOVEA_OK);
    CHECK(fovea_reader_hwdec(rc) == FOVEA_HWDEC_NONE);
    CHECK(fovea_reader_hwdec(rg) == FOVEA_HWDEC_CUDA);
    CHECK(fovea_reader_hwdec(rh) == FOVEA_HWDEC_CUDA); /* auto takes NVDEC here */
    CHECK(fovea_reader_hwdec_reason(rh) == NULL);
    const fovea_video_info *ic = fovea_reader_info(rc), *ig = fovea_reader_info(rg);
    CHECK_EQ_INT(ic->width, want_w);
    CHECK_EQ_INT(ic->height, want_h);
    CHECK_EQ_INT(ic->fmt, want_fmt);
    CHECK_EQ_INT(ig->width, ic->width);
    CHECK_EQ_INT(ig->height, ic->height);
    CHECK_EQ_INT(ig->fmt, ic->fmt);
    CHECK_EQ_INT(ig->fps_num, ic->fps_num);
    CHECK_EQ_INT(ig->fps_den, ic->fps_den);
    CHECK_EQ_INT(ig->color_range, ic->color_range);
    CHECK_EQ_INT(ig->color_matrix, ic->color_matrix);
    CHECK(ig->converted_from[0] == '\0');

    fovea_frame cpu, dev, down, host;
    memset(&cpu, 0, sizeof(cpu));
    memset(&host, 0, sizeof(host));
    REQUIRE(fovea_frame_alloc(NULL, &cpu, ic->width, ic->height, ic->fmt, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(gctx, &dev, ic->width, ic->height, ic->fmt, FOVEA_MEM_DEVICE) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &down, ic->width, ic->height, ic->fmt, FOVEA_MEM_HOST) == 0);
    REQUIRE(fovea_frame_alloc(NULL, &host, ic->width, ic->height, ic->fmt, FOVEA_MEM_HOST) == 0);
    int n = 0, same = 1;
    for (;; n++) {
        const int a = fovea_reader_read(rc, &cpu);
        REQUIRE(fovea_frame_fill(gctx, &dev, (uint8_t)(0x5a + n)) == FOVEA_OK);
        const int b = fovea_reader_read(rg, &dev);
        CHECK_EQ_INT(b, a);
        if (a != FOVEA_OK || b != FOVEA_OK)
            break;
        CHECK(dev.index == cpu.index);
        REQUIRE(fovea_frame_fill(NULL, &down, 0xa5) == FOVEA_OK);
        REQUIRE(fovea_frame_copy(gctx, &down, &dev) == FOVEA_OK);
        REQUIRE(fovea_sync(gctx) == FOVEA_OK);
        if (!fovea_frame_equal(&cpu, &down)) {
            if (same)
                fprintf(stderr, "%s: frame %d: NVDEC's device frame differs from the CPU's\n", name,
                        n);
            same = 0;
        }
        REQUIRE(fovea_frame_fill(NULL, &host, 0x3c) == FOVEA_OK);
        REQUIRE(fovea_reader_read(rh, &host) == FOVEA_OK);
        if (n % 3 == 0 && !fovea_frame_equal(&cpu, &host)) {
            fprintf(stderr, "%s: frame %d: NVDEC's host frame differs from the CPU's\n", name, n);
            same = 0;
        }
        frames_compared++;
    }
    CHECK(same);
    CHECK(n > 0);
    fprintf(stderr, "%s: %d frames %dx%d %s: NVDEC = CPU %s\n", name, n, ic->width, ic->height,
            fovea_pixfmt_name(ic->fmt), same ? "yes" : "NO");
    fovea_frame_free(NULL, &cpu);
    fovea_frame_free(gctx, &dev);
    fovea_frame_free(NULL, &down);
    fovea_frame_free(NULL, &host);
    fovea_reader_close(&rc);
    fovea_reader_close(&rg);
    fovea_reader_close(&rh);
}

/* 10-bit H.264: auto falls back with a reason, cuda refuses; cuda on a CPU
 * context refuses */
static void fallbacks(void)
{
    fovea_reader *r = NULL;
    REQUIRE(open_reader(&r, gctx, "h264-10.mp4", FOVEA_HWDEC_AUTO) == FOVEA_OK);
    CHECK(fovea_reader_hwdec(r) == FOVEA_HWDEC_NONE);
    const char *why = fovea_reader_hwdec_reason(r);
    CHECK(why && strstr(why, "h264") && strstr(why, "10-bit") && strstr(why, "CPU"));
    fprintf(stderr, "h264-10.mp4 under auto: %s\n", why ? why : "(no reason)");
    CHECK_EQ_INT(fovea_reader_info(r)->fmt, FOVEA_PIX_I420P10);
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    CHECK(fovea_reader_read(r, &f) == FOVEA_OK);
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);

    CHECK(open_reader(&r, gctx, "h264-10.mp4", FOVEA_HWDEC_CUDA) == FOVEA_ERR_UNSUPPORTED);
    CHECK(r == NULL);
    CHECK(strstr(fovea_last_error(gctx), "--hwdec cuda") != NULL);
    CHECK(open_reader(&r, cctx, "h264-8.mp4", FOVEA_HWDEC_CUDA) == FOVEA_ERR_NO_DEVICE);
    CHECK(strstr(fovea_last_error(cctx), "CUDA context") != NULL);
    /* auto on a CPU context: the CPU, nothing to say */
    REQUIRE(open_reader(&r, cctx, "h264-8.mp4", FOVEA_HWDEC_AUTO) == FOVEA_OK);
    CHECK(fovea_reader_hwdec(r) == FOVEA_HWDEC_NONE);
    CHECK(fovea_reader_hwdec_reason(r) == NULL);
    fovea_reader_close(&r);
}

static void caps(void)
{
    fovea_hwdec_cap c[64];
    const int n = fovea_hwdec_caps(gctx, c, 64);
    CHECK(n > 0);
    int h264 = 0, hevc10 = 0;
    for (int i = 0; i < n && i < 64; i++) {
        fprintf(stderr, "  NVDEC: %s %d %d-bit %dx%d..%dx%d\n", c[i].codec, c[i].chroma,
                c[i].bit_depth, c[i].min_width, c[i].min_height, c[i].max_width, c[i].max_height);
        h264 |= strcmp(c[i].codec, "h264") == 0 && c[i].chroma == 420 && c[i].bit_depth == 8;
        hevc10 |= strcmp(c[i].codec, "hevc") == 0 && c[i].chroma == 420 && c[i].bit_depth == 10;
    }
    CHECK(h264 && hevc10);
    CHECK(fovea_hwdec_caps(cctx, c, 64) == FOVEA_ERR_NO_DEVICE);
}

/* the CLI's JSON of `fovea vmaf ref dis` with hwdec, "fps" lines dropped */
static int vmaf_json(const char *ref, const char *dis, const char *hwdec, char *out, size_t n)
{
    const char *cli = getenv("FOVEA_CLI");
    if (!cli)
        return -1;
    char r[1200], d[1200], cmd[4096], json[64];
    media_path(r, sizeof(r), ref);
    media_path(d, sizeof(d), dis);
    snprintf(json, sizeof(json), "vmaf-%s.json", hwdec);
    snprintf(cmd, sizeof(cmd),
             "'%s' vmaf -q --match-frames --hwdec %s --json %s '%s' '%s' 2>vmaf-%s.err", cli, hwdec,
             json, r, d, hwdec);
    if (system(cmd) != 0) {
        fprintf(stderr, "failed: %s\n", cmd);
        return -1;
    }
    FILE *fp = fopen(json, "r");
    if (!fp)
        return -1;
    size_t k = 0;
    char line[4096];
    while (fgets(line, sizeof(line), fp))
        if (!strstr(line, "\"fps\"") && k + strlen(line) < n) {
            memcpy(out + k, line, strlen(line));
            k += strlen(line);
        }
    out[k] = '\0';
    fclose(fp);
    return (int)k;
}

static void vmaf_cli(void)
{
    static char a[1 << 20], b[1 << 20];
    /* 8-bit: both inputs on NVDEC */
    CHECK(vmaf_json("h264-8.mp4", "hevc-8.mp4", "none", a, sizeof(a)) > 0);
    CHECK(vmaf_json("h264-8.mp4", "hevc-8.mp4", "cuda", b, sizeof(b)) > 0);
    CHECK(strcmp(a, b) == 0);
    /* 10-bit: the HEVC reference on NVDEC, the H.264 distorted falls back */
    CHECK(vmaf_json("hevc-10.mp4", "h264-10.mp4", "none", a, sizeof(a)) > 0);
    CHECK(vmaf_json("hevc-10.mp4", "h264-10.mp4", "auto", b, sizeof(b)) > 0);
    CHECK(strcmp(a, b) == 0);
    /* the fallback is told once */
    FILE *fp = fopen("vmaf-auto.err", "r");
    int notes = 0;
    char line[1024];
    while (fp && fgets(line, sizeof(line), fp))
        notes += strstr(line, "decoding on the CPU") != NULL;
    if (fp)
        fclose(fp);
    CHECK_EQ_INT(notes, 1);
}

int main(void)
{
    if (!test_have_gpu()) {
        fprintf(stderr, "test_gpu_media: no CUDA device (skipped)\n");
        return TEST_SKIP;
    }
    if (!fovea_media_version()) {
        fprintf(stderr, "test_gpu_media: built without FFmpeg (skipped)\n");
        return TEST_SKIP;
    }
    const char *dir = getenv("FOVEA_NVDEC_MEDIA");
    if (dir)
        snprintf(media_dir, sizeof(media_dir), "%s", dir);
    else
        snprintf(media_dir, sizeof(media_dir), "%s/.ffmpeg/media", test_source_dir());
    char probe[1200];
    media_path(probe, sizeof(probe), "hevc-10.mp4");
    FILE *fp = fopen(probe, "rb");
    if (!fp) {
        fprintf(stderr, "test_gpu_media: no %s (scripts/ffmpeg-carry.sh makes it; skipped)\n",
                probe);
        return TEST_SKIP;
    }
    fclose(fp);
    gctx = test_open_ctx(FOVEA_BACKEND_CUDA, 2, NULL);
    cctx = test_open_ctx(FOVEA_BACKEND_CPU, 2, NULL);
    fovea_hwdec_cap c;
    if (fovea_hwdec_caps(gctx, &c, 1) == FOVEA_ERR_UNSUPPORTED) {
        fprintf(stderr, "test_gpu_media: %s (skipped)\n", fovea_last_error(gctx));
        fovea_close(&gctx);
        fovea_close(&cctx);
        return TEST_SKIP;
    }
    caps();
    compare_file("h264-8.mp4", FOVEA_PIX_I420, 352, 288);
    compare_file("hevc-8.mp4", FOVEA_PIX_I420, 352, 288);
    compare_file("hevc-10.mp4", FOVEA_PIX_I420P10, 352, 288);
    compare_file("hevc-10-odd.mkv", FOVEA_PIX_I420P10, 318, 178);
    fallbacks();
    vmaf_cli();
    fprintf(stderr, "test_gpu_media: %lld frames compared\n", frames_compared);
    fovea_close(&gctx);
    fovea_close(&cctx);
    return test_failures ? 1 : 0;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CAMBI's and SpEED's vectorized C (cambi_rows.c, cambi_ref.c, speed_ref.c,
 * speed_linalg.c: the library's run-time pick of its x86-64-v4, AVX2 or
 * baseline clones) against the same sources built here as plain scalar code
 * (no clones, no vectorizer, names prefixed plain_): random and banded
 * pictures of odd sizes at 8, 10, 12 and 16 bits, with the options that
 * change the paths (encode scaling and bit depth, full_ref, windows,
 * high_res_speedup; SpEED's prescale methods and kernel scales) must give the
 * same doubles and floats bit for bit, and CAMBI split over 4 threads by
 * bands of rows the same as on one; all of it under FOVEA_SIMD=0 and
 * FOVEA_SIMD=avx2 (which select only VIF's, ADM's and motion's hand-written
 * paths: these features take the clones in both). What this catches is what
 * vectorization can break (aliasing, order of float sums, contraction);
 * the arithmetic itself is checked against libvmaf by the golden sets and,
 * for CAMBI, pixel by pixel by test_quality_cambi_emul. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-vectorize", "no-tree-loop-vectorize", "no-tree-slp-vectorize")
#endif
#define FOVEA_CAMBI_NO_CLONES
#define FOVEA_SPEED_NO_CLONES

#define cambi_row_or plain_cambi_row_or
#define cambi_row_to10 plain_cambi_row_to10
#define cambi_row_dither plain_cambi_row_dither
#define cambi_row_flat plain_cambi_row_flat
#define cambi_row_cols plain_cambi_row_cols
#define cambi_row_mask plain_cambi_row_mask
#define cambi_row_decimate16 plain_cambi_row_decimate16
#define cambi_row_decimate8 plain_cambi_row_decimate8
#define cambi_row_hmode plain_cambi_row_hmode
#define cambi_row_vmode plain_cambi_row_vmode
#define cambi_row_keys plain_cambi_row_keys
#define cambi_row_hist plain_cambi_row_hist
#define cambi_row_cvalues plain_cambi_row_cvalues
#define cambi_combine plain_cambi_combine
#define cambi_contrast_weight plain_cambi_contrast_weight
#define cambi_mask_threshold plain_cambi_mask_threshold
#define cambi_plan_make plain_cambi_plan_make
#define cambi_pool plain_cambi_pool
#define cambi_positions plain_cambi_positions
#define cambi_ref_close plain_cambi_ref_close
#define cambi_ref_open plain_cambi_ref_open
#define cambi_ref_process plain_cambi_ref_process
#define cambi_scale_size plain_cambi_scale_size
#define cambi_topk_count plain_cambi_topk_count
#define cambi_topk_mean plain_cambi_topk_mean
#define speed_dims_init plain_speed_dims_init
#define speed_entropies plain_speed_entropies
#define speed_filters plain_speed_filters
#define speed_kernelscale_valid plain_speed_kernelscale_valid
#define speed_plane_score plain_speed_plane_score
#define speed_prescale_axis plain_speed_prescale_axis
#define speed_prescaled plain_speed_prescaled
#define speed_score plain_speed_score
#define speed_side plain_speed_side
#define speed_state_free plain_speed_state_free
#define speed_state_init plain_speed_state_init
#define speed_eigenvalues plain_speed_eigenvalues
#define speed_solve plain_speed_solve

#include "../src/quality/cambi_ref.c"
#include "../src/quality/cambi_rows.c"
#include "../src/quality/speed_linalg.c"
#include "../src/quality/speed_ref.c"

#undef cambi_ref_open
#undef cambi_ref_close
#undef cambi_ref_process
#undef speed_state_init
#undef speed_state_free
#undef speed_plane_score

#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/* the library's (vectorized) entry points; the headers above declared the
 * plain_ names */
int cambi_ref_open(void **priv, fovea_context *ctx, const cambi_params *p);
void cambi_ref_close(void **priv);
int cambi_ref_process(void *priv, fovea_context *ctx, const uint8_t *dis, ptrdiff_t dis_stride,
                      const uint8_t *ref, ptrdiff_t ref_stride, double *dis_score,
                      double *src_score);
int speed_state_init(speed_state *s, int width, int height, const speed_params *p);
void speed_state_free(speed_state *s);
int speed_plane_score(speed_state *s, const uint8_t *ref, ptrdiff_t ref_stride, const uint8_t *dis,
                      ptrdiff_t dis_stride, int bpc, float *score);

static int compared, failed_cases;
/* a context of 4 threads: the library's CAMBI split by bands of rows */
static fovea_context *pool_ctx;

/* A w x h plane of bpc bits (padded rows): kind 0 banded (a slow ramp of
 * 10-bit levels with flat blocks and a noisy corner), 1 noise, 2 smooth
 * texture with noise (SpEED's usual input). */
static uint8_t *make_plane(int kind, int w, int h, int bpc, test_rng *r, ptrdiff_t *stride)
{
    const int bytes = bpc > 8 ? 2 : 1, maxv = (1 << bpc) - 1;
    *stride = (ptrdiff_t)(w + 5) * bytes;
    uint8_t *p = malloc((size_t)*stride * (size_t)h);
    REQUIRE(p);
    memset(p, 0x5a, (size_t)*stride * (size_t)h);
    const double lo = 60 + test_rng_below(r, 400), span = 8 + test_rng_below(r, 40);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v;
            if (kind == 0) {
                const int v10 = (int)(lo + span * (0.6 * x / w + 0.4 * y / h));
                v = bpc >= 10 ? v10 << (bpc - 10) : v10 >> (10 - bpc);
                if (bpc > 10 && test_rng_below(r, 8) == 0)
                    v += (int)test_rng_below(r, 1u << (bpc - 10));
                if (x > w / 3 && x < w / 2 && y > h / 5 && y < h / 2)
                    v = (int)lo << (bpc - 8) >> 2; /* flat */
                if (y > h * 4 / 5 && x < w / 4)
                    v = (int)test_rng_below(r, (uint32_t)maxv + 1);
            } else if (kind == 1) {
                v = (int)test_rng_below(r, (uint32_t)maxv + 1);
            } else {
                v = (int)((0.5 + 0.3 * sin(x * 0.05 + y * 0.031) * cos(y * 0.02)) * maxv) +
                    (int)test_rng_below(r, (uint32_t)(maxv / 32 + 1));
            }
            v = v < 0 ? 0 : v > maxv ? maxv : v;
            uint8_t *row = p + (ptrdiff_t)y * *stride;
            if (bytes == 1) {
                row[x] = (uint8_t)v;
            } else {
                row[2 * x] = (uint8_t)(v & 0xff);
                row[2 * x + 1] = (uint8_t)(v >> 8);
            }
        }
    return p;
}

static cambi_params cambi_defaults(int w, int h, int bpc)
{
    cambi_params p;
    memset(&p, 0, sizeof(p));
    p.width = w;
    p.height = h;
    p.bpc = bpc;
    p.window_size = 65;
    p.topk = 0.6;
    p.tvi_threshold = 0.019;
    p.max_log_contrast = 2;
    return p;
}

static void check_cambi(const char *name, const cambi_params *p, int kind, uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    ptrdiff_t ds, rs;
    uint8_t *dis = make_plane(kind, p->width, p->height, p->bpc, &r, &ds);
    uint8_t *ref = make_plane(kind, p->width, p->height, p->bpc, &r, &rs);
    double got[2] = {-1.0, -1.0}, want[2] = {-1.0, -1.0}, split[2] = {-1.0, -1.0};
    void *st = NULL;
    REQUIRE(cambi_ref_open(&st, NULL, p) == FOVEA_OK);
    REQUIRE(cambi_ref_process(st, NULL, dis, ds, ref, rs, &got[0], &got[1]) == FOVEA_OK);
    cambi_ref_close(&st);
    cambi_params pt = *p;
    pt.threads = 4;
    REQUIRE(cambi_ref_open(&st, pool_ctx, &pt) == FOVEA_OK);
    REQUIRE(cambi_ref_process(st, pool_ctx, dis, ds, ref, rs, &split[0], &split[1]) == FOVEA_OK);
    cambi_ref_close(&st);
    REQUIRE(plain_cambi_ref_open(&st, NULL, p) == FOVEA_OK);
    REQUIRE(plain_cambi_ref_process(st, NULL, dis, ds, ref, rs, &want[0], &want[1]) == FOVEA_OK);
    plain_cambi_ref_close(&st);
    const int bad = memcmp(got, want, sizeof(got)) != 0 || memcmp(split, want, sizeof(got)) != 0;
    compared++;
    failed_cases += bad;
    printf("  cambi %-46s %.17g / %.17g%s\n", name, got[0], got[1], bad ? "  MISMATCH" : "");
    if (bad)
        fprintf(stderr, "    plain C %.17g / %.17g, split over 4 threads %.17g / %.17g\n", want[0],
                want[1], split[0], split[1]);
    CHECK(!bad);
    free(dis);
    free(ref);
}

static void cambi_cases(void)
{
    static const int depths[] = {8, 10, 12, 16};
    static const int sizes[][2] = {{251, 217}, {333, 241}, {220, 301}};
    uint64_t seed = 460;
    char name[96];
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (int kind = 0; kind < 2; kind++) {
                cambi_params p = cambi_defaults(sizes[s][0], sizes[s][1], depths[d]);
                p.window_size = kind ? 33 : 65;
                snprintf(name, sizeof name, "%dx%d %d-bit %s", p.width, p.height, p.bpc,
                         kind ? "noise ws 33" : "banded");
                check_cambi(name, &p, kind, seed++);
            }
    cambi_params p = cambi_defaults(333, 251, 10);
    p.enc_width = 241;
    p.enc_height = 221;
    p.enc_bitdepth = 8;
    check_cambi("333x251 10-bit enc 241x221 8-bit (dither)", &p, 0, seed++);
    p = cambi_defaults(301, 223, 12);
    p.full_ref = 1;
    p.src_width = 451;
    p.src_height = 335;
    p.enc_width = 257;
    p.enc_height = 219;
    check_cambi("301x223 12-bit full_ref src 451x335 enc 257x219", &p, 0, seed++);
    p = cambi_defaults(287, 233, 16);
    p.window_size = 17;
    p.topk = 0.3;
    p.max_log_contrast = 4;
    p.pq = 1;
    check_cambi("287x233 16-bit ws 17 topk .3 mlc 4 pq", &p, 0, seed++);
    p = cambi_defaults(263, 241, 8);
    p.max_log_contrast = 0;
    p.topk = 1.0;
    check_cambi("263x241 8-bit mlc 0 topk 1", &p, 0, seed++);
    p = cambi_defaults(1921, 1081, 10);
    p.high_res_speedup = 1080;
    p.vis_lum_threshold = 0.06;
    check_cambi("1921x1081 10-bit hrs 1080 vlt .06 (v1)", &p, 0, seed++);
    p = cambi_defaults(1920, 1080, 8);
    p.high_res_speedup = 1080;
    p.full_ref = 1;
    check_cambi("1920x1080 8-bit hrs 1080 full_ref noise", &p, 1, seed++);
}

/* A 10-bit sample above 1023 is refused, whether it is seen while the
 * picture is converted (encode of the input's size) or by a check first (an
 * encode of another size, where not every sample is read). */
static void check_refusal(void)
{
    const int w = 251, h = 223;
    test_rng r;
    test_rng_seed(&r, 4646);
    ptrdiff_t stride;
    uint8_t *plane = make_plane(0, w, h, 10, &r, &stride);
    plane[(ptrdiff_t)(h - 1) * stride + 2 * (w - 1) + 1] = 0x04; /* 1024 + low byte */
    for (int enc = 0; enc < 2; enc++) {
        cambi_params p = cambi_defaults(w, h, 10);
        if (enc) {
            p.enc_width = 231;
            p.enc_height = 217;
        }
        void *st = NULL;
        double score = 0.0, src = 0.0;
        REQUIRE(cambi_ref_open(&st, NULL, &p) == FOVEA_OK);
        CHECK(cambi_ref_process(st, NULL, plane, stride, NULL, 0, &score, &src) ==
              FOVEA_ERR_INVALID_ARG);
        cambi_ref_close(&st);
        REQUIRE(plain_cambi_ref_open(&st, NULL, &p) == FOVEA_OK);
        CHECK(plain_cambi_ref_process(st, NULL, plane, stride, NULL, 0, &score, &src) ==
              FOVEA_ERR_INVALID_ARG);
        plain_cambi_ref_close(&st);
    }
    free(plane);
}

static void check_speed(const char *name, int w, int h, int bpc, const speed_params *sp,
                        uint64_t seed)
{
    test_rng r;
    test_rng_seed(&r, seed);
    ptrdiff_t ds, rs;
    uint8_t *ref = make_plane(2, w, h, bpc, &r, &rs);
    uint8_t *dis = make_plane(2, w, h, bpc, &r, &ds);
    speed_state a, b;
    REQUIRE(speed_state_init(&a, w, h, sp) == 0);
    REQUIRE(plain_speed_state_init(&b, w, h, sp) == 0);
    float got = -1.0f, want = -1.0f;
    const int eg = speed_plane_score(&a, ref, rs, dis, ds, bpc, &got);
    const int ew = plain_speed_plane_score(&b, ref, rs, dis, ds, bpc, &want);
    speed_state_free(&a);
    plain_speed_state_free(&b);
    const int bad = eg != ew || memcmp(&got, &want, sizeof(got)) != 0;
    compared++;
    failed_cases += bad;
    printf("  speed %-46s %.9g (singular %d)%s\n", name, (double)got, eg, bad ? "  MISMATCH" : "");
    if (bad)
        fprintf(stderr, "    plain C %.9g (singular %d)\n", (double)want, ew);
    CHECK(!bad);
    free(ref);
    free(dis);
}

static void speed_cases(void)
{
    static const int depths[] = {8, 10, 12, 16};
    uint64_t seed = 4600;
    char name[96];
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        const speed_params p = {1.0, 1.0, 0.29, 0.0, SPEED_NEAREST, 0};
        snprintf(name, sizeof name, "241x163 %d-bit defaults", depths[d]);
        check_speed(name, 241, 163, depths[d], &p, seed++);
    }
    const speed_params v1 = {1.0, 1.0, 0.19, 0.1, SPEED_NEAREST, 5};
    check_speed("961x541 10-bit v1 3d0h", 961, 541, 10, &v1, seed++);
    const speed_params bil = {1.0, 0.6, 0.19, 0.1, SPEED_BILINEAR, 5};
    check_speed("961x541 10-bit prescale .6 bilinear", 961, 541, 10, &bil, seed++);
    const speed_params bic = {1.5, 1.5, 0.29, 0.0, SPEED_BICUBIC, 3};
    check_speed("187x121 8-bit prescale 1.5 bicubic ks 1.5", 187, 121, 8, &bic, seed++);
    const speed_params lan = {0.5, 0.7, 0.29, 1.0, SPEED_LANCZOS4, 4};
    check_speed("333x251 12-bit prescale .7 lanczos4 ks .5", 333, 251, 12, &lan, seed++);
    const speed_params near = {3.0, 2.0, 1.5, 0.5, SPEED_NEAREST, 6};
    check_speed("161x97 16-bit prescale 2 nearest ks 3", 161, 97, 16, &near, seed++);
}

static int run_all(const char *simd)
{
    fovea_settings cs;
    fovea_default_settings(&cs);
    cs.backend = FOVEA_BACKEND_CPU;
    cs.threads = 4;
    REQUIRE(fovea_open(&pool_ctx, &cs) == FOVEA_OK);
    cambi_cases();
    check_refusal();
    speed_cases();
    fovea_close(&pool_ctx);
    printf("test_quality_cambi_speed_simd (FOVEA_SIMD=%s): %d cases compared, %d differ\n", simd,
           compared, failed_cases);
    return test_failures ? 1 : 0;
}

/* Once with FOVEA_SIMD=0 (a child: the variable is read once per process)
 * and once with FOVEA_SIMD=avx2: these features follow the clones whatever
 * the mode, and neither mode may change a bit. */
int main(void)
{
    fflush(stdout);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        setenv("FOVEA_SIMD", "0", 1);
        const int rc = run_all("0");
        fflush(stdout);
        _exit(rc);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    setenv("FOVEA_SIMD", "avx2", 1);
    return run_all("avx2") || test_failures ? 1 : 0;
}

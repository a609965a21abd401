/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Integer VIF on a CUDA device: every score and debug value of the CUDA backend
 * equals the C reference exactly (==), for host, pinned and device frames, odd
 * sizes, 8/10/12/16 bits, both gain limits, two CUDA contexts and size changes
 * on one context, through the feature list "vif" of fovea_vmaf: process and
 * the queued submit/receive API (many batches in flight). Exits 77 (skipped) without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/quality.h"
#include "vif_test.h"
#include "testutil.h"

#ifdef FOVEA_HAVE_CUDA

static void put_sample(fovea_frame *f, int bpc, int x, int y, int v)
{
    const int maxv = (1 << bpc) - 1;
    v = v < 0 ? 0 : v > maxv ? maxv : v;
    test_sample_set(f, 0, bpc, x, y, v);
}

static int get_sample(const fovea_frame *f, int bpc, int x, int y)
{
    return test_sample_get(f, 0, bpc, x, y);
}

/* Smooth content plus noise (never flat); dis is ref plus noise (kind 0), a
 * 3x3 box blur of ref (kind 1) or a contrast change (kind 2). Chroma planes get
 * random samples (they must be ignored). */
static void make_pair(fovea_frame *ref, fovea_frame *dis, int bpc, int kind, test_rng *r)
{
    const int w = ref->width, h = ref->height, maxv = (1 << bpc) - 1;
    test_fill_random(ref, r);
    test_fill_random(dis, r);
    const double ph = test_rng_double(r) * 6.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double sm =
                0.5 + 0.3 * sin(x * 0.07 + ph) * cos(y * 0.05 - ph) + 0.1 * sin(x * 0.5 + y * 0.3);
            const int noise = (int)test_rng_below(r, (uint32_t)(maxv / 16 + 1)) - maxv / 32;
            put_sample(ref, bpc, x, y, (int)(sm * maxv) + noise);
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int v = get_sample(ref, bpc, x, y);
            int d;
            if (kind == 0) {
                d = v + (int)test_rng_below(r, (uint32_t)(maxv / 8 + 1)) - maxv / 16;
            } else if (kind == 1) {
                int s = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        const int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                        const int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                        s += get_sample(ref, bpc, xx, yy);
                    }
                d = s / 9;
            } else {
                d = v + (v - maxv / 2) / 2;
            }
            put_sample(dis, bpc, x, y, d);
        }
}

static int same_scores(const vif_test_scores *a, const vif_test_scores *b)
{
    int ok = a->frame == b->frame && a->num_total == b->num_total && a->den_total == b->den_total &&
             a->vif == b->vif;
    for (int s = 0; s < VIF_TEST_SCALES; s++)
        ok = ok && a->scale[s] == b->scale[s] && a->num[s] == b->num[s] && a->den[s] == b->den[s];
    return ok;
}

static void print_scores(const char *what, const vif_test_scores *s)
{
    fprintf(stderr, "  %s: scales %.17g %.17g %.17g %.17g\n", what, s->scale[0], s->scale[1],
            s->scale[2], s->scale[3]);
    fprintf(stderr, "  %s: num %.17g %.17g %.17g %.17g den %.17g %.17g %.17g %.17g\n", what,
            s->num[0], s->num[1], s->num[2], s->num[3], s->den[0], s->den[1], s->den[2], s->den[3]);
}

static int same_pooled(const vif_test_pooled *a, const vif_test_pooled *b)
{
    int ok = a->frames == b->frames;
    for (int s = 0; s < VIF_TEST_SCALES; s++)
        ok = ok && a->scale[s].min == b->scale[s].min && a->scale[s].max == b->scale[s].max &&
             a->scale[s].mean == b->scale[s].mean &&
             a->scale[s].harmonic_mean == b->scale[s].harmonic_mean;
    return ok;
}

typedef struct vif_set {
    fovea_context *cpu, *gpu_a, *gpu_b;
    fovea_vmaf *v_cpu, *v_host, *v_dev; /* C reference; CUDA host frames (ctx a); CUDA device
                                          frames (ctx b) */
} vif_set;

static void open_set(vif_set *vs, double limit)
{
    vif_test_settings s;
    vif_test_default_settings(&s);
    s.debug = 1;
    s.vif_enhn_gain_limit = limit;
    CHECK_EQ_INT(vif_test_open(&vs->v_cpu, vs->cpu, &s), FOVEA_OK);
    CHECK_EQ_INT(vif_test_open(&vs->v_host, vs->gpu_a, &s), FOVEA_OK);
    CHECK_EQ_INT(vif_test_open(&vs->v_dev, vs->gpu_b, &s), FOVEA_OK);
    REQUIRE(vs->v_cpu && vs->v_host && vs->v_dev);
    CHECK_EQ_INT(fovea_vmaf_backend(vs->v_cpu), FOVEA_BACKEND_CPU);
    CHECK_EQ_INT(fovea_vmaf_backend(vs->v_host), FOVEA_BACKEND_CUDA);
    CHECK_EQ_INT(fovea_vmaf_backend(vs->v_dev), FOVEA_BACKEND_CUDA);
}

static void close_set(vif_set *vs)
{
    fovea_vmaf_close(&vs->v_cpu);
    fovea_vmaf_close(&vs->v_host);
    fovea_vmaf_close(&vs->v_dev);
}

/* `frames` pairs of w x h at bpc (format chroma layout chroma), scored by all
 * three; host frames are pageable, or pinned when pinned is set. */
static void run_case(vif_set *vs, int w, int h, int bpc, int chroma, int frames, int pinned)
{
    const fovea_pixfmt fmt = fovea_pixfmt_yuv(chroma, bpc);
    REQUIRE(fmt != FOVEA_PIX_NONE);
    const fovea_memtype hm = pinned ? FOVEA_MEM_PINNED : FOVEA_MEM_HOST;
    fovea_context *hctx = pinned ? vs->gpu_a : NULL;
    fovea_frame ref, dis, dref, ddis;
    memset(&ref, 0, sizeof(ref));
    memset(&dis, 0, sizeof(dis));
    memset(&dref, 0, sizeof(dref));
    memset(&ddis, 0, sizeof(ddis));
    REQUIRE(fovea_frame_alloc(hctx, &ref, w, h, fmt, hm) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(hctx, &dis, w, h, fmt, hm) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(vs->gpu_b, &dref, w, h, fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
    REQUIRE(fovea_frame_alloc(vs->gpu_b, &ddis, w, h, fmt, FOVEA_MEM_DEVICE) == FOVEA_OK);
    fovea_vmaf_reset(vs->v_cpu);
    fovea_vmaf_reset(vs->v_host);
    fovea_vmaf_reset(vs->v_dev);
    test_rng r;
    test_rng_seed(&r, (uint64_t)w * 100003u + (uint64_t)h * 101u + (uint64_t)bpc);
    int bad = 0;
    for (int f = 0; f < frames; f++) {
        make_pair(&ref, &dis, bpc, f % 3, &r);
        CHECK_EQ_INT(fovea_frame_copy(vs->gpu_b, &dref, &ref), FOVEA_OK);
        CHECK_EQ_INT(fovea_frame_copy(vs->gpu_b, &ddis, &dis), FOVEA_OK);
        CHECK_EQ_INT(fovea_sync(vs->gpu_b), FOVEA_OK);
        vif_test_scores sc, sh, sd;
        memset(&sc, 0, sizeof(sc));
        memset(&sh, 0, sizeof(sh));
        memset(&sd, 0, sizeof(sd));
        CHECK_EQ_INT(vif_test_process(vs->v_cpu, &ref, &dis, &sc), FOVEA_OK);
        int st = vif_test_process(vs->v_host, &ref, &dis, &sh);
        if (st != FOVEA_OK)
            fprintf(stderr, "cuda host: %s\n", fovea_last_error(vs->gpu_a));
        CHECK_EQ_INT(st, FOVEA_OK);
        st = vif_test_process(vs->v_dev, &dref, &ddis, &sd);
        if (st != FOVEA_OK)
            fprintf(stderr, "cuda device: %s\n", fovea_last_error(vs->gpu_b));
        CHECK_EQ_INT(st, FOVEA_OK);
        CHECK(sc.scale[0] > 0.0 && sc.scale[0] <= 2.0); /* content is not degenerate */
        if (!same_scores(&sc, &sh) || !same_scores(&sc, &sd)) {
            fprintf(stderr, "%dx%d %d-bit (%d) frame %d kind %d%s: CUDA differs from C\n", w, h,
                    bpc, chroma, f, f % 3, pinned ? " pinned" : "");
            print_scores("cpu ", &sc);
            print_scores("host", &sh);
            print_scores("dev ", &sd);
            bad++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    vif_test_pooled pc, ph, pd;
    CHECK_EQ_INT(vif_test_pooled_scores(vs->v_cpu, &pc), FOVEA_OK);
    CHECK_EQ_INT(vif_test_pooled_scores(vs->v_host, &ph), FOVEA_OK);
    CHECK_EQ_INT(vif_test_pooled_scores(vs->v_dev, &pd), FOVEA_OK);
    CHECK(pc.frames == frames);
    CHECK(same_pooled(&pc, &ph));
    CHECK(same_pooled(&pc, &pd));
    printf("%5dx%-5d %2d-bit %3d %s: %d frames identical%s\n", w, h, bpc, chroma,
           pinned ? "pinned" : "host  ", frames - bad, bad ? " (MISMATCH)" : "");
    fovea_frame_free(hctx, &ref);
    fovea_frame_free(hctx, &dis);
    fovea_frame_free(vs->gpu_b, &dref);
    fovea_frame_free(vs->gpu_b, &ddis);
}

static void test_exact(void)
{
    static const int sizes[][2] = {{576, 324}, {577, 323},   {33, 17},  {16, 16},
                                   {17, 31},   {1920, 1080}, {131, 67}, {1279, 721}};
    static const int bpcs[] = {8, 10, 12, 16};
    static const int chromas[] = {420, 400, 422, 444};
    vif_set vs;
    memset(&vs, 0, sizeof(vs));
    vs.cpu = test_open_ctx(FOVEA_BACKEND_CPU, 0, NULL);
    vs.gpu_a = test_open_ctx(FOVEA_BACKEND_CUDA, 0, NULL);
    vs.gpu_b = test_open_ctx(FOVEA_BACKEND_CUDA, 0, NULL);

    /* one set of VIF contexts across every size: buffers are re-made on size change */
    open_set(&vs, 100.0);
    int n = 0;
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t b = 0; b < sizeof(bpcs) / sizeof(bpcs[0]); b++, n++) {
            const int chroma = chromas[n % 4];
            const int frames = sizes[i][0] * sizes[i][1] > 1000000 ? 2 : 3;
            run_case(&vs, sizes[i][0], sizes[i][1], bpcs[b], chroma, frames, (n % 5) == 4);
        }
    close_set(&vs);

    /* gain limit 1.0 (no enhancement gain) */
    open_set(&vs, 1.0);
    run_case(&vs, 577, 323, 8, 420, 3, 0);
    run_case(&vs, 64, 48, 10, 400, 3, 0);
    close_set(&vs);

    /* the CPU backend refuses device frames; the CUDA one takes them */
    fovea_vmaf *v = NULL;
    CHECK_EQ_INT(vif_test_open(&v, vs.cpu, NULL), FOVEA_OK);
    fovea_frame d;
    memset(&d, 0, sizeof(d));
    REQUIRE(fovea_frame_alloc(vs.gpu_a, &d, 64, 64, FOVEA_PIX_GRAY8, FOVEA_MEM_DEVICE) == FOVEA_OK);
    CHECK_EQ_INT(fovea_frame_fill(vs.gpu_a, &d, 77), FOVEA_OK);
    CHECK_EQ_INT(fovea_sync(vs.gpu_a), FOVEA_OK);
    CHECK_EQ_INT(vif_test_process(v, &d, &d, NULL), FOVEA_ERR_INVALID_ARG);
    fovea_vmaf_close(&v);
    CHECK_EQ_INT(vif_test_open(&v, vs.gpu_a, NULL), FOVEA_OK);
    vif_test_scores s;
    CHECK_EQ_INT(vif_test_process(v, &d, &d, &s), FOVEA_OK);
    CHECK(s.scale[0] == 1.0); /* flat: every pixel in the flat sums, num == den */
    fovea_vmaf_close(&v);
    fovea_frame_free(vs.gpu_a, &d);

    fovea_close(&vs.cpu);
    fovea_close(&vs.gpu_a);
    fovea_close(&vs.gpu_b);
}

/* The queued API on CUDA: more pairs in flight than the backend's queue holds
 * (several batches, submit waiting inside), pageable / pinned / device frames
 * mixed pair by pair, poisoned outputs, receives interleaved with submits and
 * size changes with pairs pending. Every score, frame number and pooled value
 * equals the C reference's vif_test_process. */
static void test_async(void)
{
    static const struct {
        int w, h, bpc, chroma, count;
    } seg[] = {
        {577, 323, 8, 420, 140}, {131, 67, 10, 400, 40},   {1279, 721, 8, 444, 11},
        {33, 17, 12, 422, 5},    {1920, 1080, 10, 420, 3},
    };
    enum { NSEG = sizeof(seg) / sizeof(seg[0]) };
    int total = 0;
    for (int k = 0; k < NSEG; k++)
        total += seg[k].count;
    fovea_context *cpu = test_open_ctx(FOVEA_BACKEND_CPU, 0, NULL);
    fovea_context *gpu = test_open_ctx(FOVEA_BACKEND_CUDA, 0, NULL);
    vif_test_settings set;
    vif_test_default_settings(&set);
    set.debug = 1;
    fovea_vmaf *vc = NULL, *vg = NULL;
    REQUIRE(vif_test_open(&vc, cpu, &set) == FOVEA_OK);
    REQUIRE(vif_test_open(&vg, gpu, &set) == FOVEA_OK);
    CHECK(fovea_vmaf_batch_size(vg, 576, 324) > 8);
    CHECK_EQ_INT(fovea_vmaf_batch_size(vg, 3840, 2160), 1);

    fovea_frame *host = calloc((size_t)total * 2, sizeof(fovea_frame));
    fovea_frame *gpuf = calloc((size_t)total * 2, sizeof(fovea_frame));
    vif_test_scores *want = calloc((size_t)total, sizeof(vif_test_scores));
    vif_test_scores *got = malloc((size_t)total * sizeof(vif_test_scores));
    REQUIRE(host && gpuf && want && got);
    memset(got, 0xff, (size_t)total * sizeof(*got)); /* poison */
    test_rng r;
    test_rng_seed(&r, 777);
    int i = 0, received = 0;
    for (int k = 0; k < NSEG; k++) {
        const fovea_pixfmt fmt = fovea_pixfmt_yuv(seg[k].chroma, seg[k].bpc);
        for (int f = 0; f < seg[k].count; f++, i++) {
            fovea_frame *hr = &host[2 * i], *hd = &host[2 * i + 1];
            REQUIRE(fovea_frame_alloc(NULL, hr, seg[k].w, seg[k].h, fmt, FOVEA_MEM_HOST) ==
                    FOVEA_OK);
            REQUIRE(fovea_frame_alloc(NULL, hd, seg[k].w, seg[k].h, fmt, FOVEA_MEM_HOST) ==
                    FOVEA_OK);
            make_pair(hr, hd, seg[k].bpc, i % 3, &r);
            CHECK_EQ_INT(vif_test_process(vc, hr, hd, &want[i]), FOVEA_OK);
            /* pageable, pinned or device, in turn */
            const fovea_frame *sr = hr, *sd = hd;
            if (i % 3) {
                const fovea_memtype m = i % 3 == 1 ? FOVEA_MEM_PINNED : FOVEA_MEM_DEVICE;
                fovea_frame *gr = &gpuf[2 * i], *gd = &gpuf[2 * i + 1];
                REQUIRE(fovea_frame_alloc(gpu, gr, seg[k].w, seg[k].h, fmt, m) == FOVEA_OK);
                REQUIRE(fovea_frame_alloc(gpu, gd, seg[k].w, seg[k].h, fmt, m) == FOVEA_OK);
                CHECK_EQ_INT(fovea_frame_copy(gpu, gr, hr), FOVEA_OK);
                CHECK_EQ_INT(fovea_frame_copy(gpu, gd, hd), FOVEA_OK);
                CHECK_EQ_INT(fovea_sync(gpu), FOVEA_OK);
                sr = gr;
                sd = gd;
            }
            int st = fovea_vmaf_submit(vg, sr, sd);
            if (st != FOVEA_OK)
                fprintf(stderr, "submit %d: %s\n", i, fovea_last_error(gpu));
            CHECK_EQ_INT(st, FOVEA_OK);
            /* pageable frames were copied at submit: scribbling on them now
             * must not change the scores */
            if (i % 3 == 0)
                test_fill_random(hr, &r);
        }
        CHECK_EQ_INT(fovea_vmaf_pending(vg), i - received);
        /* receive part of what is pending; the rest crosses the size change */
        const int upto = received + (i - received) / 3;
        while (received < upto) {
            int st = vif_test_receive(vg, &got[received]);
            if (st != FOVEA_OK)
                fprintf(stderr, "receive %d: %s\n", received, fovea_last_error(gpu));
            CHECK_EQ_INT(st, FOVEA_OK);
            received++;
        }
    }
    CHECK_EQ_INT(vif_test_process(vg, &host[1], &host[1], NULL), FOVEA_ERR_INVALID_ARG);
    while (received < total) {
        int st = vif_test_receive(vg, &got[received]);
        if (st != FOVEA_OK)
            fprintf(stderr, "receive %d: %s\n", received, fovea_last_error(gpu));
        CHECK_EQ_INT(st, FOVEA_OK);
        if (st != FOVEA_OK)
            break;
        received++;
    }
    CHECK_EQ_INT(vif_test_receive(vg, &got[0]), FOVEA_AGAIN);
    int bad = 0;
    for (i = 0; i < total; i++)
        if (!same_scores(&want[i], &got[i])) {
            if (bad++ < 3) {
                fprintf(stderr, "queued pair %d differs from C\n", i);
                print_scores("cpu ", &want[i]);
                print_scores("cuda", &got[i]);
            }
        }
    CHECK_EQ_INT(bad, 0);
    vif_test_pooled pc, pg;
    CHECK_EQ_INT(vif_test_pooled_scores(vc, &pc), FOVEA_OK);
    CHECK_EQ_INT(vif_test_pooled_scores(vg, &pg), FOVEA_OK);
    CHECK(same_pooled(&pc, &pg));
    printf("queued: %d pairs (5 sizes, pageable/pinned/device) identical to C%s\n", total - bad,
           bad ? " (MISMATCH)" : "");

    /* close with a partly filled batch pending; reset drops pending pairs */
    CHECK_EQ_INT(fovea_vmaf_submit(vg, &gpuf[2 * 1], &gpuf[2 * 1 + 1]), FOVEA_OK);
    fovea_vmaf_reset(vg);
    CHECK_EQ_INT(fovea_vmaf_pending(vg), 0);
    CHECK_EQ_INT(fovea_vmaf_submit(vg, &gpuf[2 * 2], &gpuf[2 * 2 + 1]), FOVEA_OK);
    CHECK_EQ_INT(vif_test_receive(vg, &got[0]), FOVEA_OK);
    CHECK(got[0].frame == 0 && memcmp(got[0].scale, want[2].scale, sizeof(got[0].scale)) == 0);
    CHECK_EQ_INT(fovea_vmaf_submit(vg, &gpuf[2 * 1], &gpuf[2 * 1 + 1]), FOVEA_OK);
    fovea_vmaf_close(&vg);
    fovea_vmaf_close(&vc);
    for (i = 0; i < 2 * total; i++) {
        fovea_frame_free(NULL, &host[i]);
        fovea_frame_free(gpu, &gpuf[i]);
    }
    free(host);
    free(gpuf);
    free(want);
    free(got);
    fovea_close(&cpu);
    fovea_close(&gpu);
}

int main(void)
{
    if (!test_have_gpu()) {
        printf("no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    test_exact();
    test_async();
    return test_finish("test_gpu_vif");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif

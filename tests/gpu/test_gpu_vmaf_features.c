/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The CUDA kernels of integer ADM (adm.cu) and integer motion (motion.cu)
 * against their C references, through the launchers: every float of
 * adm_compute (num/den/aim_num of each level) and every double derived from
 * them bit for bit, and motion_sad's SAD exactly, on every golden case of
 * ../shared/testdata/vif.tar.xz and on generated frames of odd sizes at 8, 10,
 * 12 and 16 bits (smooth content with distortions, full-range noise, flat
 * frames), in batches up to the largest, padded strides, non-default ADM
 * options; device scratch and outputs are poisoned first. Prints the device
 * time of both at 1920x1080. Exits 77 (skipped) without a CUDA device. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/fovea.h"
#include "fovea/io.h"
#include "quality/adm.h"
#include "quality/adm_cuda.h"
#include "quality/motion.h"
#include "quality/motion_cuda.h"
#include "testutil.h"
#include "vmaf_golden.h"

#ifdef FOVEA_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "gpu/gpu_require.h"

#define POISON 0xA5
#define MAX_PAIRS ADM_CUDA_MAX_BATCH


/* A host luma plane: 8-bit samples or 16-bit containers, stride in bytes. */
typedef struct plane {
    int w, h, bpc;
    ptrdiff_t stride;
    uint8_t *data;
} plane;

static void plane_alloc(plane *p, int w, int h, int bpc)
{
    p->w = w;
    p->h = h;
    p->bpc = bpc;
    p->stride = (ptrdiff_t)w * (bpc > 8 ? 2 : 1);
    p->data = malloc((size_t)p->stride * (size_t)h);
    REQUIRE(p->data);
}

static int get(const plane *p, int x, int y)
{
    const uint8_t *row = p->data + (ptrdiff_t)y * p->stride;
    return p->bpc == 8 ? row[x] : ((const uint16_t *)(const void *)row)[x];
}

static void put(plane *p, int x, int y, int v)
{
    const int maxv = (1 << p->bpc) - 1;
    v = v < 0 ? 0 : v > maxv ? maxv : v;
    uint8_t *row = p->data + (ptrdiff_t)y * p->stride;
    if (p->bpc == 8)
        row[x] = (uint8_t)v;
    else
        ((uint16_t *)(void *)row)[x] = (uint16_t)v;
}

/* Generated content. kind 0..2: smooth texture with noise, dis = ref plus
 * noise / 3x3 blur / contrast change (enhancement); 3: full-range noise for
 * both; 4: flat ref, noisy dis; 5: both flat and equal; 6: ref noise, dis
 * saturated (0 and max). */
static void make_pair(plane *ref, plane *dis, int kind, test_rng *r)
{
    const int w = ref->w, h = ref->h, maxv = (1 << ref->bpc) - 1;
    const double ph = test_rng_double(r) * 6.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            int v;
            if (kind == 3 || kind == 6) {
                v = (int)test_rng_below(r, (uint32_t)maxv + 1);
            } else if (kind == 4 || kind == 5) {
                v = maxv / 3;
            } else {
                const double sm = 0.5 + 0.3 * sin(x * 0.07 + ph) * cos(y * 0.05 - ph) +
                                  0.1 * sin(x * 0.5 + y * 0.3);
                v = (int)(sm * maxv) + (int)test_rng_below(r, (uint32_t)(maxv / 16 + 1)) -
                    maxv / 32;
            }
            put(ref, x, y, v);
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int v = get(ref, x, y);
            int d;
            switch (kind) {
            case 0:
            case 4: d = v + (int)test_rng_below(r, (uint32_t)(maxv / 8 + 1)) - maxv / 16; break;
            case 1: {
                int s = 0;
                for (int dy = -1; dy <= 1; dy++)
                    for (int dx = -1; dx <= 1; dx++) {
                        const int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                        const int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                        s += get(ref, xx, yy);
                    }
                d = s / 9;
                break;
            }
            case 2: d = v + (v - maxv / 2) / 2; break;
            case 3: d = (int)test_rng_below(r, (uint32_t)maxv + 1); break;
            case 5: d = v; break;
            default: d = test_rng_below(r, 2) ? maxv : 0; break;
            }
            put(dis, x, y, d);
        }
}

/* Device copies of up to MAX_PAIRS pairs of one size, with padded pitches
 * (different for ref and dis), the ADM scratch and the outputs. */
typedef struct gpu_set {
    int w, h, bpc, pairs;
    uint8_t *ref[MAX_PAIRS], *dis[MAX_PAIRS];
    size_t rpitch, dpitch;
    void *work;
    size_t work_bytes;
    unsigned long long *sums, *sad;
    cudaStream_t stream;
} gpu_set;

static void gpu_open(gpu_set *g, int w, int h, int bpc, int pairs)
{
    memset(g, 0, sizeof(*g));
    g->w = w;
    g->h = h;
    g->bpc = bpc;
    g->pairs = pairs;
    const size_t row = (size_t)w * (bpc > 8 ? 2 : 1);
    g->rpitch = row + 6; /* even, not aligned */
    g->dpitch = row + 64;
    for (int z = 0; z < pairs; z++) {
        CUDA_REQUIRE(cudaMalloc((void **)&g->ref[z], g->rpitch * (size_t)h));
        CUDA_REQUIRE(cudaMalloc((void **)&g->dis[z], g->dpitch * (size_t)h));
    }
    g->work_bytes = fv_adm_cuda_work_bytes(w, h, pairs);
    CHECK(g->work_bytes > 0);
    CUDA_REQUIRE(cudaMalloc(&g->work, g->work_bytes));
    CUDA_REQUIRE(cudaMalloc((void **)&g->sums,
                            MAX_PAIRS * ADM_CUDA_FRAME_SUMS * sizeof(unsigned long long)));
    CUDA_REQUIRE(cudaMalloc((void **)&g->sad, MAX_PAIRS * sizeof(unsigned long long)));
    CUDA_REQUIRE(cudaStreamCreate(&g->stream));
}

static void gpu_close(gpu_set *g)
{
    for (int z = 0; z < g->pairs; z++) {
        cudaFree(g->ref[z]);
        cudaFree(g->dis[z]);
    }
    cudaFree(g->work);
    cudaFree(g->sums);
    cudaFree(g->sad);
    cudaStreamDestroy(g->stream);
    memset(g, 0, sizeof(*g));
}

static void upload(uint8_t *dst, size_t pitch, const plane *p)
{
    CUDA_REQUIRE(cudaMemcpy2D(dst, pitch, p->data, (size_t)p->stride,
                              (size_t)p->w * (p->bpc > 8 ? 2 : 1), (size_t)p->h,
                              cudaMemcpyHostToDevice));
}

/* ADM of pairs 0..n-1 already on the device (g->ref/dis) into out[]. */
static void gpu_adm(gpu_set *g, const adm_params *p, int n, adm_result *out)
{
    adm_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = n;
    a.width = g->w;
    a.height = g->h;
    a.bpc = g->bpc;
    for (int z = 0; z < n; z++) {
        a.ref[z] = g->ref[z];
        a.dis[z] = g->dis[z];
        a.rstride[z] = (ptrdiff_t)g->rpitch;
        a.dstride[z] = (ptrdiff_t)g->dpitch;
    }
    for (int s = 0; s < ADM_SCALES; s++)
        adm_level_setup(p, s, &a.level[s]);
    a.cos_1deg_sq = adm_cos_1deg_sq();
    a.enhn_gain_limit = p->enhn_gain_limit;
    a.work = g->work;
    a.sums = g->sums;
    /* everything the kernels use is poisoned: they must clear what they sum into */
    CUDA_REQUIRE(cudaMemset(g->work, POISON, g->work_bytes));
    CUDA_REQUIRE(
        cudaMemset(g->sums, POISON, MAX_PAIRS * ADM_CUDA_FRAME_SUMS * sizeof(unsigned long long)));
    int e = fv_adm_cuda_launch(&a, g->stream);
    if (e != 0)
        fprintf(stderr, "fv_adm_cuda_launch: %s\n", cudaGetErrorString((cudaError_t)e));
    REQUIRE(e == 0);
    CUDA_REQUIRE(cudaStreamSynchronize(g->stream));
    unsigned long long sums[MAX_PAIRS * ADM_CUDA_FRAME_SUMS];
    CUDA_REQUIRE(cudaMemcpy(sums, g->sums, (size_t)n * ADM_CUDA_FRAME_SUMS * sizeof(sums[0]),
                            cudaMemcpyDeviceToHost));
    for (int z = 0; z < n; z++) {
        adm_raw raw;
        for (int s = 0; s < ADM_SCALES; s++) {
            const unsigned long long *u =
                sums + (size_t)z * ADM_CUDA_FRAME_SUMS + s * ADM_CUDA_NSUMS;
            int64_t den[3], num[3], aim[3];
            for (int b = 0; b < 3; b++) {
                den[b] = (int64_t)u[b];
                num[b] = (int64_t)u[3 + b];
                aim[b] = (int64_t)u[6 + b];
            }
            raw.den[s] = adm_den_float(p, s, den);
            raw.num[s] = adm_num_float(p, s, num, ADM_NOISE_WEIGHT);
            raw.aim_num[s] = adm_num_float(p, s, aim, 0.0);
        }
        adm_derive(&raw, g->w, g->h, &out[z]);
    }
}

/* Bitwise equality of every value of two ADM results. */
static int same_adm(const adm_result *a, const adm_result *b)
{
    return memcmp(a->num, b->num, sizeof(a->num)) == 0 &&
           memcmp(a->den, b->den, sizeof(a->den)) == 0 &&
           memcmp(a->aim_num, b->aim_num, sizeof(a->aim_num)) == 0 &&
           memcmp(&a->num_sum, &b->num_sum, sizeof(double)) == 0 &&
           memcmp(&a->den_sum, &b->den_sum, sizeof(double)) == 0 &&
           memcmp(&a->adm2, &b->adm2, sizeof(double)) == 0 &&
           memcmp(&a->aim, &b->aim, sizeof(double)) == 0 &&
           memcmp(&a->adm3, &b->adm3, sizeof(double)) == 0 &&
           memcmp(a->scale, b->scale, sizeof(a->scale)) == 0;
}

static void print_adm(const char *what, const adm_result *r)
{
    fprintf(stderr, "    %s: adm2 %.17g aim %.17g\n", what, r->adm2, r->aim);
    for (int s = 0; s < ADM_SCALES; s++)
        fprintf(stderr, "    %s: level %d num %.9g den %.9g aim %.9g\n", what, s, r->num[s],
                r->den[s], r->aim_num[s]);
}

/* Motion SADs of pairs (prev[z], cur[z]) already on the device (prev NULL:
 * skipped, its counter must stay 0). */
static void gpu_sad(gpu_set *g, int n, uint8_t *const *prev, size_t ppitch, uint8_t *const *cur,
                    size_t cpitch, uint64_t *out)
{
    motion_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = n;
    a.w = g->w;
    a.h = g->h;
    a.bpc = g->bpc;
    for (int z = 0; z < n; z++) {
        a.prev[z] = prev[z];
        a.cur[z] = cur[z];
        a.pstride[z] = (ptrdiff_t)ppitch;
        a.cstride[z] = (ptrdiff_t)cpitch;
    }
    a.sad = g->sad;
    CUDA_REQUIRE(cudaMemset(g->sad, 0, MAX_PAIRS * sizeof(unsigned long long)));
    int e = fv_motion_cuda_launch_sad(&a, g->stream);
    if (e != 0)
        fprintf(stderr, "fv_motion_cuda_launch_sad: %s\n", cudaGetErrorString((cudaError_t)e));
    REQUIRE(e == 0);
    CUDA_REQUIRE(cudaStreamSynchronize(g->stream));
    unsigned long long s[MAX_PAIRS];
    CUDA_REQUIRE(cudaMemcpy(s, g->sad, (size_t)n * sizeof(s[0]), cudaMemcpyDeviceToHost));
    for (int z = 0; z < n; z++)
        out[z] = s[z];
}

typedef struct tally {
    int adm_pairs, adm_bad, motion_pairs, motion_bad;
} tally;

/* Score frames[0..n) (pairs ref/dis) in batches of `batch`: ADM of each pair
 * (when the size allows it) and the motion SAD of each ref against the
 * previous one (the first frame against nothing, and once against itself). */
static void run_frames(const char *name, const plane *refs, const plane *diss, int n, int batch,
                       const adm_params *ap, tally *t)
{
    const int w = refs[0].w, h = refs[0].h, bpc = refs[0].bpc;
    const int do_adm = w >= ADM_MIN_DIM && h >= ADM_MIN_DIM;
    gpu_set g;
    gpu_open(&g, w, h, bpc, batch);
    adm_state *st = NULL;
    if (do_adm)
        REQUIRE(adm_open(&st, ap) == FOVEA_OK);
    int32_t *row = malloc((size_t)w * sizeof(int32_t));
    REQUIRE(row);
    uint8_t *prev_dev = NULL; /* the previous batch's last ref, kept on the device */
    CUDA_REQUIRE(cudaMalloc((void **)&prev_dev, g.rpitch * (size_t)h));
    int have_prev = 0;
    for (int f0 = 0; f0 < n; f0 += batch) {
        const int m = n - f0 < batch ? n - f0 : batch;
        for (int z = 0; z < m; z++) {
            upload(g.ref[z], g.rpitch, &refs[f0 + z]);
            upload(g.dis[z], g.dpitch, &diss[f0 + z]);
        }
        if (do_adm) {
            adm_result got[MAX_PAIRS];
            gpu_adm(&g, ap, m, got);
            for (int z = 0; z < m; z++) {
                adm_result want;
                const plane *r = &refs[f0 + z], *d = &diss[f0 + z];
                adm_compute(st, r->data, r->stride, d->data, d->stride, &want);
                t->adm_pairs++;
                if (!same_adm(&want, &got[z])) {
                    if (t->adm_bad++ < 4) {
                        fprintf(stderr, "  %s frame %d (%dx%d %d-bit): ADM differs\n", name, f0 + z,
                                w, h, bpc);
                        print_adm("C   ", &want);
                        print_adm("CUDA", &got[z]);
                    }
                }
            }
        }
        /* motion: pair z compares frame f0+z-1 with f0+z */
        uint8_t *prev[MAX_PAIRS], *cur[MAX_PAIRS];
        for (int z = 0; z < m; z++) {
            cur[z] = g.ref[z];
            prev[z] = z > 0 ? g.ref[z - 1] : have_prev ? prev_dev : NULL;
        }
        uint64_t sad[MAX_PAIRS];
        gpu_sad(&g, m, prev, g.rpitch, cur, g.rpitch, sad);
        for (int z = 0; z < m; z++) {
            const int i = f0 + z;
            const uint64_t want = i == 0 ? 0
                                         : motion_sad(refs[i - 1].data, refs[i - 1].stride,
                                                      refs[i].data, refs[i].stride, w, h, bpc, row);
            t->motion_pairs++;
            if (want != sad[z] && t->motion_bad++ < 4)
                fprintf(stderr, "  %s frame %d (%dx%d %d-bit): SAD %llu, C %llu\n", name, i, w, h,
                        bpc, (unsigned long long)sad[z], (unsigned long long)want);
        }
        CUDA_REQUIRE(
            cudaMemcpy(prev_dev, g.ref[m - 1], g.rpitch * (size_t)h, cudaMemcpyDeviceToDevice));
        have_prev = 1;
    }
    /* a frame against itself: SAD 0 */
    {
        uint8_t *prev[1] = {g.ref[0]}, *cur[1] = {g.ref[0]};
        uint64_t sad[1];
        gpu_sad(&g, 1, prev, g.rpitch, cur, g.rpitch, sad);
        t->motion_pairs++;
        if (sad[0] != 0 && t->motion_bad++ < 4)
            fprintf(stderr, "  %s: SAD of a frame with itself %llu\n", name,
                    (unsigned long long)sad[0]);
    }
    cudaFree(prev_dev);
    free(row);
    adm_close(&st);
    gpu_close(&g);
}

/* ---------------------------------------------------------------- golden */

static int read_luma(const char *path, plane **out)
{
    fovea_reader *r = NULL;
    if (fovea_reader_open(&r, NULL, path, NULL) != FOVEA_OK) {
        fprintf(stderr, "%s: %s\n", path, fovea_last_error(NULL));
        return -1;
    }
    fovea_frame f;
    memset(&f, 0, sizeof(f));
    int n = 0;
    plane *p = NULL;
    while (fovea_reader_read(r, &f) == FOVEA_OK) {
        p = realloc(p, (size_t)(n + 1) * sizeof(*p));
        REQUIRE(p);
        const int bpc = fovea_pixfmt_get_desc(f.fmt)->bit_depth;
        plane_alloc(&p[n], f.width, f.height, bpc);
        for (int y = 0; y < f.height; y++)
            memcpy(p[n].data + y * p[n].stride, f.data[0] + (ptrdiff_t)y * f.stride[0],
                   (size_t)p[n].stride);
        n++;
    }
    fovea_frame_free(NULL, &f);
    fovea_reader_close(&r);
    *out = p;
    return n;
}

static void free_planes(plane *p, int n)
{
    for (int i = 0; i < n; i++)
        free(p[i].data);
    free(p);
}

static void test_golden(tally *t)
{
    const char *dir = test_golden_dir("vif");
    if (!dir) {
        printf("golden data not found (../shared/testdata/vif.tar.xz absent at configure "
               "time): generated frames only\n");
        return;
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/index.json", dir);
    cJSON *idx = golden_read_json(path);
    REQUIRE(idx);
    int cases = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(idx, "cases"))
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "case");
        if (!cJSON_IsString(name))
            continue;
        plane *refs = NULL, *diss = NULL;
        snprintf(path, sizeof(path), "%s/%s/ref.y4m", dir, name->valuestring);
        const int nr = read_luma(path, &refs);
        snprintf(path, sizeof(path), "%s/%s/dis.y4m", dir, name->valuestring);
        const int nd = read_luma(path, &diss);
        REQUIRE(nr > 0 && nd > 0);
        const int n = nr < nd ? nr : nd;
        const tally before = *t;
        adm_params ap;
        adm_default_params(&ap, refs[0].w, refs[0].h, refs[0].bpc);
        run_frames(name->valuestring, refs, diss, n, 8, &ap, t);
        printf("  %-36s %3d frames: ADM %3d/%3d identical, motion %3d/%3d identical\n",
               name->valuestring, n,
               (t->adm_pairs - before.adm_pairs) - (t->adm_bad - before.adm_bad),
               t->adm_pairs - before.adm_pairs,
               (t->motion_pairs - before.motion_pairs) - (t->motion_bad - before.motion_bad),
               t->motion_pairs - before.motion_pairs);
        free_planes(refs, nr);
        free_planes(diss, nd);
        cases++;
    }
    CHECK(cases >= 12);
    cJSON_Delete(idx);
}

/* ---------------------------------------------------------------- generated */

static void run_generated(int w, int h, int bpc, int n, int batch, const adm_params *override,
                          tally *t)
{
    plane *refs = calloc((size_t)n, sizeof(plane)), *diss = calloc((size_t)n, sizeof(plane));
    REQUIRE(refs && diss);
    test_rng r;
    test_rng_seed(&r,
                  (uint64_t)w * 7919u + (uint64_t)h * 104729u + (uint64_t)bpc * 31u + (uint64_t)n);
    for (int i = 0; i < n; i++) {
        plane_alloc(&refs[i], w, h, bpc);
        plane_alloc(&diss[i], w, h, bpc);
        make_pair(&refs[i], &diss[i], i % 7, &r);
    }
    adm_params ap;
    if (override) {
        ap = *override;
        ap.width = w;
        ap.height = h;
        ap.bpc = bpc;
    } else {
        adm_default_params(&ap, w, h, bpc);
    }
    char name[96];
    snprintf(name, sizeof(name), "%dx%d %d-bit%s", w, h, bpc, override ? " (options)" : "");
    const tally before = *t;
    run_frames(name, refs, diss, n, batch, &ap, t);
    printf("  %-36s %3d frames: ADM %3d/%3d identical, motion %3d/%3d identical\n", name, n,
           (t->adm_pairs - before.adm_pairs) - (t->adm_bad - before.adm_bad),
           t->adm_pairs - before.adm_pairs,
           (t->motion_pairs - before.motion_pairs) - (t->motion_bad - before.motion_bad),
           t->motion_pairs - before.motion_pairs);
    free_planes(refs, n);
    free_planes(diss, n);
}

static void test_generated(tally *t)
{
    static const int sizes[][2] = {{33, 33}, {37, 41}, {481, 321}, {1921, 1081}};
    static const int bpcs[] = {8, 10, 12, 16};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (size_t b = 0; b < sizeof(bpcs) / sizeof(bpcs[0]); b++) {
            const int big = sizes[i][0] > 1000;
            /* every content kind at the small sizes; batches split across calls */
            run_generated(sizes[i][0], sizes[i][1], bpcs[b], big ? 3 : 9, big ? 2 : 4, NULL, t);
        }
    /* the largest batch in one launch */
    run_generated(35, 34, 8, MAX_PAIRS, MAX_PAIRS, NULL, t);
    /* options: no enhancement gain; another viewing condition (computed level-0
     * CSF weights) */
    adm_params o;
    adm_default_params(&o, 0, 0, 8);
    o.enhn_gain_limit = 1.0;
    run_generated(97, 65, 8, 7, 7, &o, t);
    run_generated(97, 65, 12, 7, 7, &o, t);
    adm_default_params(&o, 0, 0, 8);
    o.norm_view_dist = 4.5;
    o.ref_display_height = 2160;
    run_generated(163, 91, 10, 7, 7, &o, t);
    run_generated(163, 91, 8, 7, 7, &o, t);
}

/* ---------------------------------------------------------------- timing */

/* Device time of the ADM and motion launches at 1920x1080 8-bit, batch 4
 * (informative: median of 20 runs). */
static void print_timing(void)
{
    enum { N = 4, RUNS = 20 };
    const int w = 1920, h = 1080;
    gpu_set g;
    gpu_open(&g, w, h, 8, N);
    test_rng r;
    test_rng_seed(&r, 99);
    plane ref, dis;
    plane_alloc(&ref, w, h, 8);
    plane_alloc(&dis, w, h, 8);
    make_pair(&ref, &dis, 0, &r);
    for (int z = 0; z < N; z++) {
        upload(g.ref[z], g.rpitch, &ref);
        upload(g.dis[z], g.dpitch, &dis);
    }
    adm_params ap;
    adm_default_params(&ap, w, h, 8);
    adm_cuda_args a;
    memset(&a, 0, sizeof(a));
    a.nframes = N;
    a.width = w;
    a.height = h;
    a.bpc = 8;
    for (int z = 0; z < N; z++) {
        a.ref[z] = g.ref[z];
        a.dis[z] = g.dis[z];
        a.rstride[z] = (ptrdiff_t)g.rpitch;
        a.dstride[z] = (ptrdiff_t)g.dpitch;
    }
    for (int s = 0; s < ADM_SCALES; s++)
        adm_level_setup(&ap, s, &a.level[s]);
    a.cos_1deg_sq = adm_cos_1deg_sq();
    a.enhn_gain_limit = ap.enhn_gain_limit;
    a.work = g.work;
    a.sums = g.sums;
    motion_cuda_args m;
    memset(&m, 0, sizeof(m));
    m.nframes = N;
    m.w = w;
    m.h = h;
    m.bpc = 8;
    for (int z = 0; z < N; z++) {
        m.prev[z] = g.dis[z]; /* any other plane */
        m.cur[z] = g.ref[z];
        m.pstride[z] = (ptrdiff_t)g.dpitch;
        m.cstride[z] = (ptrdiff_t)g.rpitch;
    }
    m.sad = g.sad;
    cudaEvent_t e0, e1, e2;
    CUDA_REQUIRE(cudaEventCreate(&e0));
    CUDA_REQUIRE(cudaEventCreate(&e1));
    CUDA_REQUIRE(cudaEventCreate(&e2));
    float adm_ms[RUNS], mot_ms[RUNS];
    for (int i = 0; i < RUNS; i++) {
        CUDA_REQUIRE(cudaMemsetAsync(g.sad, 0, N * sizeof(unsigned long long), g.stream));
        CUDA_REQUIRE(cudaEventRecord(e0, g.stream));
        REQUIRE(fv_adm_cuda_launch(&a, g.stream) == 0);
        CUDA_REQUIRE(cudaEventRecord(e1, g.stream));
        REQUIRE(fv_motion_cuda_launch_sad(&m, g.stream) == 0);
        CUDA_REQUIRE(cudaEventRecord(e2, g.stream));
        CUDA_REQUIRE(cudaEventSynchronize(e2));
        CUDA_REQUIRE(cudaEventElapsedTime(&adm_ms[i], e0, e1));
        CUDA_REQUIRE(cudaEventElapsedTime(&mot_ms[i], e1, e2));
    }
    for (int i = 1; i < RUNS; i++) /* insertion sort, both */
        for (int j = i; j > 0 && adm_ms[j] < adm_ms[j - 1]; j--) {
            float x = adm_ms[j];
            adm_ms[j] = adm_ms[j - 1];
            adm_ms[j - 1] = x;
        }
    for (int i = 1; i < RUNS; i++)
        for (int j = i; j > 0 && mot_ms[j] < mot_ms[j - 1]; j--) {
            float x = mot_ms[j];
            mot_ms[j] = mot_ms[j - 1];
            mot_ms[j - 1] = x;
        }
    printf("1920x1080 8-bit, batch %d, device time per pair (median of %d): ADM %.1f us, "
           "motion %.1f us\n",
           N, RUNS, 1000.0 * adm_ms[RUNS / 2] / N, 1000.0 * mot_ms[RUNS / 2] / N);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaEventDestroy(e2);
    free(ref.data);
    free(dis.data);
    gpu_close(&g);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no CUDA device: skipped\n");
        return TEST_SKIP;
    }
    /* the launchers refuse what they cannot do */
    adm_cuda_args bad;
    memset(&bad, 0, sizeof(bad));
    bad.nframes = 0;
    bad.width = bad.height = 64;
    CHECK(fv_adm_cuda_launch(&bad, NULL) != 0);
    bad.nframes = 1;
    bad.width = 32;
    CHECK(fv_adm_cuda_launch(&bad, NULL) != 0);
    motion_cuda_args mbad;
    memset(&mbad, 0, sizeof(mbad));
    mbad.nframes = MOTION_CUDA_MAX_BATCH + 1;
    mbad.w = mbad.h = 16;
    mbad.bpc = 8;
    CHECK(fv_motion_cuda_launch_sad(&mbad, NULL) != 0);

    tally t;
    memset(&t, 0, sizeof(t));
    test_golden(&t);
    test_generated(&t);
    printf("ADM: %d/%d pairs identical; motion: %d/%d SADs identical\n", t.adm_pairs - t.adm_bad,
           t.adm_pairs, t.motion_pairs - t.motion_bad, t.motion_pairs);
    CHECK(t.adm_pairs > 100 && t.motion_pairs > 100);
    CHECK_EQ_INT(t.adm_bad, 0);
    CHECK_EQ_INT(t.motion_bad, 0);
    if (!getenv("FOVEA_TEST_NO_TIMING"))
        print_timing();
    return test_finish("test_gpu_vmaf_features");
}

#else

int main(void)
{
    printf("built without CUDA: skipped\n");
    return TEST_SKIP;
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The hand-written SIMD paths of integer VIF and motion (vif_avx2.c,
 * motion_avx2.c) against the plain C path: random and extreme planes at 8, 10,
 * 12 and 16 bits and odd sizes must give the same raw values bit for bit. The
 * plain C values come from a child process run with FOVEA_SIMD=0 (the variable
 * is read once per process); this process sets FOVEA_SIMD=avx2, so the AVX2
 * path runs on AVX-512 machines too. Skips (77) where it cannot run. */
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "quality/motion.h"
#include "quality/simd.h"
#include "quality/vif_internal.h"
#include "testutil.h"

static const int depths[] = {8, 10, 12, 16};
static const int vif_sizes[][2] = {{16, 16},  {17, 19},  {33, 35},  {67, 41},
                                   {131, 37}, {250, 23}, {1023, 34}};
static const int motion_sizes[][2] = {{3, 3},   {4, 5},   {5, 7},   {9, 4},
                                      {17, 19}, {67, 41}, {1021, 9}};
static const double limits[] = {100.0, 1.0};

/* Plane contents: smooth texture, dis = ref + noise; independent noise; flat
 * blocks (statistics below sigma_nsq); the extremes 0 and max in stripes and
 * checkerboards (the widest sums). */
enum { FILL_CORRELATED, FILL_NOISE, FILL_FLAT, FILL_EXTREMES, FILLS };

static uint16_t clampv(long v, long max)
{
    return (uint16_t)(v < 0 ? 0 : v > max ? max : v);
}

static void fill(int kind, uint16_t *ref, uint16_t *dis, int w, int h, int bpc, test_rng *r)
{
    const long max = (1L << bpc) - 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            long a, b;
            switch (kind) {
            case FILL_CORRELATED:
                a = (long)(((x * 5 + y * 3) % 97) * max / 96) / 2 +
                    (long)test_rng_below(r, (uint32_t)(max / 4 + 1));
                b = a + (long)test_rng_below(r, (uint32_t)(max / 16 + 1)) - max / 32;
                break;
            case FILL_NOISE:
                a = (long)test_rng_below(r, (uint32_t)max + 1);
                b = (long)test_rng_below(r, (uint32_t)max + 1);
                break;
            case FILL_FLAT:
                a = ((x / 8 + y / 8) & 1) ? max / 3 : max / 2;
                b = (x / 8) & 1 ? a : a + (long)test_rng_below(r, 3);
                break;
            default:
                a = ((x + y) & 1) ? max : 0;
                b = (y & 2) ? max - a : ((x & 4) ? max : 0);
                break;
            }
            ref[i] = clampv(a, max);
            dis[i] = clampv(b, max);
        }
}

/* Samples as the extractors take them: bytes at 8 bits, else 16-bit words. */
static void pack(const uint16_t *v, uint8_t *out, size_t n, int bpc)
{
    for (size_t i = 0; i < n; i++) {
        if (bpc == 8)
            out[i] = (uint8_t)v[i];
        else
            memcpy(out + 2 * i, &v[i], 2);
    }
}

/* Every case's raw values, appended to out; their size (out NULL: only the
 * size, nothing run, so fv_simd_avx2 is not read yet). */
static size_t run_all(uint8_t *out)
{
    if (!out) {
        const size_t nd = sizeof(depths) / sizeof(depths[0]);
        const size_t nv =
            sizeof(vif_sizes) / sizeof(vif_sizes[0]) * FILLS * (sizeof(limits) / sizeof(limits[0]));
        const size_t nm = sizeof(motion_sizes) / sizeof(motion_sizes[0]) * FILLS;
        return nd * (nv * sizeof(vif_raw) + nm * sizeof(uint64_t));
    }
    test_rng r;
    test_rng_seed(&r, 46);
    size_t n = 0;
    const int max_w = 1023, max_h = 41;
    uint16_t *a = malloc((size_t)max_w * max_h * 2), *b = malloc((size_t)max_w * max_h * 2);
    uint8_t *pa = malloc((size_t)max_w * max_h * 2), *pb = malloc((size_t)max_w * max_h * 2);
    int32_t *row = malloc((size_t)max_w * sizeof(int32_t));
    REQUIRE(a && b && pa && pb && row);
    for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
        const int bpc = depths[d], bytes = bpc == 8 ? 1 : 2;
        for (size_t s = 0; s < sizeof(vif_sizes) / sizeof(vif_sizes[0]); s++)
            for (int kind = 0; kind < FILLS; kind++)
                for (size_t l = 0; l < sizeof(limits) / sizeof(limits[0]); l++) {
                    const int w = vif_sizes[s][0], h = vif_sizes[s][1];
                    fill(kind, a, b, w, h, bpc, &r);
                    pack(a, pa, (size_t)w * h, bpc);
                    pack(b, pb, (size_t)w * h, bpc);
                    const vif_params p = {w, h, bpc, limits[l]};
                    void *priv = NULL;
                    REQUIRE(vif_ref_open(&priv, NULL, &p) == FOVEA_OK);
                    const vif_plane ref = {pa, (ptrdiff_t)w * bytes, FOVEA_MEM_HOST};
                    const vif_plane dis = {pb, (ptrdiff_t)w * bytes, FOVEA_MEM_HOST};
                    vif_raw raw;
                    CHECK(vif_ref_process(priv, NULL, &ref, &dis, &raw) == FOVEA_OK);
                    vif_ref_close(&priv);
                    memcpy(out + n, &raw, sizeof(raw));
                    n += sizeof(raw);
                }
        for (size_t s = 0; s < sizeof(motion_sizes) / sizeof(motion_sizes[0]); s++)
            for (int kind = 0; kind < FILLS; kind++) {
                const int w = motion_sizes[s][0], h = motion_sizes[s][1];
                fill(kind, a, b, w, h, bpc, &r);
                pack(a, pa, (size_t)w * h, bpc);
                pack(b, pb, (size_t)w * h, bpc);
                const uint64_t sad =
                    motion_sad(pa, (ptrdiff_t)w * bytes, pb, (ptrdiff_t)w * bytes, w, h, bpc, row);
                memcpy(out + n, &sad, sizeof(sad));
                n += sizeof(sad);
            }
    }
    free(a);
    free(b);
    free(pa);
    free(pb);
    free(row);
    return n;
}

int main(void)
{
    /* the AVX2 path wherever the CPU has AVX2, AVX-512 machines included */
    setenv("FOVEA_SIMD", "avx2", 1);
    const size_t n = run_all(NULL);
    uint8_t *simd = malloc(n), *plain = malloc(n);
    REQUIRE(simd && plain);
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        /* before the first fv_simd_avx2 of this process */
        setenv("FOVEA_SIMD", "0", 1);
        close(fds[0]);
        if (fv_simd_avx2() != 0)
            _exit(2);
        run_all(plain);
        size_t done = 0;
        while (done < n) {
            const ssize_t k = write(fds[1], plain + done, n - done);
            if (k <= 0)
                _exit(3);
            done += (size_t)k;
        }
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    while (got < n) {
        const ssize_t k = read(fds[0], plain + got, n - got);
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fds[0]);
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_EQ_INT(got, n);

    if (!fv_simd_avx2()) {
        fprintf(stderr, "no SIMD path here (not x86, or no AVX2): skipped\n");
        return test_failures ? 1 : TEST_SKIP;
    }
    CHECK_EQ_INT(run_all(simd), n);
    if (got == n && memcmp(simd, plain, n) != 0) {
        size_t i = 0;
        while (simd[i] == plain[i])
            i++;
        fprintf(stderr, "SIMD and plain C raw values differ from byte %zu of %zu\n", i, n);
        test_failures++;
    }
    free(simd);
    free(plain);
    printf("%zu bytes of raw values compared\n", n);
    return test_failures ? 1 : 0;
}

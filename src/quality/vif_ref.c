/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* C reference of libvmaf's integer VIF: the four-scale filter / statistic /
 * subsample pipeline in integer arithmetic, multi-threaded over row stripes.
 * docs/quality.md explains the arithmetic; every shift and rounding below is
 * libvmaf's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quality/simd.h"
#include "quality/vif_internal.h"

/* The statistic must round every double operation as libvmaf does. GCC does not
 * contract in ISO C mode; clang contracts unless told. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* Vertical results are mirrored this far left and right of each row. */
#define VIF_PAD 8
/* Rows the vertical pass hands to the horizontal one (see vstat_*): mu1, mu2
 * and the high and low 16 bits of the filtered ref*ref, dis*dis and ref*dis. */
#define VIF_NSUM 8

/* Smallest share of a scale's pass given to a thread, in pixels (a pass's
 * threads meet at its end: below this, waking them costs about as much as
 * they save, and more on a loaded machine). */
#define VIF_CHUNK_PIXELS 32768

/* Rows in a thread's ring: the 17 rows of the widest filter. */
#define VIF_RING 17

/* sigma_nsq of libvmaf: 2.0 in the 16.16 fixed point of the variances. */
#define VIF_SIGMA_NSQ (65536 << 1)

typedef struct vif_sums {
    int64_t num_log, den_log, num_non_log, den_non_log;
    char pad[32]; /* less false sharing between threads' sums */
} vif_sums;

typedef struct vif_thread {
    /* w + 2 * VIF_PAD: vertical results (16-bit values), mirrored edges. In
     * 32-bit elements: the horizontal pass then runs on 32-bit lanes only,
     * and GCC vectorizes it 16 columns a zmm register without widening
     * (with 16-bit rows it takes 32 columns at a time and spills): 40% faster. */
    uint32_t *vert[VIF_NSUM];
    int32_t *sig[3];  /* w: sigma1_sq, sigma2_sq, sigma12 of one row */
    uint32_t *idx[3]; /* w: the statistic's log table indices */
    int32_t *sv;      /* w: residual variance sv_sq (0 where unused) */
    double *gg;       /* w: g * g * sigma1_sq (0 where unused) */
    /* VIF_RING rows each of ref and dis (w): the rows the vertical pass reads,
     * in 32-bit elements, row r in slot r % VIF_RING. In 32-bit lanes the pass
     * vectorizes 16 columns a zmm register without widening (with 8- or
     * 16-bit rows GCC takes 32 or 64 columns at a time and spills). */
    uint32_t *ring[2];
    vif_sums sums;
} vif_thread;

typedef struct vif_ref {
    vif_params p;
    int nthreads;
    int simd; /* the AVX2 statistic (fv_simd_avx2) */
    uint16_t *log2_table;
    /* subsampled images of scales 1..3 (index 0 unused) */
    uint16_t *img_ref[VIF_SCALES], *img_dis[VIF_SCALES];
    ptrdiff_t img_stride[VIF_SCALES]; /* elements */
    vif_thread *thr;
    void *mem;
} vif_ref;

/* One scale's work, shared by the row callbacks. */
typedef struct vif_job {
    vif_ref *st;
    int scale;
    int w, h;
    int u8;                      /* samples are bytes (8-bit input at scale 0) */
    const uint8_t *ref, *dis;    /* image base */
    ptrdiff_t rstride, dstride;  /* bytes */
    int shift;                   /* bpc at scale 0, 16 above: libvmaf's vertical shift */
    uint16_t *out_ref, *out_dis; /* the next scale's images (NULL at the last) */
    ptrdiff_t out_stride;        /* elements */
} vif_job;

const uint16_t fv_vif_filter[VIF_SCALES][VIF_MAX_TAPS] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640, 935,
     489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};
const int fv_vif_taps[VIF_SCALES] = {17, 9, 5, 3};

void fv_vif_log2_table(uint16_t *table)
{
    memset(table, 0, VIF_LOG2_TABLE_SIZE * sizeof(*table));
    /* libvmaf rounds 2048 * log2f(i). log2 in double rounded to float gives the
     * correctly rounded float log2, which glibc's log2f returns for all these i
     * (checked); it does not depend on the libm's float log2. */
    for (int i = 32768; i < VIF_LOG2_TABLE_SIZE; i++) {
        float l = (float)log2((double)i);
        table[i] = (uint16_t)round((double)(l * 2048.0f));
    }
}

/* Reflect an index into [0, n) without repeating the edge sample (libvmaf's
 * padding). Callers guarantee -n < i < 2n - 1. */
static inline int mirror(int i, int n)
{
    if (i < 0)
        return -i;
    if (i >= n)
        return 2 * (n - 1) - i;
    return i;
}

/* The kernels below loop over the columns of a row with the filter taps inside,
 * fully unrolled for the scale (a compile-time constant after inlining), so GCC
 * vectorizes across columns with the sums kept in registers. All arithmetic is
 * 32-bit: where libvmaf sums 48-bit products in 64 bits, the 32-bit factor is
 * split into 16-bit halves whose sums each fit 32 bits (the taps sum to 65536),
 * and the halves are recombined with libvmaf's rounding. */

#define VIF_TAP(scale, k) ((uint32_t)fv_vif_filter[scale][k])

/* The row jobs are compiled for x86-64-v4 (AVX-512), AVX2 and the baseline and
 * picked at run time (GCC/clang function multiversioning): plain C, the
 * compiler does the vectorizing. The double arithmetic of the statistic must
 * not be contracted into FMA (x86-64-v4 has FMA): GCC does not contract in ISO C
 * mode (-std=c11, as CMake builds), clang is told by the pragma above; in GNU C
 * mode the v4 clone is left out. */
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(FOVEA_VIF_NO_CLONES)
#if defined(__clang__) || defined(__STRICT_ANSI__)
#define VIF_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define VIF_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#else
#define VIF_CLONES
#endif

/* Everything a row job calls is inlined into it, so it is compiled for the
 * job's clone target (and the filters for a constant scale). */
#if defined(__GNUC__)
#define VIF_INLINE static inline __attribute__((always_inline))
#else
#define VIF_INLINE static inline
#endif

/* The column loops read rows through pointer tables and write other rows; no
 * iteration depends on another, which GCC cannot prove by itself (clang's
 * equivalent fails hard when a loop does not vectorize, so it gets no hint). */
#if defined(__GNUC__) && !defined(__clang__)
#define VIF_IVDEP _Pragma("GCC ivdep")
#else
#define VIF_IVDEP
#endif

/* Mirror the edges of a row v[0..w) (half samples each side). */
VIF_INLINE void pad_row(uint32_t *v, int w, int half)
{
    for (int f = 1; f <= half; f++) {
        v[-f] = v[f];
        v[w - 1 + f] = v[w - 1 - f];
    }
}

/* ((uint64_t)a * b + 2^31) >> 32 in 32-bit pieces: a = a1*2^16 + a0, b likewise;
 * the low 16 bits of the cross products and a0*b0/4 fit 32 bits together. */
VIF_INLINE uint32_t mul_hi_round(uint32_t a, uint32_t b)
{
    const uint32_t a1 = a >> 16, a0 = a & 0xffff, b1 = b >> 16, b0 = b & 0xffff;
    const uint32_t p = a1 * b0, q = a0 * b1;
    const uint32_t quarter = ((p & 0xffff) + (q & 0xffff)) * 16384u + ((a0 * b0) >> 2) + (1u << 29);
    return a1 * b1 + (p >> 16) + (q >> 16) + (quarter >> 30);
}

/* Vertical statistic pass of one row of 8-bit samples (scale 0): filtered x, y
 * rounded to 16 bits, and the unshifted filtered x*x, y*y, x*y split in halves.
 * Every product fits 32 bits (x*y < 2^16). */
VIF_INLINE void vstat_u8(const int scale, const uint32_t *const *rr, const uint32_t *const *dd,
                         int w, uint32_t *const *out)
{
    const int taps = fv_vif_taps[scale];
    uint32_t *restrict m1 = out[0], *restrict m2 = out[1];
    uint32_t *restrict xh = out[2], *restrict xl = out[3], *restrict yh = out[4];
    uint32_t *restrict yl = out[5], *restrict ch = out[6], *restrict cl = out[7];
    VIF_IVDEP
    for (int j = 0; j < w; j++) {
        /* symmetric taps: mirrored pairs are added before the multiply */
        const int half = taps / 2;
        const uint32_t xc = rr[half][j], yc = dd[half][j], cc = VIF_TAP(scale, half);
        uint32_t s0 = cc * xc, s1 = cc * yc, s2 = cc * (xc * xc), s3 = cc * (yc * yc);
        uint32_t s4 = cc * (xc * yc);
#pragma GCC unroll 8
        for (int k = 0; k < half; k++) {
            const uint32_t x = rr[k][j], y = dd[k][j];
            const uint32_t x2 = rr[taps - 1 - k][j], y2 = dd[taps - 1 - k][j];
            const uint32_t c = VIF_TAP(scale, k);
            s0 += c * (x + x2);
            s1 += c * (y + y2);
            s2 += c * (x * x + x2 * x2);
            s3 += c * (y * y + y2 * y2);
            s4 += c * (x * y + x2 * y2);
        }
        m1[j] = (uint16_t)((s0 + 128) >> 8);
        m2[j] = (uint16_t)((s1 + 128) >> 8);
        xh[j] = (uint16_t)(s2 >> 16);
        xl[j] = (uint16_t)s2;
        yh[j] = (uint16_t)(s3 >> 16);
        yl[j] = (uint16_t)s3;
        ch[j] = (uint16_t)(s4 >> 16);
        cl[j] = (uint16_t)s4;
    }
}

/* The same for 16-bit samples (scale 0 above 8 bits, every scale > 0):
 * shift = bpc at scale 0, 16 above; x*y needs 32 bits so its halves are summed
 * separately, and libvmaf's (sum + round) >> 2*(shift-8) of the 48-bit sum
 * becomes (hi << (16 - sh)) + ((lo + round) >> sh). */
VIF_INLINE void vstat_u16(const int scale, const uint32_t *const *rr, const uint32_t *const *dd,
                          int w, int shift, uint32_t *const *out)
{
    const int taps = fv_vif_taps[scale];
    const uint32_t rnd = 1u << (shift - 1);
    const int sh = 2 * (shift - 8);
    const uint32_t sq_rnd = sh ? 1u << (sh - 1) : 0;
    uint32_t *restrict m1 = out[0], *restrict m2 = out[1];
    uint32_t *restrict xh = out[2], *restrict xl = out[3], *restrict yh = out[4];
    uint32_t *restrict yl = out[5], *restrict ch = out[6], *restrict cl = out[7];
    VIF_IVDEP
    for (int j = 0; j < w; j++) {
        uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
#pragma GCC unroll 17
        for (int k = 0; k < taps; k++) {
            const uint32_t x = rr[k][j], y = dd[k][j];
            const uint32_t c = VIF_TAP(scale, k);
            const uint32_t xx = x * x, yy = y * y, xy = x * y;
            s0 += c * x;
            s1 += c * y;
            s2 += c * (xx >> 16);
            s3 += c * (xx & 0xffff);
            s4 += c * (yy >> 16);
            s5 += c * (yy & 0xffff);
            s6 += c * (xy >> 16);
            s7 += c * (xy & 0xffff);
        }
        const uint32_t vxx = (s2 << (16 - sh)) + ((s3 + sq_rnd) >> sh);
        const uint32_t vyy = (s4 << (16 - sh)) + ((s5 + sq_rnd) >> sh);
        const uint32_t vxy = (s6 << (16 - sh)) + ((s7 + sq_rnd) >> sh);
        m1[j] = (uint16_t)((s0 + rnd) >> shift);
        m2[j] = (uint16_t)((s1 + rnd) >> shift);
        xh[j] = (uint16_t)(vxx >> 16);
        xl[j] = (uint16_t)vxx;
        yh[j] = (uint16_t)(vyy >> 16);
        yl[j] = (uint16_t)vyy;
        ch[j] = (uint16_t)(vxy >> 16);
        cl[j] = (uint16_t)vxy;
    }
}

/* Folded horizontal sum of one padded row at column j: the filter is symmetric,
 * so mirrored pairs are added before the multiply (a pair sum is < 2^17 and
 * c * pair < 2^32 for every off-center tap). */
#define VIF_HSUM(scale, v, j, out)                                                                 \
    do {                                                                                           \
        const int taps_ = fv_vif_taps[scale], half_ = taps_ / 2;                                   \
        uint32_t acc_ = VIF_TAP(scale, half_) * (v)[(j) + half_];                                  \
        _Pragma("GCC unroll 8") for (int k_ = 0; k_ < half_; k_++) acc_ +=                         \
            VIF_TAP(scale, k_) * ((uint32_t)(v)[(j) + k_] + (v)[(j) + taps_ - 1 - k_]);            \
        (out) = acc_;                                                                              \
    } while (0)

/* Horizontal statistic pass over the mirrored vertical results, then the
 * variances: sigma1_sq, sigma2_sq (clamped at 0) and sigma12. */
VIF_INLINE void hstat(const int scale, uint32_t *const *in, int w, int32_t *const *sig)
{
    const int half = fv_vif_taps[scale] / 2;
    const uint32_t *restrict m1 = in[0] - half, *restrict m2 = in[1] - half;
    const uint32_t *restrict xh = in[2] - half, *restrict xl = in[3] - half;
    const uint32_t *restrict yh = in[4] - half, *restrict yl = in[5] - half;
    const uint32_t *restrict ch = in[6] - half, *restrict cl = in[7] - half;
    int32_t *restrict o1 = sig[0], *restrict o2 = sig[1], *restrict o12 = sig[2];
    VIF_IVDEP
    for (int j = 0; j < w; j++) {
        uint32_t a1, a2, axh, axl, ayh, ayl, ach, acl;
        VIF_HSUM(scale, m1, j, a1);
        VIF_HSUM(scale, m2, j, a2);
        VIF_HSUM(scale, xh, j, axh);
        VIF_HSUM(scale, xl, j, axl);
        VIF_HSUM(scale, yh, j, ayh);
        VIF_HSUM(scale, yl, j, ayl);
        VIF_HSUM(scale, ch, j, ach);
        VIF_HSUM(scale, cl, j, acl);
        const uint32_t xx = axh + ((axl + 32768) >> 16);
        const uint32_t yy = ayh + ((ayl + 32768) >> 16);
        const uint32_t xy = ach + ((acl + 32768) >> 16);
        const int32_t v2 = (int32_t)(yy - mul_hi_round(a2, a2));
        o1[j] = (int32_t)(xx - mul_hi_round(a1, a1));
        o2[j] = v2 > 0 ? v2 : 0;
        o12[j] = (int32_t)(xy - mul_hi_round(a1, a2));
    }
}

/* Sum of the table entries at idx[0..w). A loop of its own: GCC emulates
 * vector gathers element by element under generic tuning, and over 32-bit
 * indices here that costs less than in the statistic's loop, which works in
 * 64-bit lanes (about 1 ms a 1080p frame). */
static inline int32_t log2_entries(const uint16_t *restrict t, const uint32_t *restrict idx, int w)
{
    int32_t s = 0;
    for (int j = 0; j < w; j++)
        s += t[idx[j]];
    return s;
}

/* libvmaf's per-pixel statistic, accumulated in integers. libvmaf's log2 of
 * v >= 2^17 is table[v >> k] + 2048 * k with k = bit length of v - 16 (the
 * 16 leading bits, truncated). Loops without branches, which vectorize: the
 * floating-point part (gain, residual variance), then the sums, the 2048 * k
 * terms and the table indices (a column adds 0 to the sums it does not
 * enter), then the table entries. Columns whose values are not used get 0 so
 * every conversion stays in range. */
VIF_INLINE void row_statistic(vif_thread *t, const uint16_t *log2_table, double limit, int w)
{
    const int32_t *restrict s1 = t->sig[0], *restrict s2 = t->sig[1], *restrict s12 = t->sig[2];
    int32_t *restrict svq = t->sv;
    double *restrict ggs = t->gg;
    const double eps = 65536 * 1.0e-10;
    VIF_IVDEP
    for (int j = 0; j < w; j++) {
        const int32_t sigma1_sq = s1[j], sigma2_sq = s2[j], sigma12 = s12[j];
        const int use = (sigma1_sq >= VIF_SIGMA_NSQ) & (sigma12 > 0) & (sigma2_sq > 0);
        const double g = sigma12 / (sigma1_sq + eps);
        const double sv = sigma2_sq - g * sigma12;
        const double gl = g > limit ? limit : g;
        const double gg = gl * gl * sigma1_sq;
        /* (int32) truncation then max(., 0); sv < sigma2_sq where used */
        const double svc = (use & (sv > 0.0)) ? sv : 0.0;
        svq[j] = (int32_t)svc;
        ggs[j] = use ? gg : 0.0;
    }
    /* Per row the log sums fit 32 bits: a den_log term is at most 2048 * 15
     * (a < 2^32), a num_log term below 2048 * 30 (numer2 < 2^46), and a row
     * has at most 16384 columns. Each log is 2048 * k plus a table entry;
     * this loop sums the 2048 * k and keeps the entries' indices, index 0
     * (whose entry is 0) where a column adds nothing. */
    uint32_t *restrict i_den = t->idx[0], *restrict i_n2 = t->idx[1], *restrict i_n1 = t->idx[2];
    int32_t num_log = 0, den_log = 0, den_non_log = 0;
    int64_t num_non_log = 0;
    VIF_IVDEP
    for (int j = 0; j < w; j++) {
        const int32_t sigma1_sq = s1[j], sigma2_sq = s2[j], sigma12 = s12[j];
        const int32_t big = sigma1_sq >= VIF_SIGMA_NSQ;
        const int32_t use = big & (sigma12 > 0) & (sigma2_sq > 0);
        const uint32_t a = (uint32_t)VIF_SIGMA_NSQ + (uint32_t)sigma1_sq;
        const uint32_t numer1 = (uint32_t)svq[j] + VIF_SIGMA_NSQ;
        /* where used 0 < g, so gg <= limit^2 * sigma1_sq < 100^2 * 2^31 < 2^45
         * (converted here, not in the loop above: AVX2 has no vector double
         * to int64 conversion, and that loop vectorizes there without it) */
        const uint64_t numer2 = (uint64_t)(int64_t)ggs[j] + numer1;
        /* every argument >= 2^17 (a of an unused column may be anything: |1) */
        const int k_den = 16 - __builtin_clz(a | 1), k_n1 = 16 - __builtin_clz(numer1);
        const int k_n2 = 48 - __builtin_clzll(numer2);
        i_den[j] = big ? a >> k_den : 0;
        i_n2[j] = use ? (uint32_t)(numer2 >> k_n2) : 0;
        i_n1[j] = use ? numer1 >> k_n1 : 0;
        den_log += (2048 * k_den - 2048 * 17) & -big;
        num_log += (2048 * (k_n2 - k_n1)) & -use;
        num_non_log += sigma2_sq & (big - 1);
        den_non_log += 1 - big;
    }
    num_log += log2_entries(log2_table, i_n2, w) - log2_entries(log2_table, i_n1, w);
    den_log += log2_entries(log2_table, i_den, w);
    t->sums.num_log += num_log;
    t->sums.den_log += den_log;
    t->sums.num_non_log += num_non_log;
    t->sums.den_non_log += den_non_log;
}

/* ---------------------------------------------------------------- row jobs */

/* Copy row r of the job's ref and dis into the thread's ring, widened to
 * 32 bits. */
VIF_INLINE void ring_load(const vif_job *jb, vif_thread *t, int r)
{
    const int w = jb->w; /* a local: the stores could alias *jb */
    for (int p = 0; p < 2; p++) {
        const ptrdiff_t stride = p ? jb->dstride : jb->rstride;
        const uint8_t *src = (p ? jb->dis : jb->ref) + (ptrdiff_t)r * stride;
        uint32_t *restrict dst = t->ring[p] + (ptrdiff_t)(r % VIF_RING) * w;
        if (jb->u8) {
            const uint8_t *restrict s8 = src;
            for (int j = 0; j < w; j++)
                dst[j] = s8[j];
        } else {
            const uint16_t *restrict s16 = (const uint16_t *)(const void *)src;
            for (int j = 0; j < w; j++)
                dst[j] = s16[j];
        }
    }
}

/* Subsampling to scale `next`: blur with that scale's filter (vertical shift =
 * bpc from scale 0, 16 above; horizontal shift 16) and keep even rows and
 * columns. Only the kept samples are computed. rows: the taps' source rows
 * (32-bit elements, see vif_thread.ring); v: scratch of w + 2 * VIF_PAD. */
VIF_INLINE void sub_row(const int next, const uint32_t *const *rows, int w, int shift,
                        uint32_t *restrict v, uint16_t *restrict out)
{
    const int taps = fv_vif_taps[next], half = taps / 2;
    const uint32_t rnd = 1u << (shift - 1);
    VIF_IVDEP
    for (int j = 0; j < w; j++) {
        uint32_t s = 0;
#pragma GCC unroll 17
        for (int k = 0; k < taps; k++)
            s += VIF_TAP(next, k) * rows[k][j];
        v[j] = (uint16_t)((s + rnd) >> shift);
    }
    pad_row(v, w, half);
    const uint32_t *restrict src = v - half;
    const int w2 = w / 2;
    for (int j = 0; j < w2; j++) {
        uint32_t s = 0;
#pragma GCC unroll 17
        for (int k = 0; k < taps; k++)
            s += VIF_TAP(next, k) * src[2 * j + k];
        out[j] = (uint16_t)((s + 32768) >> 16);
    }
}

/* Row i2 of the next scale's ref and dis (when this scale has one) from the
 * rows around 2 * i2 in the thread's ring (the next filter is narrower than
 * this scale's, so they are there). */
VIF_INLINE void sub_rows_at(const vif_job *jb, vif_thread *t, int i2)
{
    const int next = jb->scale + 1;
    const int taps = fv_vif_taps[next], half = taps / 2;
    const uint32_t *rows[VIF_MAX_TAPS];
    for (int p = 0; p < 2; p++) {
        for (int k = 0; k < taps; k++)
            rows[k] = t->ring[p] + (ptrdiff_t)(mirror(2 * i2 - half + k, jb->h) % VIF_RING) * jb->w;
        uint16_t *out = (p ? jb->out_dis : jb->out_ref) + (ptrdiff_t)i2 * jb->out_stride;
        uint32_t *v = t->vert[p] + VIF_PAD;
        switch (next) {
        case 1: sub_row(1, rows, jb->w, jb->shift, v, out); break;
        case 2: sub_row(2, rows, jb->w, 16, v, out); break;
        default: sub_row(3, rows, jb->w, 16, v, out); break;
        }
    }
}

/* The statistic of one output row, from its source rows rr and dd: vertical
 * pass into vert, mirrored edges, horizontal pass, per-pixel statistic. */
VIF_INLINE void stat_row(const vif_job *jb, vif_thread *t, const uint32_t *const *rr,
                         const uint32_t *const *dd, uint32_t *const *vert)
{
    const int half = fv_vif_taps[jb->scale] / 2;
    switch (jb->scale) {
    case 0:
        if (jb->u8)
            vstat_u8(0, rr, dd, jb->w, vert);
        else
            vstat_u16(0, rr, dd, jb->w, jb->shift, vert);
        break;
    case 1: vstat_u16(1, rr, dd, jb->w, 16, vert); break;
    case 2: vstat_u16(2, rr, dd, jb->w, 16, vert); break;
    default: vstat_u16(3, rr, dd, jb->w, 16, vert); break;
    }
    for (int m = 0; m < VIF_NSUM; m++)
        pad_row(vert[m], jb->w, half);
    switch (jb->scale) {
    case 0: hstat(0, vert, jb->w, t->sig); break;
    case 1: hstat(1, vert, jb->w, t->sig); break;
    case 2: hstat(2, vert, jb->w, t->sig); break;
    default: hstat(3, vert, jb->w, t->sig); break;
    }
    row_statistic(t, jb->st->log2_table, jb->st->p.enhn_gain_limit, jb->w);
}

#if FV_HAVE_AVX2
/* stat_row through the AVX2 kernels (vif_avx2.c): the same integers. */
static void stat_row_avx2(const vif_job *jb, vif_thread *t, const uint32_t *const *rr,
                          const uint32_t *const *dd, uint32_t *const *vert)
{
    vif_vstat_avx2(jb->scale, rr, dd, jb->w, jb->shift, vert);
    for (int m = 0; m < VIF_NSUM; m++)
        pad_row(vert[m], jb->w, fv_vif_taps[jb->scale] / 2);
    vif_hstat_avx2(jb->scale, vert, jb->w, t->sig);
    int64_t s[4] = {0, 0, 0, 0};
    vif_statistic_avx2(t->sig[0], t->sig[1], t->sig[2], jb->w, jb->st->p.enhn_gain_limit,
                       jb->st->log2_table, s);
    t->sums.num_log += s[0];
    t->sums.den_log += s[1];
    t->sums.num_non_log += s[2];
    t->sums.den_non_log += s[3];
}
#endif

VIF_CLONES static void stat_rows(void *arg, int begin, int end, int thread)
{
    const vif_job *jb = arg;
    vif_ref *st = jb->st;
    vif_thread *t = &st->thr[thread];
    const int scale = jb->scale;
    const int taps = fv_vif_taps[scale], half = taps / 2;
    const uint32_t *rr[VIF_MAX_TAPS], *dd[VIF_MAX_TAPS];
    uint32_t *vert[VIF_NSUM];
    for (int m = 0; m < VIF_NSUM; m++)
        vert[m] = t->vert[m] + VIF_PAD;

    /* output row i reads the rows mirror(i - half .. i + half), all within
     * [i - half, i + half] clipped to the image: the ring holds them */
    int loaded = (begin - half > 0 ? begin - half : 0) - 1; /* last row in the ring */
    for (int i = begin; i < end; i++) {
        const int last = i + half < jb->h - 1 ? i + half : jb->h - 1;
        for (int r = loaded + 1; r <= last; r++)
            ring_load(jb, t, r);
        loaded = last;
        for (int k = 0; k < taps; k++) {
            const ptrdiff_t slot = mirror(i - half + k, jb->h) % VIF_RING;
            rr[k] = t->ring[0] + slot * jb->w;
            dd[k] = t->ring[1] + slot * jb->w;
        }
#if FV_HAVE_AVX2
        if (st->simd)
            stat_row_avx2(jb, t, rr, dd, vert);
        else
#endif
            stat_row(jb, t, rr, dd, vert);
        /* the next scale's row i / 2 while its source rows are in the ring */
        if (jb->out_ref && !(i & 1) && i / 2 < jb->h / 2)
            sub_rows_at(jb, t, i / 2);
    }
}

/* ---------------------------------------------------------------- backend */

void vif_ref_close(void **priv)
{
    vif_ref *st = priv ? *priv : NULL;
    if (!st)
        return;
    free(st->mem);
    free(st->thr);
    free(st->log2_table);
    free(st);
    *priv = NULL;
}

static size_t align64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

int vif_ref_open(void **priv, fovea_context *ctx, const vif_params *p)
{
    *priv = NULL;
    vif_ref *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: out of memory");
    st->p = *p;
    st->nthreads = fv_threadpool_size(ctx ? ctx->pool : NULL);
    if (st->nthreads < 1)
        st->nthreads = 1;
    st->simd = fv_simd_avx2();
    st->log2_table = calloc(VIF_LOG2_TABLE_SIZE + VIF_LOG2_TABLE_PAD, sizeof(uint16_t));
    st->thr = calloc((size_t)st->nthreads, sizeof(vif_thread));
    if (!st->log2_table || !st->thr)
        goto nomem;
    fv_vif_log2_table(st->log2_table);

    /* one block: images of scales 1..3, then per-thread rows */
    const size_t w = (size_t)p->width, h = (size_t)p->height;
    size_t total = 0, img_off[VIF_SCALES] = {0};
    for (int s = 1; s < VIF_SCALES; s++) {
        const size_t ws = w >> s, hs = h >> s;
        st->img_stride[s] = (ptrdiff_t)align64(ws * 2) / 2;
        img_off[s] = total;
        total += 2 * align64((size_t)st->img_stride[s] * 2 * hs);
    }
    const size_t vert_bytes = align64((w + 2 * VIF_PAD) * sizeof(uint32_t));
    const size_t sig_bytes = align64(w * sizeof(int32_t));
    const size_t ring_bytes = align64(VIF_RING * w * sizeof(uint32_t));
    const size_t per_thread = VIF_NSUM * vert_bytes + 9 * sig_bytes + 2 * ring_bytes;
    size_t thr_bytes;
    if (!fv_mul_size(per_thread, (size_t)st->nthreads, &thr_bytes) ||
        !fv_add_size(total, thr_bytes, &total) || !fv_add_size(total, 64, &total))
        goto nomem;
    st->mem = malloc(total);
    if (!st->mem)
        goto nomem;
    uint8_t *base = (uint8_t *)(((uintptr_t)st->mem + 63) & ~(uintptr_t)63);
    size_t off = 0;
    for (int s = 1; s < VIF_SCALES; s++) {
        const size_t plane = align64((size_t)st->img_stride[s] * 2 * (h >> s));
        st->img_ref[s] = (uint16_t *)(void *)(base + img_off[s]);
        st->img_dis[s] = (uint16_t *)(void *)(base + img_off[s] + plane);
        off = img_off[s] + 2 * plane;
    }
    for (int t = 0; t < st->nthreads; t++) {
        vif_thread *th = &st->thr[t];
        for (int m = 0; m < VIF_NSUM; m++) {
            th->vert[m] = (uint32_t *)(void *)(base + off);
            off += vert_bytes;
        }
        for (int m = 0; m < 3; m++) {
            th->sig[m] = (int32_t *)(void *)(base + off);
            off += sig_bytes;
        }
        for (int m = 0; m < 3; m++) {
            th->idx[m] = (uint32_t *)(void *)(base + off);
            off += sig_bytes;
        }
        th->sv = (int32_t *)(void *)(base + off);
        off += sig_bytes;
        th->gg = (double *)(void *)(base + off);
        off += 2 * sig_bytes;
        for (int m = 0; m < 2; m++) {
            th->ring[m] = (uint32_t *)(void *)(base + off);
            off += ring_bytes;
        }
    }
    *priv = st;
    return FOVEA_OK;

nomem:
    vif_ref_close((void **)&st);
    return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vif: cannot allocate buffers for %dx%d", p->width,
                        p->height);
}

int vif_ref_process(void *priv, fovea_context *ctx, const vif_plane *ref, const vif_plane *dis,
                    vif_raw *out)
{
    vif_ref *st = priv;
    vif_job jb;
    memset(&jb, 0, sizeof(jb));
    jb.st = st;
    jb.w = st->p.width;
    jb.h = st->p.height;
    jb.u8 = st->p.bpc == 8;
    jb.ref = ref->data;
    jb.dis = dis->data;
    jb.rstride = ref->stride;
    jb.dstride = dis->stride;
    jb.shift = st->p.bpc;

    /* one pass a scale: its statistic, and the next scale's images (read by
     * the next pass) */
    for (int s = 0; s < VIF_SCALES; s++) {
        jb.scale = s;
        if (s > 0) {
            jb.w /= 2;
            jb.h /= 2;
            jb.u8 = 0;
            jb.ref = (const uint8_t *)st->img_ref[s];
            jb.dis = (const uint8_t *)st->img_dis[s];
            jb.rstride = jb.dstride = st->img_stride[s] * 2;
            jb.shift = 16;
        }
        jb.out_ref = s + 1 < VIF_SCALES ? st->img_ref[s + 1] : NULL;
        jb.out_dis = s + 1 < VIF_SCALES ? st->img_dis[s + 1] : NULL;
        jb.out_stride = s + 1 < VIF_SCALES ? st->img_stride[s + 1] : 0;
        for (int t = 0; t < st->nthreads; t++)
            memset(&st->thr[t].sums, 0, sizeof(vif_sums));
        /* chunks of at least VIF_CHUNK_PIXELS: a pass over the small scales
         * runs on the calling thread instead of waking the pool */
        const int grain = (VIF_CHUNK_PIXELS + jb.w - 1) / jb.w;
        fv_parallel_for(ctx, jb.h, grain > 4 ? grain : 4, stat_rows, &jb);
        vif_sums tot = {0};
        for (int t = 0; t < st->nthreads; t++) {
            tot.num_log += st->thr[t].sums.num_log;
            tot.den_log += st->thr[t].sums.den_log;
            tot.num_non_log += st->thr[t].sums.num_non_log;
            tot.den_non_log += st->thr[t].sums.den_non_log;
        }
        /* libvmaf: num = log sum / 2048 + (count - sum(sigma2_sq) / 16384 / 65025),
         * den = log sum / 2048 + count, both evaluated in double, stored as float */
        out->num[s] =
            (float)((double)tot.num_log / 2048.0 +
                    ((double)tot.den_non_log - ((double)tot.num_non_log / 16384.0) / 65025.0));
        out->den[s] = (float)((double)tot.den_log / 2048.0 + (double)tot.den_non_log);
    }
    return FOVEA_OK;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* CAMBI's row passes (cambi_rows.h): plain loops without branches in their
 * bodies, so the compiler vectorizes them, compiled for x86-64-v4 (AVX-512),
 * AVX2 and the baseline and picked at run time (as VIF's and ADM's rows).
 * Only cambi_row_cvalues has floating point: one product per difference,
 * nothing to contract. FOVEA_CAMBI_NO_CLONES builds one version. */
#include <string.h>

#include "quality/cambi_pixel.h"
#include "quality/cambi_rows.h"

#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) &&                              \
    !defined(FOVEA_CAMBI_NO_CLONES) && !(defined(__clang__) && __clang_major__ < 16)
#define CAMBI_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define CAMBI_CLONES
#endif

/* 16-bit samples are stored little-endian in 16-bit words (as the frames
 * hold them); read through a cast as motion_ref.c does. */
static const uint16_t *words(const void *p)
{
    return (const uint16_t *)p;
}

CAMBI_CLONES unsigned cambi_row_or(const uint16_t *row, int n)
{
    unsigned acc = 0;
    for (int x = 0; x < n; x++)
        acc |= row[x];
    return acc;
}

CAMBI_CLONES unsigned cambi_row_to10(const uint8_t *src, int bpc, uint16_t *restrict dst, int n)
{
    if (bpc == 8) {
        for (int x = 0; x < n; x++)
            dst[x] = (uint16_t)(src[x] << 2);
        return 0;
    }
    const uint16_t *s = words(src);
    unsigned seen = 0;
    if (bpc <= 10) {
        const int sh = 10 - bpc;
        for (int x = 0; x < n; x++) {
            seen |= s[x];
            dst[x] = (uint16_t)(s[x] << sh);
        }
        return seen;
    }
    const int sh = bpc - 10;
    const uint32_t half = 1u << (sh - 1);
    for (int x = 0; x < n; x++) {
        seen |= s[x];
        dst[x] = (uint16_t)(((uint32_t)s[x] + half) >> sh);
    }
    return seen;
}

CAMBI_CLONES void cambi_row_dither(uint16_t *r, const uint16_t *restrict n, int w)
{
    /* in place: r[x] is written after r[x + 1] was read for it, and later
     * iterations read only r[x + 1 ..] (not yet written) */
    if (n) {
        for (int x = 0; x < w - 1; x++)
            r[x] = (uint16_t)((r[x] + r[x + 1] + n[x] + n[x + 1]) >> 2);
        r[w - 1] = (uint16_t)((r[w - 1] + n[w - 1]) >> 1);
    } else {
        for (int x = 0; x < w - 1; x++)
            r[x] = (uint16_t)((r[x] + r[x + 1]) >> 1);
    }
}

CAMBI_CLONES void cambi_row_flat(const uint16_t *p, const uint16_t *below, int w,
                                 uint8_t *restrict out)
{
    if (below) {
        for (int x = 0; x < w - 1; x++)
            out[x] = (uint8_t)((p[x] == p[x + 1]) & (p[x] == below[x]));
        out[w - 1] = p[w - 1] == below[w - 1];
    } else {
        for (int x = 0; x < w - 1; x++)
            out[x] = p[x] == p[x + 1];
        out[w - 1] = 1;
    }
}

CAMBI_CLONES void cambi_row_cols(uint8_t *restrict cols, const uint8_t *add, const uint8_t *sub,
                                 int w)
{
    if (add && sub)
        for (int x = 0; x < w; x++)
            cols[x] = (uint8_t)(cols[x] + add[x] - sub[x]);
    else if (add)
        for (int x = 0; x < w; x++)
            cols[x] = (uint8_t)(cols[x] + add[x]);
    else if (sub)
        for (int x = 0; x < w; x++)
            cols[x] = (uint8_t)(cols[x] - sub[x]);
}

CAMBI_CLONES void cambi_row_mask(const uint8_t *cols, int w, unsigned threshold,
                                 uint8_t *restrict m)
{
    /* a sum is at most 49 */
    const uint8_t t = (uint8_t)(threshold > 255 ? 255 : threshold);
    for (int x = 0; x < w; x++) {
        const uint8_t s = (uint8_t)(cols[x - 3] + cols[x - 2] + cols[x - 1] + cols[x] +
                                    cols[x + 1] + cols[x + 2] + cols[x + 3]);
        m[x] = s > t;
    }
}

CAMBI_CLONES void cambi_row_decimate16(uint16_t *restrict dst, const uint16_t *restrict src, int w)
{
    for (int x = 0; x < w; x++)
        dst[x] = src[2 * x];
}

CAMBI_CLONES void cambi_row_decimate8(uint8_t *restrict dst, const uint8_t *restrict src, int w)
{
    for (int x = 0; x < w; x++)
        dst[x] = src[2 * x];
}

/* the value two of three share, else the smallest, without branches */
static inline uint16_t mode3(uint16_t a, uint16_t b, uint16_t c)
{
    const uint16_t ab = a < b ? a : b;
    const uint16_t mn = ab < c ? ab : c;
    const uint16_t r = b == c ? b : mn;
    return ((a == b) | (a == c)) ? a : r;
}

CAMBI_CLONES void cambi_row_hmode(const uint16_t *in, int w, uint16_t *restrict out)
{
    out[0] = in[0];
    for (int x = 1; x < w - 1; x++)
        out[x] = mode3(in[x - 1], in[x], in[x + 1]);
    out[w - 1] = in[w - 1];
}

CAMBI_CLONES void cambi_row_vmode(const uint16_t *a, const uint16_t *b, const uint16_t *c, int w,
                                  uint16_t *restrict out)
{
    for (int x = 0; x < w; x++)
        out[x] = mode3(a[x], b[x], c[x]);
}

CAMBI_CLONES int cambi_row_keys(const uint16_t *img, const uint8_t *mask, int w, uint16_t band_base,
                                uint16_t band_size, uint16_t *restrict keys)
{
    unsigned any = 0;
    for (int x = 0; x < w; x++) {
        const uint16_t k = (uint16_t)(img[x] - band_base);
        const unsigned counted = (mask[x] != 0) & (k < band_size);
        keys[x] = counted ? k : (uint16_t)CAMBI_NO_KEY;
        any |= counted;
    }
    return (int)any;
}

/* The end of the run of x0's keys in both rows (b may be NULL): the first
 * column from x0 + 1 where either differs, checked 16 columns at a time. */
static inline int run_end(const uint16_t *a, const uint16_t *b, int x0, int w)
{
    const uint16_t ka = a[x0], kb = b ? b[x0] : 0;
    int x = x0 + 1;
    if (b) {
        for (; x + 16 <= w; x += 16) {
            unsigned diff = 0;
            for (int k = 0; k < 16; k++)
                diff |= (unsigned)(a[x + k] ^ ka) | (unsigned)(b[x + k] ^ kb);
            if (diff)
                break;
        }
        while (x < w && a[x] == ka && b[x] == kb)
            x++;
    } else {
        for (; x + 16 <= w; x += 16) {
            unsigned diff = 0;
            for (int k = 0; k < 16; k++)
                diff |= (unsigned)(a[x + k] ^ ka);
            if (diff)
                break;
        }
        while (x < w && a[x] == ka)
            x++;
    }
    return x;
}

/* A run x0 .. x1 of samples counted in row a and removed from row s (either
 * may be NULL): column c changes by the run's samples within c - pad ..
 * c + pad, the same as x1 - x0 + 1 single updates of the window's columns. */
static inline void hist_run(uint16_t *restrict a, uint16_t *restrict s, int x0, int x1, int pad,
                            int w)
{
    const int lo = x0 - pad < 0 ? 0 : x0 - pad, hi = x1 + pad + 1 > w ? w : x1 + pad + 1;
    if (x0 == x1) {
        if (s)
            for (int c = lo; c < hi; c++)
                s[c]--;
        if (a)
            for (int c = lo; c < hi; c++)
                a[c]++;
        return;
    }
    if (a && s) {
        for (int c = lo; c < hi; c++) {
            const int r = c + pad < x1 ? c + pad : x1, l = c - pad > x0 ? c - pad : x0;
            const uint16_t n = (uint16_t)(r - l + 1);
            a[c] = (uint16_t)(a[c] + n);
            s[c] = (uint16_t)(s[c] - n);
        }
    } else {
        uint16_t *t = a ? a : s;
        const uint16_t sign = a ? 1 : 0xffff;
        for (int c = lo; c < hi; c++) {
            const int r = c + pad < x1 ? c + pad : x1, l = c - pad > x0 ? c - pad : x0;
            t[c] = (uint16_t)(t[c] + (uint16_t)(r - l + 1) * sign);
        }
    }
}

CAMBI_CLONES void cambi_row_hist(const cambi_hist_rows *h, const uint16_t *add, const uint16_t *sub)
{
    const int w = h->w, pad = h->pad;
    const uint16_t *first = add ? add : sub, *second = add ? sub : NULL;
    int x = 0;
    while (x < w) {
        const int x1 = run_end(first, second, x, w);
        const uint16_t ka = add ? add[x] : (uint16_t)CAMBI_NO_KEY;
        const uint16_t ks = sub ? sub[x] : (uint16_t)CAMBI_NO_KEY;
        /* the same value leaving and entering (or neither counted) cancels */
        if (ka != ks)
            hist_run(ka != CAMBI_NO_KEY ? h->hist + (size_t)ka * (size_t)w : NULL,
                     ks != CAMBI_NO_KEY ? h->hist + (size_t)ks * (size_t)w : NULL, x, x1 - 1, pad,
                     w);
        x = x1;
    }
}

/* The contrast values of a run of n samples of the same counted value
 * (compact: its histogram row, bits: its differences) from column x0: for
 * each difference in turn the weighted p0 pk / (p0 + pk), kept where larger
 * (a maximum, the same in any order), across the run's columns. */
static inline void cvalues_run(const cambi_cv_rows *c, int compact, uint32_t bits, int x0, int n,
                               float *restrict out)
{
    const size_t step = (size_t)c->w;
    const uint16_t *r0 = c->hist + (size_t)compact * step + (size_t)x0;
    for (int j = 0; j < n; j++)
        out[j] = 0.0f;
    for (; bits; bits &= bits - 1) {
        const int d = __builtin_ctz(bits);
        const int wt = c->weight[d];
        const uint16_t *r1 = r0 + (size_t)(d + 1) * step;
        if (compact - d - 1 >= 0) {
            const uint16_t *r2 = r0 - (size_t)(d + 1) * step;
            for (int j = 0; j < n; j++) {
                const int p0 = r0[j], pk = r1[j] > r2[j] ? r1[j] : r2[j];
                const float val = (float)(wt * p0 * pk) * c->recip[pk + p0];
                out[j] = val > out[j] ? val : out[j];
            }
        } else {
            for (int j = 0; j < n; j++) {
                const int p0 = r0[j], pk = r1[j];
                const float val = (float)(wt * p0 * pk) * c->recip[pk + p0];
                out[j] = val > out[j] ? val : out[j];
            }
        }
    }
}

CAMBI_CLONES void cambi_row_cvalues(const cambi_cv_rows *c, const uint16_t *keys,
                                    float *restrict cv, cambi_cv_sum *sum)
{
    const int w = c->w;
    int x = 0;
    while (x < w) {
        const int x1 = run_end(keys, NULL, x, w);
        const uint16_t k = keys[x];
        if (k == CAMBI_NO_KEY)
            for (int j = x; j < x1; j++)
                cv[j] = 0.0f;
        else
            cvalues_run(c, k, c->diffs[k + c->band_base], x, x1 - x, cv + x);
        x = x1;
    }
    /* the row's nonzero values exactly, in units of 2^-CAMBI_FIX_BITS
     * (cambi_px_fix's, without branches): a value is man 2^(e - 150), so
     * man << (e - 150 + CAMBI_FIX_BITS); it does not fit when denormal, too
     * large or with set bits below the unit. The halves of the units are
     * summed apart (each below 2^45 over a row); the largest lsb (100 - the
     * exponent of a last set bit) is that of the OR of the units. */
    uint64_t lo = 0, hi = 0, seen = 0;
    uint32_t nonzero = 0, bad = 0;
    for (x = 0; x < w; x++) {
        uint32_t u;
        memcpy(&u, &cv[x], sizeof(u));
        const int e = (int)(u >> 23) & 255, sh = e - 150 + CAMBI_FIX_BITS;
        const uint64_t man = (u & 0x7fffffu) | 0x800000u;
        const int right = -sh > 63 ? 63 : -sh;
        uint64_t units = sh >= 0 ? man << (sh & 63) : man >> (right & 63);
        const uint32_t lost = sh < 0 && units << (right & 63) != man;
        const uint32_t nz = u != 0;
        units = nz ? units : 0;
        lo += units & 0xffffffffu;
        hi += units >> 32;
        seen |= units;
        nonzero += nz;
        bad |= nz & ((e == 0) | (e > CAMBI_FIX_MAX_EXP) | lost);
    }
    const unsigned __int128 units = ((unsigned __int128)hi << 32) + lo;
    const uint32_t lsb = seen ? (uint32_t)(100 + CAMBI_FIX_BITS - __builtin_ctzll(seen)) : 0;
    const unsigned __int128 total =
        ((unsigned __int128)sum->units_hi << 64 | sum->units_lo) + units;
    sum->units_lo = (uint64_t)total;
    sum->units_hi = (uint64_t)(total >> 64);
    sum->lsb = lsb > sum->lsb ? lsb : sum->lsb;
    sum->nonzero += (int)nonzero;
    sum->bad |= (int)bad;
}

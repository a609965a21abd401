/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The feature "psnr_hvs": libvmaf's PSNR-HVS (its `psnr_hvs` extractor, after
 * Xiph's Daala tool): per plane, 8x8 blocks every 7 samples, an integer 8x8
 * DCT of reference and distorted block (Daala's lifting DCT), the distorted
 * coefficient errors masked by the blocks' contrast and weighted by a
 * contrast sensitivity table, summed in float. Outputs psnr_hvs_y, _cb, _cr
 * and psnr_hvs (0.8 Y + 0.1 Cb + 0.1 Cr before the decibels).
 *
 * Float order (for a bit-exact port): per block, in raster order of blocks,
 * the float means (sum of 64 then of 16 samples, in row order, divided), the
 * float variances, the integer DCTs, the float masks (row order, DC
 * skipped), sqrt in double, then the 64 weighted errors added to the plane's
 * one float sum in row order; the sum / count / peak^2 in float. The three
 * floats are the raw values; the decibels are derived in double. The C
 * extractor's block loop is psnr_hvs_rows.c.
 *
 * libvmaf refuses samples above 12 bits and gray input; so does fovea. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "quality/feature.h"
#include "quality/psnr_hvs.h"

static const feature_output hvs_outputs[] = {
    {"psnr_hvs_y", NULL, 0},
    {"psnr_hvs_cb", NULL, 0},
    {"psnr_hvs_cr", NULL, 0},
    {"psnr_hvs", NULL, 0},
};

_Static_assert(3 * sizeof(float) <= FEATURE_RAW_BYTES, "three sums fit a feature_raw");

static double to_db(double score)
{
    return 10 * (-1 * log10(1.0 * score));
}

static void hvs_derive(const feature_opts *o, const feature_frame *f, const feature_raw *raw,
                       const feature_raw *const *next, double *state, double *out)
{
    (void)o;
    (void)f;
    (void)next;
    (void)state;
    float s[3];
    memcpy(s, raw->b, sizeof(s));
    for (int p = 0; p < 3; p++)
        out[p] = to_db(s[p]);
    out[3] = to_db((double)s[0] * .8 + .1 * ((double)s[1] + (double)s[2]));
}

const feature_def feature_psnr_hvs = {
    .name = "psnr_hvs",
    .label = "psnr_hvs",
    .flags = FEATURE_CHROMA,
    .min_dim = 1,
    .cpu_bytes_per_pixel = 0,
    .n_options = 0,
    .options = NULL,
    .n_outputs = 4,
    .outputs = hvs_outputs,
    .derive = hvs_derive,
};

/* ---------------------------------------------------------------- arithmetic */

/* The contrast sensitivity tables (Daala's, as libvmaf's): luma, and the
 * 4:2:0 chroma ones libvmaf uses for every chroma layout. Double literals
 * rounded to float, as libvmaf's. */
static const float csf[3][8][8] = {
    {{1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334, 0.678296995242,
      0.466224900598, 0.3265091542},
     {2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963, 0.868920337363,
      0.61280991668, 0.436405793551},
     {2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257, 0.670882927016,
      0.501731932449, 0.372504254596},
     {1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554, 0.48309405692,
      0.380429446972, 0.295774038565},
     {1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676, 0.352889268808,
      0.283006984131, 0.226951348204},
     {0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808, 0.27032073436,
      0.215017739696, 0.17408067321},
     {0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696,
      0.168869545842, 0.136153931001},
     {0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204, 0.17408067321,
      0.136153931001, 0.109083846276}},
    {{1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788, 0.898018824055,
      0.74725392039, 0.615105596242},
     {2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972, 1.17428548929,
      0.996404342439, 0.830890433625},
     {1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362, 0.960060382087,
      0.849823426169, 0.731221236837},
     {1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099, 0.751437590932,
      0.685398513368, 0.608694761374},
     {1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187, 0.605503172737,
      0.55002013668, 0.495804539034},
     {0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957,
      0.454353482512, 0.407050308965},
     {0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668, 0.454353482512,
      0.389234902883, 0.342353999733},
     {0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034,
      0.407050308965, 0.342353999733, 0.295530605237}},
    {{2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469, 0.867069376285,
      0.721500455585, 0.593906509971},
     {2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198, 1.13381474809,
      0.962064122248, 0.802254508198},
     {1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286,
      0.820534991409, 0.706020324706},
     {1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195, 0.725539939514,
      0.661776842059, 0.587716619023},
     {1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286, 0.584635025748,
      0.531064164893, 0.478717061273},
     {0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883,
      0.438694579826, 0.393021669543},
     {0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893,
      0.438694579826, 0.375820256136, 0.330555063063},
     {0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273,
      0.393021669543, 0.330555063063, 0.285345396658}},
};

void psnr_hvs_tables(int plane, float csf_out[64], float mask[64])
{
    const float(*c)[8] = csf[plane];
    for (int x = 0; x < 8; x++)
        for (int y = 0; y < 8; y++) {
            csf_out[x * 8 + y] = c[x][y];
            mask[x * 8 + y] =
                (float)((c[x][y] * 0.3885746225901003) * (c[x][y] * 0.3885746225901003));
        }
}

int psnr_hvs_blocks(int n)
{
    return n > 7 ? (n - 7 + 6) / 7 : 0;
}

float psnr_hvs_score(float sum, int pixels, int bpc)
{
    sum /= (float)pixels;
    const int32_t peak = (1 << bpc) - 1;
    sum /= (float)(peak * peak);
    return sum;
}

/* ---------------------------------------------------------------- C extractor */

typedef struct hvs_cpu {
    int bpc, w[3], h[3];
} hvs_cpu;

static void cpu_close(void **priv)
{
    if (priv) {
        free(*priv);
        *priv = NULL;
    }
}

static int cpu_init(void **priv, fovea_context *ctx, const feature_setup *s)
{
    *priv = NULL;
    if (s->bpc > 12)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "psnr_hvs: %d-bit samples; libvmaf's PSNR-HVS takes at most 12 bits",
                            s->bpc);
    if (s->chroma == 400)
        return fv_ctx_error(ctx, FOVEA_ERR_UNSUPPORTED,
                            "psnr_hvs: the input has no chroma planes (gray); libvmaf's "
                            "PSNR-HVS needs YUV");
    hvs_cpu *st = calloc(1, sizeof(*st));
    if (!st)
        return fv_ctx_error(ctx, FOVEA_ERR_NOMEM, "vmaf: out of memory");
    st->bpc = s->bpc;
    st->w[0] = s->width;
    st->h[0] = s->height;
    st->w[1] = st->w[2] = s->chroma_width;
    st->h[1] = st->h[2] = s->chroma_height;
    *priv = st;
    return FOVEA_OK;
}

static int cpu_extract(void *priv, fovea_context *ctx, const feature_pair *p, feature_raw *raw)
{
    (void)ctx;
    const hvs_cpu *st = priv;
    float s[3];
    for (int k = 0; k < 3; k++) {
        const uint8_t *a = k ? p->ref_c[k - 1] : p->ref;
        const uint8_t *b = k ? p->dis_c[k - 1] : p->dis;
        const ptrdiff_t as = k ? p->ref_c_stride[k - 1] : p->ref_stride;
        const ptrdiff_t bs = k ? p->dis_c_stride[k - 1] : p->dis_stride;
        s[k] = psnr_hvs_plane(a, as, b, bs, st->bpc, st->w[k], st->h[k], k);
    }
    memset(raw, 0, sizeof(*raw));
    memcpy(raw->b, s, sizeof(s));
    return FOVEA_OK;
}

const feature_extractor feature_psnr_hvs_cpu = {
    &feature_psnr_hvs, FOVEA_BACKEND_CPU, cpu_init, cpu_close, cpu_extract, 0, 0, NULL, NULL,
};

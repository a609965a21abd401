/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT CUDA backend against the C reference, call by call in lockstep: KLT's
 * quicksort emulated on the GPU against select.c's on random arrays with many
 * ties (sizes 1 .. 2M; grids of one, three and all blocks), the 16 golden
 * cases, two CUDA contexts with different sigmas interleaved, and generated
 * scenes of odd sizes with varied parameters (one with far more slots than
 * room: the deferred sort rounds). Every stage of the CUDA backend is bit-exact, the candidate
 * order included, so every slot record of every call must be bit-identical
 * to the C run; the criteria (tie-aware matching of newly selected
 * features; positions within 1e-3 px for >= 99% of tracked records and within
 * 0.05 px for every record of a feature selected at the same pixel; the same
 * status for >= 99% of records) are printed and checked as well. Exits 77
 * without a CUDA device or without the golden data. */
#include <math.h>

#include "core/device.h"   /* device and pinned frames */
#include "klt/sort_cuda.h" /* KLT_CUDA_QS_SMALL: where grid-wide levels start */
#include "klt/klt_internal.h"
#include "klt_cases.h"

/* ---------------------------------------------------------------- agreement */

typedef struct agree {
    long records; /* slot records compared */
    long status_same;
    long tracked; /* records tracked (val 0) on the C side */
    long within_1e3;
    double max_err; /* over features selected at the same pixel */
    long new_feats; /* newly selected (C side) */
    long new_matched;
    long exact; /* slot records bit-identical to the C run */
} agree;

typedef struct pair {
    KLT_TrackingContext tc_c, tc_g; /* C, CUDA */
    KLT_FeatureList fl_c, fl_g;
    long diff; /* slot records not bit-identical */
    char first[256];
    int nfeat;
    int *map; /* CUDA slot -> C slot with the same lineage, -1 none */
    int *used;
    agree ag;
    char label[160];
    int call_errors;
} pair;

static void agree_add(agree *t, const agree *a)
{
    t->records += a->records;
    t->status_same += a->status_same;
    t->tracked += a->tracked;
    t->within_1e3 += a->within_1e3;
    t->max_err = a->max_err > t->max_err ? a->max_err : t->max_err;
    t->new_feats += a->new_feats;
    t->new_matched += a->new_matched;
    t->exact += a->exact;
}

static int pair_init(pair *p, KLT_TrackingContext tc_c, KLT_TrackingContext tc_g, int nfeat,
                     const char *label)
{
    memset(p, 0, sizeof *p);
    p->tc_c = tc_c;
    p->tc_g = tc_g;
    p->nfeat = nfeat;
    p->fl_c = KLTCreateFeatureList(nfeat);
    p->fl_g = KLTCreateFeatureList(nfeat);
    p->map = malloc((size_t)(nfeat ? nfeat : 1) * sizeof(int));
    p->used = malloc((size_t)(nfeat ? nfeat : 1) * sizeof(int));
    snprintf(p->label, sizeof p->label, "%s", label);
    if (!p->tc_c || !p->tc_g || !p->fl_c || !p->fl_g || !p->map || !p->used)
        return 0;
    for (int i = 0; i < nfeat; i++)
        p->map[i] = i;
    return 1;
}

static void pair_free(pair *p)
{
    KLTFreeFeatureList(p->fl_c);
    KLTFreeFeatureList(p->fl_g);
    KLTFreeTrackingContext(p->tc_c);
    KLTFreeTrackingContext(p->tc_g);
    free(p->map);
    free(p->used);
}

static int same_feat(const KLT_FeatureRec *a, const KLT_FeatureRec *b)
{
    return a->x == b->x && a->y == b->y && a->val == b->val;
}

/* After a call on both lists: selection calls re-match the slots they filled
 * (val > 0 or NOT_FOUND), tie-aware; then every slot is compared with its
 * C counterpart. */
static void pair_compare(pair *p, int selection)
{
    const int n = p->nfeat;
    for (int i = 0; i < n; i++) {
        const KLT_FeatureRec *gf = p->fl_g->feature[i], *cf = p->fl_c->feature[i];
        if (!same_feat(gf, cf) && p->diff++ == 0)
            snprintf(p->first, sizeof p->first,
                     "slot %d: CUDA (%.8f, %.8f, %d), C (%.8f, %.8f, %d)", i, (double)gf->x,
                     (double)gf->y, gf->val, (double)cf->x, (double)cf->y, cf->val);
    }
    KLT_Feature *c = p->fl_c->feature, *g = p->fl_g->feature;
    agree *a = &p->ag;
    if (selection) {
        for (int j = 0; j < n; j++) {
            p->used[j] = !(c[j]->val > 0 || c[j]->val == KLT_NOT_FOUND);
            if (c[j]->val > 0)
                a->new_feats++;
        }
        for (int i = 0; i < n; i++) {
            if (!(g[i]->val > 0 || g[i]->val == KLT_NOT_FOUND))
                continue;
            int m = -1;
            if (!p->used[i] && same_feat(g[i], c[i]))
                m = i;
            for (int j = 0; m < 0 && j < n; j++)
                if (!p->used[j] && same_feat(g[i], c[j]))
                    m = j;
            p->map[i] = m;
            if (m >= 0) {
                p->used[m] = 1;
                if (g[i]->val > 0)
                    a->new_matched++;
            }
        }
    }
    for (int i = 0; i < n; i++) {
        const int m = p->map[i];
        const KLT_FeatureRec *cf = c[m >= 0 ? m : i], *gf = g[i];
        a->records++;
        if (m == i && same_feat(cf, gf))
            a->exact++;
        if (cf->val == gf->val)
            a->status_same++;
        if (cf->val == KLT_TRACKED) {
            a->tracked++;
            if (m >= 0 && gf->val == KLT_TRACKED) {
                double e = fmax(fabs((double)cf->x - gf->x), fabs((double)cf->y - gf->y));
                if (e <= 1e-3)
                    a->within_1e3++;
                if (e > a->max_err)
                    a->max_err = e;
            }
        } else if (m >= 0 && gf->val == KLT_TRACKED) {
            /* tracked on the GPU only: a status difference, counted above */
        }
    }
}

static void check_call_status(pair *p, const char *what)
{
    if (fovea_klt_last_status(p->tc_c) != FOVEA_OK) {
        fprintf(stderr, "%s: C %s failed: %s\n", p->label, what, fovea_last_error(p->tc_c->ctx));
        p->call_errors++;
    }
    if (fovea_klt_last_status(p->tc_g) != FOVEA_OK) {
        fprintf(stderr, "%s: CUDA %s failed: %s\n", p->label, what, fovea_last_error(p->tc_g->ctx));
        p->call_errors++;
    }
}

/* Check the criteria on a and print the figures; diff: slot records
 * not bit-identical to the C run (-1: not checked, a summary line). Counts a
 * failure unless the criteria are met and (when checked) every record is
 * identical. @return 1 when met */
static int report(const char *label, const agree *a, int call_errors, long diff)
{
    double fs = a->records ? (double)a->status_same / a->records : 1.0;
    double fp = a->tracked ? (double)a->within_1e3 / a->tracked : 1.0;
    double fn = a->new_feats ? (double)a->new_matched / a->new_feats : 1.0;
    int ok = call_errors == 0 && fs >= 0.99 && fp >= 0.99 && a->max_err <= 0.05 && fn >= 0.99;
    int exact = ok && diff == 0;
    printf("  %-34s %s  records %6ld exact %7.3f%%  status %7.3f%%  tracked %5ld within 1e-3 "
           "%7.3f%%  max err %.2e px  new %5ld matched %7.3f%%\n",
           label,
           exact ? "exact"
           : ok  ? (diff < 0 ? "ok   " : "NOT EXACT")
                 : "FAIL ",
           a->records, a->records ? 100.0 * a->exact / a->records : 100.0, 100.0 * fs, a->tracked,
           100.0 * fp, a->max_err, a->new_feats, 100.0 * fn);
    if (!ok || diff > 0)
        test_failures++;
    return ok;
}

static long diff_check(const pair *p)
{
    if (p->diff)
        fprintf(stderr, "%s: CUDA differs from the C reference in %ld slot records; first: %s\n",
                p->label, p->diff, p->first);
    return p->diff;
}

/* ---------------------------------------------------------------- the candidate sort */

/* One array: the CUDA emulation of KLT's quicksort against select.c's, pair
 * by pair (value, original index). */
static void sort_case(KLT_TrackingContext tc, int *val, unsigned *id, int *gval, unsigned *gid,
                      int n, int max_blocks, const char *what)
{
    for (int i = 0; i < n; i++)
        id[i] = (unsigned)i;
    int rc = klt_cuda_sort_check(tc, val, n, max_blocks, gval, gid);
    if (rc != FOVEA_OK) {
        fprintf(stderr, "sort %s n=%d: CUDA failed: %s\n", what, n, fovea_last_error(tc->ctx));
        test_failures++;
        return;
    }
    klt_ref_quicksort(val, id, (size_t)n);
    for (int i = 0; i < n; i++)
        if (gval[i] != val[i] || gid[i] != id[i]) {
            fprintf(stderr,
                    "sort %s n=%d (grid <= %d blocks): position %d: CUDA (%d, #%u), C (%d, #%u)\n",
                    what, n, max_blocks, i, gval[i], gid[i], val[i], id[i]);
            test_failures++;
            return;
        }
}

static void run_sort_checks(int sanitizer)
{
    static const int sizes[] = {1,    2,    3,     4,     5,      7,      16,      33,
                                100,  1000, 2047,  2048,  2049,   4095,   4096,    4097,
                                6000, 8193, 20000, 65537, 100003, 300000, 1048583, 2000000};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    const int maxn = 2000000;
    KLT_TrackingContext tc = KLTCreateTrackingContext();
    int *val = malloc((size_t)maxn * sizeof(int)), *gval = malloc((size_t)maxn * sizeof(int));
    int *work = malloc((size_t)maxn * sizeof(int));
    unsigned *id = malloc((size_t)maxn * sizeof(unsigned));
    unsigned *gid = malloc((size_t)maxn * sizeof(unsigned));
    REQUIRE(tc && val && gval && work && id && gid);
    tc->backend = FOVEA_BACKEND_CUDA;
    test_rng rng;
    test_rng_seed(&rng, 0x716b736f7274ull);
    /* value ranges: all equal, a few values, many ties, mostly distinct;
     * then patterns: ascending, descending, sawtooth, organ pipe */
    static const int ranges[] = {1, 2, 3, 17, 1000, 1000000000};
    const char *pattern[] = {"ascending", "descending", "sawtooth", "organ pipe"};
    long arrays = 0;
    for (int si = 0; si < nsizes; si++) {
        const int n = sizes[si];
        if (sanitizer && n > 20000)
            continue;
        for (int r = 0; r < 6 + 4; r++) {
            if ((n > 300000 || sanitizer) && r % 2)
                continue;
            char what[64];
            for (int i = 0; i < n; i++) {
                if (r < 6) {
                    val[i] =
                        (int)test_rng_below(&rng, (uint32_t)ranges[r]) - (r == 5 ? 500000000 : 0);
                } else if (r == 6) {
                    val[i] = i / 3;
                } else if (r == 7) {
                    val[i] = (n - i) / 5;
                } else if (r == 8) {
                    val[i] = i % 37;
                } else {
                    val[i] = i < n / 2 ? i / 2 : (n - i) / 2;
                }
            }
            if (r < 6)
                snprintf(what, sizeof what, "random %d values", ranges[r]);
            else
                snprintf(what, sizeof what, "%s", pattern[r - 6]);
            /* the grid as large as fits; for some arrays first a one-block
             * grid (devices without cooperative launches) and a three-block
             * one (blocks with several tiles and segments each), on copies:
             * the reference sorts val in place */
            static const int grids[3] = {1, 3, 0};
            const int g0 = n > KLT_CUDA_QS_SMALL && (r == 2 || r == 4 || r == 8) ? 0 : 2;
            for (int g = g0; g < 3; g++) {
                if (g < 2)
                    memcpy(work, val, (size_t)n * sizeof(int));
                sort_case(tc, g < 2 ? work : val, id, gval, gid, n, grids[g], what);
                arrays++;
            }
        }
    }
    printf("KLT's quicksort on the GPU against the C reference: %ld arrays, sizes 1 .. %d%s\n",
           arrays, sanitizer ? 20000 : maxn, test_failures ? ", DIFFERENCES" : ", identical");
    KLTFreeTrackingContext(tc);
    free(val);
    free(gval);
    free(work);
    free(id);
    free(gid);
}

/* ---------------------------------------------------------------- golden cases */

static void run_case(golden_case *c, agree *total)
{
    pair p;
    REQUIRE(pair_init(&p, klt_case_context(c, NULL, FOVEA_BACKEND_CPU),
                      klt_case_context(c, NULL, FOVEA_BACKEND_CUDA), c->nfeat, c->name));
    for (int r = 0; r < c->nrecs; r++) {
        const record *rec = &c->recs[r];
        klt_case_call(c, rec, p.tc_c, p.fl_c);
        klt_case_call(c, rec, p.tc_g, p.fl_g);
        check_call_status(&p, rec->stage);
        pair_compare(&p, strcmp(rec->stage, "track") != 0);
    }
    report(c->name, &p.ag, p.call_errors, diff_check(&p));
    agree_add(total, &p.ag);
    pair_free(&p);
}

/* Cases a (defaults) and i (other grad / smooth / pyramid sigmas) on two CUDA
 * contexts in one process, call by call interleaved, each with its C twin. */
static void run_interleaved(golden_case *ca, golden_case *ci)
{
    pair pa, pi;
    REQUIRE(pair_init(&pa, klt_case_context(ca, NULL, FOVEA_BACKEND_CPU),
                      klt_case_context(ca, NULL, FOVEA_BACKEND_CUDA), ca->nfeat, "a"));
    REQUIRE(pair_init(&pi, klt_case_context(ci, NULL, FOVEA_BACKEND_CPU),
                      klt_case_context(ci, NULL, FOVEA_BACKEND_CUDA), ci->nfeat, "i"));
    int n = ca->nrecs > ci->nrecs ? ca->nrecs : ci->nrecs;
    for (int r = 0; r < n; r++) {
        if (r < ca->nrecs) {
            klt_case_call(ca, &ca->recs[r], pa.tc_g, pa.fl_g);
            klt_case_call(ca, &ca->recs[r], pa.tc_c, pa.fl_c);
        }
        if (r < ci->nrecs) {
            klt_case_call(ci, &ci->recs[r], pi.tc_g, pi.fl_g);
            klt_case_call(ci, &ci->recs[r], pi.tc_c, pi.fl_c);
        }
        if (r < ca->nrecs) {
            check_call_status(&pa, ca->recs[r].stage);
            pair_compare(&pa, strcmp(ca->recs[r].stage, "track") != 0);
        }
        if (r < ci->nrecs) {
            check_call_status(&pi, ci->recs[r].stage);
            pair_compare(&pi, strcmp(ci->recs[r].stage, "track") != 0);
        }
    }
    printf("two CUDA contexts with different sigmas, interleaved:\n");
    report("interleaved a", &pa.ag, pa.call_errors, diff_check(&pa));
    report("interleaved i", &pi.ag, pi.call_errors, diff_check(&pi));
    pair_free(&pa);
    pair_free(&pi);
}

/* ---------------------------------------------------------------- generated scenes */

typedef struct rect {
    double x0, y0, x1, y1, v;
} rect;

/* A scene of soft-edged rectangles and ripples, seen shifted by (sx, sy). */
static void render(unsigned char *img, int w, int h, const rect *rs, int nr, double sx, double sy,
                   double gain)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            double X = x + sx, Y = y + sy;
            double v = 60.0 + 12.0 * sin(0.21 * X + 0.05 * Y) * cos(0.13 * Y - 0.02 * X);
            for (int k = 0; k < nr; k++) {
                double ex = fmin(X - rs[k].x0, rs[k].x1 - X), ey = fmin(Y - rs[k].y0, rs[k].y1 - Y);
                double e = fmin(ex, ey);
                if (e > -1.5)
                    v += rs[k].v * (e >= 1.5 ? 1.0 : (e + 1.5) / 3.0);
            }
            v *= gain;
            img[(size_t)y * w + x] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : (int)(v + 0.5));
        }
}

typedef struct gen_setup {
    const char *name;
    int w, h, nfeat, nframes;
    int sequential, replace;
    void (*tweak)(KLT_TrackingContext tc);
    double gain_step; /* lighting change per frame */
    /* optional, before frame i's replacement on both contexts: returns 0 to
     * skip that replacement */
    int (*between)(KLT_TrackingContext tc, int i);
    /* where the CUDA run's frames are: 0 host, 1 device, 2 pinned host,
     * 3 mixed (host, device, pinned by turns from call to call) */
    int mem;
} gen_setup;

/* A CUDA context for frame copies in device and pinned memory. */
static fovea_context *mem_ctx(void)
{
    static fovea_context *ctx;
    if (!ctx) {
        fovea_settings s;
        fovea_default_settings(&s);
        s.backend = FOVEA_BACKEND_CUDA;
        REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    }
    return ctx;
}

typedef struct gen_frames {
    unsigned char **host, **dev, **pin;
    int n, mem, calls;
} gen_frames;

static void gen_frames_make(gen_frames *g, unsigned char **host, int n, size_t npix, int mem)
{
    memset(g, 0, sizeof *g);
    g->host = host;
    g->n = n;
    g->mem = mem;
    if (!mem)
        return;
    fovea_context *ctx = mem_ctx();
    g->dev = calloc((size_t)n, sizeof(*g->dev));
    g->pin = calloc((size_t)n, sizeof(*g->pin));
    REQUIRE(g->dev && g->pin);
    for (int i = 0; i < n; i++) {
        REQUIRE(fv_device_malloc(ctx, npix, (void **)&g->dev[i]) == FOVEA_OK);
        REQUIRE(fv_pinned_malloc(ctx, npix, (void **)&g->pin[i]) == FOVEA_OK);
        memcpy(g->pin[i], host[i], npix);
        REQUIRE(fv_memcpy2d(ctx, g->dev[i], npix, host[i], npix, npix, 1) == FOVEA_OK);
    }
    REQUIRE(fv_device_sync(ctx) == FOVEA_OK);
}

/* Frame i as the CUDA run's next call reads it. */
static unsigned char *gen_frame(gen_frames *g, int i)
{
    int kind = g->mem == 3 ? g->calls++ % 3 : g->mem;
    return kind == 1 ? g->dev[i] : kind == 2 ? g->pin[i] : g->host[i];
}

static void gen_frames_free(gen_frames *g)
{
    for (int i = 0; g->mem && i < g->n; i++) {
        fv_device_free(mem_ctx(), g->dev[i]);
        fv_pinned_free(mem_ctx(), g->pin[i]);
    }
    free(g->dev);
    free(g->pin);
}

static void tweak_none(KLT_TrackingContext tc)
{
    (void)tc;
}

static void tweak_li_skip(KLT_TrackingContext tc)
{
    tc->lighting_insensitive = TRUE;
    tc->nSkippedPixels = 2;
    tc->mindist = 4;
}

static void tweak_levels(KLT_TrackingContext tc)
{
    tc->window_width = 9;
    tc->window_height = 5;
    tc->nPyramidLevels = 3;
    tc->subsampling = 2;
    tc->smoothBeforeSelecting = FALSE;
    KLTUpdateTCBorder(tc);
}

static void tweak_affine(KLT_TrackingContext tc)
{
    tc->affineConsistencyCheck = 2;
    tc->mindist = 7;
}

/* Far more slots than room: the pass reads every candidate, past the first
 * 64 per slot, so the deferred part of the sort is sorted in further rounds. */
static void tweak_sparse(KLT_TrackingContext tc)
{
    tc->mindist = 30;
}

/* Parameters that change the candidate grid between a track call and the
 * replacement after it, and replacements left out: the CUDA backend computes a
 * replacement's candidates ahead during the track call before it and must
 * notice when they no longer apply. */
static int between_changes(KLT_TrackingContext tc, int i)
{
    switch (i) {
    case 2: tc->min_eigenvalue = 40; return 1;
    case 3: tc->nSkippedPixels = 1; return 1;
    case 4:
    case 5: return 0; /* tracks without replacements: computing ahead stops */
    case 6:
        tc->nSkippedPixels = 0;
        tc->window_width = tc->window_height = 9;
        KLTUpdateTCBorder(tc);
        return 1;
    case 7: tc->borderx = tc->bordery = 24; return 1;
    default: return 1;
    }
}

static void run_generated(const gen_setup *gs, agree *total)
{
    test_rng rng;
    test_rng_seed(&rng, 0x6b6c74ull + (uint64_t)gs->w * 31 + (uint64_t)gs->h);
    enum { NR = 90 };
    rect rs[NR];
    for (int k = 0; k < NR; k++) {
        double cx = test_rng_double(&rng) * (gs->w + 40) - 20;
        double cy = test_rng_double(&rng) * (gs->h + 40) - 20;
        double hw = 3 + test_rng_double(&rng) * 25, hh = 3 + test_rng_double(&rng) * 25;
        rs[k].x0 = cx - hw;
        rs[k].x1 = cx + hw;
        rs[k].y0 = cy - hh;
        rs[k].y1 = cy + hh;
        rs[k].v = (test_rng_double(&rng) - 0.45) * 90;
    }
    size_t npix = (size_t)gs->w * gs->h;
    unsigned char **frames = malloc((size_t)gs->nframes * sizeof(*frames));
    REQUIRE(frames);
    for (int i = 0; i < gs->nframes; i++) {
        frames[i] = malloc(npix);
        REQUIRE(frames[i]);
        render(frames[i], gs->w, gs->h, rs, NR, 0.83 * i + 0.1 * sin(i), 0.37 * i,
               1.0 + gs->gain_step * i);
    }
    KLT_TrackingContext tcs[2];
    for (int b = 0; b < 2; b++) {
        tcs[b] = KLTCreateTrackingContext();
        REQUIRE(tcs[b]);
        tcs[b]->backend = b == 1 ? FOVEA_BACKEND_CUDA : FOVEA_BACKEND_CPU;
        tcs[b]->sequentialMode = gs->sequential;
        gs->tweak(tcs[b]);
    }
    pair p;
    char label[160];
    snprintf(label, sizeof label, "%s %dx%d", gs->name, gs->w, gs->h);
    REQUIRE(pair_init(&p, tcs[0], tcs[1], gs->nfeat, label));
    gen_frames gf;
    gen_frames_make(&gf, frames, gs->nframes, npix, gs->mem);
    KLTSelectGoodFeatures(p.tc_c, frames[0], gs->w, gs->h, p.fl_c);
    KLTSelectGoodFeatures(p.tc_g, gen_frame(&gf, 0), gs->w, gs->h, p.fl_g);
    check_call_status(&p, "select");
    pair_compare(&p, 1);
    for (int i = 1; i < gs->nframes; i++) {
        KLTTrackFeatures(p.tc_c, frames[i - 1], frames[i], gs->w, gs->h, p.fl_c);
        unsigned char *f1 = gen_frame(&gf, i - 1), *f2 = gen_frame(&gf, i);
        KLTTrackFeatures(p.tc_g, f1, f2, gs->w, gs->h, p.fl_g);
        check_call_status(&p, "track");
        pair_compare(&p, 0);
        int rep = gs->replace;
        if (rep && gs->between) {
            rep = gs->between(p.tc_c, i);
            CHECK_EQ_INT(gs->between(p.tc_g, i), rep);
        }
        if (rep) {
            KLTReplaceLostFeatures(p.tc_c, frames[i], gs->w, gs->h, p.fl_c);
            KLTReplaceLostFeatures(p.tc_g, gen_frame(&gf, i), gs->w, gs->h, p.fl_g);
            check_call_status(&p, "replace");
            pair_compare(&p, 1);
        }
    }
    report(label, &p.ag, p.call_errors, diff_check(&p));
    agree_add(total, &p.ag);

    /* sequential mode keeps the pyramid: a frame of another size is an error */
    if (gs->sequential && gs->w > 8) {
        KLTTrackFeatures(p.tc_g, NULL, frames[0], gs->w - 1, gs->h, p.fl_g);
        CHECK_EQ_INT(fovea_klt_last_status(p.tc_g), FOVEA_ERR_MISMATCH);
    }
    /* the C backend refuses device memory with a message, reads pinned memory */
    if (gs->mem) {
        KLTSelectGoodFeatures(p.tc_c, gf.dev[0], gs->w, gs->h, p.fl_c);
        CHECK_EQ_INT(fovea_klt_last_status(p.tc_c), FOVEA_ERR_INVALID_ARG);
        CHECK(strstr(fovea_last_error(p.tc_c->ctx), "device memory") != NULL);
        KLTTrackFeatures(p.tc_c, gf.dev[0], frames[1], gs->w, gs->h, p.fl_c);
        CHECK_EQ_INT(fovea_klt_last_status(p.tc_c), FOVEA_ERR_INVALID_ARG);
        KLTSelectGoodFeatures(p.tc_c, gf.pin[0], gs->w, gs->h, p.fl_c);
        CHECK_EQ_INT(fovea_klt_last_status(p.tc_c), FOVEA_OK);
    }
    gen_frames_free(&gf);
    pair_free(&p);
    for (int i = 0; i < gs->nframes; i++)
        free(frames[i]);
    free(frames);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    if (!test_have_gpu()) {
        printf("test_gpu_klt: no CUDA device, skipping\n");
        return TEST_SKIP;
    }
    const char *root = test_golden_dir("klt");
    static char build_root[4200];
    if (!root && getenv("FOVEA_BUILD_DIR")) {
        /* the memcheck step of scripts/gpu-check.sh names the build dir only */
        snprintf(build_root, sizeof build_root, "%s/testdata/klt", getenv("FOVEA_BUILD_DIR"));
        DIR *d = opendir(build_root);
        if (d) {
            closedir(d);
            root = build_root;
        }
    }
    if (!root) {
        printf("test_gpu_klt: golden data (../shared/testdata/klt.tar.xz) not available, "
               "skipping\n");
        return TEST_SKIP;
    }
    /* compute-sanitizer makes kernels slow: a few cases cover every path */
    const int sanitizer = getenv("FOVEA_TEST_SANITIZER") != NULL;
    run_sort_checks(sanitizer);

    char *names[64];
    int ncases = klt_case_names(root, names, 64);
    CHECK(ncases >= 16);
    golden_case *cases = calloc((size_t)(ncases ? ncases : 1), sizeof(golden_case));
    REQUIRE(cases);
    agree total;
    memset(&total, 0, sizeof total);
    golden_case *ca = NULL, *ci = NULL;
    printf("KLT golden cases, CUDA vs C in lockstep%s:\n",
           sanitizer ? " (sanitizer run: cases a, f1, g, h only)" : "");
    for (int i = 0; i < ncases; i++) {
        const char *n = names[i];
        if (sanitizer && !(strncmp(n, "a_", 2) == 0 || strncmp(n, "f1_", 3) == 0 ||
                           strncmp(n, "g_", 2) == 0 || strncmp(n, "h_", 2) == 0))
            continue;
        if (!case_load(&cases[i], root, n)) {
            fprintf(stderr, "%s: could not load the case\n", n);
            test_failures++;
            continue;
        }
        run_case(&cases[i], &total);
        if (strncmp(n, "a_", 2) == 0)
            ca = &cases[i];
        if (strncmp(n, "i_", 2) == 0)
            ci = &cases[i];
    }
    printf("  (summary, not a criterion:)\n");
    report("all golden cases", &total, 0, -1);
    if (ca && ci)
        run_interleaved(ca, ci);
    else if (!sanitizer)
        CHECK(!"cases a_ and i_ needed for the interleaving test");

    printf("generated scenes (odd sizes), CUDA vs C:\n");
    const gen_setup gens[] = {
        {"default seq", 333, 217, 300, 8, 1, 1, tweak_none, 0.0, NULL, 0},
        {"LI skip2 mindist4", 257, 191, 200, 6, 0, 1, tweak_li_skip, 0.03, NULL, 0},
        {"win9x5 3lev ss2 nosmooth", 401, 299, 250, 6, 1, 1, tweak_levels, 0.0, NULL, 0},
        {"affine2", 321, 243, 120, 5, 0, 1, tweak_affine, 0.0, NULL, 0},
        {"tiny", 61, 47, 20, 4, 1, 1, tweak_none, 0.0, NULL, 0},
        {"wide 1001x203", 1001, 203, 500, sanitizer ? 3 : 6, 1, 1, tweak_none, 0.0, NULL, 0},
        {"mindist30 1000 slots", sanitizer ? 400 : 640, sanitizer ? 300 : 480, 1000, 3, 1, 1,
         tweak_sparse, 0.0, NULL, 0},
        {"params change, seq", 289, 233, 200, 10, 1, 1, tweak_none, 0.0, between_changes, 0},
        {"params change", 289, 233, 200, 10, 0, 1, tweak_none, 0.02, between_changes, 0},
        /* frames in device / pinned memory, or changing from call to call */
        {"default seq, device frames", 333, 217, 300, 8, 1, 1, tweak_none, 0.0, NULL, 1},
        {"LI skip2 mindist4, pinned frames", 257, 191, 200, 6, 0, 1, tweak_li_skip, 0.03, NULL, 2},
        {"default, mixed frames", 333, 217, 300, 10, 0, 1, tweak_none, 0.0, NULL, 3},
        {"win9x5 3lev ss2 nosmooth, mixed frames", 401, 299, 250, 6, 1, 1, tweak_levels, 0.0, NULL,
         3},
        {"affine2, device frames", 321, 243, 120, 5, 0, 1, tweak_affine, 0.0, NULL, 1},
        {"params change, mixed frames", 289, 233, 200, 10, 0, 1, tweak_none, 0.02, between_changes,
         3},
    };
    agree gtotal;
    memset(&gtotal, 0, sizeof gtotal);
    for (size_t k = 0; k < sizeof gens / sizeof gens[0]; k++)
        run_generated(&gens[k], &gtotal);
    report("all generated", &gtotal, 0, -1);

    for (int i = 0; i < ncases; i++) {
        case_free(&cases[i]);
        free(names[i]);
    }
    free(cases);
    fovea_context *mc = mem_ctx();
    fovea_close(&mc);
    return test_finish("test_gpu_klt");
}

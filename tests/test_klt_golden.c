/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* KLT golden test: every case of the shared KLT 1.3.4 data set (params.json:
 * context fields, setup ops, call sequence) run through fovea's KLT API, each
 * slot after each call compared exactly with expected.txt. Also: two contexts
 * with different sigmas interleaved, and a threaded context. */
#include "klt_cases.h"

/* Cases known not to match yet, with the reason (none at the moment). A case
 * listed here is run and reported but does not fail the test. */
static const struct {
    const char *name;
    const char *reason;
} known_failing[] = {{NULL, NULL}};

/* ---------------------------------------------------------------- running */

typedef struct run {
    golden_case *c;
    KLT_TrackingContext tc;
    KLT_FeatureList fl;
    int next_rec; /* record to produce next */
    int mismatches;
    char first[512];
    double seconds;
} run;

static int run_start(run *r, golden_case *c, fovea_context *ctx)
{
    memset(r, 0, sizeof *r);
    r->c = c;
    r->tc = klt_case_context(c, ctx, FOVEA_BACKEND_CPU);
    if (!r->tc)
        return 0;
    r->fl = KLTCreateFeatureList(c->nfeat);
    return r->fl != NULL;
}

static void compare(run *r, const record *rec)
{
    for (int k = 0; k < r->c->nfeat; k++) {
        const KLT_FeatureRec *f = r->fl->feature[k];
        const expected_row *e = &rec->rows[k];
        if (f->x == e->x && f->y == e->y && f->val == e->val)
            continue;
        if (r->mismatches++ == 0)
            snprintf(r->first, sizeof r->first,
                     "frame %d %s slot %d: got (%.8f, %.8f, %d), expected (%.8f, %.8f, %d)",
                     rec->frame, rec->stage, k, (double)f->x, (double)f->y, f->val, (double)e->x,
                     (double)e->y, e->val);
    }
}

/* Perform the call that produces the next record and compare. @return 0 when done. */
static int run_step(run *r)
{
    golden_case *c = r->c;
    if (r->next_rec >= c->nrecs)
        return 0;
    const record *rec = &c->recs[r->next_rec];
    double t0 = now_s();
    klt_case_call(c, rec, r->tc, r->fl);
    r->seconds += now_s() - t0;
    if (fovea_klt_last_status(r->tc) != FOVEA_OK) {
        fprintf(stderr, "%s: %s failed: %s\n", c->name, rec->stage, fovea_last_error(r->tc->ctx));
        test_failures++;
    }
    compare(r, rec);
    r->next_rec++;
    return 1;
}

static void run_end(run *r)
{
    KLTFreeFeatureList(r->fl);
    KLTFreeTrackingContext(r->tc);
    r->fl = NULL;
    r->tc = NULL;
}

static const char *known_reason(const char *name)
{
    for (size_t i = 0; known_failing[i].name; i++)
        if (strcmp(known_failing[i].name, name) == 0)
            return known_failing[i].reason;
    return NULL;
}

/* Report a finished run; @return 1 when it matched. */
static int report(const run *r, const char *label)
{
    const char *known = known_reason(r->c->name);
    if (r->mismatches == 0) {
        printf("  %-40s %-10s match (%d records, %.3f s)\n", r->c->name, label, r->c->nrecs,
               r->seconds);
        return 1;
    }
    printf("  %-40s %-10s MISMATCH: %d slots differ; first: %s%s%s\n", r->c->name, label,
           r->mismatches, r->first, known ? " [known failing: " : "", known ? known : "");
    if (known)
        printf("  (known failing, not counted: %s)\n", known);
    else
        test_failures++;
    return 0;
}

int main(void)
{
    const char *root = test_golden_dir("klt");
    if (!root) {
        printf("test_klt_golden: golden data not available, skipping\n");
        return TEST_SKIP;
    }

    /* every sub-directory with a params.json is a case */
    char *names[64];
    int ncases = klt_case_names(root, names, 64);
    CHECK(ncases >= 16);

    golden_case *cases = calloc((size_t)ncases, sizeof(golden_case));
    int matched = 0;
    printf("KLT golden cases (single thread):\n");
    for (int i = 0; i < ncases; i++) {
        if (!case_load(&cases[i], root, names[i])) {
            fprintf(stderr, "%s: could not load the case\n", names[i]);
            test_failures++;
            continue;
        }
        run r;
        REQUIRE(run_start(&r, &cases[i], NULL));
        while (run_step(&r))
            ;
        matched += report(&r, "1 thread");
        run_end(&r);
    }
    printf("%d of %d cases match exactly\n", matched, ncases);

    /* Two contexts with different sigmas (case a: defaults; case i: other
     * grad / smooth / pyramid sigmas) interleaved call by call in one process
     * must each still give their own results. */
    golden_case *ca = NULL, *ci = NULL;
    for (int i = 0; i < ncases; i++) {
        if (strncmp(names[i], "a_", 2) == 0)
            ca = &cases[i];
        if (strncmp(names[i], "i_", 2) == 0)
            ci = &cases[i];
    }
    if (ca && ci && ca->frames && ci->frames) {
        run ra, ri;
        REQUIRE(run_start(&ra, ca, NULL));
        REQUIRE(run_start(&ri, ci, NULL));
        int more = 1;
        while (more) {
            more = run_step(&ra);
            more |= run_step(&ri);
        }
        printf("interleaved contexts:\n");
        report(&ra, "interleave");
        report(&ri, "interleave");
        run_end(&ra);
        run_end(&ri);
    } else {
        CHECK(!"cases a_ and i_ needed for the interleaving test");
    }

    /* A threaded context must give bit-identical results. */
    fovea_settings s;
    fovea_default_settings(&s);
    s.backend = FOVEA_BACKEND_CPU;
    s.threads = 4;
    fovea_context *ctx = NULL;
    REQUIRE(fovea_open(&ctx, &s) == FOVEA_OK);
    printf("threaded context (4 threads):\n");
    for (int i = 0; i < ncases; i++) {
        const char *n = names[i];
        if (!cases[i].frames || !(strncmp(n, "a_", 2) == 0 || strncmp(n, "e1_", 3) == 0 ||
                                  strncmp(n, "f_", 2) == 0 || strncmp(n, "h_", 2) == 0))
            continue;
        run r;
        REQUIRE(run_start(&r, &cases[i], ctx));
        while (run_step(&r))
            ;
        report(&r, "4 threads");
        run_end(&r);
    }
    fovea_close(&ctx);

    for (int i = 0; i < ncases; i++) {
        case_free(&cases[i]);
        free(names[i]);
    }
    free(cases);
    return test_finish("test_klt_golden");
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The VMAF model's support vectors: libsvm's model text, as libvmaf's JSON
 * models embed it (docs/quality.md, "VMAF model"). Split from model.c. */
#include "quality/model.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "fovea/fovea.h"

/* ------------------------------------------------------------ libsvm text */

/* The libsvm model text ("svm_type nu_svr\nkernel_type rbf\n...SV\n<lines>"):
 * a header of keyword/value tokens up to "SV", then total_sv lines of
 * "coef index:value ...". Numbers are read with strtod (what libsvm's
 * istream >> double gives for these texts) and must be finite. */
typedef struct svm_text {
    const char *p, *end;
} svm_text;

static int is_sep(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* Next whitespace-separated token of the header into buf. 0 at the end. */
static int next_token(svm_text *t, char *buf, size_t bufsz)
{
    while (t->p < t->end && is_sep(*t->p))
        t->p++;
    size_t n = 0;
    while (t->p < t->end && !is_sep(*t->p)) {
        if (n + 1 >= bufsz)
            return -1;
        buf[n++] = *t->p++;
    }
    buf[n] = '\0';
    return n > 0;
}

/* A finite double from a whole token. */
static int parse_double(const char *s, double *v)
{
    if (!*s)
        return 0;
    char *e = NULL;
    errno = 0;
    double d = strtod(s, &e);
    if (*e != '\0' || !isfinite(d))
        return 0;
    *v = d;
    return 1;
}

static int parse_int(const char *s, long lo, long hi, long *v)
{
    if (!*s)
        return 0;
    char *e = NULL;
    errno = 0;
    long l = strtol(s, &e, 10);
    if (*e != '\0' || errno || l < lo || l > hi)
        return 0;
    *v = l;
    return 1;
}

/* The libsvm header up to and including the "SV" line: m->gamma, m->rho and
 * *out_total_sv. */
static int parse_svm_header(vmaf_model *m, svm_text *t, long *out_total_sv, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    char tok[64], val[64];
    int have_type = 0, have_kernel = 0, have_gamma = 0, have_nr_class = 0, have_rho = 0;
    long total_sv = -1;
    for (;;) {
        int r = next_token(t, tok, sizeof(tok));
        if (r < 0)
            return fv_errbuf(err, errsz, bad, "model: libsvm header: token too long");
        if (r == 0)
            return fv_errbuf(err, errsz, bad, "model: libsvm text ends before \"SV\"");
        if (!strcmp(tok, "SV"))
            break;
        if (next_token(t, val, sizeof(val)) != 1)
            return fv_errbuf(err, errsz, bad, "model: libsvm header: %s has no value", tok);
        if (!strcmp(tok, "svm_type")) {
            if (strcmp(val, "nu_svr") && strcmp(val, "epsilon_svr"))
                return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                                 "model: svm_type %s: only nu_svr and epsilon_svr are supported",
                                 val);
            have_type = 1;
        } else if (!strcmp(tok, "kernel_type")) {
            if (strcmp(val, "rbf"))
                return fv_errbuf(err, errsz, FOVEA_ERR_UNSUPPORTED,
                                 "model: kernel_type %s: only rbf is supported", val);
            have_kernel = 1;
        } else if (!strcmp(tok, "gamma")) {
            if (!parse_double(val, &m->gamma))
                return fv_errbuf(err, errsz, bad, "model: gamma: not a finite number");
            have_gamma = 1;
        } else if (!strcmp(tok, "nr_class")) {
            long n;
            if (!parse_int(val, 2, 2, &n))
                return fv_errbuf(err, errsz, bad, "model: nr_class: must be 2 for a regression");
            have_nr_class = 1;
        } else if (!strcmp(tok, "total_sv")) {
            if (!parse_int(val, 1, VMAF_MODEL_MAX_SV, &total_sv))
                return fv_errbuf(err, errsz, bad, "model: total_sv: must be an integer in [1, %d]",
                                 VMAF_MODEL_MAX_SV);
        } else if (!strcmp(tok, "rho")) {
            if (!have_nr_class)
                return fv_errbuf(err, errsz, bad, "model: rho before nr_class");
            if (!parse_double(val, &m->rho))
                return fv_errbuf(err, errsz, bad, "model: rho: not a finite number");
            have_rho = 1;
        } else if (!strcmp(tok, "degree") || !strcmp(tok, "coef0")) {
            double unused;
            if (!parse_double(val, &unused))
                return fv_errbuf(err, errsz, bad, "model: %s: not a finite number", tok);
        } else {
            return fv_errbuf(err, errsz, bad, "model: libsvm header: unknown keyword \"%.40s\"",
                             tok);
        }
    }
    if (!have_type || !have_kernel || !have_gamma || !have_nr_class || !have_rho || total_sv < 0)
        return fv_errbuf(err, errsz, bad,
                         "model: libsvm header needs svm_type, kernel_type, gamma, nr_class, "
                         "total_sv and rho");
    /* the rest of the "SV" line */
    while (t->p < t->end && *t->p != '\n') {
        if (!is_sep(*t->p))
            return fv_errbuf(err, errsz, bad, "model: text after \"SV\"");
        t->p++;
    }
    if (t->p < t->end)
        t->p++;
    *out_total_sv = total_sv;
    return FOVEA_OK;
}

/* Support vector i (0-based) from its line: the coefficient into
 * m->sv_coef[i], the index:value components and the terminating node into
 * m->sv_nodes from *used on (at most cap nodes in all). */
static int parse_sv_line(vmaf_model *m, svm_text *line, long i, size_t *used, size_t cap, char *err,
                         size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    char tok[64];
    int r = next_token(line, tok, sizeof(tok));
    if (r != 1 || !parse_double(tok, &m->sv_coef[i]))
        return fv_errbuf(err, errsz, bad, "model: support vector %ld: bad coefficient", i + 1);
    int last = 0;
    while ((r = next_token(line, tok, sizeof(tok))) == 1) {
        char *colon = strchr(tok, ':');
        long idx = 0;
        double v = 0;
        if (!colon)
            return fv_errbuf(err, errsz, bad,
                             "model: support vector %ld: \"%.40s\" is not "
                             "index:value",
                             i + 1, tok);
        *colon = '\0';
        if (!parse_int(tok, 1, VMAF_MODEL_MAX_FEATURES, &idx) || idx <= last)
            return fv_errbuf(err, errsz, bad,
                             "model: support vector %ld: indices must be "
                             "ascending integers in [1, %d]",
                             i + 1, VMAF_MODEL_MAX_FEATURES);
        if (!parse_double(colon + 1, &v))
            return fv_errbuf(err, errsz, bad,
                             "model: support vector %ld: value of index %ld "
                             "is not a finite number",
                             i + 1, idx);
        if (*used + 1 >= cap)
            return fv_errbuf(err, errsz, bad, "model: support vectors too large");
        m->sv_nodes[*used].index = (int)idx;
        m->sv_nodes[*used].value = v;
        (*used)++;
        last = (int)idx;
    }
    if (r < 0)
        return fv_errbuf(err, errsz, bad, "model: support vector %ld: token too long", i + 1);
    m->sv_nodes[*used].index = -1;
    m->sv_nodes[*used].value = 0.0;
    (*used)++;
    return FOVEA_OK;
}

int vmaf_model_parse_svm(vmaf_model *m, const char *text, size_t len, char *err, size_t errsz)
{
    const int bad = FOVEA_ERR_CORRUPT;
    svm_text t = {text, text + len};
    long total_sv = 0;
    int rc = parse_svm_header(m, &t, &total_sv, err, errsz);
    if (rc != FOVEA_OK)
        return rc;

    /* every vector holds at most VMAF_MODEL_MAX_FEATURES components and its end */
    const size_t max_nodes = (size_t)total_sv * (VMAF_MODEL_MAX_FEATURES + 1);
    m->n_sv = (int)total_sv;
    m->sv_coef = calloc((size_t)total_sv, sizeof(*m->sv_coef));
    m->sv = calloc((size_t)total_sv, sizeof(*m->sv));
    /* the text holds at least 4 bytes per component ("1:0 "), which bounds it too */
    size_t cap = len / 4 + (size_t)total_sv + 1;
    if (cap > max_nodes)
        cap = max_nodes;
    m->sv_nodes = calloc(cap, sizeof(*m->sv_nodes));
    if (!m->sv_coef || !m->sv || !m->sv_nodes)
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "model: out of memory");
    size_t used = 0;
    size_t *start = calloc((size_t)total_sv, sizeof(*start));
    if (!start)
        return fv_errbuf(err, errsz, FOVEA_ERR_NOMEM, "model: out of memory");
    for (long i = 0; i < total_sv && rc == FOVEA_OK; i++) {
        if (t.p >= t.end) {
            rc = fv_errbuf(err, errsz, bad, "model: %ld support vectors, total_sv says %ld", i,
                           total_sv);
            break;
        }
        const char *eol = memchr(t.p, '\n', (size_t)(t.end - t.p));
        if (!eol)
            eol = t.end;
        svm_text line = {t.p, eol};
        t.p = eol < t.end ? eol + 1 : eol;
        start[i] = used;
        rc = parse_sv_line(m, &line, i, &used, cap, err, errsz);
    }
    if (rc == FOVEA_OK) {
        while (t.p < t.end && is_sep(*t.p))
            t.p++;
        if (t.p < t.end)
            rc = fv_errbuf(err, errsz, bad, "model: more support vectors than total_sv (%ld)",
                           total_sv);
    }
    if (rc == FOVEA_OK)
        for (long i = 0; i < total_sv; i++)
            m->sv[i] = m->sv_nodes + start[i];
    free(start);
    return rc;
}

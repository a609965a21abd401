/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Pieces shared by the scoring commands (vif, vmaf): the pair of inputs, JSON in libvmaf's layout, CSV, plot checks (score.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "score.h"

/* ------------------------------------------------------------------ inputs */

/* Skip start pairs of both inputs (--start), their known frame counts
 * lowered to what is left. @return CLI_EXIT_OK, or CLI_EXIT_RUNTIME with err
 * set */
static int skip_start(score_input *in, int64_t start, const char *rn, const char *dn)
{
    fovea_reader *r[2] = {in->rr, in->rd};
    fovea_video_info *info[2] = {&in->ri, &in->di};
    for (int k = 0; k < 2 && start > 0; k++) {
        const char *name = k ? dn : rn;
        const int st = fovea_reader_skip(r[k], start);
        if (st == FOVEA_EOF || (st == FOVEA_OK && info[k]->frame_count == start)) {
            snprintf(in->err, sizeof(in->err), "%s: no frames left after --start %lld", name,
                     (long long)start);
            return CLI_EXIT_RUNTIME;
        }
        if (st < 0) {
            cli_format_report(in->err, sizeof(in->err), k ? in->dis_path : in->ref_path, 0,
                              cli_last_error(in->rctx), st);
            return CLI_EXIT_RUNTIME;
        }
        if (info[k]->frame_count > 0)
            info[k]->frame_count -= start;
    }
    return CLI_EXIT_OK;
}

int score_input_open(score_input *in, const char *ref_path, const char *dis_path,
                     const cli_input_opts *o, int64_t start, int64_t limit, const char *metric,
                     int min_size)
{
    memset(in, 0, sizeof(*in));
    in->ref_path = ref_path;
    in->dis_path = dis_path;
    in->start = start;
    in->limit = limit;
    in->rctx = o->hwdec != FOVEA_HWDEC_NONE ? o->ctx : NULL;
    int rc = cli_open_reader_msg(ref_path, o, &in->rr, in->err, sizeof(in->err));
    if (rc == CLI_EXIT_OK)
        rc = cli_open_reader_msg(dis_path, o, &in->rd, in->err, sizeof(in->err));
    if (rc != CLI_EXIT_OK)
        return rc;
    in->ri = *fovea_reader_info(in->rr);
    in->di = *fovea_reader_info(in->rd);
    const fovea_video_info ri = in->ri, di = in->di;
    const fovea_pixfmt_desc *rdsc = fovea_pixfmt_get_desc(ri.fmt);
    const fovea_pixfmt_desc *ddsc = fovea_pixfmt_get_desc(di.fmt);
    const char *rn = cli_display_path(ref_path, 0), *dn = cli_display_path(dis_path, 0);
    in->bit_depth = rdsc->bit_depth;
    if (ri.width != di.width || ri.height != di.height) {
        snprintf(in->err, sizeof(in->err), "%s is %dx%d but %s is %dx%d: %s needs equal sizes", rn,
                 ri.width, ri.height, dn, di.width, di.height, metric);
        return CLI_EXIT_RUNTIME;
    }
    for (int k = 0; k < 2; k++) {
        const fovea_pixfmt_desc *d = k ? ddsc : rdsc;
        if (!d->is_yuv || d->components != 1) {
            snprintf(in->err, sizeof(in->err), "%s: %s: %s reads luma (need YUV or gray)",
                     k ? dn : rn, d->name, metric);
            return CLI_EXIT_RUNTIME;
        }
    }
    if (rdsc->bit_depth != ddsc->bit_depth) {
        snprintf(in->err, sizeof(in->err), "%s: %d-bit but %s is %d-bit: %s needs equal bit depths",
                 rn, rdsc->bit_depth, dn, ddsc->bit_depth, metric);
        return CLI_EXIT_RUNTIME;
    }
    if (ri.width < min_size || ri.height < min_size) {
        snprintf(in->err, sizeof(in->err), "%s: %dx%d: %s needs at least %dx%d", rn, ri.width,
                 ri.height, metric, min_size, min_size);
        return CLI_EXIT_RUNTIME;
    }
    /* an input known to be empty (y4m, raw yuv from a file) is an error before
     * any work; a stream's emptiness shows at its first read */
    for (int k = 0; k < 2; k++) {
        if ((k ? di : ri).frame_count == 0) {
            snprintf(in->err, sizeof(in->err), "%s: no frames in the input: nothing to score",
                     k ? dn : rn);
            return CLI_EXIT_RUNTIME;
        }
    }
    rc = cli_media_pair_check(o, ref_path, &ri, dis_path, &di, in->err, sizeof(in->err));
    if (rc != CLI_EXIT_OK)
        return rc;
    cli_media_notice(ref_path, in->rr, in->warn, sizeof(in->warn));
    if (!in->warn[0])
        cli_media_notice(dis_path, in->rd, in->warn, sizeof(in->warn));
    rc = skip_start(in, start, rn, dn);
    if (rc != CLI_EXIT_OK)
        return rc;
    const int64_t rn_count = in->ri.frame_count, dn_count = in->di.frame_count;
    if (rn_count >= 0 && dn_count >= 0 && rn_count != dn_count)
        snprintf(in->warn, sizeof(in->warn),
                 "%s has %lld frames and %s has %lld%s: scoring the "
                 "first %lld",
                 rn, (long long)rn_count, dn, (long long)dn_count,
                 start > 0 ? " after --start" : "",
                 (long long)(rn_count < dn_count ? rn_count : dn_count));
    return CLI_EXIT_OK;
}

int64_t score_input_total(const score_input *in)
{
    int64_t total = -1;
    if (in->ri.frame_count >= 0 && in->di.frame_count >= 0)
        total = in->ri.frame_count < in->di.frame_count ? in->ri.frame_count : in->di.frame_count;
    if (in->limit >= 0 && (total < 0 || in->limit < total))
        total = in->limit;
    return total;
}

void score_input_close(score_input *in)
{
    fovea_reader_close(&in->rr);
    fovea_reader_close(&in->rd);
}

/* ------------------------------------------------------------------ tables */

score_pool score_table_pool(const score_table *t, int m)
{
    double mn = 0, mx = 0, sum = 0, isum = 0;
    for (int64_t i = 0; i < t->n; i++) {
        const double x = t->v[(size_t)i * (size_t)t->nmetrics + (size_t)m];
        sum += x;
        isum += 1.0 / (x + 1.0);
        if (i == 0 || x < mn)
            mn = x;
        if (i == 0 || x > mx)
            mx = x;
    }
    const score_pool q = {mn, mx, sum / (double)t->n, (double)t->n / isum - 1.0};
    return q;
}

cJSON *score_json_number(double x)
{
    if (!isfinite(x))
        return cJSON_CreateNull();
    char buf[64];
    snprintf(buf, sizeof(buf), "%.17g", x);
    return cJSON_CreateRaw(buf);
}

cJSON *score_json_add_pool(cJSON *obj, const char *name, const score_pool *p)
{
    cJSON *o = cJSON_AddObjectToObject(obj, name);
    if (!o)
        return NULL;
    cJSON_AddItemToObject(o, "min", score_json_number(p->min));
    cJSON_AddItemToObject(o, "max", score_json_number(p->max));
    cJSON_AddItemToObject(o, "mean", score_json_number(p->mean));
    cJSON_AddItemToObject(o, "harmonic_mean", score_json_number(p->harmonic_mean));
    return o;
}

int score_outputs_open(score_outputs *so, const char *json, const char *csv, const char *plot)
{
    memset(so, 0, sizeof(*so));
    so->path[SCORE_OUT_JSON] = json;
    so->path[SCORE_OUT_CSV] = csv;
    so->path[SCORE_OUT_PLOT] = plot;
    for (int k = 0; k < SCORE_NOUT; k++) {
        if (!so->path[k])
            continue;
        if (cli_outfile_open(&so->of[k], so->path[k]) < 0) {
            cli_report(so->path[k], 1, fovea_last_error(NULL), FOVEA_ERR_IO);
            score_outputs_close(so);
            return CLI_EXIT_RUNTIME;
        }
    }
    return CLI_EXIT_OK;
}

void score_outputs_close(score_outputs *so)
{
    for (int k = 0; k < SCORE_NOUT; k++)
        cli_outfile_close(&so->of[k]);
}

int score_write_vmaf(fovea_outfile **of, const char *path, const fovea_vmaf *v,
                     fovea_vmaf_format format, const fovea_vmaf_output *o)
{
    errno = 0;
    const int st = fovea_vmaf_write(v, fovea_outfile_file(*of), format, o);
    const int e = errno;
    if (st == FOVEA_ERR_NOMEM) {
        cli_outfile_close(of);
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (st < 0 && format == FOVEA_VMAF_OUTPUT_JSON && e) {
        cli_outfile_close(of);
        cli_error(cli_display_path(path, 1), "%s", strerror(e));
        return CLI_EXIT_RUNTIME;
    }
    /* commit flushes and checks every write: its message carries the reason */
    if (cli_outfile_commit(of) < 0)
        return cli_report(path, 1, fovea_last_error(NULL), FOVEA_ERR_IO);
    return CLI_EXIT_OK;
}

/* ------------------------------------------------------------------ plot */

int score_check_plot_name(const char *cmd, const char *path)
{
    const size_t n = strlen(path);
    if (!chart_available())
        return cli_usage_error(cmd, "--plot needs a build with cairo (libcairo2-dev)");
    if (n < 4 || strcasecmp(path + n - 4, ".png") != 0)
        return cli_usage_error(cmd, "%s: --plot writes PNG: use a .png name", path);
    return CLI_EXIT_OK;
}

void score_plot_names(const char *ref_path, const char *dis_path, const char **rn, const char **dn)
{
    const char *d = cli_display_path(dis_path, 0), *r = cli_display_path(ref_path, 0);
    const char *db = strrchr(d, '/') ? strrchr(d, '/') + 1 : d;
    const char *rb = strrchr(r, '/') ? strrchr(r, '/') + 1 : r;
    if (strlen(d) + strlen(r) > 80 && *db && *rb && strcmp(db, rb) != 0) {
        d = db;
        r = rb;
    }
    *rn = r;
    *dn = d;
}

int score_write_chart(fovea_outfile **of, const char *path, const chart *c)
{
    char err[512] = "";
    if (chart_write_png(c, fovea_outfile_file(*of), err, sizeof(err)) != 0) {
        cli_outfile_close(of); /* removes only fovea's temporary, never the path */
        cli_error(path, "%s", err);
        return CLI_EXIT_RUNTIME;
    }
    if (cli_outfile_commit(of) < 0) {
        cli_error(NULL, "%s", fovea_last_error(NULL));
        return CLI_EXIT_RUNTIME;
    }
    return CLI_EXIT_OK;
}

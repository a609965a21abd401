/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Pieces shared by the scoring commands (vif, vmaf): a reference/distorted
 * pair of inputs (scored by fovea_vmaf_score_readers), per-frame tables written as
 * JSON in libvmaf's layout and as CSV, and the plot's checks and output. */
#ifndef FOVEA_TOOLS_SCORE_H
#define FOVEA_TOOLS_SCORE_H

#include "chart.h"
#include "cli.h"
#include "fovea/quality.h"

/* ------------------------------------------------------------------ inputs */

/* The two inputs of a scoring run. Messages are kept, not printed, so that a
 * command scoring many pairs on worker threads can put them in its output:
 * err holds the text cli_error would print after "fovea: ", warn the text of a
 * warning (after "fovea: warning: "). */
typedef struct score_input {
    const char *ref_path, *dis_path;
    fovea_reader *rr, *rd;
    fovea_video_info ri, di;
    int bit_depth;
    int64_t start;       /* pairs skipped first (--start) */
    int64_t limit;       /* pairs at most, -1 = all */
    fovea_context *rctx; /* the readers' context (o->ctx with --hwdec): their messages */
    char err[2048];
    char warn[1024];
    int warned; /* warn was already handed on (the caller sets it): not again at the end */
} score_input;

/* Open both inputs, skip the first start pairs of both (--start), and refuse
 * pairs the metric cannot score: sizes, formats (luma of YUV or gray), bit
 * depths, frames below min_size x min_size, an input known to have no frames
 * (or none after start). metric names it in the messages ("VIF"). Differing
 * known frame counts set warn (the common prefix is scored). ri and di's frame counts are those left after start.
 * @return CLI_EXIT_OK, CLI_EXIT_USAGE (the input options do not fit the file)
 *         or CLI_EXIT_RUNTIME, with err set */
int score_input_open(score_input *in, const char *ref_path, const char *dis_path,
                     const cli_input_opts *o, int64_t start, int64_t limit, const char *metric,
                     int min_size);

/* The pairs that will be scored when the frame counts are known (the smaller
 * count, at most limit), else -1. */
int64_t score_input_total(const score_input *in);

/* Close the readers. Safe on a zeroed or failed input. */
void score_input_close(score_input *in);

/* ------------------------------------------------------------------ tables */

/* libvmaf's pooling of one metric. */
typedef struct score_pool {
    double min, max;
    double mean;          /* sum / n, summed in frame order */
    double harmonic_mean; /* n / sum(1 / (x + 1)) - 1 */
} score_pool;

/* Per-frame values of named metrics: v[i * nmetrics + m] is metric m of frame
 * i; pool[m] its pooling (read when n > 0). */
typedef struct score_table {
    int nmetrics;
    const char *const *names;
    const double *v;
    int64_t n;
    const score_pool *pool;
} score_table;

/* Pool metric m of the table as libvmaf does (n > 0). */
score_pool score_table_pool(const score_table *t, int m);

/* A number as %.17g (it reads back as the same double); JSON has no NaN or
 * infinity: null. */
cJSON *score_json_number(double x);

/* obj.<name> = {"min", "max", "mean", "harmonic_mean"}. @return the new object or NULL */
cJSON *score_json_add_pool(cJSON *obj, const char *name, const score_pool *p);

/* The outputs of a scored pair (--json, --csv, --plot), opened before the
 * scoring: a path that cannot be written fails at once, not after the work. */
enum { SCORE_OUT_JSON, SCORE_OUT_CSV, SCORE_OUT_PLOT, SCORE_NOUT };

typedef struct score_outputs {
    const char *path[SCORE_NOUT]; /* NULL: not asked for */
    fovea_outfile *of[SCORE_NOUT];
} score_outputs;

/* Open each output given. @return CLI_EXIT_OK, or CLI_EXIT_RUNTIME (printed;
 * none left open) */
int score_outputs_open(score_outputs *so, const char *json, const char *csv, const char *plot);
/* Close those not written (committed ones are closed already): their
 * temporaries are removed, the files they would replace untouched. */
void score_outputs_close(score_outputs *so);

/* Write a scorer's kept frames to *of (opened for path, '-' = stdout, by
 * score_outputs_open) in libvmaf's format (fovea_vmaf_write), and commit it.
 * @return CLI_EXIT_OK or CLI_EXIT_RUNTIME (printed) */
int score_write_vmaf(fovea_outfile **of, const char *path, const fovea_vmaf *v,
                     fovea_vmaf_format format, const fovea_vmaf_output *o);

/* ------------------------------------------------------------------ plot */

/* --plot is refused before any work: the name must end in .png (the chart is
 * a PNG whatever the name says) and the build must be able to draw.
 * @return CLI_EXIT_OK or CLI_EXIT_USAGE (printed) */
int score_check_plot_name(const char *cmd, const char *path);

/* The names a chart's title shows: the paths as given, their last parts when
 * both are long and those tell them apart. */
void score_plot_names(const char *ref_path, const char *dis_path, const char **rn, const char **dn);

/* Draw c into *of (opened for path by score_outputs_open) and commit it.
 * @return CLI_EXIT_OK or CLI_EXIT_RUNTIME (printed) */
int score_write_chart(fovea_outfile **of, const char *path, const chart *c);

#endif

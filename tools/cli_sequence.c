/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Image sequences in the CLI: the frame-number pattern every command takes
 * as an input and output name, the refusal of outputs that would write over
 * a sequence's files, and the frame rate a y4m output gets when the input
 * has none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_is_pattern(const char *path, fovea_container c)
{
    if (c != FOVEA_CONTAINER_PNG && c != FOVEA_CONTAINER_PNM)
        return 0;
    int found = 0;
    for (const char *p = path; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        p++;
        if (*p == '0')
            p++;
        for (int k = 0; k < 2 && *p >= '0' && *p <= '9'; k++)
            p++;
        if (*p != 'd' || found)
            return 0;
        found = 1;
    }
    return found;
}

int cli_pattern_problem(const char *path, char *conv, size_t n)
{
    int found = 0;
    for (const char *p = path; *p; p++) {
        if (*p != '%')
            continue;
        if (p[1] == '%') {
            p++;
            continue;
        }
        const char *start = p++;
        while (*p >= '0' && *p <= '9')
            p++;
        /* %d, %Nd, %0Nd with at most 2 digits of width, once */
        const size_t digits = (size_t)(p - start - 1);
        const int ok = *p == 'd' && digits <= (start[1] == '0' ? 3u : 2u);
        if (!ok || found) {
            const size_t len = (size_t)(p - start) + (*p ? 1 : 0);
            snprintf(conv, n, "%.*s", (int)len, start);
            return ok ? 2 : 1;
        }
        found = 1;
    }
    return 0;
}

int cli_check_pattern_arg(const char *cmd, const char *what, const char *path, int is_output)
{
    if (!path)
        return CLI_EXIT_OK;
    /* an image name with a conversion that is no frame number: written, the
     * writer would refuse it after the work; read, it names no file (one
     * that exists under that very name is read as it is) */
    const fovea_container c = fovea_container_from_path(path);
    char conv[32];
    const int bad = c == FOVEA_CONTAINER_PNG || c == FOVEA_CONTAINER_PNM
                        ? cli_pattern_problem(path, conv, sizeof conv)
                        : 0;
    if (!bad || (!is_output && access(path, F_OK) == 0))
        return CLI_EXIT_OK;
    return cli_usage_error(
        cmd,
        "%s %s: %s'%s' (a frame-number pattern takes one %%d, %%4d or %%04d; "
        "%%%% for a literal %%)",
        what, path, bad == 2 ? "a second frame-number conversion " : "bad conversion ", conv);
}

typedef struct file_id {
    dev_t dev;
    ino_t ino;
} file_id;

static int cmp_id(const void *pa, const void *pb)
{
    const file_id *a = pa, *b = pb;
    if (a->dev != b->dev)
        return a->dev < b->dev ? -1 : 1;
    return a->ino < b->ino ? -1 : a->ino > b->ino ? 1 : 0;
}

int cli_refuse_sequence_outputs(const char *input, int64_t nfiles, const char *const *names,
                                const int *patterns, int nnames, int64_t nout)
{
    file_id *ids = malloc((size_t)(nfiles + 1) * sizeof(*ids));
    if (!ids) {
        cli_error(NULL, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    size_t n = 0;
    char name[4096];
    struct stat st;
    /* the files numbered 0..nfiles: the sequence starts at 0 or 1 */
    for (int64_t i = 0; i <= nfiles; i++)
        if (snprintf(name, sizeof(name), input, (int)i) < (int)sizeof(name) &&
            stat(name, &st) == 0) {
            ids[n].dev = st.st_dev;
            ids[n].ino = st.st_ino;
            n++;
        }
    qsort(ids, n, sizeof(*ids), cmp_id);
    int rc = CLI_EXIT_OK;
    for (int k = 0; k < nnames && rc == CLI_EXIT_OK; k++) {
        if (!names[k] || strcmp(names[k], "-") == 0)
            continue;
        const int pat = patterns && patterns[k];
        for (int64_t i = 0; i < (pat ? nout : 1) && rc == CLI_EXIT_OK; i++) {
            const char *nm = names[k];
            if (pat) {
                snprintf(name, sizeof(name), names[k], (int)i);
                nm = name;
            }
            if (stat(nm, &st) != 0)
                continue;
            file_id key = {st.st_dev, st.st_ino};
            if (bsearch(&key, ids, n, sizeof(*ids), cmp_id)) {
                cli_error(nm, "output is the same file as a file of input %s", input);
                rc = CLI_EXIT_USAGE;
            }
        }
    }
    free(ids);
    return rc;
}

void cli_output_rate(const cli_input_opts *in, const char *input, fovea_container oc, int quiet,
                     int *said, fovea_video_info *info)
{
    if (info->fps_num > 0 && info->fps_den > 0)
        return;
    if (in->fps_num > 0 && in->fps_den > 0) {
        info->fps_num = in->fps_num;
        info->fps_den = in->fps_den;
        return;
    }
    if (oc != FOVEA_CONTAINER_Y4M)
        return;
    /* a y4m header must have a rate; images and raw yuv carry none */
    info->fps_num = 25;
    info->fps_den = 1;
    if (!quiet && !*said)
        cli_error(cli_display_path(input, 0),
                  "the input has no frame rate: the y4m output says 25 fps (set it with --fps)");
    *said = 1;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The manifest of `fovea vmaf --manifest`: the pairs to score, as CSV with a
 * header or as JSON lines (docs/quality.md, "Batch scoring"). */
#ifndef FOVEA_TOOLS_VMAF_MANIFEST_H
#define FOVEA_TOOLS_VMAF_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

/* Largest manifest read (bytes) and field (bytes). */
#define MANIFEST_MAX_BYTES ((size_t)1 << 30)
#define MANIFEST_MAX_FIELD 4096
/* Errors reported at most (then "... and K more"). */
#define MANIFEST_MAX_REPORTED 20

/* One pair. Strings are owned by the manifest. */
typedef struct manifest_pair {
    char *ref, *dis;  /* paths as written */
    char *id;         /* NULL when not given */
    int id_is_number; /* JSON lines: the id was a number (id holds its text) */
    char *model;      /* NULL when not given */
    char *features;   /* the row's features as settings.features ("NAME:OPT=VAL,..."),
                         NULL when not given */
    int64_t frames;   /* -1 when not given; 0 = all */
    int line;         /* 1-based line in the manifest */
} manifest_pair;

typedef struct manifest {
    manifest_pair *pair;
    int64_t n, cap;
    int json;     /* 1: JSON lines, 0: CSV */
    int nerrors;  /* malformed lines */
    char *errors; /* "NAME:LINE: reason" lines, the first MANIFEST_MAX_REPORTED */
    size_t errors_len;
} manifest;

/* Parse a manifest held in text[0..len) (need not end in a NUL). name is the
 * file name for the messages. JSON lines when the first line that is neither
 * blank nor a '#' comment starts with '{', else CSV whose first such line is a
 * header naming the columns: ref and dis, and optionally id, model, frames,
 * features, in any order. A row's features are libvmaf's --feature values
 * (NAME[=OPTION=VALUE:...]) separated by blanks, ';' or ',' (a CSV field with a
 * comma is quoted); in JSON lines a string so or an array of such strings. Every malformed line is counted and reported.
 * @return 0 (m->nerrors may be > 0: the manifest is not usable then), or -1
 *         out of memory. m is filled in either case: free it with manifest_free. */
int manifest_parse(manifest *m, const char *name, const char *text, size_t len);

void manifest_free(manifest *m);

#endif

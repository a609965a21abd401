/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the manifest parser of `fovea vmaf --manifest`
 * (tools/vmaf_manifest.c). Every pair it accepts has its paths and a line
 * inside the text; every refusal is counted and reported as NAME:LINE. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmaf_manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    manifest m;
    if (manifest_parse(&m, "fuzz", (const char *)data, size) != 0) {
        manifest_free(&m);
        return 0; /* out of memory */
    }
    int lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    int last = 0;
    for (int64_t k = 0; k < m.n; k++) {
        const manifest_pair *p = &m.pair[k];
        if (!p->ref || !p->dis || !*p->ref || !*p->dis || p->line <= last || p->line > lines ||
            strlen(p->ref) > MANIFEST_MAX_FIELD || strlen(p->dis) > MANIFEST_MAX_FIELD ||
            p->frames < -1 || (p->id_is_number && !p->id))
            abort();
        last = p->line;
    }
    if (m.nerrors > 0 && (!m.errors || strncmp(m.errors, "fuzz:", 5) != 0))
        abort();
    if (m.nerrors == 0 && m.errors)
        abort();
    manifest_free(&m);
    return 0;
}

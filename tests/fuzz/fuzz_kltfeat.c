/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target: the KLT feature list / history / table reader (text and binary
 * files written by KLTWrite*). The reader takes a file name, so each input goes
 * through a private temporary file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fovea/klt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/fovea_fuzz_klt_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        close(fd);
        unlink(path);
        return 0;
    }
    size_t ok = fwrite(data, 1, size, fp);
    fclose(fp);
    if (ok == size) {
        KLT_FeatureList fl = KLTReadFeatureList(NULL, path);
        if (fl)
            KLTFreeFeatureList(fl);
        KLT_FeatureHistory fh = KLTReadFeatureHistory(NULL, path);
        if (fh)
            KLTFreeFeatureHistory(fh);
        KLT_FeatureTable ft = KLTReadFeatureTable(NULL, path);
        if (ft)
            KLTFreeFeatureTable(ft);
    }
    unlink(path);
    return 0;
}

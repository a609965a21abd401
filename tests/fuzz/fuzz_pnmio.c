/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* libFuzzer target for KLT's pgmRead (include/fovea/compat/pnmio.h): the stream header is
 * parsed token by token, so any input must give an image or NULL, never a
 * crash, leak, hang or out-of-bounds access; consecutive images are read until
 * one fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fovea/compat/pnmio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        return 0;
    for (int k = 0; k < 4; k++) {
        int w = -1, h = -1;
        unsigned char *img = pgmRead(fp, NULL, &w, &h);
        if (!img) {
            if (w != 0 || h != 0)
                abort();
            break;
        }
        /* the whole image is there */
        volatile unsigned sum = 0;
        for (size_t i = 0; i < (size_t)w * (size_t)h; i += 97)
            sum += img[i];
        sum += img[(size_t)w * (size_t)h - 1];
        (void)sum;
        free(img);
    }
    fclose(fp);
    return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* Fuzz target for the media reader (FFmpeg's demuxers and decoders behind
 * fovea's glue): the input is a whole file, read from memory through the
 * reader's own AVIOContext over an in-memory FILE, probed as stdin would be. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fovea/io.h"
#include "io/io_internal.h"

/* Frames larger than this are skipped to keep each input fast. */
#define FUZZ_MAX_PIXELS (4LL << 20)
#define FUZZ_MAX_FRAMES 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *fp = fmemopen((void *)data, size, "rb");
    if (!fp)
        return 0;
    fovea_reader_settings opt;
    fovea_reader_default_settings(&opt);
    opt.container = FOVEA_CONTAINER_MEDIA;
    fovea_reader *r = NULL;
    if (fv_reader_open_stream(NULL, &r, fp, "fuzz.media", &opt) == FOVEA_OK) {
        const fovea_video_info *info = fovea_reader_info(r);
        if ((long long)info->width * info->height <= FUZZ_MAX_PIXELS) {
            fovea_frame f;
            memset(&f, 0, sizeof(f));
            for (int i = 0; i < FUZZ_MAX_FRAMES; i++)
                if (fovea_reader_read(r, &f) != FOVEA_OK)
                    break;
            fovea_frame_free(NULL, &f);
        }
        fovea_reader_close(&r);
    }
    fclose(fp);
    return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* libFuzzer target for the delta stream decoder: the input is cut into
 * messages by their length fields and fed in order to one decoder with small
 * limits; any input must give whole frames or errors, never a crash, a leak,
 * an out-of-bounds access or an allocation past the limits. A whole message
 * is fed with its checksum made right (mutations would otherwise stop there),
 * so the fields, the zstd frames and the tile data behind it are reached;
 * the checksum itself is tested in test_stream_errors. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fovea/stream.h"
#include "stream/stream_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fovea_stream_limits lim;
    fovea_stream_limits_init(&lim);
    lim.max_frame_bytes = (size_t)4 << 20;
    lim.max_message_bytes = (size_t)4 << 20;
    fovea_stream_decoder *d = NULL;
    if (fovea_stream_decoder_open(&d, NULL, &lim) != FOVEA_OK)
        return 0;
    size_t pos = 0;
    while (pos < size) {
        size_t n = size - pos;
        if (n >= FOVEA_STREAM_HEADER_SIZE) {
            const uint8_t *h = data + pos;
            const size_t len =
                (size_t)h[8] | ((size_t)h[9] << 8) | ((size_t)h[10] << 16) | ((size_t)h[11] << 24);
            fovea_stream_msg_type type;
            size_t payload;
            (void)fovea_stream_parse_header(NULL, h, &lim, &type, &payload);
            if (len < n - FOVEA_STREAM_HEADER_SIZE)
                n = FOVEA_STREAM_HEADER_SIZE + len;
        }
        uint8_t *msg = malloc(n ? n : 1);
        if (!msg)
            break;
        memcpy(msg, data + pos, n);
        if (n >= FOVEA_STREAM_HEADER_SIZE && get_u32(msg + 8) == n - FOVEA_STREAM_HEADER_SIZE)
            put_u64(msg + 12, stream_checksum(msg, n - FOVEA_STREAM_HEADER_SIZE));
        fovea_stream_event ev;
        if (fovea_stream_decoder_feed(d, msg, n, &ev) == FOVEA_OK && ev.frame) {
            /* touch the first and last byte of every row of every plane */
            const fovea_frame *f = ev.frame;
            const fovea_pixfmt_desc *desc = fovea_pixfmt_get_desc(f->fmt);
            volatile uint8_t sum = 0;
            for (int p = 0; desc && p < desc->planes; p++) {
                const size_t row = fovea_plane_row_bytes(f->fmt, f->width, p);
                for (int y = 0; y < fovea_plane_height(f->fmt, f->height, p); y++) {
                    const uint8_t *r = f->data[p] + (ptrdiff_t)y * f->stride[p];
                    sum = (uint8_t)(sum + r[0] + r[row - 1]);
                }
            }
            (void)sum;
        }
        free(msg);
        pos += n;
    }
    fovea_stream_decoder_close(&d);
    return 0;
}

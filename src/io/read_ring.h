/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* A reader on a thread of its own filling a ring of frames ahead of its
 * consumer (read_ring.c): read k goes to slot k % nslots once the consumer
 * released read k - nslots; reads are taken and released in order, each
 * released when its frame is no longer needed (a queued scorer holds several). */
#ifndef FOVEA_IO_READ_RING_H
#define FOVEA_IO_READ_RING_H

#include <pthread.h>
#include <stdint.h>

#include "fovea/io.h"

typedef struct fv_read_slot {
    fovea_frame f;
    int status;     /* fovea_reader_read's */
    char msg[1024]; /* the reader's message when it failed */
    int filled;
    int made; /* f is allocated (on first use, by the reader thread) */
} fv_read_slot;

typedef struct fv_read_ring {
    fovea_reader *r;
    fovea_context *ctx; /* frame allocation */
    fv_read_slot *slot;
    int nslots;
    int64_t limit;     /* reads at most (then FOVEA_EOF), -1 = all */
    fovea_memtype mem; /* where the slots' frames are made */
    int64_t taken, released;
    int stop, ready, started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t th;
} fv_read_ring;

/* Start the thread, which fills nslots frames of r's size and format in mem
 * on ctx (each allocated by the thread when first used; a failed allocation
 * is that read's status) and ends after the end or a failed read.
 * @return FOVEA_OK, or a status (then fv_read_ring_stop frees what was
 * made) */
int fv_read_ring_start(fv_read_ring *q, fovea_context *ctx, fovea_reader *r, int nslots,
                       int64_t limit, fovea_memtype mem);
/* The next read, waited for: its status, *f its frame, *msg the reader's
 * message when it failed. */
int fv_read_ring_take(fv_read_ring *q, fovea_frame **f, const char **msg);
/* The oldest taken read's slot may be filled again. */
void fv_read_ring_release(fv_read_ring *q);
/* Stop the thread (after the read it is in), join it, free the frames. Safe
 * on a zeroed ring and after a failed start. */
void fv_read_ring_stop(fv_read_ring *q);

#endif

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* fovea's temporary files removed when a command is interrupted: SIGINT,
 * SIGTERM and SIGHUP run a handler that unlinks every live temporary (the
 * hidden ".NAME.XXXXXXXX" files outputs are written to before they are
 * renamed into place), then die of the signal by its default action. The
 * files they would have replaced are never touched. */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Live temporaries at once: a few outputs per command; a pattern output has
 * one at a time per writer thread. */
#define TEMP_SLOTS 64
#define TEMP_PATH_MAX 4096

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

/* The handler reads only slots in SLOT_LIVE, whose path does not change until
 * the slot leaves that state; lock-free atomics keep it async-signal-safe. */
typedef struct temp_slot {
    atomic_int state;
    char path[TEMP_PATH_MAX];
} temp_slot;

static temp_slot temps[TEMP_SLOTS];
/* the next slot tried: slots are taken round the ring, so a slot just freed
 * is the last to be reused (a handler reading it sees its path whole) */
static atomic_uint next_slot;

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};

void cli_temp_add(const char *path)
{
    if (!path)
        return;
    const size_t n = strlen(path);
    if (n >= TEMP_PATH_MAX)
        return;
    for (int tries = 0; tries < TEMP_SLOTS; tries++) {
        temp_slot *s = &temps[atomic_fetch_add(&next_slot, 1u) % TEMP_SLOTS];
        int expect = SLOT_FREE;
        if (atomic_compare_exchange_strong(&s->state, &expect, SLOT_BUSY)) {
            memcpy(s->path, path, n + 1);
            atomic_store(&s->state, SLOT_LIVE);
            return;
        }
    }
    /* all taken: this one is left behind if the command is interrupted */
}

void cli_temp_remove(const char *path)
{
    if (!path)
        return;
    for (int i = 0; i < TEMP_SLOTS; i++) {
        temp_slot *s = &temps[i];
        int expect = SLOT_LIVE;
        if (atomic_load(&s->state) == SLOT_LIVE && strcmp(s->path, path) == 0 &&
            atomic_compare_exchange_strong(&s->state, &expect, SLOT_BUSY)) {
            atomic_store(&s->state, SLOT_FREE);
            return;
        }
    }
}

void cli_temp_hook(void *opaque, const char *path, int live)
{
    (void)opaque;
    if (live)
        cli_temp_add(path);
    else
        cli_temp_remove(path);
}

static void on_signal(int sig)
{
    const int saved = errno;
    for (int i = 0; i < TEMP_SLOTS; i++)
        if (atomic_load(&temps[i].state) == SLOT_LIVE)
            unlink(temps[i].path);
    /* SA_RESETHAND restored the default action: the process dies of sig as
     * it would have without the handler (once the handler returns) */
    raise(sig);
    errno = saved;
}

void cli_temps_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
        sigaddset(&sa.sa_mask, handled[i]);
    for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++) {
        struct sigaction old;
        /* a signal ignored at start (nohup, a shell's background job) stays ignored */
        if (sigaction(handled[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(handled[i], &sa, NULL);
    }
}

int cli_outfile_open(fovea_outfile **of, const char *path)
{
    const int st = fovea_outfile_open(of, NULL, path);
    if (st == FOVEA_OK)
        cli_temp_add(fovea_outfile_temp_path(*of));
    return st;
}

/* Copy of of's temporary's path, taken before the call that frees it. */
static char *temp_copy(const fovea_outfile *of)
{
    const char *tmp = fovea_outfile_temp_path(of);
    return tmp ? strdup(tmp) : NULL;
}

int cli_outfile_commit(fovea_outfile **of)
{
    char *tmp = temp_copy(of ? *of : NULL);
    const int st = fovea_outfile_commit(of, NULL);
    cli_temp_remove(tmp);
    free(tmp);
    return st;
}

void cli_outfile_close(fovea_outfile **of)
{
    char *tmp = temp_copy(of ? *of : NULL);
    fovea_outfile_close(of);
    cli_temp_remove(tmp);
    free(tmp);
}

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea send` and `fovea receive` in a build without the delta streamer
 * (libzstd or libxxhash missing): they say so. */
#ifndef FOVEA_HAVE_STREAM
#include "cli.h"

static int absent(const char *name)
{
    cli_error(NULL,
              "%s: this fovea was built without the delta streamer (it needs libzstd and "
              "libxxhash: Debian libzstd-dev libxxhash-dev, then rebuild)",
              name);
    return CLI_EXIT_RUNTIME;
}

int cmd_send(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return absent("send");
}

int cmd_receive(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return absent("receive");
}
#endif

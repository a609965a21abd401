/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* `fovea live` in a build without it (libwebsockets or the delta streamer
 * missing): it says so. */
#ifndef FOVEA_HAVE_LIVE
#include "cli.h"

int cmd_live(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cli_error(NULL, "live: this fovea was built without the live web view (it needs "
                    "libwebsockets and the delta streamer: Debian libwebsockets-dev "
                    "libzstd-dev libxxhash-dev, then rebuild)");
    return CLI_EXIT_RUNTIME;
}
#endif

/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/* The live page's files, embedded in the program at build time
 * (cmake/embed.cmake writes live_assets.c from web/). */
#ifndef FOVEA_LIVE_ASSETS_H
#define FOVEA_LIVE_ASSETS_H

#include <stddef.h>

typedef struct live_asset {
    const char *path; /**< URL path, "/" for the page */
    const char *mime;
    const unsigned char *data;
    size_t size;
} live_asset;

/** The assets, ended by an entry with path NULL. */
extern const live_asset live_assets[];

#endif

/* Files compiled into respgen at build time (see cmake/embed.cmake). */
#ifndef RG_EMBED_H
#define RG_EMBED_H

#include <stddef.h>

typedef struct rg_embedded_file {
    const char *path; /* relative to the source root, e.g. "gen/lua/cli.lua" */
    const char *data; /* size bytes followed by a NUL */
    size_t size;
} rg_embedded_file;

/* Sorted by path (strcmp order); followed by an all-zero sentinel. */
extern const rg_embedded_file rg_embedded_files[];
extern const size_t rg_embedded_count;

#endif

/* `respgen dump`: decodes a RESP stream and prints its values (see docs/dump.md). */
#ifndef RG_DUMP_H
#define RG_DUMP_H

#include <stddef.h>
#include <stdio.h>

/* Runs the tool on its arguments (those after "dump"). Values go to out, messages to err.
 * Returns the exit status: 0 all input decoded, 1 bad input or I/O error, 2 bad usage. */
int rg_dump_main(size_t argc, const char *const *argv, FILE *out, FILE *err);

#endif

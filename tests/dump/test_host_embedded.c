/* The embedded files test_host runs against, in place of the generated table. Sorted by path,
 * as cmake/embed.cmake writes it. */
#include "embed.h"

#define FILE_ENTRY(path, text) \
    { path, text, sizeof(text) - 1 }

const rg_embedded_file rg_embedded_files[] = {
    FILE_ENTRY("gen/lua/a/b.lua", "return {name = ...}\n"),
    FILE_ENTRY("gen/lua/bad.lua", "error('boom')\n"),
    FILE_ENTRY("gen/lua/pkg/init.lua", "return {name = 'pkg', path = select(2, ...)}\n"),
    FILE_ENTRY("gen/lua/syntax.lua", "return {\n"),
    FILE_ENTRY("gen/lua/top.lua", "return 'top'\n"),
    FILE_ENTRY("templates/sub/y.tmpl", "Y\0Y"),
    FILE_ENTRY("templates/x.tmpl", "X\n"),
    {0, 0, 0},
};
const size_t rg_embedded_count = sizeof rg_embedded_files / sizeof rg_embedded_files[0] - 1;

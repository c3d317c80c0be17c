/* The `host` Lua module: what the Lua generator cannot do in plain Lua (embedded files, atomic
 * writes, the C dump tool), and the require() searcher for the embedded modules. */
#include "host.h"

#include "dump.h"
#include "embed.h"
#include "rg.h"

#include <dirent.h>
#include <errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LUA_PREFIX      "gen/lua/"
#define TEMPLATE_PREFIX "templates/"

static int compare_path(const void *key, const void *elem) {
    return strcmp(key, ((const rg_embedded_file *)elem)->path);
}

static const rg_embedded_file *embedded_find(const char *path) {
    return bsearch(path, rg_embedded_files, rg_embedded_count, sizeof rg_embedded_files[0],
                   compare_path);
}

static const char *const module_patterns[] = {LUA_PREFIX "%s.lua", LUA_PREFIX "%s/init.lua"};

/* The embedded file that holds module `name` ("a.b" -> gen/lua/a/b.lua or gen/lua/a/b/init.lua),
 * or NULL. Leaves the name as a relative path ("a/b") on the stack. */
static const rg_embedded_file *module_find(lua_State *L, const char *name) {
    const char *rel = luaL_gsub(L, name, ".", "/");
    const rg_embedded_file *f = NULL;
    for (size_t i = 0; i < sizeof module_patterns / sizeof module_patterns[0] && !f; i++) {
        f = embedded_find(lua_pushfstring(L, module_patterns[i], rel));
        lua_pop(L, 1);
    }
    return f;
}

/* package.searchers entry: returns the module's chunk and its path, or why it is not there. */
static int embedded_searcher(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    const rg_embedded_file *f = module_find(L, name);
    if (!f) {
        const char *rel = lua_tostring(L, -1);
        lua_pushfstring(L,
                        "no embedded module '" LUA_PREFIX "%s.lua' or '" LUA_PREFIX "%s/init.lua'",
                        rel, rel);
        return 1;
    }
    /* The '@' makes Lua report errors as "gen/lua/name.lua:LINE:". Text only: the embedded
     * files are sources, and refusing bytecode keeps a stray binary chunk from being run. */
    const char *chunkname = lua_pushfstring(L, "@%s", f->path);
    if (luaL_loadbufferx(L, f->data, f->size, chunkname, "t") != LUA_OK)
        return luaL_error(L, "error loading module '%s' from '%s':\n\t%s", name, f->path,
                          lua_tostring(L, -1));
    lua_pushstring(L, f->path);
    return 2;
}

static int host_has_module(lua_State *L) {
    lua_pushboolean(L, module_find(L, luaL_checkstring(L, 1)) != NULL);
    return 1;
}

static int host_template(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    const rg_embedded_file *f = embedded_find(lua_pushfstring(L, TEMPLATE_PREFIX "%s", name));
    if (f)
        lua_pushlstring(L, f->data, f->size);
    else
        lua_pushnil(L);
    return 1;
}

/* The embedded table is sorted, so the templates form one sorted run. */
static int host_templates(lua_State *L) {
    const size_t plen = strlen(TEMPLATE_PREFIX);
    lua_Integer n = 0;
    lua_newtable(L);
    for (size_t i = 0; i < rg_embedded_count; i++) {
        const char *path = rg_embedded_files[i].path;
        if (strncmp(path, TEMPLATE_PREFIX, plen) != 0) continue;
        lua_pushstring(L, path + plen);
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

/* host.dump({args...}) -> exit status of `respgen dump args...`. */
static int host_dump(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const size_t argc = (size_t)luaL_len(L, 1);
    /* A userdata, so the array is freed even if a bad argument raises an error below. */
    const char **argv = lua_newuserdatauv(L, (argc + 1) * sizeof *argv, 0);
    for (size_t i = 0; i < argc; i++) {
        /* The strings stay alive in the argument table, which is on the stack. */
        if (lua_rawgeti(L, 1, (lua_Integer)i + 1) != LUA_TSTRING)
            return luaL_error(L, "host.dump: argument %d is not a string", (int)i + 1);
        argv[i] = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    argv[argc] = NULL;
    fflush(stdout); /* whatever Lua printed comes first */
    lua_pushinteger(L, rg_dump_main(argc, argv, stdout, stderr));
    return 1;
}

/* The io library's failure convention: nil, "path: reason". */
static int push_errno(lua_State *L, const char *path, int err) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, strerror(err));
    return 2;
}

/* host.read_file(path [, max]) -> contents, or nil, err; files over max bytes are refused
 * before they are read. */
static int host_read_file(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    const lua_Integer max = luaL_optinteger(L, 2, LUA_MAXINTEGER);
    FILE *f = fopen(path, "rb");
    if (!f) return push_errno(L, path, errno);
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > max) {
        fclose(f);
        lua_pushnil(L);
        lua_pushfstring(L, "%s:1: the file is %I bytes, over the limit of %I", path,
                        (lua_Integer)st.st_size, max);
        return 2;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t got;
    do {
        char *p = luaL_prepbuffer(&b);
        got = fread(p, 1, LUAL_BUFFERSIZE, f);
        luaL_addsize(&b, got);
    } while (got == LUAL_BUFFERSIZE);
    const int err = ferror(f) ? errno : 0;
    fclose(f);
    if (err) return push_errno(L, path, err);
    luaL_pushresult(&b);
    return 1;
}

/* New files get the mode open(2) would give them; replaced files keep theirs. */
static mode_t target_mode(const char *path) {
    struct stat st;
    if (stat(path, &st) == 0) return st.st_mode & 07777;
    const mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static int write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        const ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Writes data to tmp (an open mkstemp file) and renames it over path. 0 or an errno value. */
static int replace_with(int fd, const char *tmp, const char *path, const char *data, size_t len) {
    int err = fchmod(fd, target_mode(path)) == 0 ? 0 : errno;
    if (!err) err = write_all(fd, data, len);
    /* No fsync: generated files are reproducible, and the rename alone already guarantees
     * readers see the old or the new content, never a mix. */
    if (close(fd) != 0 && !err) err = errno;
    if (!err && rename(tmp, path) != 0) err = errno;
    return err;
}

/* host.write_file_atomic(path, data) -> true, or nil, err. The temp file sits next to the
 * target, since rename(2) is only atomic within one file system. */
static int host_write_file_atomic(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    size_t len;
    const char *data = luaL_checklstring(L, 2, &len);
    const char *pattern = lua_pushfstring(L, "%s.tmp.XXXXXX", path);
    const size_t tlen = strlen(pattern) + 1;
    char *tmp = memcpy(lua_newuserdatauv(L, tlen, 0), pattern, tlen);
    const int fd = mkstemp(tmp);
    if (fd < 0) return push_errno(L, path, errno);
    const int err = replace_with(fd, tmp, path, data, len);
    if (err) {
        unlink(tmp);
        return push_errno(L, path, err);
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* The temp files of host_write_files, one per target: unlinked when anything fails. */
static void unlink_temps(char *const *tmps, size_t from, size_t to) {
    for (size_t i = from; i < to; i++) unlink(tmps[i]);
}

/* host.write_files({ {path, data}, ... }) -> true, or nil, err. All or nothing as far as the
 * file system lets it be: a target that is a directory fails before anything is written; every
 * file is then written to a temp file next to its target, and only when all of them are written
 * are they renamed over their targets (within one directory, where rename(2) does not fail for
 * lack of space). Any failure before the renames leaves the targets as they were. */
static int host_write_files(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    const size_t n = (size_t)luaL_len(L, 1);
    /* Every Lua allocation happens before the first temp file exists, so a memory error (a
     * longjmp) cannot leave one behind. */
    char **tmps = lua_newuserdatauv(L, (n ? n : 1) * sizeof *tmps, 0);
    const char **paths = lua_newuserdatauv(L, (n ? n : 1) * sizeof *paths, 0);
    const char **data = lua_newuserdatauv(L, (n ? n : 1) * sizeof *data, 0);
    size_t *lens = lua_newuserdatauv(L, (n ? n : 1) * sizeof *lens, 0);
    lua_createtable(L, n > INT_MAX ? 0 : (int)n, 0); /* keeps the temp names' buffers alive */
    const int keep = lua_gettop(L);
    for (size_t i = 0; i < n; i++) {
        lua_geti(L, 1, (lua_Integer)i + 1);
        lua_geti(L, -1, 1);
        paths[i] = luaL_checkstring(L, -1);
        lua_geti(L, -2, 2);
        data[i] = luaL_checklstring(L, -1, &lens[i]);
        lua_pop(L, 3); /* the strings stay referenced by the table at index 1 */
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) return push_errno(L, paths[i], EISDIR);
        const char *pattern = lua_pushfstring(L, "%s.tmp.XXXXXX", paths[i]);
        const size_t tlen = strlen(pattern) + 1;
        tmps[i] = memcpy(lua_newuserdatauv(L, tlen, 0), pattern, tlen);
        lua_rawseti(L, keep, (lua_Integer)i + 1);
        lua_pop(L, 1); /* the pattern */
    }
    for (size_t i = 0; i < n; i++) {
        const int fd = mkstemp(tmps[i]);
        int err = fd < 0 ? errno : 0;
        if (!err) err = fchmod(fd, target_mode(paths[i])) == 0 ? 0 : errno;
        if (!err) err = write_all(fd, data[i], lens[i]);
        if (fd >= 0 && close(fd) != 0 && !err) err = errno;
        if (err) {
            unlink_temps(tmps, 0, fd < 0 ? i : i + 1);
            return push_errno(L, paths[i], err);
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (rename(tmps[i], paths[i]) != 0) {
            const int err = errno;
            unlink_temps(tmps, i, n);
            return push_errno(L, paths[i], err);
        }
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* host.list_dir(path) -> array of entry names (no "." or ".."), unsorted; or nil, err. */
static int host_list_dir(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    DIR *d = opendir(path);
    if (!d) return push_errno(L, path, errno);
    lua_newtable(L);
    lua_Integer n = 0;
    for (const struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        lua_pushstring(L, e->d_name);
        lua_rawseti(L, -2, ++n);
    }
    closedir(d);
    return 1;
}

/* host.mkdir_p(path) -> true, or nil, err: makes path and its missing parents, like mkdir -p. */
static int host_mkdir_p(lua_State *L) {
    size_t len;
    const char *path = luaL_checklstring(L, 1, &len);
    char *dir = memcpy(lua_newuserdatauv(L, len + 1, 0), path, len + 1);
    for (size_t i = 1; i <= len; i++) {
        if (dir[i] != '/' && dir[i] != '\0') continue;
        const char saved = dir[i];
        dir[i] = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) return push_errno(L, dir, errno);
        dir[i] = saved;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* Registry key of the capped allocator's accounting (a light userdata). */
#define MEMORY_KEY "respgen.memory"

void rg_host_set_memory(lua_State *L, rg_host_memory *m) {
    lua_pushlightuserdata(L, m);
    lua_setfield(L, LUA_REGISTRYINDEX, MEMORY_KEY);
}

/* The allocator's accounting, when the state runs on main.c's capped allocator; else NULL. */
static rg_host_memory *host_memory(lua_State *L) {
    lua_getfield(L, LUA_REGISTRYINDEX, MEMORY_KEY);
    rg_host_memory *m = lua_touserdata(L, -1);
    lua_pop(L, 1);
    return m;
}

/* host.set_memory_limit(bytes): the new cap; it cannot go below what is already in use. */
static int host_set_memory_limit(lua_State *L) {
    const lua_Integer bytes = luaL_checkinteger(L, 1);
    rg_host_memory *m = host_memory(L);
    luaL_argcheck(L, m != NULL, 1, "this state has no memory cap");
    luaL_argcheck(L, bytes > 0 && (lua_Unsigned)bytes > m->used, 1, "below the memory in use");
    m->limit = (size_t)bytes;
    return 0;
}

/* host.memory() -> bytes in use, the cap, and whether the cap refused an allocation since the
 * last call (which clears that). */
static int host_memory_info(lua_State *L) {
    rg_host_memory *m = host_memory(L);
    if (!m) return 0;
    lua_pushinteger(L, (lua_Integer)m->used);
    lua_pushinteger(L, (lua_Integer)m->limit);
    lua_pushboolean(L, m->hit);
    m->hit = 0;
    return 3;
}

/* The wall-clock cap (docs/security.md). SIGALRM can reach nothing but statics; lua_sethook is
 * the one Lua call that is safe in a signal handler (lua.c stops scripts the same way). The hook
 * then raises the error at the next Lua instruction, call or return. */
static lua_State *volatile alarm_state;
static volatile lua_Integer alarm_seconds;

static void stop_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    luaL_error(L, "time limit of %I s reached (--max-seconds)", (lua_Integer)alarm_seconds);
}

static void on_alarm(int sig) {
    (void)sig;
    lua_sethook(alarm_state, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

/* host.set_time_limit(seconds): from now on, the run stops with an error after that long; 0
 * lifts the limit (before writing outputs, so that a run is never cut between two files). */
static int host_set_time_limit(lua_State *L) {
    const lua_Integer seconds = luaL_checkinteger(L, 1);
    luaL_argcheck(L, seconds >= 0 && seconds <= 86400, 1, "from 0 to 86400 seconds");
    if (seconds == 0) {
        alarm(0);
        return 0;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    lua_State *main_state = lua_tothread(L, -1);
    lua_pop(L, 1);
    alarm_state = main_state;
    alarm_seconds = seconds;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGALRM, &sa, NULL) != 0) return luaL_error(L, "sigaction: %s", strerror(errno));
    alarm((unsigned)seconds);
    return 0;
}

int rg_host_open(lua_State *L) {
    static const luaL_Reg funcs[] = {
        {"template", host_template},
        {"templates", host_templates},
        {"has_module", host_has_module},
        {"dump", host_dump},
        {"read_file", host_read_file},
        {"write_file_atomic", host_write_file_atomic},
        {"write_files", host_write_files},
        {"mkdir_p", host_mkdir_p},
        {"list_dir", host_list_dir},
        {"set_memory_limit", host_set_memory_limit},
        {"memory", host_memory_info},
        {"set_time_limit", host_set_time_limit},
        {NULL, NULL},
    };
    luaL_newlib(L, funcs);
    lua_pushliteral(L, RG_VERSION_STRING);
    lua_setfield(L, -2, "version");
    lua_pushliteral(L, LUA_RELEASE);
    lua_setfield(L, -2, "lua_release");
    lua_pushinteger(L, RG_ABI_VERSION);
    lua_setfield(L, -2, "abi_version");
    return 1;
}

void rg_host_install(lua_State *L) {
    luaL_requiref(L, "host", rg_host_open, 0);
    lua_pop(L, 1);

    lua_getglobal(L, LUA_LOADLIBNAME);
    /* Keep the preload searcher (1); the embedded one replaces the file and C searchers. */
    lua_getfield(L, -1, "searchers");
    lua_pushcfunction(L, embedded_searcher);
    lua_rawseti(L, -2, 2);
    for (lua_Integer i = luaL_len(L, -1); i > 2; i--) {
        lua_pushnil(L);
        lua_rawseti(L, -2, i);
    }
    lua_pop(L, 1);
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "path");
    lua_pushliteral(L, "");
    lua_setfield(L, -2, "cpath");
    lua_pop(L, 1);
}

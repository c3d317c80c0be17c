-- What the Redis JSON command specs do not say, applied by
--   respgen import-json ../shared/redis-commands --overlay specs/overlays/redis.lua \
--       -o specs/redis.lua
-- (scripts/import-redis-specs.sh; docs/import.md). Per command (its full name) and argument path
-- (JSON names joined by "."):
--   type, why         a corrected argument type and the reason (listed among the import's quirks)
--   invalid           the error text when the word is not a number (or none of a oneof's words)
--   min, min_error    the smallest value accepted and the text below it
--   count_error       for a count of keys: the text when it counts more than there are
-- and per command:
--   syntax_error      "subcommand": syntax errors are Redis' "unknown subcommand or wrong
--                     number of arguments for '<sub>'. Try <CONTAINER> HELP."; "arity": they
--                     are the command's wrong-number-of-arguments error (LPOP k 1 2); or a
--                     text of the command's own
--   late_numbers      numbers are converted after the whole request was read (a syntax error
--                     anywhere wins over a bad number), where Redis does so
--   unknown_error     the text for a word that is none of the options, "%s" standing for it
--   cacheable         true or false: whether a client-side cache may answer it (its _cached
--                     call, docs/cacheable.md), against what the flags, tips and key specs say;
--                     "per_key": cached key by key (MGET: one element of the reply per key)
--   reply_string      "simple" or "verbatim": how the command's string reply goes on the wire
--                     (the JSON's "string" cannot tell either from a bulk)
--   reply             the reply schema: { why = text, set = { [path] = schema },
--                     titles = { [path] = name } }, a path naming a part of the imported
--                     schema by JSON keys and 1-based indexes joined by "." ("oneOf.2.items.2";
--                     "" the whole schema). `set` corrects a part: each is a reply
--                     redis-server 7.0 sends that the schema leaves out (tests/reply/reply_diff
--                     decodes it from the server); `titles` names tuple fields and alternatives
--                     (a schema `title`: BLPOP's value.popped.key, REDIS_BLPOP_REPLY_POPPED)
-- Every text is what redis-server 7.0 sends; tests/server/test_args_vs_redis checks them against
-- the installed server. An entry that names nothing in the JSON fails the import.

local SCORE_BOUND = { type = "string", why = 'a score-range bound ("(1", "-inf")' }
local SCORE_RANGE = { args = { min = SCORE_BOUND, max = SCORE_BOUND } }

local TIMEOUT = {
    invalid = "ERR timeout is not a float or out of range",
    min = 0,
    min_error = "ERR timeout is negative",
}
local BLOCKING = { args = { timeout = TIMEOUT } }

-- A range check whose text Redis also sends for a word that is no number
-- (getRangeLongFromObjectOrReply, getPositiveLongFromObjectOrReply).
local function range(min, text)
    return { invalid = text, min = min, min_error = text }
end

-- LMPOP and friends: numkeys, then the keys, then COUNT.
local NUMKEYS = range(1, "ERR numkeys should be greater than 0")
local MPOP_COUNT = range(1, "ERR count should be greater than 0")
local MPOP = { args = { numkeys = NUMKEYS, count = MPOP_COUNT } }
local BLOCKING_MPOP = { args = { timeout = TIMEOUT, numkeys = NUMKEYS, count = MPOP_COUNT } }

-- ZUNION and friends name themselves in the text.
local function set_op(name)
    return { args = { numkeys = {
        min = 1, min_error = "ERR at least 1 input key is needed for '" .. name .. "' command",
    } } }
end

local SCRIPT_NUMKEYS = { args = { numkeys = {
    min = 0,
    min_error = "ERR Number of keys can't be negative",
    count_error = "ERR Number of keys can't be greater than number of args",
} } }

local UNIT = { invalid = "ERR unsupported unit provided. please use M, KM, FT, MI" }
local RADIUS = {
    invalid = "ERR need numeric radius",
    min = 0,
    min_error = "ERR radius cannot be negative",
}
local GEORADIUS = { args = { radius = RADIUS, unit = UNIT } }
local GEOSEARCH = { args = {
    ["by.circle.radius"] = RADIUS,
    ["by.circle.unit"] = UNIT,
    ["by.box.width"] = { invalid = "ERR need numeric width", min = 0,
        min_error = "ERR height or width cannot be negative" },
    ["by.box.height"] = { invalid = "ERR need numeric height", min = 0,
        min_error = "ERR height or width cannot be negative" },
    ["by.box.unit"] = UNIT,
} }

-- XREAD and XREADGROUP: BLOCK's timeout, and the keys and IDs after STREAMS.
local XREAD = { args = {
    milliseconds = {
        invalid = "ERR timeout is not an integer or out of range",
        min = 0,
        min_error = "ERR timeout is negative",
    },
    streams = { count_error = "ERR Unbalanced XREAD list of streams: for each stream key an ID " ..
        "or '$' must be specified." },
} }

local CURSOR = { args = { cursor = { invalid = "ERR invalid cursor" } } }
local POP_COUNT = { args = { count = range(0, "ERR value is out of range, must be positive") } }
-- LPOP key [count]: a word after the count is the arity error.
local POP_LIST = { syntax_error = "arity", args = POP_COUNT.args }
-- SET parses its options first and converts EX's number after them; EXPIRE too.
local EXPIRE = { late_numbers = true, unknown_error = "ERR Unsupported option %s" }
local SUBCOMMAND = { syntax_error = "subcommand" }
-- String replies that are no bulk: simple strings ("+none"), and verbatim strings
-- ("=<len>\r\ntxt:...", a bulk in RESP2). Each one was sent to redis-server 7.0.15 over RESP2
-- and RESP3 (tests/server/test_dispatch checks TYPE, REPLICAOF, INFO and LOLWUT).
local SIMPLE = { reply_string = "simple" }
local VERBATIM = { reply_string = "verbatim" }

-- Names (schema titles) of tuple fields and alternatives.
local function titled(args, titles)
    return { args = args, reply = { titles = titles } }
end
-- BLPOP, BRPOP: null, or the key and the element popped.
local POPPED_ONE = { ["oneOf.2"] = "popped", ["oneOf.2.items.1"] = "key",
    ["oneOf.2.items.2"] = "element" }
-- BZPOPMIN, BZPOPMAX: null, or the key, member and score.
local POPPED_MEMBER = { ["oneOf.2"] = "popped", ["oneOf.2.items.1"] = "key",
    ["oneOf.2.items.2"] = "member", ["oneOf.2.items.3"] = "score" }
-- BLMPOP, BZMPOP, ZMPOP (oneOf) and LMPOP (anyOf): null, or the key and the elements.
local function popped_many(of)
    return { [of .. ".2"] = "popped", [of .. ".2.items.1"] = "key",
        [of .. ".2.items.2"] = "elements" }
end
-- SCAN and friends: the next cursor and this batch.
local SCANNED = { ["items.1"] = "cursor", ["items.2"] = "elements" }
local RANK = { ["oneOf.1"] = "null", ["oneOf.2"] = "rank", ["oneOf.3"] = "with_score",
    ["oneOf.3.items.1"] = "rank", ["oneOf.3.items.2"] = "score" }

-- SUBSCRIBE and friends: the confirmation of the first channel (in RESP3 a push; one more per
-- further channel follows, as pushes or, in RESP2, as arrays like it). An unsubscribe names no
-- channel when there were none (a null). Overlays run in the spec sandbox: no string patterns.
local UNSUBSCRIBES = { unsubscribe = true, punsubscribe = true, sunsubscribe = true }
local function confirmation(kind, channel)
    return { reply = {
        why = "the first confirmation: [\"" .. kind .. "\", channel, subscriptions]",
        set = { [""] = {
            description = "The confirmation for the first " .. channel .. ".",
            type = "array",
            items = {
                { const = kind },
                UNSUBSCRIBES[kind] and {
                    oneOf = { { type = "string" }, { description = "Subscribed to none",
                        type = "null" } },
                } or { type = "string" },
                { description = "Subscriptions of the connection", type = "integer" },
            },
        } },
        titles = { ["items.1"] = "type", ["items.2"] = "channel", ["items.3"] = "count" },
    } }
end

-- Schema parts that may also be null.
local function or_null(schema)
    return { oneOf = { schema, { type = "null" } } }
end

-- SENTINEL GET-MASTER-ADDR-BY-NAME and its newer name: null for a master it does not monitor.
local SENTINEL_ADDR = { reply = {
    why = "null for a name that is not monitored",
    set = { [""] = or_null({ type = "array", minItems = 2, maxItems = 2, items = {
        { description = "IP addr or hostname.", type = "string" },
        { description = "Port.", type = "string", pattern = "[0-9]+" },
    } }) },
    titles = { ["oneOf.1"] = "address", ["oneOf.1.items.1"] = "host",
        ["oneOf.1.items.2"] = "port" },
} }

return {
    ["XPENDING"] = { reply = {
        titles = {
            ["oneOf.1"] = "entries", ["oneOf.1.items.items.1"] = "id",
            ["oneOf.1.items.items.2"] = "consumer", ["oneOf.1.items.items.3"] = "idle",
            ["oneOf.1.items.items.4"] = "deliveries",
            ["oneOf.2"] = "summary", ["oneOf.2.items.1"] = "count", ["oneOf.2.items.2"] = "min",
            ["oneOf.2.items.3"] = "max", ["oneOf.2.items.4"] = "consumers",
            ["oneOf.2.items.4.oneOf.1.items.items.1"] = "name",
            ["oneOf.2.items.4.oneOf.1.items.items.2"] = "pending",
        },
        why = "the summary of a group with nothing pending has null IDs and consumers",
        set = {
            ["oneOf.2.items.2"] = or_null({ description = "Minimal pending entry ID",
                type = "string", pattern = "[0-9]+-[0-9]+" }),
            ["oneOf.2.items.3"] = or_null({ description = "Maximal pending entry ID",
                type = "string", pattern = "[0-9]+-[0-9]+" }),
            ["oneOf.2.items.4"] = or_null({ description = "Consumers with pending messages",
                type = "array", items = { type = "array", minItems = 2, maxItems = 2, items = {
                    { description = "Consumer name", type = "string" },
                    { description = "Number of pending messages", type = "string" },
                } } }),
        },
    } },
    ["PUBSUB NUMSUB"] = { reply = {
        why = "channel, count, channel, count...: pairs of name and integer",
        set = { [""] = {
            description = "The number of subscribers per channel.",
            type = "object",
            additionalProperties = { description = "Subscribers", type = "integer" },
        } },
    } },
    ["PUBSUB SHARDNUMSUB"] = { reply = {
        why = "channel, count, channel, count...: pairs of name and integer",
        set = { [""] = {
            description = "The number of subscribers per shard channel.",
            type = "object",
            additionalProperties = { description = "Subscribers", type = "integer" },
        } },
    } },
    ["SUBSCRIBE"] = confirmation("subscribe", "channel"),
    ["PSUBSCRIBE"] = confirmation("psubscribe", "pattern"),
    ["SSUBSCRIBE"] = confirmation("ssubscribe", "shard channel"),
    ["UNSUBSCRIBE"] = confirmation("unsubscribe", "channel"),
    ["PUNSUBSCRIBE"] = confirmation("punsubscribe", "pattern"),
    ["SUNSUBSCRIBE"] = confirmation("sunsubscribe", "shard channel"),
    ["MONITOR"] = { reply = {
        why = "OK, then the monitored commands as simple strings (not replies)",
        set = { [""] = { const = "OK" } },
    } },
    ["PFDEBUG"] = { reply = {
        why = "GETREG: the registers; DECODE, ENCODING: a status; TODENSE: 0 or 1",
        set = { [""] = { oneOf = {
            { description = "GETREG", type = "array", items = { type = "integer" } },
            { description = "DECODE, ENCODING", type = "string" },
            { description = "TODENSE", type = "integer" },
        } } },
    } },
    ["GEOHASH"] = { reply = {
        why = "a member that does not exist has a null hash",
        set = { items = or_null({ type = "string" }) },
    } },

    ["ZCOUNT"] = SCORE_RANGE,
    ["ZRANGEBYSCORE"] = SCORE_RANGE,
    ["ZREVRANGEBYSCORE"] = SCORE_RANGE,
    ["ZREMRANGEBYSCORE"] = SCORE_RANGE,
    ["ZINCRBY"] = { args = { increment = { type = "double", why = "a float in Redis" } } },

    ["BLPOP"] = titled(BLOCKING.args, POPPED_ONE),
    ["BRPOP"] = titled(BLOCKING.args, POPPED_ONE),
    ["BRPOPLPUSH"] = BLOCKING,
    ["BLMOVE"] = BLOCKING,
    ["BZPOPMIN"] = titled(BLOCKING.args, POPPED_MEMBER),
    ["BZPOPMAX"] = titled(BLOCKING.args, POPPED_MEMBER),
    ["BLMPOP"] = titled(BLOCKING_MPOP.args, popped_many("oneOf")),
    ["BZMPOP"] = titled(BLOCKING_MPOP.args, popped_many("oneOf")),
    ["LMPOP"] = titled(MPOP.args, popped_many("anyOf")),
    ["ZMPOP"] = titled(MPOP.args, popped_many("oneOf")),
    ["ROLE"] = { reply = { titles = {
        ["oneOf.1"] = "master", ["oneOf.1.items.1"] = "role", ["oneOf.1.items.2"] = "offset",
        ["oneOf.1.items.3"] = "replicas", ["oneOf.1.items.3.items.items.1"] = "host",
        ["oneOf.1.items.3.items.items.2"] = "port", ["oneOf.1.items.3.items.items.3"] = "offset",
        ["oneOf.2"] = "replica", ["oneOf.2.items.1"] = "role", ["oneOf.2.items.2"] = "host",
        ["oneOf.2.items.3"] = "port", ["oneOf.2.items.4"] = "state",
        ["oneOf.2.items.5"] = "offset",
        ["oneOf.3"] = "sentinel", ["oneOf.3.items.1"] = "role", ["oneOf.3.items.2"] = "masters",
    } } },
    ["COMMAND INFO"] = { reply = { titles = {
        ["items.oneOf.1"] = "null", ["items.oneOf.2"] = "info",
        ["items.oneOf.2.items.1"] = "name", ["items.oneOf.2.items.2"] = "arity",
        ["items.oneOf.2.items.3"] = "flags", ["items.oneOf.2.items.4"] = "first_key",
        ["items.oneOf.2.items.5"] = "last_key", ["items.oneOf.2.items.6"] = "step",
        ["items.oneOf.2.items.7"] = "acl_categories", ["items.oneOf.2.items.8"] = "tips",
        ["items.oneOf.2.items.9"] = "key_specs", ["items.oneOf.2.items.10"] = "subcommands",
    } } },
    -- [start, end, node, node...]: an open tuple, read as an array of slot numbers and nodes.
    ["CLUSTER SLOTS"] = { reply = { titles = {
        ["items.items.3"] = "node",
        ["items.items.3.items.1"] = "host", ["items.items.3.items.2"] = "port",
        ["items.items.3.items.3"] = "id", ["items.items.3.items.4"] = "metadata",
    } } },
    ["ZRANK"] = { reply = { titles = RANK } },
    ["ZREVRANK"] = { reply = { titles = RANK } },
    ["GEOPOS"] = { reply = { titles = { ["items.oneOf.2"] = "position",
        ["items.oneOf.2.items.1"] = "longitude", ["items.oneOf.2.items.2"] = "latitude" } } },
    ["LATENCY HISTOGRAM"] = { reply = {
        why = "histogram_usec's keys are integers (bucket bounds), not strings",
        set = { [""] = {
            description = "Per command name, its calls and its histogram of latencies.",
            type = "object",
            additionalProperties = {
                type = "object",
                additionalProperties = false,
                properties = {
                    calls = { description = "The total calls for the command.",
                        type = "integer" },
                    histogram_usec = {
                        description = "Bucket (microseconds) to calls in it.",
                        type = "array",
                        items = { type = "array", minItems = 2, maxItems = 2,
                            items = { { type = "integer" }, { type = "integer" } } },
                    },
                },
            },
        } },
    } },
    ["LATENCY LATEST"] = { reply = { titles = { ["items.items.1"] = "event",
        ["items.items.2"] = "timestamp", ["items.items.3"] = "latest",
        ["items.items.4"] = "max" } } },
    ["SENTINEL GET-MASTER-ADDR-BY-NAME"] = SENTINEL_ADDR,
    ["SENTINEL GET-PRIMARY-ADDR-BY-NAME"] = SENTINEL_ADDR,
    ["SENTINEL INFO-CACHE"] = { reply = {
        why = "pairs of a master name and the [age, INFO or null] pairs of it and its replicas",
        set = { [""] = {
            description = "Per master name, the cached INFO of the master and its replicas.",
            type = "object",
            additionalProperties = {
                description = "[milliseconds since cached, the INFO text or null] per instance",
                type = "array",
                items = { type = "array", minItems = 2, maxItems = 2, items = {
                    { description = "Milliseconds since the INFO was cached", type = "integer" },
                    or_null({ description = "The cached INFO", type = "string" }),
                } },
            },
        } },
    } },
    ["WAITAOF"] = { reply = { titles = { ["items.1"] = "local", ["items.2"] = "replicas" } } },
    ["XCLAIM"] = { reply = { titles = { ["anyOf.1"] = "ids", ["anyOf.2"] = "entries" } } },
    ["XAUTOCLAIM"] = { reply = { titles = {
        ["anyOf.1"] = "entries", ["anyOf.1.items.1"] = "next", ["anyOf.1.items.2"] = "claimed",
        ["anyOf.1.items.3"] = "deleted",
        ["anyOf.2"] = "ids", ["anyOf.2.items.1"] = "next", ["anyOf.2.items.2"] = "claimed",
        ["anyOf.2.items.3"] = "deleted",
    } } },
    ["SINTERCARD"] = { args = {
        numkeys = { invalid = "ERR numkeys should be greater than 0", min = 1,
            min_error = "ERR numkeys should be greater than 0",
            count_error = "ERR Number of keys can't be greater than number of args" },
        limit = range(0, "ERR LIMIT can't be negative"),
    } },
    ["ZINTERCARD"] = { args = {
        numkeys = { min = 1,
            min_error = "ERR at least 1 input key is needed for 'zintercard' command" },
        limit = range(0, "ERR LIMIT can't be negative"),
    } },
    ["ZUNION"] = set_op("zunion"),
    ["ZINTER"] = set_op("zinter"),
    ["ZDIFF"] = set_op("zdiff"),
    ["ZUNIONSTORE"] = set_op("zunionstore"),
    ["ZINTERSTORE"] = set_op("zinterstore"),
    ["ZDIFFSTORE"] = set_op("zdiffstore"),
    ["EVAL"] = SCRIPT_NUMKEYS,
    ["EVAL_RO"] = SCRIPT_NUMKEYS,
    ["EVALSHA"] = SCRIPT_NUMKEYS,
    ["EVALSHA_RO"] = SCRIPT_NUMKEYS,
    ["FCALL"] = SCRIPT_NUMKEYS,
    ["FCALL_RO"] = SCRIPT_NUMKEYS,

    ["GEORADIUS"] = GEORADIUS,
    ["GEORADIUS_RO"] = GEORADIUS,
    ["GEORADIUSBYMEMBER"] = GEORADIUS,
    ["GEORADIUSBYMEMBER_RO"] = GEORADIUS,
    ["GEOSEARCH"] = GEOSEARCH,
    ["GEOSEARCHSTORE"] = GEOSEARCH,
    ["GEODIST"] = { args = { unit = UNIT } },

    ["XADD"] = { args = { data = {
        count_error = "ERR wrong number of arguments for 'xadd' command",
    } } },
    ["XREAD"] = XREAD,
    ["XREADGROUP"] = XREAD,

    ["SCAN"] = titled(CURSOR.args, SCANNED),
    ["SSCAN"] = titled(CURSOR.args, SCANNED),
    ["HSCAN"] = titled(CURSOR.args, SCANNED),
    ["ZSCAN"] = titled(CURSOR.args, SCANNED),
    ["LPOP"] = POP_LIST,
    ["RPOP"] = POP_LIST,
    ["SPOP"] = POP_COUNT,
    ["ZPOPMIN"] = POP_COUNT,
    ["ZPOPMAX"] = POP_COUNT,
    ["LPOS"] = { args = {
        ["num-matches"] = range(0, "ERR COUNT can't be negative"),
        len = range(0, "ERR MAXLEN can't be negative"),
    } },
    ["PING"] = { syntax_error = "arity" },
    ["SET"] = { late_numbers = true },
    ["GETEX"] = { late_numbers = true },
    ["EXPIRE"] = EXPIRE,
    ["PEXPIRE"] = EXPIRE,
    ["EXPIREAT"] = EXPIRE,
    ["PEXPIREAT"] = EXPIRE,
    ["FUNCTION LIST"] = { unknown_error = "ERR Unknown argument %s" },
    ["GETBIT"] = { args = { offset = { invalid = "ERR bit offset is not an integer or out of range",
        min = 0, min_error = "ERR bit offset is not an integer or out of range" } } },
    ["SETBIT"] = { args = {
        offset = { invalid = "ERR bit offset is not an integer or out of range", min = 0,
            min_error = "ERR bit offset is not an integer or out of range" },
        value = { invalid = "ERR bit is not an integer or out of range", min = 0,
            min_error = "ERR bit is not an integer or out of range" },
    } },
    ["SWAPDB"] = { args = {
        index1 = { invalid = "ERR invalid first DB index" },
        index2 = { invalid = "ERR invalid second DB index" },
    } },
    ["HELLO"] = { args = { ["arguments.protover"] = {
        invalid = "ERR Protocol version is not an integer or out of range",
    } } },
    ["SLOWLOG GET"] = {
        reply = { titles = { ["items.items.1"] = "id", ["items.items.2"] = "timestamp",
            ["items.items.3"] = "duration", ["items.items.4"] = "arguments",
            ["items.items.5"] = "address", ["items.items.6"] = "name" } },
        syntax_error = "subcommand",
        args = { count = range(-1, "ERR count should be greater than or equal to -1") },
    },
    ["SCRIPT DEBUG"] = { args = { mode = { invalid = "ERR Use SCRIPT DEBUG YES/SYNC/NO" } } },
    ["SCRIPT FLUSH"] = {
        syntax_error = "ERR SCRIPT FLUSH only support SYNC|ASYNC option",
        args = { ["flush-type"] = { invalid = "ERR SCRIPT FLUSH only support SYNC|ASYNC option" } },
    },
    ["FUNCTION FLUSH"] = {
        syntax_error = "subcommand",
        args = {
            ["flush-type"] = { invalid = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option" },
        },
    },
    ["FUNCTION RESTORE"] = {
        syntax_error = "subcommand",
        args = { policy = {
            invalid = "ERR Wrong restore policy given, value should be either FLUSH, APPEND or"
                .. " REPLACE.",
        } },
    },
    ["CLIENT UNBLOCK"] = {
        syntax_error = "subcommand",
        args = { ["unblock-type"] = {
            invalid = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR",
        } },
    },
    ["ACL CAT"] = SUBCOMMAND,
    ["ACL GENPASS"] = SUBCOMMAND,
    ["ACL LOG"] = SUBCOMMAND,
    ["PUBSUB CHANNELS"] = SUBCOMMAND,
    ["PUBSUB SHARDCHANNELS"] = SUBCOMMAND,
    ["XGROUP CREATE"] = SUBCOMMAND,
    ["XGROUP SETID"] = SUBCOMMAND,
    -- Not cacheable although read-only, deterministic and of one key (docs/cacheable.md): the
    -- reply changes without a write that invalidates the key. XINFO STREAM and GROUPS tell a
    -- group's pending count, lag and (FULL) consumers' seen-time, which XREADGROUP and time
    -- change; MEMORY USAGE the allocator's view of the value.
    ["XINFO STREAM"] = { syntax_error = "subcommand", cacheable = false },
    ["XINFO GROUPS"] = { cacheable = false },
    ["MEMORY USAGE"] = { cacheable = false },
    -- MGET's reply is one element per key, each what GET of that key would give but for a key of
    -- another type (nil, not WRONGTYPE): cached key by key, apart from GET's entries.
    ["MGET"] = { cacheable = "per_key" },

    ["TYPE"] = SIMPLE,
    ["BGREWRITEAOF"] = SIMPLE,
    ["REPLICAOF"] = SIMPLE,
    ["SLAVEOF"] = SIMPLE,
    ["SENTINEL CKQUORUM"] = SIMPLE,
    ["INFO"] = VERBATIM,
    ["CLIENT INFO"] = VERBATIM,
    ["CLIENT LIST"] = VERBATIM,
    ["CLUSTER INFO"] = VERBATIM,
    ["CLUSTER NODES"] = VERBATIM,
    ["LATENCY DOCTOR"] = VERBATIM,
    ["LATENCY GRAPH"] = VERBATIM,
    ["LOLWUT"] = VERBATIM,
    ["MEMORY DOCTOR"] = VERBATIM,
    ["MEMORY MALLOC-STATS"] = VERBATIM,
}

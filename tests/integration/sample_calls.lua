-- The one table of exceptions for server_commands (every command against a real redis-server):
-- read by `respgen --sample-calls VERSION --sample-overrides <this file>`
-- (gen/lua/tools/sample_calls.lua).
-- Per command name:
--   skip   = why the command is not sent at all (counted and printed with this reason)
--   values = C expressions for arguments by name, where the defaults (key "k:<command>", "v",
--            "*", 1, 1.5, a timestamp in 2100) would block, hang or harm the scratch server
--   pick   = the oneof alternative to take, by argument name, where the first one makes the
--            "full" form a syntax error by design
--   omit   = optional arguments the "full" form leaves out: options the server takes only one
--            at a time (their error is the syntax error the test looks for), or that the spec
--            does not date although the server's version lacks them
--   require = optional arguments both forms send, where the server's version wants them
-- Every call runs on a fresh connection, so commands that change the connection's state
-- (HELLO, SELECT, AUTH, RESET, QUIT, MULTI, CLIENT REPLY, SUBSCRIBE, MONITOR) need no entry.
local BLOCK_BRIEFLY = { timeout = "0.01" }
-- Score-range bounds are strings; "v" would be "min or max is not a float".
local SCORE_RANGE = { min = 'RG_LIT("(1")', max = 'RG_LIT("+inf")' }

return {
    -- Would stop, crash or take over the server, or turn the connection into something that is
    -- not RESP.
    ["SHUTDOWN"] = { skip = "stops the server" },
    ["SYNC"] = { skip = "replication stream: the RDB payload follows without CRLF" },
    ["PSYNC"] = { skip = "replication stream: the RDB payload follows without CRLF" },
    ["REPLICAOF"] = { skip = "makes the scratch server a replica (read-only)" },
    ["SLAVEOF"] = { skip = "makes the scratch server a replica (read-only)" },

    ["ZCOUNT"] = { values = SCORE_RANGE },
    ["ZRANGEBYSCORE"] = { values = SCORE_RANGE },
    ["ZREVRANGEBYSCORE"] = { values = SCORE_RANGE },
    ["ZREMRANGEBYSCORE"] = { values = SCORE_RANGE },

    -- Stream trimming: a number for MAXLEN, and LIMIT wants the ~ operator.
    ["XTRIM"] = { values = { threshold = 'RG_LIT("1")' }, pick = { operator = "approximately" } },
    ["XADD"] = { values = { threshold = 'RG_LIT("1")' }, pick = { operator = "approximately" } },

    -- Blocking commands: a timeout of 10 ms instead of 1.5 s.
    ["BLPOP"] = { values = BLOCK_BRIEFLY },
    ["BRPOP"] = { values = BLOCK_BRIEFLY },
    ["BRPOPLPUSH"] = { values = BLOCK_BRIEFLY },
    ["BLMOVE"] = { values = BLOCK_BRIEFLY },
    ["BLMPOP"] = { values = BLOCK_BRIEFLY },
    ["BZPOPMIN"] = { values = BLOCK_BRIEFLY },
    ["BZPOPMAX"] = { values = BLOCK_BRIEFLY },
    ["BZMPOP"] = { values = BLOCK_BRIEFLY },

    -- Options the server takes one at a time: the spec lists them as independent.
    ["CLIENT LIST"] = { omit = { "client-type" } }, -- TYPE or ID, not both
    ["FAILOVER"] = { omit = { "abort" } },           -- ABORT alone
    ["RESTORE"] = { omit = { "frequency" } },        -- IDLETIME or FREQ, not both
    ["RESTORE-ASKING"] = { omit = { "frequency" } },

    -- Spec (the current command JSON) against 7.0: WITHSCORE came in 7.2.0 (its history says
    -- so) but the argument has no "since"; COMMAND GETKEYS* had arity -4 before 7.2 (now -3).
    ["ZRANK"] = { omit = { "withscore" } },
    ["ZREVRANK"] = { omit = { "withscore" } },
    ["COMMAND GETKEYS"] = { require = { "arg" } },
    ["COMMAND GETKEYSANDFLAGS"] = { require = { "arg" } },

    -- Connects to host:port: the loopback and a closed port fail at once (no DNS lookup of "v").
    ["MIGRATE"] = { values = { host = 'RG_LIT("127.0.0.1")' } },
}

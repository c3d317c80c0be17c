-- Mapping spec names (Redis argument and command names) to C identifiers.
--
-- A spec name becomes an identifier by lower-casing it and turning every character that cannot
-- appear in a C identifier into '_' ("unix-time-seconds" -> "unix_time_seconds"). Names that
-- would then clash with a C keyword, a standard macro or typedef the generated code sees, or a
-- parameter or local the generated functions declare, get a trailing '_' ("default" -> "default_")
-- so every spec name keeps working.

local M = {}

-- The string library as loaded: spec constructors call into this module while the spec sandbox
-- has replaced the string methods (spec.lua refuses patterns to specs), so no method syntax here.
local match, gsub, lower, upper = string.match, string.gsub, string.lower, string.upper

local function set_of(words)
    local s = {}
    for w in words:gmatch("%S+") do s[w] = true end
    return s
end

-- C11 and C++ keywords (headers are usable from C++, and clang-format reads C as C++), the
-- macros and typedefs of the headers generated code includes, and the names the
-- generated functions use for their own parameters and locals.
local RESERVED = set_of([[
    auto break case char const continue default do double else enum extern float for goto if
    inline int long register restrict return short signed sizeof static struct switch typedef
    union unsigned void volatile while _Alignas _Alignof _Atomic _Bool _Complex _Generic
    _Imaginary _Noreturn _Static_assert _Thread_local
    alignas alignof and and_eq asm bitand bitor catch char8_t char16_t char32_t class compl
    concept const_cast consteval constexpr constinit co_await co_return co_yield decltype delete
    dynamic_cast explicit export friend mutable namespace new noexcept not not_eq nullptr operator
    or or_eq private protected public reinterpret_cast requires static_assert static_cast template
    this thread_local throw try typeid typename using virtual xor xor_eq
    bool true false assert offsetof
    size_t ptrdiff_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t
    intptr_t uintptr_t intmax_t uintmax_t wchar_t max_align_t memcpy
    dst cap opts iov iov_cap scratch scratch_cap w m n i v end none argc b kind
]])

M.RESERVED = RESERVED

-- The identifier form of a spec name, before keyword mangling; nil when the result cannot be an
-- identifier (empty, or starting with a digit).
function M.ident(name)
    local id = gsub(lower(name), "[^a-z0-9_]", "_")
    if id == "" or match(id, "^%d") then return nil end
    return id
end

-- The name a parameter or struct member gets: ident() plus the '_' that keeps it clear of
-- keywords and of the generated code's own names.
function M.member(name)
    local id = M.ident(name)
    if not id then return nil end
    if RESERVED[id] or match(id, "^rg_") then return id .. "_" end
    return id
end

-- Upper-case form for macros and enumerators.
function M.upper(id)
    return upper(id)
end

-- The longest prefix. Every generated name starts with it, and the longest names add some 60
-- characters of their own (redis_srv_sentinel_get_master_addr_by_name_reply_size): a realistic
-- prefix ("mycompany_redis_proxy_v2") is well within it, and past it names stop fitting the
-- 100-column lines the generated code is laid out in.
M.PREFIX_MAX = 40

-- What keeps s from being a prefix of every generated identifier, or nil when nothing does.
function M.prefix_problem(s)
    if s == "" then return "is empty" end
    if match(s, "[^A-Za-z0-9_]") then
        return "is no C identifier (letters, digits and '_' only)"
    end
    if match(s, "^%d") then return "starts with a digit, as no C identifier can" end
    if match(s, "^_") then
        return "starts with '_': C reserves such names (C11 7.1.3); start with a letter"
    end
    if match(s, "_$") then
        return "ends in '_': respgen adds it itself (--prefix " .. gsub(s, "_+$", "") .. ")"
    end
    if lower(s) == "rg" or match(lower(s), "^rg_") then
        return "is the runtime's own namespace (rg_*, RG_*); choose another"
    end
    if #s > M.PREFIX_MAX then
        return "is " .. #s .. " characters long, over the limit of " .. M.PREFIX_MAX
    end
    return nil
end

-- True when s is usable as a prefix for every generated identifier.
function M.valid_prefix(s)
    return M.prefix_problem(s) == nil
end

-- Whether a sorts before b byte by byte (Lua's < follows the C locale's collation, which a
-- generated file must not depend on); clang-format sorts includes this way.
function M.bytes_less(a, b)
    for i = 1, math.min(#a, #b) do
        local x, y = a:byte(i), b:byte(i)
        if x ~= y then return x < y end
    end
    return #a < #b
end

return M

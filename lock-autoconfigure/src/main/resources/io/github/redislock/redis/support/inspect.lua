-- Reads a key for the holder view (read-only): what it holds, for how long, and how many wait for it.
-- Values are read back from a key anyone with write access may have set: a non-string key is reported as
-- such, a long value is cut, and nothing read is used as a key name here.
-- KEYS[1]: the key (a lock key, or an instance registry entry)
-- KEYS[2]: optional: the lock key's queue of waiting applications (a list; same cluster slot)
-- KEYS[3]: optional: the lock key's holders while it is shared (share.lua's sorted set; same cluster slot); '' none
-- KEYS[4]: optional: Redlock's fence counter of the lock key (same cluster slot)
-- ARGV[1]: the most characters of the value (and of each holder) to return
-- ARGV[2]: the most holders to return (with KEYS[3])
-- Returns {value, pttl, queued, counter, holders}:
--   value:  the value's first ARGV[1] bytes; false when there is no key; '~type:<type>' when it is no string
--   pttl:   the key's PTTL (-2: no key, -1: no expiry)
--   queued: the length of KEYS[2], 0 when it does not exist, -1 without KEYS[2] or when it is no list (or the
--           user may not run LLEN)
--   counter: the fence counter when it holds a number of at most 18 digits, else -1
--   holders: when the value is a shared key's marker ('~r:' or '~s<N>:'), its holders whose lease has not run out,
--            longest-lived first, as pairs of the entry (cut) and its milliseconds left; else empty
local value = redis.pcall('GET', KEYS[1])
if type(value) == 'table' and value.err then
    local kind = redis.pcall('TYPE', KEYS[1])
    value = '~type:' .. (kind.ok or '?')
elseif value then
    value = string.sub(value, 1, tonumber(ARGV[1]))
end
local queued = -1
if KEYS[2] and KEYS[2] ~= '' then
    local length = redis.pcall('LLEN', KEYS[2])
    if type(length) == 'number' then
        queued = length
    end
end
local holders = {}
if KEYS[3] and KEYS[3] ~= '' and value and string.match(value, '^~[rs]%d*:') then
    local time = redis.call('TIME')
    local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    local read = redis.pcall('ZRANGE', KEYS[3], '+inf', '(' .. now, 'BYSCORE', 'REV', 'LIMIT', 0, tonumber(ARGV[2]),
        'WITHSCORES')
    if type(read) == 'table' and not read.err then
        for i = 1, #read, 2 do
            holders[#holders + 1] = string.sub(read[i], 1, tonumber(ARGV[1]))
            holders[#holders + 1] = math.floor(tonumber(read[i + 1]) - now)
        end
    end
end
local counter = -1
if KEYS[4] then
    local stored = redis.pcall('GET', KEYS[4])
    if type(stored) == 'string' and string.match(stored, '^%d+$') and #stored <= 18 then
        counter = tonumber(stored)
    end
end
return {value, redis.call('PTTL', KEYS[1]), queued, counter, holders}
